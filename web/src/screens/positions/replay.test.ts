import { describe, expect, it } from 'vitest';
import type { Schemas } from '../../api/client';
import { multiplierText, replayFrame, replayReducer, replayStart, type ReplayState } from './replay';

const bar = (minute: number, close: string) => ({
  time: new Date(Date.UTC(2026, 10, 2, 9, minute)).toISOString(), open: close, high: close, low: close, close, volume: '1',
});
const fill = (type: 'entry' | 'exit', price: string, quantity: string, at: string, fees = '0') =>
  ({ id: `${type}-${at}`, type, price, quantity, fees, feeEstimated: false, filledAt: at, realizedPnl: null }) as Schemas['Fill'];

describe('replayReducer', () => {
  const run = (s: ReplayState, ...types: Array<'start' | 'back' | 'forward' | 'toggle' | 'tick'>) => types.reduce((x, type) => replayReducer(x, { type }), s);

  it('steps one bar within the bars, and back to the start', () => {
    const s = replayStart(3);
    expect(s).toEqual({ index: 0, last: 2, playing: false, speed: 2 });
    expect(run(s, 'back').index).toBe(0);
    expect(run(s, 'forward', 'forward', 'forward').index).toBe(2);
    expect(run(s, 'forward', 'forward', 'back').index).toBe(1);
    expect(run(s, 'forward', 'forward', 'start').index).toBe(0);
  });

  it('plays a bar a tick, pauses at the last bar, and starts over when played there', () => {
    const playing = run(replayStart(3), 'toggle');
    expect(playing.playing).toBe(true);
    expect(run(playing, 'tick')).toMatchObject({ index: 1, playing: true });
    const end = run(playing, 'tick', 'tick');
    expect(end).toMatchObject({ index: 2, playing: false });
    expect(run(end, 'tick')).toEqual(end);
    expect(run(end, 'toggle')).toMatchObject({ index: 0, playing: true });
    // A step or a pause stops it; a tick while paused does nothing.
    expect(run(playing, 'forward')).toMatchObject({ index: 1, playing: false });
    expect(run(playing, 'toggle', 'tick')).toMatchObject({ index: 0, playing: false });
    expect(replayReducer(playing, { type: 'speed', speed: 10 })).toMatchObject({ speed: 10, playing: true });
    // One bar has nothing to play.
    expect(run(replayStart(1), 'toggle').playing).toBe(false);
  });
});

describe('replayFrame', () => {
  const bars = [bar(0, '99.5'), bar(1, '101'), bar(2, '103.25'), bar(3, '102'), bar(4, '104')];
  const fills = [
    fill('entry', '100', '10', '2026-11-02T09:01:30Z', '1'),
    fill('exit', '103', '4', '2026-11-02T09:03:00Z', '0.5'), // the start of bar 3 is inside bar 3
    fill('exit', '104', '6', '2026-11-02T09:04:59Z', '0.5'),
  ];
  const long = { side: 'long' as const, multiplier: 1, fills };

  it('reveals each fill on the bar it happened in', () => {
    expect(replayFrame(bars, 60, 0, long)).toMatchObject({ fills: [], pnl: null, net: null, openQuantity: '0', fees: '0' });
    expect(replayFrame(bars, 60, 1, long)?.fills.map((f) => f.id)).toEqual([fills[0]?.id]);
    expect(replayFrame(bars, 60, 2, long)?.fills).toHaveLength(1);
    expect(replayFrame(bars, 60, 3, long)?.fills).toHaveLength(2);
    expect(replayFrame(bars, 60, 4, long)?.fills).toHaveLength(3);
    expect(replayFrame(bars, 60, 5, long)).toBeNull();
  });

  it('runs a long\'s P&L at each close, through a partial exit, to the realised P&L', () => {
    // Bar 1: 10 at 100, close 101: +10; bar 2: close 103.25: +32.50.
    expect(replayFrame(bars, 60, 1, long)).toMatchObject({ openQuantity: '10', pnl: '10', fees: '1', net: '9' });
    expect(replayFrame(bars, 60, 2, long)?.pnl).toBe('32.5');
    // Bar 3: 4 sold at 103 (+12 realised), 6 held at 102 (+12).
    expect(replayFrame(bars, 60, 3, long)).toMatchObject({ openQuantity: '6', pnl: '24', fees: '1.5', net: '22.5' });
    // Bar 4: all out: 12 + 6 x 4 = 36, less 2 in fees.
    expect(replayFrame(bars, 60, 4, long)).toMatchObject({ openQuantity: '0', pnl: '36', fees: '2.0', net: '34' });
  });

  it('runs a short\'s the other way, with the multiplier, exactly', () => {
    const short = { side: 'short' as const, multiplier: 50, fills };
    expect(replayFrame(bars, 60, 1, short)?.pnl).toBe('-500');
    expect(replayFrame(bars, 60, 3, short)).toMatchObject({ pnl: '-1200', net: '-1201.5' });
    // Prices a float would round: 0.1 + 0.2 points on 3 contracts at 0.5.
    const exact = { side: 'long' as const, multiplier: 0.5, fills: [fill('entry', '0.1', '3', '2026-11-02T09:00:00Z')] };
    expect(replayFrame([bar(0, '0.3')], 60, 0, exact)?.pnl).toBe('0.3');
  });

  it('writes the multiplier as a decimal', () => {
    expect([1, 50, 0.5, 12.5, 0.00000001].map(multiplierText)).toEqual(['1', '50', '0.5', '12.5', '0.00000001']);
  });
});
