// A strategy's estimate at its first expiry: the strategy page asks the
// options strategy calculator (POST /api/calculator/strategy) about the
// legs it holds, at the implied volatility the trader gives.
import type { Schemas } from '../../api/client';
import { normalizeDecimal } from '../../numbers';
import { severalExpiries } from '../calculator/strategy';

type LegInput = Schemas['StrategyInput']['legs'][number];

/** The calculator's places for a price: an average entry may have 10. */
const pricePlaces = 8;

/** cutPlaces cuts a plain decimal string to places fraction digits (a hundred-millionth of a share is no matter here). */
function cutPlaces(d: string, places: number): string {
  const m = /^(-?\d+)(?:\.(\d*))?$/.exec(d);
  if (!m) return d;
  const frac = (m[2] ?? '').slice(0, places).replace(/0+$/, '');
  return frac ? `${m[1]}.${frac}` : m[1]!;
}

/**
 * estimateLegs are the strategy's open legs as the calculator takes them: options by right, strike and expiry at
 * their open quantity and average entry price (and their multiplier when not 100), stock as shares. null when there
 * is nothing to estimate: no open legs on two expiries or more, a leg without an entry price, a future (the calculator
 * has no futures), or stock with a multiplier other than 1.
 */
export function estimateLegs(legs: Array<Schemas['PositionSummary']>): LegInput[] | null {
  const out: LegInput[] = [];
  for (const l of legs) {
    if (l.status !== 'open') continue;
    if (!l.avgEntryPrice) return null;
    const price = cutPlaces(l.avgEntryPrice, pricePlaces);
    if (l.assetType === 'stock' && l.multiplier === 1) {
      out.push({ type: 'shares', side: l.side, quantity: l.openQuantity, price });
    } else if (l.assetType === 'option' && l.optionRight && l.optionStrike && l.optionExpiry) {
      out.push({
        type: l.optionRight === 'C' ? 'call' : 'put',
        strike: l.optionStrike,
        expiry: l.optionExpiry,
        side: l.side,
        quantity: l.openQuantity,
        price,
        ...(l.multiplier === 100 ? {} : { multiplier: String(l.multiplier) }),
      });
    } else {
      return null;
    }
  }
  const expiries = out.map((l) => ({ type: l.type ?? 'shares', expiry: l.expiry ?? '' }));
  return severalExpiries(expiries) ? out : null;
}

/** estimateRequest is the calculator's body for those legs at the typed volatility; null while it is blank. */
export function estimateRequest(legs: LegInput[], volatility: string): Schemas['StrategyInput'] | null {
  const v = normalizeDecimal(volatility);
  return v ? { legs, volatility: v } : null;
}
