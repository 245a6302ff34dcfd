// Quick add: a trade's entry on one phone screen (symbol, side, quantity,
// price, time, account), written through POST /api/positions like the full
// form. Stops, targets, fees and notes are added on the position's page.
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, unwrap } from '../../api/client';
import { useAccounts } from '../../api/queries';
import { ErrorNote, Field, Loading, PageTitle, SelectField } from '../../components/ui';
import { fromLocalInput, toLocalInput } from '../../datetime';
import { normalizeDecimal } from '../../numbers';

/** The API's names of the fill's fields, as this form labels them. */
const labels = { 'fills[0].price': 'price', 'fills[0].quantity': 'quantity', 'fills[0].filledAt': 'time' };

export default function QuickAdd() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const accounts = useAccounts();
  const active = accounts.data?.filter((a) => !a.archived) ?? [];
  const [accountId, setAccountId] = useState('');
  const [symbol, setSymbol] = useState('');
  const [side, setSide] = useState<'long' | 'short'>('long');
  const [quantity, setQuantity] = useState('');
  const [price, setPrice] = useState('');
  const [time, setTime] = useState(() => toLocalInput(new Date()));
  const account = accountId || active[0]?.id || '';
  const create = useMutation({
    mutationFn: () =>
      unwrap(
        client.POST('/api/positions', {
          body: {
            accountId: account,
            symbol: symbol.trim(),
            assetType: 'stock',
            side,
            fills: [{ type: 'entry', price: normalizeDecimal(price), quantity: normalizeDecimal(quantity), filledAt: fromLocalInput(time) ?? '' }],
          },
        }),
      ),
    onSuccess: (data) => {
      for (const key of ['positions', 'performance', 'accounts']) void queryClient.invalidateQueries({ queryKey: [key] });
      void navigate(`/positions/${data.position.id}`);
    },
  });
  const err = create.error instanceof ApiError ? create.error : undefined;
  const errorOf = (field: string) => err?.fieldError(field, { labels });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  if (!accounts.data) return <Loading />;
  if (active.length === 0) {
    return (
      <>
        <PageTitle>Quick add</PageTitle>
        <p className="note">
          Create an account first: <Link to="/accounts">Accounts</Link>.
        </p>
      </>
    );
  }
  return (
    <>
      <PageTitle>Quick add</PageTitle>
      <form onSubmit={submit} className="card quick-add" aria-label="Quick add a trade" noValidate>
        <Field label="Symbol" required autoCapitalize="characters" autoComplete="off" value={symbol} onChange={(e) => setSymbol(e.target.value)} error={errorOf('symbol')} />
        <fieldset className="quick-add-side">
          <legend>Side</legend>
          {(['long', 'short'] as const).map((s) => (
            <label key={s} className="check">
              <input type="radio" name="side" value={s} checked={side === s} onChange={() => setSide(s)} />
              {s === 'long' ? 'Long (buy)' : 'Short (sell)'}
            </label>
          ))}
        </fieldset>
        <div className="quick-add-pair">
          <Field label="Quantity" inputMode="decimal" required value={quantity} onChange={(e) => setQuantity(e.target.value)} error={errorOf('fills[0].quantity')} />
          <Field label="Price" inputMode="decimal" required value={price} onChange={(e) => setPrice(e.target.value)} error={errorOf('fills[0].price')} />
        </div>
        <Field label="Time" type="datetime-local" step={1} required value={time} onChange={(e) => setTime(e.target.value)} error={errorOf('fills[0].filledAt')} />
        {active.length > 1 ? (
          <SelectField label="Account" value={account} onChange={(e) => setAccountId(e.target.value)} error={errorOf('accountId')}>
            {active.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name} ({a.currency})
              </option>
            ))}
          </SelectField>
        ) : (
          <p className="hint">
            Account: {active[0]?.name} ({active[0]?.currency})
          </p>
        )}
        {/* An error no field of this form shows (a rate limit, a field of the full form) is said here. */}
        {create.error && !(err && ['symbol', 'fills', 'accountId'].some((f) => err.fieldError(f))) && <ErrorNote error={create.error} />}
        <button type="submit" className="quick-add-save" disabled={create.isPending}>
          Save trade
        </button>
        <p className="hint">
          A stock or ETF entry. For other assets, fees, stops and exits use the <Link to="/positions/new">full form</Link>.
        </p>
      </form>
    </>
  );
}
