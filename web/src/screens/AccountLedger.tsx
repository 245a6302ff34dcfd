import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, unwrap, type Schemas } from '../api/client';
import { normalizeDecimal } from '../numbers';
import { keys } from '../api/queries';
import { DataTable, numeric, QueryList } from '../components/QueryView';
import { ErrorNote, Field, LoadMore, SelectField } from '../components/ui';
import { fromLocalInput, toLocalInput } from '../datetime';
import { formatDateTime, formatMoney, pnlClass } from '../format';

type Account = Schemas['Account'];

const kindLabel: Record<Schemas['LedgerEntry']['kind'], string> = {
  deposit: 'Deposit',
  withdrawal: 'Withdrawal',
  adjustment: 'Adjustment',
  realized_pnl: 'Realised P&L',
  fee: 'Fee',
};

/** entryStatus says what became of a deleted entry: the API keeps it and writes its reversal, so the list shows both. */
function entryStatus(e: Schemas['LedgerEntry']): string {
  if (e.reversesId) return 'Reversal';
  if (e.reversedBy) return 'Reversed';
  return '';
}

/** ReconcileForm sets the account's balance to the broker's: the API records the difference as an adjustment entry. */
function ReconcileForm({ account, onDone }: { account: Account; onDone: () => void }) {
  const [balance, setBalance] = useState('');
  const reconcile = useMutation({
    mutationFn: () =>
      unwrap(client.POST('/api/accounts/{accountId}/ledger/reconcile', { params: { path: { accountId: account.id } }, body: { balance: normalizeDecimal(balance) } })),
    onSuccess: () => {
      setBalance('');
      onDone();
    },
  });
  const err = reconcile.error instanceof ApiError ? reconcile.error : undefined;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    reconcile.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Reconcile with the broker" className="grid">
      <Field label="Broker's balance" inputMode="decimal" required value={balance} onChange={(e) => setBalance(e.target.value)} error={err?.fieldError('balance')} />
      <div className="field">
        <button type="submit" disabled={reconcile.isPending || balance.trim() === ''}>
          Reconcile
        </button>
      </div>
      {err && err.details.length === 0 && <ErrorNote error={err} />}
      {reconcile.isSuccess && (
        <p role="status">
          {reconcile.data.entry
            ? `Recorded an adjustment of ${formatMoney(reconcile.data.entry.amount, account.currency)}; the balance is now ${formatMoney(reconcile.data.account.balance, account.currency)}.`
            : 'The balance already matches the broker’s; nothing was recorded.'}
        </p>
      )}
    </form>
  );
}

/** AccountLedger lists an account's balance changes and records deposits, withdrawals and reconciles. */
export function AccountLedger({ account, onClose }: { account: Account; onClose: () => void }) {
  const queryClient = useQueryClient();
  const key = ['accounts', account.id, 'ledger'];
  const [kind, setKind] = useState<'deposit' | 'withdrawal'>('deposit');
  const [amount, setAmount] = useState('');
  const [when, setWhen] = useState(() => toLocalInput(new Date()));
  const [note, setNote] = useState('');
  const path = { accountId: account.id };
  const ledger = useInfiniteQuery({
    queryKey: key,
    queryFn: ({ pageParam }) => unwrap(client.GET('/api/accounts/{accountId}/ledger', { params: { path, query: pageParam ? { cursor: pageParam } : {} } })),
    initialPageParam: '',
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: key });
    void queryClient.invalidateQueries({ queryKey: keys.accounts });
    void queryClient.invalidateQueries({ queryKey: ['dashboard'] });
  };
  const add = useMutation({
    mutationFn: () => {
      const body: Schemas['LedgerEntryRequest'] = { kind, amount: normalizeDecimal(amount) };
      const at = fromLocalInput(when);
      if (at) body.occurredAt = at;
      if (note.trim()) body.note = note.trim();
      return unwrap(client.POST('/api/accounts/{accountId}/ledger', { params: { path }, body }));
    },
    onSuccess: () => {
      setAmount('');
      setNote('');
      refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (entryId: string) => unwrap(client.DELETE('/api/accounts/{accountId}/ledger/{entryId}', { params: { path: { ...path, entryId } } })),
    onSuccess: refresh,
  });
  const err = add.error instanceof ApiError ? add.error : undefined;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate();
  };
  const items = ledger.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <section className="card" aria-labelledby="ledger-title">
      <div className="page-title">
        <h2 id="ledger-title">Ledger of {account.name}</h2>
        <button type="button" className="ghost" onClick={onClose}>
          Close ledger
        </button>
      </div>
      <p>
        Balance <strong>{formatMoney(account.balance, account.currency)}</strong> = starting balance {formatMoney(account.startingBalance, account.currency)} plus every entry below.
      </p>
      <form onSubmit={submit} aria-label="Deposit or withdrawal" className="grid">
        <SelectField label="Entry kind" value={kind} onChange={(e) => setKind(e.target.value as 'deposit' | 'withdrawal')}>
          <option value="deposit">Deposit</option>
          <option value="withdrawal">Withdrawal</option>
        </SelectField>
        <Field label="Amount" inputMode="decimal" required value={amount} onChange={(e) => setAmount(e.target.value)} error={err?.fieldError('amount')} />
        <Field label="Date and time" type="datetime-local" step={1} value={when} onChange={(e) => setWhen(e.target.value)} error={err?.fieldError('occurredAt')} />
        <Field label="Note" maxLength={500} value={note} onChange={(e) => setNote(e.target.value)} error={err?.fieldError('note')} />
        <div className="field">
          <button type="submit" disabled={add.isPending}>
            Record {kind}
          </button>
        </div>
      </form>
      {err && err.details.length === 0 && <ErrorNote error={err} />}
      <ReconcileForm account={account} onDone={refresh} />
      <ErrorNote error={remove.error} />
      <QueryList query={ledger} items={items} empty="No entries yet.">
        {(entries) => (
          <DataTable columns={['When', 'Kind', numeric('Amount'), 'Note', 'Status', 'Actions']}>
            {entries.map((e) => (
              <tr key={e.id}>
                <td>{formatDateTime(e.occurredAt)}</td>
                <td>{e.positionId ? <Link to={`/positions/${e.positionId}`}>{kindLabel[e.kind]}</Link> : kindLabel[e.kind]}</td>
                <td className={`num ${pnlClass(e.amount)}`}>{formatMoney(e.amount, account.currency)}</td>
                <td>{e.note}</td>
                <td>{entryStatus(e)}</td>
                <td>
                  {(e.kind === 'deposit' || e.kind === 'withdrawal' || e.kind === 'adjustment') && !e.reversesId && !e.reversedBy && (
                    <button type="button" className="ghost" disabled={remove.isPending} onClick={() => remove.mutate(e.id)} aria-label={`Delete ${e.kind} of ${formatDateTime(e.occurredAt)}`}>
                      Delete
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </QueryList>
      <LoadMore query={ledger} />
    </section>
  );
}
