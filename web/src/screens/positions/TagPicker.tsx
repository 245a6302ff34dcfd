import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, unwrap, type Schemas } from '../../api/client';
import { keys, useTags } from '../../api/queries';
import { ErrorNote } from '../../components/ui';

type Category = Schemas['Tag']['category'];
const categories: Category[] = ['setup', 'mistake', 'emotion', 'general'];

/** TagPicker chooses tags by checkbox, grouped by category, and creates new ones. */
export function TagPicker({ selected, onChange }: { selected: string[]; onChange: (ids: string[]) => void }) {
  const tags = useTags();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [category, setCategory] = useState<Category>('setup');
  const create = useMutation({
    mutationFn: () => unwrap(client.POST('/api/tags', { body: { name: name.trim(), category } })),
    onSuccess: (data) => {
      void queryClient.invalidateQueries({ queryKey: keys.tags });
      onChange([...selected, data.tag.id]);
      setName('');
    },
  });
  const toggle = (id: string) => onChange(selected.includes(id) ? selected.filter((s) => s !== id) : [...selected, id]);
  const err = create.error instanceof ApiError ? create.error : undefined;
  return (
    <fieldset>
      <legend>Tags</legend>
      {categories.map((c) => {
        const inCat = tags.data?.filter((t) => t.category === c) ?? [];
        if (inCat.length === 0) return null;
        return (
          <div key={c} className="row" role="group" aria-label={`${c} tags`}>
            <span className="muted">{c}:</span>
            {inCat.map((t) => (
              <label key={t.id} className="check">
                <input type="checkbox" checked={selected.includes(t.id)} onChange={() => toggle(t.id)} />
                {t.name}
              </label>
            ))}
          </div>
        );
      })}
      <div className="row">
        <div className="field">
          <label htmlFor="new-tag-name">New tag</label>
          <input id="new-tag-name" value={name} maxLength={50} onChange={(e) => setName(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="new-tag-category">Tag category</label>
          <select id="new-tag-category" value={category} onChange={(e) => setCategory(e.target.value as Category)}>
            {categories.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </div>
        <button type="button" className="ghost" disabled={!name.trim() || create.isPending} onClick={() => create.mutate()}>
          Add tag
        </button>
      </div>
      {err && <ErrorNote error={err.fieldError('name') ? new Error(err.fieldError('name')) : err} />}
    </fieldset>
  );
}
