import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { PositionPlaybook } from './PositionPlaybook';
import { mockApi, renderScreen, route } from '../../test/render';

afterEach(() => vi.unstubAllGlobals());

const book = (id: string, name: string, archived: boolean, criteria: Array<[string, string]>) => ({
  id,
  name,
  description: '',
  archived,
  criteria: criteria.map(([cid, text]) => ({ id: cid, text })),
  createdAt: '2024-05-01T00:00:00Z',
  updatedAt: '2024-05-01T00:00:00Z',
});

describe('PositionPlaybook', () => {
  it('picks a playbook, ticks what the trade met, and saves both; archived playbooks are not offered', async () => {
    const { calls } = mockApi(
      route('GET', '/api/positions/p1/playbook', () => ({ body: { playbookId: null, criterionIds: [] } })),
      route('GET', '/api/playbooks', () => ({
        body: { items: [book('b1', 'Breakout', false, [['c1', 'Range'], ['c2', 'Volume']]), book('b2', 'Old fade', true, [])] },
      })),
      route('PUT', '/api/positions/p1/playbook', (call) => ({ body: call.body })),
    );
    renderScreen(<PositionPlaybook positionId="p1" />);
    const select = await screen.findByLabelText('Playbook followed');
    await screen.findByRole('option', { name: 'Breakout' });
    expect(screen.queryByRole('option', { name: /Old fade/ })).toBeNull();
    await userEvent.selectOptions(select, 'b1');
    await userEvent.click(screen.getByLabelText('Volume'));
    await userEvent.click(screen.getByRole('button', { name: 'Save playbook' }));
    expect(await screen.findByText('Saved.')).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ playbookId: 'b1', criterionIds: ['c2'] });
  });

  it('points to the Playbooks page when there is none', async () => {
    mockApi(
      route('GET', '/api/positions/p1/playbook', () => ({ body: { playbookId: null, criterionIds: [] } })),
      route('GET', '/api/playbooks', () => ({ body: { items: [] } })),
    );
    renderScreen(<PositionPlaybook positionId="p1" />);
    expect(await screen.findByRole('link', { name: 'Create one' })).toHaveAttribute('href', '/playbooks');
  });
});
