import { lazy } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { createBrowserRouter, Navigate } from 'react-router';
import { RouterProvider } from 'react-router/dom';
import { makeQueryClient } from './queryClient';
import { AppLayout, PublicLayout } from './components/Layout';
import { keys } from './api/queries';
import { forgetSession } from './session';

// One chunk per screen: the initial bundle holds only the shell.
const SignIn = lazy(() => import('./screens/auth/SignIn'));
const SignUp = lazy(() => import('./screens/auth/SignUp'));
const Welcome = lazy(() => import('./screens/auth/Welcome'));
const ForgotPassword = lazy(() => import('./screens/auth/ForgotPassword'));
const ResetPassword = lazy(() => import('./screens/auth/ResetPassword'));
const VerifyEmail = lazy(() => import('./screens/auth/VerifyEmail'));
const ConfirmEmail = lazy(() => import('./screens/auth/ConfirmEmail'));
const Dashboard = lazy(() => import('./screens/Dashboard'));
const Positions = lazy(() => import('./screens/positions/PositionsList'));
const PositionPage = lazy(() => import('./screens/positions/PositionPage'));
const PositionNew = lazy(() => import('./screens/positions/PositionNew'));
const Accounts = lazy(() => import('./screens/Accounts'));
const Brokerages = lazy(() => import('./screens/Brokerages'));
const ExchangeRates = lazy(() => import('./screens/ExchangeRates'));
const Calculator = lazy(() => import('./screens/Calculator'));
const CalculatorStrategy = lazy(() => import('./screens/CalculatorStrategy'));
const CsvImport = lazy(() => import('./screens/CsvImport'));
const Strategies = lazy(() => import('./screens/strategies/Strategies'));
const StrategyPage = lazy(() => import('./screens/strategies/StrategyPage'));
const Settings = lazy(() => import('./screens/Settings'));
const Playbooks = lazy(() => import('./screens/Playbooks'));
const SettingsSecurity = lazy(() => import('./screens/SettingsSecurity'));
const Admin = lazy(() => import('./screens/Admin'));
const Billing = lazy(() => import('./screens/Billing'));
const Assistant = lazy(() => import('./screens/assistant/Assistant'));
const Journal = lazy(() => import('./screens/journal/JournalList'));
const JournalDay = lazy(() => import('./screens/journal/DayPage'));
const Rules = lazy(() => import('./screens/rules/RulesPage'));
const Tax = lazy(() => import('./screens/tax/TaxPage'));
const Expenses = lazy(() => import('./screens/expenses/ExpensesPage'));

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
      { path: '/positions/:positionId', element: <PositionPage /> },
      { path: '/strategies', element: <Strategies /> },
      { path: '/strategies/:strategyId', element: <StrategyPage /> },
      { path: '/accounts', element: <Accounts /> },
      { path: '/brokerages', element: <Brokerages /> },
      { path: '/exchange-rates', element: <ExchangeRates /> },
      { path: '/tax', element: <Tax /> },
      { path: '/expenses', element: <Expenses /> },
      { path: '/calculator', element: <Calculator /> },
      { path: '/calculator/strategy', element: <CalculatorStrategy /> },
      { path: '/import', element: <CsvImport /> },
      { path: '/playbooks', element: <Playbooks /> },
      { path: '/rules', element: <Rules /> },
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
