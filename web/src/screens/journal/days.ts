import type { Schemas } from '../../api/client';

type Report = Schemas['PerformanceReport'];

/** DayFigure is one currency's closed trades of a day. */
export interface DayFigure {
  currency: string;
  netPnl: string;
  trades: number;
  wins: number;
  losses: number;
}

/**
 * figuresByDay reads a statistics report's byDay: each day's figures in
 * the display currency when the report has a total, else in each account
 * currency (a missing exchange rate leaves no total).
 */
export function figuresByDay(report: Report | undefined): Map<string, DayFigure[]> {
  const out = new Map<string, DayFigure[]>();
  if (!report) return out;
  for (const b of report.total ? [report.total] : report.byCurrency) {
    for (const d of b.byDay) {
      out.set(d.date, [...(out.get(d.date) ?? []), { currency: b.currency, netPnl: d.netPnl, trades: d.trades, wins: d.wins, losses: d.losses }]);
    }
  }
  return out;
}

/** shiftDay is the YYYY-MM-DD n days from day. */
export function shiftDay(day: string, n: number): string {
  const t = Date.parse(`${day}T12:00:00Z`) + n * 86_400_000;
  return new Date(t).toISOString().slice(0, 10);
}

/** today is the browser's calendar day, YYYY-MM-DD. */
export function today(now = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/** validDay reports whether s is a day the journal takes (YYYY-MM-DD from 1900 to 2199). */
export function validDay(s: string | undefined): s is string {
  if (!s || !/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const y = Number(s.slice(0, 4));
  const t = Date.parse(`${s}T00:00:00Z`);
  return y >= 1900 && y <= 2199 && !Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === s;
}

/** Moods as the journal names them (1 to 5). */
export const moods = ['Awful', 'Bad', 'Okay', 'Good', 'Great'] as const;

/** moodText names a mood, or "" for none. */
export function moodText(mood: number | null | undefined): string {
  return mood ? (moods[mood - 1] ?? '') : '';
}
