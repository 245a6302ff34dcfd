import { useState } from 'react';
import { formatMoney, signOf } from '../../format';
import { monthGrid, monthLabel, shiftMonth } from './calendar';

interface Day {
  date: string;
  trades: number;
  wins: number;
  losses: number;
  netPnl: string;
}

const weekdays = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** PnlCalendar shows net P&L per trading day, one month at a time. */
export function PnlCalendar({ days, currency }: { days: Day[]; currency: string }) {
  const latest = days[days.length - 1]?.date.slice(0, 7) ?? new Date().toISOString().slice(0, 7);
  const [month, setMonth] = useState(latest);
  const byDate = new Map(days.map((d) => [d.date, d]));
  const cells = monthGrid(month);
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
      <div className="calendar" role="grid" aria-labelledby="calendar-title">
        {weekdays.map((w) => (
          <div key={w} className="dow" role="columnheader">
            {w}
          </div>
        ))}
        {cells.map((c, i) => {
          if (!c) return <div key={`b${i}`} className="day blank" aria-hidden="true" />;
          const d = byDate.get(c.date);
          const sign = signOf(d?.netPnl);
          return (
            <div
              key={c.date}
              role="gridcell"
              className={`day ${sign === 'positive' ? 'win' : sign === 'negative' ? 'loss' : ''}`}
              aria-label={d ? `${c.date}: ${formatMoney(d.netPnl, currency)}, ${d.trades} trades` : `${c.date}: no trades`}
              data-date={c.date}
            >
              <div className="d">{c.day}</div>
              {d && (
                <>
                  <div className={sign === 'negative' ? 'pnl-neg' : sign === 'positive' ? 'pnl-pos' : ''}>{formatMoney(d.netPnl, currency)}</div>
                  <div className="muted">
                    {d.trades} trade{d.trades === 1 ? '' : 's'}
                  </div>
                </>
              )}
            </div>
          );
        })}
      </div>
    </section>
  );
}
