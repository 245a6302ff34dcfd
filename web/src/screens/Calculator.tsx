import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { ApiError, client, unwrap, type Schemas } from '../api/client';
import { useAccounts, useBrokerages, useMe } from '../api/queries';
import { Datalists } from '../components/Datalists';
import { Field, PageTitle, SelectField, ErrorNote } from '../components/ui';
import { formatDecimal, formatMoney, minorUnits } from '../format';
import { useSettledQuery } from '../hooks';
import { CalculatorTabs } from './calculator/Tabs';
import { calculatorRequest, cappedText, initialForm, sizingStatusText, type CalculatorForm } from './calculator/logic';
import { CFDCalculator, ForexCalculator } from './calculator/SteppedCalculators';
import { initialCFDForm, initialForexForm, type CFDForm, type ForexForm } from './calculator/stepped';

type Output = Schemas['CalculatorOutput'];

/** The form's label of each request field, for the list of validation problems. */
/** The form's labels for the API's fields, as they read in a sentence. */
const fieldLabels: Record<string, string> = {
  mode: 'instrument',
  direction: 'direction',
  feeSchedule: 'brokerage fee schedule',
};

function Results({ out, form, currency }: { out: Output; form: CalculatorForm; currency: string | undefined }) {
  const money = (v: string | undefined) => (currency ? formatMoney(v, currency) : formatDecimal(v, 2));
  const unit = form.mode === 'options' ? 'contracts' : 'shares';
  const status = sizingStatusText(out, form);
  const capped = cappedText(out, form);
  const rows: Array<[string, string | undefined]> = [
    ['Per-unit risk', money(out.perUnitRisk)],
    ['Actual dollar risk', money(out.actualDollarRisk)],
    ['Total position value', money(out.totalPositionValue)],
    ['Risk budget (from percent)', out.derivedDollarRisk === undefined ? undefined : money(out.derivedDollarRisk)],
    ['Per-unit reward', out.perUnitReward === undefined ? undefined : money(out.perUnitReward)],
    ['Reward : risk', out.riskRewardRatio === undefined ? undefined : `${formatDecimal(out.riskRewardRatio, 2)} : 1`],
    ['Estimated round-trip fees', out.estimatedFees === undefined ? undefined : money(out.estimatedFees)],
    ['Fees as % of risk', out.feeToRiskPercent === undefined ? undefined : `${formatDecimal(out.feeToRiskPercent, 2)}%`],
    ['Risk with fees', out.adjustedDollarRisk === undefined ? undefined : money(out.adjustedDollarRisk)],
    ['Breakeven price', out.breakeven === undefined ? undefined : formatDecimal(out.breakeven, 2)],
    ['Reward : risk after fees', out.adjustedRiskRewardRatio === undefined ? undefined : `${formatDecimal(out.adjustedRiskRewardRatio, 2)} : 1`],
  ];
  return (
    <>
      <p className="big-number" data-testid="position-size">
        {out.positionSize.toLocaleString()} {unit}
      </p>
      {status && (
        <p className="note note-warn" data-testid="sizing-status">
          {status}
        </p>
      )}
      {capped && <p className="note">{capped}</p>}
      <dl className="facts">
        {rows
          .filter((r): r is [string, string] => r[1] !== undefined)
          .map(([k, v]) => (
            <div key={k} style={{ display: 'contents' }}>
              <dt>{k}</dt>
              <dd>{v}</dd>
            </div>
          ))}
      </dl>
    </>
  );
}

/** The calculators of the position-size page, as the `kind` search parameter names them. */
const kinds = [
  ['stock', 'Stocks & options'],
  ['forex', 'Forex'],
  ['cfd', 'CFD'],
] as const;
type Kind = (typeof kinds)[number][0];

/**
 * Calculator is the position-size page: the stock and options calculator, or the forex or CFD one (`?kind=forex`,
 * `?kind=cfd`). Each keeps what was typed while another is shown.
 */
export default function Calculator() {
  const [params, setParams] = useSearchParams();
  const kind: Kind = kinds.find(([k]) => k === params.get('kind'))?.[0] ?? 'stock';
  const [stock, setStock] = useState<CalculatorForm>(initialForm);
  const [forex, setForex] = useState<ForexForm>(initialForexForm);
  const [cfd, setCFD] = useState<CFDForm>(initialCFDForm);
  const me = useMe();
  const accounts = useAccounts();
  // The account currency the forex and CFD forms start with: the display currency, else the first account's.
  const defaultCurrency = me.data?.displayCurrency ?? accounts.data?.[0]?.currency ?? 'USD';
  const choose = (k: Kind) =>
    setParams(
      (p) => {
        const next = new URLSearchParams(p);
        if (k === 'stock') next.delete('kind');
        else next.set('kind', k);
        return next;
      },
      { replace: true },
    );
  return (
    <>
      <PageTitle>Position size calculator</PageTitle>
      <CalculatorTabs />
      <div className="row" role="radiogroup" aria-label="Calculator">
        {kinds.map(([k, label]) => (
          <label key={k} className="check">
            <input type="radio" name="calculator-kind" checked={kind === k} onChange={() => choose(k)} />
            {label}
          </label>
        ))}
      </div>
      {kind === 'stock' && <StockCalculator form={stock} setForm={setStock} />}
      {kind === 'forex' && <ForexCalculator form={forex} setForm={setForex} defaultCurrency={defaultCurrency} />}
      {kind === 'cfd' && <CFDCalculator form={cfd} setForm={setCFD} defaultCurrency={defaultCurrency} />}
      {kind !== 'stock' && <Datalists />}
    </>
  );
}

/** StockCalculator sizes stock and options positions (POST /api/calculator). */
function StockCalculator({ form, setForm }: { form: CalculatorForm; setForm: (f: CalculatorForm) => void }) {
  const [accountId, setAccountId] = useState('');
  const accounts = useAccounts();
  const brokerages = useBrokerages();
  const request = calculatorRequest(form, brokerages.data);
  const { query: calc, stale } = useSettledQuery('calculator', request, (body: Schemas['CalculatorInput']) => unwrap(client.POST('/api/calculator', { body })));
  const err = calc.error instanceof ApiError ? calc.error : undefined;
  const fe = (f: string) => err?.fieldError(f, { labels: fieldLabels });
  const set = (k: keyof CalculatorForm) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });
  const account = accounts.data?.find((a) => a.id === accountId);
  const useAccount = (id: string) => {
    setAccountId(id);
    const a = accounts.data?.find((x) => x.id === id);
    if (!a) return;
    setForm({
      ...form,
      basis: 'percent',
      // As a person writes it (27,205.34), not as the API stores it (27205.3400).
      balance: formatDecimal(a.balance, minorUnits(a.currency), 4),
      riskPercent: a.defaultRiskPercent ?? form.riskPercent,
      // The account's stored buying power, when it has one, is the cap's basis.
      buyingPower: a.buyingPower ? formatDecimal(a.buyingPower, minorUnits(a.currency), 4) : form.buyingPower,
      ...(a.brokerageId ? { fees: 'schedule' as const, brokerageId: a.brokerageId } : {}),
    });
  };
  const unit = form.mode === 'options' ? 'contract' : 'share';
  return (
    <>
      <div className="grid-2">
        <form className="card" aria-label="Calculator inputs" onSubmit={(e) => e.preventDefault()}>
          <div className="grid">
            <SelectField label="Instrument" value={form.mode} onChange={set('mode')}>
              <option value="stock">Stock (shares)</option>
              <option value="options">Options (contracts of 100)</option>
            </SelectField>
            <SelectField label="Direction" value={form.direction} onChange={set('direction')}>
              <option value="long">Long</option>
              <option value="short">Short</option>
            </SelectField>
            <Field label="Entry price" inputMode="decimal" value={form.entryPrice} onChange={set('entryPrice')} error={fe('entryPrice')} />
            <Field label="Stop loss" inputMode="decimal" value={form.stopLoss} onChange={set('stopLoss')} error={fe('stopLoss')} />
            <Field label="Target price (optional)" inputMode="decimal" value={form.targetPrice} onChange={set('targetPrice')} error={fe('targetPrice')} />
          </div>
          <fieldset>
            <legend>Risk</legend>
            <div className="row" role="radiogroup" aria-label="Risk basis">
              <label className="check">
                <input type="radio" name="basis" checked={form.basis === 'percent'} onChange={() => setForm({ ...form, basis: 'percent' })} />
                Percent of balance
              </label>
              <label className="check">
                <input type="radio" name="basis" checked={form.basis === 'dollar'} onChange={() => setForm({ ...form, basis: 'dollar' })} />
                Fixed dollar risk
              </label>
            </div>
            {accounts.data && accounts.data.length > 0 && (
              <SelectField label="Fill from account" value={accountId} onChange={(e) => useAccount(e.target.value)}>
                <option value="">—</option>
                {accounts.data.map((a) => (
                  <option key={a.id} value={a.id}>
                    {a.name} ({a.currency})
                  </option>
                ))}
              </SelectField>
            )}
            <div className="grid">
              {form.basis === 'percent' ? (
                <>
                  <Field label="Account balance" inputMode="decimal" value={form.balance} onChange={set('balance')} error={fe('balance')} hint="May be zero or negative for a losing account." />
                  <Field label="Risk percent" inputMode="decimal" value={form.riskPercent} onChange={set('riskPercent')} error={fe('riskPercent')} hint="More than 0, at most 100." />
                </>
              ) : (
                <Field label="Dollar risk" inputMode="decimal" value={form.dollarRisk} onChange={set('dollarRisk')} error={fe('dollarRisk')} />
              )}
              <Field
                label="Buying power (optional)"
                inputMode="decimal"
                value={form.buyingPower}
                onChange={set('buyingPower')}
                error={fe('buyingPower')}
                hint="Caps the size; never changes the risk."
              />
            </div>
          </fieldset>
          <fieldset>
            <legend>Fees</legend>
            <div className="row" role="radiogroup" aria-label="Fees">
              {(
                [
                  ['none', 'No fees'],
                  ['schedule', 'Fee schedule'],
                  ['manual', 'Manual estimate'],
                ] as const
              ).map(([v, l]) => (
                <label key={v} className="check">
                  <input type="radio" name="fees" checked={form.fees === v} onChange={() => setForm({ ...form, fees: v })} />
                  {l}
                </label>
              ))}
            </div>
            {form.fees === 'schedule' && (
              <SelectField label="Brokerage fee schedule" value={form.brokerageId} onChange={set('brokerageId')} error={fe('feeSchedule')}>
                <option value="">Choose…</option>
                {brokerages.data?.map((b) => (
                  <option key={b.id} value={b.id}>
                    {b.name}
                  </option>
                ))}
              </SelectField>
            )}
            {form.fees === 'manual' && (
              <Field label="Round-trip fees" inputMode="decimal" value={form.manualFees} onChange={set('manualFees')} error={fe('manualFees')} />
            )}
          </fieldset>
        </form>
        <section className="card" aria-labelledby="calc-results" aria-live="polite">
          <h2 id="calc-results">Result</h2>
          {request === null ? (
            <p className="muted">Enter the entry price, the stop and the risk to size the position.</p>
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
              <Results out={calc.data} form={form} currency={account?.currency} />
            </div>
          ) : (
            <p className="muted">Calculating…</p>
          )}
          <p className="hint">Size is whole {unit}s; per-unit figures are per share.</p>
        </section>
      </div>
    </>
  );
}
