// Playbooks: a trader's named setups, each with a checklist of criteria. A
// position follows one and ticks the criteria it met (on the position's
// page); the dashboard breaks the statistics down by playbook and by
// criterion met or missed.
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, unwrap, type Schemas } from '../api/client';
import { keys, usePlaybooks } from '../api/queries';
import { ConfirmDialog } from '../components/confirm';
import { MarkdownView } from '../components/Markdown';
import { QueryList } from '../components/QueryView';
import { ConfirmButton, ErrorNote, Field, FormActions, PageTitle, TextAreaField } from '../components/ui';

type Playbook = Schemas['Playbook'];

/** An item of the checklist being edited: key is stable while the list is reordered. */
interface Item {
  key: string;
  id?: string;
  text: string;
}

let nextKey = 0;
const newItem = (text = '', id?: string): Item => ({ key: `c${nextKey++}`, text, ...(id ? { id } : {}) });

/** useRefresh re-reads what a playbook change moves: the list, positions and statistics. */
function useRefresh() {
  const queryClient = useQueryClient();
  return () => {
    for (const key of [keys.playbooks, ['positions'], ['performance'], ['position-playbook']]) void queryClient.invalidateQueries({ queryKey: key });
  };
}

/** ChecklistEditor edits the criteria in order: add, reword, move and remove. */
function ChecklistEditor({ items, onChange, error }: { items: Item[]; onChange: (items: Item[]) => void; error: ApiError | undefined }) {
  const move = (i: number, by: number) => {
    const next = [...items];
    const [it] = next.splice(i, 1);
    next.splice(i + by, 0, it!);
    onChange(next);
  };
  return (
    <fieldset className="checklist-editor">
      <legend>Checklist</legend>
      {items.length === 0 && <p className="muted">No criteria yet. Add what a trade of this setup must show.</p>}
      <ol>
        {items.map((it, i) => (
          <li key={it.key} className="row">
            <Field
              label={`Criterion ${i + 1}`}
              value={it.text}
              maxLength={200}
              required
              onChange={(e) => onChange(items.map((x) => (x.key === it.key ? { ...x, text: e.target.value } : x)))}
              error={error?.fieldError(`criteria[${i}]`, { labels: { [`criteria[${i}].text`]: `criterion ${i + 1}`, [`criteria[${i}].id`]: `criterion ${i + 1}` } })}
            />
            <button type="button" className="ghost" disabled={i === 0} onClick={() => move(i, -1)} aria-label={`Move criterion ${i + 1} up`}>
              ↑
            </button>
            <button type="button" className="ghost" disabled={i === items.length - 1} onClick={() => move(i, 1)} aria-label={`Move criterion ${i + 1} down`}>
              ↓
            </button>
            <button type="button" className="ghost" onClick={() => onChange(items.filter((x) => x.key !== it.key))} aria-label={`Remove criterion ${i + 1}`}>
              Remove
            </button>
          </li>
        ))}
      </ol>
      {items.length < 30 && (
        <button type="button" className="ghost" onClick={() => onChange([...items, newItem()])}>
          Add criterion
        </button>
      )}
      {error?.fieldError('criteria') && !items.some((_, i) => error.fieldError(`criteria[${i}]`)) && <small className="field-error">{error.fieldError('criteria')}</small>}
    </fieldset>
  );
}

/** PlaybookForm creates a playbook, or edits one (its checklist as a whole). */
function PlaybookForm({ playbook, onDone }: { playbook?: Playbook; onDone: () => void }) {
  const refresh = useRefresh();
  const [name, setName] = useState(playbook?.name ?? '');
  const [description, setDescription] = useState(playbook?.description ?? '');
  const [archived, setArchived] = useState(playbook?.archived ?? false);
  const [items, setItems] = useState<Item[]>(() => (playbook?.criteria ?? []).map((c) => newItem(c.text, c.id)));
  const save = useMutation({
    mutationFn: () => {
      const body = {
        name: name.trim(),
        description,
        archived,
        criteria: items.map((it) => ({ text: it.text.trim(), ...(it.id ? { id: it.id } : {}) })),
      };
      return playbook
        ? unwrap(client.PATCH('/api/playbooks/{playbookId}', { params: { path: { playbookId: playbook.id } }, body }))
        : unwrap(client.POST('/api/playbooks', { body }));
    },
    onSuccess: () => {
      refresh();
      onDone();
    },
  });
  const err = save.error instanceof ApiError ? save.error : undefined;
  const removed = playbook ? playbook.criteria.filter((c) => !items.some((it) => it.id === c.id)).length : 0;
  // Removing criteria drops the ticks trades gave them: the app asks first.
  const [asking, setAsking] = useState(false);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (removed > 0) setAsking(true);
    else save.mutate();
  };
  const title = playbook ? `Edit ${playbook.name}` : 'New playbook';
  return (
    <form className="card" onSubmit={submit} aria-label={title}>
      <h2>{title}</h2>
      <Field label="Playbook name" value={name} maxLength={100} required onChange={(e) => setName(e.target.value)} error={err?.fieldError('name', { labels: { name: 'playbook name' } })} />
      <TextAreaField label="Description" placeholder="Markdown: **bold**, lists, links" value={description} maxLength={4000} rows={3} onChange={(e) => setDescription(e.target.value)} error={err?.fieldError('description')} />
      <ChecklistEditor items={items} onChange={setItems} error={err} />
      {playbook && (
        <label className="check">
          <input type="checkbox" checked={archived} onChange={(e) => setArchived(e.target.checked)} />
          Archived (kept in the statistics, not offered for new trades)
        </label>
      )}
      {err && err.details.length === 0 && <ErrorNote error={err} />}
      <FormActions submit={playbook ? 'Save playbook' : 'Create playbook'} busy={save.isPending} onCancel={onDone} />
      {asking && (
        <ConfirmDialog
          title={removed === 1 ? 'Remove a criterion?' : `Remove ${removed} criteria?`}
          message={`Remove ${removed === 1 ? 'a criterion' : `${removed} criteria`} from the checklist? Trades that met ${removed === 1 ? 'it' : 'them'} lose that tick.`}
          confirmLabel="Remove and save"
          cancelLabel="Keep editing"
          onCancel={() => setAsking(false)}
          onConfirm={() => {
            setAsking(false);
            save.mutate();
          }}
        />
      )}
    </form>
  );
}

function PlaybookCard({ playbook }: { playbook: Playbook }) {
  const refresh = useRefresh();
  const [editing, setEditing] = useState(false);
  const remove = useMutation({
    mutationFn: () => unwrap(client.DELETE('/api/playbooks/{playbookId}', { params: { path: { playbookId: playbook.id } } })),
    onSuccess: refresh,
  });
  if (editing) return <PlaybookForm playbook={playbook} onDone={() => setEditing(false)} />;
  return (
    <section className="card" aria-label={`Playbook ${playbook.name}`}>
      <h2>
        {playbook.name} {playbook.archived && <span className="muted">(archived)</span>}
      </h2>
      {playbook.description && <MarkdownView source={playbook.description} label={`Description of ${playbook.name}`} />}
      {playbook.criteria.length === 0 ? (
        <p className="muted">No checklist yet.</p>
      ) : (
        <ol aria-label={`Checklist of ${playbook.name}`}>
          {playbook.criteria.map((c) => (
            <li key={c.id}>{c.text}</li>
          ))}
        </ol>
      )}
      <div className="row">
        <button type="button" className="ghost" onClick={() => setEditing(true)} aria-label={`Edit playbook ${playbook.name}`}>
          Edit
        </button>
        <ConfirmButton
          label={`Delete playbook ${playbook.name}`}
          question={`Delete the playbook ${playbook.name} and its checklist? Its trades keep everything else and follow no playbook.`}
          busy={remove.isPending}
          onConfirm={() => remove.mutate()}
        >
          Delete
        </ConfirmButton>
      </div>
      <ErrorNote error={remove.error} />
    </section>
  );
}

export default function Playbooks() {
  const playbooks = usePlaybooks();
  const [creating, setCreating] = useState(false);
  return (
    <>
      <PageTitle
        actions={
          !creating && (
            <button type="button" onClick={() => setCreating(true)}>
              New playbook
            </button>
          )
        }
      >
        Playbooks
      </PageTitle>
      <p className="hint">A playbook is a setup you trade, with the checklist a trade of it should meet. Pick it on a trade and tick what the trade met; the dashboard compares them.</p>
      {creating && <PlaybookForm onDone={() => setCreating(false)} />}
      <QueryList query={playbooks} items={playbooks.data} empty={creating ? null : 'No playbooks yet: create your first one.'}>
        {(list) => (
          <>
            {list.map((p) => (
              <PlaybookCard key={`${p.id}-${p.updatedAt}`} playbook={p} />
            ))}
          </>
        )}
      </QueryList>
    </>
  );
}
