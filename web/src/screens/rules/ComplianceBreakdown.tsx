import { DataTable, numeric, QueryView } from '../../components/QueryView';
import { formatMoney, formatPercent, pnlClass } from '../../format';
import { ruleText, useCompliance, useRules, type Compliance } from './rules';

type Block = Compliance['breakdown']['byCurrency'][number];

/**
 * rangeOf is the dashboard's date filter when it fits one compliance
 * request (366 days), else the 366 days up to its end (or today).
 */
export function rangeOf(from?: string, to?: string): { from: string; to: string } {
  const end = to ?? new Date().toISOString().slice(0, 10);
  const earliest = new Date(Date.parse(end) - 365 * 86_400_000).toISOString().slice(0, 10);
  return { from: from && from > earliest ? from : earliest, to: end };
}

/**
 * ComplianceBreakdown sets the results of the days that kept every rule
 * beside those of the days that broke one, and each rule's broken days,
 * over the dashboard's dates (at most a year), in the display currency when
 * every account converts into it, else per currency.
 */
export function ComplianceBreakdown({ from, to }: { from?: string | undefined; to?: string | undefined }) {
  const range = rangeOf(from, to);
  const compliance = useCompliance(range.from, range.to, false);
  const rules = useRules();
  if (rules.data?.length === 0) return null;
  return (
    <section className="card" aria-labelledby="compliance-title">
      <h2 id="compliance-title">Rules kept and broken</h2>
      <QueryView query={compliance}>
        {(c) => {
          const blocks = c.breakdown.total ? [c.breakdown.total] : c.breakdown.byCurrency;
          if (c.daysKept + c.daysBroken === 0) return <p className="muted">No trading days from {c.from} to {c.to}.</p>;
          return (
            <>
              <p className="muted">
                From {c.from} to {c.to}: {c.daysKept} day{c.daysKept === 1 ? '' : 's'} kept every rule, {c.daysBroken} broke at least one.
              </p>
              {blocks.map((b) => (
                <BlockTable key={b.currency} block={b} rules={rules.data} />
              ))}
            </>
          );
        }}
      </QueryView>
    </section>
  );
}

function BlockTable({ block, rules }: { block: Block; rules: ReturnType<typeof useRules>['data'] }) {
  const c = block.currency;
  const rows: Array<[string, Block['kept']]> = [
    ['Days that kept every rule', block.kept],
    ['Days that broke a rule', block.broken],
    ...block.byRule
      .filter((r) => r.days > 0)
      .map((r): [string, Block['kept']] => {
        const rule = rules?.find((x) => x.id === r.ruleId);
        return [`Broke: ${rule ? ruleText(rule, '') : r.type}`, r];
      }),
  ];
  return (
    <DataTable caption={`Results in ${c}`} columns={['Days', numeric('Days with closes'), numeric('Trades'), numeric('Win rate'), numeric('Net P&L')]}>
      {rows.map(([label, g]) => (
        <tr key={label}>
          <th scope="row">{label}</th>
          <td className="num">{g.days}</td>
          <td className="num">{g.trades}</td>
          <td className="num">{g.winRate ? formatPercent(g.winRate) : '—'}</td>
          <td className={`num ${pnlClass(g.netPnl)}`}>{formatMoney(g.netPnl, c)}</td>
        </tr>
      ))}
    </DataTable>
  );
}
