import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, unwrap, type Schemas } from '../../api/client';
import { useAppConfig } from '../../api/queries';
import { Field, ErrorNote } from '../../components/ui';
import { useUnsaved } from '../../components/unsaved';
import { formatDateTime, formatDecimal, formatMoney, pnlClass } from '../../format';
import { normalizeDecimal } from '../../numbers';
import { TradeChart } from './TradeChart';

type Position = Schemas['Position'];
type Excursion = Schemas['Excursion'];

/** formatHold writes a holding time in whole units: "45 min", "2 h 30 min", "3 d 4 h", "under a minute". */
export function formatHold(seconds: number | null | undefined): string {
  if (seconds == null) return '—';
  const minutes = Math.floor(seconds / 60);
  if (minutes < 1) return 'under a minute';
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const mins = minutes % 60;
  if (days > 0) return hours > 0 ? `${days} d ${hours} h` : `${days} d`;
  if (hours > 0) return mins > 0 ? `${hours} h ${mins} min` : `${hours} h`;
  return `${mins} min`;
}

function ExcursionCells({ e, currency }: { e: Excursion | null | undefined; currency: string | undefined }) {
  if (!e) return <dd>—</dd>;
  return (
    <dd>
      {formatDecimal(e.price, 2, 8)} · <span className={pnlClass(e.amount)}>{formatMoney(e.amount, currency)}</span>
      {e.r ? ` · ${formatDecimal(e.r, 2)}R` : ''}
      {e.source && e.source !== 'typed' ? ` · measured from ${e.source === 'uploaded' ? 'your uploaded bars' : `${e.source}'s bars`}` : ''}
    </dd>
  );
}

/** useSavePosition saves a change of the position's own fields and stores the answer. */
/**
 * excursionErrors checks MAE and MFE prices (normalized decimals, '' for
 * none) as the API does: every fill traded inside the range the position
 * saw, so a long's worst price is at or below its lowest fill and its best
 * at or above its highest, a short's the other way round; and the best is
 * on the trade's side of the worst.
 */
export function excursionErrors(side: Position['side'], fills: Position['fills'], mae: string, mfe: string): { mae?: string; mfe?: string } {
  const prices = fills.map((f) => Number(f.price));
  const long = side !== 'short';
  const price = (v: number) => formatDecimal(String(v), 2, 8);
  const out: { mae?: string; mfe?: string } = {};
  const against = (a: number, b: number) => (long ? a < b : a > b); // a is against the trade from b
  if (prices.length > 0) {
    const low = Math.min(...prices);
    const high = Math.max(...prices);
    if (mae !== '' && against(long ? low : high, Number(mae))) {
      out.mae = long
        ? `The worst price of a long is at or below its lowest fill, ${price(low)}: enter that or lower.`
        : `The worst price of a short is at or above its highest fill, ${price(high)}: enter that or higher.`;
    }
    if (mfe !== '' && against(Number(mfe), long ? high : low)) {
      out.mfe = long
        ? `The best price of a long is at or above its highest fill, ${price(high)}: enter that or higher.`
        : `The best price of a short is at or below its lowest fill, ${price(low)}: enter that or lower.`;
    }
  }
  if (!out.mae && !out.mfe && mae !== '' && mfe !== '' && against(Number(mfe), Number(mae))) {
    out.mfe = long ? 'The best price of a long is at or above its worst price.' : 'The best price of a short is at or below its worst price.';
  }
  return out;
}

/** samePrice reports whether a typed price is the saved one ("9.40" is 9.4; empty is none). */
function samePrice(typed: string, saved: string | null): boolean {
  const t = normalizeDecimal(typed);
  return t === (saved ?? '') || (t !== '' && saved !== null && Number(t) === Number(saved));
}

function useSaveExcursions(p: Position) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { maePrice: string | null; mfePrice: string | null }) =>
      unwrap(client.PATCH('/api/positions/{positionId}', { params: { path: { positionId: p.id } }, body })),
    onSuccess: (d) => {
      queryClient.setQueryData(['positions', p.id], d.position);
      void queryClient.invalidateQueries({ queryKey: ['positions', 'list'] });
    },
  });
}

/**
 * Review shows what a trade is reviewed by: how long it was held, the planned reward:risk against the
 * realised R, and how far price went against (MAE) and for (MFE) it, entered by hand or taken from the
 * price bars (a provider's or the trader's uploaded ones); an open stock position shows its unrealised P&L
 * when the instance has a quote provider.
 * Every figure comes from the API.
 */
export function Review({ p, currency }: { p: Position; currency: string | undefined }) {
  const config = useAppConfig();
  // Every position with a holding period has a chart: a provider's bars or the trader's uploaded ones
  // (the route says in words when there are neither, and the chart offers the upload).
  const charted = p.openedAt !== null;
  const unrealized = useQuery({
    queryKey: ['positions', p.id, 'unrealized', p.openQuantity],
    queryFn: () => unwrap(client.GET('/api/positions/{positionId}/unrealized', { params: { path: { positionId: p.id } } })),
    enabled: Boolean(config.data?.quoteLookup) && p.assetType === 'stock' && p.status === 'open',
    staleTime: 60_000,
    retry: false,
  });
  const [mae, setMae] = useState(p.maePrice ?? '');
  const [mfe, setMfe] = useState(p.mfePrice ?? '');
  useUnsaved('the MAE and MFE', !samePrice(mae, p.maePrice) || !samePrice(mfe, p.mfePrice));
  const save = useSaveExcursions(p);
  const [checked, setChecked] = useState<{ mae?: string; mfe?: string }>({});
  const err = save.error instanceof ApiError ? save.error : undefined;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const body = { maePrice: normalizeDecimal(mae), mfePrice: normalizeDecimal(mfe) };
    const problems = excursionErrors(p.side, p.fills, body.maePrice, body.mfePrice);
    setChecked(problems);
    if (problems.mae || problems.mfe) return;
    save.mutate({ maePrice: body.maePrice || null, mfePrice: body.mfePrice || null });
  };
  const r = p.review;
  return (
    <section aria-labelledby="review-title" className="card review-figures">
      <h2 id="review-title">Review</h2>
      <dl className="facts">
        <dt>Held</dt>
        <dd>
          {formatHold(r.holdSeconds)}
          {p.status === 'open' && r.holdSeconds != null ? ' so far' : ''}
        </dd>
        <dt>Planned reward:risk</dt>
        <dd>{r.plannedRR ? `${formatDecimal(r.plannedRR, 2)} : 1` : p.stopLoss && p.targetPrice ? '— (the stop is not on the losing side of the entry)' : '— (set a stop and a target)'}</dd>
        <dt>Realised R</dt>
        <dd className={pnlClass(p.rMultiple)}>{p.rMultiple ? `${formatDecimal(p.rMultiple, 2)}R realised` : p.status === 'closed' ? '— (set a stop to measure in R)' : '— (still open)'}</dd>
        <dt>MAE (adverse)</dt>
        <ExcursionCells e={r.mae} currency={currency} />
        <dt>MFE (favourable)</dt>
        <ExcursionCells e={r.mfe} currency={currency} />
        {unrealized.data && (
          <>
            <dt>Unrealised P&amp;L</dt>
            <dd data-testid="unrealized">
              <span className={pnlClass(unrealized.data.unrealizedPnl)}>{formatMoney(unrealized.data.unrealizedPnl, currency)}</span> at{' '}
              {formatDecimal(unrealized.data.quote.price, 2, 8)} (delayed, as of {formatDateTime(unrealized.data.quote.asOf)})
            </dd>
          </>
        )}
      </dl>
      {unrealized.isError && <p className="muted">The unrealised P&amp;L is not available right now: no quote could be fetched.</p>}
      <form onSubmit={submit} aria-label="Excursions" className="grid">
        <Field
          label="MAE price (worst price against the trade)"
          inputMode="decimal"
          value={mae}
          onChange={(e) => setMae(e.target.value)}
          error={checked.mae ?? err?.fieldError('maePrice')}
        />
        <Field
          label="MFE price (best price for the trade)"
          inputMode="decimal"
          value={mfe}
          onChange={(e) => setMfe(e.target.value)}
          error={checked.mfe ?? err?.fieldError('mfePrice')}
        />
        <div className="row">
          <button type="submit" disabled={save.isPending}>
            Save MAE and MFE
          </button>
          {save.isSuccess && <span role="status">Saved.</span>}
        </div>
        {err && err.details.length === 0 && <ErrorNote error={err} />}
      </form>
      {charted && <TradeChart p={p} currency={currency} />}
    </section>
  );
}
