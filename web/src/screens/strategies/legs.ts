// A strategy's legs as a trader reads them: in order of expiry, strike and
// right, each written out ("SPY Dec 18 2026 570 put") rather than as its OCC
// symbol; and which positions the leg picker may offer.
import type { Schemas } from '../../api/client';

type Leg = Pick<Schemas['PositionSummary'], 'symbol' | 'assetType' | 'underlying' | 'optionExpiry' | 'optionStrike' | 'optionRight'>;

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** expiryText writes a YYYY-MM-DD expiry as "Dec 18 2026" (the day as written, through no time zone). */
export function expiryText(day: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  const month = m ? months[Number(m[2]) - 1] : undefined;
  return m && month ? `${month} ${Number(m[3])} ${m[1]}` : day;
}

/** strikeText writes a strike without needless decimals: "570.0000" → "570", "512.50" → "512.5". */
export function strikeText(strike: string): string {
  const m = /^(-?\d+)(?:\.(\d*))?$/.exec(strike.trim());
  if (!m) return strike;
  const frac = (m[2] ?? '').replace(/0+$/, '');
  return frac ? `${m[1]}.${frac}` : m[1]!;
}

/**
 * legName is a leg as a trader reads it: an option as "SPY Dec 18 2026 570 put", shares as "SPY shares". A leg the
 * API gives without those fields (a future, an older record) keeps its symbol.
 */
export function legName(l: Leg): string {
  if (l.assetType === 'option' && l.underlying && l.optionExpiry && l.optionStrike && (l.optionRight === 'C' || l.optionRight === 'P')) {
    return `${l.underlying} ${expiryText(l.optionExpiry)} ${strikeText(l.optionStrike)} ${l.optionRight === 'C' ? 'call' : 'put'}`;
  }
  if (l.assetType === 'stock') return `${l.symbol} shares`;
  return l.symbol.replace(/\s+/g, ' ');
}

/** occText is a leg's symbol with the padding of an OCC symbol squeezed out, for a tooltip. */
export function occText(l: Pick<Leg, 'symbol'>): string {
  return l.symbol.replace(/\s+/g, ' ');
}

/**
 * compareLegs orders legs by expiry, then strike, then right (calls before puts); shares, which never expire, come
 * first. Ties keep their order (the sort is stable).
 */
export function compareLegs(a: Leg, b: Leg): number {
  const expiry = (l: Leg) => (l.assetType === 'option' ? (l.optionExpiry ?? '') : '');
  if (expiry(a) !== expiry(b)) return expiry(a) < expiry(b) ? -1 : 1;
  const strike = (l: Leg) => (l.optionStrike === null ? 0 : Number(l.optionStrike));
  if (strike(a) !== strike(b)) return strike(a) - strike(b);
  const right = (l: Leg) => l.optionRight ?? '';
  if (right(a) !== right(b)) return right(a) < right(b) ? -1 : 1;
  return 0;
}

/** sortLegs is a sorted copy of the legs. */
export function sortLegs<T extends Leg>(legs: readonly T[]): T[] {
  return [...legs].sort(compareLegs);
}

type Summary = Schemas['PositionSummary'];

/**
 * onUnderlying: the position is in the account and on the underlying (an option on it, or its shares), and is not a
 * future (a strategy holds options and their underlying's shares).
 */
export function onUnderlying(p: Summary, accountId: string, underlying: string): boolean {
  const root = underlying.trim().toUpperCase();
  return p.accountId === accountId && p.assetType !== 'future' && (p.underlying ?? p.symbol).toUpperCase() === root;
}

/**
 * legChoices are the positions a strategy's leg picker offers: its own legs (so each can be unticked), then the
 * account's open positions on its underlying that are in no other strategy, the list sorted as the legs are. The
 * list asked for is already narrowed by the API; this keeps anything else out.
 */
export function legChoices(s: Pick<Schemas['Strategy'], 'id' | 'accountId' | 'underlying' | 'legs'>, open: Summary[]): Summary[] {
  const own = new Set(s.legs.map((l) => l.id));
  const more = open.filter(
    (p) => !own.has(p.id) && p.status === 'open' && (!p.strategyId || p.strategyId === s.id) && onUnderlying(p, s.accountId, s.underlying ?? ''),
  );
  return sortLegs([...s.legs, ...more]);
}
