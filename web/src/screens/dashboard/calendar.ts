// The P&L calendar's month grid, computed on calendar days (no time zone:
// the API's days are already trading days in each account's zone).
import { sumDecimals } from '../../decimal';

export interface DayCell {
  date: string; // YYYY-MM-DD
  day: number;
}

/** monthGrid lays a month out in weeks starting on Monday; null cells pad the first and last week. */
export function monthGrid(month: string): Array<DayCell | null> {
  const m = /^(\d{4})-(\d{2})$/.exec(month);
  if (!m) return [];
  const year = Number(m[1]);
  const mon = Number(m[2]) - 1;
  const first = new Date(Date.UTC(year, mon, 1));
  const days = new Date(Date.UTC(year, mon + 1, 0)).getUTCDate();
  const lead = (first.getUTCDay() + 6) % 7; // Monday = 0
  const cells: Array<DayCell | null> = Array.from({ length: lead }, () => null);
  for (let d = 1; d <= days; d++) cells.push({ date: `${month}-${String(d).padStart(2, '0')}`, day: d });
  while (cells.length % 7 !== 0) cells.push(null);
  return cells;
}

/** shiftMonth moves a YYYY-MM month by delta months. */
export function shiftMonth(month: string, delta: number): string {
  const m = /^(\d{4})-(\d{2})$/.exec(month);
  if (!m) return month;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1 + delta, 1));
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** monthLabel is "May 2024" for "2024-05". */
export function monthLabel(month: string): string {
  const m = /^(\d{4})-(\d{2})$/.exec(month);
  if (!m) return month;
  return new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1)));
}

/** addDays moves a YYYY-MM-DD day by delta calendar days. */
export function addDays(day: string, delta: number): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return day;
  return new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + delta)).toISOString().slice(0, 10);
}

export interface Total {
  netPnl: string;
  trades: number;
}

/** totalOf sums the days of a set of dates exactly; null when none of them had a close. */
function totalOf(days: ReadonlyMap<string, Total>, dates: string[]): Total | null {
  const hit = dates.map((d) => days.get(d)).filter((d): d is Total => d !== undefined);
  if (hit.length === 0) return null;
  return { netPnl: sumDecimals(hit.map((d) => d.netPnl)), trades: hit.reduce((n, d) => n + d.trades, 0) };
}

/**
 * weekTotals is the total of each row of monthGrid(month): the whole
 * Monday-to-Sunday week, days of the months either side included.
 */
export function weekTotals(month: string, days: ReadonlyMap<string, Total>): Array<{ monday: string; total: Total | null }> {
  const cells = monthGrid(month);
  const first = cells.find((c) => c !== null);
  if (!first) return [];
  const lead = cells.indexOf(first);
  const out: Array<{ monday: string; total: Total | null }> = [];
  for (let row = 0; row * 7 < cells.length; row++) {
    const monday = addDays(first.date, row * 7 - lead);
    out.push({ monday, total: totalOf(days, Array.from({ length: 7 }, (_, i) => addDays(monday, i))) });
  }
  return out;
}

/** monthTotal is the total of a month's days; null without a close. */
export function monthTotal(month: string, days: ReadonlyMap<string, Total>): Total | null {
  return totalOf(
    days,
    monthGrid(month)
      .filter((c): c is DayCell => c !== null)
      .map((c) => c.date),
  );
}

/**
 * intensity grades a day's P&L against the month's largest absolute day,
 * 1 (small) to 4 (the largest); 0 for no P&L. The colour only repeats what
 * the cell's text says.
 */
export function intensity(netPnl: string | undefined, largest: number): number {
  if (netPnl === undefined || largest <= 0) return 0;
  const size = Math.abs(Number(netPnl));
  if (!(size > 0)) return 0;
  return Math.min(4, Math.max(1, Math.ceil((4 * size) / largest)));
}
