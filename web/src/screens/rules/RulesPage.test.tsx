import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockApi, renderScreen, route } from '../../test/render';
import RulesPage from './RulesPage';

describe('RulesPage', () => {
  it('adds a rule with its parameters in words, explaining a refused value by its field', async () => {
    const items: unknown[] = [];
    const { calls } = mockApi(
      route('GET', '/api/rules', () => ({ body: { items } })),
      route('GET', '/api/accounts', () => ({ body: { items: [{ id: 'a1', name: 'Main', currency: 'EUR' }], nextCursor: null } })),
      route('POST', '/api/rules', (c) => {
        const body = c.body as { params: { count: number } };
        if (body.params.count < 1) {
          return { status: 400, body: { error: { code: 'VALIDATION_ERROR', message: 'params.count must be a whole number from 1 to 1000', details: [{ field: 'params.count', message: 'must be a whole number from 1 to 1000' }] } } };
        }
        const rule = { id: 'r1', type: 'maxTradesPerDay', params: body.params, enabled: true, accountId: 'a1', createdAt: '2024-05-01T00:00:00Z', updatedAt: '2024-05-01T00:00:00Z' };
        items.push(rule);
        return { status: 201, body: { rule } };
      }),
    );
    const user = userEvent.setup();
    renderScreen(<RulesPage />);
    expect(await screen.findByText('No rules yet: add the first one.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Add a rule' }));
    await user.selectOptions(screen.getByLabelText('Applies to'), 'a1');
    await user.type(screen.getByLabelText('Most trades a day'), '0');
    await user.click(screen.getByRole('button', { name: 'Add the rule' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(/most trades a day/i);
    await user.clear(screen.getByLabelText('Most trades a day'));
    await user.type(screen.getByLabelText('Most trades a day'), '3');
    await user.click(screen.getByRole('button', { name: 'Add the rule' }));
    expect(await screen.findByRole('cell', { name: 'At most 3 trades a day' })).toBeInTheDocument();
    expect(screen.getByRole('cell', { name: 'Main' })).toBeInTheDocument();
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.body)).toEqual([
      { type: 'maxTradesPerDay', params: { count: 0 }, enabled: true, accountId: 'a1' },
      { type: 'maxTradesPerDay', params: { count: 3 }, enabled: true, accountId: 'a1' },
    ]);
  });
});
