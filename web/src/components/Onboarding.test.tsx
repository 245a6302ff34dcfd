import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { CoachMark, OnboardingChecklist } from './Onboarding';
import { mockApi, renderScreen, route } from '../test/render';

afterEach(() => vi.unstubAllGlobals());

const onboarding = (done: string[], extra: Record<string, unknown> = {}) => ({
  steps: ['account', 'trade', 'review', 'dayPlan', 'rule'].map((id) => ({ id, done: done.includes(id) })),
  done: done.length,
  dismissed: false,
  coachMarksSeen: [],
  ...extra,
});

describe('onboarding checklist', () => {
  it('shows the progress and links each open step to where it is done', async () => {
    mockApi(route('GET', '/api/users/me/onboarding', () => ({ body: onboarding(['account']) })));
    renderScreen(<OnboardingChecklist />);
    expect(await screen.findByText('1 of 5 steps done')).toBeInTheDocument();
    expect(screen.getByRole('progressbar')).toHaveAttribute('value', '1');
    expect(screen.queryByRole('link', { name: 'Add a trading account' })).toBeNull();
    expect(screen.getByRole('link', { name: 'Record or import a trade' })).toHaveAttribute('href', '/positions/new');
    expect(screen.getByRole('link', { name: 'import a CSV file' })).toHaveAttribute('href', '/import');
    expect(screen.getByRole('link', { name: 'Write a day plan' })).toHaveAttribute('href', '/journal');
    expect(screen.getByRole('link', { name: 'Set a trading rule' })).toHaveAttribute('href', '/rules');
  });

  it('goes when dismissed, and is not shown once every step is done', async () => {
    const { calls } = mockApi(
      route('GET', '/api/users/me/onboarding', () => ({ body: onboarding([]) })),
      route('POST', '/api/users/me/onboarding/dismiss', () => ({ body: onboarding([], { dismissed: true }) })),
    );
    const { unmount } = renderScreen(<OnboardingChecklist />);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Dismiss the checklist' }));
    await waitFor(() => expect(screen.queryByText(/steps done/)).toBeNull());
    expect(calls.some((c) => c.method === 'POST' && c.path === '/api/users/me/onboarding/dismiss')).toBe(true);
    unmount();
    vi.unstubAllGlobals();
    mockApi(route('GET', '/api/users/me/onboarding', () => ({ body: onboarding(['account', 'trade', 'review', 'dayPlan', 'rule']) })));
    renderScreen(<OnboardingChecklist />);
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.queryByText(/steps done/)).toBeNull();
  });
});

describe('coach marks', () => {
  it('shows the screen’s hint until dismissed, by keyboard, and records it on the server', async () => {
    const { calls } = mockApi(
      route('GET', '/api/users/me/onboarding', () => ({ body: onboarding([], { coachMarksSeen: ['dashboard'] }) })),
      route('PUT', '/api/users/me/coach-marks/positions', () => ({ status: 204 })),
    );
    renderScreen(<CoachMark />, { path: '/positions' });
    const tip = await screen.findByRole('complementary', { name: 'Tip' });
    expect(tip).toHaveTextContent(/Every trade you enter or import is listed here/);
    const user = userEvent.setup();
    await user.tab();
    expect(screen.getByRole('button', { name: 'Got it, hide this tip' })).toHaveFocus();
    await user.keyboard('{Enter}');
    await waitFor(() => expect(screen.queryByRole('complementary', { name: 'Tip' })).toBeNull());
    expect(calls.some((c) => c.method === 'PUT' && c.path === '/api/users/me/coach-marks/positions')).toBe(true);
  });

  it('shows nothing for a hint seen already or a screen without one', async () => {
    mockApi(route('GET', '/api/users/me/onboarding', () => ({ body: onboarding([], { coachMarksSeen: ['dashboard'] }) })));
    renderScreen(<CoachMark />, { path: '/' });
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.queryByRole('complementary', { name: 'Tip' })).toBeNull();
    renderScreen(<CoachMark />, { path: '/settings' });
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.queryByRole('complementary', { name: 'Tip' })).toBeNull();
  });
});
