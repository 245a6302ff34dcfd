// The calculator form, the request it makes, and the words for each outcome.
import type { Schemas } from '../../api/client';
import { signOf } from '../../format';
import { normalizeDecimal } from '../../numbers';
import { feeFields } from '../Brokerages';

export interface CalculatorForm {
  mode: 'stock' | 'options';
  direction: 'long' | 'short';
  entryPrice: string;
  stopLoss: string;
  targetPrice: string;
  basis: 'dollar' | 'percent';
  dollarRisk: string;
  balance: string;
  riskPercent: string;
  buyingPower: string;
  fees: 'none' | 'schedule' | 'manual';
  brokerageId: string;
  manualFees: string;
}

export const initialForm: CalculatorForm = {
  mode: 'stock',
  direction: 'long',
  entryPrice: '',
  stopLoss: '',
  targetPrice: '',
  basis: 'percent',
  dollarRisk: '',
  balance: '',
  riskPercent: '1',
  buyingPower: '',
  fees: 'none',
  brokerageId: '',
  manualFees: '',
};

type Input = Schemas['CalculatorInput'];
type Brokerage = Pick<Schemas['Brokerage'], 'id' | (typeof feeFields)[number][0]>;

/**
 * calculatorRequest builds the body of POST /api/calculator from the form:
 * exactly one risk basis, optional fields left out when blank, and the fee
 * schedule of the chosen brokerage or the manual fee (never both). null
 * while a required field is still empty (nothing to ask yet).
 */
export function calculatorRequest(f: CalculatorForm, brokerages: Brokerage[] = []): Input | null {
  // What a person typed (25,000) in the API's form (25000).
  const t = (s: string) => normalizeDecimal(s);
  if (!t(f.entryPrice) || !t(f.stopLoss)) return null;
  const body: Input = { mode: f.mode, direction: f.direction, entryPrice: t(f.entryPrice), stopLoss: t(f.stopLoss) };
  if (t(f.targetPrice)) body.targetPrice = t(f.targetPrice);
  if (f.basis === 'dollar') {
    if (!t(f.dollarRisk)) return null;
    body.dollarRisk = t(f.dollarRisk);
  } else {
    if (!t(f.balance) || !t(f.riskPercent)) return null;
    body.balance = t(f.balance);
    body.riskPercent = t(f.riskPercent);
  }
  if (t(f.buyingPower)) body.buyingPower = t(f.buyingPower);
  if (f.fees === 'manual' && t(f.manualFees)) body.manualFees = t(f.manualFees);
  if (f.fees === 'schedule') {
    const b = brokerages.find((x) => x.id === f.brokerageId);
    if (b) {
      const schedule: Schemas['FeeSchedule'] = {};
      for (const [k] of feeFields) schedule[k] = b[k];
      body.feeSchedule = schedule;
    }
  }
  return body;
}

type Output = Schemas['CalculatorOutput'];

/** sizingStatusText explains in words why a calculation sized nothing. */
export function sizingStatusText(out: Pick<Output, 'sizingStatus'>, form: Pick<CalculatorForm, 'basis' | 'balance' | 'buyingPower' | 'mode'>): string | null {
  const unit = form.mode === 'options' ? 'contract' : 'share';
  switch (out.sizingStatus) {
    case undefined:
      return null;
    case 'nothing-to-size-against': {
      const s = signOf(normalizeDecimal(form.balance));
      if (form.basis === 'percent' && (s === 'zero' || s === 'negative')) {
        return 'Nothing to size against: the account balance is zero or negative, so a percent of it is no risk budget at all.';
      }
      return `Nothing to size against: the risk budget does not cover the risk of a single ${unit} (the distance from entry to stop${form.mode === 'options' ? ' times 100' : ''}). Widen the budget or tighten the stop.`;
    }
    case 'exceeds-maximum':
      return 'Too large to size: the risk budget is over 99,999,999.99, or the position would be larger than the calculator can count. Lower the risk or check the prices.';
    case 'buying-power-zero': {
      const s = signOf(normalizeDecimal(form.buyingPower));
      if (s === 'zero' || s === 'negative') return `No buying power: with buying power of zero or less not a single ${unit} can be bought.`;
      return `Not enough buying power: the ${form.buyingPower.trim() ? 'buying power' : 'account balance'} cannot fund a single ${unit} at the entry price.`;
    }
  }
}

/** cappedText explains a size set by the buying-power cap rather than the risk budget. */
export function cappedText(out: Pick<Output, 'buyingPowerLimited'>, form: Pick<CalculatorForm, 'buyingPower'>): string | null {
  if (!out.buyingPowerLimited) return null;
  return `Capped: the risk budget allows more, but the ${form.buyingPower.trim() ? 'buying power' : 'account balance'} funds only this many at the entry price.`;
}
