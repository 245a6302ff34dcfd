import { createContext, useContext, useEffect, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, unwrap, type Schemas } from '../../api/client';
import { normalizeDecimal } from '../../numbers';
import { useAccounts } from '../../api/queries';
import { DataTable, numeric } from '../../components/QueryView';
import { ConfirmButton, ErrorNote, FormActions, Loading, PageTitle, TextAreaField } from '../../components/ui';
import { SaveState, useAutosaveDraft } from '../../components/autosave';
import { leaveWithoutAsking, listed, UnsavedChangesGuard, useUnsaved } from '../../components/unsaved';
import { fromLocalInput, toLocalInput } from '../../datetime';
import { formatDateTime, formatDecimal, formatMoney, pnlClass } from '../../format';
import { Assignment } from './Assignment';
import { AwaitingExpiryNote } from './expiry';
import { Images } from './Images';
import { Review } from './Review';
import { DetailFields, FillFields, fillInput, fillQuantity, newFill, positionLabels, type DetailDraft, type FillDraft } from './PositionNew';
import { TagPicker } from './TagPicker';
import { QuoteButton } from './QuoteButton';
import { PositionPlaybook } from './PositionPlaybook';
import { PositionCompliance } from '../rules/PositionCompliance';
import { ReviewButton } from '../assistant/ReviewButton';
import { contractText, plainNumber, takesPointValue } from './futures';
import { AwaitingRateNote, fillRateText, marketText, positionMarket, quotedApart, quotePnl, rateLabel, type FillMarket } from './markets';
import { currencyCode } from '../calculator/stepped';
import { sameValue, useDraft } from './draft';

type Position = Schemas['Position'];
type Fill = Schemas['Fill'];
type Changes = Schemas['PositionChanges'];
type Written = { position: Position; changes?: Changes };

/** ReportWrite tells the page what a write answered: the changes it made to other positions, and where its fill is now. */
const ReportWrite = createContext<(d: Written) => void>(() => {});

function usePositionKey(id: string) {
  return ['positions', id] as const;
}

/** useSetPosition stores the position a mutation answered with and refreshes what depends on it. */
function useSetPosition(id: string) {
  const queryClient = useQueryClient();
  const key = usePositionKey(id);
  const report = useContext(ReportWrite);
  return (data: Written | undefined) => {
    if (data) {
      queryClient.setQueryData(data.position.id === id ? key : (['positions', data.position.id] as const), data.position);
      report(data);
    }
    // A write can reverse, reopen or remove other positions of the run.
    if (data?.changes && Object.values(data.changes).some((ids) => ids.length > 0)) {
      void queryClient.invalidateQueries({ queryKey: ['positions'], predicate: (q) => q.queryKey[1] !== id });
    }
    void queryClient.invalidateQueries({ queryKey: ['positions', 'list'] });
    void queryClient.invalidateQueries({ queryKey: ['performance'] });
    void queryClient.invalidateQueries({ queryKey: ['accounts'] });
    void queryClient.invalidateQueries({ queryKey: ['dashboard'] });
  };
}

function Facts({ p, currency }: { p: Position; currency: string | undefined }) {
  const quoted = quotePnl(p, currency);
  return (
    <div className="tiles">
      <div className="tile">
        <div className="label">Net P&amp;L</div>
        <div className={`value ${pnlClass(p.netPnl)}`} data-testid="net-pnl">
          {formatMoney(p.netPnl, currency)}
        </div>
        {p.awaitingRate && <div className="muted tile-note">without the exit awaiting a rate</div>}
      </div>
      <div className="tile">
        <div className="label">R multiple</div>
        <div className={`value ${pnlClass(p.rMultiple)}`}>{p.rMultiple ? `${formatDecimal(p.rMultiple, 2)}R` : '—'}</div>
      </div>
      <div className="tile">
        <div className="label">Gross P&amp;L</div>
        {quoted ? (
          <div className={`value ${pnlClass(p.quoteGrossPnl)}`} data-testid="quote-pnl" title={`In ${p.quoteCurrency ?? ''}, the currency of its prices, and in ${currency ?? ''} at each exit's rate`}>
            {/* Each currency's figure on one line: a narrow tile breaks between them, never inside one. */}
            <span className="nowrap">{quoted[0]}</span> · <span className="nowrap">{quoted[1]}</span>
          </div>
        ) : (
          <div className={`value ${pnlClass(p.grossPnl)}`}>{formatMoney(p.grossPnl, currency)}</div>
        )}
      </div>
      <div className="tile">
        <div className="label">Fees</div>
        <div className="value">{formatMoney(p.fees, currency)}</div>
      </div>
      <div className="tile">
        <div className="label">Initial risk</div>
        <div className="value">{formatMoney(p.initialRisk, currency)}</div>
      </div>
      <div className="tile">
        <div className="label">Open quantity</div>
        <div className="value">{p.openQuantity}</div>
      </div>
    </div>
  );
}

/** The details form's fields as the page names them when they are not saved. */
const detailNames: Record<keyof DetailDraft, string> = {
  symbol: 'symbol',
  assetType: 'asset type',
  multiplier: 'point value',
  quoteCurrency: 'currency it is priced in',
  side: 'side',
  stopLoss: 'stop loss',
  targetPrice: 'target price',
};

/** detailsOf is a position's details as the form edits them. */
function detailsOf(p: Position): DetailDraft {
  return {
    symbol: p.symbol,
    assetType: p.assetType,
    // A future's point value, sent only when typed: absent, the API keeps it across a roll of the same root.
    multiplier: takesPointValue(p.assetType) || p.assetType === 'cfd' ? plainNumber(p.multiplier) : '',
    quoteCurrency: p.assetType === 'cfd' ? (p.quoteCurrency ?? '') : '',
    side: p.side,
    stopLoss: p.stopLoss ?? '',
    targetPrice: p.targetPrice ?? '',
  };
}

/**
 * DetailsForm edits the symbol, side, stop loss and target. An edit is
 * kept until Save details (a save elsewhere on the page does not wipe it),
 * the page asks before it is left unsaved, and the form says it is unsaved.
 */
function DetailsForm({ p, currency }: { p: Position; currency: string | undefined }) {
  const setPosition = useSetPosition(p.id);
  const saved = detailsOf(p);
  const { draft: details, setDraft: setDetails, dirty } = useDraft(saved);
  const changed = (Object.keys(detailNames) as Array<keyof DetailDraft>).filter((k) => details[k] !== saved[k]).map((k) => detailNames[k]);
  useUnsaved(`the ${listed(changed)}`, dirty);
  const save = useMutation({
    mutationFn: (sent: DetailDraft) => {
      const pointValue = normalizeDecimal(sent.multiplier);
      // A CFD's value per point and currency are sent each time: absent, the API takes 1 and the account's currency.
      const cfd = sent.assetType === 'cfd';
      const sendMultiplier = pointValue !== '' && (cfd || (takesPointValue(sent.assetType) && pointValue !== saved.multiplier));
      return unwrap(
        client.PATCH('/api/positions/{positionId}', {
          params: { path: { positionId: p.id } },
          body: {
            symbol: sent.symbol.trim(),
            side: sent.side,
            assetType: sent.assetType,
            stopLoss: normalizeDecimal(sent.stopLoss) || null,
            targetPrice: normalizeDecimal(sent.targetPrice) || null,
            ...(sendMultiplier ? { multiplier: pointValue } : {}),
            ...(cfd ? { quoteCurrency: currencyCode(sent.quoteCurrency) } : {}),
          },
        }),
      );
    },
    onSuccess: (data, sent) => {
      setPosition(data);
      // The form shows what was saved, as the API wrote it, unless it was edited again meanwhile.
      setDetails((d) => (sameValue(d, sent) ? detailsOf(data.position) : d));
    },
  });
  const err = save.error instanceof ApiError ? save.error : undefined;
  const labels = positionLabels(details.assetType);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate(details);
  };
  return (
    <form className="card" onSubmit={submit} aria-label="Position details">
      <h2>Details</h2>
      <div className="grid">
        <DetailFields draft={details} onChange={setDetails} errorOf={(field) => err?.fieldError(field, { labels })} account={currency ?? null} />
      </div>
      <QuoteButton symbol={details.symbol} />
      {err && err.details.length === 0 && <ErrorNote error={err} />}
      <div className="row">
        <button type="submit" disabled={save.isPending}>
          Save details
        </button>
        <span className="muted" aria-live="polite" data-testid="details-status">
          {save.isPending ? 'Saving…' : dirty ? `Not saved yet: the ${listed(changed)}. Save details to keep ${changed.length === 1 ? 'it' : 'them'}.` : ''}
        </span>
        {save.isSuccess && !dirty && <span role="status">Saved.</span>}
      </div>
    </form>
  );
}

/** fillVersion changes when a fill's own figures do, and only then (a row in edit keeps its draft through other saves). */
function fillVersion(f: Fill): string {
  return [f.id, f.type, f.price, f.quantity, f.fees, f.feeEstimated, f.filledAt, f.reversal, f.tradeQuantity, f.tradeFees, f.rate, f.rateGiven].join('|');
}

function FillRow({ p, fill, currency, market }: { p: Position; fill: Fill; currency: string | undefined; market: FillMarket }) {
  const setPosition = useSetPosition(p.id);
  const [editing, setEditing] = useState(false);
  // A part of a reversal is edited as the whole trade: its quantity and fees are both parts'.
  const quantity = fill.tradeQuantity ?? fill.quantity;
  const fees = fill.tradeFees ?? fill.fees;
  // A forex quantity is edited in units, as saved; a rate the journal found is left blank (found again on save).
  const [initial] = useState<FillDraft>(() => ({
    type: fill.type,
    price: fill.price,
    quantity,
    unit: 'units',
    fees: fill.feeEstimated ? '' : fees,
    filledAt: toLocalInput(fill.filledAt),
    rate: fill.rateGiven ? (fill.rate ?? '') : '',
  }));
  const quoted = quotedApart(p.assetType);
  const [draft, setDraft] = useState<FillDraft>(initial);
  useUnsaved(`the ${fill.type} fill of ${formatDateTime(fill.filledAt)}`, editing && !sameValue(draft, initial));
  const path = { positionId: p.id, fillId: fill.id };
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        client.PATCH('/api/positions/{positionId}/fills/{fillId}', {
          params: { path },
          body: fillPatch(draft, market),
        }),
      ),
    onSuccess: (d) => {
      setPosition(d);
      setEditing(false);
    },
  });
  const remove = useMutation({
    mutationFn: () => unwrap(client.DELETE('/api/positions/{positionId}/fills/{fillId}', { params: { path } })),
    onSuccess: setPosition,
  });
  const err = save.error instanceof ApiError ? save.error : undefined;
  if (editing) {
    return (
      <tr>
        <td colSpan={quoted ? 8 : 7}>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              save.mutate();
            }}
            aria-label="Edit fill"
          >
            {fill.reversal && (
              <p className="muted">
                This fill is part of a trade of {fill.tradeQuantity} that reversed the position. The quantity and fees here are the whole trade&apos;s; saving
                splits it again.
              </p>
            )}
            <FillFields fill={draft} onChange={setDraft} errorOf={(f) => err?.fieldError(f)} market={market} />
            {err && err.details.length === 0 && <ErrorNote error={err} />}
            <FormActions submit="Save fill" busy={save.isPending} onCancel={() => setEditing(false)} />
          </form>
        </td>
      </tr>
    );
  }
  return (
    <tr>
      <td>
        {fill.type}
        {fill.reversal && (
          <span className="chip" title={`Part of a trade of ${fill.tradeQuantity}: ${fill.reversal === 'closing' ? 'the quantity that was open' : 'the remainder, which opened this position'}`}>
            {fill.reversal === 'closing' ? 'reversal: closed here' : 'reversal: opened here'}
          </span>
        )}
        {fill.type === 'exit' && p.assetType === 'option' && Number(fill.price) === 0 && (
          <span className="chip" title="Closed at 0 after its expiry day. If it was exercised or assigned, edit this fill's price or delete it and record what happened.">
            expired worthless
          </span>
        )}
      </td>
      <td>{formatDateTime(fill.filledAt)}</td>
      <td className="num">{fill.quantity}</td>
      <td className="num">{formatDecimal(fill.price, 2, 8)}</td>
      <td className="num">
        {formatMoney(fill.fees, currency)}
        {fill.feeEstimated && <span className="muted" title="Estimated from the account's fee schedule"> (est.)</span>}
      </td>
      {quoted && <RateCell fill={fill} market={market} />}
      <td className={`num ${pnlClass(fill.realizedPnl)}`}>{fill.realizedPnl ? formatMoney(fill.realizedPnl, currency) : '—'}</td>
      <td>
        <div className="row">
          <button type="button" className="ghost" onClick={() => setEditing(true)} aria-label={`Edit ${fill.type} fill of ${formatDateTime(fill.filledAt)}`}>
            Edit
          </button>
          <ConfirmButton label={`Delete ${fill.type} fill of ${formatDateTime(fill.filledAt)}`} question="Delete this fill?" busy={remove.isPending} onConfirm={() => remove.mutate()}>
            Delete
          </ConfirmButton>
        </div>
        <ErrorNote error={remove.error} />
      </td>
    </tr>
  );
}

/** RateCell is a forex, crypto or CFD fill's rate, and whether the trader gave it or the journal found it. */
function RateCell({ fill, market }: { fill: Fill; market: FillMarket }) {
  const { rate, how } = fillRateText(fill);
  const waiting = fill.type === 'exit' && fill.rate == null;
  return (
    <td className="num" title={rateLabel(market)}>
      {rate}
      {how && <span className="muted"> ({how})</span>}
      {waiting && <span className="chip chip-warn">awaiting rate</span>}
    </td>
  );
}

/**
 * fillPatch is the body of a fill's edit: a forex quantity in units, and a forex, crypto or CFD fill's rate as typed
 * (null when blank: the journal finds it again).
 */
function fillPatch(draft: FillDraft, market: FillMarket): Schemas['FillPatch'] & { rate?: string | null } {
  const body: Schemas['FillPatch'] & { rate?: string | null } = {
    type: draft.type,
    price: normalizeDecimal(draft.price),
    quantity: fillQuantity(draft, market),
    fees: normalizeDecimal(draft.fees) || null,
    filledAt: fromLocalInput(draft.filledAt) ?? '',
  };
  // The API takes a fill's rate on an edit as on a new fill; the OpenAPI document's FillPatch does not list it yet.
  if (quotedApart(market.assetType)) body.rate = normalizeDecimal(draft.rate) || null;
  return body;
}

function AddFill({ p, market }: { p: Position; market: FillMarket }) {
  const setPosition = useSetPosition(p.id);
  const [initial, setInitial] = useState<FillDraft>(() => newFill(p.status === 'open' ? 'exit' : 'entry'));
  const [draft, setDraft] = useState<FillDraft>(initial);
  useUnsaved('the new fill', !sameValue(draft, initial));
  const add = useMutation({
    mutationFn: () => unwrap(client.POST('/api/positions/{positionId}/fills', { params: { path: { positionId: p.id } }, body: fillInput(draft, market) })),
    onSuccess: (d) => {
      const fresh = newFill('exit');
      setInitial(fresh);
      setDraft(fresh);
      setPosition(d);
    },
  });
  const err = add.error instanceof ApiError ? add.error : undefined;
  return (
    <form
      className="card"
      aria-label="Add fill"
      onSubmit={(e) => {
        e.preventDefault();
        add.mutate();
      }}
    >
      <h3>Add fill</h3>
      <FillFields fill={draft} onChange={setDraft} errorOf={(f) => err?.fieldError(f)} market={market} />
      {err && err.details.length === 0 && <ErrorNote error={err} />}
      <button type="submit" disabled={add.isPending}>
        Add fill
      </button>
    </form>
  );
}

/** Notes save themselves once typing pauses; the page asks before unsaved text is left (useUnsaved). */
function Notes({ p }: { p: Position }) {
  const setPosition = useSetPosition(p.id);
  const notes = useAutosaveDraft(p.notes, async (text: string) =>
    setPosition(await unwrap(client.PATCH('/api/positions/{positionId}', { params: { path: { positionId: p.id } }, body: { notes: text } }))),
  );
  useUnsaved('the notes', notes.dirty);
  const fieldError = notes.error instanceof ApiError ? notes.error.fieldError('notes') : undefined;
  return (
    <section className="card">
      <TextAreaField label="Notes" rows={6} maxLength={20000} value={notes.value} onChange={(e) => notes.setValue(e.target.value)} error={fieldError} />
      <SaveState state={notes} fieldShown={!!fieldError} />
    </section>
  );
}

/** tagsVersion changes when the position's tags do (the picker starts again from them). */
function tagsVersion(p: Position): string {
  return p.tags
    .map((t) => t.id)
    .sort()
    .join();
}

/** Tags save as they are picked; a pick not saved yet (or refused) is kept, and the page asks before it is left. */
function Tags({ p }: { p: Position }) {
  const setPosition = useSetPosition(p.id);
  const [ids, setIds] = useState(p.tags.map((t) => t.id));
  useUnsaved('the tags', [...ids].sort().join() !== tagsVersion(p));
  const save = useMutation({
    mutationFn: (tagIds: string[]) => unwrap(client.PUT('/api/positions/{positionId}/tags', { params: { path: { positionId: p.id } }, body: { tagIds } })),
    onSuccess: setPosition,
  });
  return (
    <div className="card">
      <TagPicker
        selected={ids}
        onChange={(next) => {
          setIds(next);
          save.mutate(next);
        }}
      />
      <ErrorNote error={save.error} />
    </div>
  );
}

/** ChangesNote says what the last write did to other positions of the run, with links to them. */
export function ChangesNote({ changes, current }: { changes: Changes; current: string }) {
  const opened = changes.opened.filter((id) => id !== current);
  const removed = changes.removed.filter((id) => id !== current);
  if (opened.length === 0 && removed.length === 0 && !changes.reopened.includes(current)) return null;
  return (
    <div className="card" role="status">
      {opened.length > 0 && (
        <p>
          This trade was larger than the quantity open, so it closed the position and opened the opposite one with the rest.{' '}
          {opened.map((id, i) => (
            <Link key={id} to={`/positions/${id}`}>
              {opened.length > 1 ? `Open new position ${i + 1}` : 'Open the new position'}
            </Link>
          ))}
        </p>
      )}
      {changes.reopened.includes(current) && <p>The position is open again: this entry came after its close.</p>}
      {removed.length > 0 && (
        <p>
          {removed.length === 1 ? 'A position' : `${removed.length} positions`} this position&apos;s trades had opened {removed.length === 1 ? 'is' : 'are'} gone:
          the trades no longer reverse it. Their notes, tags and screenshots went with them.
        </p>
      )}
    </div>
  );
}

/** PositionPage is a position's page, under one guard of its unsaved edits (each section marks its own: useUnsaved). */
export default function PositionPage() {
  return (
    <UnsavedChangesGuard>
      <PositionScreen />
    </UnsavedChangesGuard>
  );
}

function PositionScreen() {
  const { positionId = '' } = useParams();
  const accounts = useAccounts();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [last, setLast] = useState<{ changes: Changes; on: string } | null>(null);
  const [follow, setFollow] = useState<{ to: string; from: string } | null>(null);
  const report = (d: Written) => {
    setLast(d.changes ? { changes: d.changes, on: d.position.id } : null);
    setFollow({ to: d.position.id, from: positionId });
  };
  // The fill written now lives in another position of the run: follow it,
  // once the form that wrote it has closed (it is saved: the page's guard
  // asks only about edits still unsaved elsewhere on it).
  useEffect(() => {
    if (follow && follow.from === positionId && follow.to !== positionId) void navigate(`/positions/${follow.to}`);
  }, [follow, positionId, navigate]);
  const position = useQuery({
    queryKey: usePositionKey(positionId),
    queryFn: async () => (await unwrap(client.GET('/api/positions/{positionId}', { params: { path: { positionId } } }))).position,
  });
  const remove = useMutation({
    mutationFn: () => unwrap(client.DELETE('/api/positions/{positionId}', { params: { path: { positionId } } })),
    onSuccess: () => {
      // The position is gone: leave its page (edits of it are moot: no
      // asking) and refresh the lists. It is not refetched (that is a 404):
      // it stays as it was, stale, until the cache lets it go.
      void navigate('/positions', { state: leaveWithoutAsking });
      void queryClient.invalidateQueries({ queryKey: usePositionKey(positionId), refetchType: 'none' });
      void queryClient.invalidateQueries({ queryKey: ['positions', 'list'] });
      void queryClient.invalidateQueries({ queryKey: ['performance'] });
      void queryClient.invalidateQueries({ queryKey: ['accounts'] });
      void queryClient.invalidateQueries({ queryKey: ['dashboard'] });
    },
  });
  if (position.isPending) return <Loading />;
  if (position.isError) {
    if (position.error instanceof ApiError && position.error.status === 404) {
      return (
        <>
          <PageTitle>Position not found</PageTitle>
          <p>
            There is no such position in your journal. <Link to="/positions">All positions</Link>
          </p>
        </>
      );
    }
    return <ErrorNote error={position.error} />;
  }
  const p = position.data;
  const account = accounts.data?.find((a) => a.id === p.accountId);
  const market = positionMarket(p, account?.currency ?? null);
  const quoted = quotedApart(p.assetType);
  return (
    <ReportWrite.Provider value={report}>
      <PageTitle
        actions={
          <>
            <ReviewButton review={{ kind: 'position', positionId: p.id }}>Review this trade</ReviewButton>
            <ConfirmButton className="danger" question={`Delete ${p.symbol} with its fills and images?`} busy={remove.isPending} onConfirm={() => remove.mutate()}>
              Delete position
            </ConfirmButton>
          </>
        }
      >
        {p.symbol} <span className="chip">{p.side}</span> <span className="chip">{p.status}</span>
      </PageTitle>
      <p className="muted">
        {account ? `${account.name} (${account.currency})` : ''} · opened {formatDateTime(p.openedAt)}
        {p.closedAt ? ` · closed ${formatDateTime(p.closedAt)}` : ''}
        {p.assetType === 'option' && p.underlying ? ` · ${p.underlying} ${p.optionExpiry ?? ''} ${p.optionRight ?? ''} ${p.optionStrike ?? ''}` : ''}
        {takesPointValue(p.assetType) && ` · ${contractText(p)}`}
        {quoted && ` · ${marketText(p, account?.currency)}`}
        {p.reversalOf && (
          <>
            {' · '}
            <Link to={`/positions/${p.reversalOf}`}>continues the position it reversed</Link>
          </>
        )}
        {p.strategyId && (
          <>
            {' · '}
            <Link to={`/strategies/${p.strategyId}`}>a leg of a strategy</Link>
          </>
        )}
        {p.reversedInto && (
          <>
            {' · '}
            <Link to={`/positions/${p.reversedInto}`}>reversed into the next position</Link>
          </>
        )}
      </p>
      {p.status === 'open' && p.awaitingExpiry && <AwaitingExpiryNote />}
      {p.awaitingRate && <AwaitingRateNote p={p} account={account?.currency} />}
      {last && last.on === p.id && <ChangesNote changes={last.changes} current={p.id} />}
      <ErrorNote error={remove.error} />
      <Images positionId={p.id} />
      <Facts p={p} currency={account?.currency} />
      <Review key={`r-${p.id}-${p.maePrice ?? ''}-${p.mfePrice ?? ''}`} p={p} currency={account?.currency} />
      <PositionCompliance key={`rules-${p.id}-${p.updatedAt}`} positionId={p.id} />
      <section aria-labelledby="fills-title">
        <h2 id="fills-title">Fills</h2>
        <dl className="facts card">
          <dt>Average entry</dt>
          <dd>{formatDecimal(p.avgEntryPrice, 2, 10)}</dd>
          <dt>Average exit</dt>
          <dd>{formatDecimal(p.avgExitPrice, 2, 10)}</dd>
          <dt>Entered / exited</dt>
          <dd>
            {p.entryQuantity} / {p.exitQuantity}
          </dd>
        </dl>
        {p.fills.length > 0 && (
          <DataTable
            columns={['Type', 'Time', numeric('Quantity'), numeric('Price'), numeric('Fees'), ...(quoted ? [numeric('Rate')] : []), numeric('Realised'), 'Actions']}
          >
            {p.fills.map((f) => (
              <FillRow key={fillVersion(f)} p={p} fill={f} currency={account?.currency} market={market} />
            ))}
          </DataTable>
        )}
        <AddFill key={p.fills.length} p={p} market={market} />
      </section>
      {p.assetType === 'option' && (p.status === 'open' || p.fills.some((f) => f.type === 'exit' && Number(f.price) === 0)) && (
        <Assignment p={p} onDone={(option) => queryClient.setQueryData(usePositionKey(p.id), option)} />
      )}
      <DetailsForm key={`d-${p.id}`} p={p} currency={account?.currency} />
      <Notes key={`n-${p.id}`} p={p} />
      <Tags key={`t-${p.id}-${tagsVersion(p)}`} p={p} />
      <PositionPlaybook positionId={p.id} />
    </ReportWrite.Provider>
  );
}
