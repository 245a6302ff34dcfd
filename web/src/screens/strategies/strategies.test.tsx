import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import Strategies from './Strategies';
import StrategyPage, { payoffAxis } from './StrategyPage';
import { legsError } from './text';
import { ApiError } from '../../api/client';
import { mockApi, renderScreen, route } from '../../test/render';

vi.mock('../calculator/PayoffChart', () => ({ PayoffChart: ({ summary }: { summary: string }) => <p>{summary}</p> }));
afterEach(() => vi.unstubAllGlobals());

const account = { id: 'a1', name: 'Options', currency: 'USD', timezone: 'America/New_York', startingBalance: '0', balance: '0', defaultRiskPercent: null, brokerageId: null, archived: false, createdAt: '' };
const leg = (id: string, symbol: string, side: string) => ({
  id, accountId: 'a1', symbol, assetType: 'option', underlying: 'SPY', side, status: 'open', openedAt: '2026-06-01T14:00:00Z', closedAt: null,
  entryQuantity: '1', exitQuantity: '0', openQuantity: '1', avgEntryPrice: '2', avgExitPrice: null, netPnl: '0.0000', tags: [],
});
const condor = {
  id: 's1', accountId: 'a1', name: '', plannedRisk: null, underlying: 'SPY', kind: 'iron-condor', label: 'Short iron condor', status: 'open',
  openedAt: '2026-06-01T14:00:00Z', closedAt: null, grossPnl: '0.0000', fees: '0.0000', netPnl: '0.0000', rMultiple: null,
  netDebit: '-200.0000', maxProfit: '200.0000', maxLoss: '300.0000', breakevens: ['93', '107'],
  payoff: [{ price: '0', value: '-300.0000' }, { price: '90', value: '-300.0000' }, { price: '95', value: '200.0000' }, { price: '105', value: '200.0000' }, { price: '110', value: '-300.0000' }],
  noPayoff: null, legs: [leg('p1', 'SPY   270618P00095000', 'short'), leg('p2', 'SPY   270618P00090000', 'long')], createdAt: '', updatedAt: '1',
};

describe('strategies', () => {
  it('names a refused leg by its symbol and side, not its index', () => {
    const err = new ApiError(400, { error: { code: 'VALIDATION_ERROR', message: 'x', details: [{ field: 'positionIds[1]', message: 'is on MSFT, not SPY: a strategy\'s legs share one underlying' }] } });
    expect(legsError(err, [leg('p1', 'SPY   270618P00095000', 'short'), leg('p2', 'MSFT  270618C00400000', 'long')] as never, ['p1', 'p2'])).toBe(
      "long MSFT  270618C00400000 is on MSFT, not SPY: a strategy's legs share one underlying.",
    );
    // Strikes 90..110 and room of a tenth of 110 on each side.
    expect(payoffAxis(condor)).toEqual([79, 121]);
  });

  it('shows what the legs make, and ungroups after confirmation', async () => {
    vi.stubGlobal('confirm', () => true);
    const { calls } = mockApi(
      route('GET', '/api/accounts', () => ({ body: { items: [account], nextCursor: null } })),
      route('GET', '/api/strategies/s1', () => ({ body: { strategy: condor } })),
      route('GET', '/api/positions', () => ({ body: { items: condor.legs, nextCursor: null } })),
      route('DELETE', '/api/strategies/s1', () => ({ status: 204 })),
    );
    renderScreen(<StrategyPage />, { path: '/strategies/:strategyId', at: '/strategies/s1' });
    const facts = await screen.findByLabelText('Figures');
    expect(within(facts).getByText('Net credit')).toBeInTheDocument();
    expect(within(facts).getAllByText('$200.00')).toHaveLength(2); // the credit, and the most it can make
    expect(within(facts).getByText('$300.00')).toBeInTheDocument();
    expect(within(facts).getByText('93.00, 107.00')).toBeInTheDocument();
    expect(screen.getByText(/P&L at expiry of Short iron condor/)).toBeInTheDocument();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Ungroup' }));
    expect(await screen.findByText('elsewhere')).toBeInTheDocument();
    expect(calls.some((c) => c.method === 'DELETE' && c.path === '/api/strategies/s1')).toBe(true);
  });

  it('estimates a calendar at its first expiry from its open legs, at the implied volatility typed', async () => {
    const option = (id: string, symbol: string, side: string, right: string, expiry: string, price: string, status = 'open') => ({
      ...leg(id, symbol, side), status, optionRight: right, optionStrike: '500', optionExpiry: expiry, multiplier: 100, avgEntryPrice: price,
      openQuantity: status === 'open' ? '1' : '0',
    });
    const calendar = {
      ...condor, kind: 'calendar', label: 'Long call calendar', netDebit: '150.0000', maxProfit: null, maxLoss: null, breakevens: [], payoff: [],
      noPayoff: 'the options expire on different dates',
      legs: [
        option('p1', 'SPY   270618C00500000', 'short', 'C', '2027-06-18', '2'),
        option('p2', 'SPY   270716C00500000', 'long', 'C', '2027-07-16', '3.123456789'),
        option('p3', 'SPY   270521C00500000', 'short', 'C', '2027-05-21', '1.5', 'closed'), // rolled out: not a leg now
      ],
    };
    const { calls } = mockApi(
      route('GET', '/api/accounts', () => ({ body: { items: [account], nextCursor: null } })),
      route('GET', '/api/strategies/s1', () => ({ body: { strategy: calendar } })),
      route('GET', '/api/positions', () => ({ body: { items: calendar.legs, nextCursor: null } })),
      route('POST', '/api/calculator/strategy', (c) => ({
        body: {
          name: 'calendar', label: 'Long call calendar', netDebit: '112.35', payoffUndefined: 'different dates',
          firstExpiry: { date: '2027-06-18', volatility: (c.body as { volatility: string }).volatility, rate: '4', maxProfit: '310.20', maxLoss: '112.35', breakevens: ['480.5', '521.25'], points: [{ price: '0', value: '-112.35' }] },
        },
      })),
    );
    renderScreen(<StrategyPage />, { path: '/strategies/:strategyId', at: '/strategies/s1' });
    const field = await screen.findByLabelText('Implied volatility %');
    expect(field).toHaveValue('30');
    await userEvent.setup().clear(field);
    expect(screen.getByText(/Enter the implied volatility to estimate/)).toBeInTheDocument();
    await userEvent.setup().type(field, '25');
    expect(await screen.findByText(/model's estimate \(Black–Scholes\).*25% implied volatility/)).toBeInTheDocument();
    const estimate = screen.getByLabelText('Estimate');
    expect(within(estimate).getByText('$310.20')).toBeInTheDocument();
    expect(within(estimate).getByText('$112.35')).toBeInTheDocument();
    expect(within(estimate).getByText('480.50, 521.25')).toBeInTheDocument();
    expect(screen.getByText(/^Estimated P&L at the first expiry of Long call calendar/)).toBeInTheDocument();
    // Asked at 30 on opening, then at 25; never while blank. The average entry is cut to the calculator's 8 places.
    const posts = calls.filter((c) => c.method === 'POST').map((c) => c.body as { volatility: string });
    expect(posts.map((b) => b.volatility)).toEqual(['30', '25']);
    expect(posts[1]).toEqual({
      legs: [
        { type: 'call', strike: '500', expiry: '2027-06-18', side: 'short', quantity: '1', price: '2' },
        { type: 'call', strike: '500', expiry: '2027-07-16', side: 'long', quantity: '1', price: '3.12345678' },
      ],
      volatility: '25',
    });
  });

  it('groups the ticked positions of an account on an underlying', async () => {
    const { calls } = mockApi(
      route('GET', '/api/accounts', () => ({ body: { items: [account], nextCursor: null } })),
      route('GET', '/api/strategies', () => ({ body: { items: [], nextCursor: null } })),
      route('GET', '/api/positions', () => ({ body: { items: condor.legs, nextCursor: null } })),
      route('POST', '/api/strategies', () => ({ status: 201, body: { strategy: condor } })),
    );
    renderScreen(<Strategies />, { path: '/strategies' });
    const user = userEvent.setup();
    const form = await screen.findByRole('form', { name: 'Group positions as a strategy' });
    await within(form).findByRole('option', { name: 'Options' });
    await user.selectOptions(within(form).getByLabelText('Account'), 'a1');
    await user.type(within(form).getByLabelText('Underlying'), 'spy');
    await user.click(await within(form).findByLabelText(/short SPY\s+270618P00095000/));
    await user.click(within(form).getByLabelText(/long SPY\s+270618P00090000/));
    await user.click(within(form).getByRole('button', { name: 'Group as a strategy' }));
    expect(await screen.findByText('elsewhere')).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ accountId: 'a1', positionIds: ['p1', 'p2'] });
    expect(calls.filter((c) => c.path === '/api/positions').map((c) => c.search)).toEqual(['?accountId=a1&symbols=SPY&limit=200']);
    expect(screen.queryByText('No strategies yet.')).toBeNull();
  });
});
