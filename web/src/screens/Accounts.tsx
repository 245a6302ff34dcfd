import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, errorText, unwrap, type Schemas } from '../api/client';
import { keys, useAccounts, useBrokerages } from '../api/queries';
import { Datalists } from '../components/Datalists';
import { DataTable, numeric, QueryList } from '../components/QueryView';
import { ErrorNote, Field, FormActions, PageTitle, SelectField } from '../components/ui';
import { formatMoney, formatPercent, pnlClass } from '../format';
import { emptyToUndefined } from '../lists';
import { AccountLedger } from './AccountLedger';
import { PropFirmPanel } from './propfirm/PropFirmPanel';

type Account = Schemas['Account'];

interface AccountDraft {
  name: string;
  currency: string;
  timezone: string;
  startingBalance: string;
  defaultRiskPercent: string;
  brokerageId: string;
  buyingPower: string;
}

const blank: AccountDraft = { name: '', currency: 'USD', timezone: 'America/New_York', startingBalance: '', defaultRiskPercent: '', brokerageId: '', buyingPower: '' };

function draftOf(a: Account): AccountDraft {
  return {
    name: a.name,
    currency: a.currency,
    timezone: a.timezone,
    startingBalance: a.startingBalance,
    defaultRiskPercent: a.defaultRiskPercent ?? '',
    brokerageId: a.brokerageId ?? '',
    buyingPower: a.buyingPower ?? '',
  };
}

/** accountRequest turns the form into the API body; blank optional fields are left out on create and cleared on edit. */
export function accountRequest(d: AccountDraft, editing: boolean): Schemas['AccountRequest'] {
  const body: Schemas['AccountRequest'] = {
    name: d.name.trim(),
    currency: d.currency.trim().toUpperCase(),
    timezone: d.timezone.trim() || 'America/New_York',
  };
  const start = emptyToUndefined(d.startingBalance);
  if (start !== undefined) body.startingBalance = start;
  const risk = emptyToUndefined(d.defaultRiskPercent);
  if (risk !== undefined) body.defaultRiskPercent = risk;
  else if (editing) body.defaultRiskPercent = null;
  if (d.brokerageId) body.brokerageId = d.brokerageId;
  else if (editing) body.brokerageId = null;
  const power = emptyToUndefined(d.buyingPower);
  if (power !== undefined) body.buyingPower = power;
  else if (editing) body.buyingPower = null;
  return body;
}

function AccountForm({ account, onDone }: { account?: Account; onDone: () => void }) {
  const [draft, setDraft] = useState<AccountDraft>(account ? draftOf(account) : blank);
  const brokerages = useBrokerages();
  const queryClient = useQueryClient();
  const save = useMutation({
    mutationFn: () =>
      account
        ? unwrap(client.PATCH('/api/accounts/{accountId}', { params: { path: { accountId: account.id } }, body: accountRequest(draft, true) }))
        : unwrap(client.POST('/api/accounts', { body: accountRequest(draft, false) })),
    onSuccess: () => {
      // A new account or a changed starting balance moves the dashboard's total and statistics.
      for (const key of [keys.accounts, keys.me, ['dashboard'], ['performance']]) void queryClient.invalidateQueries({ queryKey: key });
      if (!account) setDraft(blank);
      onDone();
    },
  });
  const err = save.error instanceof ApiError ? save.error : undefined;
  const set = (k: keyof AccountDraft) => (e: { target: { value: string } }) => setDraft({ ...draft, [k]: e.target.value });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form className="card" onSubmit={submit} aria-label={account ? `Edit ${account.name}` : 'New account'}>
      <h2>{account ? `Edit ${account.name}` : 'New account'}</h2>
      <div className="grid">
        <Field label="Account name" required maxLength={100} value={draft.name} onChange={set('name')} error={err?.fieldError('name', { labels: { name: 'account name' } })} />
        <Field
          label="Currency"
          required
          list="currencies"
          maxLength={3}
          value={draft.currency}
          onChange={set('currency')}
          error={err?.fieldError('currency')}
          hint="ISO 4217, e.g. USD"
        />
        <Field
          label="Trading-day time zone"
          list="timezones"
          value={draft.timezone}
          onChange={set('timezone')}
          error={err?.fieldError('timezone')}
        />
        <Field
          label="Starting balance"
          inputMode="decimal"
          value={draft.startingBalance}
          onChange={set('startingBalance')}
          error={err?.fieldError('startingBalance')}
          placeholder="0"
        />
        <Field
          label="Default risk %"
          inputMode="decimal"
          value={draft.defaultRiskPercent}
          onChange={set('defaultRiskPercent')}
          error={err?.fieldError('defaultRiskPercent')}
          placeholder="e.g. 1"
        />
        <Field
          label="Buying power"
          inputMode="decimal"
          value={draft.buyingPower}
          onChange={set('buyingPower')}
          error={err?.fieldError('buyingPower')}
          hint="The calculator caps a position at what this funds when you pick the account."
        />
        <SelectField label="Brokerage (fee schedule)" value={draft.brokerageId} onChange={set('brokerageId')} error={err?.fieldError('brokerageId')}>
          <option value="">None</option>
          {brokerages.data?.map((b) => (
            <option key={b.id} value={b.id}>
              {b.name}
              {b.builtIn ? ' (built-in)' : ''}
            </option>
          ))}
        </SelectField>
      </div>
      {err && err.details.length === 0 && <ErrorNote error={err} />}
      <FormActions submit={account ? 'Save account' : 'Create account'} busy={save.isPending} onCancel={account ? onDone : undefined} />
    </form>
  );
}

function DeleteAccount({ account }: { account: Account }) {
  const queryClient = useQueryClient();
  const [asked, setAsked] = useState(false);
  const remove = useMutation({
    mutationFn: (confirm: boolean) =>
      unwrap(
        client.DELETE('/api/accounts/{accountId}', {
          params: { path: { accountId: account.id }, query: confirm ? { confirm: 'true' } : {} },
        }),
      ),
    onSuccess: () => {
      for (const key of [keys.accounts, ['positions'], ['performance'], ['dashboard']]) void queryClient.invalidateQueries({ queryKey: key });
    },
  });
  const conflict = remove.error instanceof ApiError && remove.error.status === 409 ? remove.error : undefined;
  if (conflict) {
    return (
      <div role="alert" className="note note-warn">
        <p>{errorText(conflict)} Delete it anyway?</p>
        <div className="row">
          <button type="button" className="danger" onClick={() => remove.mutate(true)} disabled={remove.isPending}>
            Delete {account.name} and its positions
          </button>
          <button type="button" className="ghost" onClick={() => remove.reset()} autoFocus>
            Keep it
          </button>
        </div>
      </div>
    );
  }
  if (asked) {
    return (
      <span className="row">
        <button type="button" className="danger" onClick={() => remove.mutate(false)} disabled={remove.isPending}>
          Confirm delete
        </button>
        <button type="button" className="ghost" onClick={() => setAsked(false)}>
          Cancel
        </button>
        <ErrorNote error={remove.error} />
      </span>
    );
  }
  return (
    <button type="button" className="ghost" onClick={() => setAsked(true)} aria-label={`Delete ${account.name}`}>
      Delete
    </button>
  );
}

function ArchiveToggle({ account }: { account: Account }) {
  const queryClient = useQueryClient();
  const toggle = useMutation({
    mutationFn: () =>
      unwrap(client.PATCH('/api/accounts/{accountId}', { params: { path: { accountId: account.id } }, body: { archived: !account.archived } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: keys.accounts }),
  });
  return (
    <button type="button" className="ghost" onClick={() => toggle.mutate()} disabled={toggle.isPending}>
      {account.archived ? 'Unarchive' : 'Archive'}
    </button>
  );
}

export default function Accounts() {
  const accounts = useAccounts();
  const brokerages = useBrokerages();
  const [editing, setEditing] = useState<string | null>(null);
  const [ledgerOf, setLedgerOf] = useState<string | null>(null);
  const [params, setParams] = useSearchParams();
  const propFirmOf = params.get('propFirm');
  const setPropFirmOf = (id: string | null) => setParams(id ? { propFirm: id } : {}, { replace: true });
  const brokerName = (id: string | null) => (id ? (brokerages.data?.find((b) => b.id === id)?.name ?? '…') : '—');
  return (
    <>
      <PageTitle actions={<Link to="/brokerages">Brokerages and fee schedules</Link>}>Accounts</PageTitle>
      <Datalists />
      {params.get('welcome') && accounts.data?.length === 0 && (
        <p className="note" role="status">
          Welcome! Create your first trading account to start the journal.
        </p>
      )}
      <QueryList query={accounts} items={accounts.data} empty="No accounts yet.">
        {(list) => (
          <DataTable columns={['Name', 'Currency', numeric('Balance'), numeric('Starting balance'), numeric('Default risk'), 'Brokerage', 'Time zone', 'Actions']} caption="Your accounts">
            {list.map((a) => (
              <tr key={a.id}>
                <th scope="row">
                  <Link to={`/positions?accountId=${a.id}`}>{a.name}</Link>
                  {a.archived && <span className="chip">archived</span>}
                </th>
                <td>{a.currency}</td>
                <td className={`num ${pnlClass(a.balance.startsWith('-') ? a.balance : null)}`}>{formatMoney(a.balance, a.currency)}</td>
                <td className="num">{formatMoney(a.startingBalance, a.currency)}</td>
                <td className="num">{a.defaultRiskPercent ? formatPercent(a.defaultRiskPercent) : '—'}</td>
                <td>{brokerName(a.brokerageId)}</td>
                <td>{a.timezone}</td>
                <td>
                  <div className="row">
                    <button type="button" className="ghost" onClick={() => setEditing(a.id)} aria-label={`Edit ${a.name}`}>
                      Edit
                    </button>
                    <button type="button" className="ghost" onClick={() => setLedgerOf(a.id)} aria-label={`Ledger of ${a.name}`}>
                      Ledger
                    </button>
                    <button type="button" className="ghost" onClick={() => setPropFirmOf(a.id)} aria-label={`Prop firm plan of ${a.name}`}>
                      Prop firm
                    </button>
                    <ArchiveToggle account={a} />
                    <DeleteAccount account={a} />
                  </div>
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </QueryList>
      {ledgerOf && accounts.data?.find((a) => a.id === ledgerOf) && (
        <AccountLedger key={ledgerOf} account={accounts.data.find((a) => a.id === ledgerOf) as Account} onClose={() => setLedgerOf(null)} />
      )}
      {propFirmOf && accounts.data?.find((a) => a.id === propFirmOf) && (
        <PropFirmPanel key={propFirmOf} account={accounts.data.find((a) => a.id === propFirmOf) as Account} onClose={() => setPropFirmOf(null)} />
      )}
      {editing && accounts.data?.find((a) => a.id === editing) ? (
        <AccountForm key={editing} account={accounts.data.find((a) => a.id === editing)} onDone={() => setEditing(null)} />
      ) : (
        <AccountForm onDone={() => undefined} />
      )}
    </>
  );
}
