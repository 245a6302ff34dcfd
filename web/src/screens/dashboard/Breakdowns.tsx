// The dashboard's breakdown tables, R distribution and winners-against-losers
// comparison. Every amount is the API's decimal string, only formatted here.
import type { ReactNode } from 'react';
import type { Schemas } from '../../api/client';
import { SortableTable, type SortColumn } from '../../components/SortableTable';
import { groupName } from '../../assetTypes';
import { hourLabel, weekdayNames } from '../../components/filters';
import { formatDecimal, formatMoney, formatPercent, pnlClass } from '../../format';
import { strategyKindNames } from '../../strategyKinds';
import { monthLabel } from './calendar';
import type { WidgetId } from './layout';

type Block = Schemas['PerformanceBlock'];

type Figures = Schemas['PerformanceBreakdown'];

export interface BreakdownRow extends Figures {
  key: string;
  label: string;
  /** The label column's natural order (Monday before Tuesday, a minute before an hour). */
  order: number | string;
}

/** Absent says why a figure does not exist, visibly as "—" and in words for a screen reader and on hover. */
export function Absent({ why }: { why: string }) {
  return (
    <span title={why}>
      —<span className="sr-only"> ({why})</span>
    </span>
  );
}

export function rText(value: string | null | undefined): string {
  return `${formatDecimal(value, 2)}R`;
}

function rCell(r: Figures): ReactNode {
  if (r.averageR) return <span className={pnlClass(r.averageR)}>{rText(r.averageR)}</span>;
  return <Absent why="no trade here has a planned stop" />;
}

function profitFactorCell(r: Figures): ReactNode {
  if (r.profitFactor) return formatDecimal(r.profitFactor, 2);
  return <Absent why={r.trades === 0 ? 'no trades' : r.losses === 0 ? 'no losing trade' : 'no winning trade'} />;
}

const num = (v: string | null | undefined) => (v == null ? null : Number(v));

/** breakdownColumns are the columns of every breakdown; on a phone, trades and profit factor give way. */
export function breakdownColumns(column: string, currency: string): SortColumn<BreakdownRow>[] {
  return [
    { key: 'label', label: column, rowHeader: true, sortValue: (r) => r.order, render: (r) => r.label },
    { key: 'trades', label: 'Trades', numeric: true, optional: true, sortValue: (r) => r.trades, render: (r) => r.trades },
    { key: 'winRate', label: 'Win rate', numeric: true, sortValue: (r) => num(r.winRate), render: (r) => formatPercent(r.winRate) },
    { key: 'netPnl', label: 'Net P&L', numeric: true, sortValue: (r) => num(r.netPnl), render: (r) => <span className={pnlClass(r.netPnl)}>{formatMoney(r.netPnl, currency)}</span> },
    { key: 'averageR', label: 'Avg R', numeric: true, sortValue: (r) => num(r.averageR), render: rCell },
    { key: 'profitFactor', label: 'Profit factor', numeric: true, optional: true, sortValue: (r) => num(r.profitFactor), render: profitFactorCell },
  ];
}

/** Breakdown is one titled, sortable breakdown table. */
export function Breakdown({ title, column, rows, currency }: { title: string; column: string; rows: BreakdownRow[]; currency: string }) {
  return (
    <section className="card" aria-label={title}>
      <h2>{title}</h2>
      {rows.length === 0 ? <p className="muted">Nothing yet.</p> : <SortableTable caption={title} columns={breakdownColumns(column, currency)} rows={rows} rowKey={(r) => r.key} />}
    </section>
  );
}

export const holdTimeLabels: Record<string, string> = {
  lt1m: 'Under 1 minute',
  '1m-5m': '1 to 5 minutes',
  '5m-15m': '5 to 15 minutes',
  '15m-1h': '15 minutes to 1 hour',
  '1h-4h': '1 to 4 hours',
  '4h-1d': '4 hours to 1 day',
  '1d-1w': '1 day to 1 week',
  gte1w: '1 week or more',
};
const holdTimeOrder = Object.keys(holdTimeLabels);
const sideLabels: Record<string, string> = { long: 'Long', short: 'Short' };

/** weekLabel is "Week 5, 2024" for "2024-W05". */
export function weekLabel(week: string): string {
  const m = /^(\d{4})-W(\d{2})$/.exec(week);
  return m ? `Week ${Number(m[2])}, ${m[1]}` : week;
}

function row<T extends Figures>(entry: T, key: string, label: string, order: number | string): BreakdownRow {
  return { ...entry, key, label, order };
}

/** breakdownTables are the block's breakdowns in the order the dashboard shows them (newest first for periods). */
export function breakdownTables(b: Block): Array<{ id: WidgetId; title: string; column: string; rows: BreakdownRow[] }> {
  return [
    { id: 'by-weekday', title: 'By weekday of entry', column: 'Weekday', rows: b.byWeekday.map((e) => row(e, String(e.weekday), weekdayNames[e.weekday - 1] ?? String(e.weekday), e.weekday)) },
    { id: 'by-hour', title: 'By hour of entry', column: 'Hour', rows: b.byHour.map((e) => row(e, String(e.hour), hourLabel(e.hour), e.hour)) },
    { id: 'by-hold-time', title: 'By hold time', column: 'Held', rows: b.byHoldTime.map((e) => row(e, e.bucket, holdTimeLabels[e.bucket] ?? e.bucket, holdTimeOrder.indexOf(e.bucket))) },
    { id: 'by-side', title: 'By side', column: 'Side', rows: b.bySide.map((e) => row(e, e.side, sideLabels[e.side] ?? e.side, e.side)) },
    { id: 'by-asset-type', title: 'By asset type', column: 'Asset type', rows: b.byAssetType.map((e) => row(e, e.assetType, groupName(e.assetType), e.assetType)) },
    { id: 'by-underlying', title: 'By underlying', column: 'Underlying', rows: b.byUnderlying.map((e) => row(e, e.symbol, e.symbol, e.symbol)) },
    { id: 'by-tag', title: 'By tag', column: 'Tag', rows: b.byTag.map((e) => row(e, e.tagId, `${e.name} (${e.category})`, `${e.category} ${e.name}`)) },
    {
      id: 'by-playbook',
      title: 'By playbook',
      column: 'Playbook',
      // "No playbook" sorts after every named one.
      rows: b.byPlaybook.map((e) => row(e, e.playbookId ?? 'none', e.playbookId ? e.name : 'No playbook', e.playbookId ? `0 ${e.name}` : '1')),
    },
    // Only for a journal with strategies: each one trade, the positions in no strategy last.
    ...(b.byStrategy.some((e) => e.strategy)
      ? [
          {
            id: 'by-strategy' as const,
            title: 'By strategy',
            column: 'Strategy',
            rows: b.byStrategy.map((e) => row(e, e.strategy ?? 'none', e.strategy ? strategyKindNames[e.strategy] : 'Not in a strategy', e.strategy ? `0 ${strategyKindNames[e.strategy]}` : '1')),
          },
        ]
      : []),
    { id: 'by-month', title: 'By month', column: 'Month', rows: b.byMonth.slice().reverse().map((e) => row(e, e.month, monthLabel(e.month), e.month)) },
    { id: 'by-week', title: 'By week', column: 'Week', rows: b.byWeek.slice().reverse().map((e) => row(e, e.week, weekLabel(e.week), e.week)) },
    { id: 'by-year', title: 'By year', column: 'Year', rows: b.byYear.slice().reverse().map((e) => row(e, e.year, e.year, e.year)) },
  ];
}

/** rangeLabel names an R bucket: "-1R to 0R", "below -3R", "3R and above". */
export function rangeLabel(from: string | null, to: string | null): string {
  const r = (v: string) => `${formatDecimal(v, 0, 2)}R`;
  if (from === null && to !== null) return `Below ${r(to)}`;
  if (to === null && from !== null) return `${r(from)} and above`;
  if (from !== null && to !== null) return `${r(from)} to ${r(to)}`;
  return 'Any R';
}

/** RDistribution is a bar per R range, as a table so every count is read out (the trades' R, or an excursion's: title). */
export function RDistribution({ buckets, rTrades, trades, title = 'R-multiple distribution' }: { buckets: Block['rDistribution']; rTrades: number; trades: number; title?: string }) {
  const most = Math.max(1, ...buckets.map((b) => b.trades));
  return (
    <section className="card" aria-label={title}>
      <h2>{title}</h2>
      <p className="muted">
        {rTrades} of {trades} trades have an R multiple (a planned stop).
      </p>
      <div className="table-wrap">
        <table className="bars">
          <caption className="sr-only">Trades per range of R multiple</caption>
          <thead>
            <tr>
              <th scope="col">R multiple</th>
              <th scope="col" className="num">
                Trades
              </th>
              <th scope="col" className="bar-col">
                <span className="sr-only">Share</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {buckets.map((b) => {
              const negative = b.to !== null && Number(b.to) <= 0;
              return (
                <tr key={`${b.from}:${b.to}`}>
                  <th scope="row">{rangeLabel(b.from, b.to)}</th>
                  <td className="num">{b.trades}</td>
                  <td className="bar-col" aria-hidden="true">
                    <div className={`bar ${negative ? 'bar-neg' : 'bar-pos'}`} style={{ width: `${(100 * b.trades) / most}%` }} />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** formatDuration is a hold time in words at two units at most: "45s", "12m 5s", "3h 20m", "2d 4h". */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds == null) return '—';
  const units: Array<[string, number]> = [
    ['d', 86400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ];
  const s = Math.max(0, Math.round(seconds));
  const first = units.findIndex(([, size]) => s >= size);
  if (first < 0) return '0s';
  const [bigName, bigSize] = units[first]!;
  const parts = [`${Math.floor(s / bigSize)}${bigName}`];
  const next = units[first + 1];
  if (next && Math.floor((s % bigSize) / next[1]) > 0) parts.push(`${Math.floor((s % bigSize) / next[1])}${next[0]}`);
  return parts.join(' ');
}

/** WinnersLosers compares the winning and losing trades' hold time and size. */
export function WinnersLosers({ data, currency }: { data: Block['winnersLosers']; currency: string }) {
  const cell = (v: string | null | undefined, f: (v: string) => string, side: string) => (v == null ? <Absent why={`no ${side}`} /> : f(v));
  const w = data.winners;
  const l = data.losers;
  return (
    <section className="card" aria-label="Winners against losers">
      <h2>Winners against losers</h2>
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">
                <span className="sr-only">Figure</span>
              </th>
              <th scope="col" className="num">
                Winners
              </th>
              <th scope="col" className="num">
                Losers
              </th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <th scope="row">Trades</th>
              <td className="num">{w.trades}</td>
              <td className="num">{l.trades}</td>
            </tr>
            <tr>
              <th scope="row">Average hold time</th>
              <td className="num">{w.averageHoldSeconds == null ? <Absent why="no winners" /> : formatDuration(w.averageHoldSeconds)}</td>
              <td className="num">{l.averageHoldSeconds == null ? <Absent why="no losers" /> : formatDuration(l.averageHoldSeconds)}</td>
            </tr>
            <tr>
              <th scope="row">Average size (quantity)</th>
              <td className="num">{cell(w.averageQuantity, (v) => formatDecimal(v, 0, 4), 'winners')}</td>
              <td className="num">{cell(l.averageQuantity, (v) => formatDecimal(v, 0, 4), 'losers')}</td>
            </tr>
            <tr>
              <th scope="row">Average size (cost)</th>
              <td className="num">{cell(w.averageNotional, (v) => formatMoney(v, currency), 'winners')}</td>
              <td className="num">{cell(l.averageNotional, (v) => formatMoney(v, currency), 'losers')}</td>
            </tr>
          </tbody>
        </table>
      </div>
      <p>
        Payoff ratio (average win over average loss):{' '}
        <strong>{data.payoffRatio ? formatDecimal(data.payoffRatio, 2) : <Absent why={w.trades === 0 ? 'no winners yet' : 'no losers yet'} />}</strong>
      </p>
    </section>
  );
}

type CriterionEntry = Block['byCriterion'][number];

/** CriterionBreakdown sets, for each playbook criterion, the trades that met it beside those of the playbook that missed it. */
export function CriterionBreakdown({ rows, currency }: { rows: CriterionEntry[]; currency: string }) {
  const title = 'By playbook criterion';
  const side = (pick: (r: CriterionEntry) => Figures, name: string, optional: boolean): SortColumn<CriterionEntry>[] => [
    { key: `${name}Trades`, label: `${name}: trades`, numeric: true, optional, sortValue: (r) => pick(r).trades, render: (r) => pick(r).trades },
    { key: `${name}WinRate`, label: `${name}: win rate`, numeric: true, sortValue: (r) => num(pick(r).winRate), render: (r) => formatPercent(pick(r).winRate) },
    {
      key: `${name}Net`,
      label: `${name}: net P&L`,
      numeric: true,
      sortValue: (r) => num(pick(r).netPnl),
      render: (r) => <span className={pnlClass(pick(r).netPnl)}>{formatMoney(pick(r).netPnl, currency)}</span>,
    },
    { key: `${name}R`, label: `${name}: avg R`, numeric: true, optional, sortValue: (r) => num(pick(r).averageR), render: (r) => rCell(pick(r)) },
    { key: `${name}Pf`, label: `${name}: profit factor`, numeric: true, optional: true, sortValue: (r) => num(pick(r).profitFactor), render: (r) => profitFactorCell(pick(r)) },
  ];
  const columns: SortColumn<CriterionEntry>[] = [
    { key: 'criterion', label: 'Criterion', rowHeader: true, sortValue: (r) => `${r.playbook} ${r.text}`, render: (r) => `${r.playbook}: ${r.text}` },
    ...side((r) => r.met, 'Met', false),
    ...side((r) => r.missed, 'Missed', true),
  ];
  return (
    <section className="card" aria-label={title}>
      <h2>{title}</h2>
      <p className="muted">Among each playbook's trades: those that met the criterion, against those that missed it.</p>
      {rows.length === 0 ? <p className="muted">No trade follows a playbook with a checklist yet.</p> : <SortableTable caption={title} columns={columns} rows={rows} rowKey={(r) => r.criterionId} />}
    </section>
  );
}
