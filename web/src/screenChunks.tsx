// The screens, one chunk each: the initial bundle holds only the shell.
// A screen's chunk is fetched once, by whichever comes first: the router
// rendering it, a menu link under the pointer or the keyboard's focus, or
// the browser's first idle moment after a signed-in app is up
// (preloadAppScreens). A click then renders a screen that is already here:
// no chunk to wait for, no fallback, and the data request starts at once.
import { lazy, type ComponentType, type JSX } from 'react';

// Screens take no props: the router's params and the address carry their input.
type Module = { default: ComponentType };

export interface Screen {
  (): JSX.Element;
  /** preload fetches the chunk (once) and resolves when it is here. */
  preload: () => Promise<unknown>;
}

/**
 * screen wraps a lazy screen: until its chunk is here it renders through
 * React.lazy (suspending), after that the module's component directly, so a
 * preloaded screen never suspends, not even for the microtask lazy takes.
 */
function screen(load: () => Promise<Module>): Screen {
  let loaded: Module | undefined;
  let pending: Promise<Module> | undefined;
  const preload = () =>
    (pending ??= load().then(
      (m) => (loaded = m),
      (err: unknown) => {
        pending = undefined; // a failed fetch (offline) is tried again
        throw err;
      },
    ));
  const Lazy = lazy(preload);
  const Screen = () => (loaded ? <loaded.default /> : <Lazy />);
  return Object.assign(Screen, { preload });
}

export const SignIn = screen(() => import('./screens/auth/SignIn'));
export const SignUp = screen(() => import('./screens/auth/SignUp'));
export const Welcome = screen(() => import('./screens/auth/Welcome'));
export const ForgotPassword = screen(() => import('./screens/auth/ForgotPassword'));
export const ResetPassword = screen(() => import('./screens/auth/ResetPassword'));
export const VerifyEmail = screen(() => import('./screens/auth/VerifyEmail'));
export const ConfirmEmail = screen(() => import('./screens/auth/ConfirmEmail'));
export const Dashboard = screen(() => import('./screens/Dashboard'));
export const Positions = screen(() => import('./screens/positions/PositionsList'));
export const PositionPage = screen(() => import('./screens/positions/PositionPage'));
export const PositionNew = screen(() => import('./screens/positions/PositionNew'));
export const QuickAdd = screen(() => import('./screens/positions/QuickAdd'));
export const Accounts = screen(() => import('./screens/Accounts'));
export const Brokerages = screen(() => import('./screens/Brokerages'));
export const ExchangeRates = screen(() => import('./screens/ExchangeRates'));
export const Calculator = screen(() => import('./screens/Calculator'));
export const CalculatorStrategy = screen(() => import('./screens/CalculatorStrategy'));
export const CsvImport = screen(() => import('./screens/CsvImport'));
export const Strategies = screen(() => import('./screens/strategies/Strategies'));
export const StrategyPage = screen(() => import('./screens/strategies/StrategyPage'));
export const Settings = screen(() => import('./screens/Settings'));
export const Playbooks = screen(() => import('./screens/Playbooks'));
export const SettingsSecurity = screen(() => import('./screens/SettingsSecurity'));
export const Admin = screen(() => import('./screens/Admin'));
export const Billing = screen(() => import('./screens/Billing'));
export const Assistant = screen(() => import('./screens/assistant/Assistant'));
export const Journal = screen(() => import('./screens/journal/JournalList'));
export const JournalDay = screen(() => import('./screens/journal/DayPage'));
export const Rules = screen(() => import('./screens/rules/RulesPage'));
export const Tax = screen(() => import('./screens/tax/TaxPage'));
export const Expenses = screen(() => import('./screens/expenses/ExpensesPage'));
export const Connections = screen(() => import('./screens/connections/ConnectionsPage'));

/** The signed-in screens by their menu path, for a link's preload. */
const byPath: Record<string, Screen> = {
  '/': Dashboard,
  '/positions': Positions,
  '/strategies': Strategies,
  '/journal': Journal,
  '/playbooks': Playbooks,
  '/rules': Rules,
  '/tax': Tax,
  '/expenses': Expenses,
  '/accounts': Accounts,
  '/calculator': Calculator,
  '/import': CsvImport,
  '/exchange-rates': ExchangeRates,
  '/assistant': Assistant,
  '/billing': Billing,
  '/admin': Admin,
  '/settings': Settings,
};

/** preloadScreen fetches the chunk of the screen a menu link leads to (a pointer over it, a focus). */
export function preloadScreen(pathname: string): void {
  void byPath[pathname]?.preload().catch(() => {});
}

/** Every signed-in screen, the pages a list opens among them. */
const appScreens = [...Object.values(byPath), PositionPage, PositionNew, QuickAdd, StrategyPage, JournalDay, Brokerages, CalculatorStrategy, SettingsSecurity];

/**
 * preloadAppScreens fetches every signed-in screen's chunk when the browser
 * is next idle (about 100 kB gzipped in all, from the HTTP cache after the
 * first visit), so that moving inside the app waits for no script.
 */
export function preloadAppScreens(): () => void {
  const run = () => {
    appScreens.forEach((s) => void s.preload().catch(() => {}));
    // A chunk a screen loads lazily itself: the dashboard's charts (uPlot).
    void import('./screens/dashboard/EquityChart').catch(() => {});
  };
  if ('requestIdleCallback' in window) {
    const id = window.requestIdleCallback(run, { timeout: 2000 });
    return () => window.cancelIdleCallback(id);
  }
  const id = setTimeout(run, 200);
  return () => clearTimeout(id);
}
