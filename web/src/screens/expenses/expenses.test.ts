import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api/client';
import { detailSentence } from '../../api/messages';
import { formatDay } from '../../format';
import { categoryName, draftOf, emptyDraft, expenseRequest, importProblems, recurrenceText, type Expense } from './expenses';
import { rangeText } from './Summary';

const expense: Expense = {
  id: 'e1',
  category: 'data',
  categoryName: 'data',
  accountId: null,
  amount: '49.5000',
  currency: 'USD',
  note: 'Level 2',
  startDate: '2026-01-31',
  recurrence: 'monthly',
  endDate: null,
  nextChargeOn: '2026-12-31',
  totalCharged: '544.5000',
  createdAt: '2026-11-01T00:00:00Z',
  updatedAt: '2026-11-01T00:00:00Z',
};

describe('expenses in words', () => {
  it('names built-in categories in words and a user’s own by its name', () => {
    expect(categoryName('data', 'data')).toBe('Market data');
    expect(categoryName('other', 'other')).toBe('Other');
    expect(categoryName('7a0c2f7e-61a4-4f3b-8f5e-2b1f3c9d4e10', 'Coaching')).toBe('Coaching');
  });

  it('says the recurrence in words, with its end', () => {
    expect(recurrenceText({ recurrence: 'none', endDate: null })).toBe('Once');
    expect(recurrenceText({ recurrence: 'monthly', endDate: null })).toBe('Monthly');
    expect(recurrenceText({ recurrence: 'yearly', endDate: '2027-12-31' })).toBe(`Yearly until ${formatDay('2027-12-31')}`);
  });

  it('names the summary’s range', () => {
    expect(rangeText(null, null)).toBe('all time');
    expect(rangeText('2026-01-01', null)).toBe(`from ${formatDay('2026-01-01')} on`);
  });
});

describe('expenseRequest', () => {
  it('leaves an empty currency and account out of a new expense, for the API’s defaults', () => {
    const d = { ...emptyDraft('2026-11-29'), amount: '10' };
    expect(expenseRequest(d, '10', false)).toEqual({ amount: '10', startDate: '2026-11-29', category: 'other', recurrence: 'monthly', note: '' });
  });

  it('clears the account and the end on an edit, and drops an end from a one-off expense', () => {
    const d = { ...draftOf({ ...expense, endDate: '2026-12-31' }), recurrence: 'none' as const };
    const body = expenseRequest(d, '49.5', true);
    expect(body.accountId).toBeNull();
    expect(body.endDate).toBeNull();
    expect(body.currency).toBe('USD');
  });

  it('edits the amount as typed, without the API’s trailing zeros', () => {
    expect(draftOf(expense).amount).toBe('49.5');
    expect(draftOf({ ...expense, amount: '100.0000' }).amount).toBe('100');
  });
});

describe('importProblems', () => {
  it('names each refused row by its line and its field in words', () => {
    const err = new ApiError(400, {
      error: {
        code: 'VALIDATION_ERROR',
        message: 'x',
        details: [
          { field: 'rows[3].amount', message: 'must be greater than 0 and at most 99999999999999.9999, with at most 4 decimal places' },
          { field: 'rows[4].category', message: 'is not a built-in category or one of yours: "food"' },
          { field: 'rows[5].startDate', message: 'must be a date YYYY-MM-DD from 1900-01-01 to 2199-12-31' },
          { field: 'rows[6]', message: 'has more values than the header has columns' },
        ],
      },
    });
    const lines = importProblems(err);
    expect(lines[0]).toMatch(/^Row 3: The amount must be more than 0 and at most .+, with at most 4 digits after the decimal point\.$/);
    expect(lines[1]).toMatch(/^Row 4: There is no category “food”/);
    expect(lines[2]).toBe('Row 5: Enter the date as a date from 1900 to 2199, written like 2024-01-31.');
    expect(lines[3]).toBe('Row 6 has more values than the header has columns.');
    expect(lines.join(' ')).not.toMatch(/rows\[|startDate/);
  });

  it('is empty for an error without details', () => {
    expect(importProblems(new ApiError(409, { error: { code: 'CONFLICT', message: 'too many' } }))).toEqual([]);
  });
});

describe('expense messages', () => {
  it('says an end before the start in words', () => {
    expect(detailSentence({ field: 'endDate', message: 'must not be before startDate' })).toBe('The end date cannot be before the start date.');
  });
});
