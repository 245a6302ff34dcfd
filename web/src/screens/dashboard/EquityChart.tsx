import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatMoney } from '../../format';

interface Point {
  closedAt: string;
  cumulativeNetPnl: string;
}

/**
 * chartSeries turns the equity curve into uPlot's columns. The plot needs
 * numbers to place points; every label shown comes from the API's string.
 */
export function chartSeries(points: Point[]): [number[], number[]] {
  return [points.map((p) => Date.parse(p.closedAt) / 1000), points.map((p) => Number(p.cumulativeNetPnl))];
}

/**
 * xScale is the time axis. A single close gets a day either side, so the
 * point is not pinned to an edge: uPlot hands a one-point time scale a max
 * of min + 86400 / ms (1,000 days in seconds), so the range is built from
 * min alone.
 */
export function xScale(pointCount: number): uPlot.Scale {
  if (pointCount !== 1) return { time: true };
  return { time: true, range: (_u, min) => [min - 86400, min + 86400] };
}

function cssVar(name: string, fallback: string): string {
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return v || fallback;
}

/** EquityChart draws the cumulative net P&L after each close. */
export function EquityChart({ points, currency }: { points: Point[]; currency: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el || points.length === 0) return;
    const text = cssVar('--muted', '#666');
    const grid = cssVar('--border', '#ddd');
    const line = cssVar('--accent', '#1d4ed8');
    const byTime = new Map(points.map((p) => [Math.round(Date.parse(p.closedAt) / 1000), p.cumulativeNetPnl]));
    const plot = new uPlot(
      {
        width: Math.max(el.clientWidth, 280),
        height: 260,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: { x: xScale(points.length) },
        axes: [
          { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } },
          {
            stroke: text,
            grid: { stroke: grid, width: 1 },
            ticks: { stroke: grid },
            size: 80,
            values: (_u, splits) => splits.map((v) => formatMoney(v.toFixed(2), currency)),
          },
        ],
        series: [
          {},
          {
            label: 'Cumulative net P&L',
            stroke: line,
            width: 2,
            fill: `color-mix(in srgb, ${line} 12%, transparent)`,
            value: (_u, v) => (v == null ? '—' : formatMoney(byTime.get(Math.round(v)) ?? v.toFixed(2), currency)),
          },
        ],
      },
      chartSeries(points),
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(el.clientWidth, 280), height: 260 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [points, currency]);
  const last = points[points.length - 1];
  return (
    <figure className="card" aria-labelledby="equity-title">
      <h2 id="equity-title">Equity curve</h2>
      <div ref={box} className="chart" role="img" aria-label={`Equity curve of ${points.length} points${last ? `, ending at ${formatMoney(last.cumulativeNetPnl, currency)}` : ''}`} />
    </figure>
  );
}
