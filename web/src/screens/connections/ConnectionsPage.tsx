import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, unwrap, type Schemas } from '../../api/client';
import { useAccounts } from '../../api/queries';
import { ConfirmButton, ErrorNote, Field, PageTitle, SelectField } from '../../components/ui';
import { brokerNames, failureText, statusText, type Broker, type Connection } from './status';
import { setupSteps } from './steps';
import { connectionsKey, useConnections } from './queries';

type Input = Schemas['ConnectionInput'];

/** The credential fields each broker asks for, labelled as its own site labels them. */
const credentialFields: Record<Broker, Array<{ key: keyof Input['credentials']; label: string; hint?: string }>> = {
  ibkr: [
    { key: 'token', label: 'Flex Web Service token' },
    { key: 'queryId', label: 'Flex Query id', hint: 'The number next to the query under Flex Queries.' },
  ],
  alpaca: [
    { key: 'keyId', label: 'API key id' },
    { key: 'secret', label: 'Secret key' },
  ],
  kraken: [
    { key: 'keyId', label: 'API key' },
    { key: 'secret', label: 'Private key' },
  ],
};

function ConnectForm({ onDone }: { onDone: (c: Connection) => void }) {
  const accounts = useAccounts();
  const [broker, setBroker] = useState<Broker>('ibkr');
  const [accountId, setAccountId] = useState('');
  const [label, setLabel] = useState('');
  const [creds, setCreds] = useState<Input['credentials']>({});
  const create = useMutation({
    mutationFn: (body: Input) => unwrap(client.POST('/api/connections', { body })),
    onSuccess: (data) => {
      setCreds({});
      setLabel('');
      onDone(data.connection);
    },
  });
  const err = create.error instanceof ApiError ? create.error : undefined;
  const account = accountId || accounts.data?.[0]?.id || '';
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ broker, accountId: account, label, credentials: creds });
  };
  const guide = setupSteps[broker];
  return (
    <form className="card" onSubmit={submit} aria-label="Connect a broker">
      <h2>Connect a broker</h2>
      <div className="grid">
        <SelectField label="Broker" value={broker} onChange={(e) => { setBroker(e.target.value as Broker); setCreds({}); }}>
          {(Object.keys(brokerNames) as Broker[]).map((b) => (
            <option key={b} value={b}>
              {brokerNames[b]}
            </option>
          ))}
        </SelectField>
        <SelectField label="Into account" value={account} onChange={(e) => setAccountId(e.target.value)} error={err?.fieldError('accountId')}>
          {(accounts.data ?? []).map((a) => (
            <option key={a.id} value={a.id}>
              {a.name} ({a.currency})
            </option>
          ))}
        </SelectField>
        <Field label="Name" value={label} maxLength={100} placeholder={brokerNames[broker]} onChange={(e) => setLabel(e.target.value)} error={err?.fieldError('label')} />
        {credentialFields[broker].map((f) => (
          <Field
            key={f.key}
            label={f.label}
            type="password"
            autoComplete="off"
            required
            value={creds[f.key] ?? ''}
            hint={f.hint}
            onChange={(e) => setCreds({ ...creds, [f.key]: e.target.value })}
            error={err?.fieldError(`credentials.${f.key}`)}
          />
        ))}
      </div>
      {accounts.data?.length === 0 && (
        <p className="muted">
          Trades sync into one of your accounts: <Link to="/accounts">create an account</Link> first.
        </p>
      )}
      {err?.code === 'ENCRYPTION_REQUIRED' ? (
        <p className="note note-warn" role="alert">
          This server stores broker keys only encrypted, and its operator has not set an encryption key (ENCRYPTION_KEY) yet. Ask them to set one, then connect again.
        </p>
      ) : (
        err && err.details.length === 0 && <ErrorNote error={err} />
      )}
      <button type="submit" disabled={create.isPending || !account}>
        {create.isPending ? 'Connecting…' : `Connect ${brokerNames[broker]}`}
      </button>
      <details className="setup-steps" open>
        <summary>{guide.title}</summary>
        <ol>
          {guide.steps.map((s) => (
            <li key={s}>{s}</li>
          ))}
        </ol>
        <p className="muted">What is synced: {guide.syncs} Keys are stored encrypted and are never shown again, exported or logged.</p>
      </details>
    </form>
  );
}

function ConnectionCard({ c, accountName }: { c: Connection; accountName: string }) {
  const queryClient = useQueryClient();
  const [tested, setTested] = useState('');
  const path = { params: { path: { connectionId: c.id } } };
  const changed = (data?: { connection: Connection }) => {
    if (data) queryClient.setQueryData<Connection[]>(connectionsKey, (list) => list?.map((x) => (x.id === c.id ? data.connection : x)));
    void queryClient.invalidateQueries({ queryKey: connectionsKey });
  };
  const sync = useMutation({
    mutationFn: () => unwrap(client.POST('/api/connections/{connectionId}/sync', path)),
    onSuccess: (data) => {
      changed(data);
      // New fills move every figure.
      for (const key of ['positions', 'dashboard', 'performance', 'accounts', 'journal-days']) void queryClient.invalidateQueries({ queryKey: [key] });
    },
  });
  const test = useMutation({
    mutationFn: () => unwrap(client.POST('/api/connections/{connectionId}/test', path)),
    onSuccess: (r) => setTested(r.ok ? `${brokerNames[c.broker]} accepted the credentials.` : r.error ? failureText(c.broker, r.error) : ''),
  });
  const pause = useMutation({
    mutationFn: () => unwrap(c.paused ? client.POST('/api/connections/{connectionId}/resume', path) : client.POST('/api/connections/{connectionId}/pause', path)),
    onSuccess: changed,
  });
  const remove = useMutation({
    mutationFn: () => unwrap(client.DELETE('/api/connections/{connectionId}', path)),
    onSuccess: () => changed(),
  });
  const busy = sync.isPending || test.isPending || pause.isPending || remove.isPending;
  return (
    <li className="card" aria-label={c.label}>
      <h3>
        {c.label} <span className="muted">→ {accountName}</span>
      </h3>
      <p className={c.status === 'failing' ? 'note note-warn' : ''} data-testid="connection-status" role="status">
        {statusText(c)}
      </p>
      {tested && <p data-testid="connection-test">{tested}</p>}
      <ErrorNote error={sync.error ?? test.error ?? pause.error ?? remove.error} />
      <div className="row">
        <button type="button" onClick={() => sync.mutate()} disabled={busy}>
          {sync.isPending ? 'Syncing…' : 'Sync now'}
        </button>
        <button type="button" className="ghost" onClick={() => { setTested(''); test.mutate(); }} disabled={busy}>
          Test credentials
        </button>
        <button type="button" className="ghost" onClick={() => pause.mutate()} disabled={busy}>
          {c.paused ? 'Resume schedule' : 'Pause schedule'}
        </button>
        <ConfirmButton label={`Delete connection ${c.label}`} question="Its keys are deleted; the trades it synced stay in your journal." onConfirm={() => remove.mutate()} busy={busy}>
          Delete
        </ConfirmButton>
      </div>
    </li>
  );
}

export default function ConnectionsPage() {
  const list = useConnections();
  const accounts = useAccounts();
  const queryClient = useQueryClient();
  const [done, setDone] = useState('');
  const name = (id: string) => accounts.data?.find((a) => a.id === id)?.name ?? 'an account';
  return (
    <>
      <PageTitle actions={<Link to="/import">Import a file</Link>}>Connections</PageTitle>
      <p className="muted">
        Connect a broker with read-only access and your journal fills itself: on a schedule (every six hours) and whenever you press Sync now. A trade already in your journal, synced
        before or imported from a file, is never added twice.
      </p>
      {done && <p role="status">{done}</p>}
      <ErrorNote error={list.error} />
      {list.data && list.data.length > 0 && (
        <ul className="plain-list" aria-label="Your connections">
          {list.data.map((c) => (
            <ConnectionCard key={c.id} c={c} accountName={name(c.accountId)} />
          ))}
        </ul>
      )}
      {list.data?.length === 0 && <p>No broker is connected yet.</p>}
      <ConnectForm
        onDone={(c) => {
          setDone(`Connected ${c.label}. Press Sync now to fetch its trades, or let the schedule do it.`);
          void queryClient.invalidateQueries({ queryKey: connectionsKey });
        }}
      />
    </>
  );
}
