import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { SavedViews } from './SavedViews';
import { emptyFilters, writeFilters, type Filters } from '../../filterState';
import { mockApi, renderScreen, route } from '../../test/render';

afterEach(() => vi.unstubAllGlobals());

function Host({ initial }: { initial: Filters }) {
  const [filters, setFilters] = useState(initial);
  return (
    <>
      <output aria-label="filter">{writeFilters(filters).toString()}</output>
      <SavedViews filters={filters} onApply={setFilters} />
    </>
  );
}

const view = (id: string, name: string, query: string) => ({ id, name, query, createdAt: '2025-01-01T00:00:00Z', updatedAt: '2025-01-01T00:00:00Z' });

describe('saved views', () => {
  it('applies a view in one click and marks the one in use', async () => {
    mockApi(route('GET', '/api/users/me/saved-views', () => ({ body: { items: [view('v1', 'May longs', 'from=2025-05-01&side=long&to=2025-05-31'), view('v2', 'Everything', '')] } })));
    renderScreen(<Host initial={{ ...emptyFilters(), symbol: ['AAPL'] }} />);
    const user = userEvent.setup();
    const group = await screen.findByRole('group', { name: 'Apply a saved view' });
    await user.click(within(group).getByRole('button', { name: 'May longs' }));
    expect(screen.getByLabelText('filter')).toHaveTextContent('side=long&from=2025-05-01&to=2025-05-31');
    expect(within(group).getByRole('button', { name: 'May longs' })).toHaveAttribute('aria-pressed', 'true');
    await user.click(within(group).getByRole('button', { name: 'Everything' }));
    expect(screen.getByLabelText('filter')).toBeEmptyDOMElement();
    expect(within(group).getByRole('button', { name: 'May longs' })).toHaveAttribute('aria-pressed', 'false');
  });

  it('saves the current filter under a name, and says in the form’s words when the name is taken', async () => {
    const { calls } = mockApi(
      route('GET', '/api/users/me/saved-views', () => ({ body: { items: [] } })),
      route('POST', '/api/users/me/saved-views', (c) =>
        (c.body as { name: string }).name === 'Taken'
          ? { status: 400, body: { error: { code: 'VALIDATION_ERROR', message: 'name is already the name of another of your saved views', details: [{ field: 'name', message: 'is already the name of another of your saved views' }] } } }
          : { status: 201, body: { view: view('v9', 'Apple', 'symbol=AAPL') } },
      ),
    );
    renderScreen(<Host initial={{ ...emptyFilters(), symbol: ['AAPL'] }} />);
    const user = userEvent.setup();
    expect(await screen.findByText(/No saved views yet/)).toBeInTheDocument();
    await user.type(screen.getByLabelText('Name for these filters'), 'Taken');
    await user.click(screen.getByRole('button', { name: 'Save view' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(/already the name of another of your saved views/);
    await user.clear(screen.getByLabelText('Name for these filters'));
    await user.type(screen.getByLabelText('Name for these filters'), 'Apple');
    await user.click(screen.getByRole('button', { name: 'Save view' }));
    await waitFor(() => expect(screen.getByLabelText('Name for these filters')).toHaveValue(''));
    expect(calls.filter((c) => c.method === 'POST').at(-1)?.body).toEqual({ name: 'Apple', query: 'symbol=AAPL' });
  });

  it('renames and deletes a view', async () => {
    let items = [view('v1', 'May longs', 'side=long')];
    const { calls } = mockApi(
      route('GET', '/api/users/me/saved-views', () => ({ body: { items } })),
      route('PATCH', '/api/users/me/saved-views/v1', (c) => {
        items = [view('v1', (c.body as { name: string }).name, 'side=long')];
        return { body: { view: items[0] } };
      }),
      route('DELETE', '/api/users/me/saved-views/v1', () => {
        items = [];
        return { status: 204 };
      }),
    );
    renderScreen(<Host initial={emptyFilters()} />);
    const user = userEvent.setup();
    await user.click(await screen.findByText('Rename or delete saved views'));
    const field = screen.getByLabelText('New name for May longs');
    await user.clear(field);
    await user.type(field, 'Longs');
    await user.click(screen.getByRole('button', { name: 'Rename' }));
    expect(await screen.findByRole('button', { name: 'Longs' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Delete view Longs' }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText(/No saved views yet/)).toBeInTheDocument();
    expect(calls.some((c) => c.method === 'DELETE')).toBe(true);
  });
});
