// The forex and CFD position-size calculators of the Calculator screen.
import { useState, type ReactNode } from 'react';
import { ApiError, client, unwrap, type Schemas } from '../../api/client';
import { useAccounts } from '../../api/queries';
import { ErrorNote, Field, SelectField } from '../../components/ui';
import { formatDecimal, formatMoney, minorUnits } from '../../format';
import { useSettledQuery } from '../../hooks';
import {
  cfdRate,
  cfdRequest,
  currencyCode,
  forexRate,
  forexRequest,
  pairCurrencies,
  steppedStatusText,
  type CFDForm,
  type ForexForm,
  type RiskFields,
} from './stepped';

type ForexOutput = Schemas['ForexCalculatorOutput'];
type CFDOutput = Schemas['CFDCalculatorOutput'];

/** The form's labels for the API's fields, as they read in a sentence. */
const forexLabels: Record<string, string> = { lotStep: 'lot step' };
const cfdLabels: Record<string, string> = { quoteCurrency: 'CFD currency', contractStep: 'contract step' };

/** Pairs offered while typing; any pair the server reads may be typed. */
const commonPairs = ['EUR/USD', 'GBP/USD', 'USD/JPY', 'USD/CHF', 'AUD/USD', 'USD/CAD', 'NZD/USD', 'EUR/GBP', 'EUR/JPY', 'GBP/JPY', 'EUR/CHF', 'AUD/JPY', 'XAU/USD', 'XAG/USD'];

type Setter<F> = (f: F) => void;

/** Facts is a list of labelled figures; rows without a value are left out. */
function Facts({ rows }: { rows: Array<[string, string | undefined]> }) {
  return (
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
  );
}

/**
 * RiskFieldset is the direction, prices, account currency and risk basis both forms share, with the account picker
 * that fills the currency and the balance.
 */
function RiskFieldset<F extends RiskFields>({
  form,
  setForm,
  account,
  fe,
  children,
}: {
  form: F;
  setForm: Setter<F>;
  account: string;
  fe: (field: string) => string | undefined;
  children?: ReactNode;
}) {
  const accounts = useAccounts();
  const [accountId, setAccountId] = useState('');
  const set = (k: keyof RiskFields) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });
  const useAccount = (id: string) => {
    setAccountId(id);
    const a = accounts.data?.find((x) => x.id === id);
    if (!a) return;
    setForm({
      ...form,
      basis: 'percent',
      accountCurrency: a.currency,
      // As a person writes it (27,205.34), not as the API stores it (27205.3400).
      balance: formatDecimal(a.balance, minorUnits(a.currency), 4),
      riskPercent: a.defaultRiskPercent ?? form.riskPercent,
    });
  };
  return (
    <>
      <div className="grid">
        {children}
        <SelectField label="Direction" value={form.direction} onChange={set('direction')} error={fe('direction')}>
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
            <input type="radio" name="stepped-basis" checked={form.basis === 'percent'} onChange={() => setForm({ ...form, basis: 'percent' })} />
            Percent of balance
          </label>
          <label className="check">
            <input type="radio" name="stepped-basis" checked={form.basis === 'amount'} onChange={() => setForm({ ...form, basis: 'amount' })} />
            Fixed amount
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
              <Field
                label="Account balance"
                inputMode="decimal"
                value={form.balance}
                onChange={set('balance')}
                error={fe('balance')}
                hint={`In ${account || 'the account currency'}. May be zero or negative for a losing account.`}
              />
              <Field label="Risk percent" inputMode="decimal" value={form.riskPercent} onChange={set('riskPercent')} error={fe('riskPercent')} hint="More than 0, at most 100." />
            </>
          ) : (
            <Field label="Risk amount" inputMode="decimal" value={form.riskAmount} onChange={set('riskAmount')} error={fe('riskAmount')} hint={`In ${account || 'the account currency'}.`} />
          )}
        </div>
      </fieldset>
    </>
  );
}

/** AccountCurrencyField is the account currency, showing the default until the person types one. */
function AccountCurrencyField<F extends RiskFields>({ form, setForm, account, error }: { form: F; setForm: Setter<F>; account: string; error: string | undefined }) {
  return (
    <Field
      label="Account currency"
      list="currencies"
      maxLength={3}
      value={form.accountCurrency ?? account}
      onChange={(e) => setForm({ ...form, accountCurrency: e.target.value })}
      error={error}
      hint="Risk, pip values and results are in this currency."
    />
  );
}

/** RateField asks for the one conversion rate the calculation needs, in words. */
function RateField<F extends RiskFields>({ form, setForm, rate, why, error }: { form: F; setForm: Setter<F>; rate: { from: string; to: string }; why: string; error: string | undefined }) {
  return (
    <Field
      label={`Value of 1 ${rate.from} in ${rate.to}`}
      inputMode="decimal"
      value={form.conversionRate}
      onChange={(e) => setForm({ ...form, conversionRate: e.target.value })}
      error={error}
      hint={`The conversion rate: ${why}, so the calculator needs what 1 ${rate.from} is worth in ${rate.to}.`}
    />
  );
}

/** Outcome is the result card's body: the prompt, the error sentences, or the answer. */
function Outcome<T>({
  asked,
  prompt,
  query,
  stale,
  labels,
  children,
}: {
  asked: boolean;
  prompt: string;
  query: { error: unknown; isError: boolean; data: T | undefined };
  stale: boolean;
  labels: Record<string, string>;
  children: (out: T) => ReactNode;
}) {
  const err = query.error instanceof ApiError ? query.error : undefined;
  if (!asked) return <p className="muted">{prompt}</p>;
  if (err) {
    return (
      <div className="note note-error" role="alert">
        <ul>
          {err.sentences({ labels }).map((s) => (
            <li key={s}>{s}</li>
          ))}
        </ul>
      </div>
    );
  }
  if (query.isError) return <ErrorNote error={query.error} />;
  if (query.data === undefined) return <p className="muted">Calculating…</p>;
  return <div style={{ opacity: stale ? 0.6 : 1 }}>{children(query.data)}</div>;
}

/** asGiven formats a count the API wrote with the places it wrote (a lot or contract step's: 3.70, 0.505). */
function asGiven(value: string): string {
  const places = value.split('.')[1]?.length ?? 0;
  return formatDecimal(value, places, places);
}

/** conversionText says which rate converted the quote currency's figures, and where it came from. */
function conversionText(source: string, rate: string, quote: string | undefined, account: string): string {
  switch (source) {
    case 'quote':
      return quote ? `None: the figures are in ${account} already` : 'None';
    case 'base':
      return `1 ${quote} = ${formatDecimal(rate, 0, 10)} ${account} (1 ÷ the entry price)`;
    default:
      return quote ? `1 ${quote} = ${formatDecimal(rate, 0, 10)} ${account} (as given)` : `× ${formatDecimal(rate, 0, 10)} (as given)`;
  }
}

function ForexResults({ out, form }: { out: ForexOutput; form: ForexForm }) {
  const money = (v: string | undefined) => (v === undefined ? undefined : formatMoney(v, out.accountCurrency));
  const status = steppedStatusText(out.sizingStatus, form, 'lot', form.lotStep);
  return (
    <>
      <p className="big-number" data-testid="forex-lots">
        {asGiven(out.lots)} lots
      </p>
      <p className="muted" data-testid="forex-units">
        {formatDecimal(out.units, 0, 5)} units of {out.pair.split('/')[0]} · {formatDecimal(out.miniLots, 0, 4)} mini lots · {formatDecimal(out.microLots, 0, 3)} micro lots
      </p>
      {status && (
        <p className="note note-warn" data-testid="sizing-status">
          {status}
        </p>
      )}
      <Facts
        rows={[
          ['Stop distance', `${formatDecimal(out.stopPips, 0, 6)} pips (a pip is ${out.pipSize})`],
          ['Pip value, 1 standard lot', money(out.pipValuePerLot)],
          ['Risk at the stop', money(out.actualRisk)],
          ['Risk budget', money(out.riskBudget)],
          ['Position value', money(out.positionValue)],
          ['Target distance', out.rewardPips === undefined ? undefined : `${formatDecimal(out.rewardPips, 0, 6)} pips`],
          ['Reward at the target', money(out.reward)],
          ['Reward : risk', out.riskRewardRatio === undefined ? undefined : `${formatDecimal(out.riskRewardRatio, 2)} : 1`],
          ['Conversion', conversionText(out.conversionSource, out.conversionRate, out.quoteCurrency, out.accountCurrency)],
        ]}
      />
    </>
  );
}

export function ForexCalculator({ form, setForm, defaultCurrency }: { form: ForexForm; setForm: Setter<ForexForm>; defaultCurrency: string }) {
  const account = currencyCode(form.accountCurrency ?? defaultCurrency);
  const request = forexRequest(form, account);
  const { query, stale } = useSettledQuery('calculator-forex', request, (body: Schemas['ForexCalculatorInput']) => unwrap(client.POST('/api/calculator/forex', { body })));
  const err = query.error instanceof ApiError ? query.error : undefined;
  const fe = (f: string) => err?.fieldError(f, { labels: forexLabels });
  const rate = forexRate(form, account);
  const pair = pairCurrencies(form.pair);
  const prompt =
    rate && !form.conversionRate.trim() && form.entryPrice.trim() && form.stopLoss.trim()
      ? `Enter the value of 1 ${rate.from} in ${rate.to} to size the position: the account is in neither currency of ${pair?.base}/${pair?.quote}.`
      : 'Enter the pair, the entry price, the stop and the risk to size the position.';
  return (
    <div className="grid-2">
      <form className="card" aria-label="Forex calculator inputs" onSubmit={(e) => e.preventDefault()}>
        <datalist id="forex-pairs">
          {commonPairs.map((p) => (
            <option key={p} value={p} />
          ))}
        </datalist>
        <RiskFieldset form={form} setForm={setForm} account={account} fe={fe}>
          <Field
            label="Pair"
            list="forex-pairs"
            value={form.pair}
            onChange={(e) => setForm({ ...form, pair: e.target.value })}
            error={fe('pair')}
            hint="As your platform writes it: EUR/USD, EURUSD, EURUSD.m; XAU/USD for gold."
          />
          <AccountCurrencyField form={form} setForm={setForm} account={account} error={fe('accountCurrency')} />
        </RiskFieldset>
        <div className="grid">
          {rate && <RateField form={form} setForm={setForm} rate={rate} why={`your account is in ${rate.to} and this pair's profit and loss is in ${rate.from}`} error={fe('conversionRate')} />}
          <Field
            label="Lot step"
            inputMode="decimal"
            value={form.lotStep}
            onChange={(e) => setForm({ ...form, lotStep: e.target.value })}
            error={fe('lotStep')}
            hint="The smallest lot size your broker allows: 0.01 is a micro lot."
          />
        </div>
      </form>
      <section className="card" aria-labelledby="forex-results" aria-live="polite">
        <h2 id="forex-results">Result</h2>
        <Outcome asked={request !== null} prompt={prompt} query={query} stale={stale} labels={forexLabels}>
          {(out) => <ForexResults out={out} form={form} />}
        </Outcome>
        <p className="hint">A standard lot is 100,000 units of the base currency (100 oz of gold, 5,000 of silver); a mini lot a tenth of it, a micro lot a hundredth. The size is rounded down to the lot step.</p>
      </section>
    </div>
  );
}

function CFDResults({ out, form }: { out: CFDOutput; form: CFDForm }) {
  const money = (v: string | undefined) => (v === undefined ? undefined : formatMoney(v, out.accountCurrency));
  const status = steppedStatusText(out.sizingStatus, form, 'contract', form.contractStep);
  return (
    <>
      <p className="big-number" data-testid="cfd-contracts">
        {asGiven(out.contracts)} contracts
      </p>
      {status && (
        <p className="note note-warn" data-testid="sizing-status">
          {status}
        </p>
      )}
      <Facts
        rows={[
          ['Stop distance', `${formatDecimal(out.stopPoints, 0, 8)} points`],
          ['Risk per contract', money(out.riskPerContract)],
          ['Risk at the stop', money(out.actualRisk)],
          ['Risk budget', money(out.riskBudget)],
          ['Position value', money(out.positionValue)],
          ['Target distance', out.rewardPoints === undefined ? undefined : `${formatDecimal(out.rewardPoints, 0, 8)} points`],
          ['Reward at the target', money(out.reward)],
          ['Reward : risk', out.riskRewardRatio === undefined ? undefined : `${formatDecimal(out.riskRewardRatio, 2)} : 1`],
          ['Conversion', conversionText(out.conversionSource, out.conversionRate, out.quoteCurrency, out.accountCurrency)],
        ]}
      />
    </>
  );
}

export function CFDCalculator({ form, setForm, defaultCurrency }: { form: CFDForm; setForm: Setter<CFDForm>; defaultCurrency: string }) {
  const account = currencyCode(form.accountCurrency ?? defaultCurrency);
  const request = cfdRequest(form, account);
  const { query, stale } = useSettledQuery('calculator-cfd', request, (body: Schemas['CFDCalculatorInput']) => unwrap(client.POST('/api/calculator/cfd', { body })));
  const err = query.error instanceof ApiError ? query.error : undefined;
  const fe = (f: string) => err?.fieldError(f, { labels: cfdLabels });
  const rate = cfdRate(form, account);
  const prompt =
    rate && !form.conversionRate.trim() && form.entryPrice.trim() && form.stopLoss.trim()
      ? `Enter the value of 1 ${rate.from} in ${rate.to} to size the position: the point value is in ${rate.from}.`
      : 'Enter the symbol, its point value, the entry price, the stop and the risk to size the position.';
  return (
    <div className="grid-2">
      <form className="card" aria-label="CFD calculator inputs" onSubmit={(e) => e.preventDefault()}>
        <RiskFieldset form={form} setForm={setForm} account={account} fe={fe}>
          <Field label="Symbol" maxLength={32} value={form.symbol} onChange={(e) => setForm({ ...form, symbol: e.target.value })} error={fe('symbol')} hint="As your broker names it: US500, GER40." />
          <AccountCurrencyField form={form} setForm={setForm} account={account} error={fe('accountCurrency')} />
          <Field
            label="CFD currency (optional)"
            list="currencies"
            maxLength={3}
            value={form.quoteCurrency}
            onChange={(e) => setForm({ ...form, quoteCurrency: e.target.value })}
            error={fe('quoteCurrency')}
            hint="The currency the CFD is priced in; leave empty when it is the account's."
          />
          <Field
            label="Point value"
            inputMode="decimal"
            value={form.pointValue}
            onChange={(e) => setForm({ ...form, pointValue: e.target.value })}
            error={fe('pointValue')}
            hint={`What a 1-point move of one contract is worth, in ${currencyCode(form.quoteCurrency) || account || 'the CFD currency'}.`}
          />
        </RiskFieldset>
        <div className="grid">
          {rate && <RateField form={form} setForm={setForm} rate={rate} why={`your account is in ${rate.to} and the point value is in ${rate.from}`} error={fe('conversionRate')} />}
          <Field
            label="Contract step"
            inputMode="decimal"
            value={form.contractStep}
            onChange={(e) => setForm({ ...form, contractStep: e.target.value })}
            error={fe('contractStep')}
            hint="The smallest number of contracts your broker allows."
          />
        </div>
      </form>
      <section className="card" aria-labelledby="cfd-results" aria-live="polite">
        <h2 id="cfd-results">Result</h2>
        <Outcome asked={request !== null} prompt={prompt} query={query} stale={stale} labels={cfdLabels}>
          {(out) => <CFDResults out={out} form={form} />}
        </Outcome>
        <p className="hint">The size is rounded down to the contract step.</p>
      </section>
    </div>
  );
}
