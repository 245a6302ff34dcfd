// A year's tax report (GET /api/tax/report): what it still needs, its
// totals as the return asks for them, the wash sales and the lots, each lot
// with the purchases that made its basis.
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, unwrap } from '../../api/client';
import { DataTable, numeric, opt, optional, type Column } from '../../components/QueryView';
import { rateLink } from '../../components/MissingRates';
import { ErrorNote, Field } from '../../components/ui';
import { counted, formatDay, formatMoney, pnlClass, signOf } from '../../format';
import { normalizeDecimal } from '../../numbers';
import { Tile } from '../dashboard/Tile';
import {
  accountNames,
  lotRuleText,
  matchRuleText,
  missingSentence,
  quantityText,
  washText,
  type Jurisdiction,
  type Missing,
  type TaxLot,
  type TaxReport,
} from './tax';

type Names = ReadonlyMap<string, string>;
type Figures = NonNullable<TaxReport['totals']['shortTerm']>;

/** MarkForm enters a Section 1256 contract's year-end price: the year's list is read, merged and sent back whole. */
function MarkForm({ instrument, year, day }: { instrument: string; year: number; day: string }) {
  const queryClient = useQueryClient();
  const [price, setPrice] = useState('');
  const [index, setIndex] = useState(0);
  const save = useMutation({
    mutationFn: async (value: string) => {
      const current = await unwrap(client.GET('/api/tax/marks', { params: { query: { year } } }));
      const marks = [...current.marks.filter((m) => m.instrument !== instrument), { instrument, price: value }];
      setIndex(marks.length - 1);
      return unwrap(client.PUT('/api/tax/marks', { body: { year, marks } }));
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['tax', 'report'] }),
  });
  const err = save.error instanceof ApiError ? save.error : undefined;
  const field = `marks[${index}].price`;
  const fieldError = err?.fieldError(field, { labels: { [field]: 'year-end price' } });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate(normalizeDecimal(price));
  };
  return (
    <form className="row mark-form" onSubmit={submit} aria-label={`Enter the year-end price of ${instrument}`}>
      <Field
        label={`Year-end price of ${instrument}`}
        inputMode="decimal"
        required
        value={price}
        onChange={(e) => setPrice(e.target.value)}
        error={fieldError}
        hint={`The settlement price on ${formatDay(day)}, per unit, in the contract’s currency`}
      />
      <button type="submit" disabled={save.isPending}>
        Save price
      </button>
      {err && !fieldError && <ErrorNote error={err} />}
    </form>
  );
}

/** MissingInputs names at the top what stops a figure being right, each with what to do. */
export function MissingInputs({ missing, names }: { missing: Missing[]; names: Names }) {
  if (missing.length === 0) return null;
  const markForms = new Set<string>();
  return (
    <section className="note note-warn" role="status" aria-labelledby="tax-missing-title">
      <h2 id="tax-missing-title">{missing.length === 1 ? 'One thing is missing' : `${missing.length} things are missing`} before these figures are right</h2>
      <ul className="missing-list">
        {missing.map((m, i) => {
          // One price per contract and year, whatever the accounts holding it.
          const markKey = m.kind === 'mark' && m.instrument && m.date ? `${m.instrument}|${m.date}` : '';
          const form = markKey !== '' && !markForms.has(markKey);
          if (form) markForms.add(markKey);
          return (
            <li key={i}>
              {missingSentence(m, names)}
              {m.kind === 'rate' && m.pair && (
                <>
                  {' '}
                  <Link to={rateLink(m.pair, m.days?.[0])}>Add the {m.pair} rate</Link>
                </>
              )}
              {form && <MarkForm instrument={m.instrument as string} day={m.date as string} year={Number((m.date as string).slice(0, 4))} />}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function FiguresRow({ label, f, currency }: { label: string; f: Figures; currency: string }) {
  return (
    <tr>
      <th scope="row">{label}</th>
      <td className={`num ${opt}`}>{f.lots}</td>
      <td className={`num ${opt}`}>{formatMoney(f.proceeds, currency)}</td>
      <td className={`num ${opt}`}>{formatMoney(f.basis, currency)}</td>
      <td className={`num ${opt}`}>{formatMoney(f.adjustments, currency)}</td>
      <td className={`num ${pnlClass(f.gain)}`}>{formatMoney(f.gain, currency)}</td>
    </tr>
  );
}

const figureColumns: Column[] = [optional(numeric('Lots')), optional(numeric('Proceeds')), optional(numeric('Cost basis')), optional(numeric('Adjustments')), numeric('Gain or loss')];

/** Totals are the year's figures as the jurisdiction's return asks for them. */
export function Totals({ report }: { report: TaxReport }) {
  const c = report.currency;
  const t = report.totals;
  const money = (v: string | undefined) => formatMoney(v, c);
  if (report.jurisdiction === 'uk' && t.uk) {
    const u = t.uk;
    return (
      <section className="card" aria-labelledby="tax-totals-title">
        <h2 id="tax-totals-title">Capital gains</h2>
        <div className="tiles">
          <Tile label="Disposals" value={String(u.disposals ?? 0)} />
          <Tile label="Disposal proceeds" value={money(u.disposalProceeds)} />
          <Tile label="Allowable costs" value={money(u.allowableCosts)} note="Including fees" />
          <Tile label="Gains" value={money(u.gains)} />
          <Tile label="Losses" value={money(u.losses)} />
          <Tile label="Net gain" value={money(u.netGain)} className={pnlClass(u.netGain)} />
        </div>
      </section>
    );
  }
  if (report.jurisdiction !== 'us') {
    return (
      <section className="card" aria-labelledby="tax-totals-title">
        <h2 id="tax-totals-title">Realised gain</h2>
        <div className="tiles">
          <Tile label="Sales" value={String(t.all.lots)} />
          <Tile label="Proceeds" value={money(t.all.proceeds)} />
          <Tile label="Cost" value={money(t.all.basis)} note="Including fees" />
          <Tile label="Realised gain" value={money(t.all.gain)} className={pnlClass(t.all.gain)} />
        </div>
      </section>
    );
  }
  const s1256 = report.section1256;
  const lines = (t.scheduleD ?? []).filter((l) => l.lots > 0);
  return (
    <section className="card" aria-labelledby="tax-totals-title">
      <h2 id="tax-totals-title">Gains and losses</h2>
      <div className="tiles">
        <Tile label="Short-term" value={money(t.shortTerm?.gain)} className={pnlClass(t.shortTerm?.gain)} note={counted(t.shortTerm?.lots ?? 0, 'lot')} />
        <Tile label="Long-term" value={money(t.longTerm?.gain)} className={pnlClass(t.longTerm?.gain)} note={counted(t.longTerm?.lots ?? 0, 'lot')} />
        {s1256 && <Tile label="Section 1256, net" value={money(s1256.netGain)} className={pnlClass(s1256.netGain)} note={`${money(s1256.longTerm60)} long-term (60%), ${money(s1256.shortTerm40)} short-term (40%)`} />}
      </div>
      {t.shortTerm && t.longTerm && (
        <DataTable caption="Short-term and long-term totals" columns={['Term', ...figureColumns]}>
          <FiguresRow label="Short-term" f={t.shortTerm} currency={c} />
          <FiguresRow label="Long-term" f={t.longTerm} currency={c} />
        </DataTable>
      )}
      <h3>Schedule D</h3>
      {lines.length === 0 ? (
        <p className="muted">No sales this year.</p>
      ) : (
        <DataTable caption="Schedule D lines" columns={['Line', optional('What goes there'), ...figureColumns]}>
          {lines.map((l) => (
            <tr key={l.line}>
              <th scope="row">{l.line}</th>
              <td className={opt}>{l.label}</td>
              <td className={`num ${opt}`}>{l.lots}</td>
              <td className={`num ${opt}`}>{l.line === '4' || l.line === '11' ? '—' : money(l.proceeds)}</td>
              <td className={`num ${opt}`}>{l.line === '4' || l.line === '11' ? '—' : money(l.basis)}</td>
              <td className={`num ${opt}`}>{l.line === '4' || l.line === '11' ? '—' : money(l.adjustments)}</td>
              <td className={`num ${pnlClass(l.gain)}`}>{money(l.gain)}</td>
            </tr>
          ))}
        </DataTable>
      )}
      {s1256 && (
        <>
          <h3>Section 1256 contracts (Form 6781)</h3>
          <dl className="facts">
            <dt>Net gain or loss</dt>
            <dd className={pnlClass(s1256.netGain)}>{money(s1256.netGain)}</dd>
            <dt>60% long-term</dt>
            <dd>{money(s1256.longTerm60)}</dd>
            <dt>40% short-term</dt>
            <dd>{money(s1256.shortTerm40)}</dd>
          </dl>
        </>
      )}
    </section>
  );
}

/** WashSales lists each replacement of a loss: what was sold, when it was bought again, and the loss moved. */
export function WashSales({ report, names }: { report: TaxReport; names: Names }) {
  if (report.washSales.length === 0) return null;
  return (
    <section className="card" aria-labelledby="tax-wash-title">
      <h2 id="tax-wash-title">Wash sales</h2>
      <p className="muted">A loss disallowed because the same stock or contract was bought within 30 days of the sale: it moves into the cost of the shares bought, and counts when they are sold.</p>
      <DataTable caption="Wash sales" columns={['Sold at a loss', optional('Account'), 'Bought again', optional(numeric('Quantity')), numeric('Disallowed')]}>
        {report.washSales.map((w, i) => (
          <tr key={`${w.lossLot}-${w.replacementFill}-${i}`}>
            <th scope="row">
              {w.instrument} on {formatDay(w.sold ?? '')}
            </th>
            <td className={opt}>{accountNames(w.account, names)}</td>
            <td>
              {formatDay(w.replacementDate ?? '')}
              <span className="muted">
                {' '}
                ({daysText(w.daysBetween ?? 0)}
                {w.replacementAccount && w.replacementAccount !== w.account ? `, in ${accountNames(w.replacementAccount, names)}` : ''})
              </span>
            </td>
            <td className={`num ${opt}`}>
              {quantityText(w.quantity)}
              {w.proRata ? ' (part)' : ''}
            </td>
            <td className="num">{formatMoney(w.disallowed, report.currency)}</td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}

/** daysText is how far a purchase was from the sale: "14 days after", "3 days before", "the same day". */
export function daysText(days: number): string {
  if (days === 0) return 'the same day';
  return `${counted(Math.abs(days), 'day')} ${days > 0 ? 'after' : 'before'}`;
}

/** PossiblyIdentical lists losses near a purchase of another instrument on the same underlying: not washed, for the trader to judge. */
export function PossiblyIdentical({ report, names }: { report: TaxReport; names: Names }) {
  if (report.possiblyIdentical.length === 0) return null;
  return (
    <section className="card" aria-labelledby="tax-identical-title">
      <h2 id="tax-identical-title">Possibly substantially identical</h2>
      <p className="muted">These losses are not treated as wash sales. Whether the other instrument is substantially identical is for you or your accountant to judge.</p>
      <ul>
        {report.possiblyIdentical.map((p, i) => (
          <li key={`${p.lossLot}-${i}`}>
            {p.instrument} sold on {formatDay(p.sold ?? '')} at a loss of <span className="pnl-neg">{formatMoney(p.loss, report.currency)}</span>; {p.otherInstrument}{' '}
            bought on {formatDay(p.date ?? '')} ({daysText(p.daysBetween ?? 0)}
            {p.account ? `, in ${accountNames(p.account, names)}` : ''}): possibly substantially identical — for you or your accountant to judge.
          </li>
        ))}
      </ul>
    </section>
  );
}

/** A long list shows this many lots until asked for all. */
const shownLots = 200;

function dayText(day: string | undefined): string {
  return day === 'VARIOUS' ? 'Various' : formatDay(day ?? '');
}

function LotRow({ lot, report, names, soldOn, columns }: { lot: TaxLot; report: TaxReport; names: Names; soldOn: ReadonlyMap<string, string>; columns: number }) {
  const [open, setOpen] = useState(false);
  const c = report.currency;
  const j = report.jurisdiction as Jurisdiction;
  const carried = lot.matches.filter((m) => signOf(m.washAdjustment) !== 'zero' && signOf(m.washAdjustment) !== 'none');
  const matchesId = `lot-${lot.id.replace(/[^A-Za-z0-9-]/g, '-')}-matches`;
  const wash = lot.adjustmentCode === 'W';
  return (
    <>
      <tr className={wash ? 'wash-sale' : undefined}>
        <th scope="row">
          {lot.description}
          {lot.incomplete && <span className="chip chip-warn">Incomplete</span>}
          {wash && (
            <div className="lot-note">
              <span className="chip chip-warn">Wash sale (W)</span> {washText(lot, c)}
            </div>
          )}
          {carried.map((m, i) => (
            <div key={i} className="lot-note">
              Basis includes {formatMoney(m.washAdjustment, c)} of a wash-sale loss
              {m.washedFrom && soldOn.get(m.washedFrom) ? ` from the sale of ${soldOn.get(m.washedFrom)}` : ''}.
            </div>
          ))}
          <div>
            <button type="button" className="link" aria-expanded={open} aria-controls={matchesId} onClick={() => setOpen(!open)}>
              {open ? 'Hide' : 'Show'} which buys made this basis ({lot.matches.length})
            </button>
          </div>
        </th>
        <td className={opt}>{accountNames(lot.account, names)}</td>
        <td className={opt}>{dayText(lot.acquired)}</td>
        <td>{dayText(lot.sold)}</td>
        <td className={`num ${opt}`}>{formatMoney(lot.proceeds, c)}</td>
        <td className={`num ${opt}`}>{formatMoney(lot.basis, c)}</td>
        <td className={`num ${opt}`}>{signOf(lot.adjustment) === 'zero' ? '' : formatMoney(lot.adjustment, c)}</td>
        <td className={`num ${pnlClass(lot.gain)}`}>{formatMoney(lot.gain, c)}</td>
        <td className={opt}>{lotRuleText(lot, j)}</td>
      </tr>
      {open && (
        <tr id={matchesId}>
          <td colSpan={columns}>
            <DataTable caption={`What made the basis of ${lot.description}`} columns={['How matched', 'Acquired', numeric('Quantity'), numeric('Cost'), optional(numeric('Of it, a wash-sale loss')), optional('Account')]}>
              {lot.matches.map((m, i) => (
                <tr key={i}>
                  <th scope="row">{matchRuleText(m.rule)}</th>
                  <td>{m.rule === 'section 104' ? 'Pool' : dayText(m.date)}</td>
                  <td className="num">{quantityText(m.quantity)}</td>
                  <td className="num">{formatMoney(m.cost, c)}</td>
                  <td className={`num ${opt}`}>{signOf(m.washAdjustment) === 'zero' ? '' : formatMoney(m.washAdjustment, c)}</td>
                  <td className={opt}>{accountNames(m.account, names)}</td>
                </tr>
              ))}
            </DataTable>
          </td>
        </tr>
      )}
    </>
  );
}

/** LotList is every disposal of the year, its wash sale marked, its matches a click away. */
export function LotList({ report, names }: { report: TaxReport; names: Names }) {
  const [all, setAll] = useState(false);
  const us = report.jurisdiction === 'us';
  const columns: Column[] = [
    'Description',
    optional('Account'),
    optional('Acquired'),
    'Sold',
    optional(numeric('Proceeds')),
    optional(numeric('Cost basis')),
    optional(numeric('Adjustment')),
    numeric('Gain or loss'),
    optional(us ? 'Term and box' : 'Rule'),
  ];
  const soldOn = new Map(report.lots.map((l) => [l.id, `${l.description} on ${formatDay(l.sold)}`]));
  const lots = all ? report.lots : report.lots.slice(0, shownLots);
  return (
    <section className="card" aria-labelledby="tax-lots-title">
      <h2 id="tax-lots-title">Lots</h2>
      {report.lots.length === 0 ? (
        <p className="muted">No sales in this tax year.</p>
      ) : (
        <>
          <DataTable caption="Lots sold this tax year" columns={columns}>
            {lots.map((l) => (
              <LotRow key={l.id} lot={l} report={report} names={names} soldOn={soldOn} columns={columns.length} />
            ))}
          </DataTable>
          {report.lots.length > shownLots && (
            <button type="button" className="ghost" onClick={() => setAll(!all)} aria-expanded={all}>
              {all ? 'Show fewer' : `Show all ${report.lots.length}`}
            </button>
          )}
        </>
      )}
    </section>
  );
}
