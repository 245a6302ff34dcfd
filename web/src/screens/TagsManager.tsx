import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, errorText, unwrap, type Schemas } from '../api/client';
import { keys, useTags } from '../api/queries';
import { DataTable, QueryList } from '../components/QueryView';
import { ConfirmButton, ErrorNote } from '../components/ui';

type Tag = Schemas['Tag'];
const categories: Array<Tag['category']> = ['setup', 'mistake', 'emotion', 'general'];

function TagRow({ tag }: { tag: Tag }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(tag.name);
  const [category, setCategory] = useState(tag.category);
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: keys.tags });
    void queryClient.invalidateQueries({ queryKey: ['positions'] });
    void queryClient.invalidateQueries({ queryKey: ['performance'] });
  };
  const save = useMutation({
    mutationFn: () => unwrap(client.PATCH('/api/tags/{tagId}', { params: { path: { tagId: tag.id } }, body: { name: name.trim(), category } })),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: () => unwrap(client.DELETE('/api/tags/{tagId}', { params: { path: { tagId: tag.id } } })),
    onSuccess: refresh,
  });
  const err = save.error instanceof ApiError ? save.error : undefined;
  const changed = name.trim() !== tag.name || category !== tag.category;
  return (
    <tr>
      <td>
        <input aria-label={`Name of tag ${tag.name}`} value={name} maxLength={50} onChange={(e) => setName(e.target.value)} aria-invalid={err?.fieldError('name') ? true : undefined} />
        {err && <small className="field-error">{err.fieldError('name', { labels: { name: 'tag name' } }) ?? errorText(err)}</small>}
      </td>
      <td>
        <select aria-label={`Category of tag ${tag.name}`} value={category} onChange={(e) => setCategory(e.target.value as Tag['category'])}>
          {categories.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </td>
      <td>
        <div className="row">
          <button type="button" className="ghost" disabled={!changed || save.isPending} onClick={() => save.mutate()} aria-label={`Save tag ${tag.name}`}>
            Save
          </button>
          <ConfirmButton label={`Delete tag ${tag.name}`} question={`Delete the tag ${tag.name}? Positions keep everything else.`} busy={remove.isPending} onConfirm={() => remove.mutate()}>
            Delete
          </ConfirmButton>
        </div>
        <ErrorNote error={remove.error} />
      </td>
    </tr>
  );
}

/** TagsManager renames, recategorises and deletes tags (new ones are made where positions are tagged). */
export function TagsManager() {
  const tags = useTags();
  return (
    <section className="card" aria-labelledby="tags-title">
      <h2 id="tags-title">Tags</h2>
      <QueryList query={tags} items={tags.data} empty="No tags yet: add them on a position.">
        {(tagList) => (
          <DataTable columns={['Name', 'Category', 'Actions']}>
            {tagList.map((t) => (
              <TagRow key={`${t.id}-${t.name}-${t.category}`} tag={t} />
            ))}
          </DataTable>
        )}
      </QueryList>
    </section>
  );
}
