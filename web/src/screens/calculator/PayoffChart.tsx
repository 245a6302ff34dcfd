import { useEffect, useMemo, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Schemas } from '../../api/client';
import { formatDecimal } from '../../format';
import { payoffSeries } from './strategy';

function cssVar(name: string, fallback: string): string {
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return v || fallback;
}

interface Props {
  out: Pick<Schemas['StrategyOutput'], 'payoff' | 'breakevens'>;
  /** The price axis, from payoffRange. */
  range: [number, number];
  /** The chart's text alternative: what it shows. */
  summary: string;
  /** The points are a model's estimate at the first expiry (legs on several expiries), not the payoff at expiry. */
  estimate?: boolean;
}

/**
 * PayoffChart draws the P&L at expiry against the underlying's price: the
 * API's points joined by straight lines (the payoff exactly), the zero
 * line, and a dot at each breakeven. For an estimate the points are close
 * enough together that the lines make its curve.
 */
export function PayoffChart({ out, range, summary, estimate = false }: Props) {
  const box = useRef<HTMLDivElement>(null);
  const series = useMemo(() => payoffSeries(out), [out]);
  const [lo, hi] = range;
  useEffect(() => {
    const el = box.current;
    if (!el || series[0].length === 0) return;
    const text = cssVar('--muted', '#666');
    const grid = cssVar('--border', '#ddd');
    const line = cssVar('--accent', '#1d4ed8');
    const plot = new uPlot(
      {
        width: Math.max(el.clientWidth, 280),
        height: 260,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: { x: { time: false, range: () => [lo, hi] } },
        axes: [
          { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid }, label: estimate ? 'Underlying price at the first expiry' : 'Underlying price at expiry', values: (_u, splits) => splits.map((v) => formatDecimal(String(v), 0, 2)) },
          { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid }, size: 80, label: 'P&L', values: (_u, splits) => splits.map((v) => formatDecimal(v.toFixed(2), 0, 2)) },
        ],
        series: [
          {},
          { label: estimate ? 'Estimated P&L at the first expiry' : 'P&L at expiry', stroke: line, width: 2, points: { show: false } },
          { label: 'Zero', stroke: text, width: 1, dash: [4, 4], points: { show: false } },
          { label: 'Breakeven', stroke: line, width: 0, paths: () => null, points: { show: true, size: 9, fill: line, stroke: line } },
        ],
      },
      series,
      el,
    );
    // jsdom (the unit tests) has no ResizeObserver; browsers do.
    const resize = typeof ResizeObserver === 'undefined' ? undefined : new ResizeObserver(() => plot.setSize({ width: Math.max(el.clientWidth, 280), height: 260 }));
    resize?.observe(el);
    return () => {
      resize?.disconnect();
      plot.destroy();
    };
  }, [series, lo, hi, estimate]);
  return (
    <figure className="payoff" aria-labelledby="payoff-title">
      <h2 id="payoff-title">{estimate ? 'Estimated P&L at the first expiry (model)' : 'Payoff at expiry'}</h2>
      <div ref={box} className="chart" role="img" aria-label={summary} data-testid="payoff-chart" />
    </figure>
  );
}
