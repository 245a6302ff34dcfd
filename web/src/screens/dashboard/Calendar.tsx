import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { formatMoney, signOf } from '../../format';
import { monthGrid, monthLabel, shiftMonth, type DayCell } from './calendar';

interface Day {
  date: string;
  trades: number;
  wins: number;
  losses: number;
  netPnl: string;
}

const weekdays = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const moves: Record<string, number> = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -7, ArrowDown: 7 };

/**
 * PnlCalendar shows net P&L per trading day, one month at a time. It is
 * an ARIA grid with one tab stop: the arrow keys move between days.
 */
export function PnlCalendar({ days, currency }: { days: Day[]; currency: string }) {
  const latest = days[days.length - 1]?.date.slice(0, 7) ?? new Date().toISOString().slice(0, 7);
  const [month, setMonth] = useState(latest);
  const [focused, setFocused] = useState(1);
  const grid = useRef<HTMLDivElement>(null);
  const moved = useRef(false);
  const byDate = new Map(days.map((d) => [d.date, d]));
  const cells = monthGrid(month);
  const lastDay = cells.reduce((n, c) => (c ? Math.max(n, c.day) : n), 0);
  const current = Math.min(focused, lastDay);
  const weeks: Array<Array<DayCell | null>> = [];
  for (let i = 0; i < cells.length; i += 7) weeks.push(cells.slice(i, i + 7));

  const onKey = (e: KeyboardEvent) => {
    let next = current + (moves[e.key] ?? 0);
    if (e.key === 'Home') next = 1;
    if (e.key === 'End') next = lastDay;
    if (next === current || !(e.key in moves || e.key === 'Home' || e.key === 'End')) return;
    e.preventDefault();
    if (next < 1 || next > lastDay) return;
    moved.current = true;
    setFocused(next);
  };
  // After an arrow key, focus follows the tab stop once the grid has re-rendered.
  useEffect(() => {
    if (!moved.current) return;
    moved.current = false;
    grid.current?.querySelector<HTMLElement>(`[data-day="${current}"]`)?.focus();
  }, [current]);

  return (
    <section className="card" aria-labelledby="calendar-title">
      <div className="page-title">
        <h2 id="calendar-title">P&amp;L calendar · {monthLabel(month)}</h2>
        <div className="actions">
          <button type="button" className="ghost" onClick={() => setMonth(shiftMonth(month, -1))} aria-label="Previous month">
            ‹
          </button>
          <button type="button" className="ghost" onClick={() => setMonth(shiftMonth(month, 1))} aria-label="Next month">
            ›
          </button>
        </div>
      </div>
      <div className="calendar" role="grid" aria-labelledby="calendar-title" ref={grid} onKeyDown={onKey}>
        <div role="row" className="calendar-row">
          {weekdays.map((w) => (
            <div key={w} className="dow" role="columnheader">
              {w}
            </div>
          ))}
        </div>
        {weeks.map((week, wi) => (
          <div role="row" className="calendar-row" key={wi}>
            {week.map((c, i) => {
              if (!c) return <div key={`b${i}`} className="day blank" role="gridcell" aria-hidden="true" />;
              const d = byDate.get(c.date);
              const sign = signOf(d?.netPnl);
              return (
                <div
                  key={c.date}
                  role="gridcell"
                  tabIndex={c.day === current ? 0 : -1}
                  className={`day ${sign === 'positive' ? 'win' : sign === 'negative' ? 'loss' : ''}`}
                  aria-label={d ? `${c.date}: ${formatMoney(d.netPnl, currency)}, ${d.trades} trades` : `${c.date}: no trades`}
                  data-date={c.date}
                  data-day={c.day}
                  onFocus={() => setFocused(c.day)}
                >
                  <div className="d" aria-hidden="true">
                    {c.day}
                  </div>
                  {d && (
                    <div aria-hidden="true">
                      <div className={sign === 'negative' ? 'pnl-neg' : sign === 'positive' ? 'pnl-pos' : ''}>{formatMoney(d.netPnl, currency)}</div>
                      <div className="muted">
                        {d.trades} trade{d.trades === 1 ? '' : 's'}
                      </div>
                    </div>
                  )}
                </div>
              );
            })}
          </div>
        ))}
      </div>
    </section>
  );
}
