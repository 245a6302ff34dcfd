import { useEffect, useMemo, useReducer, useRef, useState, type KeyboardEvent } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { ApiError, client, errorText, unwrap, type Schemas } from '../../api/client';
import { readable } from '../../api/messages';
import { useMe } from '../../api/queries';
import { formatDateTime, formatDecimal, formatMoney, pnlClass } from '../../format';
import { candleGeometry, dayContext, priceRange, resolutionOf, resolutions, type Resolution } from './chart';
import { replayFrame, replayReducer, replayStart, speeds, type Frame } from './replay';

type Position = Schemas['Position'];
type Bars = Schemas['PositionBars'];
type Fill = Schemas['Fill'];

/** BarsView is what the trader asked of the bars route: a bar length (the route's own choice when unset) and the span. */
export interface BarsView {
  resolution?: Resolution;
  window: 'hold' | 'session';
}

/** useBars is the chart's price bars around p in view (one request a view, kept a minute). */
function useBars(p: Position, view: BarsView) {
  return useQuery({
    queryKey: ['positions', p.id, 'bars', p.openedAt, p.closedAt, view.resolution ?? '', view.window],
    queryFn: () =>
      unwrap(
        client.GET('/api/positions/{positionId}/bars', {
          params: { path: { positionId: p.id }, query: { resolution: view.resolution, window: view.window === 'hold' ? undefined : view.window } },
        }),
      ),
    staleTime: 60_000,
    retry: false,
    placeholderData: keepPreviousData,
  });
}

/** price writes a price as the page does: 2 places, up to 8 (forex and crypto quote more). */
const price = (v: string | null | undefined) => formatDecimal(v, 2, 8);

/** colour resolves a CSS colour (a var() of the palette, light-dark() included) as the page paints it now, for the canvas. */
function colour(el: HTMLElement, css: string): string {
  const probe = document.createElement('span');
  probe.style.color = css;
  el.appendChild(probe);
  const c = getComputedStyle(probe).color;
  probe.remove();
  return c || '#777';
}

/** useThemeChanges counts changes of the painted theme (the toggle's data-theme, the system's scheme), so the canvas is drawn again in its colours. */
function useThemeChanges(): number {
  const [n, setN] = useState(0);
  useEffect(() => {
    const bump = () => setN((x) => x + 1);
    const observer = new MutationObserver(bump);
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    const media = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null;
    media?.addEventListener('change', bump);
    return () => {
      observer.disconnect();
      media?.removeEventListener('change', bump);
    };
  }, []);
  return n;
}

/** Level is a horizontal line drawn across the chart and named in its key. */
interface Level {
  name: string;
  price: string;
  css: string;
  dash: number[];
}

/** levelsOf are the trade's lines: the stop, the target, the entry average, and in the session view the prior close and the day's open. */
function levelsOf(p: Position, bars: Bars, zone: string | undefined, session: boolean): Level[] {
  const out: Level[] = [];
  if (p.stopLoss) out.push({ name: 'Stop', price: p.stopLoss, css: 'var(--neg)', dash: [6, 4] });
  if (p.targetPrice) out.push({ name: 'Target', price: p.targetPrice, css: 'var(--pos)', dash: [6, 4] });
  if (p.avgEntryPrice) out.push({ name: 'Average entry', price: p.avgEntryPrice, css: 'var(--accent)', dash: [2, 3] });
  if (session) {
    const day = dayContext(bars.bars, bars.heldFrom, zone);
    if (day.priorClose) out.push({ name: 'Prior close', price: day.priorClose.close, css: 'var(--muted)', dash: [1, 3] });
    if (day.dayOpen) out.push({ name: "Day's open", price: day.dayOpen.open, css: 'var(--muted)', dash: [8, 3, 1, 3] });
  }
  return out;
}

/** fillWords names a fill for a person: "Entry: bought 10 at 100.00, Nov 2, 2026, 10:00 AM CET". */
function fillWords(f: Fill, side: Position['side']): string {
  const buys = (f.type === 'entry') === (side === 'long');
  return `${f.type === 'entry' ? 'Entry' : 'Exit'}: ${buys ? 'bought' : 'sold'} ${formatDecimal(f.quantity, 0, 8)} at ${price(f.price)}, ${formatDateTime(f.filledAt)}`;
}

interface Marker {
  fill: Fill;
  left: number;
  top: number;
}

/**
 * Candles draws the bars as candles (hollow rising, filled falling bodies,
 * wicks, volume at the foot) with uPlot's draw hook, the levels as lines,
 * and the fills as buttons over the plot that name their price and
 * quantity on hover and focus. Up to `upto` (a replay) only the bars so far
 * and their fills are drawn; the time axis keeps the whole span.
 */
function Candles({ p, bars, levels, upto, zone, step, summary }: { p: Position; bars: Bars; levels: Level[]; upto: Frame | null; zone: string | undefined; step: number; summary: string }) {
  const wrap = useRef<HTMLDivElement>(null);
  const box = useRef<HTMLDivElement>(null);
  const plotRef = useRef<uPlot | null>(null);
  const uptoRef = useRef(upto);
  uptoRef.current = upto;
  const [markers, setMarkers] = useState<Marker[]>([]);
  const theme = useThemeChanges();
  const range = useMemo(() => priceRange(bars.bars, [...levels.map((l) => l.price), ...p.fills.map((f) => f.price)]), [bars, levels, p.fills]);

  useEffect(() => {
    const el = box.current;
    if (!el || bars.bars.length === 0 || typeof ResizeObserver === 'undefined') return;
    const c = {
      text: colour(el, 'var(--muted)'),
      grid: colour(el, 'var(--border)'),
      up: colour(el, 'var(--pos)'),
      down: colour(el, 'var(--neg)'),
      volume: colour(el, 'var(--border)'),
      levels: levels.map((l) => colour(el, l.css)),
    };
    const times = bars.bars.map((b) => Date.parse(b.time) / 1000);
    const from = Date.parse(bars.from) / 1000;
    const to = Date.parse(bars.to) / 1000;
    const draw = (u: uPlot) => {
      const shown = uptoRef.current ? bars.bars.slice(0, bars.bars.indexOf(uptoRef.current.bar) + 1) : bars.bars;
      const { left, top, width, height } = u.bbox;
      const ctx = u.ctx;
      ctx.save();
      ctx.beginPath();
      ctx.rect(left, top, width, height);
      ctx.clip();
      const px = uPlot.pxRatio;
      for (const k of candleGeometry(shown, step, { x: (t) => u.valToPos(t, 'x', true), y: (v) => u.valToPos(v, 'y', true) }, { bottom: top + height, height: height * 0.18 })) {
        ctx.fillStyle = c.volume;
        ctx.fillRect(k.x, k.volumeTop, k.width, k.volumeHeight);
        const stroke = k.rising ? c.up : c.down;
        ctx.strokeStyle = stroke;
        ctx.lineWidth = px;
        ctx.beginPath();
        ctx.moveTo(Math.round(k.wickX) + 0.5, k.wickTop);
        ctx.lineTo(Math.round(k.wickX) + 0.5, k.wickBottom);
        ctx.stroke();
        if (k.rising && k.width > 2) {
          ctx.strokeRect(k.x + 0.5, k.top + 0.5, k.width - 1, Math.max(k.height - 1, 0));
        } else {
          ctx.fillStyle = stroke;
          ctx.fillRect(k.x, k.top, k.width, k.height);
        }
      }
      ctx.font = `${12 * px}px system-ui, sans-serif`;
      ctx.textAlign = 'right';
      levels.forEach((l, i) => {
        const y = Math.round(u.valToPos(Number(l.price), 'y', true)) + 0.5;
        ctx.strokeStyle = c.levels[i] ?? c.text;
        ctx.fillStyle = c.levels[i] ?? c.text;
        ctx.setLineDash(l.dash.map((d) => d * px));
        ctx.lineWidth = 1.5 * px;
        ctx.beginPath();
        ctx.moveTo(left, y);
        ctx.lineTo(left + width, y);
        ctx.stroke();
        ctx.fillText(`${l.name} ${price(l.price)}`, left + width - 4 * px, y - 4 * px);
      });
      ctx.restore();
      // The markers' layer is the plot's sibling: where the plot area sits in the wrapper.
      const area = u.over.getBoundingClientRect();
      const outer = wrap.current?.getBoundingClientRect() ?? area;
      const end = uptoRef.current ? Date.parse(uptoRef.current.bar.time) + step * 1000 : Infinity;
      const next = p.fills.filter((f) => Date.parse(f.filledAt) < end).map((f) => ({
        fill: f,
        left: area.left - outer.left + u.valToPos(Date.parse(f.filledAt) / 1000, 'x'),
        top: area.top - outer.top + u.valToPos(Number(f.price), 'y'),
      }));
      setMarkers((old) => (JSON.stringify(old) === JSON.stringify(next) ? old : next));
    };
    const plot = new uPlot(
      {
        width: Math.max(el.clientWidth, 280),
        height: 300,
        legend: { show: false },
        cursor: { drag: { x: false, y: false }, points: { show: false } },
        tzDate: zone ? (ts) => uPlot.tzDate(new Date(ts * 1000), zone) : undefined,
        scales: { x: { time: true, range: () => [from, to] }, y: { range: () => range } },
        axes: [
          { stroke: c.text, grid: { stroke: c.grid, width: 1 }, ticks: { stroke: c.grid } },
          { stroke: c.text, grid: { stroke: c.grid, width: 1 }, ticks: { stroke: c.grid }, size: 64, values: (_u, splits) => splits.map((v) => formatDecimal(String(v), 0, 8)) },
        ],
        series: [{}, { label: 'Close', stroke: 'transparent', width: 0, paths: () => null, points: { show: false } }],
        hooks: { draw: [draw] },
      },
      [times, bars.bars.map((b) => Number(b.close))],
      el,
    );
    plotRef.current = plot;
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(el.clientWidth, 280), height: 300 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
      plotRef.current = null;
      setMarkers([]);
    };
  }, [bars, levels, range, p.fills, step, zone, theme]);

  // A replay's step draws again without building the plot anew.
  useEffect(() => {
    plotRef.current?.redraw(false, false);
  }, [upto]);

  return (
    <div ref={wrap} className="candles-wrap">
      <div ref={box} className="chart candles" role="img" aria-label={summary} />
      {markers.map(({ fill, left, top }) => {
        const words = fillWords(fill, p.side);
        const buys = (fill.type === 'entry') === (p.side === 'long');
        return (
          <button key={fill.id} type="button" className={`fill-marker ${fill.type}`} style={{ left, top }} aria-label={words}>
            <span aria-hidden="true">{buys ? '▲' : '▼'}</span>
            <span className="fill-tip" aria-hidden="true">
              {words}
            </span>
          </button>
        );
      })}
    </div>
  );
}

/** summaryOf is the chart in words, for a screen reader: the bars, the range, the fills and the lines. */
function summaryOf(p: Position, bars: Bars, levels: Level[], name: string): string {
  const first = bars.bars[0];
  const last = bars.bars[bars.bars.length - 1];
  if (!first || !last) return '';
  const lows = bars.bars.map((b) => b.low);
  const highs = bars.bars.map((b) => b.high);
  const low = lows.reduce((a, b) => (Number(b) < Number(a) ? b : a));
  const high = highs.reduce((a, b) => (Number(b) > Number(a) ? b : a));
  const fills = p.fills.map((f) => fillWords(f, p.side)).join('; ');
  const lines = levels.map((l) => `${l.name.toLowerCase()} ${price(l.price)}`).join(', ');
  return (
    `${bars.bars.length} ${name} candles of ${bars.symbol} from ${formatDateTime(first.time)} to ${formatDateTime(last.time)}: ` +
    `opened at ${price(first.open)}, low ${price(low)}, high ${price(high)}, last close ${price(last.close)}.` +
    (fills ? ` ${fills}.` : '') +
    (lines ? ` Lines: ${lines}.` : '')
  );
}

/** FrameText is the replay's current bar in words: its time in the trader's zone, its close, what is held and the running P&L. */
function FrameText({ f, p, currency, index, count }: { f: Frame; p: Position; currency: string | undefined; index: number; count: number }) {
  // Fees are in the account's currency; a pair's P&L is in its quote currency, so they are added only when the two agree.
  const priceCurrency = p.quoteCurrency ?? currency;
  const net = p.quoteCurrency ? null : f.net;
  return (
    <>
      Bar {index + 1} of {count}, {formatDateTime(f.bar.time)}: close {price(f.bar.close)}.{' '}
      {f.pnl === null ? (
        'Not in the trade yet.'
      ) : (
        <>
          {f.fills.length === 1 ? '1 fill' : `${f.fills.length} fills`} so far, {formatDecimal(f.openQuantity, 0, 8)} held. P&amp;L{' '}
          <span className={pnlClass(f.pnl)} data-testid="replay-pnl">
            {formatMoney(f.pnl, priceCurrency)}
          </span>{' '}
          before fees{net !== null && <>, {formatMoney(net, currency)} after {formatMoney(f.fees, currency)} in fees</>}.
        </>
      )}
    </>
  );
}

/** Replay steps through the bars with the buttons, the arrow keys and space, and plays them at a chosen speed. */
function useReplay(count: number) {
  const [state, dispatch] = useReducer(replayReducer, count, (n) => replayStart(n));
  useEffect(() => {
    if (!state.playing) return;
    const timer = setInterval(() => dispatch({ type: 'tick' }), 1000 / state.speed);
    return () => clearInterval(timer);
  }, [state.playing, state.speed]);
  return [state, dispatch] as const;
}

/** ChartBody is one answer of the bars route drawn, with its replay (started anew for each answer). */
function ChartBody({ p, bars, currency, session }: { p: Position; bars: Bars; currency: string | undefined; session: boolean }) {
  const zone = useMe().data?.timezone;
  const res = resolutionOf(bars.resolution);
  const levels = useMemo(() => levelsOf(p, bars, zone, session), [p, bars, zone, session]);
  const [replaying, setReplaying] = useState(false);
  const [state, dispatch] = useReplay(bars.bars.length);
  const frame = replaying ? replayFrame(bars.bars, res.seconds, state.index, p) : null;
  const keys = (e: KeyboardEvent<HTMLDivElement>) => {
    const target = e.target as HTMLElement;
    if (target.tagName === 'SELECT') return;
    const action = { ArrowLeft: 'back', ArrowRight: 'forward', Home: 'start' }[e.key] as 'back' | 'forward' | 'start' | undefined;
    if (action) dispatch({ type: action });
    else if (e.key === ' ' && target === e.currentTarget) dispatch({ type: 'toggle' });
    else return;
    e.preventDefault();
  };
  return (
    <>
      <Candles p={p} bars={bars} levels={levels} upto={frame} zone={zone} step={res.seconds} summary={summaryOf(p, bars, levels, res.name)} />
      <ul className="chart-key" aria-label="Lines on the chart">
        {levels.map((l) => (
          <li key={l.name}>
            <span className="key-line" style={{ borderTopColor: l.css, borderTopStyle: l.dash[0] && l.dash[0] > 4 ? 'dashed' : 'dotted' }} aria-hidden="true" />
            {l.name} {price(l.price)}
          </li>
        ))}
        <li>
          <span aria-hidden="true">▲▼</span> fills: hover or focus one for its price and quantity
        </li>
      </ul>
      {!replaying ? (
        <button type="button" className="ghost" onClick={() => setReplaying(true)}>
          Replay the trade
        </button>
      ) : (
        <div role="group" aria-label="Replay" className="replay" tabIndex={0} onKeyDown={keys}>
          <p className="muted">Left and right arrows step one bar, space plays or pauses, Home goes back to the start.</p>
          <div className="row">
            <button type="button" className="ghost" onClick={() => dispatch({ type: 'start' })}>
              Start
            </button>
            <button type="button" className="ghost" onClick={() => dispatch({ type: 'back' })} disabled={state.index === 0}>
              Step back
            </button>
            <button type="button" onClick={() => dispatch({ type: 'toggle' })}>
              {state.playing ? 'Pause' : 'Play'}
            </button>
            <button type="button" className="ghost" onClick={() => dispatch({ type: 'forward' })} disabled={state.index >= state.last}>
              Step forward
            </button>
            <label>
              Speed{' '}
              <select value={state.speed} onChange={(e) => dispatch({ type: 'speed', speed: Number(e.target.value) })}>
                {speeds.map((s) => (
                  <option key={s} value={s}>
                    {s} {s === 1 ? 'bar' : 'bars'} a second
                  </option>
                ))}
              </select>
            </label>
            <button type="button" className="ghost" onClick={() => setReplaying(false)}>
              Show the whole chart
            </button>
          </div>
          {frame && (
            <p role="status" aria-live={state.playing ? 'off' : 'polite'} data-testid="replay-frame">
              <FrameText f={frame} p={p} currency={currency} index={state.index} count={bars.bars.length} />
            </p>
          )}
        </div>
      )}
    </>
  );
}

/**
 * serverWords is what the bars routes said went wrong, in their words (which provider, which line of the
 * file, what to do), rather than a general sentence; a failure without an answer reads as any other.
 */
export function serverWords(err: unknown): string {
  if (!(err instanceof ApiError) || err.status === 401 || err.status === 429 || (err.status >= 500 && err.status !== 502 && err.status !== 504)) {
    return errorText(err);
  }
  return err.details.length > 0 ? err.details.map((d) => readable(d.message)).join(' ') : readable(err.message);
}

/**
 * BarsUpload sends a bars file (CSV) exported from the trader's platform for the chart's symbol, and deletes the
 * uploaded bars when the chart shows them; the chart and the measured excursions are asked for again after either.
 */
function BarsUpload({ p, symbol, uploaded }: { p: Position; symbol: string; uploaded: boolean }) {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['positions', p.id] });
  const path = { params: { path: { positionId: p.id } } };
  const upload = useMutation({
    mutationFn: async (file: File) =>
      unwrap(
        client.PUT('/api/positions/{positionId}/bars', {
          ...path,
          body: await file.text(),
          bodySerializer: (b: string) => b,
          headers: { 'Content-Type': 'text/csv' },
        }),
      ),
    onSuccess: refresh,
  });
  const remove = useMutation({ mutationFn: () => unwrap(client.DELETE('/api/positions/{positionId}/bars', path)), onSuccess: refresh });
  const busy = upload.isPending || remove.isPending;
  return (
    <div className="bars-upload">
      <label>
        Upload price bars of {symbol} (a CSV file from your platform: time, open, high, low, close, volume){' '}
        <input
          type="file"
          accept=".csv,.txt,text/csv,text/plain"
          disabled={busy}
          onChange={(e) => {
            const file = e.target.files?.[0];
            e.target.value = '';
            remove.reset();
            if (file) upload.mutate(file);
          }}
        />
      </label>
      {uploaded && (
        <button type="button" className="ghost" disabled={busy} onClick={() => (upload.reset(), remove.mutate())}>
          Delete your uploaded bars of {symbol}
        </button>
      )}
      {upload.isPending && <span className="muted">Uploading…</span>}
      {upload.isSuccess && (
        <p role="status">
          {upload.data.upload.barCount} bars of {upload.data.upload.symbol} uploaded, {formatDateTime(upload.data.upload.firstAt)} to {formatDateTime(upload.data.upload.lastAt)}.
        </p>
      )}
      {remove.isSuccess && <p role="status">Your uploaded bars of {symbol} are deleted.</p>}
      {(upload.error ?? remove.error) && (
        <p className="field-error" role="alert">
          {serverWords(upload.error ?? remove.error)}
        </p>
      )}
    </div>
  );
}

/**
 * TradeChart is the trade on its chart: candles at the bar length the
 * route picks for the hold or the trader chooses, the whole session on
 * request, and a replay. Works with whatever bars the route answers, for
 * any asset type it serves; what went wrong is shown in the route's words,
 * and the trader's own bars can be uploaded (or deleted) here.
 */
export function TradeChart({ p, currency }: { p: Position; currency: string | undefined }) {
  const [view, setView] = useState<BarsView>({ window: 'hold' });
  const bars = useBars(p, view);
  const err = bars.error instanceof ApiError ? bars.error : undefined;
  const chosen = view.resolution ? resolutionOf(view.resolution).name : null;
  const data = bars.data;
  return (
    <figure className="card trade-chart" aria-labelledby="bars-title">
      <h3 id="bars-title">Price around the trade</h3>
      <div className="row chart-controls">
        <label>
          Bar length{' '}
          <select
            value={view.resolution ?? ''}
            onChange={(e) => setView({ ...view, resolution: (e.target.value || undefined) as Resolution | undefined })}
          >
            <option value="">Fitting the trade{!view.resolution && data ? ` (${resolutionOf(data.resolution).name})` : ''}</option>
            {resolutions.map((r) => (
              <option key={r.code} value={r.code}>
                {r.name[0]?.toUpperCase() + r.name.slice(1)}
              </option>
            ))}
          </select>
        </label>
        <label>
          <input type="checkbox" checked={view.window === 'session'} onChange={(e) => setView({ ...view, window: e.target.checked ? 'session' : 'hold' })} /> Show the whole
          session (and the day before)
        </label>
        {bars.isFetching && <span className="muted">Loading price bars…</span>}
      </div>
      {err?.status === 400 && err.fieldError('resolution') ? (
        <p className="field-error" role="alert">
          {chosen ? `The ${chosen} bars` : 'The bars'} of this span are more than the chart can draw: choose a longer bar length.
        </p>
      ) : bars.isError ? (
        <p className="muted" role="status">
          {serverWords(bars.error)}
        </p>
      ) : null}
      {data && data.bars.length === 0 && !bars.isError && (
        <p className="muted">
          {data.source === 'uploaded' ? 'Your uploaded bars have' : `${data.source} has`} no price bars in this trade&apos;s time
          {data.source === 'uploaded' ? ': upload a file that covers it.' : '.'}
        </p>
      )}
      {data && data.bars.length > 0 && !bars.isError && (
        <ChartBody key={`${data.resolution} ${data.from} ${data.to}`} p={p} bars={data} currency={currency} session={view.window === 'session' && !bars.isPlaceholderData} />
      )}
      <BarsUpload p={p} symbol={data?.symbol ?? p.underlying ?? p.symbol} uploaded={data?.source === 'uploaded'} />
      <figcaption className="muted">
        {data ? `${resolutionOf(data.resolution).name[0]?.toUpperCase()}${resolutionOf(data.resolution).name.slice(1)} candles, delayed` : 'Candles, delayed'}: hollow
        bodies closed up, filled ones down; volume at the foot.
      </figcaption>
    </figure>
  );
}
