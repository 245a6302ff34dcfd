import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Schemas } from '../../api/client';
import { TradeChart } from './TradeChart';
import { mockApi, renderScreen, route } from '../../test/render';

afterEach(() => vi.unstubAllGlobals());

const fill = (type: 'entry' | 'exit', price: string, quantity: string, filledAt: string, fees = '0.0000') => ({
  id: `${type}-${filledAt}`, type, price, quantity, fees, feeEstimated: false, filledAt, realizedPnl: null, reversal: null, tradeQuantity: null, tradeFees: null,
});

// Long 100 at 10 at 14:01:30, half out at 10.5 at 14:03, the rest at 10.8 at 14:04.
const position = {
  id: 'p1', symbol: 'AAPL', assetType: 'stock', side: 'long', status: 'closed', multiplier: 1, quoteCurrency: null,
  stopLoss: '9.5', targetPrice: '11', avgEntryPrice: '10', openedAt: '2025-06-02T14:01:30Z', closedAt: '2025-06-02T14:04:00Z',
  fills: [fill('entry', '10', '100', '2025-06-02T14:01:30Z', '1.0000'), fill('exit', '10.5', '50', '2025-06-02T14:03:00Z', '0.5000'), fill('exit', '10.8', '50', '2025-06-02T14:04:00Z', '0.5000')],
} as unknown as Schemas['Position'];

const bar = (minute: number, close: string) => ({ time: `2025-06-02T14:0${minute}:00Z`, open: '10', high: '11', low: '9.8', close, volume: '1000' });
const answer = (resolution: string, from: string) => ({
  symbol: 'AAPL', resolution, from, to: '2025-06-02T14:06:00Z', heldFrom: '2025-06-02T14:01:30Z', heldTo: '2025-06-02T14:04:00Z', maePrice: null, mfePrice: null,
  bars: [bar(0, '10.1'), bar(1, '10.3'), bar(2, '10.4'), bar(3, '10.6'), bar(4, '10.9'), bar(5, '11')],
});

function barsRoute() {
  return route('GET', '/api/positions/p1/bars', (c) => {
    const q = new URLSearchParams(c.search);
    if (q.get('resolution') === '1' && q.get('window') === 'session') {
      return { status: 400, body: { error: { code: 'VALIDATION_ERROR', message: 'resolution is too fine', details: [{ field: 'resolution', message: 'is too fine for this span: 2880 bars, at most 2000; choose 5 or coarser' }] } } };
    }
    return { body: answer(q.get('resolution') ?? '1', q.get('window') === 'session' ? '2025-06-01T00:00:00Z' : '2025-06-02T14:00:00Z') };
  });
}

describe('TradeChart', () => {
  it('switches the bar length and the span, and says in words when a bar length is too fine', async () => {
    const { calls } = mockApi(barsRoute());
    const asked = () => calls.filter((c) => c.path === '/api/positions/p1/bars').at(-1)?.search;
    const user = userEvent.setup();
    renderScreen(<TradeChart p={position} currency="USD" />);
    const length = screen.getByLabelText('Bar length');
    await screen.findByRole('option', { name: 'Fitting the trade (1-minute)' });
    expect(screen.getByText(/^1-minute candles, delayed/)).toBeInTheDocument();
    expect(screen.getByRole('img').getAttribute('aria-label')).toMatch(/^6 1-minute candles of AAPL from .*: opened at 10\.00, low 9\.80, high 11\.00, last close 11\.00\. Entry: bought 100 at 10\.00, .*; Exit: sold 50 at 10\.50, .* Lines: stop 9\.50, target 11\.00, average entry 10\.00\.$/);

    await user.selectOptions(length, '5');
    await screen.findByText(/^5-minute candles, delayed/);
    expect(asked()).toBe('?resolution=5');

    await user.click(screen.getByLabelText('Show the whole session (and the day before)'));
    await waitFor(() => expect(asked()).toBe('?resolution=5&window=session'));
    await user.selectOptions(length, '1');
    expect(await screen.findByRole('alert')).toHaveTextContent('The 1-minute bars of this span are more than the chart can draw: choose a longer bar length.');
    await user.selectOptions(length, '');
    await waitFor(() => expect(screen.queryByRole('alert')).toBeNull());
    expect(asked()).toBe('?window=session');
  });

  it('replays the trade bar by bar: the fills appear when they happened, with the running P&L', async () => {
    mockApi(barsRoute());
    const user = userEvent.setup();
    renderScreen(<TradeChart p={position} currency="USD" />);
    await user.click(await screen.findByRole('button', { name: 'Replay the trade' }));
    const frame = screen.getByTestId('replay-frame');
    expect(frame).toHaveTextContent(/^Bar 1 of 6, .*: close 10\.10\. Not in the trade yet\.$/);
    // The entry at 14:01:30 is in the 14:01 bar: closed at 10.30, 100 held, +$30.
    await user.click(screen.getByRole('button', { name: 'Step forward' }));
    expect(frame).toHaveTextContent('1 fill so far, 100 held. P&L $30.00 before fees, $29.00 after $1.00 in fees.');
    // The keyboard: right arrow to the half exit at 10.50 (+$25 realised, 50 held at 10.60: +$30).
    const replay = screen.getByRole('group', { name: 'Replay' });
    replay.focus();
    await user.keyboard('{ArrowRight}{ArrowRight}');
    expect(frame).toHaveTextContent(/^Bar 4 of 6, .*2 fills so far, 50 held\. P&L \$55\.00 before fees, \$53\.50 after \$1\.50 in fees\.$/);
    await user.keyboard('{ArrowLeft}');
    expect(frame).toHaveTextContent('Bar 3 of 6');
    // Space plays to the end: all out, (10.5 - 10) x 50 + (10.8 - 10) x 50 = $65.
    await user.keyboard(' ');
    expect(screen.getByRole('button', { name: 'Pause' })).toBeInTheDocument();
    await waitFor(() => expect(frame).toHaveTextContent(/^Bar 6 of 6, .*3 fills so far, 0 held\. P&L \$65\.00 before fees, \$63\.00 after \$2\.00 in fees\.$/), { timeout: 3000 });
    expect(screen.getByRole('button', { name: 'Play' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Start' }));
    expect(frame).toHaveTextContent('Bar 1 of 6');
    await user.click(screen.getByRole('button', { name: 'Show the whole chart' }));
    expect(screen.queryByTestId('replay-frame')).toBeNull();
  });

  it("shows the route's own words when there are no bars, or the provider failed", async () => {
    let answer = { status: 404, body: { error: { code: 'NOT_FOUND', message: 'no price bars for this symbol: upload a bars file (CSV) exported from your platform, or ask the administrator to set up a provider' } } };
    mockApi(route('GET', '/api/positions/p1/bars', () => answer));
    const { unmount } = renderScreen(<TradeChart p={position} currency="USD" />);
    expect(await screen.findByText('No price bars for this symbol: upload a bars file (CSV) exported from your platform, or ask the administrator to set up a provider.')).toBeInTheDocument();
    unmount();
    answer = { status: 502, body: { error: { code: 'BAD_GATEWAY', message: "Alpaca's request limit for this instance is used up for now; try again in a minute" } } };
    renderScreen(<TradeChart p={position} currency="USD" />);
    expect(await screen.findByText("Alpaca's request limit for this instance is used up for now; try again in a minute.")).toBeInTheDocument();
  });

  it('uploads a bars file as CSV, shows the refused line in the route\'s words, and deletes uploaded bars', async () => {
    let source = 'Alpaca';
    const { calls, fetchMock } = mockApi(
      route('GET', '/api/positions/p1/bars', () => ({ body: { ...answer('1', '2025-06-02T14:00:00Z'), source } })),
      route('PUT', '/api/positions/p1/bars', (c) =>
        String(c.body).includes('9,11')
          ? { status: 400, body: { error: { code: 'VALIDATION_ERROR', message: 'invalid', details: [{ field: 'file', message: 'line 2: the high 9 is below the low 11' }] } } }
          : { body: { upload: { symbol: 'AAPL', stepSeconds: 60, barCount: 1, firstAt: '2025-06-02T14:00:00Z', lastAt: '2025-06-02T14:00:00Z', uploadedAt: '2025-06-03T10:00:00Z' } } },
      ),
      route('DELETE', '/api/positions/p1/bars', () => ({ status: 204 })),
    );
    const user = userEvent.setup();
    renderScreen(<TradeChart p={position} currency="USD" />);
    const input = await screen.findByLabelText(/Upload price bars of AAPL/);
    expect(screen.queryByRole('button', { name: /Delete your uploaded bars/ })).toBeNull();

    await user.upload(input, new File(['time,open,high,low,close\n2025-06-02 14:00,10,9,11,10\n'], 'bad.csv', { type: 'text/csv' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Line 2: the high 9 is below the low 11.');

    source = 'uploaded';
    const good = 'time,open,high,low,close\n2025-06-02 14:00,10,11,9,10\n';
    await user.upload(input, new File([good], 'good.csv', { type: 'text/csv' }));
    expect(await screen.findByText(/1 bars of AAPL uploaded/)).toBeInTheDocument();
    const put = calls.filter((c) => c.method === 'PUT').at(-1);
    expect(put?.body).toBe(good);
    const sent = fetchMock.mock.calls.map(([req]) => req as Request).filter((r) => r.method === 'PUT').at(-1);
    expect(sent?.headers.get('Content-Type')).toBe('text/csv');
    expect(screen.queryByRole('alert')).toBeNull();

    // The chart is asked for again, now from the uploaded bars, and they can be deleted.
    await user.click(await screen.findByRole('button', { name: 'Delete your uploaded bars of AAPL' }));
    expect(await screen.findByText('Your uploaded bars of AAPL are deleted.')).toBeInTheDocument();
    expect(calls.some((c) => c.method === 'DELETE' && c.path === '/api/positions/p1/bars')).toBe(true);
  });
});
