import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Assignment, assignmentText } from './Assignment';
import { mockApi, renderScreen, route } from '../../test/render';
import type { Schemas } from '../../api/client';

type Position = Schemas['Position'];

const call = {
  id: 'o1',
  accountId: 'a1',
  symbol: 'AAPL  250321C00190000',
  assetType: 'option',
  underlying: 'AAPL',
  optionExpiry: '2025-03-21',
  optionRight: 'C',
  optionStrike: '190',
  multiplier: 100,
  side: 'short',
  status: 'open',
  openQuantity: '1',
  exitQuantity: '0',
  fills: [],
} as unknown as Position;

describe('Assignment', () => {
  it('says what happens to the shares for each right and side', () => {
    expect(assignmentText(call)).toBe('Assigned: you deliver 100 shares of AAPL a contract at 190.');
    expect(assignmentText({ ...call, side: 'long' })).toBe('Exercised: you take 100 shares of AAPL a contract at 190.');
    expect(assignmentText({ ...call, optionRight: 'P' })).toBe('Assigned: you take 100 shares of AAPL a contract at 190.');
    expect(assignmentText({ ...call, optionRight: 'P', side: 'long' })).toBe('Exercised: you deliver 100 shares of AAPL a contract at 190.');
  });

  it('records the assignment and links the shares, or says why not in words', async () => {
    let refuse = true;
    const { calls } = mockApi(
      route('POST', '/api/positions/o1/assignment', () =>
        refuse
          ? { status: 400, body: { error: { code: 'VALIDATION_ERROR', message: 'quantity: must be at most the 1 contracts open', details: [{ field: 'quantity', message: 'must be at most the 1 contracts open' }] } } }
          : { body: { position: { ...call, status: 'closed' }, underlying: { ...call, id: 's1', symbol: 'AAPL', assetType: 'stock' } } },
      ),
    );
    let done: Position | undefined;
    renderScreen(<Assignment p={call} onDone={(p) => (done = p)} />);
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Record the assignment' }));
    await user.type(screen.getByLabelText('Contracts'), '2');
    await user.click(screen.getByRole('button', { name: 'Record the assignment' }));
    expect(await screen.findByText(/must be at most the 1 contracts open/)).toBeInTheDocument();
    refuse = false;
    await user.clear(screen.getByLabelText('Contracts'));
    await user.click(screen.getByRole('button', { name: 'Record the assignment' }));
    expect(await screen.findByRole('link', { name: 'AAPL position' })).toHaveAttribute('href', '/positions/s1');
    expect(done?.status).toBe('closed');
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.body)).toEqual([{ quantity: '2' }, {}]);
  });
});
