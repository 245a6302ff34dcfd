import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import SettingsSecurity from './SettingsSecurity';
import { deviceName } from '../components/SignInHistory';
import Admin, { formatBytes } from './Admin';
import ConfirmEmail from './auth/ConfirmEmail';
import { mockApi, renderScreen, route } from '../test/render';

afterEach(() => vi.unstubAllGlobals());

const user = { id: 'u1', email: 'me@example.com', emailVerified: true, isAdmin: true, timezone: 'UTC', displayCurrency: null, createdAt: '2024-01-01T00:00:00Z' };
const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
const iphone = 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1';
const sessions = [
  { id: 's1', createdAt: '2024-03-01T10:00:00Z', lastSeenAt: '2024-03-02T10:00:00Z', userAgent: firefox, current: true },
  { id: 's2', createdAt: '2024-02-01T10:00:00Z', lastSeenAt: '2024-02-02T10:00:00Z', userAgent: iphone, current: false },
];
const recentSignIns = [
  { at: '2024-03-01T10:00:00Z', succeeded: true, userAgent: firefox },
  { at: '2024-03-01T09:59:00Z', succeeded: false, userAgent: 'curl/8.5.0' },
];

function api(...extra: Parameters<typeof mockApi>) {
  return mockApi(
    ...extra,
    route('GET', '/api/auth/me', () => ({ body: { user } })),
    route('GET', '/api/config', () => ({ body: { email: true } })),
    route('GET', '/api/users/me/sessions', () => ({ body: { items: sessions, failedSignIns: null, recentSignIns } })),
  );
}

describe('deviceName', () => {
  it('names browser and system as a person would', () => {
    expect(deviceName(firefox)).toBe('Firefox on Linux');
    expect(deviceName(iphone)).toBe('Safari on iPhone');
    expect(deviceName('curl/8.5.0')).toBe('curl/8.5.0');
    expect(deviceName('')).toBe('Unknown device');
  });
});

describe('SettingsSecurity', () => {
  it('lists the recent sign-ins and wrong passwords with their devices', async () => {
    api();
    renderScreen(<SettingsSecurity />);
    const table = await screen.findByRole('table', { name: /Sign-ins and wrong passwords/ });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => r.textContent)).toEqual([expect.stringMatching(/Signed in.*Firefox on Linux/), expect.stringMatching(/Wrong password.*curl\/8\.5\.0/)]);
  });

  it('changes the password and says how many devices were signed out', async () => {
    const { calls } = api(route('PUT', '/api/users/me/password', () => ({ body: { endedSessions: 1, revokedTokens: 0 } })));
    renderScreen(<SettingsSecurity />);
    const u = userEvent.setup();
    const form = await screen.findByRole('form', { name: 'Change password' });
    await u.type(within(form).getByLabelText('Current password'), 'password1');
    await u.type(within(form).getByLabelText('New password'), 'password2');
    await u.click(within(form).getByRole('button', { name: 'Change password' }));
    expect(await within(form).findByText(/Your password is changed\. Your other signed-in device was signed out\./)).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ currentPassword: 'password1', newPassword: 'password2', revokeTokens: false });
  });

  it('also revokes the API tokens when asked', async () => {
    const { calls } = api(route('PUT', '/api/users/me/password', () => ({ body: { endedSessions: 0, revokedTokens: 2 } })));
    renderScreen(<SettingsSecurity />);
    const u = userEvent.setup();
    const form = await screen.findByRole('form', { name: 'Change password' });
    await u.type(within(form).getByLabelText('Current password'), 'password1');
    await u.type(within(form).getByLabelText('New password'), 'password2');
    await u.click(within(form).getByRole('checkbox', { name: 'Also revoke my API tokens' }));
    await u.click(within(form).getByRole('button', { name: 'Change password' }));
    expect(await within(form).findByText(/2 API tokens revoked\./)).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ currentPassword: 'password1', newPassword: 'password2', revokeTokens: true });
  });

  it('tells of failed sign-in attempts and dismisses the notice', async () => {
    let notice: unknown = { count: 100, lastFailedAt: '2026-03-01T12:00:00Z' };
    const { calls } = mockApi(
      route('DELETE', '/api/users/me/failed-sign-ins', () => {
        notice = null;
        return { status: 204 };
      }),
      route('GET', '/api/auth/me', () => ({ body: { user } })),
      route('GET', '/api/config', () => ({ body: { email: true } })),
      route('GET', '/api/users/me/sessions', () => ({ body: { items: sessions, failedSignIns: notice, recentSignIns } })),
    );
    renderScreen(<SettingsSecurity />);
    expect(await screen.findByText(/100 failed sign-in attempts since your last sign-in/)).toBeInTheDocument();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Dismiss' }));
    await waitFor(() => expect(screen.queryByText(/failed sign-in attempts/)).toBeNull());
    expect(calls.some((c) => c.method === 'DELETE' && c.path === '/api/users/me/failed-sign-ins')).toBe(true);
  });

  it('says so under the field when the current password is wrong, without signing out', async () => {
    api(
      route('PUT', '/api/users/me/password', () => ({
        status: 400,
        body: { error: { code: 'VALIDATION_ERROR', message: 'x', details: [{ field: 'currentPassword', message: 'is not your current password' }] } },
      })),
    );
    const { onUnauthenticated } = renderScreen(<SettingsSecurity />);
    const u = userEvent.setup();
    const form = await screen.findByRole('form', { name: 'Change password' });
    await u.type(within(form).getByLabelText('Current password'), 'nope');
    await u.type(within(form).getByLabelText('New password'), 'password2');
    await u.click(within(form).getByRole('button', { name: 'Change password' }));
    expect(await within(form).findByText('This is not your current password: check it and try again.')).toBeInTheDocument();
    expect(within(form).getByLabelText('Current password')).toHaveAttribute('aria-invalid', 'true');
    expect(onUnauthenticated).not.toHaveBeenCalled();
  });

  it('tells where the confirmation link went for a new email address', async () => {
    api(route('PUT', '/api/users/me/email', () => ({ status: 202, body: { user, pendingEmail: 'new@example.com' } })));
    renderScreen(<SettingsSecurity />);
    const u = userEvent.setup();
    const form = await screen.findByRole('form', { name: 'Change email address' });
    await u.type(within(form).getByLabelText('New email address'), 'new@example.com');
    await u.type(within(form).getByLabelText('Current password'), 'password1');
    await u.click(within(form).getByRole('button', { name: 'Change email address' }));
    expect(await within(form).findByText(/We sent a confirmation link to new@example\.com/)).toBeInTheDocument();
  });

  it('signs out another device after confirmation', async () => {
    const { calls } = api(route('DELETE', '/api/users/me/sessions/s2', () => ({ status: 204 })));
    renderScreen(<SettingsSecurity />);
    const u = userEvent.setup();
    const devices = await screen.findByRole('table', { name: 'Signed-in devices, most recently active first' });
    expect(within(devices).getByText('Firefox on Linux')).toBeInTheDocument();
    expect(within(devices).getByText('this device')).toBeInTheDocument();
    await u.click(screen.getByRole('button', { name: /^Sign out Safari on iPhone/ }));
    const ask = screen.getByRole('alertdialog', { name: /^Sign out Safari on iPhone, signed in .*\?$/ });
    expect(ask).toHaveAccessibleDescription(/^Sign out Safari on iPhone, signed in .*\?$/);
    await u.click(within(ask).getByRole('button', { name: 'Sign out' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'DELETE' && c.path === '/api/users/me/sessions/s2')).toBe(true));
    expect(await screen.findByText('That device is signed out.')).toBeInTheDocument();
  });
});

describe('Admin', () => {
  const other = { id: 'u2', email: 'other@example.com', createdAt: '2024-01-02T00:00:00Z', isAdmin: false, emailVerified: false, lastActiveAt: null, disabledAt: null };
  const emptyPage = { items: [], nextCursor: null };
  const period = { from: '2024-02-01', to: '2024-03-01', activeUsers: 1, newUsers: 0, imports: 0, revenue: [], topByStorage: emptyPage, topByActivity: emptyPage };
  const usage = { users: 2, admins: 1, disabledUsers: 0, activeUsers7Days: 1, activeUsers30Days: 2, positions: 12, imports: 3, images: 4, storageBytes: 1_500_000, period };

  it('formats sizes', () => {
    expect(formatBytes(0)).toBe('0 bytes');
    expect(formatBytes(1_500_000)).toBe('1.5 MB');
    expect(formatBytes(250_000_000_000)).toBe('250 GB');
  });

  it('shows usage and disables a user after confirmation; no disable for oneself', async () => {
    const { calls } = mockApi(
      route('GET', '/api/auth/me', () => ({ body: { user } })),
      route('GET', '/api/admin/usage', () => ({ body: usage })),
      route('GET', '/api/admin/users', () => ({ body: { items: [{ ...other }, { ...user, lastActiveAt: null, disabledAt: null }], nextCursor: null } })),
      route('POST', '/api/admin/users/u2/disable', () => ({ body: { user: { ...other, disabledAt: '2024-03-01T00:00:00Z' } } })),
    );
    renderScreen(<Admin />);
    const u = userEvent.setup();
    expect(await screen.findByText('1.5 MB', { exact: false })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Disable: me@example.com' })).not.toBeInTheDocument();
    await u.click(await screen.findByRole('button', { name: 'Disable: other@example.com' }));
    const ask = screen.getByRole('alertdialog', { name: 'Disable: other@example.com?' });
    expect(ask).toHaveAccessibleDescription(/^Disable other@example\.com\? They are signed out everywhere at once/);
    await u.click(within(ask).getByRole('button', { name: 'Disable' }));
    expect(await screen.findByText('other@example.com: disabled and signed out.')).toBeInTheDocument();
    expect(calls.some((c) => c.method === 'POST' && c.path === '/api/admin/users/u2/disable')).toBe(true);
  });

  it('says why the last administrator cannot be demoted', async () => {
    mockApi(
      route('GET', '/api/auth/me', () => ({ body: { user } })),
      route('GET', '/api/admin/usage', () => ({ body: usage })),
      route('GET', '/api/admin/users', () => ({ body: { items: [{ ...user, lastActiveAt: null, disabledAt: null }], nextCursor: null } })),
      route('POST', '/api/admin/users/u1/demote', () => ({ status: 409, body: { error: { code: 'CONFLICT', message: 'this is the last administrator; promote another user first' } } })),
    );
    renderScreen(<Admin />);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Remove admin: me@example.com' }));
    await u.click(within(screen.getByRole('alertdialog', { name: 'Remove admin: me@example.com?' })).getByRole('button', { name: 'Remove admin' }));
    expect(await screen.findByText('This is the last administrator; promote another user first.')).toBeInTheDocument();
  });
});

describe('ConfirmEmail', () => {
  it('confirms once with the fragment token, and removes it from the address bar', async () => {
    window.history.replaceState(null, '', '/confirm-email#token=c-1');
    const { calls } = mockApi(route('POST', '/api/users/email-change/confirm', () => ({ status: 204 })));
    renderScreen(<ConfirmEmail />, { path: '/confirm-email', at: '/confirm-email' });
    expect(await screen.findByText(/Your email address is changed/)).toBeInTheDocument();
    expect(calls.filter((c) => c.path === '/api/users/email-change/confirm')).toEqual([expect.objectContaining({ body: { token: 'c-1' } })]);
    expect(window.location.hash).toBe('');
  });

  it('says when the address was taken meanwhile', async () => {
    window.history.replaceState(null, '', '/confirm-email#token=c-2');
    mockApi(route('POST', '/api/users/email-change/confirm', () => ({ status: 409, body: { error: { code: 'EMAIL_TAKEN', message: 'x' } } })));
    renderScreen(<ConfirmEmail />, { path: '/confirm-email', at: '/confirm-email' });
    expect(await screen.findByText(/Another account took this email address/)).toBeInTheDocument();
  });

  it('says when the link is used or expired', async () => {
    window.history.replaceState(null, '', '/confirm-email#token=old');
    mockApi(route('POST', '/api/users/email-change/confirm', () => ({ status: 400, body: { error: { code: 'VALIDATION_ERROR', message: 'x', details: [{ field: 'token', message: 'is invalid or has expired' }] } } })));
    renderScreen(<ConfirmEmail />, { path: '/confirm-email', at: '/confirm-email' });
    expect(await screen.findByText(/invalid, used or expired/)).toBeInTheDocument();
  });
});
