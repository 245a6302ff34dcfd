// The Expenses page: what trading costs besides fees (data, platforms,
// education, hardware), one-off or recurring, with their charges, a summary
// in the display currency, the user's own categories and CSV in and out.
import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { client, sendForm, unwrap, type Schemas } from '../../api/client';
import { useAccounts } from '../../api/queries';
import { Datalists } from '../../components/Datalists';
import { DataTable, numeric, opt, optional, QueryList, QueryView } from '../../components/QueryView';
import { ConfirmButton, ErrorNote, Field, LoadMore, PageTitle, SelectField } from '../../components/ui';
import { counted, formatDay, formatMoney } from '../../format';
import { Categories } from './Categories';
import { ExpenseForm, invalidateExpenses } from './ExpenseForm';
import { ExpenseSummary } from './Summary';
import { categoryName, importProblems, recurrenceText, type Expense } from './expenses';

const pageSize = 50;

function ExpenseRows({ items, accountNames, onEdit }: { items: Expense[]; accountNames: Map<string, string>; onEdit: (e: Expense) => void }) {
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: (e: Expense) => unwrap(client.DELETE('/api/expenses/{expenseId}', { params: { path: { expenseId: e.id } } })),
    onSuccess: () => invalidateExpenses(queryClient),
  });
  return (
    <>
      <ErrorNote error={remove.error} />
      <DataTable
        caption="Expenses"
        columns={['Started', 'Category', numeric('Amount'), 'Repeats', optional('Account'), 'Next charge', numeric('Total charged'), optional('Note'), 'Actions']}
      >
        {items.map((e) => {
          const what = `${categoryName(e.category, e.categoryName)} of ${formatDay(e.startDate)}`;
          return (
            <tr key={e.id}>
              <th scope="row">{formatDay(e.startDate)}</th>
              <td>{categoryName(e.category, e.categoryName)}</td>
              <td className="num">{formatMoney(e.amount, e.currency)}</td>
              <td>{recurrenceText(e)}</td>
              <td className={opt}>{e.accountId ? (accountNames.get(e.accountId) ?? 'An account') : 'All accounts'}</td>
              <td>{e.nextChargeOn ? formatDay(e.nextChargeOn) : 'None left'}</td>
              <td className="num">{formatMoney(e.totalCharged, e.currency)}</td>
              <td className={opt}>{e.note}</td>
              <td>
                <div className="row nowrap">
                  <button type="button" className="ghost" aria-label={`Edit expense ${what}`} onClick={() => onEdit(e)}>
                    Edit
                  </button>
                  <ConfirmButton label={`Delete expense ${what}`} question="The expense and all its recorded charges are deleted, and every total loses them. This cannot be undone." busy={remove.isPending} onConfirm={() => remove.mutate(e)}>
                    Delete
                  </ConfirmButton>
                </div>
              </td>
            </tr>
          );
        })}
      </DataTable>
    </>
  );
}

function CsvCard() {
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [inputKey, setInputKey] = useState(0);
  const [missing, setMissing] = useState(false);
  const [done, setDone] = useState('');
  const upload = useMutation({
    mutationFn: (f: File) => {
      const form = new FormData();
      form.append('file', f);
      return sendForm<Schemas['ExpenseImported']>('/api/expenses/import', form);
    },
    onSuccess: (r) => {
      setDone(`Imported ${counted(r.imported, 'expense')}.`);
      setFile(null);
      setInputKey((k) => k + 1);
      invalidateExpenses(queryClient);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setDone('');
    setMissing(!file);
    if (file) upload.mutate(file);
  };
  const problems = importProblems(upload.error);
  return (
    <section className="card" aria-labelledby="expense-csv-title">
      <h2 id="expense-csv-title">CSV</h2>
      <p className="muted">
        Columns Date, Amount, Currency, Category, Account, Recurrence, End Date, Note (Date and Amount required). A file with any bad row is refused whole, and nothing is recorded.
      </p>
      <div className="row">
        <a className="button ghost" href="/api/expenses/export" download>
          Download expenses (CSV)
        </a>
      </div>
      <form className="row" onSubmit={submit} aria-label="Import expenses">
        <Field label="CSV file" type="file" accept=".csv,text/csv" key={inputKey} onChange={(e) => setFile(e.target.files?.[0] ?? null)} error={missing ? 'Choose a CSV file first.' : undefined} />
        <button type="submit" disabled={upload.isPending}>
          Import
        </button>
      </form>
      {problems.length > 0 ? (
        <div className="note note-error" role="alert">
          <p>The file was not imported; fix these rows and import it again:</p>
          <ul aria-label="Problems in the file">
            {problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        </div>
      ) : (
        <ErrorNote error={upload.error} />
      )}
      {done && (
        <p className="note" role="status">
          {done}
        </p>
      )}
    </section>
  );
}

export default function ExpensesPage() {
  const [params, setParams] = useSearchParams();
  const from = params.get('from') ?? '';
  const to = params.get('to') ?? '';
  const category = params.get('category') ?? '';
  const accountId = params.get('account') ?? '';
  const setParam = (name: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    setParams(next, { replace: true });
  };
  const accounts = useAccounts();
  const categories = useQuery({ queryKey: ['expense-categories'], queryFn: async () => (await unwrap(client.GET('/api/expense-categories'))).items });
  const query = { ...(from ? { from } : {}), ...(to ? { to } : {}), ...(category ? { category } : {}), ...(accountId ? { accountId } : {}) };
  const list = useInfiniteQuery({
    queryKey: ['expenses', 'list', query],
    queryFn: ({ pageParam }) => unwrap(client.GET('/api/expenses', { params: { query: { ...query, limit: pageSize, ...(pageParam ? { cursor: pageParam } : {}) } } })),
    initialPageParam: '',
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const [editing, setEditing] = useState<Expense | null>(null);
  const [formKey, setFormKey] = useState(0);
  const [done, setDone] = useState('');
  const accountNames = new Map((accounts.data ?? []).map((a) => [a.id, a.name]));
  const items = list.data?.pages.flatMap((p) => p.items) ?? [];
  const filtered = Object.keys(query).length > 0;
  const edit = (e: Expense) => {
    setDone('');
    setEditing(e);
    setFormKey((k) => k + 1);
    document.getElementById('expense-form-title')?.scrollIntoView({ block: 'start' });
  };
  return (
    <>
      <PageTitle>Expenses</PageTitle>
      <Datalists />
      <p className="muted">
        What trading costs besides fees: market data, platforms, education, hardware. A monthly expense is charged on its start day (the last day of a shorter month), a yearly one on its date; the dashboard can subtract them from
        your P&L.
      </p>
      <QueryView query={categories}>
        {(cats) => (
          <ExpenseForm
            key={formKey}
            editing={editing}
            categories={cats}
            accounts={accounts.data ?? []}
            onDone={(message) => {
              setDone(message);
              if (editing) {
                setEditing(null);
                setFormKey((k) => k + 1);
              }
            }}
          />
        )}
      </QueryView>
      {done && (
        <p className="note" role="status">
          {done}
        </p>
      )}
      <form className="card" role="search" aria-label="Filter expenses" onSubmit={(e) => e.preventDefault()}>
        <div className="grid">
          <Field label="Charged from" type="date" value={from} onChange={(e) => setParam('from', e.target.value)} />
          <Field label="Charged to" type="date" value={to} min={from || undefined} onChange={(e) => setParam('to', e.target.value)} />
          <SelectField label="Category filter" value={category} onChange={(e) => setParam('category', e.target.value)}>
            <option value="">Every category</option>
            {(categories.data ?? []).map((c) => (
              <option key={c.id} value={c.id}>
                {categoryName(c.id, c.name)}
              </option>
            ))}
          </SelectField>
          <SelectField label="Account filter" value={accountId} onChange={(e) => setParam('account', e.target.value)}>
            <option value="">Every account</option>
            {(accounts.data ?? []).map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </SelectField>
        </div>
        {filtered && (
          <button type="button" className="ghost" onClick={() => setParams({}, { replace: true })}>
            Clear filters
          </button>
        )}
      </form>
      <ExpenseSummary from={from} to={to} />
      <section className="card" aria-labelledby="expense-list-title">
        <h2 id="expense-list-title">Your expenses</h2>
        {(from || to) && <p className="muted">The expenses with a charge in the range; Total charged counts the charges in it.</p>}
        <QueryList query={list} items={items} empty={filtered ? 'No expenses match these filters.' : 'No expenses yet: add the first above.'}>
          {(rows) => <ExpenseRows items={rows} accountNames={accountNames} onEdit={edit} />}
        </QueryList>
        <LoadMore query={list} />
      </section>
      <QueryView query={categories}>{(cats) => <Categories categories={cats} />}</QueryView>
      <CsvCard />
    </>
  );
}
