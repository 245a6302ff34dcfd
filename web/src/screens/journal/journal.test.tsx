import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import DayPage from './DayPage';
import JournalList from './JournalList';
import { mockApi, renderScreen, route, type Call } from '../../test/render';
import { shiftDay, validDay } from './days';

afterEach(() => vi.unstubAllGlobals());

const account = { id: 'a1', name: 'Swing', currency: 'USD', timezone: 'America/New_York', startingBalance: '0.0000', balance: '0.0000', defaultRiskPercent: null, brokerageId: null, archived: false, createdAt: '' };
const tag = { id: 't1', name: 'Choppy', category: 'general' };
const block = (netPnl: string, trades: number, byDay: unknown[] = []) => ({
  currency: 'USD',
  summary: { trades, wins: trades > 0 ? 1 : 0, losses: trades > 1 ? trades - 1 : 0, breakevens: 0, winRate: trades ? '50.00' : null, netPnl, fees: '2.0000', largestWin: '150.0000', largestLoss: '-50.0000' },
  byDay,
});
const position = { id: 'p1', accountId: 'a1', symbol: 'AAPL', side: 'long', status: 'closed', openedAt: '2025-01-06T15:00:00Z', closedAt: '2025-01-06T16:00:00Z', netPnl: '100.0000', tags: [] };
interface Day {
  date: string;
  plan: string;
  review: string;
  notes: string;
  mood: number | null;
  tags: Array<typeof tag>;
  updatedAt: string | null;
}
const emptyDay: Day = { date: '2025-01-06', plan: '', review: '', notes: '', mood: null, tags: [], updatedAt: null };

function dayApi(puts: unknown[], day: Day = emptyDay) {
  let stored = day;
  return mockApi(
    route('GET', '/api/accounts', () => ({ body: { items: [account], nextCursor: null } })),
    route('GET', '/api/tags', () => ({ body: { items: [tag], nextCursor: null } })),
    route('GET', '/api/performance', () => ({ body: { displayCurrency: 'USD', missingPairs: [], byCurrency: [block('100.0000', 2)], total: block('100.0000', 2) } })),
    (call: Call) => (call.method === 'GET' && call.path === '/api/positions' ? { body: { items: call.search.includes('status=closed') ? [position] : [], nextCursor: null } } : undefined),
    route('GET', '/api/journal/days/2025-01-06', () => ({ body: { day: stored, previousDate: '2025-01-03', nextDate: null } })),
    route('PUT', '/api/journal/days/2025-01-06', (call) => {
      puts.push(call.body);
      const b = call.body as { plan: string; review: string; notes: string; mood: number | null; tagIds: string[] };
      stored = { date: stored.date, plan: b.plan, review: b.review, notes: b.notes, mood: b.mood, tags: b.tagIds.map(() => tag), updatedAt: '2025-01-06T20:00:00Z' };
      return { body: { day: stored } };
    }),
  );
}

describe('DayPage', () => {
  it('shows the day’s figures and positions, links to its neighbours and to the positions list', async () => {
    dayApi([]);
    renderScreen(<DayPage />, { path: '/journal/:date', at: '/journal/2025-01-06' });
    const figures = await screen.findByLabelText('Figures in USD');
    expect(figures).toHaveTextContent('Net P&L$100.00');
    expect(figures).toHaveTextContent('Trades2 (1W / 1L / 0BE)');
    expect(await screen.findByRole('link', { name: 'AAPL' })).toHaveAttribute('href', '/positions/p1');
    expect(screen.getByRole('link', { name: 'Open them in the positions list' })).toHaveAttribute('href', '/positions?from=2025-01-06&to=2025-01-06&dateBy=closed');
    expect(screen.getByRole('link', { name: /^Previous day/ })).toHaveAttribute('href', '/journal/2025-01-03');
    // No later day in the journal: the next calendar day, to plan it.
    expect(screen.getByRole('link', { name: /^Next day/ })).toHaveAttribute('href', '/journal/2025-01-07');
  });

  it('saves the entry as it is typed, and asks before leaving with unsaved text', async () => {
    const puts: unknown[] = [];
    dayApi(puts);
    const { router } = renderScreen(<DayPage />, { path: '/journal/:date', at: '/journal/2025-01-06' });
    const user = userEvent.setup();
    const plan = await screen.findByLabelText('Pre-market plan');
    await user.type(plan, 'Only **A+** setups');
    expect(screen.getByText('Unsaved changes')).toBeInTheDocument();
    await screen.findByText('All changes saved.', undefined, { timeout: 3000 });
    expect(puts).toEqual([{ plan: 'Only **A+** setups', review: '', notes: '', mood: null, tagIds: [] }]);

    await user.selectOptions(screen.getByLabelText('Mood'), '4 · Good');
    await user.click(screen.getByRole('checkbox', { name: 'Choppy' }));
    await waitFor(() => expect(puts).toHaveLength(2), { timeout: 3000 });
    expect(puts[1]).toEqual({ plan: 'Only **A+** setups', review: '', notes: '', mood: 4, tagIds: ['t1'] });

    await user.type(screen.getByLabelText('Notes'), 'x');
    await router.navigate('/journal');
    const ask = await screen.findByRole('alertdialog', { name: 'Unsaved notes' });
    await user.click(within(ask).getByRole('button', { name: 'Stay and keep them' }));
    expect(router.state.location.pathname).toBe('/journal/2025-01-06');
    await screen.findByText('All changes saved.', undefined, { timeout: 3000 });
    expect(puts).toHaveLength(3);
    await router.navigate('/journal');
    expect(await screen.findByText('elsewhere')).toBeInTheDocument();
  });

  it('previews the Markdown safely: raw HTML shows as text', async () => {
    dayApi([], { ...emptyDay, notes: '## Lessons\n<img src=x onerror="window.pwned=1"> <script>window.pwned=1</script>', updatedAt: '2025-01-06T20:00:00Z' });
    renderScreen(<DayPage />, { path: '/journal/:date', at: '/journal/2025-01-06' });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Preview the notes' }));
    const view = screen.getByLabelText('Notes, as it reads');
    expect(within(view).getByRole('heading', { name: 'Lessons' })).toBeInTheDocument();
    expect(view).toHaveTextContent('<script>window.pwned=1</script>');
    expect(view.querySelector('img, script')).toBeNull();
    expect((window as { pwned?: number }).pwned).toBeUndefined();
  });

  it('says so when the address is not a day', () => {
    mockApi();
    renderScreen(<DayPage />, { path: '/journal/:date', at: '/journal/2025-02-30' });
    expect(screen.getByRole('alert')).toHaveTextContent('“2025-02-30” is not a day.');
  });
});

describe('JournalList', () => {
  const days = [
    { date: '2025-01-07', hasEntry: true, mood: 4, excerpt: 'Quiet day', tags: [tag], closedPositions: 0, openPositions: 1, matches: [] },
    { date: '2025-01-06', hasEntry: false, mood: null, excerpt: '', tags: [], closedPositions: 2, openPositions: 0, matches: [] },
  ];
  const found = [
    {
      ...days[1],
      matches: [{ field: 'position', positionId: 'p1', symbol: 'AAPL', snippet: 'Chased the gap up' }],
    },
  ];

  it('lists the days with their P&L and first line, and searches every note', async () => {
    const { calls } = mockApi(
      (call: Call) =>
        call.method === 'GET' && call.path === '/api/journal/days'
          ? { body: { items: new URLSearchParams(call.search).get('q') ? found : days, nextCursor: null } }
          : undefined,
      route('GET', '/api/performance', () => ({
        body: { displayCurrency: 'USD', missingPairs: [], byCurrency: [], total: block('100.0000', 2, [{ date: '2025-01-06', trades: 2, wins: 1, losses: 1, netPnl: '100.0000' }]) },
      })),
    );
    const { router } = renderScreen(<JournalList />, { path: '/journal', at: '/journal' });
    const rows = await screen.findAllByRole('row');
    await waitFor(() => expect(rows[2]).toHaveTextContent('$100.00'));
    expect(rows[1]).toHaveTextContent('Quiet day');
    expect(rows[1]).toHaveTextContent('Good');
    expect(rows[1]).toHaveTextContent('1 opened, still open');
    expect(rows[2]).toHaveTextContent('No entry yet');
    expect(within(rows[1]!).getByRole('link')).toHaveAttribute('href', '/journal/2025-01-07');
    expect(calls.find((c) => c.path === '/api/performance')?.search).toBe('?from=2025-01-06&to=2025-01-07&bySymbol=false');

    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Search your notes'), 'GAP');
    await waitFor(() => expect(router.state.location.search).toBe('?q=GAP'));
    const match = await screen.findByText((_, el) => el?.tagName === 'LI' && el.textContent === 'AAPL notes: Chased the gap up');
    expect(within(match).getByText('gap').tagName).toBe('MARK');
    expect(within(match).getByRole('link', { name: 'AAPL' })).toHaveAttribute('href', '/positions/p1');
    expect(screen.getAllByRole('row')).toHaveLength(2);
  });

  it('says so when nothing matches', async () => {
    mockApi(route('GET', '/api/journal/days', () => ({ body: { items: [], nextCursor: null } })));
    renderScreen(<JournalList />, { path: '/journal', at: '/journal?q=zebra' });
    expect(await screen.findByText('No day’s notes hold “zebra”. Try fewer or other words.')).toBeInTheDocument();
  });
});

describe('days', () => {
  it('shifts and checks days', () => {
    expect(shiftDay('2024-02-28', 1)).toBe('2024-02-29');
    expect(shiftDay('2025-01-01', -1)).toBe('2024-12-31');
    expect(validDay('2025-01-06')).toBe(true);
    for (const s of ['2025-02-30', '1899-12-31', '2200-01-01', '2025-1-6', 'x', '']) expect(validDay(s)).toBe(false);
  });
});
