// The Expenses page's words and requests: categories and recurrences as a
// person reads them, the form's request, and the import's refusal row by row.
import { ApiError, type Schemas } from '../../api/client';
import { detailSentence, readable } from '../../api/messages';
import { formatDay, formatMoney } from '../../format';

export type Expense = Schemas['Expense'];
export type ExpenseCategory = Schemas['ExpenseCategory'];
export type ExpenseRequest = Schemas['ExpenseRequest'];
export type Recurrence = Schemas['ExpenseRecurrence'];

/** The built-in categories' names (the API names each by its key). */
const builtInNames: Record<string, string> = {
  data: 'Market data',
  platform: 'Platform',
  education: 'Education',
  hardware: 'Hardware',
  subscriptions: 'Subscriptions',
  other: 'Other',
};

/** categoryName is a category as the page shows it: "Market data" for the key data, a user's own by its name. */
export function categoryName(id: string, name: string): string {
  return builtInNames[id] ?? name;
}

export const recurrenceNames: Record<Recurrence, string> = { none: 'Once', monthly: 'Monthly', yearly: 'Yearly' };

/** recurrenceText is an expense's recurrence in words: "Once", "Monthly", "Yearly until Dec 31, 2025". */
export function recurrenceText(e: Pick<Expense, 'recurrence' | 'endDate'>): string {
  const name = recurrenceNames[e.recurrence] ?? e.recurrence;
  return e.recurrence !== 'none' && e.endDate ? `${name} until ${formatDay(e.endDate)}` : name;
}

/** amountsText writes sums in several currencies: "€100.00 + $60.00"; "—" for none. */
export function amountsText(amounts: Array<{ currency: string; amount: string }>): string {
  return amounts.length === 0 ? '—' : amounts.map((a) => formatMoney(a.amount, a.currency)).join(' + ');
}

/** The form as typed: strings, '' for none. */
export interface ExpenseDraft {
  amount: string;
  currency: string;
  startDate: string;
  category: string;
  accountId: string;
  recurrence: Recurrence;
  endDate: string;
  note: string;
}

export function emptyDraft(today: string): ExpenseDraft {
  return { amount: '', currency: '', startDate: today, category: 'other', accountId: '', recurrence: 'monthly', endDate: '', note: '' };
}

export function draftOf(e: Expense): ExpenseDraft {
  return {
    amount: e.amount.replace(/(\.\d*?[1-9])0+$|\.0+$/, '$1'),
    currency: e.currency,
    startDate: e.startDate,
    category: e.category,
    accountId: e.accountId ?? '',
    recurrence: e.recurrence,
    endDate: e.endDate ?? '',
    note: e.note,
  };
}

/**
 * expenseRequest is the draft as the API takes it: an empty currency is
 * left out (the API takes the account's, else the display currency); an
 * edit says "no account" and "no end" as null. An end date goes with a
 * recurring expense only.
 */
export function expenseRequest(d: ExpenseDraft, amount: string, editing: boolean): ExpenseRequest {
  const body: ExpenseRequest = {
    amount,
    startDate: d.startDate,
    category: d.category,
    recurrence: d.recurrence,
    note: d.note.trim(),
  };
  const currency = d.currency.trim().toUpperCase();
  if (currency) body.currency = currency;
  if (d.accountId) body.accountId = d.accountId;
  else if (editing) body.accountId = null;
  const end = d.recurrence === 'none' ? '' : d.endDate;
  if (end) body.endDate = end;
  else if (editing) body.endDate = null;
  return body;
}

/** defaultCurrency is the currency the API records when the form leaves it empty. */
export function defaultCurrency(accountCurrency: string | undefined, displayCurrency: string | null | undefined): string | undefined {
  return accountCurrency ?? displayCurrency ?? undefined;
}

/** How the import's columns read inside a sentence. */
const csvLabels: Record<string, string> = {
  date: 'date',
  startDate: 'date',
  amount: 'amount',
  currency: 'currency',
  category: 'category',
  account: 'account',
  accountId: 'account',
  recurrence: 'recurrence',
  endDate: 'end date',
  note: 'note',
};

/**
 * importProblems are the sentences of an import's refusal, one a problem:
 * "Row 3: The amount must be more than 0 …" (the row is the line of the
 * file, the header being line 1, as a spreadsheet numbers it).
 */
export function importProblems(err: unknown): string[] {
  if (!(err instanceof ApiError) || err.details.length === 0) return [];
  return err.details.map((d) => {
    const m = /^rows\[(\d+)\](?:\.(\w+))?$/.exec(d.field);
    if (!m) return d.field === 'file' ? readable(`The file ${d.message}`) : detailSentence(d, { labels: csvLabels });
    if (!m[2]) return readable(`Row ${m[1]} ${d.message}`);
    return `Row ${m[1]}: ${detailSentence({ field: m[2], message: d.message }, { labels: csvLabels })}`;
  });
}

export function today(): string {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}
