import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { WhatsNew } from './WhatsNew';
import { mockApi, renderScreen, route } from '../test/render';

afterEach(() => vi.unstubAllGlobals());

const entries = [
  { version: '0.5.0', date: '2026-11-29', changes: ['Filter by result.'] },
  { version: '0.4.0', date: '2026-11-20', changes: ['Tax.', 'Expenses.'] },
];

describe('WhatsNew', () => {
  it('marks unread versions, lists every change when opened, and clears the marker on the server', async () => {
    const { calls } = mockApi(
      route('GET', '/api/changelog', () => ({ body: { entries, unread: 2 } })),
      route('POST', '/api/changelog/read', () => ({ body: { entries, unread: 0 } })),
    );
    renderScreen(<WhatsNew />);
    const button = await screen.findByRole('button', { name: "What's new, 2 versions unread" });
    await userEvent.click(button);
    const panel = screen.getByRole('dialog', { name: "What's new" });
    expect(panel).toHaveTextContent('Version 0.5.0');
    expect(panel).toHaveTextContent('Expenses.');
    await waitFor(() => expect(screen.queryByTestId('whats-new-unread')).toBeNull());
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.path)).toEqual(['/api/changelog/read']);
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('asks nothing of the server when everything was read', async () => {
    const { calls } = mockApi(route('GET', '/api/changelog', () => ({ body: { entries, unread: 0 } })));
    renderScreen(<WhatsNew />);
    await userEvent.click(await screen.findByRole('button', { name: "What's new" }));
    expect(await screen.findByRole('dialog')).toHaveTextContent('Version 0.4.0');
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
  });
});
