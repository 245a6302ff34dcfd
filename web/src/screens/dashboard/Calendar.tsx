import { useEffect, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { counted, formatMoney, formatMoneyShort, pnlClass, signOf } from '../../format';
import { intensity, monthGrid, monthLabel, monthTotal, shiftMonth, weekTotals, type DayCell } from './calendar';

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
 * PnlCalendar shows net P&L per trading day, one month at a time, with
 * each week's and the month's total. It is an ARIA grid with one tab stop:
 * the arrow keys move between days; a click (or Enter) on a day with
 * closes opens that day's page of the journal. dayMark, when given, adds a
 * mark to each day (the trading rules' marker).
 */
export function PnlCalendar({ days, currency, onOpenDay, dayMark }: { days: Day[]; currency: string; onOpenDay?: (date: string) => void; dayMark?: (date: string) => ReactNode }) {
  const latest = days[days.length - 1]?.date.slice(0, 7) ?? new Date().toISOString().slice(0, 7);
  const [month, setMonth] = useState(latest);
  const [focused, setFocused] = useState(1);
  const grid = useRef<HTMLDivElement>(null);
  const moved = useRef(false);
  const byDate = useMemo(() => new Map(days.map((d) => [d.date, d])), [days]);
  const cells = monthGrid(month);
  const totals = weekTotals(month, byDate);
  const total = monthTotal(month, byDate);
  const largest = cells.reduce((n, c) => Math.max(n, c ? Math.abs(Number(byDate.get(c.date)?.netPnl ?? 0)) : 0), 0);
  const lastDay = cells.reduce((n, c) => (c ? Math.max(n, c.day) : n), 0);
  const current = Math.min(focused, lastDay);
  const weeks: Array<Array<DayCell | null>> = [];
  for (let i = 0; i < cells.length; i += 7) weeks.push(cells.slice(i, i + 7));

  const onKey = (e: KeyboardEvent) => {
    if ((e.key === 'Enter' || e.key === ' ') && onOpenDay) {
      const date = (e.target as HTMLElement).dataset.date;
      if (date && byDate.has(date)) {
        e.preventDefault();
        onOpenDay(date);
      }
      return;
    }
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
        <div>
          <h2 id="calendar-title">P&amp;L calendar · {monthLabel(month)}</h2>
          <p className="calendar-total" data-testid="month-total">
            Month total:{' '}
            {total ? (
              <>
                <strong className={pnlClass(total.netPnl)}>{formatMoney(total.netPnl, currency)}</strong> over {counted(total.trades, 'trade')}
              </>
            ) : (
              'no closed trades'
            )}
          </p>
        </div>
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
          <div className="dow" role="columnheader">
            Week
          </div>
        </div>
        {weeks.map((week, wi) => (
          <div role="row" className="calendar-row" key={wi}>
            {week.map((c, i) => {
              if (!c) return <div key={`b${i}`} className="day blank" role="gridcell" aria-hidden="true" />;
              const d = byDate.get(c.date);
              const sign = signOf(d?.netPnl);
              const open = d && onOpenDay ? () => onOpenDay(c.date) : undefined;
              return (
                <div
                  key={c.date}
                  role="gridcell"
                  tabIndex={c.day === current ? 0 : -1}
                  className={`day ${sign === 'positive' ? 'win' : sign === 'negative' ? 'loss' : ''} lvl-${intensity(d?.netPnl, largest)}${open ? ' opens' : ''}`}
                  aria-label={d ? `${c.date}: ${formatMoney(d.netPnl, currency)}, ${d.trades} trades${open ? ', open the day in the journal' : ''}` : `${c.date}: no trades`}
                  data-date={c.date}
                  data-day={c.day}
                  onFocus={() => setFocused(c.day)}
                  onClick={open}
                >
                  <div className="d" aria-hidden="true">
                    {c.day}
                  </div>
                  {d && (
                    <div aria-hidden="true">
                      <div className={sign === 'negative' ? 'pnl-neg' : sign === 'positive' ? 'pnl-pos' : ''}>
                        <Amount value={d.netPnl} currency={currency} />
                      </div>
                      <div className="muted">{counted(d.trades, 'trade')}</div>
                    </div>
                  )}
                  {dayMark?.(c.date)}
                </div>
              );
            })}
            <WeekCell total={totals[wi]?.total ?? null} monday={totals[wi]?.monday ?? ''} currency={currency} />
          </div>
        ))}
      </div>
    </section>
  );
}

/** WeekCell is a row's week total (Monday to Sunday, days of the next or previous month included). */
function WeekCell({ total, monday, currency }: { total: { netPnl: string; trades: number } | null; monday: string; currency: string }) {
  return (
    <div role="gridcell" className="day week-total" aria-label={total ? `Week of ${monday}: ${formatMoney(total.netPnl, currency)}, ${total.trades} trades` : `Week of ${monday}: no trades`}>
      {total && (
        <div aria-hidden="true">
          <div className={pnlClass(total.netPnl)}>
            <Amount value={total.netPnl} currency={currency} />
          </div>
          <div className="muted">{counted(total.trades, 'trade')}</div>
        </div>
      )}
    </div>
  );
}

/** Amount is a cell's amount in full, and short for a phone (styles.css), where the full one would be cut off. */
function Amount({ value, currency }: { value: string; currency: string }) {
  return (
    <>
      <span className="amount-full">{formatMoney(value, currency)}</span>
      <span className="amount-short" aria-hidden="true">
        {formatMoneyShort(value, currency)}
      </span>
    </>
  );
}
