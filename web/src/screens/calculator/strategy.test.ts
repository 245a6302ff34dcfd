import { describe, expect, it } from 'vitest';
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
  payoffRange,
  payoffSeries,
  priceAxis,
  setContracts,
  setExpiry,
  severalExpiries,
  strategyRequest,
  type StrategyForm,
} from './strategy';

/** filled gives every leg a strike and a price, in order. */
function filled(f: StrategyForm, strikes: string[], prices: string[]): StrategyForm {
  return { ...f, legs: f.legs.map((l, i) => ({ ...l, strike: strikes[i] ?? '', price: prices[i] ?? '' })) };
}

describe('templates', () => {
  it('fills in an iron condor of four legs on the expiry, sized by the contracts', () => {
    let f = setContracts(setExpiry(initialStrategyForm(), '2024-01-19'), '2');
    expect(f.legs.map((l) => `${l.side} ${l.type} ${l.quantity} ${l.expiry}`)).toEqual([
      'long put 2 2024-01-19',
      'short put 2 2024-01-19',
      'short call 2 2024-01-19',
      'long call 2 2024-01-19',
    ]);
    f = applyTemplate(f, 'butterfly');
    expect(f.legs.map((l) => `${l.side} ${l.type} ${l.quantity}`)).toEqual(['long call 2', 'short call 4', 'long call 2']);
  });

  it('sizes shares at 100 a contract and leaves the later leg of a calendar to the trader', () => {
    const f = applyTemplate({ ...initialStrategyForm(), expiry: '2024-01-19', contracts: '3' }, 'covered-call');
    expect(f.legs.map((l) => `${l.type} ${l.quantity} ${l.expiry}`)).toEqual(['shares 300 ', 'call 3 2024-01-19']);
    const c = setExpiry(applyTemplate(f, 'calendar'), '2024-02-16');
    expect(c.legs.map((l) => l.expiry)).toEqual(['2024-02-16', '']);
  });

  it('moves only the legs on the common expiry, and resizes only template legs', () => {
    let f = setExpiry(applyTemplate(initialStrategyForm(), 'bull-call'), '2024-01-19');
    f = { ...f, legs: [{ ...f.legs[0]!, expiry: '2024-03-15' }, f.legs[1]!, { ...blankLeg(f.expiry), quantity: '5' }] };
    f = setContracts(setExpiry(f, '2024-02-16'), '4');
    expect(f.legs.map((l) => `${l.expiry} ${l.quantity}`)).toEqual(['2024-03-15 4', '2024-02-16 4', '2024-02-16 5']);
  });
});

describe('strategyRequest', () => {
  it('waits for every leg', () => {
    const f = setExpiry(initialStrategyForm(), '2024-01-19');
    expect(strategyRequest(f)).toBeNull();
    expect(strategyRequest(filled(f, ['90', '95', '105', ''], ['1', '2.5', '2.4', '0.9']))).toBeNull();
    expect(strategyRequest({ ...f, legs: [] })).toBeNull();
  });

  it('writes numbers as the API reads them, option fields only on options', () => {
    const f = filled(setExpiry(applyTemplate({ ...initialStrategyForm(), contracts: '10' }, 'covered-call'), '2024-01-19'), ['', '55'], ['1,050.25', '2']);
    expect(strategyRequest(f)).toEqual({
      legs: [
        { type: 'shares', side: 'long', quantity: '1000', price: '1050.25' },
        { type: 'call', strike: '55', expiry: '2024-01-19', side: 'short', quantity: '10', price: '2' },
      ],
    });
  });

  it('sends the implied volatility only for legs on several expiries', () => {
    let f = setExpiry(applyTemplate(initialStrategyForm(), 'calendar'), '2024-01-19');
    expect(f.volatility).toBe('30');
    expect(severalExpiries(f.legs)).toBe(false); // the later leg has no expiry yet
    expect(strategyRequest(filled(f, ['100', '100'], ['2', '3.50']))).toBeNull();
    f = filled({ ...f, legs: f.legs.map((l) => (l.later ? { ...l, expiry: '2024-02-16' } : l)) }, ['100', '100'], ['2', '3.50']);
    expect(severalExpiries(f.legs)).toBe(true);
    expect(strategyRequest(f)).toEqual({
      legs: [
        { type: 'call', strike: '100', expiry: '2024-01-19', side: 'short', quantity: '1', price: '2' },
        { type: 'call', strike: '100', expiry: '2024-02-16', side: 'long', quantity: '1', price: '3.50' },
      ],
      volatility: '30',
    });
    expect(strategyRequest({ ...f, volatility: ' 27,5 ' })).toMatchObject({ volatility: '27.5' });
    expect(strategyRequest({ ...f, volatility: '' })).not.toHaveProperty('volatility');
    // One expiry: the payoff is exact, no volatility is asked for.
    const one = { ...f, legs: f.legs.map((l) => ({ ...l, expiry: '2024-01-19' })) };
    expect(severalExpiries(one.legs)).toBe(false);
    expect(strategyRequest(one)).not.toHaveProperty('volatility');
    // Shares have no expiry: a covered call is one expiry.
    expect(severalExpiries([{ type: 'shares', expiry: '' }, { type: 'call', expiry: '2024-01-19' }])).toBe(false);
  });
});

describe('words', () => {
  it('says debit or credit', () => {
    expect(netText('-300.00')).toEqual({ label: 'Net credit (received)', value: '300.00' });
    expect(netText('250.00')).toEqual({ label: 'Net debit (paid)', value: '250.00' });
    expect(netText('0.00').value).toMatch(/costs nothing/);
  });

  it('says unlimited, and none when no price loses', () => {
    expect(maxProfitText({})).toMatch(/^Unlimited/);
    expect(maxProfitText({ maxProfit: '700.00' })).toBe('700.00');
    expect(maxLossText({})).toMatch(/^Unlimited/);
    expect(maxLossText({ maxLoss: '200.00' })).toBe('200.00');
    expect(maxLossText({ maxLoss: '-50.00' })).toMatch(/^None/);
    expect(breakevenText({ breakevens: ['92', '108.5'] })).toBe('92.00 and 108.50');
    expect(breakevenText({})).toMatch(/^None/);
  });
});

describe('the estimate at the first expiry', () => {
  it('says it is a model estimate, with its date and inputs', () => {
    expect(estimateText({ date: '2024-01-19', volatility: '30', rate: '4' })).toMatch(/^A model's estimate \(Black–Scholes\) for Jan 19, 2024, .*with 30% implied volatility and a 4% risk-free rate/);
    expect(estimateText({ date: '2024-01-19', rate: '-0.5' })).toMatch(/each later option's own implied volatility and a -0.5% risk-free rate/);
  });

  it('draws its points with their breakevens', () => {
    const points = [
      { price: '0', value: '-150.00' },
      { price: '95.3072', value: '0.00' },
    ];
    expect(estimateChart({ points, breakevens: ['95.3072'] })).toEqual({ payoff: points, breakevens: ['95.3072'] });
    expect(payoffSeries(estimateChart({ points }))[3]).toEqual([null, null]);
  });
});

describe('chart', () => {
  it('marks breakevens on the zero line', () => {
    const out = {
      breakevens: ['92'],
      payoff: [
        { price: '0', value: '-200.00' },
        { price: '92', value: '0.00' },
        { price: '95', value: '300.00' },
      ],
    };
    expect(payoffSeries(out)).toEqual([
      [0, 92, 95],
      [-200, 0, 300],
      [0, 0, 0],
      [null, 0, null],
    ]);
  });

  it('frames the strikes and breakevens', () => {
    const legs = [
      { type: 'put' as const, strike: '90', price: '1' },
      { type: 'call' as const, strike: '110', price: '1' },
    ];
    // 85..110: 15% of the span of 25 is 3.75, under 5% of 110.
    expect(payoffRange(legs, ['85'])).toEqual([79.5, 115.5]);
    expect(payoffRange([{ type: 'shares', strike: '', price: '50' }])).toEqual([47.5, 52.5]);
    expect(payoffRange([])).toEqual([0, 100]);
    expect(payoffRange([{ type: 'call', strike: '', price: '2' }])).toEqual([0, 100]); // no strike yet
    // A wide spread: 15% of its span on each side, every strike inside.
    const wide = [
      { type: 'put' as const, strike: '1,000', price: '1' },
      { type: 'call' as const, strike: '3000', price: '1' },
      { type: 'call' as const, strike: '2000', price: '1' },
    ];
    expect(payoffRange(wide)).toEqual([700, 3300]);
    expect(priceAxis([0.5, 0.7])).toEqual([0.465, 0.735]);
    expect(priceAxis([5, 10])).toEqual([4.25, 10.75]);
    expect(priceAxis([1, 100])[0]).toBe(0); // never below 0
  });
});

describe('recording a trade', () => {
  it('writes OCC symbols, and refuses a strike OCC cannot write', async () => {
    const { occSymbol } = await import('./strategy');
    expect(occSymbol('spy', '2027-06-18', 'put', '95')).toBe('SPY   270618P00095000');
    expect(occSymbol('BRKB', '2027-01-15', 'call', '512.5')).toBe('BRKB  270115C00512500');
    expect(occSymbol('SPY', '2027-06-18', 'call', '1,234.125')).toBe('SPY   270618C01234125');
    expect(occSymbol('SPY', '2027-06-18', 'call', '95.1234')).toBeNull();
    expect(occSymbol('TOOLONGX', '2027-06-18', 'call', '95')).toBeNull();
    expect(occSymbol('SPY', '', 'call', '95')).toBeNull();
  });

  it('makes each leg a position with one entry, shares as the underlying', async () => {
    const { recordRequest } = await import('./strategy');
    const form = {
      template: 'covered-call',
      expiry: '2027-01-15',
      contracts: '1',
      legs: [
        { key: 1, type: 'shares', side: 'long', strike: '', expiry: '', quantity: '100', price: '180' },
        { key: 2, type: 'call', side: 'short', strike: '190', expiry: '2027-01-15', quantity: '1', price: '2.50' },
      ],
    } as Parameters<typeof recordRequest>[0];
    expect(recordRequest(form, 'a1', 'aapl', '2026-06-01T14:00:00Z')).toEqual({
      accountId: 'a1',
      legs: [
        { accountId: 'a1', symbol: 'AAPL', assetType: 'stock', side: 'long', fills: [{ type: 'entry', price: '180', quantity: '100', filledAt: '2026-06-01T14:00:00Z' }] },
        { accountId: 'a1', symbol: 'AAPL  270115C00190000', assetType: 'option', side: 'short', fills: [{ type: 'entry', price: '2.50', quantity: '1', filledAt: '2026-06-01T14:00:00Z' }] },
      ],
    });
    expect(recordRequest(form, '', 'AAPL', '2026-06-01T14:00:00Z')).toBeNull();
    expect(recordRequest({ ...form, legs: [{ ...form.legs[1]!, price: '' }] }, 'a1', 'AAPL', '2026-06-01T14:00:00Z')).toBeNull();
  });
});
