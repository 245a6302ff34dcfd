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
        const rule = { id: 'r1', type: 'maxTradesPerDay', params: body.params, enabled: true, accountId: 'a1', weight: 'important', tagId: null, createdAt: '2024-05-01T00:00:00Z', updatedAt: '2024-05-01T00:00:00Z' };
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
      { type: 'maxTradesPerDay', params: { count: 0 }, enabled: true, accountId: 'a1', weight: 'important', tagId: null },
      { type: 'maxTradesPerDay', params: { count: 3 }, enabled: true, accountId: 'a1', weight: 'important', tagId: null },
    ]);
  });

  it('adds each new rule type with its own fields, a weight and a tag scope', async () => {
    const items: Array<Record<string, unknown>> = [];
    const { calls } = mockApi(
      route('GET', '/api/rules', () => ({ body: { items } })),
      route('GET', '/api/accounts', () => ({ body: { items: [{ id: 'a1', name: 'Main', currency: 'USD' }], nextCursor: null } })),
      route('GET', '/api/tags', () => ({ body: { items: [{ id: 't1', name: 'Scalp', category: 'setup' }] } })),
      route('GET', '/api/auth/me', () => ({ body: { user: { displayCurrency: 'USD' } } })),
      route('GET', '/api/rules/compliance', () => ({
        body: { from: '2024-05-01', to: '2024-05-31', days: [], daysKept: 0, daysBroken: 0, trades: [],
          breakdown: { displayCurrency: 'USD', missingPairs: [], byCurrency: [], total: null } },
      })),
      route('POST', '/api/rules', (c) => {
        const body = c.body as Record<string, unknown>;
        if (body.type === 'cooldownAfterLoss' && (body.params as { minutes?: unknown }).minutes === undefined) {
          return { status: 400, body: { error: { code: 'VALIDATION_ERROR', message: 'params.minutes is required', details: [{ field: 'params.minutes', message: 'is required' }] } } };
        }
        const rule = { id: `r${items.length + 1}`, enabled: true, accountId: null, createdAt: '2024-05-01T00:00:00Z', updatedAt: '2024-05-01T00:00:00Z', ...body };
        items.push(rule);
        return { status: 201, body: { rule } };
      }),
    );
    const user = userEvent.setup();
    renderScreen(<RulesPage />);
    await screen.findByText('No rules yet: add the first one.');
    const add = async (type: string, fill: () => Promise<void>) => {
      await user.click(screen.getByRole('button', { name: 'Add a rule' }));
      await user.selectOptions(screen.getByLabelText('Rule'), type);
      await fill();
      await user.click(screen.getByRole('button', { name: 'Add the rule' }));
    };
    // The cooldown: critical, for trades tagged Scalp; a blank is explained by its field's words.
    await add('cooldownAfterLoss', async () => {
      await user.selectOptions(screen.getByLabelText('Weight'), 'critical');
      await user.selectOptions(screen.getByLabelText('Only trades tagged'), 't1');
    });
    expect(await screen.findByRole('alert')).toHaveTextContent(/minutes to wait after a losing trade/i);
    await user.type(screen.getByLabelText('Minutes to wait after a losing trade'), '15');
    await user.click(screen.getByRole('button', { name: 'Add the rule' }));
    expect(await screen.findByRole('cell', { name: 'Wait 15 minutes after a losing trade before the next entry' })).toBeInTheDocument();
    expect(screen.getByRole('cell', { name: 'Every account, trades tagged Scalp' })).toBeInTheDocument();
    expect(screen.getByRole('cell', { name: 'Critical' })).toBeInTheDocument();
    await add('maxWeeklyLoss', async () => {
      await user.type(screen.getByLabelText('Most you may lose in a week (USD)'), '1500');
    });
    await screen.findByRole('cell', { name: 'Lose at most 1500 USD a week' });
    await add('maxOpenExposure', async () => {
      await user.type(screen.getByLabelText('Most money at risk in open trades at once (USD)'), '800');
    });
    await screen.findByRole('cell', { name: 'Hold at most 800 USD at risk at once' });
    await add('requiredFields', async () => {
      await user.click(screen.getByLabelText('Target'));
      await user.click(screen.getByLabelText('A screenshot'));
    });
    await screen.findByRole('cell', { name: 'Record on every trade: target, a screenshot' });
    await add('allowedMarkets', async () => {
      await user.click(screen.getByLabelText('Options'));
      await user.type(screen.getByLabelText('Symbols, separated by commas'), 'spy, qqq');
    });
    await screen.findByRole('cell', { name: 'Trade only options in spy, qqq' });
    await add('allowedDirection', async () => {
      await user.selectOptions(screen.getByLabelText('Direction'), 'short');
      await user.selectOptions(screen.getByLabelText('Weight'), 'niceToHave');
    });
    await screen.findByRole('cell', { name: 'Trade short only' });
    expect(screen.getByRole('cell', { name: 'Nice to have' })).toBeInTheDocument();
    const posts = calls.filter((c) => c.method === 'POST').map((c) => c.body as Record<string, unknown>);
    expect(posts.slice(1).map(({ type, params, weight, tagId }) => ({ type, params, weight, tagId }))).toEqual([
      { type: 'cooldownAfterLoss', params: { minutes: 15 }, weight: 'critical', tagId: 't1' },
      { type: 'maxWeeklyLoss', params: { amount: '1500' }, weight: 'important', tagId: null },
      { type: 'maxOpenExposure', params: { risk: '800' }, weight: 'important', tagId: null },
      { type: 'requiredFields', params: { fields: ['target', 'screenshot'] }, weight: 'important', tagId: null },
      { type: 'allowedMarkets', params: { assetTypes: ['option'], symbols: ['spy', 'qqq'] }, weight: 'important', tagId: null },
      { type: 'allowedDirection', params: { side: 'short' }, weight: 'niceToHave', tagId: null },
    ]);
  });
});
