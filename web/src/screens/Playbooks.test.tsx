import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import Playbooks from './Playbooks';
import { mockApi, renderScreen, route } from '../test/render';

afterEach(() => vi.unstubAllGlobals());

const book = {
  id: 'b1',
  name: 'Breakout',
  description: 'range, then volume',
  archived: false,
  criteria: [
    { id: 'c1', text: 'Range' },
    { id: 'c2', text: 'Volume' },
  ],
  createdAt: '2024-05-01T00:00:00Z',
  updatedAt: '2024-05-01T00:00:00Z',
};

describe('Playbooks', () => {
  it('creates a playbook with its checklist in order', async () => {
    const { calls } = mockApi(
      route('GET', '/api/playbooks', () => ({ body: { items: [] } })),
      route('POST', '/api/playbooks', () => ({ status: 201, body: { playbook: book } })),
    );
    renderScreen(<Playbooks />);
    expect(await screen.findByText('No playbooks yet: create your first one.')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'New playbook' }));
    const form = screen.getByRole('form', { name: 'New playbook' });
    await userEvent.type(within(form).getByLabelText('Playbook name'), 'Breakout');
    await userEvent.click(within(form).getByRole('button', { name: 'Add criterion' }));
    await userEvent.type(within(form).getByLabelText('Criterion 1'), 'Volume');
    await userEvent.click(within(form).getByRole('button', { name: 'Add criterion' }));
    await userEvent.type(within(form).getByLabelText('Criterion 2'), 'Range');
    await userEvent.click(within(form).getByRole('button', { name: 'Move criterion 2 up' }));
    await userEvent.click(within(form).getByRole('button', { name: 'Create playbook' }));
    const post = calls.find((c) => c.method === 'POST');
    expect(post?.body).toEqual({ name: 'Breakout', description: '', archived: false, criteria: [{ text: 'Range' }, { text: 'Volume' }] });
  });

  it('names the criterion the API refused, and confirms a removal that drops ticks', async () => {
    const { calls } = mockApi(
      route('GET', '/api/playbooks', () => ({ body: { items: [book] } })),
      route('PATCH', '/api/playbooks/b1', () => ({
        status: 400,
        body: { error: { code: 'VALIDATION_ERROR', message: 'invalid', details: [{ field: 'criteria[0].text', message: 'must be at most 200 characters' }] } },
      })),
    );
    renderScreen(<Playbooks />);
    await userEvent.click(await screen.findByRole('button', { name: 'Edit playbook Breakout' }));
    const form = screen.getByRole('form', { name: 'Edit Breakout' });
    await userEvent.click(within(form).getByRole('button', { name: 'Remove criterion 2' }));
    const save = within(form).getByRole('button', { name: 'Save playbook' });
    await userEvent.click(save);
    let ask = screen.getByRole('alertdialog', { name: 'Remove a criterion?' });
    expect(ask).toHaveAccessibleDescription('Remove a criterion from the checklist? Trades that met it lose that tick.');
    // Keep editing: nothing is sent, and the form is as it was.
    await userEvent.click(within(ask).getByRole('button', { name: 'Keep editing' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(save).toHaveFocus();
    expect(calls.some((c) => c.method === 'PATCH')).toBe(false);
    await userEvent.click(save);
    ask = screen.getByRole('alertdialog', { name: 'Remove a criterion?' });
    await userEvent.click(within(ask).getByRole('button', { name: 'Remove and save' }));
    expect(calls.find((c) => c.method === 'PATCH')?.body).toMatchObject({ criteria: [{ id: 'c1', text: 'Range' }] });
    expect(await within(form).findByText('The criterion 1 is too long: shorten it to 200 characters or fewer.')).toBeInTheDocument();
  });

  it('shows a description written in Markdown as formatted text', async () => {
    mockApi(route('GET', '/api/playbooks', () => ({ body: { items: [{ ...book, description: '**Range** first, then:\n\n- volume\n- [notes](https://example.com)' }] } })));
    renderScreen(<Playbooks />);
    const description = await screen.findByLabelText('Description of Breakout');
    expect(within(description).getByText('Range').tagName).toBe('STRONG');
    expect(within(description).getByRole('link', { name: 'notes' })).toHaveAttribute('href', 'https://example.com');
    expect(description).not.toHaveTextContent('**');
  });
});
