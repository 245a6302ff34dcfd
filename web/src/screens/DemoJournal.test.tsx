import { describe, expect, it, vi, afterEach } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { DemoJournal } from './DemoJournal';
import { mockApi, renderScreen, route } from '../test/render';

afterEach(() => vi.unstubAllGlobals());

const account = { id: 'a1', name: 'Demo account', currency: 'USD', timezone: 'America/New_York', startingBalance: '25000.0000', balance: '25000.0000', defaultRiskPercent: null, brokerageId: null, buyingPower: null, archived: false, demo: true, createdAt: '' };

describe('DemoJournal', () => {
  it('offers the demo journal on an empty journal and loads it', async () => {
    const { calls } = mockApi(route('POST', '/api/demo-journal', () => ({ status: 201, body: { account, positions: 75 } })));
    renderScreen(<DemoJournal accounts={[]} />);
    await userEvent.setup().click(screen.getByRole('button', { name: 'Load a demo journal' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST' && c.path === '/api/demo-journal')).toBe(true));
  });

  it('says nothing to a user with accounts of their own', () => {
    renderScreen(<DemoJournal accounts={[{ ...account, demo: false }]} />);
    expect(screen.queryByRole('region', { name: 'Demo journal' })).toBeNull();
  });

  it('removes a loaded demo journal after confirmation', async () => {
    const { calls } = mockApi(route('DELETE', '/api/demo-journal', () => ({ status: 204 })));
    renderScreen(<DemoJournal accounts={[account]} />);
    expect(screen.getByText(/looking at the demo journal/)).toBeInTheDocument();
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Remove the demo journal' }));
    const ask = screen.getByRole('alertdialog', { name: 'Remove the demo journal?' });
    expect(ask).toHaveAccessibleDescription('Remove the demo account with all its trades, and its playbook, rule, strategy and day entry?');
    await user.click(within(ask).getByRole('button', { name: 'Remove the demo journal' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'DELETE' && c.path === '/api/demo-journal')).toBe(true));
  });
});
