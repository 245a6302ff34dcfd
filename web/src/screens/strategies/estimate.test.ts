import { describe, expect, it } from 'vitest';
import type { Schemas } from '../../api/client';
import { estimateLegs, estimateRequest } from './estimate';

type Leg = Schemas['PositionSummary'];

const base = { status: 'open', side: 'long', openQuantity: '2', avgEntryPrice: '1.5', multiplier: 100, assetType: 'option' } as const;
const option = (right: 'C' | 'P', strike: string, expiry: string, more: Partial<Leg> = {}) =>
  ({ ...base, optionRight: right, optionStrike: strike, optionExpiry: expiry, ...more }) as Leg;

describe('estimateLegs', () => {
  it('takes the open legs: options at their open quantity and entry, a mini with its multiplier, stock as shares', () => {
    const legs = [
      option('P', '95', '2027-06-18', { side: 'short' }),
      option('P', '90', '2027-09-17', { multiplier: 10 }),
      option('C', '99', '2027-03-19', { status: 'closed', openQuantity: '0' }),
      { ...base, assetType: 'stock', multiplier: 1, openQuantity: '200', avgEntryPrice: '101.0000000001' } as Leg,
    ];
    expect(estimateLegs(legs)).toEqual([
      { type: 'put', strike: '95', expiry: '2027-06-18', side: 'short', quantity: '2', price: '1.5' },
      { type: 'put', strike: '90', expiry: '2027-09-17', side: 'long', quantity: '2', price: '1.5', multiplier: '10' },
      { type: 'shares', side: 'long', quantity: '200', price: '101' },
    ]);
  });

  it('has nothing to estimate on one expiry, without an entry price, or with a future', () => {
    const calendar = [option('C', '100', '2027-06-18', { side: 'short' }), option('C', '100', '2027-07-16')];
    expect(estimateLegs(calendar)).not.toBeNull();
    expect(estimateLegs([calendar[0]!, option('C', '105', '2027-06-18')])).toBeNull();
    expect(estimateLegs([calendar[0]!, { ...calendar[1]!, avgEntryPrice: null }])).toBeNull();
    expect(estimateLegs([...calendar, { ...base, assetType: 'future', multiplier: 50 } as Leg])).toBeNull();
    // The later leg closed: one expiry left.
    expect(estimateLegs([calendar[0]!, { ...calendar[1]!, status: 'closed' }])).toBeNull();
  });
});

describe('estimateRequest', () => {
  it('asks with the volatility as the API writes it, and not while it is blank', () => {
    const legs = [{ type: 'shares' as const, side: 'long' as const, quantity: '1', price: '1' }];
    expect(estimateRequest(legs, ' 32,5 ')).toEqual({ legs, volatility: '32.5' });
    expect(estimateRequest(legs, '  ')).toBeNull();
  });
});
