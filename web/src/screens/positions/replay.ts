// Replaying a trade bar by bar: where the replay is (a pure reducer the
// controls and the timer dispatch to), and what the trade looked like at
// that bar (the fills done by its end, and the running P&L at its close),
// in exact decimal arithmetic on the API's strings.
import type { Schemas } from '../../api/client';
import { multiplyDecimals, sumDecimals } from '../../decimal';

type Bar = Schemas['PriceBar'];
type Fill = Schemas['Fill'];

/** speeds are the replay's playing speeds, in bars a second. */
export const speeds = [1, 2, 5, 10] as const;

export interface ReplayState {
  /** The bar shown last, 0 to last. */
  index: number;
  /** The index of the last bar (-1 without bars). */
  last: number;
  playing: boolean;
  /** Bars a second while playing. */
  speed: number;
}

export type ReplayAction =
  | { type: 'start' }
  | { type: 'back' }
  | { type: 'forward' }
  | { type: 'toggle' }
  | { type: 'tick' }
  | { type: 'speed'; speed: number };

/** replayStart is a replay of bars bars at its first bar, paused. */
export function replayStart(bars: number, speed = 2): ReplayState {
  return { index: 0, last: bars - 1, playing: false, speed };
}

/**
 * replayReducer moves the replay: start goes back to the first bar; a
 * step back or forward moves one bar within the bars and pauses; toggle
 * plays or pauses (playing at the last bar starts over); a tick of the
 * timer moves one bar while playing and pauses at the last.
 */
export function replayReducer(s: ReplayState, a: ReplayAction): ReplayState {
  switch (a.type) {
    case 'start':
      return { ...s, index: 0, playing: false };
    case 'back':
      return { ...s, index: Math.max(0, s.index - 1), playing: false };
    case 'forward':
      return { ...s, index: Math.min(s.last, s.index + 1), playing: false };
    case 'toggle':
      if (s.playing) return { ...s, playing: false };
      return s.last <= 0 ? s : { ...s, playing: true, index: s.index >= s.last ? 0 : s.index };
    case 'tick': {
      if (!s.playing) return s;
      const index = Math.min(s.last, s.index + 1);
      return { ...s, index, playing: index < s.last };
    }
    case 'speed':
      return { ...s, speed: a.speed };
  }
}

/** Frame is the trade at the close of one bar. */
export interface Frame {
  bar: Bar;
  /** The fills done by the bar's end, in time order. */
  fills: Fill[];
  /** What is held after them (entries less exits). */
  openQuantity: string;
  /**
   * The P&L of the fills so far at the bar's close, before fees, in the
   * price's currency: the exits' value, plus what is open at the close,
   * less the entries' cost, times the multiplier, negated for a short
   * (realised and open together, whatever the cost method); null before
   * the first fill.
   */
  pnl: string | null;
  /** The fees of the fills so far. */
  fees: string;
  /** pnl less fees (null with pnl): meaningful where the fees are in the price's currency. */
  net: string | null;
}

const negate = (d: string) => multiplyDecimals(d, '-1') ?? '0';

/** multiplierText writes the API's multiplier (a JSON number, up to 8 places) as a decimal string. */
export function multiplierText(m: number): string {
  return m.toFixed(8).replace(/\.?0+$/, '');
}

/**
 * replayFrame is the trade at the close of bars[index] (of step seconds): a
 * fill counts once its time is before the bar's end, so it appears on the
 * bar it happened in.
 */
export function replayFrame(
  bars: readonly Bar[],
  step: number,
  index: number,
  p: Pick<Schemas['Position'], 'fills' | 'side' | 'multiplier'>,
): Frame | null {
  const bar = bars[index];
  if (!bar) return null;
  const end = Date.parse(bar.time) + step * 1000;
  const fills = p.fills.filter((f) => Date.parse(f.filledAt) < end);
  const value = (type: Fill['type']) => fills.filter((f) => f.type === type).map((f) => multiplyDecimals(f.price, f.quantity) ?? '0');
  const quantity = (type: Fill['type']) => fills.filter((f) => f.type === type).map((f) => f.quantity);
  const openQuantity = sumDecimals([...quantity('entry'), ...quantity('exit').map(negate)]);
  const fees = sumDecimals(fills.map((f) => f.fees));
  if (fills.length === 0) return { bar, fills, openQuantity, pnl: null, fees, net: null };
  const points = sumDecimals([...value('exit'), multiplyDecimals(openQuantity, bar.close) ?? '0', ...value('entry').map(negate)]);
  const pnl = multiplyDecimals(points, p.side === 'short' ? negate(multiplierText(p.multiplier)) : multiplierText(p.multiplier)) ?? '0';
  return { bar, fills, openQuantity, pnl, fees, net: sumDecimals([pnl, negate(fees)]) };
}
