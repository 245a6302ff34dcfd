import { useId } from 'react';
import { formatDay, formatMoney } from '../../format';
import type { Status } from './propfirm';

type Day = Status['days'][number];

/** The drawing's size in its own units; the SVG scales to the card's width. */
const width = 600;
const height = 200;
const pad = 8;

/** A line of the chart: its name in the key, its class (colour and dash) and each day's value (null: none that day). */
interface Line {
  name: string;
  className: string;
  values: Array<number | null>;
}

/**
 * floorsLines are the chart's lines: the balance at each day's close, the
 * maximum drawdown's floor and the daily loss limit's floor; a floor the
 * plan does not have is left out.
 */
export function floorsLines(days: Day[]): Line[] {
  const num = (v: string | null) => (v === null ? null : Number(v));
  const lines: Line[] = [
    { name: 'Balance at the close', className: 'floors-balance', values: days.map((d) => num(d.endBalance)) },
    { name: 'Drawdown floor', className: 'floors-drawdown', values: days.map((d) => num(d.drawdownFloor)) },
    { name: 'Daily loss floor', className: 'floors-daily', values: days.map((d) => num(d.dailyLossFloor)) },
  ];
  return lines.filter((l) => l.values.some((v) => v !== null));
}

/** linePath is a line's SVG path: its days joined, a day without a value breaking it. */
export function linePath(values: Array<number | null>, lo: number, hi: number): string {
  const x = (i: number) => pad + (values.length === 1 ? (width - 2 * pad) / 2 : (i * (width - 2 * pad)) / (values.length - 1));
  const y = (v: number) => pad + ((hi - v) * (height - 2 * pad)) / (hi - lo || 1);
  let d = '';
  let joined = false;
  values.forEach((v, i) => {
    if (v === null) {
      joined = false;
      return;
    }
    d += `${joined ? 'L' : 'M'}${x(i).toFixed(1)} ${y(v).toFixed(1)} `;
    joined = true;
  });
  return d.trim();
}

/**
 * closest is the day the balance closed nearest above (or furthest below)
 * the drawdown floor, and by how much; null without the floor.
 */
export function closest(days: Day[]): { date: string; room: number } | null {
  let best: { date: string; room: number } | null = null;
  for (const d of days) {
    if (d.drawdownFloor === null) continue;
    const room = Number(d.endBalance) - Number(d.drawdownFloor);
    if (!best || room < best.room) best = { date: d.date, room };
  }
  return best;
}

/**
 * FloorsChart draws the balance at each day's close against the day's
 * floors, in plain SVG. Its text alternative says what it shows and the
 * day the balance came closest to the drawdown floor; the table of the
 * days beside it has every figure.
 */
export function FloorsChart({ days, currency }: { days: Day[]; currency: string }) {
  const id = useId();
  const lines = floorsLines(days);
  const first = days[0];
  const last = days[days.length - 1];
  if (!first || !last || days.length < 2) return null;
  const all = lines.flatMap((l) => l.values.filter((v): v is number => v !== null));
  const lo = Math.min(...all);
  const hi = Math.max(...all);
  const near = closest(days);
  const summary =
    `Balance at each day's close against the floors, ${days.length} trading days from ${formatDay(first.date)} to ${formatDay(last.date)}, ` +
    `from ${formatMoney(String(lo), currency)} to ${formatMoney(String(hi), currency)}.` +
    (near
      ? near.room < 0
        ? ` The close of ${formatDay(near.date)} was ${formatMoney(String(-near.room), currency)} below the drawdown floor.`
        : ` Closest to the drawdown floor: ${formatMoney(String(near.room), currency)} above it on ${formatDay(near.date)}.`
      : '');
  return (
    <figure className="floors-chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-labelledby={`${id}-title`} aria-describedby={`${id}-summary`} preserveAspectRatio="none">
        <title id={`${id}-title`}>Balance against the floors</title>
        {lines.map((l) => (
          <path key={l.className} className={l.className} d={linePath(l.values, lo, hi)} fill="none" vectorEffect="non-scaling-stroke" data-testid={l.className} />
        ))}
      </svg>
      <figcaption>
        <ul className="chart-key">
          {lines.map((l) => (
            <li key={l.className}>
              <span className={`key-line ${l.className}`} aria-hidden="true" />
              {l.name}
            </li>
          ))}
        </ul>
        <p className="hint" id={`${id}-summary`}>
          {summary}
        </p>
      </figcaption>
    </figure>
  );
}
