import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatMoney } from '../../format';

interface Point {
  closedAt: string;
  trade: number;
  cumulativeNetPnl: string;
}

/** What the equity curve's horizontal axis counts: close times, or trades in close order. */
export type CurveAxis = 'date' | 'trade';

/** curveX is a point's place on the horizontal axis: its close in seconds, or which trade it is. */
function curveX(p: Point, axis: CurveAxis): number {
  return axis === 'trade' ? p.trade : Date.parse(p.closedAt) / 1000;
}

/**
 * chartSeries turns the equity curve into uPlot's columns. The plot needs
 * numbers to place points; every label shown comes from the API's string.
 */
export function chartSeries(points: Point[], axis: CurveAxis = 'date'): [number[], number[]] {
  return [points.map((p) => curveX(p, axis)), points.map((p) => Number(p.cumulativeNetPnl))];
}

/**
 * xScale is the horizontal axis. A single close gets a day (or a trade)
 * either side, so the point is not pinned to an edge: uPlot hands a
 * one-point time scale a max of min + 86400 / ms (1,000 days in seconds),
 * so the range is built from min alone.
 */
export function xScale(pointCount: number, axis: CurveAxis = 'date'): uPlot.Scale {
  const time = axis === 'date';
  const pad = time ? 86400 : 1;
  if (pointCount !== 1) return { time };
  return { time, range: (_u, min) => [min - pad, min + pad] };
}

function cssVar(name: string, fallback: string): string {
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return v || fallback;
}

/** drawdownSeries plots each point's drawdown after a 0 just before the first close, so the curve starts at zero. */
export function drawdownSeries(points: Array<{ closedAt: string; drawdown: string }>): [number[], number[]] {
  const first = points[0];
  if (!first) return [[], []];
  const t = points.map((p) => Date.parse(p.closedAt) / 1000);
  return [[(t[0] ?? 0) - 1, ...t], [0, ...points.map((p) => Number(p.drawdown))]];
}

interface TimeChartProps {
  id: string;
  title: string;
  /** The chart's text alternative: what it shows and where it ends. */
  summary: string;
  series: [number[], number[]];
  label: string;
  colour: [string, string];
  currency: string;
  /** The API's own text for a point's value (by close time in seconds), so labels are never a float's rounding. */
  textAt: Map<number, string>;
  /** Fix the top of the value scale at 0 (a drawdown). */
  topAtZero?: boolean;
  /** What the horizontal axis counts (close times unless given). */
  axis?: CurveAxis;
  /** Controls shown under the title. */
  controls?: ReactNode;
}

/** TimeChart is one uPlot line over close times, sized to its card. */
function TimeChart({ id, title, summary, series, label, colour, currency, textAt, topAtZero, axis = 'date', controls }: TimeChartProps) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el || series[0].length === 0) return;
    const text = cssVar('--muted', '#666');
    const grid = cssVar('--border', '#ddd');
    const line = cssVar(colour[0], colour[1]);
    const plot = new uPlot(
      {
        width: Math.max(el.clientWidth, 280),
        height: 260,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: { x: xScale(series[0].length, axis), ...(topAtZero ? { y: { range: (_u, min) => [Math.min(min, -1), 0] } } : {}) },
        axes: [
          {
            stroke: text,
            grid: { stroke: grid, width: 1 },
            ticks: { stroke: grid },
            ...(axis === 'trade' ? { values: (_u: uPlot, splits: number[]) => splits.map((v) => (Number.isInteger(v) ? `#${v}` : '')) } : {}),
          },
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
            label,
            stroke: line,
            width: 2,
            fill: `color-mix(in srgb, ${line} 12%, transparent)`,
            value: (_u, v) => (v == null ? '—' : formatMoney(textAt.get(Math.round(v)) ?? v.toFixed(2), currency)),
          },
        ],
      },
      series,
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(el.clientWidth, 280), height: 260 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [series, currency, label, colour, textAt, topAtZero, axis]);
  return (
    <figure className="card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {controls}
      <div ref={box} className="chart" role="img" aria-label={summary} />
    </figure>
  );
}

const equityColour: [string, string] = ['--accent', '#1d4ed8'];
const drawdownColour: [string, string] = ['--neg', '#b42318'];

/** EquityChart draws the cumulative net P&L after each close, by close date or by trade number. */
export function EquityChart({ points, currency }: { points: Point[]; currency: string }) {
  const [axis, setAxis] = useState<CurveAxis>('date');
  const series = useMemo(() => chartSeries(points, axis), [points, axis]);
  const textAt = useMemo(() => new Map(points.map((p) => [Math.round(curveX(p, axis)), p.cumulativeNetPnl])), [points, axis]);
  const last = points[points.length - 1];
  const controls = (
    <div className="row" role="radiogroup" aria-label="Draw the equity curve by">
      {(['date', 'trade'] as const).map((a) => (
        <label key={a} className="check">
          <input type="radio" name="equity-axis" value={a} checked={axis === a} onChange={() => setAxis(a)} />
          {a === 'date' ? 'By date' : 'By trade number'}
        </label>
      ))}
    </div>
  );
  return (
    <TimeChart
      id="equity-title"
      title="Equity curve"
      summary={`Equity curve of ${points.length} points${axis === 'trade' ? ` by trade number, to trade ${last?.trade ?? 0}` : ''}${last ? `, ending at ${formatMoney(last.cumulativeNetPnl, currency)}` : ''}`}
      series={series}
      label="Cumulative net P&L"
      colour={equityColour}
      currency={currency}
      textAt={textAt}
      axis={axis}
      controls={controls}
    />
  );
}

/** DrawdownChart draws how far the equity stood below its running peak, from 0 down. */
export function DrawdownChart({ points, currency, maxDrawdown }: { points: Array<{ closedAt: string; drawdown: string }>; currency: string; maxDrawdown: string }) {
  const series = useMemo(() => drawdownSeries(points), [points]);
  const textAt = useMemo(() => new Map(points.map((p) => [Math.round(Date.parse(p.closedAt) / 1000), p.drawdown])), [points]);
  return (
    <TimeChart
      id="drawdown-title"
      title="Drawdown"
      summary={`Drawdown below the running peak over ${points.length} points; the deepest is ${formatMoney(maxDrawdown, currency)}`}
      series={series}
      label="Drawdown"
      colour={drawdownColour}
      currency={currency}
      textAt={textAt}
      topAtZero
    />
  );
}
