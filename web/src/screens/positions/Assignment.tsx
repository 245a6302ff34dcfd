import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, unwrap, type Schemas } from '../../api/client';
import { Field, FormActions } from '../../components/ui';
import { useUnsaved } from '../../components/unsaved';
import { fromLocalInput } from '../../datetime';
import { normalizeDecimal } from '../../numbers';

type Position = Schemas['Position'];

/** What happens to the shares when this option is exercised or assigned, in the trader's words. */
export function assignmentText(p: Position): string {
  const takesShares = (p.optionRight === 'C') === (p.side === 'long');
  const verb = p.side === 'long' ? 'Exercised' : 'Assigned';
  return `${verb}: ${takesShares ? 'you take' : 'you deliver'} ${p.multiplier} shares of ${p.underlying ?? 'the underlying'} a contract at ${p.optionStrike ?? 'the strike'}.`;
}

/**
 * Assignment records an option's exercise or assignment: the contracts close at 0 and the shares change hands at the
 * strike in the account's position of the underlying. It is offered on an open option, and on one the journal closed
 * at 0 after expiry (it may have been assigned instead of expiring worthless).
 */
export function Assignment({ p, onDone }: { p: Position; onDone: (option: Position) => void }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [contracts, setContracts] = useState('');
  const [at, setAt] = useState('');
  useUnsaved(p.side === 'long' ? 'the exercise' : 'the assignment', open && (contracts.trim() !== '' || at !== ''));
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        client.POST('/api/positions/{positionId}/assignment', {
          params: { path: { positionId: p.id } },
          body: { ...(contracts.trim() ? { quantity: normalizeDecimal(contracts) } : {}), ...(at ? { filledAt: fromLocalInput(at) ?? '' } : {}) },
        }),
      ),
    onSuccess: (d) => {
      onDone(d.position);
      void queryClient.invalidateQueries({ queryKey: ['positions'] });
      void queryClient.invalidateQueries({ queryKey: ['accounts'] });
      setOpen(false);
    },
  });
  const err = save.error instanceof ApiError ? save.error : undefined;
  const done = save.data?.underlying;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <section className="card" aria-labelledby="assignment-title">
      <h2 id="assignment-title">Exercise or assignment</h2>
      <p className="muted">{assignmentText(p)}</p>
      {done && (
        <p role="status">
          Recorded. The shares are in your <Link to={`/positions/${done.id}`}>{done.symbol} position</Link>.
        </p>
      )}
      {!open ? (
        <button type="button" onClick={() => setOpen(true)}>
          {p.side === 'long' ? 'Record the exercise' : 'Record the assignment'}
        </button>
      ) : (
        <form onSubmit={submit} aria-label="Exercise or assignment">
          <Field
            label="Contracts"
            inputMode="numeric"
            value={contracts}
            onChange={(e) => setContracts(e.target.value)}
            placeholder={p.openQuantity !== '0' ? p.openQuantity : p.exitQuantity}
            hint="Leave empty for all of them."
            error={err?.fieldError('quantity')}
          />
          <Field label="When" type="datetime-local" value={at} onChange={(e) => setAt(e.target.value)} hint="Leave empty for the close on the expiry date." error={err?.fieldError('filledAt')} />
          {err && err.details.length === 0 && (
            <p className="field-error" role="alert">
              {err.message}
            </p>
          )}
          <FormActions submit={p.side === 'long' ? 'Record the exercise' : 'Record the assignment'} busy={save.isPending} onCancel={() => setOpen(false)} />
        </form>
      )}
    </section>
  );
}
