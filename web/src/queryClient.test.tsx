import { afterEach, describe, expect, it, vi } from 'vitest';
import { waitFor } from '@testing-library/react';
import { useAccounts } from './api/queries';
import { mockApi, renderScreen, route } from './test/render';

afterEach(() => vi.unstubAllGlobals());

function Probe() {
  const a = useAccounts();
  return <p>{a.status}</p>;
}

describe('query client', () => {
  it('sends a 401 from any query to sign in', async () => {
    mockApi(route('GET', '/api/accounts', () => ({ status: 401, body: { error: { code: 'UNAUTHENTICATED', message: 'sign in' } } })));
    const { onUnauthenticated } = renderScreen(<Probe />);
    await waitFor(() => expect(onUnauthenticated).toHaveBeenCalled());
  });

  it('does not retry a client error and does not sign out on other errors', async () => {
    const api = mockApi(route('GET', '/api/accounts', () => ({ status: 400, body: { error: { code: 'VALIDATION_ERROR', message: 'bad' } } })));
    const { onUnauthenticated, findByText } = renderScreen(<Probe />);
    await findByText('error');
    expect(api.calls.filter((c) => c.path === '/api/accounts')).toHaveLength(1);
    expect(onUnauthenticated).not.toHaveBeenCalled();
  });
});
