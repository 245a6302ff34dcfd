import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import ConnectionsPage from './ConnectionsPage';
import { ConnectionNotice } from './ConnectionNotice';
import { attentionText, failureText, statusText, type Connection } from './status';
import { mockApi, renderScreen, route, type Call } from '../../test/render';
import { setDisplayZone } from '../../format';

afterEach(() => {
  vi.unstubAllGlobals();
  setDisplayZone(undefined);
});

const account = { id: 'a1a1a1a1-1111-4111-8111-111111111111', name: 'IB margin', currency: 'USD' };

function conn(over: Partial<Connection> = {}): Connection {
  return {
    id: 'c1c1c1c1-1111-4111-8111-111111111111',
    broker: 'ibkr',
    accountId: account.id,
    label: 'Interactive Brokers',
    paused: false,
    createdAt: '2024-02-01T12:00:00Z',
    status: 'never',
    syncedThrough: null,
    lastSyncAt: null,
    lastAdded: 0,
    lastSuccessAt: null,
    failingSince: null,
    error: null,
    needsAttention: false,
    ...over,
  };
}

describe('status words', () => {
  it('says what the last sync added, in the user’s zone', () => {
    setDisplayZone('America/New_York');
    expect(statusText(conn({ status: 'ok', lastSyncAt: '2024-02-01T14:30:00Z', lastAdded: 3 }))).toMatch(/^Last synced at Feb 1, 2024, 9:30 AM EST: added 3 fills\.$/);
    expect(statusText(conn({ status: 'ok', lastSyncAt: '2024-02-01T14:30:00Z', lastAdded: 0, paused: true }))).toContain('nothing new. Paused');
  });

  it('words each failure with what to do next', () => {
    setDisplayZone('Europe/Berlin');
    expect(failureText('ibkr', { code: 'TOKEN_EXPIRED', message: 'Token has expired. (IB error 1012)' })).toContain('generate a new token');
    expect(failureText('ibkr', { code: 'QUERY_INVALID', message: '' })).toContain('query id');
    expect(failureText('kraken', { code: 'RATE_LIMITED', message: '', retryAt: '2024-02-01T12:10:00Z' })).toBe(
      'Kraken asked the journal to slow down. The next try is at Feb 1, 2024, 1:10 PM GMT+1.',
    );
    expect(failureText('alpaca', { code: 'CREDENTIALS_REJECTED', message: 'Alpaca refused the key: request is not authorized' })).toMatch(/^Alpaca refused the key/);
    const c = conn({ status: 'failing', lastSyncAt: '2024-02-02T12:00:00Z', error: { code: 'TOKEN_EXPIRED', message: 'x' }, lastSuccessAt: null });
    expect(statusText(c)).toMatch(/^The sync at .* failed\. The Flex token has expired\..* It has not synced yet\.$/);
    expect(attentionText({ ...c, lastSuccessAt: '2024-01-30T12:00:00Z' })).toMatch(/^Interactive Brokers has not synced since Jan 30, 2024/);
  });
});

describe('Connections page', () => {
  it('connects IBKR with its two credentials, then syncs and shows what it added', async () => {
    let list: Connection[] = [];
    const { calls } = mockApi(
      route('GET', '/api/accounts', () => ({ body: { items: [account], nextCursor: null } })),
      route('GET', '/api/connections', () => ({ body: { items: list } })),
      route('POST', '/api/connections', (c: Call) => {
        list = [conn({ label: (c.body as { label: string }).label || 'Interactive Brokers' })];
        return { status: 201, body: { connection: list[0] } };
      }),
      route('POST', `/api/connections/${conn().id}/sync`, () => {
        list = [conn({ status: 'ok', lastSyncAt: '2024-02-01T14:30:00Z', lastAdded: 2, lastSuccessAt: '2024-02-01T14:30:00Z' })];
        return { body: { connection: list[0] } };
      }),
    );
    renderScreen(<ConnectionsPage />);
    expect(await screen.findByText(/Client Portal and open Performance & Reports > Flex Queries/)).toBeInTheDocument();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Flex Web Service token'), 'tok123');
    await user.type(screen.getByLabelText('Flex Query id'), '987654');
    await user.click(screen.getByRole('button', { name: 'Connect Interactive Brokers' }));
    await screen.findByText(/Connected Interactive Brokers\./);
    expect(calls.find((c) => c.method === 'POST' && c.path === '/api/connections')?.body).toEqual({
      broker: 'ibkr',
      accountId: account.id,
      label: '',
      credentials: { token: 'tok123', queryId: '987654' },
    });
    await user.click(await screen.findByRole('button', { name: 'Sync now' }));
    await waitFor(() => expect(screen.getByTestId('connection-status')).toHaveTextContent(/added 2 fills/));
  });

  it('asks for the right keys per broker and names the field the API refused', async () => {
    mockApi(
      route('GET', '/api/accounts', () => ({ body: { items: [account], nextCursor: null } })),
      route('GET', '/api/connections', () => ({ body: { items: [] } })),
      route('POST', '/api/connections', () => ({
        status: 400,
        body: { error: { code: 'VALIDATION_ERROR', message: 'credentials.secret is required', details: [{ field: 'credentials.secret', message: 'must be the private key as Kraken shows it (base64)' }] } },
      })),
    );
    renderScreen(<ConnectionsPage />);
    const user = userEvent.setup();
    await user.selectOptions(await screen.findByLabelText('Broker'), 'kraken');
    expect(screen.getByText(/Query Closed Orders & Trades/)).toBeInTheDocument();
    await user.type(screen.getByLabelText('API key'), 'k');
    await user.type(screen.getByLabelText('Private key'), 'not base64');
    await user.click(screen.getByRole('button', { name: 'Connect Kraken' }));
    expect(await screen.findByText(/must be the private key as Kraken shows it/)).toBeInTheDocument();
  });

  it('explains a server without an encryption key', async () => {
    mockApi(
      route('GET', '/api/accounts', () => ({ body: { items: [account], nextCursor: null } })),
      route('GET', '/api/connections', () => ({ body: { items: [] } })),
      route('POST', '/api/connections', () => ({ status: 409, body: { error: { code: 'ENCRYPTION_REQUIRED', message: 'm' } } })),
    );
    renderScreen(<ConnectionsPage />);
    const user = userEvent.setup();
    await user.selectOptions(await screen.findByLabelText('Broker'), 'alpaca');
    await user.type(screen.getByLabelText('API key id'), 'k');
    await user.type(screen.getByLabelText('Secret key'), 's');
    await user.click(screen.getByRole('button', { name: 'Connect Alpaca' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(/has not set an encryption key \(ENCRYPTION_KEY\)/);
  });
});

describe('dashboard notice', () => {
  it('shows connections failing for a day, and nothing otherwise', async () => {
    mockApi(
      route('GET', '/api/connections', () => ({
        body: {
          items: [
            conn({ id: 'x', label: 'Alpaca paper', broker: 'alpaca', status: 'failing', needsAttention: true, error: { code: 'CREDENTIALS_REJECTED', message: 'no' } }),
            conn({ status: 'ok', lastSyncAt: '2024-02-01T14:30:00Z' }),
          ],
        },
      })),
    );
    renderScreen(<ConnectionNotice />);
    const note = await screen.findByRole('alert');
    expect(note).toHaveTextContent(/Alpaca paper has not synced since it was connected\. Alpaca refused the key/);
    expect(note).not.toHaveTextContent('Interactive Brokers');
    expect(screen.getByRole('link', { name: 'Open Connections' })).toHaveAttribute('href', '/connections');
  });
});
