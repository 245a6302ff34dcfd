// The form that records or changes an expense, with a new category made on
// the way ("New category…"), and every API complaint beside its field.
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, unwrap, type Schemas } from '../../api/client';
import { useMe } from '../../api/queries';
import { normalizeDecimal } from '../../numbers';
import { formatDay } from '../../format';
import { ErrorNote, Field, FormActions, SelectField, TextAreaField } from '../../components/ui';
import { categoryName, defaultCurrency, draftOf, emptyDraft, expenseRequest, recurrenceNames, today, type Expense, type ExpenseCategory, type ExpenseDraft, type Recurrence } from './expenses';

/** The category choice that opens the new category's name field. */
export const newCategory = '__new__';

/** invalidateExpenses refreshes everything expenses feed: the lists, the summary, the statistics net of them. */
export function invalidateExpenses(queryClient: ReturnType<typeof useQueryClient>) {
  for (const key of ['expenses', 'expense-categories', 'performance']) void queryClient.invalidateQueries({ queryKey: [key] });
}

export function ExpenseForm({
  editing,
  categories,
  accounts,
  onDone,
}: {
  editing: Expense | null;
  categories: ExpenseCategory[];
  accounts: Array<Pick<Schemas['Account'], 'id' | 'name' | 'currency'>>;
  onDone: (message: string) => void;
}) {
  const queryClient = useQueryClient();
  const me = useMe();
  const [draft, setDraft] = useState<ExpenseDraft>(() => (editing ? draftOf(editing) : emptyDraft(today())));
  const [newName, setNewName] = useState('');
  const set = <K extends keyof ExpenseDraft>(k: K, v: ExpenseDraft[K]) => setDraft((d) => ({ ...d, [k]: v }));
  const account = accounts.find((a) => a.id === draft.accountId);
  const fallback = defaultCurrency(account?.currency, me.data?.displayCurrency);

  const addCategory = useMutation({
    mutationFn: (name: string) => unwrap(client.POST('/api/expense-categories', { body: { name } })),
  });
  const save = useMutation({
    mutationFn: async (d: ExpenseDraft) => {
      let category = d.category;
      if (category === newCategory) {
        category = (await addCategory.mutateAsync(newName.trim())).category.id;
        setDraft((x) => ({ ...x, category }));
        void queryClient.invalidateQueries({ queryKey: ['expense-categories'] });
      }
      const body = expenseRequest({ ...d, category }, normalizeDecimal(d.amount), editing !== null);
      return editing
        ? unwrap(client.PATCH('/api/expenses/{expenseId}', { params: { path: { expenseId: editing.id } }, body }))
        : unwrap(client.POST('/api/expenses', { body }));
    },
    onSuccess: ({ expense }) => {
      invalidateExpenses(queryClient);
      onDone(`${editing ? 'Saved' : 'Recorded'} the expense of ${formatDay(expense.startDate)}.`);
      if (!editing) setDraft(emptyDraft(today()));
      setNewName('');
    },
  });
  const err = save.error instanceof ApiError ? save.error : undefined;
  const fe = (f: string) => err?.fieldError(f);
  const nameError = addCategory.error ? errorSentence(addCategory.error) : undefined;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    addCategory.reset();
    save.mutate(draft);
  };
  const shownFields = ['amount', 'currency', 'startDate', 'category', 'accountId', 'recurrence', 'endDate', 'note'];
  // An error no field shows (a conflict, the server away) shows under the form; the new category's own beside its name.
  const onField = err !== undefined && err.details.some((d) => shownFields.includes(d.field));
  const other = save.error && !onField && !addCategory.error ? save.error : null;
  return (
    <form className="card" onSubmit={submit} aria-labelledby="expense-form-title">
      <h2 id="expense-form-title">{editing ? 'Edit expense' : 'Add an expense'}</h2>
      <div className="grid">
        <Field label="Amount" inputMode="decimal" required value={draft.amount} onChange={(e) => set('amount', e.target.value)} error={fe('amount')} />
        <Field
          label="Currency"
          list="currencies"
          maxLength={3}
          value={draft.currency}
          placeholder={fallback}
          onChange={(e) => set('currency', e.target.value)}
          error={fe('currency')}
          hint={fallback ? `Empty: ${fallback}, ${account ? 'the account’s currency' : 'your display currency'}.` : undefined}
        />
        <Field label="Start date" type="date" required value={draft.startDate} onChange={(e) => set('startDate', e.target.value)} error={fe('startDate')} hint="The first charge." />
        <SelectField label="Category" value={draft.category} onChange={(e) => set('category', e.target.value)} error={fe('category')}>
          {categories.map((c) => (
            <option key={c.id} value={c.id}>
              {categoryName(c.id, c.name)}
            </option>
          ))}
          <option value={newCategory}>New category…</option>
        </SelectField>
        {draft.category === newCategory && <Field label="New category’s name" required maxLength={50} value={newName} onChange={(e) => setNewName(e.target.value)} error={nameError} />}
        <SelectField label="Account" value={draft.accountId} onChange={(e) => set('accountId', e.target.value)} error={fe('accountId')}>
          <option value="">All accounts</option>
          {accounts.map((a) => (
            <option key={a.id} value={a.id}>
              {a.name}
            </option>
          ))}
        </SelectField>
        <SelectField label="Repeat" value={draft.recurrence} onChange={(e) => set('recurrence', e.target.value as Recurrence)} error={fe('recurrence')}>
          {Object.entries(recurrenceNames).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </SelectField>
        {draft.recurrence !== 'none' && (
          <Field label="End date (optional)" type="date" value={draft.endDate} min={draft.startDate} onChange={(e) => set('endDate', e.target.value)} error={fe('endDate')} hint="The last day a charge may fall on." />
        )}
      </div>
      <TextAreaField label="Note" maxLength={500} rows={2} value={draft.note} onChange={(e) => set('note', e.target.value)} error={fe('note')} />
      <ErrorNote error={other} />
      <FormActions submit={editing ? 'Save expense' : 'Add expense'} busy={save.isPending} onCancel={editing ? () => onDone('') : undefined} />
    </form>
  );
}

function errorSentence(err: unknown): string {
  return err instanceof ApiError ? err.sentences({ labels: { name: 'new category’s name' } }).join(' ') : 'The category could not be saved. Try again.';
}
