import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import { AppLayout } from './Layout';
import Billing from '../screens/Billing';
import { mockApi, renderScreen, route } from '../test/render';
import { forgetSession, hasSession, rememberSession } from '../session';

afterEach(() => vi.unstubAllGlobals());

const user = (isAdmin: boolean) => ({
  user: { id: 'u', email: 'a@example.com', emailVerified: false, isAdmin, timezone: 'UTC', displayCurrency: 'USD', createdAt: '2024-01-01T00:00:00Z' },
});
const config = (billing: boolean) => ({ quoteLookup: false, billing, proPlan: false, email: false, imageStorage: false, registrationOpen: true });

describe('AppLayout', () => {
  beforeEach(rememberSession);
  afterEach(forgetSession);
  it('leaves Billing and Admin out when billing is off and the user is no admin', async () => {
    mockApi(route('GET', '/api/auth/me', () => ({ body: user(false) })), route('GET', '/api/config', () => ({ body: config(false) })));
    renderScreen(<AppLayout />);
    const nav = await screen.findByRole('navigation', { name: 'Main' });
    await waitFor(() => expect(nav).toHaveTextContent('Settings'));
    expect(screen.queryByRole('link', { name: 'Billing' })).toBeNull();
    expect(screen.queryByRole('link', { name: 'Admin' })).toBeNull();
  });

  it('shows Billing when billing is on and Admin to admins', async () => {
    mockApi(route('GET', '/api/auth/me', () => ({ body: user(true) })), route('GET', '/api/config', () => ({ body: config(true) })));
    renderScreen(<AppLayout />);
    expect(await screen.findByRole('link', { name: 'Billing' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Admin' })).toBeInTheDocument();
  });

  it('sends a visitor whose session ended to sign in, and forgets the session', async () => {
    mockApi(route('GET', '/api/auth/me', () => ({ status: 401, body: { error: { code: 'UNAUTHENTICATED', message: 'sign in' } } })));
    renderScreen(<AppLayout />, { path: '/positions', at: '/positions' });
    expect(await screen.findByText('sign-in screen')).toBeInTheDocument();
    expect(hasSession()).toBe(false);
  });

  it('asks nothing authenticated of a browser without a session: sign in, or the welcome at /', async () => {
    forgetSession();
    const { calls } = mockApi(route('GET', '/api/auth/me', () => ({ status: 401, body: { error: { code: 'UNAUTHENTICATED', message: 'sign in' } } })));
    renderScreen(<AppLayout />, { path: '/positions', at: '/positions' });
    expect(await screen.findByText('sign-in screen')).toBeInTheDocument();
    expect(calls).toEqual([]);
  });
});

describe('Billing', () => {
  it('is absent when billing is off: no purchase UI, back to the dashboard', async () => {
    const { calls } = mockApi(route('GET', '/api/config', () => ({ body: config(false) })));
    renderScreen(<Billing />, { path: '/billing', at: '/billing' });
    expect(await screen.findByText('elsewhere')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Buy/ })).toBeNull();
    expect(calls.some((c) => c.path.startsWith('/api/billing'))).toBe(false);
  });

  it('lists packs with prices from minor units and redirects to checkout', async () => {
    const assign = vi.fn();
    vi.stubGlobal('location', { ...window.location, assign, origin: window.location.origin });
    const { calls } = mockApi(
      route('GET', '/api/config', () => ({ body: config(true) })),
      route('GET', '/api/billing/packs', () => ({ body: { purchasesAvailable: true, packs: [{ id: 'starter', label: 'Starter', priceMinor: 500, currency: 'USD', credits: 5000000 }] } })),
      route('GET', '/api/billing/wallet', () => ({ body: { balance: 0, reserved: 0, available: 0, transactions: [], nextCursor: null } })),
      route('GET', '/api/billing/subscription', () => ({ body: { proPlanAvailable: false, pro: false, subscription: null } })),
      route('POST', '/api/billing/checkout', () => ({ body: { url: 'https://checkout.stripe.com/c/pay/cs_test_1' } })),
    );
    renderScreen(<Billing />, { path: '/billing', at: '/billing' });
    expect(await screen.findByText('$5.00')).toBeInTheDocument();
    screen.getByRole('button', { name: 'Buy Starter' }).click();
    await waitFor(() => expect(assign).toHaveBeenCalledWith('https://checkout.stripe.com/c/pay/cs_test_1'));
    expect(calls.find((c) => c.path === '/api/billing/checkout')?.body).toEqual({ packId: 'starter' });
  });
});
