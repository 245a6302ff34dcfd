// A strategy's payoff chart: the price axis it spans and the points it draws.
import type { Schemas } from '../../api/client';
import { priceAxis } from '../calculator/strategy';

type Strategy = Schemas['Strategy'];
type Chart = Pick<Schemas['StrategyOutput'], 'payoff' | 'breakevens'>;

/**
 * payoffAxis is the price axis of a strategy's payoff chart: every strike of its legs (a rolled-out leg's too), its
 * shares' entry prices, the payoff's points and the breakevens, with room on each side (priceAxis).
 */
export function payoffAxis(s: Pick<Strategy, 'payoff' | 'breakevens' | 'legs'>): [number, number] {
  const legs = s.legs.map((l) => Number(l.assetType === 'option' ? l.optionStrike : l.assetType === 'stock' ? l.avgEntryPrice : null));
  return priceAxis([...legs, ...s.payoff.map((p) => Number(p.price)), ...s.breakevens.map(Number)]);
}

/**
 * slopeBeyond is how the P&L at expiry moves per 1 of the underlying above the highest strike, where the API gives no
 * point: 0 when both the max profit and the max loss are bounded; for an open strategy, its open calls and shares
 * (+ long, - short, by open quantity and multiplier); otherwise unknown (null).
 */
export function slopeBeyond(s: Pick<Strategy, 'status' | 'maxProfit' | 'maxLoss' | 'legs'>): number | null {
  if (s.maxProfit !== null && s.maxLoss !== null) return 0;
  if (s.status !== 'open') return null;
  let slope = 0;
  for (const l of s.legs) {
    if (l.status !== 'open' || !(l.assetType === 'stock' || (l.assetType === 'option' && l.optionRight === 'C'))) continue;
    slope += (l.side === 'long' ? 1 : -1) * Number(l.openQuantity) * l.multiplier;
  }
  return Number.isFinite(slope) ? slope : null;
}

/** valueAt is the piecewise-linear payoff at price, between two of its points (null outside them). */
function valueAt(points: Array<{ price: number; value: number }>, price: number): number | null {
  for (let i = 0; i + 1 < points.length; i++) {
    const a = points[i]!;
    const b = points[i + 1]!;
    if (a.price <= price && price <= b.price) return b.price === a.price ? a.value : a.value + ((b.value - a.value) * (price - a.price)) / (b.price - a.price);
  }
  return null;
}

/**
 * payoffChart is what the chart draws of a strategy's payoff: the API's points (0 and each strike), a point at each
 * breakeven (so its dot shows), and points at both ends of the axis so the line crosses the whole chart. Past the
 * highest strike the payoff is a straight line whose slope the points do not give: slopeBeyond's, or the line to a
 * breakeven beyond that strike; without either the line stops at the strike.
 */
export function payoffChart(s: Pick<Strategy, 'payoff' | 'breakevens' | 'status' | 'maxProfit' | 'maxLoss' | 'legs'>, [lo, hi]: [number, number]): Chart {
  const points = s.payoff.map((p) => ({ price: p.price, value: p.value }));
  const top = Math.max(0, ...points.map((p) => Number(p.price)));
  const num = () => points.map((p) => ({ price: Number(p.price), value: Number(p.value) }));
  /** add puts a point in price order; on an existing price a breakeven takes its place, so the dot shows. */
  const add = (price: string, value: string, breakeven: boolean) => {
    const at = points.findIndex((p) => Number(p.price) >= Number(price));
    if (at >= 0 && Number(points[at]!.price) === Number(price)) {
      if (breakeven) points[at] = { price, value: points[at]!.value };
    } else points.splice(at < 0 ? points.length : at, 0, { price, value });
  };
  for (const b of s.breakevens) add(b, '0', true);
  const left = valueAt(num(), lo);
  if (lo > 0 && left !== null) add(String(lo), String(round2(left)), false);
  const ps = num();
  const last = ps[ps.length - 1];
  const before = ps[ps.length - 2];
  if (last && last.price < hi) {
    let slope = slopeBeyond(s);
    // Every point at or past the highest strike is on the last straight line: two of them give its slope.
    if (slope === null && before && before.price >= top && last.price > before.price) slope = (last.value - before.value) / (last.price - before.price);
    if (slope !== null) add(String(hi), String(round2(last.value + slope * (hi - last.price))), false);
  }
  return { payoff: points, breakevens: s.breakevens };
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
