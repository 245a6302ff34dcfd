import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import Dashboard, { rateLink } from './Dashboard';
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
};
const block = (currency: string) => ({
  currency,
  summary,
  byDay: [{ date: '2024-05-03', trades: 4, wins: 3, losses: 1, winRate: '75.00', netPnl: '250.0000' }],
  byMonth: [{ month: '2024-05', trades: 4, wins: 3, losses: 1, winRate: '75.00', netPnl: '250.0000' }],
  bySymbol: [],
  byUnderlying: [{ symbol: 'AAPL', trades: 4, wins: 3, losses: 1, winRate: '75.00', netPnl: '250.0000' }],
  byTag: [{ tagId: 't1', name: 'Breakout', category: 'setup', trades: 2, wins: 2, losses: 0, winRate: '100.00', netPnl: '200.0000' }],
  equityCurve: [],
});
const lists = [route('GET', '/api/accounts', () => ({ body: { items: [], nextCursor: null } })), route('GET', '/api/tags', () => ({ body: { items: [], nextCursor: null } }))];

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
    expect(screen.getByRole('gridcell', { name: '2024-05-03: €250.00, 4 trades' })).toBeInTheDocument();
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
});

describe('Dashboard breakdowns', () => {
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
