import { describe, expect, it } from 'vitest';
import type { Schemas } from '../../api/client';
import { payoffSeries } from '../calculator/strategy';
import { payoffAxis, payoffChart, slopeBeyond } from './payoff';

type Strategy = Schemas['Strategy'];
type Leg = Schemas['PositionSummary'];

const option = (right: 'C' | 'P', strike: string, side: 'long' | 'short', more: Partial<Leg> = {}) =>
  ({ assetType: 'option', optionRight: right, optionStrike: strike, optionExpiry: '2027-06-18', side, status: 'open', openQuantity: '1', multiplier: 100, avgEntryPrice: '1', ...more }) as Leg;

// A short iron condor 90/95/105/110 for a credit of 2.00: the API's points are at 0 and each strike.
const condor = {
  status: 'open',
  maxProfit: '200.0000',
  maxLoss: '300.0000',
  breakevens: ['93', '107'],
  payoff: [
    { price: '0', value: '-300.0000' },
    { price: '90', value: '-300.0000' },
    { price: '95', value: '200.0000' },
    { price: '105', value: '200.0000' },
    { price: '110', value: '-300.0000' },
  ],
  legs: [option('P', '90', 'long'), option('P', '95', 'short'), option('C', '105', 'short'), option('C', '110', 'long')],
} satisfies Pick<Strategy, 'status' | 'maxProfit' | 'maxLoss' | 'breakevens' | 'payoff' | 'legs'>;

/** covers: the axis holds every price with at least a tenth of their span, and 3% of the price, on each side. */
function covers([lo, hi]: [number, number], prices: number[]) {
  const min = Math.min(...prices);
  const max = Math.max(...prices);
  const room = Math.max((max - min) / 10, max * 0.03);
  expect(lo).toBeLessThanOrEqual(min - room);
  expect(hi).toBeGreaterThanOrEqual(max + room);
}

describe('the payoff chart of a strategy', () => {
  it('spans every strike and breakeven with room on both sides', () => {
    const axis = payoffAxis(condor);
    covers(axis, [90, 95, 105, 110, 93, 107]);
    expect(axis).toEqual([84.5, 115.5]); // 5% of 110 beats 15% of the span of 20
    // A wide structure: 15% of its span.
    covers(payoffAxis({ ...condor, payoff: [{ price: '0', value: '0' }, { price: '50', value: '0' }, { price: '150', value: '0' }], breakevens: [], legs: [] }), [50, 150]);
  });

  it("spans the strikes of every leg, a rolled-out leg's too, and the shares' entry price", () => {
    // A short put at 70, rolled up to 95: its closed leg is not in the payoff, but it is one of the legs.
    const rolled = { ...condor, legs: [...condor.legs, option('P', '70', 'short', { status: 'closed', openQuantity: '0' })] };
    covers(payoffAxis(rolled), [70, 110]);
    // A covered call: 100 shares bought at 50, a call sold at 55 for 2.00.
    const shares = { ...option('C', '55', 'long'), assetType: 'stock', optionRight: null, optionStrike: null, optionExpiry: null, avgEntryPrice: '50' } as Leg;
    const covered = {
      payoff: [{ price: '0', value: '-4800' }, { price: '55', value: '700' }],
      breakevens: ['48'],
      legs: [shares, option('C', '55', 'short', { avgEntryPrice: '2' })],
    };
    covers(payoffAxis(covered), [48, 55]);
    expect(payoffAxis({ payoff: [], breakevens: [], legs: [] })).toEqual([0, 100]);
  });

  it('draws the line across the whole axis, with a dot at each breakeven', () => {
    const axis = payoffAxis(condor);
    const chart = payoffChart(condor, axis);
    expect(chart.payoff).toEqual([
      { price: '0', value: '-300.0000' },
      { price: '84.5', value: '-300' },
      { price: '90', value: '-300.0000' },
      { price: '93', value: '0' },
      { price: '95', value: '200.0000' },
      { price: '105', value: '200.0000' },
      { price: '107', value: '0' },
      { price: '110', value: '-300.0000' },
      { price: '115.5', value: '-300' }, // flat past the long call: both the profit and the loss are bounded
    ]);
    expect(payoffSeries(chart)[3]).toEqual([null, null, null, 0, null, null, 0, null, null]);
  });

  it('follows the open calls and shares past the highest strike when the payoff is unbounded', () => {
    // A long call at 100 bought for 3.00, twice: up 200 for each 1 above the strike.
    const call: Pick<Strategy, 'status' | 'maxProfit' | 'maxLoss' | 'breakevens' | 'payoff' | 'legs'> = {
      status: 'open',
      maxProfit: null,
      maxLoss: '600.0000',
      breakevens: ['103'],
      payoff: [{ price: '0', value: '-600.0000' }, { price: '100', value: '-600.0000' }],
      legs: [option('C', '100', 'long', { openQuantity: '2', avgEntryPrice: '3' })],
    };
    expect(slopeBeyond(call)).toBe(200);
    const [lo, hi] = payoffAxis(call);
    const points = payoffChart(call, [lo, hi]).payoff ?? [];
    expect(points.at(-1)).toEqual({ price: String(hi), value: String(Math.round((hi - 100) * 200 - 600)) });
    // Closed, its legs no longer tell the slope: the line from the strike to the breakeven beyond it does.
    const closed = { ...call, status: 'closed' as const, legs: [{ ...call.legs[0]!, status: 'closed' as const, openQuantity: '0' }] };
    expect(slopeBeyond(closed)).toBeNull();
    expect(payoffChart(closed, [lo, hi]).payoff?.at(-1)).toEqual({ price: String(hi), value: String(Math.round((hi - 100) * 200 - 600)) });
    // Without a breakeven past the strike the line stops there rather than guess.
    const nothing = { ...closed, breakevens: [] };
    expect(payoffChart(nothing, [lo, hi]).payoff?.at(-1)).toEqual({ price: '100', value: '-600.0000' });
  });
});
