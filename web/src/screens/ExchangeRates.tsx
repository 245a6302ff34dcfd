import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, unwrap, type Schemas } from '../api/client';
import { normalizeDecimal } from '../numbers';
import { Datalists } from '../components/Datalists';
import { DataTable, numeric, QueryList } from '../components/QueryView';
import { ErrorNote, Field, LoadMore, PageTitle } from '../components/ui';
import { formatDay, formatMoney } from '../format';

type Preview = Schemas['ExchangeRatePreview'];
type RateInput = Schemas['ExchangeRate'];
type RateRecord = Schemas['ExchangeRateRecord'];

/** A change waiting for the user's explicit confirmation, with the totals it moves between. */
type Pending = { kind: 'upsert'; rate: RateInput; preview: Preview } | { kind: 'delete'; rate: RateRecord; preview: Preview };

function today(): string {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

function describeTotal(value: string | null, currency: string | null): string {
  if (!currency) return 'no total';
  return value === null ? 'no total (a rate is missing)' : formatMoney(value, currency);
}

/**
 * needsConfirmation: a change that moves an existing total by more than 5%,
 * or makes it impossible to compute. A rate that makes a total computable
 * where there was none (the first rate of a journal) moves nothing the
 * user has seen: it is saved without a warning.
 */
export function needsConfirmation(p: Preview): boolean {
  return p.exceedsThreshold && p.beforeTotal !== null;
}

/** moveText says why a preview needs confirmation: a move over 5%, or a total that disappears. */
export function moveText(p: Preview): string {
  if (p.beforeTotal !== null && p.afterTotal === null) return 'Without it your total balance can no longer be computed:';
  return 'This moves your total balance by more than 5%:';
}

function Confirm({ pending, busy, error, onConfirm, onCancel }: { pending: Pending; busy: boolean; error: unknown; onConfirm: () => void; onCancel: () => void }) {
  const { preview } = pending;
  const r = pending.rate;
  const what = pending.kind === 'upsert' ? `Set ${r.baseCurrency}/${r.quoteCurrency} to ${r.rate} from ${r.effectiveDate}` : `Delete the ${r.baseCurrency}/${r.quoteCurrency} rate of ${r.effectiveDate}`;
  return (
    <section className="note note-warn" role="alertdialog" aria-labelledby="confirm-title" aria-describedby="confirm-body">
      <h2 id="confirm-title">Confirm a large change to your total</h2>
      <div id="confirm-body">
        <p>{what}?</p>
        <p>{moveText(preview)}</p>
        <dl className="facts">
          <dt>Before</dt>
          <dd data-testid="preview-before">{describeTotal(preview.beforeTotal, preview.displayCurrency)}</dd>
          <dt>After</dt>
          <dd data-testid="preview-after">{describeTotal(preview.afterTotal, preview.displayCurrency)}</dd>
        </dl>
      </div>
      <ErrorNote error={error} />
      <div className="row">
        <button type="button" className="danger" onClick={onConfirm} disabled={busy}>
          {pending.kind === 'upsert' ? 'Confirm and save rate' : 'Confirm and delete rate'}
        </button>
        {/* Focus lands on the safe choice when the confirmation opens. */}
        <button type="button" className="ghost" onClick={onCancel} disabled={busy} autoFocus>
          Cancel
        </button>
      </div>
    </section>
  );
}

export default function ExchangeRates() {
  const [params] = useSearchParams();
  const queryClient = useQueryClient();
  const [rate, setRate] = useState<RateInput>({
    baseCurrency: params.get('base') ?? '',
    quoteCurrency: params.get('quote') ?? '',
    effectiveDate: params.get('date') ?? today(),
    rate: '',
  });
  const [pending, setPending] = useState<Pending | null>(null);
  const [done, setDone] = useState('');
  const rates = useInfiniteQuery({
    queryKey: ['exchange-rates'],
    queryFn: ({ pageParam }) => unwrap(client.GET('/api/exchange-rates', { params: { query: pageParam ? { cursor: pageParam } : {} } })),
    initialPageParam: '',
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const refresh = () => {
    for (const key of ['exchange-rates', 'dashboard', 'performance', 'tax']) void queryClient.invalidateQueries({ queryKey: [key] });
  };

  const save = useMutation({
    mutationFn: (r: RateInput) => unwrap(client.POST('/api/exchange-rates', { body: r })),
    onSuccess: (data) => {
      setPending(null);
      setDone(`Saved ${data.rate.baseCurrency}/${data.rate.quoteCurrency} ${data.rate.rate} from ${data.rate.effectiveDate}.`);
      setRate({ ...rate, rate: '' });
      refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (r: RateRecord) => unwrap(client.DELETE('/api/exchange-rates/{rateId}', { params: { path: { rateId: r.id } } })),
    onSuccess: (_d, r) => {
      setPending(null);
      setDone(`Deleted the ${r.baseCurrency}/${r.quoteCurrency} rate of ${r.effectiveDate}.`);
      refresh();
    },
  });
  // Every change is previewed first; only a large move asks for confirmation.
  const previewUpsert = useMutation({
    mutationFn: (r: RateInput) => unwrap(client.POST('/api/exchange-rates/preview', { body: { intent: 'upsert', rate: r } })),
    onSuccess: (preview, r) => {
      if (needsConfirmation(preview)) setPending({ kind: 'upsert', rate: r, preview });
      else save.mutate(r);
    },
  });
  const previewDelete = useMutation({
    mutationFn: (r: RateRecord) => unwrap(client.POST('/api/exchange-rates/preview', { body: { intent: 'delete', rateId: r.id } })),
    onSuccess: (preview, r) => {
      if (needsConfirmation(preview)) setPending({ kind: 'delete', rate: r, preview });
      else remove.mutate(r);
    },
  });
  const err = previewUpsert.error instanceof ApiError ? previewUpsert.error : save.error instanceof ApiError ? save.error : undefined;
  const fe = (f: string) => err?.fieldError(`rate.${f}`) ?? err?.fieldError(f);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setDone('');
    setPending(null);
    previewUpsert.mutate({ ...rate, baseCurrency: rate.baseCurrency.trim().toUpperCase(), quoteCurrency: rate.quoteCurrency.trim().toUpperCase(), rate: normalizeDecimal(rate.rate) });
  };
  const items = rates.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <>
      <PageTitle actions={<Link to="/">Dashboard</Link>}>Exchange rates</PageTitle>
      <Datalists />
      <p className="muted">From its effective date on, 1 unit of the base currency is worth the rate in the quote currency. The dashboard converts every account into your display currency with the rate in force today.</p>
      <form className="card" onSubmit={submit} aria-label="Add or replace a rate">
        <div className="grid">
          <Field label="Base currency" list="currencies" maxLength={3} required value={rate.baseCurrency} onChange={(e) => setRate({ ...rate, baseCurrency: e.target.value })} error={fe('baseCurrency')} />
          <Field label="Quote currency" list="currencies" maxLength={3} required value={rate.quoteCurrency} onChange={(e) => setRate({ ...rate, quoteCurrency: e.target.value })} error={fe('quoteCurrency')} />
          <Field label="Effective date" type="date" required value={rate.effectiveDate} onChange={(e) => setRate({ ...rate, effectiveDate: e.target.value })} error={fe('effectiveDate')} />
          <Field label="Rate" inputMode="decimal" required value={rate.rate} onChange={(e) => setRate({ ...rate, rate: e.target.value })} error={fe('rate')} hint="Up to 12 decimal places." />
        </div>
        {err && err.details.length === 0 && <ErrorNote error={err} />}
        <button type="submit" disabled={previewUpsert.isPending || save.isPending}>
          Save rate
        </button>
      </form>
      {pending && (
        <Confirm
          pending={pending}
          busy={save.isPending || remove.isPending}
          error={pending.kind === 'upsert' ? save.error : remove.error}
          onConfirm={() => (pending.kind === 'upsert' ? save.mutate(pending.rate) : remove.mutate(pending.rate))}
          onCancel={() => setPending(null)}
        />
      )}
      {done && (
        <p className="note" role="status">
          {done}
        </p>
      )}
      <ErrorNote error={previewDelete.error ?? (pending ? null : remove.error)} />
      <QueryList query={rates} items={items} empty="No rates yet.">
        {(rateList) => (
          <DataTable columns={['Pair', 'Effective', numeric('Rate'), 'Actions']}>
            {rateList.map((r) => (
              <tr key={r.id}>
                <th scope="row">
                  {r.baseCurrency}/{r.quoteCurrency}
                </th>
                <td>{formatDay(r.effectiveDate)}</td>
                <td className="num">{r.rate}</td>
                <td>
                  <button
                    type="button"
                    className="ghost"
                    disabled={previewDelete.isPending || remove.isPending}
                    aria-label={`Delete ${r.baseCurrency}/${r.quoteCurrency} of ${r.effectiveDate}`}
                    onClick={() => {
                      setDone('');
                      previewDelete.mutate(r);
                    }}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </QueryList>
      <LoadMore query={rates} />
    </>
  );
}
