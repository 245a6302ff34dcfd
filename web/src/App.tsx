import { QueryClientProvider } from '@tanstack/react-query';
import { createBrowserRouter, Navigate } from 'react-router';
import { RouterProvider } from 'react-router/dom';
import { makeQueryClient } from './queryClient';
import { AppLayout, PublicLayout } from './components/Layout';
import { keys } from './api/queries';
import { forgetSession } from './session';
import {
  Accounts,
  Admin,
  Assistant,
  Billing,
  Brokerages,
  Calculator,
  CalculatorStrategy,
  ConfirmEmail,
  Connections,
  CsvImport,
  Dashboard,
  ExchangeRates,
  Expenses,
  ForgotPassword,
  Journal,
  JournalDay,
  Playbooks,
  PositionNew,
  PositionPage,
  Positions,
  QuickAdd,
  ResetPassword,
  Rules,
  Settings,
  SettingsSecurity,
  SignIn,
  SignUp,
  Strategies,
  StrategyPage,
  Tax,
  VerifyEmail,
  Welcome,
} from './screenChunks';

/** Paths a signed-out visitor may open. */
const publicPaths = ['/welcome', '/signin', '/signup', '/forgot-password', '/reset-password', '/verify-email', '/confirm-email'];

export const router = createBrowserRouter([
  {
    element: <PublicLayout />,
    children: [
      { path: '/welcome', element: <Welcome /> },
      { path: '/signin', element: <SignIn /> },
      { path: '/signup', element: <SignUp /> },
      { path: '/forgot-password', element: <ForgotPassword /> },
      { path: '/reset-password', element: <ResetPassword /> },
      { path: '/verify-email', element: <VerifyEmail /> },
      { path: '/confirm-email', element: <ConfirmEmail /> },
    ],
  },
  {
    element: <AppLayout />,
    children: [
      { path: '/', element: <Dashboard /> },
      { path: '/positions', element: <Positions /> },
      { path: '/positions/new', element: <PositionNew /> },
      { path: '/positions/quick', element: <QuickAdd /> },
      { path: '/positions/:positionId', element: <PositionPage /> },
      { path: '/strategies', element: <Strategies /> },
      { path: '/strategies/:strategyId', element: <StrategyPage /> },
      { path: '/accounts', element: <Accounts /> },
      { path: '/brokerages', element: <Brokerages /> },
      { path: '/exchange-rates', element: <ExchangeRates /> },
      { path: '/calculator', element: <Calculator /> },
      { path: '/calculator/strategy', element: <CalculatorStrategy /> },
      { path: '/import', element: <CsvImport /> },
      { path: '/connections', element: <Connections /> },
      { path: '/playbooks', element: <Playbooks /> },
      { path: '/rules', element: <Rules /> },
      { path: '/tax', element: <Tax /> },
      { path: '/expenses', element: <Expenses /> },
      { path: '/settings', element: <Settings /> },
      { path: '/settings/security', element: <SettingsSecurity /> },
      { path: '/admin', element: <Admin /> },
      { path: '/billing', element: <Billing /> },
      { path: '/assistant/:conversationId?', element: <Assistant /> },
      { path: '/journal', element: <Journal /> },
      { path: '/journal/:date', element: <JournalDay /> },
      { path: '*', element: <Navigate to="/" replace /> },
    ],
  },
]);

function toSignIn(): void {
  forgetSession();
  const { pathname, search } = window.location;
  if (publicPaths.includes(pathname)) return;
  queryClient.setQueryData(keys.me, null);
  queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== keys.me[0] });
  const next = pathname === '/' ? '' : `?next=${encodeURIComponent(pathname + search)}`;
  void router.navigate(`/signin${next}`, { replace: true });
}

export const queryClient = makeQueryClient(toSignIn);

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  );
}
