import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import Admin from './Admin';
import { mockApi, renderScreen, route } from '../test/render';

afterEach(() => vi.unstubAllGlobals());

const me = { id: 'u1', email: 'me@example.com', emailVerified: true, isAdmin: true, timezone: 'UTC', displayCurrency: null, createdAt: '2024-01-01T00:00:00Z' };
const other = { id: 'u2', email: 'other@example.com', createdAt: '2024-01-02T00:00:00Z', isAdmin: false, emailVerified: false, lastActiveAt: null, disabledAt: null };
const page = (items: unknown[], nextCursor: string | null = null) => ({ items, nextCursor });
const period = { from: '2024-02-01', to: '2024-03-01', activeUsers: 7, newUsers: 3, imports: 4, revenue: [{ currency: 'USD', amountMinor: 4000, payments: 4 }], topByStorage: page([]), topByActivity: page([]) };
const usage = { users: 2, admins: 1, disabledUsers: 0, activeUsers7Days: 1, activeUsers30Days: 2, positions: 12, imports: 3, images: 4, storageBytes: 1_500_000, period };
const detail = {
  user: other,
  plan: { plan: 'free', proPlanAvailable: true, limits: [{ name: 'positions', used: 40, limit: 50, freeLimit: 50 }] },
  subscription: { status: 'canceled', currentPeriodEnd: '2024-02-01T00:00:00Z', cancelAtPeriodEnd: false },
  usage: { accounts: 2, archivedAccounts: 1, positions: 40, fills: 85, images: 3, storageBytes: 2_500_000, imports: 6 },
  signIns: { lastSignInAt: '2024-03-01T09:00:00Z', failedSinceLastSignIn: 2, lastFailedAt: '2024-03-02T09:00:00Z', failedBeforeLastSignIn: 0, recent: [{ at: '2024-03-02T09:00:00Z', succeeded: false, userAgent: 'curl/8.5.0' }] },
  sessions: [{ id: 's1', createdAt: '2024-03-01T09:00:00Z', lastSeenAt: '2024-03-01T10:00:00Z', expiresAt: '2024-03-31T09:00:00Z', userAgent: 'Firefox' }],
  imports: [{ committedAt: '2024-02-20T08:00:00Z' }],
};

function api() {
  return mockApi(
    route('GET', '/api/auth/me', () => ({ body: { user: me } })),
    route('GET', '/api/admin/usage', () => ({ body: usage })),
    route('GET', '/api/admin/users', () => ({ body: page([other]) })),
    route('GET', '/api/admin/users/u2', () => ({ body: { user: detail } })),
    route('GET', '/api/admin/usage/top-users', (c) =>
      new URLSearchParams(c.search).get('cursor') === 'next'
        ? { body: page([{ id: 'u1', email: 'me@example.com', value: 1000 }]) }
        : { body: page([{ id: 'u2', email: 'other@example.com', value: 2_500_000 }], 'next') },
    ),
  );
}

describe('Admin user detail', () => {
  it('opens from the list and shows plan, usage, sign-ins and sessions without secrets', async () => {
    const { calls } = api();
    renderScreen(<Admin />, { path: '/admin' });
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Details of other@example.com' }));
    expect(await screen.findByRole('heading', { name: 'other@example.com' })).toBeInTheDocument();
    expect(screen.getByText(/Free \(subscription canceled, paid until/)).toBeInTheDocument();
    expect(screen.getByText('2 active, 1 archived')).toBeInTheDocument();
    expect(screen.getByText('3 (2.5 MB)')).toBeInTheDocument();
    expect(within(screen.getByRole('table', { name: 'Free plan limits' })).getByRole('row', { name: /^Positions/ })).toHaveTextContent('4050');
    expect(within(screen.getByRole('table', { name: 'Signed-in sessions' })).getByText('Firefox')).toBeInTheDocument();
    expect(calls.some((c) => c.path === '/api/admin/users/u2')).toBe(true);
    await u.click(screen.getByRole('button', { name: '← All users' }));
    expect(await screen.findByRole('button', { name: 'Details of other@example.com' })).toBeInTheDocument();
  });

  it('asks for the period and pages the top lists', async () => {
    const { calls } = api();
    renderScreen(<Admin />, { path: '/admin' });
    const u = userEvent.setup();
    expect(await screen.findByText('$40.00 (4 payments)')).toBeInTheDocument();
    const from = screen.getByLabelText('From (UTC day)');
    await u.clear(from);
    await u.type(from, '2024-02-01');
    const to = screen.getByLabelText('To (UTC day, included)');
    await u.clear(to);
    await u.type(to, '2024-01-01');
    expect(await screen.findByRole('alert')).toHaveTextContent('Choose a first day on or before the last day.');
    await u.clear(to);
    await u.type(to, '2024-03-01');
    await screen.findAllByRole('table', { name: 'Top users by screenshot storage (now)' });
    expect(calls.some((c) => c.path === '/api/admin/usage' && c.search === '?from=2024-02-01&to=2024-03-01')).toBe(true);
    await u.click(screen.getByRole('button', { name: 'Load more of top users by screenshot storage (now)' }));
    const storage = screen.getByRole('table', { name: 'Top users by screenshot storage (now)' });
    expect(await within(storage).findByText('me@example.com')).toBeInTheDocument();
    expect(calls.some((c) => c.path === '/api/admin/usage/top-users' && new URLSearchParams(c.search).get('by') === 'storage' && new URLSearchParams(c.search).get('cursor') === 'next')).toBe(true);
  });
});
