import { lazy, Suspense, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { client, unwrap, type Schemas } from '../api/client';
import { useAccounts, useTags } from '../api/queries';
import { DemoJournal } from './DemoJournal';
import { DataTable, numeric, QueryView } from '../components/QueryView';
import { AccountFilter, DateRangeFilter, TagFilter } from '../components/filters';
import { Loading, PageTitle, SelectField } from '../components/ui';
import { formatDecimal, formatMoney, formatPercent, pnlClass } from '../format';
import { PnlCalendar } from './dashboard/Calendar';
import { monthLabel } from './dashboard/calendar';

const EquityChart = lazy(() => import('./dashboard/EquityChart').then((m) => ({ default: m.EquityChart })));

type Block = Schemas['PerformanceBlock'];
const filterNames = ['accountId', 'tagId', 'from', 'to'] as const;

/** rateLink opens the exchange-rate form prefilled with a missing "BASE/QUOTE" pair. */
export function rateLink(pair: string): string {
  const [base = '', quote = ''] = pair.split('/');
  return `/exchange-rates?base=${encodeURIComponent(base)}&quote=${encodeURIComponent(quote)}`;
}

function MissingRates({ pairs, currency }: { pairs: string[]; currency: string | null }) {
  if (pairs.length === 0) return null;
  return (
    <div className="note note-warn" role="status">
      To show totals in {currency ?? 'your display currency'}, add{' '}
      {pairs.length === 1 ? 'the exchange rate' : 'exchange rates'} for{' '}
      {pairs.map((p, i) => (
        <span key={p}>
          {i > 0 && ', '}
          <Link to={rateLink(p)}>{p}</Link>
        </span>
      ))}
      .
    </div>
  );
}

function Tile({ label, value, className = '' }: { label: string; value: string; className?: string }) {
  return (
    <div className="tile">
      <div className="label">{label}</div>
      <div className={`value ${className}`}>{value}</div>
    </div>
  );
}

/** A breakdown shows its best and worst rows until "Show all" (a large journal has thousands of symbols). */
const bestRows = 10;
const worstRows = 5;

function Breakdown({ title, column, rows, currency }: { title: string; column: string; rows: Array<{ key: string; label: string; trades: number; winRate: string | null; netPnl: string }>; currency: string }) {
  const [all, setAll] = useState(false);
  const folded = !all && rows.length > bestRows + worstRows;
  // Rows come best net P&L first: folded, the middle is left out.
  const shown = folded ? [...rows.slice(0, bestRows), null, ...rows.slice(-worstRows)] : rows;
  return (
    <section className="card" aria-label={title}>
      <h2>{title}</h2>
      {rows.length === 0 ? (
        <p className="muted">Nothing yet.</p>
      ) : (
        <DataTable columns={[column, numeric('Trades'), numeric('Win rate'), numeric('Net P&L')]}>
          {shown.map((r) =>
            r === null ? (
              <tr key="gap">
                <td colSpan={4} className="muted">
                  … {rows.length - bestRows - worstRows} more
                </td>
              </tr>
            ) : (
              <tr key={r.key}>
                <th scope="row">{r.label}</th>
                <td className="num">{r.trades}</td>
                <td className="num">{formatPercent(r.winRate)}</td>
                <td className={`num ${pnlClass(r.netPnl)}`}>{formatMoney(r.netPnl, currency)}</td>
              </tr>
            ),
          )}
        </DataTable>
      )}
      {rows.length > bestRows + worstRows && (
        <button type="button" className="ghost" onClick={() => setAll(!all)} aria-expanded={all}>
          {all ? 'Show fewer' : `Show all ${rows.length}`}
        </button>
      )}
    </section>
  );
}

function Performance({ block }: { block: Block }) {
  const s = block.summary;
  const c = block.currency;
  return (
    <>
      <div className="tiles" aria-label="Statistics">
        <Tile label="Net P&L" value={formatMoney(s.netPnl, c)} className={pnlClass(s.netPnl)} />
        <Tile label="Win rate" value={formatPercent(s.winRate)} />
        <Tile label="Profit factor" value={formatDecimal(s.profitFactor, 2)} />
        <Tile label="Expectancy" value={formatMoney(s.expectancy, c)} className={pnlClass(s.expectancy)} />
        <Tile label="Average R" value={s.averageR ? `${formatDecimal(s.averageR, 2)}R` : '—'} className={pnlClass(s.averageR)} />
        <Tile label="Trades" value={`${s.trades} (${s.wins}W / ${s.losses}L)`} />
        <Tile label="Average win" value={formatMoney(s.averageWin, c)} />
        <Tile label="Average loss" value={formatMoney(s.averageLoss, c)} />
        <Tile label="Max drawdown" value={formatMoney(s.maxDrawdown, c)} />
        <Tile label="Fees" value={formatMoney(s.fees, c)} />
      </div>
      <PnlCalendar key={c} days={block.byDay} currency={c} />
      <Suspense fallback={<Loading label="Loading chart…" />}>
        <EquityChart points={block.equityCurve} currency={c} />
      </Suspense>
      <div className="grid-2">
        <Breakdown
          title="By tag"
          column="Tag"
          currency={c}
          rows={block.byTag.map((t) => ({ key: t.tagId, label: `${t.name} (${t.category})`, trades: t.trades, winRate: t.winRate, netPnl: t.netPnl }))}
        />
        <Breakdown
          title="By underlying"
          column="Underlying"
          currency={c}
          rows={block.byUnderlying.map((t) => ({ key: t.symbol, label: t.symbol, trades: t.trades, winRate: t.winRate, netPnl: t.netPnl }))}
        />
        <Breakdown
          title="By month"
          column="Month"
          currency={c}
          rows={block.byMonth
            .slice()
            .reverse()
            .map((m) => ({ key: m.month, label: monthLabel(m.month), trades: m.trades, winRate: m.winRate, netPnl: m.netPnl }))}
        />
      </div>
    </>
  );
}

export default function Dashboard() {
  const [params, setParams] = useSearchParams();
  const filters: Record<string, string> = {};
  for (const n of filterNames) {
    const v = params.get(n);
    if (v) filters[n] = v;
  }
  const accounts = useAccounts();
  const tags = useTags();
  const totals = useQuery({ queryKey: ['dashboard', 'totals'], queryFn: () => unwrap(client.GET('/api/dashboard/totals')) });
  const perf = useQuery({ queryKey: ['performance', filters], queryFn: () => unwrap(client.GET('/api/performance', { params: { query: { ...filters, bySymbol: false } } })) });
  const [chosen, setChosen] = useState<string>('total');
  const setFilter = (name: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    setParams(next, { replace: true });
  };
  const blocks: Array<{ id: string; label: string; block: Block }> = [];
  if (perf.data?.total) blocks.push({ id: 'total', label: `All accounts in ${perf.data.total.currency}`, block: perf.data.total });
  // With one currency the converted total says the same thing: offer the per-currency blocks only when they differ.
  const perCurrency = perf.data?.total && perf.data.byCurrency.length === 1 && perf.data.byCurrency[0]?.currency === perf.data.total.currency ? [] : (perf.data?.byCurrency ?? []);
  for (const b of perCurrency) blocks.push({ id: b.currency, label: `${b.currency} accounts`, block: b });
  const shown = blocks.find((b) => b.id === chosen) ?? blocks[0];
  return (
    <>
      <PageTitle actions={<Link className="button" to="/positions/new">New position</Link>}>Dashboard</PageTitle>
      <DemoJournal accounts={accounts.data} />
      <section className="card" aria-labelledby="total-title">
        <h2 id="total-title">Total balance</h2>
        <QueryView query={totals}>
          {(total) =>
            total.displayCurrency === null ? (
              <p className="muted">
                No display currency yet: <Link to="/accounts">create an account</Link> or choose one in <Link to="/settings">Settings</Link>.
              </p>
            ) : total.total !== null ? (
              <p className="big-number" data-testid="dashboard-total">
                {formatMoney(total.total, total.displayCurrency)}
              </p>
            ) : (
              <MissingRates pairs={total.missingPairs} currency={total.displayCurrency} />
            )
          }
        </QueryView>
      </section>
      <form className="card grid" role="search" aria-label="Filter statistics" onSubmit={(e) => e.preventDefault()}>
        <AccountFilter accounts={accounts.data} value={filters.accountId} onChange={(v) => setFilter('accountId', v)} />
        <TagFilter tags={tags.data} value={filters.tagId} onChange={(v) => setFilter('tagId', v)} />
        <DateRangeFilter from={filters.from} to={filters.to} onChange={setFilter} />
        {blocks.length > 1 && (
          <SelectField label="Figures in" value={shown?.id ?? ''} onChange={(e) => setChosen(e.target.value)}>
            {blocks.map((b) => (
              <option key={b.id} value={b.id}>
                {b.label}
              </option>
            ))}
          </SelectField>
        )}
      </form>
      <QueryView query={perf}>
        {(performance) => (
          <>
            {performance.total === null && performance.byCurrency.length > 1 && <MissingRates pairs={performance.missingPairs} currency={performance.displayCurrency} />}
            {shown ? (
              <Performance block={shown.block} />
            ) : (
              <p className="muted">
                No closed positions {Object.keys(filters).length ? 'match these filters' : 'yet'}. <Link to="/positions/new">Record a trade</Link> or{' '}
                <Link to="/import">import a CSV</Link>.
              </p>
            )}
          </>
        )}
      </QueryView>
    </>
  );
}
