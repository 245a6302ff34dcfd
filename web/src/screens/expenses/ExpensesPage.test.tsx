import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import ExpensesPage from './ExpensesPage';
import { formatDay, formatMoney } from '../../format';
import { mockApi, renderScreen, route } from '../../test/render';

afterEach(() => vi.unstubAllGlobals());

const account = { id: 'a1', name: 'Swing', currency: 'EUR', balance: '1000', archived: false };
const builtIn = ['data', 'platform', 'education', 'hardware', 'subscriptions', 'other'].map((id) => ({ id, name: id, builtIn: true, createdAt: null, updatedAt: null }));
const coaching = { id: 'c1', name: 'Coaching', builtIn: false, createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' };
const expense = {
  id: 'e1',
  category: 'data',
  categoryName: 'data',
  accountId: null,
  amount: '10.0000',
  currency: 'USD',
  note: 'Level 2 data',
  startDate: '2025-01-31',
  recurrence: 'monthly',
  endDate: null,
  nextChargeOn: '2026-12-31',
  totalCharged: '220.0000',
  createdAt: '2026-11-01T00:00:00Z',
  updatedAt: '2026-11-01T00:00:00Z',
};
const summary = {
  from: null,
  to: null,
  displayCurrency: 'USD',
  rateDay: '2026-11-29',
  total: { amounts: [{ currency: 'GBP', amount: '7.0000' }, { currency: 'USD', amount: '220.0000' }], converted: null },
  byCategory: [{ category: 'data', name: 'data', amounts: [{ currency: 'USD', amount: '220.0000' }], converted: '220.0000' }],
  byMonth: [{ month: '2025-02', amounts: [{ currency: 'USD', amount: '10.0000' }], converted: '10.0000' }],
  missing: [{ pair: 'GBP/USD', day: '2026-11-29' }],
};

function api(extra: Parameters<typeof mockApi> = []) {
  return mockApi(
    ...extra,
    route('GET', '/api/accounts', () => ({ body: { items: [account], nextCursor: null } })),
    route('GET', '/api/expense-categories', () => ({ body: { items: [...builtIn, coaching] } })),
    route('GET', '/api/expenses', () => ({ body: { items: [expense], nextCursor: null } })),
    route('GET', '/api/expenses/summary', () => ({ body: summary })),
  );
}

describe('ExpensesPage', () => {
  it('lists the expenses in words and sums them, naming the missing rate with a link to add it', async () => {
    api();
    renderScreen(<ExpensesPage />, { path: '/expenses' });
    const list = await screen.findByRole('region', { name: 'Your expenses' });
    const row = await within(list).findByRole('row', { name: /Level 2 data/ });
    expect(row).toHaveTextContent('Market data');
    expect(row).toHaveTextContent('Monthly');
    expect(row).toHaveTextContent('All accounts');
    expect(row).toHaveTextContent(formatDay('2026-12-31'));
    expect(row).toHaveTextContent(formatMoney('220', 'USD'));
    const sum = screen.getByRole('region', { name: 'Summary' });
    expect(await within(sum).findByRole('link', { name: 'GBP/USD' })).toHaveAttribute('href', '/exchange-rates?base=GBP&quote=USD');
    expect(within(sum).getByTestId('expense-total')).toHaveTextContent(`${formatMoney('7', 'GBP')} + ${formatMoney('220', 'USD')}`);
    expect(within(sum).getByRole('rowheader', { name: /2025/ })).toBeInTheDocument();
  });

  it('filters by range, category and account through the request', async () => {
    const { calls } = api();
    renderScreen(<ExpensesPage />, { path: '/expenses', at: '/expenses?from=2025-02-01&category=c1&account=a1' });
    await screen.findByRole('row', { name: /Level 2 data/ });
    const list = calls.find((c) => c.path === '/api/expenses');
    expect(new URLSearchParams(list?.search)).toEqual(new URLSearchParams('from=2025-02-01&category=c1&accountId=a1&limit=50'));
    expect(calls.find((c) => c.path === '/api/expenses/summary')?.search).toBe('?from=2025-02-01');
  });

  it('shows the API’s refusal beside the field, in words', async () => {
    const { calls } = api([
      route('POST', '/api/expenses', () => ({
        status: 400,
        body: { error: { code: 'VALIDATION_ERROR', message: 'amount', details: [{ field: 'amount', message: 'must be greater than 0 and at most 99999999999999.9999' }] } },
      })),
    ]);
    renderScreen(<ExpensesPage />, { path: '/expenses' });
    const form = await screen.findByRole('form', { name: 'Add an expense' });
    await userEvent.type(within(form).getByLabelText('Amount'), '0');
    await userEvent.click(within(form).getByRole('button', { name: 'Add expense' }));
    const amount = within(form).getByLabelText('Amount');
    await waitFor(() => expect(amount).toHaveAccessibleDescription(/^The amount must be more than 0 and at most/));
    expect(calls.find((c) => c.method === 'POST')?.body).toMatchObject({ amount: '0', category: 'other', recurrence: 'monthly' });
    expect(calls.find((c) => c.method === 'POST')?.body).not.toHaveProperty('currency');
  });

  it('makes a new category on the way and records the expense in it', async () => {
    const { calls } = api([
      route('POST', '/api/expense-categories', () => ({ status: 201, body: { category: { ...coaching, id: 'c2', name: 'Books' } } })),
      route('POST', '/api/expenses', () => ({ status: 201, body: { expense: { ...expense, category: 'c2', categoryName: 'Books' } } })),
    ]);
    renderScreen(<ExpensesPage />, { path: '/expenses' });
    const form = await screen.findByRole('form', { name: 'Add an expense' });
    await userEvent.type(within(form).getByLabelText('Amount'), '12.5');
    await userEvent.selectOptions(within(form).getByLabelText('Category'), 'New category…');
    await userEvent.type(within(form).getByLabelText('New category’s name'), 'Books');
    await userEvent.selectOptions(within(form).getByLabelText('Account'), 'Swing');
    expect(within(form).getByLabelText('Currency')).toHaveAttribute('placeholder', 'EUR');
    await userEvent.click(within(form).getByRole('button', { name: 'Add expense' }));
    await screen.findByText(/Recorded the expense/);
    expect(calls.find((c) => c.method === 'POST' && c.path === '/api/expense-categories')?.body).toEqual({ name: 'Books' });
    expect(calls.find((c) => c.method === 'POST' && c.path === '/api/expenses')?.body).toMatchObject({ amount: '12.5', category: 'c2', accountId: 'a1' });
  });

  it('deletes a category of the user’s own after saying its expenses move to Other', async () => {
    const { calls } = api([route('DELETE', '/api/expense-categories/c1', () => ({ body: { movedToOther: 2 } }))]);
    renderScreen(<ExpensesPage />, { path: '/expenses' });
    const cats = await screen.findByRole('region', { name: 'Your categories' });
    await userEvent.click(within(cats).getByRole('button', { name: 'Delete category Coaching' }));
    const dialog = screen.getByRole('alertdialog');
    expect(dialog).toHaveTextContent('move to the category Other');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await within(cats).findByText('Deleted the category Coaching: 2 expenses moved to Other.');
    expect(calls.some((c) => c.method === 'DELETE')).toBe(true);
  });

  it('lists an import’s refused rows and fields in words', async () => {
    const { calls } = api([
      route('POST', '/api/expenses/import', () => ({
        status: 400,
        body: {
          error: {
            code: 'VALIDATION_ERROR',
            message: 'rows',
            details: [
              { field: 'rows[3].amount', message: 'must be greater than 0 and at most 99999999999999.9999' },
              { field: 'rows[4].category', message: 'is not a built-in category or one of yours: "food"' },
            ],
          },
        },
      })),
    ]);
    renderScreen(<ExpensesPage />, { path: '/expenses' });
    const csv = await screen.findByRole('region', { name: 'CSV' });
    expect(within(csv).getByRole('link', { name: 'Download expenses (CSV)' })).toHaveAttribute('href', '/api/expenses/export');
    const input = within(csv).getByLabelText<HTMLInputElement>('CSV file');
    await userEvent.upload(input, new File(['Date,Amount\n'], 'e.csv', { type: 'text/csv' }));
    await userEvent.click(within(csv).getByRole('button', { name: 'Import' }));
    await waitFor(() => expect(calls.map((c) => c.method + ' ' + c.path)).toContain('POST /api/expenses/import'));
    const problems = await within(csv).findByRole('list', { name: 'Problems in the file' });
    const items = within(problems).getAllByRole('listitem').map((li) => li.textContent);
    expect(items[0]).toMatch(/^Row 3: The amount must be more than 0 and at most/);
    expect(items[1]).toMatch(/^Row 4: There is no category “food”/);
  });
});
