import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, unwrap } from '../../api/client';
import { useAccounts } from '../../api/queries';
import { useDebounced } from '../../hooks';
import { DataTable, numeric, QueryList } from '../../components/QueryView';
import { ErrorNote, Field, FormActions, LoadMore, PageTitle, SelectField } from '../../components/ui';
import { formatDateTime, formatDecimal, formatMoney, pnlClass } from '../../format';
import { LegPicker, usePositionsOn } from './LegPicker';
import { legsError } from './text';

/** Strategies lists the multi-leg trades, newest first, and groups new ones. */
export default function Strategies() {
  const accounts = useAccounts();
  const pages = useInfiniteQuery({
    queryKey: ['strategies'],
    queryFn: ({ pageParam }) => unwrap(client.GET('/api/strategies', { params: { query: { limit: 50, ...(pageParam ? { cursor: pageParam } : {}) } } })),
    initialPageParam: '',
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const items = pages.data?.pages.flatMap((p) => p.items) ?? [];
  const currencyOf = (id: string) => accounts.data?.find((a) => a.id === id)?.currency;
  return (
    <>
      <PageTitle>Strategies</PageTitle>
      <p className="muted">Spreads, condors, straddles and covered calls: the legs you recorded as positions, measured as one trade.</p>
      <NewStrategy />
      <QueryList query={pages} items={items} empty="No strategies yet.">
        {(list) => (
          <>
            <DataTable columns={['Strategy', 'Underlying', 'Status', 'Opened', numeric('Legs'), numeric('Net P&L'), numeric('R')]}>
              {list.map((s) => (
                <tr key={s.id}>
                  <th scope="row">
                    <Link to={`/strategies/${s.id}`}>{s.name || s.label || 'Strategy'}</Link>
                    {s.name && s.label && <div className="muted">{s.label}</div>}
                  </th>
                  <td>{s.underlying ?? '—'}</td>
                  <td>{s.status}</td>
                  <td className="when">{formatDateTime(s.openedAt)}</td>
                  <td className="num">{s.legs.length}</td>
                  <td className={`num ${pnlClass(s.netPnl)}`}>{formatMoney(s.netPnl, currencyOf(s.accountId))}</td>
                  <td className={`num ${pnlClass(s.rMultiple)}`}>{s.rMultiple ? `${formatDecimal(s.rMultiple, 2)}R` : '—'}</td>
                </tr>
              ))}
            </DataTable>
            <LoadMore query={pages} busyLabel="Loading…" />
          </>
        )}
      </QueryList>
    </>
  );
}

function NewStrategy() {
  const accounts = useAccounts();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [accountId, setAccountId] = useState('');
  const [underlying, setUnderlying] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const positions = usePositionsOn(accountId, useDebounced(underlying, 300));
  const create = useMutation({
    mutationFn: () => unwrap(client.POST('/api/strategies', { body: { accountId, positionIds: chosen } })),
    onSuccess: (d) => {
      void queryClient.invalidateQueries({ queryKey: ['strategies'] });
      void navigate(`/strategies/${d.strategy.id}`);
    },
  });
  const err = create.error instanceof ApiError ? create.error : undefined;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  const currency = accounts.data?.find((a) => a.id === accountId)?.currency;
  return (
    <form className="card" onSubmit={submit} aria-label="Group positions as a strategy">
      <h2>Group positions as a strategy</h2>
      <div className="row">
        <SelectField label="Account" value={accountId} onChange={(e) => setAccountId(e.target.value)} error={err?.fieldError('accountId')}>
          <option value="">Choose an account</option>
          {accounts.data?.map((a) => (
            <option key={a.id} value={a.id}>
              {a.name}
            </option>
          ))}
        </SelectField>
        <Field label="Underlying" value={underlying} onChange={(e) => setUnderlying(e.target.value)} placeholder="SPY" hint="The stock the options are on." />
      </div>
      {positions.data && <LegPicker positions={positions.data.items} chosen={chosen} onChange={setChosen} currency={currency} />}
      {err && <p className="field-error" role="alert">{legsError(err, positions.data?.items ?? [], chosen)}</p>}
      {!err && <ErrorNote error={positions.error} />}
      <FormActions submit="Group as a strategy" busy={create.isPending} />
    </form>
  );
}
