import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, unwrap, type Schemas } from '../../api/client';
import { useAccounts } from '../../api/queries';
import { ErrorNote, Field, PageTitle, SelectField, TextAreaField } from '../../components/ui';
import { fromLocalInput, toLocalInput } from '../../datetime';
import { emptyToUndefined } from '../../lists';
import { normalizeDecimal } from '../../numbers';
import { currencyCode } from '../calculator/stepped';
import { QuoteButton } from './QuoteButton';
import { SymbolInput } from './SymbolInput';
import { TagPicker } from './TagPicker';
import { AssetTypeOptions, futureHint, futureOptionHint, MultiplierField, takesPointValue, type AssetType } from './futures';
import {
  CfdFields,
  cfdHint,
  cryptoHint,
  forexHint,
  forexQuantityHint,
  formMarket,
  LotSizeOptions,
  quotedApart,
  rateHint,
  rateLabel,
  unitsOf,
  type FillMarket,
  type LotSize,
} from './markets';

/** How an option is named: the OCC symbol the journal parses into underlying, expiry, right and strike. */
export const optionHint = 'OCC symbol, e.g. AAPL  240119C00190000 (quantities are contracts of 100).';

export interface FillDraft {
  type: 'entry' | 'exit';
  price: string;
  quantity: string;
  /** What a forex quantity is typed in (lots or units); the API always gets units. Other asset types ignore it. */
  unit: LotSize;
  fees: string;
  filledAt: string;
  /** A forex, crypto or CFD fill's rate of the quote currency in the account's; blank lets the journal find it. */
  rate: string;
}

/** newFill is an empty fill row; a forex quantity is typed in standard lots unless the trader picks another size. */
export const newFill = (type: FillDraft['type'] = 'entry'): FillDraft => ({ type, price: '', quantity: '', unit: 'standard', fees: '', filledAt: toLocalInput(new Date()), rate: '' });

/** fillQuantity is a fill's quantity as the API takes it: a forex quantity typed in lots becomes units of the pair's base. */
export function fillQuantity(f: FillDraft, market?: FillMarket): string {
  return market?.assetType === 'forex' ? unitsOf(f.quantity, f.unit, market.base) : normalizeDecimal(f.quantity);
}

/**
 * fillInput turns a fill row into the API body: blank fees are left to the brokerage estimate, a forex quantity is
 * sent in units, and a forex, crypto or CFD fill's rate only when one was typed (blank: the journal finds it).
 */
export function fillInput(f: FillDraft, market?: FillMarket): Schemas['FillInput'] {
  const body: Schemas['FillInput'] = {
    type: f.type,
    price: normalizeDecimal(f.price),
    quantity: fillQuantity(f, market),
    filledAt: fromLocalInput(f.filledAt) ?? '',
  };
  const fees = emptyToUndefined(f.fees);
  if (fees !== undefined) body.fees = fees;
  const rate = normalizeDecimal(f.rate);
  if (market && quotedApart(market.assetType) && rate) body.rate = rate;
  return body;
}

/**
 * FillFields is one fill's inputs, labelled for screen readers and the end-to-end tests. With a forex market the
 * quantity is typed in lots or units; with a forex, crypto or CFD market the fill takes an optional rate, named in
 * words ("Value of 1 JPY in USD").
 */
export function FillFields({
  fill,
  onChange,
  index,
  errorOf,
  market,
}: {
  fill: FillDraft;
  onChange: (f: FillDraft) => void;
  index?: number;
  errorOf?: (field: string) => string | undefined;
  market?: FillMarket | undefined;
}) {
  const p = index === undefined ? '' : `fills[${index}].`;
  const suffix = index === undefined || index === 0 ? '' : ` (fill ${index + 1})`;
  const forex = market?.assetType === 'forex' ? market : undefined;
  return (
    <div className="grid">
      <SelectField label={`Fill type${suffix}`} value={fill.type} onChange={(e) => onChange({ ...fill, type: e.target.value as FillDraft['type'] })}>
        <option value="entry">Entry</option>
        <option value="exit">Exit</option>
      </SelectField>
      <Field
        label={fill.type === 'entry' ? `Entry price${suffix}` : `Exit price${suffix}`}
        inputMode="decimal"
        required
        value={fill.price}
        onChange={(e) => onChange({ ...fill, price: e.target.value })}
        error={errorOf?.(`${p}price`)}
      />
      {forex && (
        <SelectField label={`Quantity in${suffix}`} value={fill.unit} onChange={(e) => onChange({ ...fill, unit: e.target.value as LotSize })}>
          <LotSizeOptions base={forex.base} />
        </SelectField>
      )}
      <Field
        label={`Quantity${suffix}`}
        inputMode="decimal"
        required
        value={fill.quantity}
        onChange={(e) => onChange({ ...fill, quantity: e.target.value })}
        error={errorOf?.(`${p}quantity`)}
        hint={forex ? forexQuantityHint(fill.quantity, fill.unit, forex.base) : undefined}
      />
      <Field
        label={`Fees${suffix}`}
        inputMode="decimal"
        placeholder="from fee schedule"
        value={fill.fees}
        onChange={(e) => onChange({ ...fill, fees: e.target.value })}
        error={errorOf?.(`${p}fees`)}
      />
      <Field
        label={`Filled at${suffix}`}
        className="wide"
        type="datetime-local"
        step={1}
        required
        value={fill.filledAt}
        onChange={(e) => onChange({ ...fill, filledAt: e.target.value })}
        error={errorOf?.(`${p}filledAt`)}
      />
      {market && quotedApart(market.assetType) && (
        <Field
          label={`${rateLabel(market)}${suffix}`}
          className="wide"
          inputMode="decimal"
          placeholder="found by the journal"
          value={fill.rate}
          onChange={(e) => onChange({ ...fill, rate: e.target.value })}
          error={errorOf?.(`${p}rate`)}
          hint={rateHint(market)}
        />
      )}
    </div>
  );
}

/** A position's own inputs (not its account, fills, notes or tags), as the new-position and position screens edit them. */
export interface DetailDraft {
  symbol: string;
  assetType: AssetType;
  /** A future's point value, a CFD's value per point. */
  multiplier: string;
  /** A CFD's currency when it is not the account's; blank else. */
  quoteCurrency: string;
  side: 'long' | 'short';
  stopLoss: string;
  targetPrice: string;
}

/** How each asset type's symbol is written, under the symbol field. */
const symbolHints: Record<AssetType, string | undefined> = {
  stock: undefined,
  option: optionHint,
  future: futureHint,
  future_option: futureOptionHint,
  forex: forexHint,
  crypto: cryptoHint,
  cfd: cfdHint,
};

/**
 * positionLabels name the position form's fields in the API's messages as the form labels them: a CFD's currency
 * is what it is "priced in", its multiplier its value per point.
 */
export function positionLabels(assetType: AssetType): Record<string, string> {
  return assetType === 'cfd' ? { quoteCurrency: 'currency the CFD is priced in', multiplier: 'value per point' } : { quoteCurrency: 'currency the CFD is priced in' };
}

/**
 * DetailFields is a position's symbol, asset type, point value (futures), currency and value per point (CFDs), side,
 * stop loss and target price. account is the account's currency, the CFD's when it names none of its own.
 */
export function DetailFields({
  draft,
  onChange,
  errorOf,
  account = null,
}: {
  draft: DetailDraft;
  onChange: (d: DetailDraft) => void;
  errorOf: (field: string) => string | undefined;
  account?: string | null;
}) {
  const set = <K extends keyof DetailDraft>(key: K, value: DetailDraft[K]) => onChange({ ...draft, [key]: value });
  return (
    <>
      <SymbolInput value={draft.symbol} onChange={(v) => set('symbol', v)} error={errorOf('symbol')} hint={symbolHints[draft.assetType]} />
      <SelectField label="Asset type" value={draft.assetType} onChange={(e) => set('assetType', e.target.value as AssetType)}>
        <AssetTypeOptions />
      </SelectField>
      {takesPointValue(draft.assetType) && <MultiplierField value={draft.multiplier} onChange={(v) => set('multiplier', v)} error={errorOf('multiplier')} />}
      {draft.assetType === 'cfd' && (
        <CfdFields quoteCurrency={draft.quoteCurrency} multiplier={draft.multiplier} account={account} onChange={(c) => onChange({ ...draft, ...c })} errorOf={errorOf} />
      )}
      <SelectField label="Side" value={draft.side} onChange={(e) => set('side', e.target.value as DetailDraft['side'])} error={errorOf('side')}>
        <option value="long">Long</option>
        <option value="short">Short</option>
      </SelectField>
      <Field label="Stop loss" inputMode="decimal" value={draft.stopLoss} onChange={(e) => set('stopLoss', e.target.value)} error={errorOf('stopLoss')} />
      <Field label="Target price" inputMode="decimal" value={draft.targetPrice} onChange={(e) => set('targetPrice', e.target.value)} error={errorOf('targetPrice')} />
    </>
  );
}

export default function PositionNew() {
  const accounts = useAccounts();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const active = accounts.data?.filter((a) => !a.archived) ?? [];
  const [accountId, setAccountId] = useState(params.get('accountId') ?? '');
  const [details, setDetails] = useState<DetailDraft>({ symbol: '', assetType: 'stock', multiplier: '', quoteCurrency: '', side: 'long', stopLoss: '', targetPrice: '' });
  const { symbol, assetType, multiplier, quoteCurrency, side, stopLoss, targetPrice } = details;
  const [notes, setNotes] = useState('');
  const [tagIds, setTagIds] = useState<string[]>([]);
  const [fills, setFills] = useState<FillDraft[]>([newFill()]);
  const account = accountId || active[0]?.id || '';
  const currency = active.find((a) => a.id === account)?.currency ?? null;
  const market = formMarket(assetType, symbol, quoteCurrency, currency);
  const labels = positionLabels(assetType);

  const create = useMutation({
    mutationFn: () => {
      const body: Schemas['PositionCreate'] = { accountId: account, symbol: symbol.trim(), assetType, side, fills: fills.map((f) => fillInput(f, market)), tagIds };
      const stop = emptyToUndefined(stopLoss);
      if (stop) body.stopLoss = stop;
      const target = emptyToUndefined(targetPrice);
      if (target) body.targetPrice = target;
      const pointValue = emptyToUndefined(multiplier);
      if ((takesPointValue(assetType) || assetType === 'cfd') && pointValue) body.multiplier = pointValue;
      const priced = currencyCode(quoteCurrency);
      if (assetType === 'cfd' && priced) body.quoteCurrency = priced;
      if (notes.trim()) body.notes = notes;
      return unwrap(client.POST('/api/positions', { body }));
    },
    onSuccess: (data) => {
      void queryClient.invalidateQueries({ queryKey: ['positions'] });
      void queryClient.invalidateQueries({ queryKey: ['performance'] });
      void queryClient.invalidateQueries({ queryKey: ['accounts'] });
      void navigate(`/positions/${data.position.id}`);
    },
  });
  const err = create.error instanceof ApiError ? create.error : undefined;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  if (accounts.data && active.length === 0) {
    return (
      <>
        <PageTitle>New position</PageTitle>
        <p className="note">
          Create an account first: <Link to="/accounts">Accounts</Link>.
        </p>
      </>
    );
  }
  return (
    <>
      <PageTitle>New position</PageTitle>
      <form onSubmit={submit} className="card" noValidate>
        <div className="grid">
          <SelectField label="Account" value={account} onChange={(e) => setAccountId(e.target.value)} error={err?.fieldError('accountId')}>
            {active.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name} ({a.currency})
              </option>
            ))}
          </SelectField>
          <DetailFields draft={details} onChange={setDetails} errorOf={(field) => err?.fieldError(field, { labels })} account={currency} />
        </div>
        <QuoteButton
          symbol={symbol}
          onUse={(price) => {
            const first = fills[0];
            if (first) setFills([{ ...first, price }, ...fills.slice(1)]);
          }}
        />
        <h2>Fills</h2>
        {fills.map((f, i) => (
          <fieldset key={i}>
            <legend>Fill {i + 1}</legend>
            <FillFields fill={f} index={i} market={market} onChange={(nf) => setFills(fills.map((x, j) => (j === i ? nf : x)))} errorOf={(field) => err?.fieldError(field, { labels })} />
            {fills.length > 1 && (
              <button type="button" className="ghost" onClick={() => setFills(fills.filter((_, j) => j !== i))}>
                Remove fill {i + 1}
              </button>
            )}
          </fieldset>
        ))}
        <div className="row">
          <button type="button" className="ghost" onClick={() => setFills([...fills, newFill('entry')])}>
            Add entry
          </button>
          <button type="button" className="ghost" onClick={() => setFills([...fills, newFill('exit')])}>
            Add exit
          </button>
        </div>
        <TextAreaField label="Notes" maxLength={20000} value={notes} onChange={(e) => setNotes(e.target.value)} error={err?.fieldError('notes')} />
        <TagPicker selected={tagIds} onChange={setTagIds} />
        {err && err.details.length > 0 && (
          <ul className="note note-error" role="alert">
            {err.sentences({ labels }).map((s) => (
              <li key={s}>{s}</li>
            ))}
          </ul>
        )}
        {create.error && (!err || err.details.length === 0) && <ErrorNote error={create.error} />}
        <button type="submit" disabled={create.isPending || !account}>
          Save position
        </button>
      </form>
    </>
  );
}
