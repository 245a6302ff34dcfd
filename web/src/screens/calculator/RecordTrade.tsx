import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, unwrap } from '../../api/client';
import { useAccounts } from '../../api/queries';
import { ErrorNote, Field, SelectField } from '../../components/ui';
import { fromLocalInput, toLocalInput } from '../../datetime';
import { recordRequest, type StrategyForm } from './strategy';

/**
 * RecordTrade records the builder's legs as a trade: each leg a position in the chosen account with one entry at its
 * price, grouped as one strategy in one request (nothing is written if a leg is refused), then opens the strategy.
 */
export function RecordTrade({ form }: { form: StrategyForm }) {
  const accounts = useAccounts();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [accountId, setAccountId] = useState('');
  const [underlying, setUnderlying] = useState('');
  const [at, setAt] = useState(() => toLocalInput(new Date().toISOString()));
  const body = recordRequest(form, accountId, underlying, fromLocalInput(at) ?? '');
  const record = useMutation({
    mutationFn: () => unwrap(client.POST('/api/strategies', { body: body ?? {} })),
    onSuccess: (d) => {
      for (const key of ['positions', 'strategies', 'performance', 'accounts']) void queryClient.invalidateQueries({ queryKey: [key] });
      void navigate(`/strategies/${d.strategy.id}`);
    },
  });
  const err = record.error instanceof ApiError ? record.error : undefined;
  return (
    <form
      className="card"
      aria-label="Record this trade"
      onSubmit={(e) => {
        e.preventDefault();
        record.mutate();
      }}
    >
      <h2>Record this trade</h2>
      <p className="muted">Each leg becomes a position with its entry at the price above; together they are one strategy in your journal.</p>
      <div className="grid">
        <SelectField label="Account" value={accountId} onChange={(e) => setAccountId(e.target.value)} error={err?.fieldError('accountId')}>
          <option value="">Choose an account</option>
          {accounts.data?.map((a) => (
            <option key={a.id} value={a.id}>
              {a.name}
            </option>
          ))}
        </SelectField>
        <Field label="Underlying" value={underlying} onChange={(e) => setUnderlying(e.target.value)} placeholder="SPY" hint="The ticker the options are on." />
        <Field label="Filled at" type="datetime-local" value={at} onChange={(e) => setAt(e.target.value)} />
      </div>
      {err && (
        <div className="note note-error" role="alert">
          <ul>
            {err.sentences().map((s) => (
              <li key={s}>{s}</li>
            ))}
          </ul>
        </div>
      )}
      {!err && <ErrorNote error={record.error} />}
      <button type="submit" disabled={body === null || record.isPending}>
        {record.isPending ? 'Recording…' : 'Record the trade'}
      </button>
      {body === null && <p className="hint">Choose the account and the underlying, and fill every leg, to record it.</p>}
    </form>
  );
}
