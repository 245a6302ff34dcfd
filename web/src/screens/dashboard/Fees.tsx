// The dashboard's fee roll-up: what commissions and fees cost over the
// dashboard's filter, by period, account, broker and asset type, beside the
// gross P&L they were paid to earn (GET /api/performance/fees). Every amount
// is the API's decimal string, only formatted here.
import { useId, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { client, unwrap, type Schemas } from '../../api/client';
import { QueryView } from '../../components/QueryView';
import { SortableTable, type SortColumn } from '../../components/SortableTable';
import { SelectField } from '../../components/ui';
import { MissingRates } from '../../components/MissingRates';
import { groupName } from '../../assetTypes';
import { counted, formatDay, formatMoney, formatPercent, pnlClass } from '../../format';
import type { ApiQuery } from '../../filterState';
import { Absent, weekLabel } from './Breakdowns';
import { monthLabel } from './calendar';
import { Tile } from './Tile';

type FeeBlock = Schemas['FeeBlock'];
type FeeFigures = Schemas['FeeFigures'];
export type FeePeriod = Schemas['FeeReport']['period'];

const periodNames: Record<FeePeriod, string> = { day: 'Day', week: 'Week', month: 'Month', year: 'Year' };

/** periodLabel names a period key of the roll-up: "May 3, 2024", "Week 18, 2024", "May 2024", "2024". */
export function periodLabel(key: string, period: FeePeriod): string {
  switch (period) {
    case 'day':
      return formatDay(key);
    case 'week':
      return weekLabel(key);
    case 'month':
      return monthLabel(key);
    default:
      return key;
  }
}

/** feeShareWhy says why a share of the gross P&L does not exist: there is no profit to take it from. */
export function feeShareWhy(f: Pick<FeeFigures, 'grossPnl'>): string {
  return /^-?0+(\.0+)?$/.test(f.grossPnl) ? 'no gross P&L yet' : 'the gross P&L is a loss';
}

interface Row extends FeeFigures {
  key: string;
  label: string;
  order: string;
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

const num = (v: string | null) => (v === null ? null : Number(v));

function columns(heading: string, currency: string): SortColumn<Row>[] {
  return [
    { key: 'label', label: heading, rowHeader: true, sortValue: (r) => r.order, render: (r) => r.label },
    { key: 'fees', label: 'Fees', numeric: true, sortValue: (r) => Number(r.fees), render: (r) => formatMoney(r.fees, currency) },
    {
      key: 'share',
      label: 'Share of gross P&L',
      numeric: true,
      sortValue: (r) => num(r.feeShare),
      render: (r) => (r.feeShare === null ? <Absent why={feeShareWhy(r)} /> : formatPercent(r.feeShare)),
    },
    { key: 'gross', label: 'Gross P&L', numeric: true, optional: true, sortValue: (r) => Number(r.grossPnl), render: (r) => <span className={pnlClass(r.grossPnl)}>{formatMoney(r.grossPnl, currency)}</span> },
    { key: 'fills', label: 'Fills with a fee', numeric: true, optional: true, sortValue: (r) => r.fills, render: (r) => r.fills },
  ];
}

/** feeTables are a block's breakdowns as the dashboard shows them: periods newest first, the rest most fees first. */
export function feeTables(b: FeeBlock, period: FeePeriod): Array<{ title: string; column: string; rows: Row[] }> {
  return [
    {
      title: `Fees by ${period}`,
      column: periodNames[period],
      rows: b.byPeriod
        .slice()
        .reverse()
        .map((p) => ({ ...p, key: p.period, label: periodLabel(p.period, period), order: p.period })),
    },
    { title: 'Fees by account', column: 'Account', rows: b.byAccount.map((a) => ({ ...a, key: a.accountId, label: a.name, order: a.name })) },
    {
      title: 'Fees by broker',
      column: 'Broker',
      rows: b.byBroker.map((x) => ({ ...x, key: x.brokerageId ?? 'none', label: x.name ?? 'No broker fee schedule', order: x.name ?? '~' })),
    },
    { title: 'Fees by asset type', column: 'Asset type', rows: b.byAssetType.map((x) => ({ ...x, key: x.assetType, label: groupName(x.assetType), order: x.assetType })) },
  ];
}

function FeeTable({ title, column, rows, currency, level }: { title: string; column: string; rows: Row[]; currency: string; level: 'h3' | 'h4' }) {
  const Heading = level;
  return (
    <section aria-label={title}>
      <Heading>{title}</Heading>
      {rows.length === 0 ? <p className="muted">Nothing in this period.</p> : <SortableTable caption={title} columns={columns(column, currency)} rows={rows} rowKey={(r) => r.key} />}
    </section>
  );
}

function Block({ block, period, heading }: { block: FeeBlock; period: FeePeriod; heading?: string }) {
  const s = block.summary;
  const c = block.currency;
  const [byPeriod, ...rest] = feeTables(block, period);
  const level = heading ? 'h4' : 'h3';
  return (
    <>
      {heading && <h3>{heading}</h3>}
      <div className="tiles" aria-label={heading ? `Fee figures, ${heading}` : 'Fee figures'}>
        <Tile label="Fees paid" value={formatMoney(s.fees, c)} note={counted(s.fills, 'fill') + ' with a fee'} />
        <Tile label="Share of gross P&L" value={s.feeShare && formatPercent(s.feeShare)} why={capitalized(feeShareWhy(s))} />
        <Tile label="Gross P&L" value={formatMoney(s.grossPnl, c)} className={pnlClass(s.grossPnl)} note="Before fees" />
        <Tile label="Net P&L" value={formatMoney(s.netPnl, c)} className={pnlClass(s.netPnl)} note="After fees" />
      </div>
      {byPeriod && <FeeTable {...byPeriod} currency={c} level={level} />}
      <div className="breakdowns">
        {rest.map((t) => (
          <FeeTable key={t.title} {...t} currency={c} level={level} />
        ))}
      </div>
    </>
  );
}

/**
 * FeeRollup is the dashboard's card of fees for the dashboard's filter
 * (query, the statistics' parameters): the total in the display currency,
 * else each currency's own, with the missing rates named.
 */
export function FeeRollup({ query }: { query: ApiQuery }) {
  const [period, setPeriod] = useState<FeePeriod>('month');
  const titleId = useId();
  const fees = useQuery({
    queryKey: ['performance', 'fees', query, period],
    queryFn: () => unwrap(client.GET('/api/performance/fees', { params: { query: { ...query, period } } })),
  });
  return (
    <section className="card" aria-labelledby={titleId}>
      <div className="card-head">
        <h2 id={titleId}>Fees</h2>
        <SelectField label="Fees by" value={period} onChange={(e) => setPeriod(e.target.value as FeePeriod)}>
          {Object.entries(periodNames).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </SelectField>
      </div>
      <p className="muted">Commissions and fees on the day they were paid, open positions included, against the gross P&L of the exits of the same days.</p>
      <QueryView query={fees}>
        {(report) =>
          report.byCurrency.length === 0 ? (
            <p className="muted">No fees paid and no exits in this filter.</p>
          ) : report.total ? (
            <Block block={report.total} period={period} />
          ) : (
            <>
              <MissingRates subject="fee total" pairs={report.missingPairs} currency={report.displayCurrency} />
              {report.byCurrency.map((b) => (
                <Block key={b.currency} block={b} period={period} heading={`${b.currency} accounts`} />
              ))}
            </>
          )
        }
      </QueryView>
    </section>
  );
}
