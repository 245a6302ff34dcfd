// The P&L calendar's month grid, computed on calendar days (no time zone:
// the API's days are already trading days in each account's zone).

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
