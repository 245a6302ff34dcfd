import { describe, expect, it } from 'vitest';
import type { Schemas } from '../../api/client';
import { compareLegs, expiryText, legChoices, legName, sortLegs, strikeText } from './legs';

type Summary = Schemas['PositionSummary'];

const option = (id: string, right: 'C' | 'P', strike: string, expiry: string, more: Partial<Summary> = {}) =>
  ({
    id, accountId: 'a1', symbol: `SPY   ${expiry.slice(2).replaceAll('-', '')}${right}${String(Math.round(Number(strike) * 1000)).padStart(8, '0')}`,
    assetType: 'option', underlying: 'SPY', optionExpiry: expiry, optionRight: right, optionStrike: strike, multiplier: 100,
    side: 'long', status: 'open', strategyId: null, openQuantity: '1', ...more,
  }) as Summary;
const shares = (id: string, more: Partial<Summary> = {}) =>
  ({
    id, accountId: 'a1', symbol: 'SPY', assetType: 'stock', underlying: null, optionExpiry: null, optionRight: null, optionStrike: null,
    multiplier: 1, side: 'long', status: 'open', strategyId: null, ...more,
  }) as Summary;

describe('a leg as a trader reads it', () => {
  it('writes the underlying, the expiry, the strike without needless decimals and the right', () => {
    expect(legName(option('p1', 'P', '570.0000', '2026-12-18'))).toBe('SPY Dec 18 2026 570 put');
    expect(legName(option('p2', 'C', '512.50', '2027-01-05'))).toBe('SPY Jan 5 2027 512.5 call');
    expect(legName(shares('p3'))).toBe('SPY shares');
    // Without its option fields, the symbol, its padding squeezed.
    expect(legName({ ...option('p4', 'C', '1', '2027-01-05'), optionExpiry: null, symbol: 'SPY   270105C00001000' })).toBe('SPY 270105C00001000');
    expect(expiryText('2026-09-01')).toBe('Sep 1 2026');
    expect(strikeText('95')).toBe('95');
    expect(strikeText('0.500')).toBe('0.5');
  });

  it('orders legs by expiry, then strike (numerically), then right; shares first', () => {
    const legs = [
      option('late', 'P', '90', '2027-07-16'),
      option('c105', 'C', '105', '2027-06-18'),
      option('p95', 'P', '95', '2027-06-18'),
      option('p100', 'P', '100', '2027-06-18'),
      option('c100', 'C', '100', '2027-06-18'),
      option('p9', 'P', '9.5', '2027-06-18'),
      shares('stock'),
    ];
    expect(sortLegs(legs).map((l) => l.id)).toEqual(['stock', 'p9', 'p95', 'c100', 'p100', 'c105', 'late']);
    expect(legs[0]!.id).toBe('late'); // a copy: the list given keeps its order
    expect(compareLegs(legs[1]!, legs[1]!)).toBe(0);
  });
});

describe('the leg picker of a strategy', () => {
  it('offers its own legs and the open positions of its account on its underlying, in no other strategy', () => {
    const own = [option('mine-closed', 'P', '90', '2027-06-18', { status: 'closed', strategyId: 's1' }), option('mine', 'P', '95', '2027-06-18', { strategyId: 's1' })];
    const listed = [
      own[1]!,
      option('new', 'C', '105', '2027-06-18'),
      shares('spy-shares'),
      option('closed', 'C', '110', '2027-06-18', { status: 'closed' }),
      option('other-account', 'C', '110', '2027-06-18', { accountId: 'a2' }),
      option('other-strategy', 'C', '110', '2027-06-18', { strategyId: 's2' }),
      { ...option('msft', 'C', '400', '2027-06-18'), underlying: 'MSFT', symbol: 'MSFT  270618C00400000' },
      shares('msft-shares', { symbol: 'MSFT' }),
      { ...shares('future'), assetType: 'future', symbol: 'SPYZ26', underlying: 'SPY' } as Summary,
    ];
    const s = { id: 's1', accountId: 'a1', underlying: 'SPY', legs: own };
    expect(legChoices(s, listed).map((p) => p.id)).toEqual(['spy-shares', 'mine-closed', 'mine', 'new']);
  });
});
