import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { YourData, megabytes, restoreMessage } from './YourData';
import { ApiError } from '../api/client';
import { mockApi, renderScreen, route } from '../test/render';

afterEach(() => vi.unstubAllGlobals());

const email = 'me@example.com';

describe('YourData', () => {
  it('says what a refused restore means, in words', () => {
    expect(restoreMessage(new ApiError(409, { error: { code: 'JOURNAL_NOT_EMPTY', message: 'x' } }))).toMatch(/only into an empty journal/);
    expect(restoreMessage(new ApiError(400, { error: { code: 'BACKUP_TOO_NEW', message: 'x' } }))).toMatch(/newer version/);
    const tampered = 'This backup has been changed or damaged: positions.jsonl does not match its checksum.';
    expect(restoreMessage(new ApiError(400, { error: { code: 'INVALID_BACKUP', message: tampered } }))).toBe(tampered);
    expect(megabytes(2_500_000)).toBe('2.5 MB');
    expect(megabytes(1_200)).toBe('1 kB');
  });

  it('restores a chosen file and says what came back', async () => {
    const { calls } = mockApi(
      route('POST', '/api/backup/restore', () => ({
        status: 201,
        body: { restored: { accounts: 2, positions: 7, fills: 14, tags: 2, ledgerEntries: 3, images: 2, exchangeRates: 1 } },
      })),
    );
    renderScreen(<YourData email={email} />);
    const user = userEvent.setup();
    await user.upload(screen.getByLabelText('Backup file'), new File(['PK'], 'backup.zip', { type: 'application/zip' }));
    await user.click(screen.getByRole('button', { name: 'Restore' }));
    await screen.findByText(/Restored 2 accounts, 7 positions with 14 fills/);
    expect(calls.map((c) => c.method + ' ' + c.path)).toContain('POST /api/backup/restore');
  });

  it('shows a refused restore in words', async () => {
    mockApi(route('POST', '/api/backup/restore', () => ({ status: 409, body: { error: { code: 'JOURNAL_NOT_EMPTY', message: 'not empty' } } })));
    renderScreen(<YourData email={email} />);
    const user = userEvent.setup();
    await user.upload(screen.getByLabelText('Backup file'), new File(['PK'], 'backup.zip', { type: 'application/zip' }));
    await user.click(screen.getByRole('button', { name: 'Restore' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(/only into an empty journal/);
  });

  it('deletes the account only with the password and the email typed again', async () => {
    const { calls } = mockApi(route('DELETE', '/api/users/me', () => ({ status: 204 })));
    renderScreen(<YourData email={email} />);
    const user = userEvent.setup();
    const button = screen.getByRole('button', { name: 'Delete my account' });
    await user.type(screen.getByLabelText('Password'), 'secret pass');
    await user.type(screen.getByLabelText(/Type your email/), 'me@example.co');
    expect(button).toBeDisabled();
    await user.type(screen.getByLabelText(/Type your email/), 'm');
    expect(button).toBeEnabled();
    await user.click(button);
    let ask = screen.getByRole('alertdialog', { name: 'Delete your account?' });
    expect(ask).toHaveAccessibleDescription('Delete your account and everything in it for good? This cannot be undone.');
    await user.click(within(ask).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(button).toHaveFocus();
    await user.click(button);
    ask = screen.getByRole('alertdialog', { name: 'Delete your account?' });
    await user.click(within(ask).getByRole('button', { name: 'Delete my account' }));
    await screen.findByText('sign-in screen');
    await waitFor(() => expect(calls.find((c) => c.method === 'DELETE')?.body).toEqual({ password: 'secret pass', confirmEmail: email }));
  });

  it('names the wrong password', async () => {
    mockApi(
      route('DELETE', '/api/users/me', () => ({
        status: 400,
        body: { error: { code: 'VALIDATION_ERROR', message: 'x', details: [{ field: 'password', message: 'is not your current password' }] } },
      })),
    );
    renderScreen(<YourData email={email} />);
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Password'), 'wrong');
    await user.type(screen.getByLabelText(/Type your email/), email);
    await user.click(screen.getByRole('button', { name: 'Delete my account' }));
    await user.click(within(screen.getByRole('alertdialog', { name: 'Delete your account?' })).getByRole('button', { name: 'Delete my account' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(/password/i);
  });
});
