// The position page's playbook section: which playbook the trade followed
// and which of its criteria it met (PUT /api/positions/{id}/playbook).
import { useState } from 'react';
import { Link } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, unwrap, type Schemas } from '../../api/client';
import { usePlaybooks } from '../../api/queries';
import { ErrorNote, SelectField } from '../../components/ui';
import { useUnsaved } from '../../components/unsaved';

type Follows = Schemas['PositionPlaybook'];

const followsKey = (positionId: string) => ['position-playbook', positionId] as const;

function PlaybookForm({ positionId, follows }: { positionId: string; follows: Follows }) {
  const queryClient = useQueryClient();
  const playbooks = usePlaybooks();
  const [bookId, setBookId] = useState(follows.playbookId ?? '');
  const [met, setMet] = useState<string[]>(follows.criterionIds ?? []);
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        client.PUT('/api/positions/{positionId}/playbook', {
          params: { path: { positionId } },
          body: { playbookId: bookId || null, criterionIds: bookId ? met : [] },
        }),
      ),
    onSuccess: (data) => {
      queryClient.setQueryData(followsKey(positionId), data);
      void queryClient.invalidateQueries({ queryKey: ['performance'] });
      void queryClient.invalidateQueries({ queryKey: ['positions', 'list'] });
    },
  });
  const list = playbooks.data ?? [];
  // An archived playbook is offered only to the trade that already follows it.
  const offered = list.filter((b) => !b.archived || b.id === follows.playbookId);
  const book = list.find((b) => b.id === bookId);
  const err = save.error instanceof ApiError ? save.error : undefined;
  const samePlaybook = (follows.playbookId ?? '') === bookId;
  const saved = samePlaybook && [...(follows.criterionIds ?? [])].sort().join() === [...met].sort().join();
  // Leaving the page with a playbook or a tick not saved asks first.
  useUnsaved(samePlaybook ? 'the ticked criteria' : 'the playbook followed', !saved);
  if (playbooks.isSuccess && list.length === 0) {
    return (
      <p className="muted">
        No playbooks yet. <Link to="/playbooks">Create one</Link> to record which setup a trade followed and what it met.
      </p>
    );
  }
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <SelectField
        label="Playbook followed"
        value={bookId}
        onChange={(e) => {
          setBookId(e.target.value);
          setMet([]);
        }}
        error={err?.fieldError('playbookId', { labels: { playbookId: 'playbook' } })}
      >
        <option value="">No playbook</option>
        {offered.map((b) => (
          <option key={b.id} value={b.id}>
            {b.archived ? `${b.name} (archived)` : b.name}
          </option>
        ))}
      </SelectField>
      {book && (
        <fieldset>
          <legend>Criteria this trade met</legend>
          {book.criteria.length === 0 && <p className="muted">This playbook has no checklist.</p>}
          {book.criteria.map((c) => (
            <label key={c.id} className="check">
              <input type="checkbox" checked={met.includes(c.id)} onChange={(e) => setMet(e.target.checked ? [...met, c.id] : met.filter((x) => x !== c.id))} />
              {c.text}
            </label>
          ))}
        </fieldset>
      )}
      {err && <ErrorNote error={err} />}
      <div className="row">
        <button type="submit" disabled={save.isPending || saved}>
          Save playbook
        </button>
        <span className="muted" aria-live="polite" data-testid="playbook-status">
          {save.isPending ? 'Saving…' : saved ? '' : `Not saved yet: ${samePlaybook ? 'the ticked criteria' : 'the playbook followed'}. Save playbook to keep this change.`}
        </span>
        {save.isSuccess && saved && <span role="status">Saved.</span>}
      </div>
    </form>
  );
}

/** PositionPlaybook is the trade's playbook and its ticked criteria, editable. */
export function PositionPlaybook({ positionId }: { positionId: string }) {
  const follows = useQuery({
    queryKey: followsKey(positionId),
    queryFn: () => unwrap(client.GET('/api/positions/{positionId}/playbook', { params: { path: { positionId } } })),
  });
  return (
    <section className="card" aria-labelledby="playbook-title">
      <h2 id="playbook-title">Playbook</h2>
      {follows.isError && <ErrorNote error={follows.error} />}
      {follows.data && <PlaybookForm key={positionId} positionId={positionId} follows={follows.data} />}
    </section>
  );
}
