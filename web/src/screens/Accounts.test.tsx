import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import Accounts, { accountRequest } from './Accounts';
import { mockApi, renderScreen, route } from '../test/render';

afterEach(() => vi.unstubAllGlobals());

const account = {
  id: 'a1',
  name: 'Swing',
  currency: 'USD',
  timezone: 'America/New_York',
  startingBalance: '25000.0000',
  balance: '25098.0000',
  defaultRiskPercent: '1',
  brokerageId: null,
  buyingPower: null,
  archived: false,
  createdAt: '2024-01-01T00:00:00Z',
};

describe('accountRequest', () => {
  it('leaves blank optional fields out on create and clears them on edit', () => {
    const d = { name: ' Swing ', currency: 'usd', timezone: '', startingBalance: '', defaultRiskPercent: '', brokerageId: '', buyingPower: '' };
    expect(accountRequest(d, false)).toEqual({ name: 'Swing', currency: 'USD', timezone: 'America/New_York' });
    expect(accountRequest(d, true)).toEqual({ name: 'Swing', currency: 'USD', timezone: 'America/New_York', defaultRiskPercent: null, brokerageId: null, buyingPower: null });
    expect(accountRequest({ ...d, startingBalance: '1000.50', defaultRiskPercent: '0.5', brokerageId: 'b', buyingPower: '40000' }, false)).toMatchObject({
      startingBalance: '1000.50',
      defaultRiskPercent: '0.5',
      brokerageId: 'b',
      buyingPower: '40000',
    });
  });
});

describe('Accounts', () => {
  it('shows balances with the currency minor units', async () => {
    mockApi(route('GET', '/api/accounts', () => ({ body: { items: [account], nextCursor: null } })), route('GET', '/api/brokerages', () => ({ body: { items: [], nextCursor: null } })));
    renderScreen(<Accounts />);
    expect(await screen.findByText('$25,098.00')).toBeInTheDocument();
  });

  it('asks again before deleting an account that holds positions', async () => {
    const { calls } = mockApi(
      route('GET', '/api/accounts', () => ({ body: { items: [account], nextCursor: null } })),
      route('GET', '/api/brokerages', () => ({ body: { items: [], nextCursor: null } })),
      route('DELETE', '/api/accounts/a1', (c) =>
        c.search.includes('confirm=true') ? { status: 204 } : { status: 409, body: { error: { code: 'CONFLICT', message: 'this account holds 12 positions' } } },
      ),
    );
    renderScreen(<Accounts />);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Delete Swing' }));
    await user.click(screen.getByRole('button', { name: 'Confirm delete' }));
    expect(await screen.findByText('This account holds 12 positions. Delete it anyway?')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Delete Swing and its positions' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.search)).toEqual(['', '?confirm=true']));
  });
});
