import { Suspense, useEffect, useState } from 'react';
import { Link, Navigate, NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { carriedSearch } from '../filterState';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { client, isUnauthenticated, unwrap } from '../api/client';
import { useAppConfig, useMe } from '../api/queries';
import { setMessageDefaults } from '../api/messages';
import { setDisplayZone } from '../format';
import { forgetSession, hasSession } from '../session';
import { ThemeToggle } from './ThemeControls';
import { WhatsNew } from './WhatsNew';
import { OfflineNote, offlineStartText, useOnline } from './OfflineNote';
import { Loading } from './ui';
import { ErrorBoundary } from './ErrorBoundary';
import { FeedbackTab } from './FeedbackTab';
import { usePageViews } from '../analytics';
import { preloadAppScreens, preloadScreen } from '../screenChunks';
import { CoachMark } from './Onboarding';

/** The views that share the journal filter: moving between them keeps it (filterState.ts). */
const filteredViews = new Set(['/', '/positions']);

function ScreenFallback() {
  return <Loading />;
}

/** PublicLayout frames the signed-out screens. */
export function PublicLayout() {
  usePageViews();
  return (
    <div className="public-shell">
      <header className="public-header">
        <Link to="/welcome" className="brand">
          Trade Journal
        </Link>
        <ThemeToggle signedIn={false} />
      </header>
      <main id="main" className="public-main">
        <OfflineNote />
        <ErrorBoundary>
          <Suspense fallback={<ScreenFallback />}>
            <Outlet />
          </Suspense>
        </ErrorBoundary>
      </main>
    </div>
  );
}

/** AppLayout frames the signed-in screens and sends signed-out visitors to sign in. */
export function AppLayout() {
  usePageViews();
  const me = useMe();
  const config = useAppConfig();
  const location = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [menuOpen, setMenuOpen] = useState(false);
  const online = useOnline();
  const signedIn = !!me.data;
  // Once the signed-in app is up, the other screens' chunks load while the browser is idle.
  useEffect(() => (signedIn ? preloadAppScreens() : undefined), [signedIn]);
  const signOut = useMutation({
    meta: { public: true },
    mutationFn: () => unwrap(client.POST('/api/auth/logout')),
    onSettled: async () => {
      // Leave the signed-in screens first (a query of theirs refetched
      // without the session answers 401: on /signin that is no redirect).
      await navigate('/signin', { replace: true });
      forgetSession();
      queryClient.clear();
    },
  });

  // While /api/auth/me is on its way the screen already loads (its chunk and
  // its queries run in parallel with it); a 401 from any of them still
  // leads to sign in.
  // Without a session on this browser nothing authenticated is asked: a
  // first visit to / is welcomed, any other page goes to sign in and back.
  const signedOut = !hasSession() && me.data == null;
  // While signing out the old screens stay up until the sign-in screen has
  // loaded (a transition): they must not redirect with themselves as ?next.
  const leaving = signOut.isPending || signOut.isSuccess || signOut.isError;
  if (!leaving && (signedOut || me.data === null || isUnauthenticated(me.error))) {
    if (isUnauthenticated(me.error)) forgetSession();
    const here = location.pathname + location.search;
    return <Navigate to={here === '/' ? (signedOut ? '/welcome' : '/signin') : `/signin?next=${encodeURIComponent(here)}`} replace />;
  }
  if (me.isError) {
    return (
      <main className="public-main">
        <p role="alert">{online ? 'The server could not be reached. Reload to try again.' : offlineStartText}</p>
      </main>
    );
  }
  const user = me.data ?? null;
  // Error messages write times in the user's reporting zone.
  if (user?.timezone) {
    setMessageDefaults({ timeZone: user.timezone });
    setDisplayZone(user.timezone);
  }
  const links: Array<[string, string]> = [
    ['/', 'Dashboard'],
    ['/positions', 'Positions'],
    ['/strategies', 'Strategies'],
    ['/journal', 'Journal'],
    ['/playbooks', 'Playbooks'],
    ['/rules', 'Rules'],
    ['/accounts', 'Accounts'],
    ['/calculator', 'Calculator'],
    ['/import', 'Import'],
    ['/exchange-rates', 'Rates'],
    ['/tax', 'Tax'],
    ['/expenses', 'Expenses'],
  ];
  // The assistant and billing are absent, not disabled, when the instance has no model provider or payment processor.
  if (config.data?.assistant) links.push(['/assistant', 'Assistant']);
  if (config.data?.billing) links.push(['/billing', 'Billing']);
  if (user?.isAdmin) links.push(['/admin', 'Admin']);
  links.push(['/settings', 'Settings']);

  return (
    <div className="app-shell">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <header className="app-header">
        <Link to="/" className="brand">
          Trade Journal
        </Link>
        <button
          type="button"
          className="ghost menu-button"
          aria-expanded={menuOpen}
          aria-controls="main-nav"
          onClick={() => setMenuOpen((o) => !o)}
        >
          Menu
        </button>
        <nav id="main-nav" aria-label="Main" className={menuOpen ? 'open' : ''}>
          {links.map(([to, label]) => (
            <NavLink
              key={to}
              to={{ pathname: to, search: filteredViews.has(location.pathname) && filteredViews.has(to) ? carriedSearch(location.search, to === '/' ? 'statistics' : 'list') : '' }}
              end={to === '/'}
              onClick={() => setMenuOpen(false)}
              onPointerEnter={() => preloadScreen(to)}
              onFocus={() => preloadScreen(to)}
            >
              {label}
            </NavLink>
          ))}
        </nav>
        <div className="header-end">
          <span className="user-email" title={user?.email}>
            {user?.email}
          </span>
          <WhatsNew />
          <ThemeToggle signedIn saved={user?.theme} />
          <button type="button" className="ghost" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" className="app-main" tabIndex={-1}>
        <CoachMark />
        <OfflineNote />
        {/* The Suspense boundary outlives a move between screens (only the
            error boundary starts afresh on each): a screen whose chunk is
            still on its way leaves the last one up instead of a fresh
            fallback, which React would keep for at least 300 ms. */}
        <Suspense fallback={<ScreenFallback />}>
          <ErrorBoundary key={location.pathname}>
            <Outlet />
          </ErrorBoundary>
        </Suspense>
      </main>
      <FeedbackTab />
    </div>
  );
}
