// The options strategy builder: its form, the templates that fill in legs,
// the request it makes and the words for its answer.
import type { Schemas } from '../../api/client';
import { formatDay, formatDecimal } from '../../format';
import { normalizeDecimal } from '../../numbers';

export type LegType = 'call' | 'put' | 'shares';
export type Side = 'long' | 'short';

export interface LegForm {
  /** A stable key for the row while legs are added and removed. */
  key: number;
  type: LegType;
  side: Side;
  strike: string;
  expiry: string;
  /** Contracts, or shares. */
  quantity: string;
  /** Per share. */
  price: string;
  /** What the template asks for in this leg ("lower put"), shown beside its fields. */
  role?: string;
  /** The leg's size per contract of the template (2 for a butterfly's body); absent on legs added by hand. */
  ratio?: number;
  /** The leg expires later than the others (a calendar's or diagonal's long leg). */
  later?: boolean;
}

export interface StrategyForm {
  template: TemplateId;
  /** The expiry of the template's legs; changing it moves every leg that had it. */
  expiry: string;
  /** Contracts of the template; changing it resizes every leg that came from the template. */
  contracts: string;
  /** Implied volatility in percent a year, for the model's estimate of legs that expire on different dates. */
  volatility: string;
  legs: LegForm[];
}

interface TemplateLeg {
  type: LegType;
  side: Side;
  role?: string;
  ratio?: number;
  later?: boolean;
}

/** The templates, in the order a trader meets them. Each fills in its legs with blank strikes and prices. */
export const templates = {
  'long-call': { name: 'Long call', legs: [{ type: 'call', side: 'long' }] },
  'long-put': { name: 'Long put', legs: [{ type: 'put', side: 'long' }] },
  'bull-call': {
    name: 'Bull call vertical',
    legs: [
      { type: 'call', side: 'long', role: 'lower strike' },
      { type: 'call', side: 'short', role: 'higher strike' },
    ],
  },
  'bull-put': {
    name: 'Bull put vertical',
    legs: [
      { type: 'put', side: 'long', role: 'lower strike' },
      { type: 'put', side: 'short', role: 'higher strike' },
    ],
  },
  'bear-call': {
    name: 'Bear call vertical',
    legs: [
      { type: 'call', side: 'short', role: 'lower strike' },
      { type: 'call', side: 'long', role: 'higher strike' },
    ],
  },
  'bear-put': {
    name: 'Bear put vertical',
    legs: [
      { type: 'put', side: 'short', role: 'lower strike' },
      { type: 'put', side: 'long', role: 'higher strike' },
    ],
  },
  straddle: {
    name: 'Long straddle',
    legs: [
      { type: 'call', side: 'long', role: 'same strike as the put' },
      { type: 'put', side: 'long', role: 'same strike as the call' },
    ],
  },
  strangle: {
    name: 'Long strangle',
    legs: [
      { type: 'put', side: 'long', role: 'strike below the call' },
      { type: 'call', side: 'long', role: 'strike above the put' },
    ],
  },
  'iron-condor': {
    name: 'Iron condor',
    legs: [
      { type: 'put', side: 'long', role: 'lowest strike' },
      { type: 'put', side: 'short', role: 'second strike' },
      { type: 'call', side: 'short', role: 'third strike' },
      { type: 'call', side: 'long', role: 'highest strike' },
    ],
  },
  'iron-butterfly': {
    name: 'Iron butterfly',
    legs: [
      { type: 'put', side: 'long', role: 'lowest strike' },
      { type: 'put', side: 'short', role: 'middle strike' },
      { type: 'call', side: 'short', role: 'middle strike, as the put' },
      { type: 'call', side: 'long', role: 'highest strike' },
    ],
  },
  butterfly: {
    name: 'Call butterfly',
    legs: [
      { type: 'call', side: 'long', role: 'lower wing' },
      { type: 'call', side: 'short', role: 'body: twice the contracts', ratio: 2 },
      { type: 'call', side: 'long', role: 'upper wing, as far above the body as the lower wing is below' },
    ],
  },
  calendar: {
    name: 'Call calendar',
    legs: [
      { type: 'call', side: 'short', role: 'near expiry' },
      { type: 'call', side: 'long', role: 'later expiry, same strike', later: true },
    ],
  },
  'covered-call': {
    name: 'Covered call',
    legs: [
      { type: 'shares', side: 'long', role: '100 shares a contract' },
      { type: 'call', side: 'short', role: 'strike above the share price' },
    ],
  },
  collar: {
    name: 'Collar',
    legs: [
      { type: 'shares', side: 'long', role: '100 shares a contract' },
      { type: 'put', side: 'long', role: 'strike below the share price' },
      { type: 'call', side: 'short', role: 'strike above the share price' },
    ],
  },
  custom: { name: 'Custom (start empty)', legs: [] },
} satisfies Record<string, { name: string; legs: TemplateLeg[] }>;

export type TemplateId = keyof typeof templates;

let nextKey = 1;

/** A blank leg, as "Add leg" makes it. */
export function blankLeg(expiry: string): LegForm {
  return { key: nextKey++, type: 'call', side: 'long', strike: '', expiry, quantity: '1', price: '' };
}

/** sharesPerContract: the size of a shares leg beside one standard contract. */
const sharesPerContract = 100;

function legSize(type: LegType, ratio: number, contracts: string): string {
  const n = Number(normalizeDecimal(contracts));
  if (!Number.isFinite(n) || n <= 0) return '';
  return String(n * ratio * (type === 'shares' ? sharesPerContract : 1));
}

/** applyTemplate replaces the legs with the template's, sized by the form's contracts, on its expiry. */
export function applyTemplate(f: StrategyForm, id: TemplateId): StrategyForm {
  const legs = (templates[id].legs as TemplateLeg[]).map((t): LegForm => {
    const ratio = t.ratio ?? 1;
    return {
      key: nextKey++,
      type: t.type,
      side: t.side,
      strike: '',
      expiry: t.type === 'shares' || t.later ? '' : f.expiry,
      quantity: legSize(t.type, ratio, f.contracts),
      price: '',
      ...(t.role ? { role: t.role } : {}),
      ratio,
      ...(t.later ? { later: true } : {}),
    };
  });
  return { ...f, template: id, legs };
}

/** The builder's implied volatility until the trader gives one: a middling stock's, in percent a year. */
export const defaultVolatility = '30';

export function initialStrategyForm(): StrategyForm {
  return applyTemplate({ template: 'iron-condor', expiry: '', contracts: '1', volatility: defaultVolatility, legs: [] }, 'iron-condor');
}

/** severalExpiries: the option legs expire on different dates (a calendar, a diagonal), so the payoff needs a model. */
export function severalExpiries(legs: Array<Pick<LegForm, 'type' | 'expiry'>>): boolean {
  return new Set(legs.filter((l) => l.type !== 'shares' && l.expiry !== '').map((l) => l.expiry)).size > 1;
}

/** setExpiry moves the legs on the old common expiry (or none yet) to the new one. */
export function setExpiry(f: StrategyForm, expiry: string): StrategyForm {
  const legs = f.legs.map((l) => (l.type !== 'shares' && !l.later && (l.expiry === f.expiry || l.expiry === '') ? { ...l, expiry } : l));
  return { ...f, expiry, legs };
}

/** setContracts resizes the template's legs by their ratio; legs added by hand keep their size. */
export function setContracts(f: StrategyForm, contracts: string): StrategyForm {
  const legs = f.legs.map((l) => (l.ratio === undefined ? l : { ...l, quantity: legSize(l.type, l.ratio, contracts) || l.quantity }));
  return { ...f, contracts, legs };
}

type Input = Schemas['StrategyInput'];
type LegInput = Input['legs'][number];

/**
 * strategyRequest builds the body of POST /api/calculator/strategy: numbers
 * as the API writes them, option fields only on option legs, the volatility
 * only for legs on several expiries (the only ones it is for). null while a
 * leg still misses a field (nothing to ask yet).
 */
export function strategyRequest(f: StrategyForm): Input | null {
  if (f.legs.length === 0) return null;
  const legs: LegInput[] = [];
  for (const l of f.legs) {
    const quantity = normalizeDecimal(l.quantity);
    const price = normalizeDecimal(l.price);
    if (!quantity || !price) return null;
    if (l.type === 'shares') {
      legs.push({ type: 'shares', side: l.side, quantity, price });
      continue;
    }
    const strike = normalizeDecimal(l.strike);
    if (!strike || !l.expiry) return null;
    legs.push({ type: l.type, strike, expiry: l.expiry, side: l.side, quantity, price });
  }
  const volatility = normalizeDecimal(f.volatility);
  return severalExpiries(f.legs) && volatility ? { legs, volatility } : { legs };
}

type Output = Schemas['StrategyOutput'];

const money = (v: string) => formatDecimal(v, 2);

/** netText writes the net debit as a trader reads it: what was paid or received. */
export function netText(netDebit: string): { label: string; value: string } {
  if (netDebit.startsWith('-')) return { label: 'Net credit (received)', value: money(netDebit.slice(1)) };
  if (/^0(\.0+)?$/.test(netDebit)) return { label: 'Net debit', value: `${money(netDebit)} (it costs nothing to open)` };
  return { label: 'Net debit (paid)', value: money(netDebit) };
}

/** maxProfitText: the best case at expiry, or unlimited. */
export function maxProfitText(out: Pick<Output, 'maxProfit'>): string {
  if (out.maxProfit === undefined) return 'Unlimited: the profit keeps growing as the underlying rises';
  if (out.maxProfit.startsWith('-')) return `None: at best it loses ${money(out.maxProfit.slice(1))}`;
  return money(out.maxProfit);
}

/** maxLossText: the worst case at expiry as a loss, or unlimited. */
export function maxLossText(out: Pick<Output, 'maxLoss'>): string {
  if (out.maxLoss === undefined) return 'Unlimited: the loss keeps growing as the underlying rises';
  if (out.maxLoss.startsWith('-') || /^0(\.0+)?$/.test(out.maxLoss)) return 'None: no price at expiry loses money';
  return money(out.maxLoss);
}

/** breakevenText lists the prices at expiry where the strategy breaks even. */
export function breakevenText(out: Pick<Output, 'breakevens'>): string {
  const b = out.breakevens ?? [];
  if (b.length === 0) return 'None: it makes money, or loses it, at every price at expiry';
  return b.map((p) => formatDecimal(p, 2, 8)).join(' and ');
}

/** The words for strategies whose payoff at expiry the journal cannot draw without a volatility. */
export const noPayoffText =
  'The options expire on different dates, so there is no single payoff at expiry: what the later options are still worth when the first ones expire depends on time and volatility. Enter the implied volatility to see a model\'s estimate.';

type Estimate = Schemas['FirstExpiryEstimate'];

/**
 * estimateText says what the first-expiry curve is: a model's estimate, on which date and with which inputs (the
 * rate is the API's default unless the request gave one).
 */
export function estimateText(fe: Pick<Estimate, 'date' | 'volatility' | 'rate'>): string {
  const vol = fe.volatility === undefined ? "each later option's own implied volatility" : `${formatDecimal(fe.volatility, 0, 4)}% implied volatility`;
  return `A model's estimate (Black–Scholes) for ${formatDay(fe.date)}, when the first options expire: the later ones priced with ${vol} and a ${formatDecimal(fe.rate, 0, 4)}% risk-free rate. A guide to the shape, not a quote: the later options will trade at the volatility the market gives them then.`;
}

/** estimateChart is the first-expiry estimate in the shape PayoffChart draws. */
export function estimateChart(fe: Pick<Estimate, 'points' | 'breakevens'>): Pick<Output, 'payoff' | 'breakevens'> {
  return { payoff: fe.points, ...(fe.breakevens ? { breakevens: fe.breakevens } : {}) };
}

/**
 * payoffSeries turns the payoff points into the chart's columns: the P&L,
 * the zero line, and a marker at each breakeven (null elsewhere). The plot
 * needs numbers to place points; the figures shown come from the API's strings.
 */
export function payoffSeries(out: Pick<Output, 'payoff' | 'breakevens'>): [number[], number[], number[], Array<number | null>] {
  const points = out.payoff ?? [];
  const be = new Set(out.breakevens ?? []);
  return [points.map((p) => Number(p.price)), points.map((p) => Number(p.value)), points.map(() => 0), points.map((p) => (be.has(p.price) ? 0 : null))];
}

/** The room on each side of the prices a payoff chart frames: a share of their span, and at least a share of the price. */
const axisMarginOfSpan = 0.15;
const axisMarginOfPrice = 0.05;

/**
 * priceAxis is a payoff chart's price axis: every price given (strikes, breakevens, share prices) with room on each
 * side, 15% of their span and at least 5% of the highest, never below 0. [0, 100] without a price above 0.
 */
export function priceAxis(prices: number[]): [number, number] {
  const ps = prices.filter((n) => Number.isFinite(n) && n > 0);
  if (ps.length === 0) return [0, 100];
  const lo = Math.min(...ps);
  const hi = Math.max(...ps);
  const pad = Math.max((hi - lo) * axisMarginOfSpan, hi * axisMarginOfPrice);
  return [round(Math.max(0, lo - pad)), round(hi + pad)];
}

/** round cuts the float noise off an axis end (84.49999999 → 84.5). */
function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

/** payoffRange is the builder's price axis: its legs' strikes (a shares leg's price) and the breakevens, framed by priceAxis. */
export function payoffRange(legs: Array<Pick<LegForm, 'type' | 'strike' | 'price'>>, breakevens: string[] = []): [number, number] {
  return priceAxis([...legs.map((l) => Number(normalizeDecimal(l.type === 'shares' ? l.price : l.strike))), ...breakevens.map(Number)]);
}

/**
 * occSymbol is an option's OCC symbol: the root padded to 6, YYMMDD, C or P, and the strike x 1000 in 8 digits
 * ("SPY   270618P00095000"). null when the strike has more than 3 decimals or 5 whole digits, which OCC cannot write.
 */
export function occSymbol(root: string, expiry: string, type: 'call' | 'put', strike: string): string | null {
  const m = /^(\d{1,5})(?:\.(\d{1,3}))?$/.exec(normalizeDecimal(strike));
  const d = /^\d{2}(\d{2})-(\d{2})-(\d{2})$/.exec(expiry);
  const r = root.trim().toUpperCase();
  if (!m || !d || r === '' || r.length > 6) return null;
  const thousandths = `${m[1]}${(m[2] ?? '').padEnd(3, '0')}`.padStart(8, '0');
  return `${r.padEnd(6, ' ')}${d[1]}${d[2]}${d[3]}${type === 'call' ? 'C' : 'P'}${thousandths}`;
}

/**
 * recordRequest is the body of POST /api/strategies that records the builder's legs as a trade in an account: each
 * leg a position (options by their OCC symbol on the underlying, shares as the underlying) with one entry fill at the
 * leg's price and the given time. null while a leg cannot be written.
 */
export function recordRequest(f: StrategyForm, accountId: string, underlying: string, filledAt: string): Schemas['StrategyWrite'] | null {
  const root = underlying.trim().toUpperCase();
  if (!accountId || !root || !filledAt || f.legs.length === 0) return null;
  const legs: Array<Schemas['PositionCreate']> = [];
  for (const l of f.legs) {
    const quantity = normalizeDecimal(l.quantity);
    const price = normalizeDecimal(l.price);
    if (!quantity || !price) return null;
    const symbol = l.type === 'shares' ? root : occSymbol(root, l.expiry, l.type, l.strike);
    if (!symbol) return null;
    legs.push({ accountId, symbol, assetType: l.type === 'shares' ? 'stock' : 'option', side: l.side, fills: [{ type: 'entry', price, quantity, filledAt }] });
  }
  return { accountId, legs };
}
