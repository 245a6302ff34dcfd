// The geometry of the trade's price chart: what is drawn for each bar, the
// price range shown and the day's context, as plain functions of the bars
// so they are tested without a canvas. Pixels need numbers; every figure a
// person reads comes from the API's decimal strings.
import type { Schemas } from '../../api/client';
import { dayKey } from '../../format';

type Bar = Schemas['PriceBar'];

/** Resolution is a bar length the bars route serves (its `resolution`). */
export type Resolution = Schemas['PositionBars']['resolution'];

/** resolutions are the bar lengths a trader can choose, finest first, with their length in seconds and their name. */
export const resolutions: ReadonlyArray<{ code: Resolution; seconds: number; name: string }> = [
  { code: '1', seconds: 60, name: '1-minute' },
  { code: '5', seconds: 300, name: '5-minute' },
  { code: '15', seconds: 900, name: '15-minute' },
  { code: '30', seconds: 1800, name: '30-minute' },
  { code: '60', seconds: 3600, name: 'hourly' },
  { code: 'D', seconds: 86400, name: 'daily' },
  { code: 'W', seconds: 604800, name: 'weekly' },
];

/** resolutionOf is a resolution code's entry; an unknown code (a newer API) is taken as daily bars named by their code. */
export function resolutionOf(code: string): { seconds: number; name: string } {
  return resolutions.find((r) => r.code === code) ?? { seconds: 86400, name: code };
}

/** Candle is what is drawn for one bar, in CSS pixels of the plot area: a body, a wick, and a volume bar. */
export interface Candle {
  /** The body's left edge and width (at least 1 px). */
  x: number;
  width: number;
  /** The body from open to close, top down; at least 1 px high, so an unchanged bar is a line. */
  top: number;
  height: number;
  /** The wick, from the high (top) to the low, through the body's middle. */
  wickX: number;
  wickTop: number;
  wickBottom: number;
  /** The close is at or above the open. */
  rising: boolean;
  /** The volume bar, standing on the band's bottom; 0 high without volume. */
  volumeTop: number;
  volumeHeight: number;
}

/** Scales turn a time (unix seconds) and a price into CSS pixels (uPlot's valToPos). */
export interface Scales {
  x: (seconds: number) => number;
  y: (price: number) => number;
}

/**
 * candleGeometry lays out each bar (of step seconds, starting at its time)
 * centred on its interval, so a fill's marker at its own time falls inside
 * its bar: the body 70 % of the bar's slot wide, and the volume scaled to
 * the largest of the bars within the band (bottom and height in pixels).
 */
export function candleGeometry(bars: readonly Bar[], step: number, scales: Scales, band: { bottom: number; height: number }): Candle[] {
  const maxVolume = Math.max(0, ...bars.map((b) => Number(b.volume) || 0));
  return bars.map((b) => {
    const t = Date.parse(b.time) / 1000;
    const slot = Math.abs(scales.x(t + step) - scales.x(t));
    const width = Math.max(1, Math.floor(slot * 0.7));
    const centre = scales.x(t + step / 2);
    const open = scales.y(Number(b.open));
    const close = scales.y(Number(b.close));
    const volume = maxVolume > 0 ? ((Number(b.volume) || 0) / maxVolume) * band.height : 0;
    return {
      x: centre - width / 2,
      width,
      top: Math.min(open, close),
      height: Math.max(1, Math.abs(open - close)),
      wickX: centre,
      wickTop: scales.y(Number(b.high)),
      wickBottom: scales.y(Number(b.low)),
      rising: Number(b.close) >= Number(b.open),
      volumeTop: band.bottom - volume,
      volumeHeight: volume,
    };
  });
}

/**
 * priceRange is the price axis: the bars' lows and highs and every level
 * drawn (fills, stop, target, the entry average; null and unreadable ones
 * left out), with 5 % of room above and below; a flat range gets 1 % of
 * its price.
 */
export function priceRange(bars: readonly Bar[], levels: ReadonlyArray<string | null | undefined>): [number, number] {
  const values = [...bars.flatMap((b) => [Number(b.low), Number(b.high)]), ...levels.filter((l): l is string => l != null && l !== '').map(Number)].filter(Number.isFinite);
  if (values.length === 0) return [0, 1];
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const pad = hi > lo ? (hi - lo) * 0.05 : Math.abs(hi) * 0.01 || 1;
  return [lo - pad, hi + pad];
}

/**
 * dayContext is the day's context of a trade opened at heldFrom, as the
 * bars show it in the trader's time zone: the prior close (the last bar
 * of an earlier day) and the day's open (the first bar of the day of the
 * entry); null where the bars do not reach.
 */
export function dayContext(bars: readonly Bar[], heldFrom: string, zone: string | undefined): { priorClose: Bar | null; dayOpen: Bar | null } {
  const day = dayKey(heldFrom, zone);
  let priorClose: Bar | null = null;
  let dayOpen: Bar | null = null;
  for (const b of bars) {
    const key = dayKey(b.time, zone);
    if (key < day) priorClose = b;
    else if (key === day && !dayOpen) dayOpen = b;
  }
  return { priorClose, dayOpen };
}
