// Saved views: the dashboard's filter under a name (GET/POST/PATCH/DELETE
// /api/users/me/saved-views), applied with one click on any device.
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { client, unwrap, type Schemas } from '../../api/client';
import { ConfirmButton, ErrorNote, Field } from '../../components/ui';
import { parseFilters, writeFilters, type Filters } from '../../filterState';

type View = Schemas['SavedView'];

const viewsKey = ['saved-views'] as const;

/** viewFilters is a view's filter as the filter bar holds it. */
export function viewFilters(view: Pick<View, 'query'>): Filters {
  return parseFilters(new URLSearchParams(view.query));
}

/** sameFilter reports whether two filters are one filter (whatever the order of their values' writing). */
export function sameFilter(a: Filters, b: Filters): boolean {
  return writeFilters(a).toString() === writeFilters(b).toString();
}

export function SavedViews({ filters, onApply }: { filters: Filters; onApply: (f: Filters) => void }) {
  const qc = useQueryClient();
  const views = useQuery({ queryKey: viewsKey, queryFn: async () => (await unwrap(client.GET('/api/users/me/saved-views'))).items });
  const refresh = () => qc.invalidateQueries({ queryKey: viewsKey });
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: () => unwrap(client.POST('/api/users/me/saved-views', { body: { name, query: writeFilters(filters).toString() } })),
    onSuccess: () => {
      setName('');
      void refresh();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  const list = views.data ?? [];
  return (
    <section className="card saved-views" aria-labelledby="saved-views-title">
      <h2 id="saved-views-title">Saved views</h2>
      {list.length === 0 ? (
        <p className="muted">No saved views yet: set the filters, name them below and save.</p>
      ) : (
        <div className="row" role="group" aria-label="Apply a saved view">
          {list.map((v) => (
            <button key={v.id} type="button" className="ghost" aria-pressed={sameFilter(viewFilters(v), filters)} onClick={() => onApply(viewFilters(v))}>
              {v.name}
            </button>
          ))}
        </div>
      )}
      <ErrorNote error={views.error} />
      <form className="row saved-view-form" onSubmit={submit}>
        <Field label="Name for these filters" value={name} onChange={(e) => setName(e.target.value)} maxLength={80} />
        <button type="submit" disabled={create.isPending}>
          Save view
        </button>
      </form>
      <ErrorNote error={create.error} />
      {list.length > 0 && (
        <details>
          <summary>Rename or delete saved views</summary>
          <ul className="plain-list">
            {list.map((v) => (
              <ViewRow key={v.id} view={v} onChanged={refresh} />
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}

function ViewRow({ view, onChanged }: { view: View; onChanged: () => void }) {
  const [name, setName] = useState(view.name);
  const rename = useMutation({
    mutationFn: () => unwrap(client.PATCH('/api/users/me/saved-views/{viewId}', { params: { path: { viewId: view.id } }, body: { name } })),
    onSuccess: onChanged,
  });
  const remove = useMutation({
    mutationFn: () => unwrap(client.DELETE('/api/users/me/saved-views/{viewId}', { params: { path: { viewId: view.id } } })),
    onSuccess: onChanged,
  });
  return (
    <li>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          rename.mutate();
        }}
      >
        <Field label={`New name for ${view.name}`} value={name} onChange={(e) => setName(e.target.value)} maxLength={80} />
        <button type="submit" className="ghost" disabled={rename.isPending || name === view.name}>
          Rename
        </button>
        <ConfirmButton question={`The saved view ${view.name} is deleted on every device; your journal is not touched.`} onConfirm={() => remove.mutate()} busy={remove.isPending} label={`Delete view ${view.name}`}>
          Delete
        </ConfirmButton>
      </form>
      <ErrorNote error={rename.error ?? remove.error} />
    </li>
  );
}
