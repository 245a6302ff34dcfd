import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, unwrap, type Schemas } from '../api/client';
import { normalizeDecimal } from '../numbers';
import { keys, useBrokerages } from '../api/queries';
import { DataTable, numeric, QueryView } from '../components/QueryView';
import { ConfirmButton, ErrorNote, Field, FormActions, PageTitle } from '../components/ui';
import { formatDecimal } from '../format';

type Brokerage = Schemas['Brokerage'];

/** The seven fee fields of a schedule, with their labels. */
export const feeFields = [
  ['stockPerShareCommission', 'Stock commission per share'],
  ['stockMinPerFill', 'Stock minimum per fill'],
  ['stockMaxPerFill', 'Stock maximum per fill (0 = none)'],
  ['optionsPerContractCommission', 'Options commission per contract'],
  ['optionsPerContractExchangeFee', 'Options exchange fee per contract'],
  ['optionsMinPerFill', 'Options minimum per fill'],
  ['optionsMaxPerFill', 'Options maximum per fill (0 = none)'],
] as const;

type FeeField = (typeof feeFields)[number][0];

type Draft = { name: string } & Record<FeeField, string>;

function draftOf(b?: Brokerage): Draft {
  const d = { name: b?.name ?? '' } as Draft;
  for (const [k] of feeFields) d[k] = b?.[k] ?? '';
  return d;
}

function BrokerageForm({ brokerage, onDone }: { brokerage?: Brokerage; onDone: () => void }) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(brokerage));
  const queryClient = useQueryClient();
  const save = useMutation({
    mutationFn: () => {
      const body: Schemas['BrokerageRequest'] = { name: draft.name.trim() };
      for (const [k] of feeFields) body[k] = normalizeDecimal(draft[k]);
      return brokerage
        ? unwrap(client.PATCH('/api/brokerages/{brokerageId}', { params: { path: { brokerageId: brokerage.id } }, body }))
        : unwrap(client.POST('/api/brokerages', { body }));
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: keys.brokerages });
      if (!brokerage) setDraft(draftOf());
      onDone();
    },
  });
  const err = save.error instanceof ApiError ? save.error : undefined;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form className="card" onSubmit={submit}>
      <h2>{brokerage ? `Edit ${brokerage.name}` : 'New fee schedule'}</h2>
      <Field label="Brokerage name" required maxLength={100} value={draft.name} onChange={(e) => setDraft({ ...draft, name: e.target.value })} error={err?.fieldError('name')} />
      <div className="grid">
        {feeFields.map(([k, label]) => (
          <Field
            key={k}
            label={label}
            inputMode="decimal"
            placeholder="0"
            value={draft[k]}
            onChange={(e) => setDraft({ ...draft, [k]: e.target.value })}
            error={err?.fieldError(k)}
          />
        ))}
      </div>
      {err && err.details.length === 0 && <ErrorNote error={err} />}
      <FormActions submit={brokerage ? 'Save fee schedule' : 'Create fee schedule'} busy={save.isPending} onCancel={brokerage ? onDone : undefined} />
    </form>
  );
}

function DeleteBrokerage({ brokerage }: { brokerage: Brokerage }) {
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => unwrap(client.DELETE('/api/brokerages/{brokerageId}', { params: { path: { brokerageId: brokerage.id } } })),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: keys.brokerages });
      void queryClient.invalidateQueries({ queryKey: keys.accounts });
    },
  });
  return (
    <>
      <ConfirmButton label={`Delete ${brokerage.name}`} question={`Delete the fee schedule ${brokerage.name}?`} busy={remove.isPending} onConfirm={() => remove.mutate()}>
        Delete
      </ConfirmButton>
      <ErrorNote error={remove.error} />
    </>
  );
}

/** DuplicateBrokerage copies a schedule, a built-in one too, into a new one of the user's to edit. */
function DuplicateBrokerage({ brokerage, onCopied }: { brokerage: Brokerage; onCopied: (id: string) => void }) {
  const queryClient = useQueryClient();
  const copy = useMutation({
    mutationFn: () => unwrap(client.POST('/api/brokerages/{brokerageId}/duplicate', { params: { path: { brokerageId: brokerage.id } } })),
    onSuccess: (data) => {
      void queryClient.invalidateQueries({ queryKey: keys.brokerages });
      onCopied(data.brokerage.id);
    },
  });
  return (
    <>
      <button type="button" className="ghost" disabled={copy.isPending} onClick={() => copy.mutate()} aria-label={`Duplicate ${brokerage.name}`}>
        Duplicate
      </button>
      <ErrorNote error={copy.error} />
    </>
  );
}

export default function Brokerages() {
  const brokerages = useBrokerages();
  const [editing, setEditing] = useState<string | null>(null);
  const current = brokerages.data?.find((b) => b.id === editing);
  return (
    <>
      <PageTitle actions={<Link to="/accounts">Accounts</Link>}>Brokerages and fee schedules</PageTitle>
      <p className="muted">An account's fee schedule estimates the fees of fills entered without one, and the calculator can use it.</p>
      <QueryView query={brokerages}>
        {(list) => (
          <DataTable columns={['Name', numeric('Stock / share'), numeric('Stock min'), numeric('Stock max'), numeric('Option / contract'), numeric('Exchange / contract'), numeric('Option min'), numeric('Option max'), 'Actions']}>
            {list.map((b) => (
              <tr key={b.id}>
                <th scope="row">
                  {b.name} {b.builtIn && <span className="chip">built-in</span>}
                </th>
                {feeFields.map(([k]) => (
                  <td key={k} className="num">
                    {formatDecimal(b[k], 2, 8)}
                  </td>
                ))}
                <td>
                  <div className="row">
                    <DuplicateBrokerage brokerage={b} onCopied={setEditing} />
                    {!b.builtIn && (
                      <>
                        <button type="button" className="ghost" onClick={() => setEditing(b.id)} aria-label={`Edit ${b.name}`}>
                          Edit
                        </button>
                        <DeleteBrokerage brokerage={b} />
                      </>
                    )}
                  </div>
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </QueryView>
      {current ? <BrokerageForm key={current.id} brokerage={current} onDone={() => setEditing(null)} /> : <BrokerageForm onDone={() => undefined} />}
    </>
  );
}
