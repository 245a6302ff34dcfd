import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import Dashboard from './Dashboard';
import { rateLink } from '../components/MissingRates';
import { mockApi, renderScreen, route } from '../test/render';

afterEach(() => vi.unstubAllGlobals());

const summary = {
  trades: 4,
  wins: 3,
  losses: 1,
  breakevens: 0,
  winRate: '75.00',
  lossRate: '25.00',
  breakevenRate: '0.00',
  netPnl: '250.0000',
  grossPnl: '260.0000',
  fees: '10.0000',
  grossWins: '300.0000',
  grossLosses: '-50.0000',
  averageWin: '100.0000',
  averageLoss: '-50.0000',
  profitFactor: '6.0000',
  expectancy: '62.5000',
  averageR: '1.2500',
  rTrades: 4,
  largestWin: '150.0000',
  largestLoss: '-50.0000',
  maxDrawdown: '50.0000',
  longestWinStreak: 2,
  longestLossStreak: 1,
  sqn: null,
  maxDrawdownStart: null,
  maxDrawdownEnd: null,
  maxDrawdownRecovered: null,
};
const noSizes = { trades: 0, averageHoldSeconds: null, averageQuantity: null, averageNotional: null };
const noExcursions = { trades: 0, averageMoney: null, percentiles: { p10: null, p25: null, p50: null, p75: null, p90: null }, rTrades: 0, averageR: null, rDistribution: [] };
const noExits = { trades: 0, grossPnl: '0.0000', atLevel: '0.0000' };
const block = (currency: string) => ({
  currency,
  summary,
  byDay: [{ date: '2024-05-03', trades: 4, wins: 3, losses: 1, winRate: '75.00', netPnl: '250.0000' }],
  byMonth: [{ month: '2024-05', trades: 4, wins: 3, losses: 1, winRate: '75.00', netPnl: '250.0000' }],
  bySymbol: [],
  byUnderlying: [{ symbol: 'AAPL', trades: 4, wins: 3, losses: 1, winRate: '75.00', netPnl: '250.0000' }],
  byTag: [{ tagId: 't1', name: 'Breakout', category: 'setup', trades: 2, wins: 2, losses: 0, winRate: '100.00', netPnl: '200.0000' }],
  byWeek: [],
  byYear: [],
  byWeekday: [],
  byHour: [],
  byHoldTime: [],
  bySide: [],
  byAssetType: [],
  byPlaybook: [],
  byStrategy: [],
  byCriterion: [],
  rDistribution: [],
  winnersLosers: { winners: noSizes, losers: noSizes, payoffRatio: null },
  equityCurve: [],
  excursions: { mae: noExcursions, mfe: noExcursions },
  exitAnalysis: { mfeKept: { trades: 0, grossPnl: '0.0000', mfe: '0.0000', share: null }, holdToTarget: noExits, holdToStop: noExits },
});
// The server's default layout (shared/personal.DefaultLayout): every widget.
const defaultIds = ['total-balance', 'net-pnl', 'win-rate', 'profit-factor', 'expectancy', 'average-r', 'sqn', 'trades', 'average-win', 'average-loss',
  'largest-win', 'largest-loss', 'win-streak', 'loss-streak', 'max-drawdown', 'fees', 'calendar', 'equity-curve', 'drawdown', 'r-distribution',
  'winners-losers', 'excursions', 'exit-analysis', 'by-weekday', 'by-hour', 'by-hold-time', 'by-side', 'by-asset-type', 'by-underlying', 'by-tag', 'by-playbook', 'by-strategy',
  'by-month', 'by-week', 'by-year', 'by-criterion', 'rule-compliance', 'fee-rollup'];
const defaultLayout = { custom: false, widgets: defaultIds.map((id) => ({ id, size: 'half' })) };
const lists = [
  route('GET', '/api/accounts', () => ({ body: { items: [], nextCursor: null } })),
  route('GET', '/api/tags', () => ({ body: { items: [], nextCursor: null } })),
  route('GET', '/api/users/me/dashboard-layout', () => ({ body: defaultLayout })),
];

describe('Dashboard', () => {
  it('links each missing pair to the rate form', () => {
    expect(rateLink('EUR/USD')).toBe('/exchange-rates?base=EUR&quote=USD');
  });

  it('prompts for missing rates instead of a total, and shows per-currency figures', async () => {
    mockApi(
      ...lists,
      route('GET', '/api/dashboard/totals', () => ({ body: { displayCurrency: 'USD', total: null, missingPairs: ['EUR/USD', 'JPY/USD'] } })),
      route('GET', '/api/performance', () => ({ body: { displayCurrency: 'USD', missingPairs: ['EUR/USD'], byCurrency: [block('EUR')], total: null } })),
    );
    renderScreen(<Dashboard />);
    expect((await screen.findAllByRole('link', { name: 'EUR/USD' }))[0]).toHaveAttribute('href', '/exchange-rates?base=EUR&quote=USD');
    expect(screen.getAllByRole('link', { name: 'JPY/USD' })[0]).toBeInTheDocument();
    expect(screen.queryByTestId('dashboard-total')).toBeNull();
    const tiles = await screen.findByLabelText('Statistics');
    expect(tiles).toHaveTextContent('€250.00');
    expect(tiles).toHaveTextContent('75.00%');
    expect(tiles).toHaveTextContent('6.00');
    expect(tiles).toHaveTextContent('€62.50');
    expect(tiles).toHaveTextContent('1.25R');
    expect(screen.getByRole('region', { name: 'By tag' })).toHaveTextContent('Breakout (setup)');
    expect(screen.getByRole('gridcell', { name: /^2024-05-03: €250.00, 4 trades/ })).toBeInTheDocument();
  });

  it('shows the total in the display currency and passes filters on', async () => {
    const { calls } = mockApi(
      ...lists,
      route('GET', '/api/dashboard/totals', () => ({ body: { displayCurrency: 'USD', total: '25098.0000', missingPairs: [] } })),
      route('GET', '/api/performance', () => ({ body: { displayCurrency: 'USD', missingPairs: [], byCurrency: [block('USD')], total: block('USD') } })),
    );
    renderScreen(<Dashboard />, { path: '/', at: '/?from=2024-05-01&tagId=t1' });
    expect(await screen.findByTestId('dashboard-total')).toHaveTextContent('$25,098.00');
    expect(Object.fromEntries(new URLSearchParams(calls.find((c) => c.path === '/api/performance')?.search))).toEqual({ from: '2024-05-01', tagId: 't1', bySymbol: 'false' });
  });

  it('subtracts the expenses on demand: off by default, then the period’s expenses and the net after them, trade figures unchanged', async () => {
    const expenses = { byCurrency: [{ currency: 'USD', amount: '61.0000' }], total: '61.0000', missingPairs: [], byMonth: [{ month: '2024-05', total: '61.0000', netAfterExpenses: '189.0000' }] };
    const { calls } = mockApi(
      ...lists,
      route('GET', '/api/dashboard/totals', () => ({ body: { displayCurrency: 'USD', total: '25098.0000', missingPairs: [] } })),
      route('GET', '/api/performance', (c) => ({
        body: { displayCurrency: 'USD', missingPairs: [], byCurrency: [block('USD')], total: block('USD'), ...(c.search.includes('netOfExpenses=true') ? { expenses, netAfterExpenses: '189.0000' } : {}) },
      })),
    );
    renderScreen(<Dashboard />);
    const toggle = await screen.findByRole('switch', { name: 'Subtract expenses' });
    expect(toggle).not.toBeChecked();
    await screen.findByLabelText('Statistics');
    expect(screen.queryByRole('region', { name: 'Net after expenses' })).toBeNull();
    expect(calls.find((c) => c.path === '/api/performance')?.search).not.toContain('netOfExpenses');
    await userEvent.click(toggle);
    const net = await screen.findByRole('region', { name: 'Net after expenses' });
    const tiles = within(net).getByLabelText('Net after expenses');
    expect(tiles).toHaveTextContent(/Net P&L\s*\$250\.00/);
    expect(tiles).toHaveTextContent(/Expenses\s*\$61\.00/);
    expect(tiles).toHaveTextContent(/Net after expenses\s*\$189\.00/);
    expect(within(net).getByRole('row', { name: /May 2024/ })).toHaveTextContent('$189.00');
    expect(calls.some((c) => c.path === '/api/performance' && c.search.includes('netOfExpenses=true'))).toBe(true);
    expect(screen.getByLabelText('Statistics')).toHaveTextContent('75.00%');
  });

  it('names the rate the expenses lack instead of a net after them', async () => {
    const expenses = { byCurrency: [{ currency: 'GBP', amount: '7.0000' }], total: null, missingPairs: ['GBP/USD'], byMonth: [] };
    mockApi(
      ...lists,
      route('GET', '/api/dashboard/totals', () => ({ body: { displayCurrency: 'USD', total: '25098.0000', missingPairs: [] } })),
      route('GET', '/api/performance', () => ({ body: { displayCurrency: 'USD', missingPairs: [], byCurrency: [block('USD')], total: block('USD'), expenses, netAfterExpenses: null } })),
    );
    renderScreen(<Dashboard />);
    await userEvent.click(await screen.findByRole('switch', { name: 'Subtract expenses' }));
    const net = await screen.findByRole('region', { name: 'Net after expenses' });
    expect(within(net).getByRole('link', { name: 'GBP/USD' })).toHaveAttribute('href', '/exchange-rates?base=GBP&quote=USD');
    expect(within(net).getByLabelText('Net after expenses')).toHaveTextContent(/Expenses\s*—\s*An exchange rate is missing/);
    expect(net).toHaveTextContent('Expenses per currency: £7.00');
  });

  it('filters by kind of strategy, and names the kinds in words', async () => {
    const { calls } = mockApi(
      ...lists,
      route('GET', '/api/dashboard/totals', () => ({ body: { displayCurrency: 'USD', total: '1.0000', missingPairs: [] } })),
      route('GET', '/api/performance', () => ({ body: { displayCurrency: 'USD', missingPairs: [], byCurrency: [], total: block('USD') } })),
    );
    renderScreen(<Dashboard />, { path: '/', at: '/' });
    const filter = await screen.findByRole('group', { name: 'Strategies', hidden: true });
    expect(within(filter).getAllByRole('checkbox', { hidden: true }).map((c) => c.parentElement?.textContent)).toContain('Not in a strategy');
    await userEvent.click(within(filter).getByRole('checkbox', { name: 'Iron condor', hidden: true }));
    await waitFor(() =>
      expect(calls.filter((c) => c.path === '/api/performance').map((c) => new URLSearchParams(c.search).getAll('strategy'))).toContainEqual(['iron-condor']),
    );
  });
});

describe('Dashboard tiles', () => {
  it('show "—" with the reason where a figure does not exist', async () => {
    mockApi(
      ...lists,
      route('GET', '/api/dashboard/totals', () => ({ body: { displayCurrency: 'USD', total: '1.0000', missingPairs: [] } })),
      route('GET', '/api/performance', () => ({
        body: { displayCurrency: 'USD', missingPairs: [], byCurrency: [], total: { ...block('USD'), summary: { ...summary, losses: 0, profitFactor: null, averageLoss: null, largestLoss: null, averageR: null, rTrades: 0 } } },
      })),
    );
    renderScreen(<Dashboard />);
    const tiles = await screen.findByLabelText('Statistics');
    expect(tiles).toHaveTextContent('Profit factor—No losing trade');
    expect(tiles).toHaveTextContent('Largest loss—No losing trade');
    expect(tiles).toHaveTextContent('Average R—No trade has a planned stop');
    expect(tiles).toHaveTextContent('SQN—No trade has a planned stop');
  });
});

describe('Dashboard layout', () => {
  it('shows only the widgets of the user\'s layout, in its order and widths, and arranges them on request', async () => {
    const { calls } = mockApi(
      route('GET', '/api/accounts', () => ({ body: { items: [], nextCursor: null } })),
      route('GET', '/api/tags', () => ({ body: { items: [], nextCursor: null } })),
      route('GET', '/api/users/me/dashboard-layout', () => ({
        body: { custom: true, widgets: [{ id: 'win-rate', size: 'third' }, { id: 'net-pnl', size: 'full' }, { id: 'by-tag', size: 'half' }] },
      })),
      route('PUT', '/api/users/me/dashboard-layout', (c) => ({ body: { ...(c.body as object), custom: true } })),
      route('GET', '/api/dashboard/totals', () => ({ body: { displayCurrency: 'USD', total: '1.0000', missingPairs: [] } })),
      route('GET', '/api/performance', () => ({ body: { displayCurrency: 'USD', missingPairs: [], byCurrency: [], total: block('USD') } })),
    );
    renderScreen(<Dashboard />);
    const grid = await screen.findByRole('region', { name: 'Statistics' });
    await within(grid).findByText('75.00%');
    const shown = [...grid.querySelectorAll('[data-widget]')].map((e) => `${e.getAttribute('data-widget')}:${e.className}`);
    expect(shown).toEqual(['win-rate:widget w-third', 'net-pnl:widget w-full', 'by-tag:widget w-half']);
    expect(screen.queryByTestId('dashboard-total')).toBeNull();
    expect(within(grid).queryByText('Expectancy')).toBeNull();

    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Customize dashboard' }));
    expect(screen.getByRole('button', { name: 'Customize dashboard' })).toHaveAttribute('aria-pressed', 'true');
    await user.click(screen.getByRole('button', { name: 'Remove Win rate' }));
    await waitFor(() => expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ widgets: [{ id: 'net-pnl', size: 'full' }, { id: 'by-tag', size: 'half' }] }));
    await user.click(screen.getByRole('button', { name: 'Done' }));
    expect(screen.queryByRole('region', { name: 'Customize dashboard' })).toBeNull();
  });
});

describe('Dashboard breakdowns', () => {
  it('show a strategy as one trade by its kind, only for a journal with strategies', async () => {
    const figures = (trades: number, netPnl: string) => ({ trades, wins: trades, losses: 0, winRate: '100.00', netPnl, averageR: null, rTrades: 0, profitFactor: null });
    const byStrategy = [
      { strategy: 'iron-condor' as const, ...figures(1, '120.0000') },
      { strategy: null, ...figures(3, '40.0000') },
    ];
    mockApi(
      ...lists,
      route('GET', '/api/dashboard/totals', () => ({ body: { displayCurrency: 'USD', total: '1.0000', missingPairs: [] } })),
      route('GET', '/api/performance', () => ({ body: { displayCurrency: 'USD', missingPairs: [], byCurrency: [], total: { ...block('USD'), byStrategy } } })),
    );
    const { unmount } = renderScreen(<Dashboard />);
    const region = await screen.findByRole('region', { name: 'By strategy' });
    const rows = within(region).getAllByRole('row').slice(1);
    expect(rows.map((r) => within(r).getByRole('rowheader').textContent)).toEqual(['Iron condor', 'Not in a strategy']);
    unmount();

    mockApi(
      ...lists,
      route('GET', '/api/dashboard/totals', () => ({ body: { displayCurrency: 'USD', total: '1.0000', missingPairs: [] } })),
      route('GET', '/api/performance', () => ({ body: { displayCurrency: 'USD', missingPairs: [], byCurrency: [], total: { ...block('USD'), byStrategy: [byStrategy[1]] } } })),
    );
    renderScreen(<Dashboard />);
    await screen.findByRole('region', { name: 'By underlying' });
    expect(screen.queryByRole('region', { name: 'By strategy' })).toBeNull();
  });

  it('show the 10 best and 5 worst of a long list until asked for all', async () => {
    const many = Array.from({ length: 30 }, (_, i) => ({ symbol: `S${String(i).padStart(2, '0')}`, trades: 1, wins: 1, losses: 0, winRate: '100.00', netPnl: `${30 - i}.0000` }));
    mockApi(
      ...lists,
      route('GET', '/api/dashboard/totals', () => ({ body: { displayCurrency: 'USD', total: '1.0000', missingPairs: [] } })),
      route('GET', '/api/performance', () => ({ body: { displayCurrency: 'USD', missingPairs: [], byCurrency: [], total: { ...block('USD'), byUnderlying: many } } })),
    );
    renderScreen(<Dashboard />);
    const region = await screen.findByRole('region', { name: 'By underlying' });
    const rows = () => within(region).getAllByRole('row').slice(1);
    expect(rows()).toHaveLength(16);
    expect(region).toHaveTextContent('S09');
    expect(region).not.toHaveTextContent('S10');
    expect(region).toHaveTextContent('… 15 more');
    expect(region).toHaveTextContent('S29');
    await userEvent.setup().click(within(region).getByRole('button', { name: 'Show all 30' }));
    expect(rows()).toHaveLength(30);
  });
});

const breakdown = { averageR: '0.5000', rTrades: 2, profitFactor: '3.0000' };
const fullBlock = (currency: string, trades = 4) => ({
  ...block(currency),
  summary: { ...summary, trades, rTrades: 2, sqn: '1.8700', maxDrawdownStart: '2024-05-01T15:00:00Z', maxDrawdownEnd: '2024-05-04T15:00:00Z', maxDrawdownRecovered: '2024-05-14T15:00:00Z' },
  byWeek: [{ week: '2024-W18', trades: 4, wins: 3, losses: 1, winRate: '75.00', netPnl: '250.0000', ...breakdown }],
  byYear: [{ year: '2024', trades: 4, wins: 3, losses: 1, winRate: '75.00', netPnl: '250.0000', ...breakdown }],
  byWeekday: [
    { weekday: 1, trades: 3, wins: 3, losses: 0, winRate: '100.00', netPnl: '300.0000', averageR: '2.0000', rTrades: 1, profitFactor: null },
    { weekday: 5, trades: 1, wins: 0, losses: 1, winRate: '0.00', netPnl: '-50.0000', averageR: '-1.0000', rTrades: 1, profitFactor: '0.0000' },
  ],
  byHour: [{ hour: 9, trades: 4, wins: 3, losses: 1, winRate: '75.00', netPnl: '250.0000', ...breakdown }],
  byHoldTime: [{ bucket: '5m-15m', trades: 4, wins: 3, losses: 1, winRate: '75.00', netPnl: '250.0000', ...breakdown }],
  bySide: [{ side: 'long', trades: 4, wins: 3, losses: 1, winRate: '75.00', netPnl: '250.0000', ...breakdown }],
  byAssetType: [{ assetType: 'stock', trades: 4, wins: 3, losses: 1, winRate: '75.00', netPnl: '250.0000', ...breakdown }],
  rDistribution: [
    { from: null, to: '-1', trades: 0 },
    { from: '-1', to: '0', trades: 1 },
    { from: '2', to: null, trades: 1 },
  ],
  winnersLosers: {
    winners: { trades: 3, averageHoldSeconds: 750, averageQuantity: '100', averageNotional: '15000.0000' },
    losers: { trades: 1, averageHoldSeconds: 7500, averageQuantity: '200', averageNotional: '30000.0000' },
    payoffRatio: '2.0000',
  },
  // The charts need a canvas: the end-to-end tests draw them.
  equityCurve: [],
});

describe('Dashboard figures', () => {
  it('shows the new figures, the R coverage, the distribution and winners against losers', async () => {
    mockApi(
      ...lists,
      route('GET', '/api/dashboard/totals', () => ({ body: { displayCurrency: 'USD', total: '1.0000', missingPairs: [] } })),
      route('GET', '/api/performance', () => ({ body: { displayCurrency: 'USD', missingPairs: [], byCurrency: [fullBlock('USD')], total: fullBlock('USD') } })),
    );
    renderScreen(<Dashboard />);
    const tiles = await screen.findByLabelText('Statistics');
    expect(tiles).toHaveTextContent('Largest win$150.00');
    expect(tiles).toHaveTextContent('Largest loss-$50.00');
    expect(tiles).toHaveTextContent('Longest win streak2 trades');
    expect(tiles).toHaveTextContent('Longest loss streak1 trade');
    expect(tiles).toHaveTextContent('SQN1.87');
    expect(tiles).toHaveTextContent('over 2 of 4 trades');
    expect(tiles).toHaveTextContent('fell over 3 days, recovered in 10 days');
    // A figure that does not exist says why.
    expect(tiles).toHaveTextContent('Profit factor6.00');
    const dist = screen.getByRole('region', { name: 'R-multiple distribution' });
    expect(dist).toHaveTextContent('Below -1R0');
    expect(dist).toHaveTextContent('-1R to 0R1');
    expect(dist).toHaveTextContent('2R and above1');
    const wl = screen.getByRole('region', { name: 'Winners against losers' });
    expect(wl).toHaveTextContent('Average hold time12m 30s2h 5m');
    expect(wl).toHaveTextContent('Payoff ratio (average win over average loss): 2.00');
    // A profit factor without a loss is "—" with its reason, never a blank.
    const weekdays = screen.getByRole('region', { name: 'By weekday of entry' });
    expect(within(weekdays).getAllByRole('row')[1]).toHaveTextContent(/Monday.*—\s*\(no losing trade\)/);
    for (const name of ['By hour of entry', 'By hold time', 'By side', 'By asset type', 'By underlying', 'By tag', 'By month', 'By week', 'By year']) {
      expect(screen.getByRole('region', { name })).toBeInTheDocument();
    }
    expect(screen.getByRole('region', { name: 'By week' })).toHaveTextContent('Week 18, 2024');
  });

  it('sorts a breakdown by a heading click', async () => {
    const user = userEvent.setup();
    mockApi(
      ...lists,
      route('GET', '/api/dashboard/totals', () => ({ body: { displayCurrency: 'USD', total: '1.0000', missingPairs: [] } })),
      route('GET', '/api/performance', () => ({ body: { displayCurrency: 'USD', missingPairs: [], byCurrency: [], total: fullBlock('USD') } })),
    );
    renderScreen(<Dashboard />);
    const region = await screen.findByRole('region', { name: 'By weekday of entry' });
    const names = () => within(region).getAllByRole('rowheader').map((c) => c.textContent);
    expect(names()).toEqual(['Monday', 'Friday']);
    await user.click(within(region).getByRole('button', { name: /Avg R/ }));
    await user.click(within(region).getByRole('button', { name: /Avg R/ }));
    expect(within(region).getByRole('columnheader', { name: /Avg R/ })).toHaveAttribute('aria-sort', 'ascending');
    expect(names()).toEqual(['Friday', 'Monday']);
  });

  it('opens a calendar day in the journal', async () => {
    const user = userEvent.setup();
    mockApi(
      ...lists,
      route('GET', '/api/dashboard/totals', () => ({ body: { displayCurrency: 'USD', total: '1.0000', missingPairs: [] } })),
      route('GET', '/api/performance', () => ({ body: { displayCurrency: 'USD', missingPairs: [], byCurrency: [], total: fullBlock('USD') } })),
    );
    const { router } = renderScreen(<Dashboard />, { path: '/', at: '/?accountId=a1&from=2024-05-01' });
    await user.click(await screen.findByRole('gridcell', { name: /^2024-05-03/ }));
    expect(router.state.location.pathname).toBe('/journal/2024-05-03');
  });

  it('without a rate: names the missing pair, shows what each currency can total, and defaults to the busiest currency', async () => {
    mockApi(
      route('GET', '/api/accounts', () => ({
        body: {
          items: [
            { id: 'a', name: 'US', currency: 'USD', balance: '1000.5000' },
            { id: 'b', name: 'US 2', currency: 'USD', balance: '0.2500' },
            { id: 'c', name: 'EU', currency: 'EUR', balance: '500.0000' },
          ],
          nextCursor: null,
        },
      })),
      route('GET', '/api/tags', () => ({ body: { items: [], nextCursor: null } })),
      route('GET', '/api/users/me/dashboard-layout', () => ({ body: defaultLayout })),
      route('GET', '/api/dashboard/totals', () => ({ body: { displayCurrency: 'USD', total: null, missingPairs: ['EUR/USD'] } })),
      route('GET', '/api/performance', () => ({ body: { displayCurrency: 'USD', missingPairs: ['EUR/USD'], byCurrency: [fullBlock('EUR', 1), fullBlock('USD', 90)], total: null } })),
    );
    renderScreen(<Dashboard />);
    // Both the balance and the statistics say which rate is missing, and why each currency stands alone.
    expect(await screen.findByText(/^No total balance in USD yet: a rate is missing, so each currency is shown on its own/)).toBeInTheDocument();
    expect(await screen.findByText(/^No statistics across all accounts in USD yet: a rate is missing/)).toBeInTheDocument();
    expect(screen.getAllByRole('link', { name: 'EUR/USD' })[0]).toHaveAttribute('href', '/exchange-rates?base=EUR&quote=USD');
    expect(await screen.findByRole('list', { name: 'Balance per currency' })).toHaveTextContent('USD accounts: $1,000.75');
    const perCurrency = await screen.findByRole('region', { name: 'Totals per currency' });
    expect(perCurrency).toHaveTextContent('EUR1');
    expect(perCurrency).toHaveTextContent('USD90');
    expect(screen.getByTestId('figures-in')).toHaveTextContent('USD accounts only');
    expect(screen.getByLabelText('Statistics')).toHaveTextContent('90 (3W / 1L / 0BE)');
  });
});
