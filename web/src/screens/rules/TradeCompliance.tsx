import { useState } from 'react';
import { Link } from 'react-router';
import { DataTable, numeric, QueryView } from '../../components/QueryView';
import { Field, SelectField } from '../../components/ui';
import { formatDay, formatMoney, formatPercent, pnlClass } from '../../format';
import { monthRange, useTradeCompliance, type Compliance, type RuleTrade } from './rules';

type TradeBlock = NonNullable<Compliance['tradeBreakdown']>['byCurrency'][number];
type Show = 'all' | 'broken' | 'kept';

/** tradeLink is where a trade opens: its strategy, or its position. */
export function tradeLink(t: Pick<RuleTrade, 'strategyId' | 'id'>): string {
  return t.strategyId ? `/strategies/${t.strategyId}` : `/positions/${t.id}`;
}

/** shown picks the trades a filter asks for: those that broke a rule, those that kept every one, or all. */
export function shown(trades: RuleTrade[], show: Show): RuleTrade[] {
  if (show === 'all') return trades;
  return trades.filter((t) => (t.broken > 0) === (show === 'broken'));
}

/**
 * TradeCompliance is a month's trades with their scores, to be narrowed to
 * those that broke a rule, and the results of the trades that kept every
 * rule beside those of the trades that broke one.
 */
export function TradeCompliance() {
  const [month, setMonth] = useState(() => new Date().toISOString().slice(0, 7));
  const [show, setShow] = useState<Show>('all');
  const { from, to } = monthRange(/^\d{4}-\d{2}$/.test(month) ? month : new Date().toISOString().slice(0, 7));
  const query = useTradeCompliance(from, to);
  return (
    <section className="card" aria-labelledby="trade-compliance-title">
      <h2 id="trade-compliance-title">Trades and their scores</h2>
      <div className="form-grid">
        <Field label="Month" type="month" value={month} onChange={(e) => setMonth(e.target.value)} />
        <SelectField label="Show" value={show} onChange={(e) => setShow(e.target.value as Show)}>
          <option value="all">Every trade</option>
          <option value="broken">Trades that broke a rule</option>
          <option value="kept">Trades that kept every rule</option>
        </SelectField>
      </div>
      <QueryView query={query}>
        {(c) => {
          const trades = c.trades ?? [];
          if (trades.length === 0) return <p className="muted">No trades opened from {formatDay(c.from)} to {formatDay(c.to)}.</p>;
          const tb = c.tradeBreakdown;
          const blocks = tb ? (tb.total ? [tb.total] : tb.byCurrency) : [];
          const list = shown(trades, show);
          return (
            <>
              {blocks.map((b) => (
                <KeptAgainstBroken key={b.currency} block={b} />
              ))}
              {list.length === 0 ? (
                <p className="muted">No such trades this month.</p>
              ) : (
                <DataTable caption="Each trade's score" columns={['Opened', 'Trade', numeric('Score'), 'Rules broken', numeric('Net P&L')]}>
                  {list.map((t) => (
                    <tr key={t.id}>
                      <td>{formatDay(t.date)}</td>
                      <td>
                        <Link to={tradeLink(t)}>{t.symbol}</Link>
                      </td>
                      <td className="num" data-testid={`trade-score-${t.id}`}>
                        {t.score === null ? '—' : `${t.score}%`}
                      </td>
                      <td>
                        {t.rules
                          .filter((r) => r.status === 'broken')
                          .map((r) => r.message)
                          .join('; ') || 'None'}
                      </td>
                      <td className={`num ${pnlClass(t.netPnl)}`}>{t.netPnl === null ? 'Open' : formatMoney(t.netPnl, t.currency)}</td>
                    </tr>
                  ))}
                </DataTable>
              )}
            </>
          );
        }}
      </QueryView>
    </section>
  );
}

/** KeptAgainstBroken sets the closed trades that kept every rule beside those that broke one, in one currency. */
function KeptAgainstBroken({ block }: { block: TradeBlock }) {
  const rows: Array<[string, TradeBlock['kept']]> = [
    ['Trades that kept every rule', block.kept],
    ['Trades that broke a rule', block.broken],
  ];
  return (
    <DataTable caption={`Closed trades in ${block.currency}`} columns={['Trades', numeric('Closed trades'), numeric('Win rate'), numeric('Net P&L')]}>
      {rows.map(([label, g]) => (
        <tr key={label}>
          <th scope="row">{label}</th>
          <td className="num">{g.trades}</td>
          <td className="num">{g.winRate ? formatPercent(g.winRate) : '—'}</td>
          <td className={`num ${pnlClass(g.netPnl)}`}>{formatMoney(g.netPnl, block.currency)}</td>
        </tr>
      ))}
    </DataTable>
  );
}
