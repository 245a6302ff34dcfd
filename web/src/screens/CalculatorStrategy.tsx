import { useState } from 'react';
import { ApiError, client, unwrap, type Schemas } from '../api/client';
import { ErrorNote, Field, PageTitle, SelectField } from '../components/ui';
import { useSettledQuery } from '../hooks';
import { PayoffChart } from './calculator/PayoffChart';
import { RecordTrade } from './calculator/RecordTrade';
import {
  applyTemplate,
  blankLeg,
  breakevenText,
  estimateChart,
  estimateText,
  initialStrategyForm,
  maxLossText,
  maxProfitText,
  netText,
  noPayoffText,
  payoffRange,
  setContracts,
  setExpiry,
  severalExpiries,
  strategyRequest,
  templates,
  type LegForm,
  type StrategyForm,
  type TemplateId,
} from './calculator/strategy';
import { CalculatorTabs } from './calculator/Tabs';

type Output = Schemas['StrategyOutput'];

/** The builder's names for the API's leg fields, as they read in a sentence. */
const fieldLabels: Record<string, string> = {
  type: 'kind of leg (call, put or shares)',
  quantity: 'contracts (or shares)',
  price: 'price per share',
  legs: 'legs',
  volatility: 'implied volatility %',
};

/** The most legs the server analyses at once. */
const maxLegs = 8;

function legTitle(l: LegForm, i: number): string {
  const what = l.type === 'shares' ? 'shares' : l.type;
  return `Leg ${i + 1}: ${l.side} ${what}${l.role ? ` (${l.role})` : ''}`;
}

function Results({ out, form }: { out: Output; form: StrategyForm }) {
  const net = netText(out.netDebit);
  const rows: Array<[string, string, string]> = [
    ['Strategy', out.label, 'strategy-name'],
    [net.label, net.value, 'net-debit'],
  ];
  if (!out.payoffUndefined) {
    rows.push(['Max profit at expiry', maxProfitText(out), 'max-profit'], ['Max loss at expiry', maxLossText(out), 'max-loss'], ['Breakeven at expiry', breakevenText(out), 'breakevens']);
  }
  const fe = out.firstExpiry;
  if (fe) {
    rows.push(
      ['Max profit at the first expiry (estimate)', maxProfitText(fe), 'max-profit'],
      ['Max loss at the first expiry (estimate)', maxLossText(fe), 'max-loss'],
      ['Breakeven at the first expiry (estimate)', breakevenText(fe), 'breakevens'],
    );
  }
  const range = payoffRange(form.legs, fe ? fe.breakevens : out.breakevens);
  const summary = `${fe ? 'Estimated P&L at the first expiry' : 'Payoff at expiry'} of the ${out.label.toLowerCase()}: max profit ${maxProfitText(fe ?? out)}, max loss ${maxLossText(fe ?? out)}, breakeven ${breakevenText(fe ?? out)}.`;
  return (
    <>
      <dl className="facts">
        {rows.map(([k, v, id]) => (
          <div key={k} style={{ display: 'contents' }}>
            <dt>{k}</dt>
            <dd data-testid={id}>{v}</dd>
          </div>
        ))}
      </dl>
      {fe ? (
        <>
          <PayoffChart out={estimateChart(fe)} range={range} summary={summary} estimate />
          <p className="hint" data-testid="estimate-note">
            {estimateText(fe)}
          </p>
        </>
      ) : out.payoffUndefined ? (
        <p className="note" data-testid="no-payoff">
          {noPayoffText}
        </p>
      ) : (
        <PayoffChart out={out} range={range} summary={summary} />
      )}
    </>
  );
}

export default function CalculatorStrategy() {
  const [form, setForm] = useState<StrategyForm>(initialStrategyForm);
  const request = strategyRequest(form);
  const { query: calc, stale } = useSettledQuery('calculator-strategy', request, (body: Schemas['StrategyInput']) => unwrap(client.POST('/api/calculator/strategy', { body })));
  const err = calc.error instanceof ApiError ? calc.error : undefined;
  const fe = (i: number, f: string) => err?.fieldError(`legs[${i}].${f}`, { labels: fieldLabels });
  const setLeg = (i: number, patch: Partial<LegForm>) => setForm({ ...form, legs: form.legs.map((l, j) => (j === i ? { ...l, ...patch } : l)) });
  const removeLeg = (i: number) => setForm({ ...form, legs: form.legs.filter((_, j) => j !== i) });
  return (
    <>
      <PageTitle>Options strategy</PageTitle>
      <CalculatorTabs />
      <div className="grid-2">
        <form className="card" aria-label="Strategy legs" onSubmit={(e) => e.preventDefault()}>
          <fieldset>
            <legend>Template</legend>
            <div className="grid">
              <SelectField label="Strategy" value={form.template} onChange={(e) => setForm(applyTemplate(form, e.target.value as TemplateId))}>
                {Object.entries(templates).map(([id, t]) => (
                  <option key={id} value={id}>
                    {t.name}
                  </option>
                ))}
              </SelectField>
              <Field label="Expiry" type="date" value={form.expiry} onChange={(e) => setForm(setExpiry(form, e.target.value))} hint="Sets every leg that expires with the others." />
              <Field label="Contracts" inputMode="decimal" value={form.contracts} onChange={(e) => setForm(setContracts(form, e.target.value))} hint="Sizes the template's legs; 100 shares a contract." />
              {severalExpiries(form.legs) && (
                <Field
                  label="Implied volatility %"
                  inputMode="decimal"
                  value={form.volatility}
                  onChange={(e) => setForm({ ...form, volatility: e.target.value })}
                  error={err?.fieldError('volatility', { labels: fieldLabels })}
                  hint="The later options' implied volatility, a year (30 for 30%): it prices them for the estimate at the first expiry."
                />
              )}
            </div>
            <p className="hint">Picking a strategy fills in its legs; enter each strike and the price per share, or change any leg.</p>
          </fieldset>
          {form.legs.map((l, i) => (
            <fieldset key={l.key} aria-label={legTitle(l, i)}>
              <legend className="leg-head">{legTitle(l, i)}</legend>
              <div className="grid">
                <SelectField label="Kind" value={l.type} onChange={(e) => setLeg(i, { type: e.target.value as LegForm['type'] })} error={fe(i, 'type')}>
                  <option value="call">Call</option>
                  <option value="put">Put</option>
                  <option value="shares">Shares</option>
                </SelectField>
                <SelectField label="Side" value={l.side} onChange={(e) => setLeg(i, { side: e.target.value as LegForm['side'] })} error={fe(i, 'side')}>
                  <option value="long">Long (bought)</option>
                  <option value="short">Short (sold)</option>
                </SelectField>
                {l.type !== 'shares' && (
                  <>
                    <Field label="Strike" inputMode="decimal" value={l.strike} onChange={(e) => setLeg(i, { strike: e.target.value })} error={fe(i, 'strike')} />
                    <Field label="Expiry" type="date" value={l.expiry} onChange={(e) => setLeg(i, { expiry: e.target.value })} error={fe(i, 'expiry')} />
                  </>
                )}
                <Field label={l.type === 'shares' ? 'Shares' : 'Contracts'} inputMode="decimal" value={l.quantity} onChange={(e) => setLeg(i, { quantity: e.target.value })} error={fe(i, 'quantity')} />
                <Field
                  label={l.type === 'shares' ? 'Share price' : 'Price per share'}
                  inputMode="decimal"
                  value={l.price}
                  onChange={(e) => setLeg(i, { price: e.target.value })}
                  error={fe(i, 'price')}
                  hint={l.type === 'shares' ? undefined : 'The premium as quoted (1.25, not 125).'}
                />
              </div>
              <button type="button" className="ghost" onClick={() => removeLeg(i)}>
                Remove leg {i + 1}
              </button>
            </fieldset>
          ))}
          <div className="row">
            <button type="button" onClick={() => setForm({ ...form, legs: [...form.legs, blankLeg(form.expiry)] })} disabled={form.legs.length >= maxLegs}>
              Add leg
            </button>
            {form.legs.length >= maxLegs && <span className="hint">At most {maxLegs} legs.</span>}
          </div>
        </form>
        <section className="card" aria-labelledby="strategy-results" aria-live="polite">
          <h2 id="strategy-results">Result</h2>
          {form.legs.length === 0 ? (
            <p className="muted">Add a leg, or pick a strategy, to see what it pays at expiry.</p>
          ) : request === null ? (
            <p className="muted">Enter every leg's strike, expiry, size and price to see the strategy.</p>
          ) : err ? (
            <div className="note note-error" role="alert">
              <ul>
                {err.sentences({ labels: fieldLabels }).map((s) => (
                  <li key={s}>{s}</li>
                ))}
              </ul>
            </div>
          ) : calc.isError ? (
            <ErrorNote error={calc.error} />
          ) : calc.data ? (
            <div style={{ opacity: stale ? 0.6 : 1 }}>
              <Results out={calc.data} form={form} />
            </div>
          ) : (
            <p className="muted">Calculating…</p>
          )}
          <p className="hint">Figures are for the whole position: the price per share × 100 shares a contract × the contracts.</p>
        </section>
      </div>
      <RecordTrade form={form} />
    </>
  );
}
