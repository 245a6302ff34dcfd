import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import Strategies from './Strategies';
import StrategyPage from './StrategyPage';
import { payoffAxis } from './payoff';
import { legsError } from './text';
import { ApiError } from '../../api/client';
import { mockApi, renderScreen, route } from '../../test/render';

vi.mock('../calculator/PayoffChart', () => ({ PayoffChart: ({ summary }: { summary: string }) => <p>{summary}</p> }));
afterEach(() => vi.unstubAllGlobals());

const account = { id: 'a1', name: 'Options', currency: 'USD', timezone: 'America/New_York', startingBalance: '0', balance: '0', defaultRiskPercent: null, brokerageId: null, archived: false, createdAt: '' };
/** leg is an option position as the API lists it, its fields read from its OCC symbol ("SPY   270618P00095000"). */
const leg = (id: string, symbol: string, side: string) => {
  const [, root, yy, mm, dd, right, strike] = /^(\S+)\s+(\d\d)(\d\d)(\d\d)([CP])(\d{8})$/.exec(symbol)!;
  return {
    id, accountId: 'a1', symbol, assetType: 'option', underlying: root!, optionExpiry: `20${yy}-${mm}-${dd}`, optionRight: right!, optionStrike: String(Number(strike) / 1000),
    multiplier: 100, side, status: 'open', openedAt: '2026-06-01T14:00:00Z', closedAt: null, strategyId: null as string | null,
    entryQuantity: '1', exitQuantity: '0', openQuantity: '1', avgEntryPrice: '2', avgExitPrice: null, netPnl: '0.0000', tags: [],
  };
};
const condor = {
  id: 's1', accountId: 'a1', name: '', plannedRisk: null, underlying: 'SPY', kind: 'iron-condor', label: 'Short iron condor', status: 'open',
  openedAt: '2026-06-01T14:00:00Z', closedAt: null, grossPnl: '0.0000', fees: '0.0000', netPnl: '0.0000', rMultiple: null,
  netDebit: '-200.0000', maxProfit: '200.0000', maxLoss: '300.0000', breakevens: ['93', '107'],
  payoff: [{ price: '0', value: '-300.0000' }, { price: '90', value: '-300.0000' }, { price: '95', value: '200.0000' }, { price: '105', value: '200.0000' }, { price: '110', value: '-300.0000' }],
  noPayoff: null, legs: [leg('p1', 'SPY   270618P00095000', 'short'), leg('p2', 'SPY   270618P00090000', 'long')], createdAt: '', updatedAt: '1',
};

describe('strategies', () => {
  it('names a refused leg by its side and as a trader reads it, not its index', () => {
    const err = new ApiError(400, { error: { code: 'VALIDATION_ERROR', message: 'x', details: [{ field: 'positionIds[1]', message: 'is on MSFT, not SPY: a strategy\'s legs share one underlying' }] } });
    expect(legsError(err, [leg('p1', 'SPY   270618P00095000', 'short'), leg('p2', 'MSFT  270618C00400000', 'long')] as never, ['p1', 'p2'])).toBe(
      "long MSFT Jun 18 2027 400 call is on MSFT, not SPY: a strategy's legs share one underlying.",
    );
    const other = new ApiError(400, { error: { code: 'VALIDATION_ERROR', message: 'x', details: [{ field: 'plannedRisk', message: 'must be greater than 0' }] } });
    expect(legsError(other, [], [])).toBe('The planned risk must be greater than 0.');
    // Strikes 90..110 and room of 5% of 110 on each side.
    expect(payoffAxis(condor as never)).toEqual([84.5, 115.5]);
  });

  it('shows what the legs make, and ungroups after confirmation', async () => {
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
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Ungroup' }));
    const ask = screen.getByRole('alertdialog', { name: 'Ungroup?' });
    expect(ask).toHaveAccessibleDescription('Ungroup this strategy? Its legs stay, as positions of their own.');
    await user.click(within(ask).getByRole('button', { name: 'Ungroup' }));
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
    await user.click(await within(form).findByLabelText(/short SPY Jun 18 2027 95 put \(SPY 270618P00095000\)/));
    await user.click(within(form).getByLabelText(/long SPY Jun 18 2027 90 put/));
    await user.click(within(form).getByRole('button', { name: 'Group as a strategy' }));
    expect(await screen.findByText('elsewhere')).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ accountId: 'a1', positionIds: ['p1', 'p2'] });
    expect(calls.filter((c) => c.path === '/api/positions').map((c) => c.search)).toEqual(['?accountId=a1&symbol=SPY&assetType=option&assetType=stock&limit=200']);
    expect(screen.queryByText('No strategies yet.')).toBeNull();
  });
  it('lists the legs by expiry, strike and right, each written as a trader reads it', async () => {
    const legs = [
      { ...leg('c110', 'SPY   270618C00110000', 'long'), strategyId: 's1' },
      { ...leg('p95', 'SPY   270618P00095000', 'short'), strategyId: 's1' },
      { ...leg('late', 'SPY   270716P00090000', 'long'), strategyId: 's1' },
      { ...leg('c105', 'SPY   270618C00105000', 'short'), strategyId: 's1' },
      { ...leg('p90', 'SPY   270618P00090000', 'long'), strategyId: 's1' },
      { ...leg('c95', 'SPY   270618C00095000', 'short'), strategyId: 's1' },
    ];
    mockApi(
      route('GET', '/api/accounts', () => ({ body: { items: [account], nextCursor: null } })),
      route('GET', '/api/strategies/s1', () => ({ body: { strategy: { ...condor, legs } } })),
      route('GET', '/api/positions', () => ({ body: { items: legs, nextCursor: null } })),
    );
    renderScreen(<StrategyPage />, { path: '/strategies/:strategyId', at: '/strategies/s1' });
    const table = (await screen.findByRole('heading', { name: 'Legs', level: 2 })).parentElement!;
    const names = within(table).getAllByRole('rowheader').map((th) => th.textContent);
    expect(names).toEqual(['SPY Jun 18 2027 90 put', 'SPY Jun 18 2027 95 call', 'SPY Jun 18 2027 95 put', 'SPY Jun 18 2027 105 call', 'SPY Jun 18 2027 110 call', 'SPY Jul 16 2027 90 put']);
    // The OCC symbol stays at hand, as the link's tooltip.
    expect(within(table).getByRole('link', { name: 'SPY Jun 18 2027 95 put' })).toHaveAttribute('title', 'SPY 270618P00095000');
    expect(within(table).queryByText(/270618/)).toBeNull();
  });

  it("offers as legs only the open positions of the strategy's account and underlying, and its own legs", async () => {
    const own = condor.legs.map((l) => ({ ...l, strategyId: 's1' }));
    const rolled = { ...leg('old', 'SPY   270618P00085000', 'short'), status: 'closed', openQuantity: '0', strategyId: 's1' };
    const listed = [
      ...own,
      leg('roll', 'SPY   270618P00092000', 'short'),
      { ...leg('spent', 'SPY   270618P00080000', 'short'), status: 'closed', openQuantity: '0' },
      { ...leg('elsewhere', 'SPY   270618C00120000', 'long'), accountId: 'a2' },
      leg('msft', 'MSFT  270618C00400000', 'long'),
      { ...leg('taken', 'SPY   270618C00125000', 'long'), strategyId: 's2' },
    ];
    const { calls } = mockApi(
      route('GET', '/api/accounts', () => ({ body: { items: [account], nextCursor: null } })),
      route('GET', '/api/strategies/s1', () => ({ body: { strategy: { ...condor, legs: [...own, rolled] } } })),
      // A list that ignored its filters: the page keeps the others out all the same.
      route('GET', '/api/positions', () => ({ body: { items: listed, nextCursor: null } })),
      route('PATCH', '/api/strategies/s1', (c) => ({ body: { strategy: { ...condor, legs: [...own, rolled], updatedAt: '2', ...(c.body as object) } } })),
    );
    renderScreen(<StrategyPage />, { path: '/strategies/:strategyId', at: '/strategies/s1' });
    const form = await screen.findByRole('form', { name: 'Roll or change the legs' });
    const picker = await within(form).findByRole('group', { name: 'Legs' });
    const offered = within(picker).getAllByRole('checkbox').map((c) => c.closest('label')!.textContent!.replace(/ · .*/, ''));
    expect(offered).toEqual([
      'short SPY Jun 18 2027 85 put (SPY 270618P00085000)',
      'long SPY Jun 18 2027 90 put (SPY 270618P00090000)',
      'short SPY Jun 18 2027 92 put (SPY 270618P00092000)',
      'short SPY Jun 18 2027 95 put (SPY 270618P00095000)',
    ]);
    expect(within(picker).getByLabelText(/85 put/)).toBeChecked();
    expect(within(picker).getByLabelText(/92 put/)).not.toBeChecked();
    // Asked of the API: the open options and shares of its account on its underlying.
    const asked = calls.filter((c) => c.path === '/api/positions').map((c) => new URLSearchParams(c.search));
    expect(asked).toHaveLength(1);
    expect(asked[0]!.getAll('accountId')).toEqual(['a1']);
    expect(asked[0]!.getAll('symbol')).toEqual(['SPY']);
    expect(asked[0]!.get('status')).toBe('open');
    expect(asked[0]!.getAll('assetType')).toEqual(['option', 'stock']);
    // The roll: the new leg ticked, the old one unticked.
    const user = userEvent.setup();
    await user.click(within(picker).getByLabelText(/92 put/));
    await user.click(within(picker).getByLabelText(/85 put/));
    await user.click(within(form).getByRole('button', { name: 'Save the legs' }));
    await vi.waitFor(() => expect(calls.find((c) => c.method === 'PATCH')?.body).toEqual({ positionIds: ['p1', 'p2', 'roll'] }));
  });
});
