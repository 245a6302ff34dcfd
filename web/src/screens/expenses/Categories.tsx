// The user's own expense categories: add, rename, delete (its expenses move to Other).
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { client, errorText, unwrap } from '../../api/client';
import { ConfirmButton, Field } from '../../components/ui';
import { invalidateExpenses } from './ExpenseForm';
import { counted } from '../../format';
import type { ExpenseCategory } from './expenses';

const labels = { labels: { name: 'category’s name' } };

function Row({ category, onDone }: { category: ExpenseCategory; onDone: (m: string) => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState<string | null>(null);
  const rename = useMutation({
    mutationFn: (n: string) => unwrap(client.PATCH('/api/expense-categories/{categoryId}', { params: { path: { categoryId: category.id } }, body: { name: n } })),
    onSuccess: ({ category: c }) => {
      setName(null);
      invalidateExpenses(queryClient);
      onDone(`Renamed the category to ${c.name}.`);
    },
  });
  const remove = useMutation({
    mutationFn: () => unwrap(client.DELETE('/api/expense-categories/{categoryId}', { params: { path: { categoryId: category.id } } })),
    onSuccess: (r) => {
      invalidateExpenses(queryClient);
      onDone(`Deleted the category ${category.name}${r.movedToOther ? `: ${counted(r.movedToOther, 'expense')} moved to Other` : ''}.`);
    },
  });
  if (name !== null) {
    const submit = (e: FormEvent) => {
      e.preventDefault();
      rename.mutate(name.trim());
    };
    return (
      <li>
        <form className="row" onSubmit={submit} aria-label={`Rename ${category.name}`}>
          <Field label={`New name for ${category.name}`} required maxLength={50} value={name} onChange={(e) => setName(e.target.value)} error={rename.error ? errorText(rename.error, labels) : undefined} />
          <button type="submit" disabled={rename.isPending}>
            Save name
          </button>
          <button type="button" className="ghost" onClick={() => setName(null)}>
            Cancel
          </button>
        </form>
      </li>
    );
  }
  return (
    <li className="row">
      <span>{category.name}</span>
      <button type="button" className="ghost" onClick={() => setName(category.name)} aria-label={`Rename ${category.name}`}>
        Rename
      </button>
      <ConfirmButton label={`Delete category ${category.name}`} question={`Its expenses are kept and move to the category Other, with their charges and totals unchanged.`} busy={remove.isPending} onConfirm={() => remove.mutate()}>
        Delete
      </ConfirmButton>
      {remove.error ? <span className="field-error">{errorText(remove.error)}</span> : null}
    </li>
  );
}

/** Categories manages the user's own categories beside the built-in ones. */
export function Categories({ categories }: { categories: ExpenseCategory[] }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [done, setDone] = useState('');
  const own = categories.filter((c) => !c.builtIn);
  const add = useMutation({
    mutationFn: (n: string) => unwrap(client.POST('/api/expense-categories', { body: { name: n } })),
    onSuccess: ({ category }) => {
      setName('');
      invalidateExpenses(queryClient);
      setDone(`Added the category ${category.name}.`);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setDone('');
    add.mutate(name.trim());
  };
  return (
    <section className="card" aria-labelledby="expense-categories-title">
      <h2 id="expense-categories-title">Your categories</h2>
      <p className="muted">Besides the built-in ones (Market data, Platform, Education, Hardware, Subscriptions, Other). Deleting one of yours keeps its expenses: they move to Other.</p>
      {own.length === 0 ? (
        <p className="muted">None of your own yet.</p>
      ) : (
        <ul className="plain-list" aria-label="Your categories">
          {own.map((c) => (
            <Row key={c.id} category={c} onDone={setDone} />
          ))}
        </ul>
      )}
      <form className="row" onSubmit={submit} aria-label="Add a category">
        <Field label="Category name" required maxLength={50} value={name} onChange={(e) => setName(e.target.value)} error={add.error ? errorText(add.error, labels) : undefined} />
        <button type="submit" disabled={add.isPending}>
          Add category
        </button>
      </form>
      {done && (
        <p className="note" role="status">
          {done}
        </p>
      )}
    </section>
  );
}
