import { describe, expect, it } from 'vitest';
import { candleGeometry, dayContext, priceRange, resolutionOf } from './chart';

const bar = (time: string, open: string, high: string, low: string, close: string, volume = '100') => ({ time, open, high, low, close, volume });
const t0 = Date.parse('2026-11-02T09:00:00Z') / 1000;

// 1 px a second from t0, and 10 px a unit of price downwards from 110.
const scales = { x: (t: number) => t - t0, y: (p: number) => (110 - p) * 10 };

describe('candleGeometry', () => {
  it('draws a body from open to close and a wick from high to low, centred on the bar, with the volume at the foot', () => {
    const [up, down, flat] = candleGeometry(
      [
        bar('2026-11-02T09:00:00Z', '100', '104', '99', '103', '400'),
        bar('2026-11-02T09:01:00Z', '103', '103.5', '101', '101.5', '100'),
        bar('2026-11-02T09:02:00Z', '101.5', '102', '101', '101.5', '0'),
      ],
      60,
      scales,
      { bottom: 300, height: 40 },
    );
    // A 60 px slot: a 42 px body centred at 30.
    expect(up).toEqual({ x: 9, width: 42, top: 70, height: 30, wickX: 30, wickTop: 60, wickBottom: 110, rising: true, volumeTop: 260, volumeHeight: 40 });
    expect(down).toMatchObject({ x: 69, top: 70, height: 15, wickX: 90, wickTop: 65, wickBottom: 90, rising: false, volumeTop: 290, volumeHeight: 10 });
    // Unchanged: a 1 px line, rising (close at the open); no volume, no bar.
    expect(flat).toMatchObject({ top: 85, height: 1, rising: true, volumeHeight: 0, volumeTop: 300 });
  });

  it('keeps a body at least 1 px wide when the bars are crowded, and draws nothing for no bars', () => {
    const [k] = candleGeometry([bar('2026-11-02T09:00:00Z', '100', '101', '99', '100.5')], 60, { x: (t) => (t - t0) / 100, y: scales.y }, { bottom: 0, height: 0 });
    expect(k?.width).toBe(1);
    expect(candleGeometry([], 60, scales, { bottom: 0, height: 0 })).toEqual([]);
  });

  it('reads volume of no bar as none', () => {
    const ks = candleGeometry([bar('2026-11-02T09:00:00Z', '1', '1', '1', '1', '0')], 60, scales, { bottom: 50, height: 10 });
    expect(ks[0]).toMatchObject({ volumeTop: 50, volumeHeight: 0 });
  });
});

describe('priceRange', () => {
  it('spans the bars and every level, with 5 % of room', () => {
    expect(priceRange([bar('2026-11-02T09:00:00Z', '100', '110', '100', '105')], ['95', '120', null, ''])).toEqual([93.75, 121.25]);
  });
  it('gives a flat range room, and has a range without bars', () => {
    expect(priceRange([bar('2026-11-02T09:00:00Z', '100', '100', '100', '100')], [])).toEqual([99, 101]);
    expect(priceRange([], [])).toEqual([0, 1]);
  });
});

describe('dayContext', () => {
  const bars = [
    bar('2026-10-30T19:45:00Z', '98', '99', '97', '98.5'), // Friday 20:45 in Berlin
    bar('2026-10-30T20:45:00Z', '98.5', '99', '98', '98.75'),
    bar('2026-11-02T14:30:00Z', '99.5', '100', '99', '99.8'), // Monday 15:30 in Berlin
    bar('2026-11-02T15:00:00Z', '99.8', '101', '99', '100.5'),
  ];
  it('is the last close of an earlier day and the first open of the entry day, in the trader\'s zone', () => {
    expect(dayContext(bars, '2026-11-02T15:05:00Z', 'Europe/Berlin')).toEqual({ priorClose: bars[1], dayOpen: bars[2] });
    // In Tokyo the entry is on Tuesday at 00:05: Monday's 23:30 bar is the prior close.
    expect(dayContext(bars, '2026-11-02T15:05:00Z', 'Asia/Tokyo')).toEqual({ priorClose: bars[2], dayOpen: bars[3] });
  });
  it('has none where the bars do not reach, and takes the browser\'s zone for an unknown one', () => {
    expect(dayContext(bars.slice(2), '2026-11-02T15:05:00Z', 'Europe/Berlin')).toEqual({ priorClose: null, dayOpen: bars[2] });
    expect(dayContext(bars, '2026-11-05T15:05:00Z', 'Nowhere/Else')).toEqual({ priorClose: bars[3], dayOpen: null });
  });
});

describe('resolutions', () => {
  it('names each, and an unknown one by its code', () => {
    expect(resolutionOf('15')).toEqual({ code: '15', seconds: 900, name: '15-minute' });
    expect(resolutionOf('M')).toEqual({ seconds: 86400, name: 'M' });
  });
});
