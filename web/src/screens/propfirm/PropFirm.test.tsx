import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockApi, renderScreen, route } from '../../test/render';
import { blankDraft, planRequest, type Plan, type Status } from './propfirm';
import { PropFirmPanel } from './PropFirmPanel';
import { StatusCard } from './StatusCard';
import { PropFirmWarnings } from './PropFirmWarnings';

afterEach(() => vi.unstubAllGlobals());

const account = {
  id: 'a1',
  name: 'Combine',
  currency: 'USD',
  timezone: 'America/New_York',
  startingBalance: '50000.0000',
  balance: '50000.0000',
  defaultRiskPercent: null,
  brokerageId: null,
  buyingPower: null,
  archived: false,
  demo: false,
  createdAt: '2026-01-01T00:00:00Z',
};

const combine: Plan = {
  phase: 'evaluation',
  startingBalance: '50000',
  timezone: 'America/Chicago',
  dayStart: '17:00',
  profitTarget: '3000',
  dailyLoss: { amount: '1000', basis: 'equity', pausesOnly: true },
  maxDrawdown: { amount: '2000', kind: 'trailingEndOfDay', lockAt: '50000' },
  minTradingDays: 0,
  consistencyPercent: '50',
  maxContracts: '5',
  allowedHours: null,
  noWeekendHolding: false,
  warnAtPercent: 80,
};

const templates = {
  notice: "Examples only, in the shape firms publish: check your firm's current rules and edit the plan to match them.",
  items: [{ id: 'futures-combine', name: 'Futures combine (Topstep-style)', description: '', sizes: [{ label: '50000', plan: combine }] }],
};

function limit(over: Partial<NonNullable<Status['dailyLoss']>> = {}): NonNullable<Status['dailyLoss']> {
  return { amount: '1000', floor: '49000', distance: '1000', distancePercent: '100', used: '0', usedPercent: '0', locked: false, warn: false, ...over };
}

const failed: Status = {
  result: 'failed',
  passedOn: null,
  breach: { rule: 'maxDrawdown', date: '2026-04-10', positionId: 'p5', fails: true, message: 'the close took the account to 48550.00, below the maximum drawdown’s floor of 49400.00' },
  violations: [],
  today: '2026-04-10',
  startingBalance: '50000',
  balance: '48550',
  profit: '-1450',
  highWaterMark: '51400',
  profitTarget: { amount: '3000', balance: '53000', remaining: '4450', progressPercent: '0', reached: false },
  dailyLoss: limit({ used: '1450', usedPercent: '145', distance: '-450', distancePercent: '-45', warn: true }),
  maxDrawdown: limit({ amount: '2000', floor: '49400', distance: '-850', distancePercent: '-42.5' }),
  tradingDays: { count: 5, minimum: 0, met: true },
  consistency: null,
  maxContracts: { limit: '5', largest: '5' },
  days: [],
};

describe('planRequest', () => {
  it('sends a blank limit as none and no lock with a static drawdown', () => {
    const body = planRequest({ ...blankDraft, startingBalance: ' 25000 ', profitTarget: '2500', drawdown: '2500', lockAt: '25000', minTradingDays: '4' });
    expect(body).toMatchObject({ phase: 'evaluation', startingBalance: '25000', profitTarget: '2500', dailyLoss: null, allowedHours: null, minTradingDays: 4, warnAtPercent: 80 });
    expect(body.maxDrawdown).toEqual({ amount: '2500', kind: 'static', lockAt: null });
  });
});

describe('PropFirmPanel', () => {
  it('fills the form from an example, saves it, and says which field the API refused', async () => {
    let puts = 0;
    const { calls } = mockApi(
      route('GET', '/api/accounts/a1/prop-firm', () => ({ body: { propFirm: null } })),
      route('GET', '/api/prop-firm/templates', () => ({ body: templates })),
      route('PUT', '/api/accounts/a1/prop-firm', () =>
        ++puts === 1
          ? { status: 400, body: { error: { code: 'VALIDATION_ERROR', message: 'dailyLoss.amount must be greater than 0 and at most 99999999999999.9999', details: [{ field: 'dailyLoss.amount', message: 'must be greater than 0 and at most 99999999999999.9999' }] } } }
          : { body: { propFirm: { accountId: 'a1', plan: combine, updatedAt: '2026-04-01T00:00:00Z' } } },
      ),
      route('GET', '/api/accounts/a1/prop-firm/status', () => ({ body: { accountId: 'a1', name: 'Combine', currency: 'USD', plan: combine, status: failed } })),
    );
    renderScreen(<PropFirmPanel account={account} onClose={() => undefined} />);
    const user = userEvent.setup();
    expect(await screen.findByText(/check your firm's current rules/)).toBeInTheDocument();
    await user.selectOptions(screen.getByLabelText('Start from an example'), 'futures-combine/50000');
    expect(screen.getByLabelText('Profit target')).toHaveValue('3000');
    expect(screen.getByLabelText('Floor locks at')).toHaveValue('50000');
    await user.click(screen.getByRole('button', { name: 'Save plan' }));
    expect(await screen.findAllByText(/daily loss limit must be more than 0/i)).not.toHaveLength(0);
    await user.click(screen.getByRole('button', { name: 'Save plan' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(2));
    expect(calls.find((c) => c.method === 'PUT')?.body).toMatchObject({
      startingBalance: '50000',
      profitTarget: '3000',
      dailyLoss: { amount: '1000', basis: 'equity', pausesOnly: true },
      maxDrawdown: { amount: '2000', kind: 'trailingEndOfDay', lockAt: '50000' },
      maxContracts: '5',
    });
  });
});

describe('StatusCard', () => {
  it('shows a failed plan with the breaking day and position, and the room left in money and percent', () => {
    renderScreen(<StatusCard status={failed} plan={combine} currency="USD" />);
    expect(screen.getByText('Failed')).toBeInTheDocument();
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent('Maximum drawdown broken on');
    expect(screen.getByRole('link', { name: 'this position' })).toHaveAttribute('href', '/positions/p5');
    expect(screen.getByText(/-\$850\.00 left \(-42\.50% of \$2,000\.00\)/)).toBeInTheDocument();
    expect(screen.getByRole('meter', { name: 'Maximum drawdown: room left' })).toHaveAttribute('aria-valuenow', '0');
    expect(screen.getByText(/not every tick/)).toBeInTheDocument();
  });

  it('calls a funded account in good standing active, and shows a locked floor', () => {
    const funded = { ...combine, phase: 'funded' as const, profitTarget: null };
    const s: Status = { ...failed, result: 'inProgress', breach: null, profitTarget: null, maxDrawdown: limit({ amount: '2000', floor: '50000', distance: '1200', distancePercent: '60', locked: true }) };
    renderScreen(<StatusCard status={s} plan={funded} currency="USD" />);
    expect(screen.getByText('Active')).toBeInTheDocument();
    expect(screen.getByText(/locked: it trails no more/)).toBeInTheDocument();
    expect(screen.getByRole('meter', { name: 'Maximum drawdown: room left' })).toHaveAttribute('aria-valuenow', '60');
  });
});

describe('PropFirmWarnings', () => {
  const item = (s: Status) => ({ accountId: 'a1', name: 'Combine', currency: 'USD', phase: combine.phase, warnAtPercent: combine.warnAtPercent, result: s.result, breach: s.breach, dailyLoss: s.dailyLoss });
  it('warns when the day’s loss reaches the plan’s share of the daily limit', async () => {
    const warned = { ...failed, result: 'inProgress' as const, breach: null, dailyLoss: limit({ used: '850', usedPercent: '85', distance: '150', distancePercent: '15', floor: '49150', warn: true }) };
    mockApi(route('GET', '/api/prop-firm/status', () => ({ body: { items: [item(warned)], notice: '' } })));
    renderScreen(<PropFirmWarnings />);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent("Combine (evaluation): today's loss $850.00 is 85.00% of the $1,000.00 daily limit (you warned at 80%); $150.00 is left before $49,150.00.");
    expect(screen.getByRole('link', { name: 'See the plan' })).toHaveAttribute('href', '/accounts?propFirm=a1');
  });

  it('shows nothing below the share', async () => {
    const calm = { ...failed, result: 'inProgress' as const, breach: null, dailyLoss: limit({ used: '100', usedPercent: '10' }) };
    const { calls } = mockApi(route('GET', '/api/prop-firm/status', () => ({ body: { items: [item(calm)], notice: '' } })));
    renderScreen(<PropFirmWarnings />);
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
