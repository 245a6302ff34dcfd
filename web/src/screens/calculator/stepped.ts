// The forex and CFD calculator forms (POST /api/calculator/forex and
// /api/calculator/cfd), the requests they make, and the words for their
// outcomes.
import type { Schemas } from '../../api/client';
import { signOf } from '../../format';
import { normalizeDecimal } from '../../numbers';

/** The risk basis both forms share with the stock calculator: a fixed amount, or a percent of a balance. */
export interface RiskFields {
  direction: 'long' | 'short';
  entryPrice: string;
  stopLoss: string;
  targetPrice: string;
  basis: 'amount' | 'percent';
  riskAmount: string;
  balance: string;
  riskPercent: string;
  /** The account currency as typed; null until the person types one (the default is shown meanwhile). */
  accountCurrency: string | null;
  conversionRate: string;
}

export interface ForexForm extends RiskFields {
  pair: string;
  lotStep: string;
}

export interface CFDForm extends RiskFields {
  symbol: string;
  /** The currency the CFD is priced in (and its point value); blank: the account currency. */
  quoteCurrency: string;
  pointValue: string;
  contractStep: string;
}

const risk: RiskFields = {
  direction: 'long',
  entryPrice: '',
  stopLoss: '',
  targetPrice: '',
  basis: 'percent',
  riskAmount: '',
  balance: '',
  riskPercent: '1',
  accountCurrency: null,
  conversionRate: '',
};

export const initialForexForm: ForexForm = { ...risk, pair: 'EUR/USD', lotStep: '0.01' };
export const initialCFDForm: CFDForm = { ...risk, symbol: '', quoteCurrency: '', pointValue: '1', contractStep: '0.01' };

/** currencyCode is a typed currency code as the API reads it: trimmed, upper case. */
export function currencyCode(text: string): string {
  return text.trim().toUpperCase();
}

/**
 * pairCurrencies guesses a pair's base and quote from what was typed ("EUR/USD", "EURUSD", "EUR_USD", "EURUSD.m"):
 * the first three letters and the three after an optional separator, as the server reads them
 * (shared/instrument.ParseForex, which also checks them). The form uses the guess only to say which conversion rate
 * the pair needs; null while it is not a pair yet.
 */
export function pairCurrencies(pair: string): { base: string; quote: string } | null {
  const m = /^\s*([A-Za-z]{3})[/_.\-: ]?([A-Za-z]{3})/.exec(pair);
  if (!m) return null;
  return { base: (m[1] ?? '').toUpperCase(), quote: (m[2] ?? '').toUpperCase() };
}

/**
 * neededRate is the conversion rate a calculation needs in words, "1 GBP in USD", when the person must give it (the
 * account currency is neither of the pair's, or not the CFD's currency); null when the server knows the rate itself.
 */
export function neededRate(quote: string | null | undefined, account: string): { from: string; to: string } | null {
  if (!quote || !account || quote === account) return null;
  return { from: quote, to: account };
}

export function forexRate(f: ForexForm, account: string): { from: string; to: string } | null {
  const pair = pairCurrencies(f.pair);
  if (!pair || pair.base === account) return null;
  return neededRate(pair.quote, account);
}

export function cfdRate(f: CFDForm, account: string): { from: string; to: string } | null {
  return neededRate(currencyCode(f.quoteCurrency), account);
}

type RiskBody = Pick<Schemas['ForexCalculatorInput'], 'direction' | 'entryPrice' | 'stopLoss' | 'targetPrice' | 'riskAmount' | 'balance' | 'riskPercent'>;

/** riskBody is the part both requests share; null while a required field is empty. */
function riskBody(f: RiskFields): RiskBody | null {
  const t = (s: string) => normalizeDecimal(s);
  if (!t(f.entryPrice) || !t(f.stopLoss)) return null;
  const body: RiskBody = { direction: f.direction, entryPrice: t(f.entryPrice), stopLoss: t(f.stopLoss) };
  if (t(f.targetPrice)) body.targetPrice = t(f.targetPrice);
  if (f.basis === 'amount') {
    if (!t(f.riskAmount)) return null;
    body.riskAmount = t(f.riskAmount);
  } else {
    if (!t(f.balance) || !t(f.riskPercent)) return null;
    body.balance = t(f.balance);
    body.riskPercent = t(f.riskPercent);
  }
  return body;
}

/**
 * forexRequest builds the body of POST /api/calculator/forex: one risk basis, blank optional fields left out, and the
 * conversion rate only when the pair needs one from the person (never a stale one for another pair). null while a
 * required field, the rate among them, is still empty, or the account currency is not three letters yet.
 */
export function forexRequest(f: ForexForm, account: string): Schemas['ForexCalculatorInput'] | null {
  const shared = riskBody(f);
  if (!shared || !f.pair.trim() || account.length !== 3) return null;
  const body: Schemas['ForexCalculatorInput'] = { pair: f.pair.trim(), accountCurrency: account, ...shared };
  if (forexRate(f, account)) {
    const rate = normalizeDecimal(f.conversionRate);
    if (!rate) return null;
    body.conversionRate = rate;
  }
  const step = normalizeDecimal(f.lotStep);
  if (step) body.lotStep = step;
  return body;
}

/** cfdRequest builds the body of POST /api/calculator/cfd, as forexRequest does. */
export function cfdRequest(f: CFDForm, account: string): Schemas['CFDCalculatorInput'] | null {
  const shared = riskBody(f);
  const pointValue = normalizeDecimal(f.pointValue);
  if (!shared || !f.symbol.trim() || !pointValue || account.length !== 3) return null;
  const body: Schemas['CFDCalculatorInput'] = { symbol: f.symbol.trim(), accountCurrency: account, pointValue, ...shared };
  const quote = currencyCode(f.quoteCurrency);
  if (quote) body.quoteCurrency = quote;
  if (cfdRate(f, account)) {
    const rate = normalizeDecimal(f.conversionRate);
    if (!rate) return null;
    body.conversionRate = rate;
  }
  const step = normalizeDecimal(f.contractStep);
  if (step) body.contractStep = step;
  return body;
}

/** steppedStatusText explains in words why a forex or CFD calculation sized nothing. */
export function steppedStatusText(status: string | undefined, form: Pick<RiskFields, 'basis' | 'balance'>, unit: 'lot' | 'contract', step: string): string | null {
  switch (status) {
    case undefined:
      return null;
    case 'nothing-to-size-against': {
      const s = signOf(normalizeDecimal(form.balance));
      if (form.basis === 'percent' && (s === 'zero' || s === 'negative')) {
        return 'Nothing to size against: the account balance is zero or negative, so a percent of it is no risk budget at all.';
      }
      const smallest = step.trim() || '0.01';
      return `Nothing to size against: the risk budget does not cover the risk of the smallest size, ${smallest} ${unit}${smallest === '1' ? '' : 's'}, from entry to stop. Widen the budget, tighten the stop, or use a smaller ${unit} step if your broker allows one.`;
    }
    case 'exceeds-maximum':
      return `Too large to size: the risk budget is over 99,999,999.99, or the position would be more than 1,000,000,000 ${unit}s. Lower the risk or check the prices.`;
    default:
      return `Nothing sized (${status}).`;
  }
}
