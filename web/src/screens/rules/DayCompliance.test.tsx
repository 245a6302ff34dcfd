import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import { mockApi, renderScreen, route } from '../../test/render';
import { DayCompliance } from './DayCompliance';
import { RuleMarker } from './RuleMarker';

const rule = { id: 'r1', type: 'maxTradesPerDay', params: { count: 1 }, enabled: true, accountId: null, createdAt: '2024-05-01T00:00:00Z', updatedAt: '2024-05-01T00:00:00Z' };
const compliance = {
  from: '2024-05-01',
  to: '2024-05-31',
  daysKept: 1,
  daysBroken: 1,
  days: [
    {
      date: '2024-05-02',
      score: 0,
      kept: 0,
      broken: 1,
      rules: [{ ruleId: 'r1', type: 'maxTradesPerDay', status: 'broken' }],
      violations: [
        { ruleId: 'r1', type: 'maxTradesPerDay', positionIds: ['p2'], strategyId: null, message: 'MSFT: 2nd trade of the day; your limit is 1' },
        { ruleId: 'r1', type: 'maxTradesPerDay', positionIds: ['l1', 'l2'], strategyId: 's1', message: 'SPY bull call vertical (debit): 3rd trade of the day; your limit is 1' },
      ],
    },
    { date: '2024-05-03', score: 100, kept: 1, broken: 0, rules: [{ ruleId: 'r1', type: 'maxTradesPerDay', status: 'kept' }], violations: [] },
  ],
  breakdown: { displayCurrency: 'USD', missingPairs: [], byCurrency: [], total: null },
};

function api() {
  return mockApi(
    route('GET', '/api/rules', () => ({ body: { items: [rule] } })),
    route('GET', '/api/rules/compliance', () => ({ body: compliance })),
  );
}

describe('DayCompliance', () => {
  it('shows a broken day\'s score and its violations in words, asking for the whole month once', async () => {
    const { calls } = api();
    renderScreen(
      <>
        <DayCompliance date="2024-05-02" />
        <RuleMarker date="2024-05-02" />
        <RuleMarker date="2024-05-03" />
      </>,
    );
    expect(await screen.findByText(/MSFT: 2nd trade of the day; your limit is 1/, { selector: 'li' })).toBeInTheDocument();
    expect(screen.getByTestId('day-score')).toHaveTextContent('Score 0%: kept 0 of 1 rule.');
    expect(screen.getByRole('link', { name: 'Open the trade' })).toHaveAttribute('href', '/positions/p2');
    // A strategy is one trade: its violation opens the strategy, not one of its legs.
    expect(screen.getByRole('link', { name: 'Open the strategy' })).toHaveAttribute('href', '/strategies/s1');
    // One broken rule is one line with its count, its trades under it.
    const broken = screen.getByRole('list', { name: 'Rules broken' });
    expect(broken.children).toHaveLength(1);
    expect(broken.children[0]?.firstElementChild).toHaveTextContent(/^Maximum trades per day, broken by 2 trades$/);
    expect(screen.getByRole('list', { name: 'Trades that broke Maximum trades per day' }).children).toHaveLength(2);
    expect(screen.getByTestId('rule-marker-2024-05-02')).toHaveAttribute(
      'title',
      'Broke 1 rule: Maximum trades per day, broken by 2 trades (MSFT: 2nd trade of the day; your limit is 1; SPY bull call vertical (debit): 3rd trade of the day; your limit is 1)',
    );
    expect(screen.queryByTestId('rule-marker-2024-05-03')).toBeNull();
    expect(calls.filter((c) => c.path === '/api/rules/compliance').map((c) => c.search)).toEqual(['?from=2024-05-01&to=2024-05-31']);
  });
  it('says when the day kept every rule, and when there was no trade', async () => {
    api();
    renderScreen(
      <>
        <DayCompliance date="2024-05-03" />
        <DayCompliance date="2024-05-04" />
      </>,
    );
    expect(await screen.findByText(/Score/)).toHaveTextContent('Score 100%: kept 1 of 1 rule.');
    expect(screen.getByText('No trades on this day.')).toBeInTheDocument();
  });
  it('asks nothing of a user without rules, and says where to set them', async () => {
    const { calls } = mockApi(route('GET', '/api/rules', () => ({ body: { items: [] } })));
    renderScreen(
      <>
        <DayCompliance date="2024-05-02" />
        <RuleMarker date="2024-05-02" />
      </>,
    );
    expect(await screen.findByRole('link', { name: 'Set your rules' })).toHaveAttribute('href', '/rules');
    expect(calls.filter((c) => c.path === '/api/rules/compliance')).toEqual([]);
  });
});
