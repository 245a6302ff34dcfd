import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ApiTokensSection, TwoFactorSection } from './Security';
import { mockApi, renderScreen, route } from '../test/render';

afterEach(() => vi.unstubAllGlobals());

const user = { id: 'u', email: 'a@example.com', emailVerified: true, isAdmin: false, timezone: 'UTC', displayCurrency: null, createdAt: '2024-01-01T00:00:00Z' };

describe('TwoFactorSection', () => {
  it('sets up with the QR code, confirms a code, and shows the recovery codes once', async () => {
    let enabled = false;
    const codes = Array.from({ length: 10 }, (_, i) => `aaaa-bbbb-cccc-dd${String.fromCharCode(97 + i)}a`);
    const { calls } = mockApi(
      route('GET', '/api/auth/two-factor', () => ({ body: { enabled, recoveryCodesLeft: enabled ? 10 : 0 } })),
      route('POST', '/api/auth/two-factor/setup', () => ({ body: { secret: 'JBSWY3DPEHPK3PXP', uri: 'otpauth://totp/x', qrCode: 'data:image/png;base64,AAAA' } })),
      route('POST', '/api/auth/two-factor/confirm', (c) => {
        if ((c.body as { code: string }).code !== '123456') {
          return { status: 400, body: { error: { code: 'VALIDATION_ERROR', message: 'x', details: [{ field: 'code', message: 'is not a current code' }] } } };
        }
        enabled = true;
        return { body: { recoveryCodes: codes } };
      }),
    );
    renderScreen(<TwoFactorSection />);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Set up two-factor sign-in' }));
    expect(await screen.findByRole('img', { name: 'QR code for your authenticator app' })).toHaveAttribute('src', 'data:image/png;base64,AAAA');
    expect(screen.getByLabelText('Setup key')).toHaveTextContent('JBSWY3DPEHPK3PXP');
    await u.type(screen.getByLabelText('Code from the app'), '654321');
    await u.click(screen.getByRole('button', { name: 'Turn on two-factor sign-in' }));
    expect(await screen.findByText(/That code did not work/)).toBeInTheDocument();
    await u.clear(screen.getByLabelText('Code from the app'));
    await u.type(screen.getByLabelText('Code from the app'), '123456');
    await u.click(screen.getByRole('button', { name: 'Turn on two-factor sign-in' }));
    const list = await screen.findByRole('list', { name: 'Recovery codes' });
    expect(within(list).getAllByRole('listitem')).toHaveLength(10);
    await u.click(screen.getByRole('button', { name: 'I have saved them' }));
    expect(await screen.findByText(/10 recovery codes are left/)).toBeInTheDocument();
    expect(screen.queryByRole('list', { name: 'Recovery codes' })).not.toBeInTheDocument();
    expect(calls.filter((c) => c.path === '/api/auth/two-factor/confirm')).toHaveLength(2);
  });

  it('turns off with the password and a code, saying which was wrong', async () => {
    let enabled = true;
    mockApi(
      route('GET', '/api/auth/two-factor', () => ({ body: { enabled, recoveryCodesLeft: enabled ? 2 : 0 } })),
      route('POST', '/api/auth/two-factor/disable', (c) => {
        if ((c.body as { password: string }).password !== 'password1') {
          return { status: 400, body: { error: { code: 'VALIDATION_ERROR', message: 'x', details: [{ field: 'password', message: 'is not your current password' }] } } };
        }
        enabled = false;
        return { status: 204 };
      }),
    );
    renderScreen(<TwoFactorSection />);
    const u = userEvent.setup();
    expect(await screen.findByText(/2 recovery codes are left/)).toBeInTheDocument();
    await u.click(screen.getByRole('button', { name: 'Turn off two-factor sign-in' }));
    await u.type(screen.getByLabelText('Your password'), 'nope');
    await u.type(screen.getByLabelText('Code from the app, or a recovery code'), '123456');
    await u.click(screen.getByRole('button', { name: 'Turn off' }));
    expect(await screen.findByText('That is not your current password.')).toBeInTheDocument();
    await u.clear(screen.getByLabelText('Your password'));
    await u.type(screen.getByLabelText('Your password'), 'password1');
    await u.click(screen.getByRole('button', { name: 'Turn off' }));
    expect(await screen.findByRole('button', { name: 'Set up two-factor sign-in' })).toBeInTheDocument();
  });
});

describe('ApiTokensSection', () => {
  it('makes a token with the chosen scopes, shows it once, and revokes after confirming', async () => {
    let items: unknown[] = [];
    const { calls } = mockApi(
      route('GET', '/api/auth/me', () => ({ body: { user } })),
      route('GET', '/api/auth/tokens', () => ({ body: { items } })),
      route('POST', '/api/auth/tokens', (c) => {
        const { name, scopes } = c.body as { name: string; scopes: string[] };
        const token = { id: 't1', name, scopes, createdAt: '2026-03-01T12:00:00Z', lastUsedAt: null };
        items = [token];
        return { status: 201, body: { token, secret: 'tj_secret' } };
      }),
      route('DELETE', '/api/auth/tokens/t1', () => {
        items = [];
        return { status: 204 };
      }),
    );
    renderScreen(<ApiTokensSection />);
    const u = userEvent.setup();
    expect(await screen.findByText('No API tokens yet.')).toBeInTheDocument();
    await u.type(screen.getByLabelText(/Token name/), ' sync ');
    await u.click(screen.getByLabelText('Change your journal'));
    await u.click(screen.getByRole('button', { name: 'Create token' }));
    expect(await screen.findByLabelText('Your new API token')).toHaveTextContent('tj_secret');
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ name: 'sync', scopes: ['read', 'write'] });
    const row = await screen.findByRole('row', { name: /sync/ });
    expect(row).toHaveTextContent('Never');
    await u.click(within(row).getByRole('button', { name: 'Revoke token sync' }));
    let ask = screen.getByRole('alertdialog', { name: 'Revoke token sync?' });
    expect(ask).toHaveAccessibleDescription('Revoke the token “sync”? Scripts that use it stop working at once.');
    await u.click(within(ask).getByRole('button', { name: 'Cancel' }));
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    await u.click(within(row).getByRole('button', { name: 'Revoke token sync' }));
    ask = screen.getByRole('alertdialog', { name: 'Revoke token sync?' });
    await u.click(within(ask).getByRole('button', { name: 'Revoke' }));
    await waitFor(() => expect(screen.getByText('No API tokens yet.')).toBeInTheDocument());
  });
});
