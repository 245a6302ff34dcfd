import { describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockApi, renderScreen, route } from '../../test/render';
import { PositionCompliance } from './PositionCompliance';
import { TradeCompliance } from './TradeCompliance';

const rules = [
  { id: 'r1', type: 'cooldownAfterLoss', params: { minutes: 15 }, enabled: true, accountId: null, weight: 'critical', tagId: null, createdAt: '2024-05-01T00:00:00Z', updatedAt: '2024-05-01T00:00:00Z' },
  { id: 'r2', type: 'allowedDirection', params: { side: 'long' }, enabled: true, accountId: null, weight: 'important', tagId: null, createdAt: '2024-05-01T00:00:00Z', updatedAt: '2024-05-01T00:00:00Z' },
  { id: 'r3', type: 'maxDailyLoss', params: { amount: '500' }, enabled: true, accountId: null, weight: 'niceToHave', tagId: null, createdAt: '2024-05-01T00:00:00Z', updatedAt: '2024-05-01T00:00:00Z' },
];
const trade = (id: string, symbol: string, score: number, netPnl: string | null, broken: string[]) => ({
  id, positionIds: [id], strategyId: null, symbol, accountId: 'a1', currency: 'USD', netPnl, date: '2024-05-02', score, kept: 2 - broken.length, broken: broken.length,
  rules: [
    { ruleId: 'r1', type: 'cooldownAfterLoss', status: broken.length ? 'broken' : 'kept', ...(broken[0] ? { message: broken[0] } : {}) },
    { ruleId: 'r2', type: 'allowedDirection', status: 'kept' },
  ],
});
const bucket = (trades: number, winRate: string | null, netPnl: string) => ({ trades, wins: 0, losses: 0, winRate, netPnl });

describe('TradeCompliance', () => {
  it('sets the trades that kept every rule beside those that broke one, and narrows the list to the broken ones', async () => {
    const { calls } = mockApi(
      route('GET', '/api/rules', () => ({ body: { items: rules } })),
      route('GET', '/api/rules/compliance', () => ({
        body: {
          from: '2024-05-01', to: '2024-05-31', days: [], daysKept: 0, daysBroken: 1,
          breakdown: { displayCurrency: 'USD', missingPairs: [], byCurrency: [], total: null },
          tradeBreakdown: { byCurrency: [], total: { currency: 'USD', kept: bucket(1, '0.00', '-20.0000'), broken: bucket(2, '100.00', '20.0000') } },
          trades: [trade('p1', 'AAPL', 100, '-20.0000', []), trade('p2', 'MSFT', 40, '10.0000', ['MSFT: entry 5 minutes after a losing close of AAPL; your cooldown is 15 minutes'])],
        },
      })),
    );
    const user = userEvent.setup();
    renderScreen(<TradeCompliance />);
    const kept = await screen.findByRole('row', { name: /Trades that kept every rule/ });
    expect(within(kept).getAllByRole('cell').map((c) => c.textContent)).toEqual(['1', '0.00%', expect.stringContaining('20.00')]);
    expect(screen.getByRole('row', { name: /Trades that broke a rule/ })).toHaveTextContent('100.00%');
    expect(screen.getByTestId('trade-score-p1')).toHaveTextContent('100%');
    expect(screen.getByTestId('trade-score-p2')).toHaveTextContent('40%');
    await user.selectOptions(screen.getByLabelText('Show'), 'broken');
    expect(screen.queryByTestId('trade-score-p1')).not.toBeInTheDocument();
    expect(screen.getByRole('cell', { name: /entry 5 minutes after a losing close/ })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'MSFT' })).toHaveAttribute('href', '/positions/p2');
    expect(calls.find((c) => c.path === '/api/rules/compliance')?.search).toMatch(/trades=true/);
  });
});

describe('PositionCompliance', () => {
  it('shows the trade\'s score and each rule kept, broken with what happened, or not checked with why', async () => {
    mockApi(
      route('GET', '/api/rules', () => ({ body: { items: rules } })),
      route('GET', '/api/rules/compliance/positions/p2', () => ({
        body: {
          trade: {
            ...trade('p2', 'MSFT', 40, null, ['MSFT: entry 5 minutes after a losing close of AAPL; your cooldown is 15 minutes']),
            rules: [
              { ruleId: 'r1', type: 'cooldownAfterLoss', status: 'broken', message: 'MSFT: entry 5 minutes after a losing close of AAPL; your cooldown is 15 minutes' },
              { ruleId: 'r2', type: 'allowedDirection', status: 'kept' },
              { ruleId: 'r3', type: 'maxDailyLoss', status: 'skipped', message: 'no exchange rate EUR/USD to convert this day\'s positions' },
            ],
          },
        },
      })),
    );
    renderScreen(<PositionCompliance positionId="p2" />);
    expect(await screen.findByTestId('trade-score')).toHaveTextContent('Score 40%: kept 1 of 2 rules.');
    const items = within(screen.getByRole('list', { name: 'Rules of this trade' })).getAllByRole('listitem').map((li) => li.textContent);
    expect(items).toEqual([
      'Broke: Wait 15 minutes after a losing trade before the next entry — MSFT: entry 5 minutes after a losing close of AAPL; your cooldown is 15 minutes',
      'Kept: Trade long only',
      "Not checked: Lose at most 500 a day — no exchange rate EUR/USD to convert this day's positions",
    ]);
  });

  it('says how a trade open longer than a year was judged', async () => {
    const note = 'Open 515 days: judged on the day of its first entry (2023-01-03) only.';
    mockApi(
      route('GET', '/api/rules', () => ({ body: { items: rules } })),
      route('GET', '/api/rules/compliance/positions/p3', () => ({
        body: { trade: { ...trade('p3', 'AAPL', 100, null, []), rules: [{ ruleId: 'r2', type: 'allowedDirection', status: 'kept' }], note } },
      })),
    );
    renderScreen(<PositionCompliance positionId="p3" />);
    expect(await screen.findByText(note)).toBeInTheDocument();
  });

  it('says a draft has no trade yet', async () => {
    mockApi(
      route('GET', '/api/rules', () => ({ body: { items: rules } })),
      route('GET', '/api/rules/compliance/positions/p9', () => ({ body: { trade: null } })),
    );
    renderScreen(<PositionCompliance positionId="p9" />);
    expect(await screen.findByText(/No fills yet/)).toBeInTheDocument();
  });
});
