import { describe, expect, it } from 'vitest';
import { cfdRate, cfdRequest, forexRate, forexRequest, initialCFDForm, initialForexForm, pairCurrencies, steppedStatusText, type CFDForm, type ForexForm } from './stepped';

const fx = (over: Partial<ForexForm>): ForexForm => ({ ...initialForexForm, entryPrice: '1.0850', stopLoss: '1.0830', balance: '10000', ...over });
const cfd = (over: Partial<CFDForm>): CFDForm => ({ ...initialCFDForm, symbol: 'US500', entryPrice: '5400', stopLoss: '5380', basis: 'amount', riskAmount: '100', ...over });

describe('pairCurrencies', () => {
  it.each([
    ['EUR/USD', 'EUR', 'USD'],
    ['eurusd', 'EUR', 'USD'],
    ['EUR_GBP', 'EUR', 'GBP'],
    ['USDJPY.m', 'USD', 'JPY'],
    [' xau-usd ', 'XAU', 'USD'],
  ])('reads %s', (text, base, quote) => {
    expect(pairCurrencies(text)).toEqual({ base, quote });
  });
  it('is null for what is not a pair yet', () => {
    expect(pairCurrencies('EU')).toBeNull();
    expect(pairCurrencies('')).toBeNull();
  });
});

describe('the conversion rate a form needs', () => {
  it('is asked for only when the account currency is neither of the pair', () => {
    expect(forexRate(fx({ pair: 'EUR/USD' }), 'USD')).toBeNull(); // the quote: 1
    expect(forexRate(fx({ pair: 'USD/JPY' }), 'USD')).toBeNull(); // the base: 1 / entry
    expect(forexRate(fx({ pair: 'EUR/GBP' }), 'USD')).toEqual({ from: 'GBP', to: 'USD' });
    expect(forexRate(fx({ pair: 'GBPJPY' }), 'EUR')).toEqual({ from: 'JPY', to: 'EUR' });
    expect(forexRate(fx({ pair: 'XAU/USD' }), 'EUR')).toEqual({ from: 'USD', to: 'EUR' });
  });
  it("is asked for a CFD only when its currency is not the account's", () => {
    expect(cfdRate(cfd({ quoteCurrency: '' }), 'USD')).toBeNull();
    expect(cfdRate(cfd({ quoteCurrency: 'usd' }), 'USD')).toBeNull();
    expect(cfdRate(cfd({ quoteCurrency: 'eur ' }), 'USD')).toEqual({ from: 'EUR', to: 'USD' });
  });
});

describe('forexRequest', () => {
  it('waits for the required fields, the needed rate among them', () => {
    expect(forexRequest(fx({ entryPrice: '' }), 'USD')).toBeNull();
    expect(forexRequest(fx({ pair: ' ' }), 'USD')).toBeNull();
    expect(forexRequest(fx({}), '')).toBeNull();
    expect(forexRequest(fx({}), 'US')).toBeNull(); // still typing
    expect(forexRequest(fx({ basis: 'amount', riskAmount: '' }), 'USD')).toBeNull();
    expect(forexRequest(fx({ pair: 'EUR/GBP', conversionRate: '' }), 'USD')).toBeNull();
  });
  it('sends one risk basis, numbers as the API writes them, and a rate only when needed', () => {
    expect(forexRequest(fx({ balance: '10,000', riskAmount: '99', targetPrice: ' 1.0890 ', conversionRate: '1.27' }), 'USD')).toEqual({
      pair: 'EUR/USD',
      accountCurrency: 'USD',
      direction: 'long',
      entryPrice: '1.0850',
      stopLoss: '1.0830',
      targetPrice: '1.0890',
      balance: '10000',
      riskPercent: '1',
      lotStep: '0.01',
    });
    expect(forexRequest(fx({ pair: 'EUR/GBP', basis: 'amount', riskAmount: '100', conversionRate: '1.27', lotStep: '' }), 'USD')).toEqual({
      pair: 'EUR/GBP',
      accountCurrency: 'USD',
      direction: 'long',
      entryPrice: '1.0850',
      stopLoss: '1.0830',
      riskAmount: '100',
      conversionRate: '1.27',
    });
  });
});

describe('cfdRequest', () => {
  it('waits for the symbol, the point value and a needed rate', () => {
    expect(cfdRequest(cfd({ symbol: '' }), 'USD')).toBeNull();
    expect(cfdRequest(cfd({ pointValue: '' }), 'USD')).toBeNull();
    expect(cfdRequest(cfd({ quoteCurrency: 'EUR' }), 'USD')).toBeNull();
  });
  it('sends the CFD currency upper case and the rate it needs', () => {
    expect(cfdRequest(cfd({ quoteCurrency: 'eur', conversionRate: '1.08' }), 'USD')).toEqual({
      symbol: 'US500',
      accountCurrency: 'USD',
      quoteCurrency: 'EUR',
      pointValue: '1',
      direction: 'long',
      entryPrice: '5400',
      stopLoss: '5380',
      riskAmount: '100',
      conversionRate: '1.08',
      contractStep: '0.01',
    });
    expect(cfdRequest(cfd({ quoteCurrency: 'USD', conversionRate: '1.08' }), 'USD')).not.toHaveProperty('conversionRate');
  });
});

describe('steppedStatusText', () => {
  it('explains each zero size in words', () => {
    expect(steppedStatusText(undefined, fx({}), 'lot', '0.01')).toBeNull();
    expect(steppedStatusText('nothing-to-size-against', fx({ balance: '-5' }), 'lot', '0.01')).toMatch(/balance is zero or negative/);
    expect(steppedStatusText('nothing-to-size-against', fx({}), 'lot', '0.01')).toMatch(/smallest size, 0.01 lots/);
    expect(steppedStatusText('nothing-to-size-against', cfd({}), 'contract', '1')).toMatch(/smallest size, 1 contract, from entry/);
    expect(steppedStatusText('exceeds-maximum', fx({}), 'lot', '0.01')).toMatch(/Too large to size/);
  });
});
