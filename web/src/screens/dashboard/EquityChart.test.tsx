import { describe, expect, it } from 'vitest';
import { chartSeries } from './EquityChart';

// The drawing itself needs a canvas: the end-to-end tests see it in Chromium.
describe('chartSeries', () => {
  it('plots close times in seconds against the cumulative P&L', () => {
    expect(
      chartSeries([
        { closedAt: '2024-01-02T00:00:00Z', cumulativeNetPnl: '-12.5000' },
        { closedAt: '2024-01-03T00:00:00Z', cumulativeNetPnl: '85.5000' },
      ]),
    ).toEqual([
      [1704153600, 1704240000],
      [-12.5, 85.5],
    ]);
  });
});
