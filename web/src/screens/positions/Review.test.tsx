import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Schemas } from '../../api/client';
import { Review, excursionErrors, formatHold } from './Review';
import { mockApi, renderScreen, route } from '../../test/render';

afterEach(() => vi.unstubAllGlobals());

const config = (quoteLookup: boolean) =>
  route('GET', '/api/config', () => ({ body: { quoteLookup, billing: false, proPlan: false, email: false, imageStorage: false, registrationOpen: true } }));

const fill = (type: 'entry' | 'exit', price: string, filledAt: string) => ({
  id: `${type}-${filledAt}`, type, price, quantity: '100', fees: '0.0000', feeEstimated: false, filledAt, realizedPnl: null, reversal: null, tradeQuantity: null, tradeFees: null,
});

const position = {
  id: 'p1', accountId: 'a1', symbol: 'AAPL', assetType: 'stock', underlying: null, optionExpiry: null, optionRight: null, optionStrike: null, contractMonth: null,
  multiplier: 1, side: 'long', status: 'open', stopLoss: '9', targetPrice: '12', openedAt: '2025-06-02T14:07:00Z', closedAt: null,
  entryQuantity: '100', exitQuantity: '0', openQuantity: '100', avgEntryPrice: '10', avgExitPrice: null, grossPnl: '0.0000', fees: '0.0000', netPnl: '0.0000',
  initialRisk: '100.0000', rMultiple: null, reversalOf: null, tags: [], createdAt: '', updatedAt: '', notes: '', imageCount: 0, reversedInto: null,
  fills: [fill('entry', '10', '2025-06-02T14:07:00Z')],
  maePrice: '9.4', mfePrice: null,
  review: { holdSeconds: 9000, plannedRR: '2.00', mae: { price: '9.4', amount: '-60.0000', r: '-0.60' }, mfe: null },
} as unknown as Schemas['Position'];

describe('formatHold', () => {
  it('writes whole units', () => {
    expect(formatHold(null)).toBe('—');
    expect(formatHold(30)).toBe('under a minute');
    expect(formatHold(45 * 60)).toBe('45 min');
    expect(formatHold(9000)).toBe('2 h 30 min');
    expect(formatHold(3 * 86400 + 4 * 3600 + 59)).toBe('3 d 4 h');
  });
});

describe('Review', () => {
  it('shows the figures the API computed and the unrealised P&L, and offers no copy of the measured excursions as typed ones', async () => {
    mockApi(
      config(true),
      route('GET', '/api/positions/p1/bars', () => ({
        body: {
          symbol: 'AAPL', resolution: '1', from: '2025-06-02T13:47:00Z', to: '2025-06-02T14:32:00Z', heldFrom: '2025-06-02T14:07:00Z', heldTo: '2025-06-02T16:37:00Z',
          bars: [{ time: '2025-06-02T14:07:00Z', open: '10', high: '11.35', low: '9.4', close: '10.3', volume: '5' }], maePrice: '9.4', mfePrice: '11.35',
        },
      })),
      route('GET', '/api/positions/p1/unrealized', () => ({ body: { quote: { symbol: 'AAPL', price: '10.5', currency: 'USD', asOf: '2025-06-02T16:00:00Z', delayed: true }, unrealizedPnl: '50.0000' } })),
      route('PATCH', '/api/positions/p1', () => ({ body: { position, changes: { opened: [], closed: [], reopened: [], removed: [] } } })),
    );
    renderScreen(<Review p={position} currency="USD" />);
    expect(screen.getByText('2 h 30 min so far')).toBeInTheDocument();
    expect(screen.getByText('2.00 : 1')).toBeInTheDocument();
    expect(await screen.findByTestId('unrealized')).toHaveTextContent('$50.00 at 10.50');
    expect(screen.getByText('-$60.00')).toBeInTheDocument();
    expect(await screen.findByRole('img', { name: /candles of AAPL/ })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Use these' })).toBeNull();
  });

  it('says where a measured excursion came from, and nothing for a typed one', async () => {
    mockApi(config(false));
    const measured = {
      ...position,
      review: {
        ...position.review,
        mae: { price: '9.4', amount: '-60.0000', r: '-0.60', source: 'typed' },
        mfe: { price: '11.35', amount: '135.0000', r: '1.35', source: 'uploaded' },
      },
    } as unknown as Schemas['Position'];
    renderScreen(<Review p={measured} currency="USD" />);
    expect(screen.getByText(/measured from your uploaded bars/)).toHaveTextContent('11.35 · $135.00 · 1.35R · measured from your uploaded bars');
    expect(screen.queryAllByText(/measured from/)).toHaveLength(1);
  });

  it('charts the trade without a quote provider (uploaded bars or another provider), asks no quote, and names a refused MAE as the form does', async () => {
    const { calls } = mockApi(
      config(false),
      route('GET', '/api/positions/p1/bars', () => ({
        body: {
          symbol: 'AAPL', resolution: '1', from: '2025-06-02T13:47:00Z', to: '2025-06-02T14:32:00Z', heldFrom: '2025-06-02T14:07:00Z', heldTo: '2025-06-02T16:37:00Z',
          bars: [{ time: '2025-06-02T14:07:00Z', open: '10', high: '11.35', low: '9.4', close: '10.3', volume: '5' }], maePrice: '9.4', mfePrice: '11.35', firstHit: null, source: 'uploaded',
        },
      })),
      route('PATCH', '/api/positions/p1', () => ({
        status: 400,
        body: { error: { code: 'VALIDATION_ERROR', message: 'invalid', details: [{ field: 'maePrice', message: 'the adverse excursion of a long is at or below its lowest fill price (10)' }] } },
      })),
    );
    const user = userEvent.setup();
    renderScreen(<Review p={position} currency="USD" />);
    const mae = screen.getByLabelText('MAE price (worst price against the trade)');
    await user.clear(mae);
    await user.type(mae, '9');
    await user.click(screen.getByRole('button', { name: 'Save MAE and MFE' }));
    expect(await screen.findByText(/adverse excursion/i, { selector: '.field *' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Price around the trade' })).toBeInTheDocument();
    expect(calls.filter((c) => c.path.endsWith('/bars'))).toHaveLength(1);
    expect(calls.some((c) => c.path.endsWith('/unrealized'))).toBe(false);
  });

  it('refuses, before sending, an MAE above a long\'s lowest fill and an MFE below its highest, in the form\'s words', async () => {
    const { calls } = mockApi(config(false));
    const user = userEvent.setup();
    const closed = { ...position, fills: [fill('entry', '10', '2025-06-02T14:07:00Z'), fill('exit', '11', '2025-06-02T15:07:00Z')] } as Schemas['Position'];
    renderScreen(<Review p={closed} currency="USD" />);
    const mae = screen.getByLabelText('MAE price (worst price against the trade)');
    await user.clear(mae);
    await user.type(mae, '10.5');
    await user.type(screen.getByLabelText('MFE price (best price for the trade)'), '10.8');
    await user.click(screen.getByRole('button', { name: 'Save MAE and MFE' }));
    expect(await screen.findByText(/worst price of a long is at or below its lowest fill, 10\.00/)).toBeInTheDocument();
    expect(screen.getByText(/best price of a long is at or above its highest fill, 11\.00/)).toBeInTheDocument();
    expect(calls.some((c) => c.method === 'PATCH')).toBe(false);
  });
});

describe('excursionErrors', () => {
  const fills = [fill('entry', '48', 't1'), fill('exit', '52', 't2')] as Schemas['Fill'][];
  it('holds the excursions beyond every fill, as the API does', () => {
    expect(excursionErrors('long', fills, '47', '55')).toEqual({});
    expect(excursionErrors('long', fills, '48', '52')).toEqual({});
    expect(Object.keys(excursionErrors('long', fills, '49', ''))).toEqual(['mae']);
    expect(Object.keys(excursionErrors('long', fills, '', '51'))).toEqual(['mfe']);
    expect(excursionErrors('short', fills, '53', '45')).toEqual({});
    expect(Object.keys(excursionErrors('short', fills, '51', '47'))).toEqual(['mae']);
    expect(Object.keys(excursionErrors('short', fills, '53', '48.5'))).toEqual(['mfe']);
    expect(Object.keys(excursionErrors('long', [], '60', '55'))).toEqual(['mfe']);
    expect(excursionErrors('long', fills, 'abc', '')).toEqual({}); // the server names what is not a number
  });
});
