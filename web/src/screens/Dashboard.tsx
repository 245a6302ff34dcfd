import { lazy, Suspense, useState, type ReactNode } from 'react';
import { ConnectionNotice } from './connections/ConnectionNotice';
import { Link, useNavigate } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { client, unwrap, type Schemas } from '../api/client';
import { useAccounts, useTags } from '../api/queries';
import { DemoJournal } from './DemoJournal';
import { DataTable, numeric, QueryView } from '../components/QueryView';
import { FilterBar, useUrlFilters } from '../components/filters';
import { ErrorNote, Loading, PageTitle, SelectField } from '../components/ui';
import { ReviewButton } from './assistant/ReviewButton';
import { today } from './journal/days';
import { activeCount, apiQuery, listOnlyFilterNames, withoutNames, writeFilters, type ApiQuery, type Filters } from '../filterState';
import { sumDecimals } from '../decimal';
import { formatDecimal, formatMoney, formatPercent, pnlClass, tradesText } from '../format';
import { PnlCalendar } from './dashboard/Calendar';
import { Tile } from './dashboard/Tile';
import { MissingRates } from '../components/MissingRates';
import { FeeRollup } from './dashboard/Fees';
import { NetOfExpenses, NetSwitch } from './dashboard/NetOfExpenses';
import { RuleMarker } from './rules/RuleMarker';
import { ComplianceBreakdown } from './rules/ComplianceBreakdown';
import { Breakdown, breakdownTables, CriterionBreakdown, RDistribution, rText, WinnersLosers } from './dashboard/Breakdowns';
import { ExcursionFigures, ExitAnalysis } from './dashboard/Excursions';
import { LayoutEditor, useDashboardLayout, WidgetGrid } from './dashboard/WidgetGrid';
import type { WidgetId } from './dashboard/layout';
import { SavedViews } from './dashboard/SavedViews';
import { OnboardingChecklist } from '../components/Onboarding';
import { PropFirmWarnings } from './propfirm/PropFirmWarnings';

const EquityChart = lazy(() => import('./dashboard/EquityChart').then((m) => ({ default: m.EquityChart })));
const DrawdownChart = lazy(() => import('./dashboard/EquityChart').then((m) => ({ default: m.DrawdownChart })));

type Block = Schemas['PerformanceBlock'];

const dayMs = 86_400_000;

/** daysBetween is the whole days from one timestamp to another (a drawdown's length, its recovery). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(to) - Date.parse(from)) / dayMs);
}

function dayCount(n: number): string {
  return `${n} day${n === 1 ? '' : 's'}`;
}

/** drawdownNote says how long the largest drawdown lasted and whether (and when) it recovered. */
export function drawdownNote(s: Pick<Block['summary'], 'maxDrawdownStart' | 'maxDrawdownEnd' | 'maxDrawdownRecovered'>): string {
  if (!s.maxDrawdownEnd) return 'No drawdown yet';
  const fall = s.maxDrawdownStart ? `fell over ${dayCount(daysBetween(s.maxDrawdownStart, s.maxDrawdownEnd))}` : 'from the first trade';
  const back = s.maxDrawdownRecovered ? `recovered in ${dayCount(daysBetween(s.maxDrawdownEnd, s.maxDrawdownRecovered))}` : 'not recovered yet';
  return `${fall}, ${back}`;
}

/** rCoverage is "over 5 of 91 trades": how many positions the R figures rest on. */
export function rCoverage(rTrades: number, trades: number): string {
  return `over ${rTrades} of ${trades} trade${trades === 1 ? '' : 's'}`;
}

function money(value: string | null, currency: string): string | null {
  return value === null ? null : formatMoney(value, currency);
}

/** WidgetData is what the widgets are drawn from. */
interface WidgetData {
  /** The figures shown: absent without closed positions (or while they load). */
  block: Block | undefined;
  filters: Filters;
  query: ApiQuery;
  totalBalance: ReactNode;
  onOpenDay: (date: string) => void;
}

/** widgetContent is one widget of the dashboard (layout.ts names them), or null when it has nothing to show. */
function widgetContent(id: WidgetId, d: WidgetData): ReactNode {
  switch (id) {
    case 'total-balance':
      return d.totalBalance;
    case 'rule-compliance':
      return d.block ? <ComplianceBreakdown from={d.filters.from} to={d.filters.to} /> : null;
    case 'fee-rollup':
      return <FeeRollup query={d.query} />;
  }
  if (!d.block) return null;
  const block = d.block;
  const s = block.summary;
  const c = block.currency;
  const noR = s.rTrades === 0 ? 'No trade has a planned stop' : 'Needs 2 trades with a planned stop';
  const streak = (n: number) => `${n} trade${n === 1 ? '' : 's'}`;
  switch (id) {
    case 'net-pnl':
      return <Tile label="Net P&L" value={formatMoney(s.netPnl, c)} className={pnlClass(s.netPnl)} />;
    case 'win-rate':
      return <Tile label="Win rate" value={s.winRate && formatPercent(s.winRate)} why="No trades" />;
    case 'profit-factor':
      return <Tile label="Profit factor" value={s.profitFactor && formatDecimal(s.profitFactor, 2)} why={s.trades === 0 ? 'No trades' : 'No losing trade'} />;
    case 'expectancy':
      return <Tile label="Expectancy" value={money(s.expectancy, c)} className={pnlClass(s.expectancy)} why="No trades" />;
    case 'average-r':
      return <Tile label="Average R" value={s.averageR && rText(s.averageR)} className={pnlClass(s.averageR)} note={rCoverage(s.rTrades, s.trades)} why="No trade has a planned stop" />;
    case 'sqn':
      return <Tile label="SQN" value={s.sqn && formatDecimal(s.sqn, 2)} note={rCoverage(s.rTrades, s.trades)} why={noR} />;
    case 'trades':
      return <Tile label="Trades" value={tradesText(s)} note="W won, L lost, BE broke even" />;
    case 'average-win':
      return <Tile label="Average win" value={money(s.averageWin, c)} why="No winning trade" />;
    case 'average-loss':
      return <Tile label="Average loss" value={money(s.averageLoss, c)} why="No losing trade" />;
    case 'largest-win':
      return <Tile label="Largest win" value={money(s.largestWin, c)} className={pnlClass(s.largestWin)} why="No winning trade" />;
    case 'largest-loss':
      return <Tile label="Largest loss" value={money(s.largestLoss, c)} className={pnlClass(s.largestLoss)} why="No losing trade" />;
    case 'win-streak':
      return <Tile label="Longest win streak" value={streak(s.longestWinStreak)} />;
    case 'loss-streak':
      return <Tile label="Longest loss streak" value={streak(s.longestLossStreak)} />;
    case 'max-drawdown':
      return <Tile label="Max drawdown" value={formatMoney(s.maxDrawdown, c)} note={drawdownNote(s)} />;
    case 'fees':
      return <Tile label="Fees" value={formatMoney(s.fees, c)} />;
    case 'calendar':
      return <PnlCalendar key={c} days={block.byDay} currency={c} onOpenDay={d.onOpenDay} dayMark={(date) => <RuleMarker date={date} />} />;
    case 'equity-curve':
      return (
        <Suspense fallback={<Loading label="Loading chart…" />}>
          <EquityChart points={block.equityCurve} currency={c} />
        </Suspense>
      );
    case 'drawdown':
      return (
        <Suspense fallback={<Loading label="Loading chart…" />}>
          <DrawdownChart points={block.equityCurve} currency={c} maxDrawdown={s.maxDrawdown} />
        </Suspense>
      );
    case 'r-distribution':
      return <RDistribution buckets={block.rDistribution} rTrades={s.rTrades} trades={s.trades} />;
    case 'winners-losers':
      return <WinnersLosers data={block.winnersLosers} currency={c} />;
    case 'excursions':
      return <ExcursionFigures data={block.excursions} currency={c} />;
    case 'exit-analysis':
      return <ExitAnalysis data={block.exitAnalysis} currency={c} />;
    case 'by-criterion':
      return <CriterionBreakdown rows={block.byCriterion} currency={c} />;
  }
  const table = breakdownTables(block).find((t) => t.id === id);
  return table ? <Breakdown title={table.title} column={table.column} rows={table.rows} currency={c} /> : null;
}

/** CurrencyTotals lists each currency's own figures when no rate joins them into one total. */
export function CurrencyTotals({ blocks }: { blocks: Block[] }) {
  return (
    <section className="card" aria-label="Totals per currency">
      <h2>Totals per currency</h2>
      <DataTable caption="Totals per currency" columns={['Currency', numeric('Trades'), numeric('Win rate'), numeric('Net P&L')]}>
        {blocks.map((b) => (
          <tr key={b.currency}>
            <th scope="row">{b.currency}</th>
            <td className="num">{b.summary.trades}</td>
            <td className="num">{formatPercent(b.summary.winRate)}</td>
            <td className={`num ${pnlClass(b.summary.netPnl)}`}>{formatMoney(b.summary.netPnl, b.currency)}</td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}

/** balancesByCurrency sums the accounts' balances (archived ones too, as the total does) per currency, exactly. */
export function balancesByCurrency(accounts: Array<Pick<Schemas['Account'], 'currency' | 'balance'>>): Array<{ currency: string; balance: string }> {
  const by = new Map<string, string[]>();
  for (const a of accounts) by.set(a.currency, [...(by.get(a.currency) ?? []), a.balance]);
  return [...by.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([currency, values]) => ({ currency, balance: sumDecimals(values) }));
}

/** positionsSearch is the positions list of the dashboard's filter: the closed positions, by close date. */
function positionsSearch(filters: Filters): string {
  return writeFilters({ ...filters, status: 'closed', dateBy: 'closed' }).toString();
}

export default function Dashboard() {
  const [urlFilters, setFilters] = useUrlFilters();
  // The list's status and date basis may ride along from the positions list; the statistics do not take them.
  const filters = withoutNames(urlFilters, listOnlyFilterNames);
  const query = apiQuery(filters, 'statistics');
  const navigate = useNavigate();
  const accounts = useAccounts();
  const tags = useTags();
  const totals = useQuery({ queryKey: ['dashboard', 'totals'], queryFn: () => unwrap(client.GET('/api/dashboard/totals')) });
  // "Subtract expenses" is a view setting, like "Figures in": off on every visit.
  const [netOfExpenses, setNetOfExpenses] = useState(false);
  const perf = useQuery({
    queryKey: ['performance', query, netOfExpenses],
    queryFn: () => unwrap(client.GET('/api/performance', { params: { query: { ...query, bySymbol: false, ...(netOfExpenses ? { netOfExpenses: true } : {}) } } })),
  });
  const [chosen, setChosen] = useState<string>('');
  const blocks: Array<{ id: string; label: string; block: Block }> = [];
  if (perf.data?.total) blocks.push({ id: 'total', label: `All accounts in ${perf.data.total.currency}`, block: perf.data.total });
  // With one currency the converted total says the same thing: offer the per-currency blocks only when they differ.
  const perCurrency = perf.data?.total && perf.data.byCurrency.length === 1 && perf.data.byCurrency[0]?.currency === perf.data.total.currency ? [] : (perf.data?.byCurrency ?? []);
  for (const b of perCurrency) blocks.push({ id: b.currency, label: `${b.currency} accounts only`, block: b });
  // The display currency's total first; without it (a missing rate), the currency with the most trades, not the first alphabetically.
  const fallback = [...blocks].sort((a, b) => b.block.summary.trades - a.block.summary.trades)[0];
  const shown = blocks.find((b) => b.id === chosen) ?? blocks.find((b) => b.id === 'total') ?? fallback;
  const openDay = (date: string) => navigate(`/journal/${date}`);
  const { layout, save, reset } = useDashboardLayout();
  const [editing, setEditing] = useState(false);
  const widgets = layout.data?.widgets;
  const totalBalance = (
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
            <>
              <MissingRates subject="total balance" pairs={total.missingPairs} currency={total.displayCurrency} />
              {accounts.data && accounts.data.length > 0 && (
                <ul className="balances" aria-label="Balance per currency">
                  {balancesByCurrency(accounts.data).map((b) => (
                    <li key={b.currency}>
                      <span className="muted">{b.currency} accounts: </span>
                      <strong>{formatMoney(b.balance, b.currency)}</strong>
                    </li>
                  ))}
                </ul>
              )}
            </>
          )
        }
      </QueryView>
    </section>
  );
  return (
    <>
      <PageTitle
        actions={
          <>
            <ReviewButton review={{ kind: 'week', date: today() }}>Review my week</ReviewButton>
            <button type="button" className="ghost" aria-pressed={editing} onClick={() => setEditing(!editing)}>
              Customize dashboard
            </button>
            <Link className="button" to="/positions/new">
              New position
            </Link>
          </>
        }
      >
        Dashboard
      </PageTitle>
      <DemoJournal accounts={accounts.data} />
      <ConnectionNotice />
      <PropFirmWarnings />
      <OnboardingChecklist />
      <FilterBar filters={filters} onChange={setFilters} accounts={accounts.data} tags={tags.data} scope="statistics" label="Filter statistics">
        {blocks.length > 1 && (
          <SelectField label="Figures in" value={shown?.id ?? ''} onChange={(e) => setChosen(e.target.value)}>
            {blocks.map((b) => (
              <option key={b.id} value={b.id}>
                {b.label}
              </option>
            ))}
          </SelectField>
        )}
      </FilterBar>
      <SavedViews filters={filters} onApply={setFilters} />
      <NetSwitch on={netOfExpenses} onChange={setNetOfExpenses} />
      <QueryView query={perf}>
        {(performance) => (
          <>
            {netOfExpenses && <NetOfExpenses report={performance} accountFiltered={filters.accountId.length > 0} />}
            {performance.total === null && performance.byCurrency.length > 0 && (
              <>
                <MissingRates subject="statistics across all accounts" pairs={performance.missingPairs} currency={performance.displayCurrency} />
                {performance.byCurrency.length > 1 && <CurrencyTotals blocks={performance.byCurrency} />}
              </>
            )}
            {shown ? (
              <>
                {blocks.length > 1 && (
                  <p className="muted" data-testid="figures-in">
                    Figures below: {shown.label}.
                  </p>
                )}
                <p>
                  <Link to={`/positions?${positionsSearch(filters)}`}>List the closed positions of this filter</Link>
                </p>
              </>
            ) : (
              <p className="muted">
                No closed positions {activeCount(filters) ? 'match these filters' : 'yet'}. <Link to="/positions/new">Record a trade</Link> or{' '}
                <Link to="/import">import a CSV</Link>.
              </p>
            )}
          </>
        )}
      </QueryView>
      {editing && widgets && (
        <LayoutEditor
          widgets={widgets}
          custom={layout.data?.custom ?? false}
          onChange={(next) => save.mutate(next)}
          onReset={() => reset.mutate()}
          resetting={reset.isPending}
          error={save.error ?? reset.error}
          sent={save.variables}
          onDone={() => setEditing(false)}
        />
      )}
      {widgets ? (
        <WidgetGrid
          label="Statistics"
          widgets={widgets}
          editing={editing}
          onChange={(next) => save.mutate(next)}
          render={(id) => widgetContent(id, { block: shown?.block, filters, query, totalBalance, onOpenDay: openDay })}
        />
      ) : layout.isError ? (
        <ErrorNote error={layout.error} />
      ) : (
        <Loading label="Loading your dashboard…" />
      )}
    </>
  );
}
