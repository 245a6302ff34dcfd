import { describe, expect, it } from 'vitest';
import type uPlot from 'uplot';
import { chartSeries, drawdownSeries, xScale } from './EquityChart';

// The drawing itself needs a canvas: the end-to-end tests see it in Chromium.
describe('chartSeries', () => {
  it('plots close times in seconds against the cumulative P&L', () => {
    expect(
      chartSeries([
        { closedAt: '2024-01-02T00:00:00Z', trade: 3, cumulativeNetPnl: '-12.5000' },
        { closedAt: '2024-01-03T00:00:00Z', trade: 6, cumulativeNetPnl: '85.5000' },
      ]),
    ).toEqual([
      [1704153600, 1704240000],
      [-12.5, 85.5],
    ]);
  });

  it('plots by trade number: which close each point is, not its time', () => {
    expect(
      chartSeries(
        [
          { closedAt: '2024-01-02T00:00:00Z', trade: 3, cumulativeNetPnl: '-12.5000' },
          { closedAt: '2024-03-03T00:00:00Z', trade: 6, cumulativeNetPnl: '85.5000' },
        ],
        'trade',
      ),
    ).toEqual([
      [3, 6],
      [-12.5, 85.5],
    ]);
  });
});

describe('xScale', () => {
  it('centres a single close in a two-day window, whatever max uPlot passes', () => {
    const range = xScale(1).range as uPlot.Range.Function;
    // uPlot's own one-point max: min + 86400 / 1e-3 seconds (1,000 days).
    expect(range({} as uPlot, 1704153600, 1704153600 + 86_400_000, 'x')).toEqual([1704067200, 1704240000]);
  });

  it('leaves a curve of several closes to uPlot', () => {
    expect(xScale(2)).toEqual({ time: true });
    expect(xScale(2, 'trade')).toEqual({ time: false });
  });

  it('centres a single trade between its neighbours by number', () => {
    const range = xScale(1, 'trade').range as uPlot.Range.Function;
    expect(range({} as uPlot, 1, 1, 'x')).toEqual([0, 2]);
  });
});

describe('drawdownSeries', () => {
  it('starts at zero just before the first close, then follows each point', () => {
    expect(
      drawdownSeries([
        { closedAt: '2024-01-02T00:00:00Z', drawdown: '-12.5000' },
        { closedAt: '2024-01-03T00:00:00Z', drawdown: '0.0000' },
      ]),
    ).toEqual([
      [1704153599, 1704153600, 1704240000],
      [0, -12.5, 0],
    ]);
    expect(drawdownSeries([])).toEqual([[], []]);
  });
});
