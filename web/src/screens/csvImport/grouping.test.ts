import { describe, expect, it } from 'vitest';
import type { Schemas } from '../../api/client';
import { calculatorLegs, candidates, merge, mergeProblem, proposedGrouping, proposedLabel, sameGrouping, takeOut, ungroup } from './grouping';

type Position = Schemas['CsvImportProposedPosition'];
type Preview = Schemas['CsvImportPreview'];

const leg = (symbol: string, more: Partial<Position> = {}): Position =>
  ({
    accountId: 'a1',
    existingPositionId: null,
    reversalOf: null,
    symbol,
    assetType: symbol.length > 6 ? 'option' : 'stock',
    multiplier: symbol.length > 6 ? 100 : 1,
    side: 'long',
    entryQuantity: '1',
    avgEntryPrice: '1.00',
    ...more,
  }) as Position;

// An iron condor on SPY (0-3, proposed), a lone SPY put (4), a QQQ put (5), AAPL shares the file adds to (6), and a
// reversal's position (7, of 8).
const preview = {
  positions: [
    leg('SPY   270618P00095000', { side: 'short', avgEntryPrice: '2.00' }),
    leg('SPY   270618P00090000'),
    leg('SPY   270618C00105000', { side: 'short', avgEntryPrice: '2.00' }),
    leg('SPY   270618C00110000'),
    leg('SPY   270618P00080000', { avgEntryPrice: '0.50' }),
    leg('QQQ   270618P00400000'),
    leg('AAPL', { existingPositionId: 'p1' }),
    leg('SPY', { side: 'short', reversalOf: 8 }),
    leg('SPY'),
  ],
  strategies: [{ positions: [3, 2, 1, 0], label: 'Short iron condor' }],
} as Preview;

describe('grouping', () => {
  it('starts from the proposal, legs in preview order', () => {
    expect(proposedGrouping(preview)).toEqual([[0, 1, 2, 3]]);
  });

  it('takes a leg out: the strategy keeps the rest, and one left alone is no strategy', () => {
    const condor = proposedGrouping(preview);
    expect(takeOut(condor, 3)).toEqual([[0, 1, 2]]);
    expect(takeOut(takeOut(takeOut(condor, 3), 2), 1)).toEqual([]);
    expect(takeOut(condor, 4)).toEqual(condor);
  });

  it('ungroups one strategy, leaving the others', () => {
    expect(ungroup([[0, 1], [2, 3]], 0)).toEqual([[2, 3]]);
  });

  it('merges ticked legs into one strategy, out of the ones they were in', () => {
    expect(merge([[0, 1, 2, 3]], [4, 0, 1])).toEqual([[2, 3], [0, 1, 4]]);
    // Two verticals back into one condor.
    expect(merge([[0, 1], [2, 3]], [0, 1, 2, 3])).toEqual([[0, 1, 2, 3]]);
    // A strategy left with one leg goes.
    expect(merge([[0, 1, 4]], [0, 1, 2])).toEqual([[0, 1, 2]]);
  });

  it('says in words why ticked legs cannot be one strategy', () => {
    expect(mergeProblem(preview, [0])).toMatch(/two legs or more/);
    expect(mergeProblem(preview, [0, 5])).toBe("These legs are on SPY and QQQ: a strategy's legs share one underlying.");
    expect(mergeProblem(preview, [0, 6])).toMatch(/Only positions this file opens/);
    expect(mergeProblem(preview, [7, 0])).toMatch(/Only positions this file opens/);
    const split = { ...preview, positions: [...preview.positions.slice(0, 4), leg('SPY   270618P00080000', { accountId: 'a2' })] };
    expect(mergeProblem(split, [0, 4])).toMatch(/different accounts/);
    expect(mergeProblem(preview, [0, 1, 4, 8])).toBeNull();
  });

  it('offers the new positions of underlyings with two or more and an option', () => {
    // Not QQQ (alone), AAPL (added to), nor the reversal's SPY short.
    expect(candidates(preview)).toEqual([0, 1, 2, 3, 4, 8]);
    expect(candidates({ ...preview, positions: [leg('AAPL'), leg('AAPL')] })).toEqual([]);
  });

  it('compares groupings whatever the order', () => {
    expect(sameGrouping([[3, 2], [1, 0]], [[0, 1], [2, 3]])).toBe(true);
    expect(sameGrouping([[0, 1, 2, 3]], [[0, 1], [2, 3]])).toBe(false);
    expect(sameGrouping([], [])).toBe(true);
  });

  it('keeps the proposal label for a proposed group, and asks the calculator for the others', () => {
    expect(proposedLabel(preview, [0, 1, 2, 3])).toBe('Short iron condor');
    expect(proposedLabel(preview, [0, 1, 2])).toBeNull();
    expect(calculatorLegs(preview, [0, 8])).toEqual([
      { symbol: 'SPY   270618P00095000', side: 'short', quantity: '1', price: '2.00', multiplier: '100' },
      { type: 'shares', side: 'long', quantity: '1', price: '1.00' },
    ]);
    expect(calculatorLegs(preview, [0, 1, 2, 3, 4, 5, 6, 7, 8])).toBeNull();
    const unpriced = { ...preview, positions: [leg('SPY   270618P00095000', { avgEntryPrice: null }), leg('SPY')] };
    expect(calculatorLegs(unpriced, [0, 1])).toBeNull();
  });
});
