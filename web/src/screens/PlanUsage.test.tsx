import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import { PlanUsage } from './PlanUsage';
import { errorSentences } from '../api/messages';
import { mockApi, renderScreen, route } from '../test/render';

afterEach(() => vi.unstubAllGlobals());

const limits = (over: Partial<Record<string, [number, number | null, number | null]>>) =>
  Object.entries({ accounts: [1, null, null], positions: [0, null, null], storageBytes: [0, null, null], importsPerDay: [0, null, null], ...over }).map(
    ([name, [used, limit, freeLimit]]) => ({ name, used, limit, freeLimit }),
  );

function api(plan: unknown) {
  return mockApi(
    route('GET', '/api/users/me/plan', () => ({ body: plan })),
    route('GET', '/api/config', () => ({ body: { billing: true } })),
  );
}

describe('PlanUsage', () => {
  it('says a self-hosted journal without limits has none', async () => {
    api({ plan: 'free', proPlanAvailable: false, limits: limits({}) });
    renderScreen(<PlanUsage />);
    expect(await screen.findByText('You are on the free plan. This journal sets no limits on it.')).toBeInTheDocument();
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
  });

  it('shows usage against the free limits and what to do at a limit', async () => {
    api({ plan: 'free', proPlanAvailable: true, limits: limits({ positions: [1200, 1200, 1200], storageBytes: [1_500_000, 20_000_000, 20_000_000] }) });
    renderScreen(<PlanUsage />);
    const table = await screen.findByRole('table', { name: "Your usage and the plans' limits" });
    const positions = within(table).getByRole('row', { name: /^Positions/ });
    expect(positions).toHaveTextContent(new Intl.NumberFormat().format(1200));
    expect(within(table).getByRole('row', { name: /^Screenshot storage/ })).toHaveTextContent(/1\.5 MB.*20 MB/);
    const note = screen.getByRole('status');
    expect(note).toHaveTextContent("You have reached the free plan's limit of positions. Everything you have stays readable and editable; to add more, archive or delete something, or upgrade to Pro on the Billing page.");
    expect(within(note).getByRole('link', { name: 'Billing page' })).toHaveAttribute('href', '/billing');
  });

  it('says Pro has no limits', async () => {
    api({ plan: 'pro', proPlanAvailable: true, limits: limits({ positions: [5000, null, 1200] }) });
    renderScreen(<PlanUsage />);
    expect(await screen.findByText('You have Pro: no limits.')).toBeInTheDocument();
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
  });
});

describe('PLAN_LIMIT_REACHED', () => {
  it('reads as the API says it, pointing at the Billing page, numbers in the user format', () => {
    const err = {
      status: 403,
      code: 'PLAN_LIMIT_REACHED',
      details: [],
      message: 'The free plan allows 12000 positions and this would make 12001. Delete positions you no longer need, or upgrade to Pro, to record more.',
    };
    expect(errorSentences(err, { locale: 'en-US' })).toEqual([
      'The free plan allows 12,000 positions and this would make 12,001. Delete positions you no longer need, or upgrade to Pro on the Billing page, to record more.',
    ]);
  });
});
