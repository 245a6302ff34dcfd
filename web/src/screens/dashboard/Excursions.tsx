// The dashboard's excursions (how far the price went against and for the
// trades) and exit analysis (how much of that the exits kept). Every
// figure is the API's decimal string, only formatted here.
import type { ReactNode } from 'react';
import type { Schemas } from '../../api/client';
import { formatMoney, formatPercent, pnlClass } from '../../format';
import { Absent, RDistribution, rText } from './Breakdowns';

type Block = Schemas['PerformanceBlock'];
type Stats = Schemas['ExcursionStats'];

/** noExcursion says how a trade gets an excursion, for an empty figure. */
const noExcursion = 'no trade here has one yet: type it on the position’s review, or upload price bars of its symbol';

/** ExcursionFigures sets the adverse excursions (MAE) beside the favourable ones (MFE). */
export function ExcursionFigures({ data, currency }: { data: Block['excursions']; currency: string }) {
  const money = (s: Stats, v: string | null | undefined) => (s.trades === 0 || v == null ? <Absent why={noExcursion} /> : formatMoney(v, currency));
  const r = (s: Stats) => (s.averageR == null ? <Absent why={s.trades === 0 ? noExcursion : 'no trade here has a planned stop'} /> : rText(s.averageR));
  const rows: Array<[string, (s: Stats) => ReactNode]> = [
    ['Trades with one', (s) => s.trades],
    ['Average', (s) => money(s, s.averageMoney)],
    ['Median', (s) => money(s, s.percentiles.p50)],
    ['Middle half (25th to 75th percentile)', (s) => (s.trades === 0 ? <Absent why={noExcursion} /> : `${formatMoney(s.percentiles.p25, currency)} to ${formatMoney(s.percentiles.p75, currency)}`)],
    ['10th to 90th percentile', (s) => (s.trades === 0 ? <Absent why={noExcursion} /> : `${formatMoney(s.percentiles.p10, currency)} to ${formatMoney(s.percentiles.p90, currency)}`)],
    ['Average R', r],
  ];
  return (
    <section className="card" aria-label="Excursions">
      <h2>Excursions (MAE and MFE)</h2>
      <p className="muted">How far the price went against each trade (MAE) and in its favour (MFE) from its average entry, as money and in R.</p>
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">
                <span className="sr-only">Figure</span>
              </th>
              <th scope="col" className="num">
                Against (MAE)
              </th>
              <th scope="col" className="num">
                In favour (MFE)
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map(([label, cell]) => (
              <tr key={label}>
                <th scope="row">{label}</th>
                <td className="num">{cell(data.mae)}</td>
                <td className="num">{cell(data.mfe)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {data.mae.rTrades > 0 && <RDistribution title="MAE in R" buckets={data.mae.rDistribution} rTrades={data.mae.rTrades} trades={data.mae.trades} />}
      {data.mfe.rTrades > 0 && <RDistribution title="MFE in R" buckets={data.mfe.rDistribution} rTrades={data.mfe.rTrades} trades={data.mfe.trades} />}
    </section>
  );
}

/** ExitAnalysis says how much of the favourable excursion the exits kept, and what the stop and target would have made. */
export function ExitAnalysis({ data, currency }: { data: Block['exitAnalysis']; currency: string }) {
  const m = (v: string) => <span className={pnlClass(v)}>{formatMoney(v, currency)}</span>;
  const kept = data.mfeKept;
  const held = (h: Schemas['ExitHeldTo'], level: string) =>
    h.trades === 0 ? (
      <p className="muted">No trade’s price bars reached the {level} before the {level === 'target' ? 'stop' : 'target'}.</p>
    ) : (
      <p>
        {h.trades} {h.trades === 1 ? 'trade' : 'trades'} reached the {level} first: {h.trades === 1 ? 'it' : 'they'} made {m(h.grossPnl)}; exiting at the {level} would have made {m(h.atLevel)}.
      </p>
    );
  return (
    <section className="card" aria-label="Exit analysis">
      <h2>Exit analysis</h2>
      <h3>MFE kept</h3>
      {kept.trades === 0 ? (
        <p className="muted">No trade has an MFE yet: type it on a position’s review, or upload price bars of its symbol.</p>
      ) : (
        <p>
          The exits kept <strong>{kept.share ? formatPercent(kept.share) : <Absent why="the MFEs add up to nothing" />}</strong> of the MFE: {m(kept.grossPnl)} of{' '}
          {m(kept.mfe)} over {kept.trades} {kept.trades === 1 ? 'trade' : 'trades'}.
        </p>
      )}
      <h3>Holding to the target</h3>
      {held(data.holdToTarget, 'target')}
      <h3>Holding to the stop</h3>
      {held(data.holdToStop, 'stop')}
      <p className="muted">P&L here is before fees. Which of the stop and target came first is read from price bars, for trades with both.</p>
    </section>
  );
}
