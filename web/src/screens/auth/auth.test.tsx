import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import SignUp, { browserTimeZone } from './SignUp';
import SignIn from './SignIn';
import ResetPassword from './ResetPassword';
import VerifyEmail from './VerifyEmail';
import ForgotPassword from './ForgotPassword';
import { mockApi, renderScreen, route } from '../../test/render';

afterEach(() => {
  vi.unstubAllGlobals();
  delete window.__TRADEJOURNAL_CONFIG__;
});

const user = { id: 'u', email: 'a@example.com', emailVerified: false, isAdmin: false, timezone: 'UTC', displayCurrency: null, createdAt: '2024-01-01T00:00:00Z' };

describe('SignUp', () => {
  it('sends the browser time zone as timezone', async () => {
    const { calls } = mockApi(route('POST', '/api/auth/register', () => ({ status: 201, body: { user } })));
    const { router } = renderScreen(<SignUp />, { path: '/signup', at: '/signup' });
    const u = userEvent.setup();
    await u.type(screen.getByLabelText('Email'), 'a@example.com');
    await u.type(screen.getByLabelText('Password'), 'password123');
    await u.click(screen.getByRole('button', { name: 'Sign up' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/accounts'));
    const zone = browserTimeZone();
    expect(zone).toBeTruthy();
    expect(calls[0]?.body).toEqual({ email: 'a@example.com', password: 'password123', timezone: zone });
  });

  it('shows the closed sign-up notice with the newsletter link on REGISTRATION_DISABLED', async () => {
    window.__TRADEJOURNAL_CONFIG__ = { newsletterUrl: 'https://news.example/join' };
    vi.resetModules();
    const { default: FreshSignUp } = await import('./SignUp');
    mockApi(route('POST', '/api/auth/register', () => ({ status: 403, body: { error: { code: 'REGISTRATION_DISABLED', message: 'closed' } } })));
    renderScreen(<FreshSignUp />, { path: '/signup', at: '/signup' });
    const u = userEvent.setup();
    await u.type(screen.getByLabelText('Email'), 'a@example.com');
    await u.type(screen.getByLabelText('Password'), 'password123');
    await u.click(screen.getByRole('button', { name: 'Sign up' }));
    expect(await screen.findByRole('heading', { name: 'Sign-up is closed' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Join the newsletter' })).toHaveAttribute('href', 'https://news.example/join');
  });

  it('shows field errors from the API', async () => {
    mockApi(route('POST', '/api/auth/register', () => ({ status: 400, body: { error: { code: 'VALIDATION_ERROR', message: 'bad', details: [{ field: 'password', message: 'must be at least 8 characters' }] } } })));
    renderScreen(<SignUp />, { path: '/signup', at: '/signup' });
    const u = userEvent.setup();
    await u.type(screen.getByLabelText('Email'), 'a@example.com');
    await u.type(screen.getByLabelText('Password'), 'short');
    await u.click(screen.getByRole('button', { name: 'Sign up' }));
    expect(await screen.findByText('The password needs at least 8 characters.')).toBeInTheDocument();
    expect(screen.getByLabelText('Password')).toHaveAttribute('aria-invalid', 'true');
  });
});

describe('SignIn', () => {
  it('says wrong email or password on INVALID_CREDENTIALS and goes to next on success', async () => {
    let ok = false;
    mockApi(route('POST', '/api/auth/login', () => (ok ? { body: { user } } : { status: 401, body: { error: { code: 'INVALID_CREDENTIALS', message: 'x' } } })));
    const { router, onUnauthenticated } = renderScreen(<SignIn />, { path: '/signin', at: '/signin?next=%2Fpositions' });
    const u = userEvent.setup();
    await u.type(screen.getByLabelText('Email'), 'a@example.com');
    await u.type(screen.getByLabelText('Password'), 'nope');
    await u.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('Wrong email or password.')).toBeInTheDocument();
    expect(onUnauthenticated).not.toHaveBeenCalled();
    ok = true;
    await u.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/positions'));
  });
});

describe('SignIn with two-factor', () => {
  it('asks for the code after the password and signs in with it', async () => {
    let codeOK = false;
    const { calls } = mockApi(
      route('POST', '/api/auth/login', () => ({ status: 202, body: { twoFactorRequired: true, pendingToken: 'pending-1' } })),
      route('POST', '/api/auth/login/two-factor', () =>
        codeOK ? { body: { user } } : { status: 401, body: { error: { code: 'INVALID_CREDENTIALS', message: 'wrong code' } } },
      ),
    );
    const { router } = renderScreen(<SignIn />, { path: '/signin', at: '/signin?next=%2Fpositions' });
    const u = userEvent.setup();
    await u.type(screen.getByLabelText('Email'), 'a@example.com');
    await u.type(screen.getByLabelText('Password'), 'password1');
    await u.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('heading', { name: 'Enter your code' })).toBeInTheDocument();
    await u.type(screen.getByLabelText('Code'), '000000');
    await u.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText(/That code did not work/)).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/signin');
    codeOK = true;
    await u.clear(screen.getByLabelText('Code'));
    await u.type(screen.getByLabelText('Code'), ' 123 456 ');
    await u.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/positions'));
    expect(calls.filter((c) => c.path === '/api/auth/login/two-factor').map((c) => c.body)).toEqual([
      { pendingToken: 'pending-1', code: '000000' },
      { pendingToken: 'pending-1', code: '123 456' },
    ]);
  });

  it('sends the person back to the password when the sign-in expired', async () => {
    mockApi(
      route('POST', '/api/auth/login', () => ({ status: 202, body: { twoFactorRequired: true, pendingToken: 'old' } })),
      route('POST', '/api/auth/login/two-factor', () => ({ status: 401, body: { error: { code: 'UNAUTHENTICATED', message: 'expired' } } })),
    );
    const { onUnauthenticated } = renderScreen(<SignIn />, { path: '/signin', at: '/signin' });
    const u = userEvent.setup();
    await u.type(screen.getByLabelText('Email'), 'a@example.com');
    await u.type(screen.getByLabelText('Password'), 'password1');
    await u.click(screen.getByRole('button', { name: 'Sign in' }));
    await u.type(await screen.findByLabelText('Code'), '123456');
    await u.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText(/This sign-in has expired/)).toBeInTheDocument();
    expect(onUnauthenticated).not.toHaveBeenCalled();
    await u.click(screen.getByRole('button', { name: 'Start again' }));
    expect(screen.getByLabelText('Password')).toHaveValue('');
  });
});

describe('ResetPassword', () => {
  it('sends the token from the fragment with the new password', async () => {
    window.history.replaceState(null, '', '/reset-password#token=tok-123');
    const { calls } = mockApi(route('POST', '/api/auth/password-reset/confirm', () => ({ status: 204 })));
    renderScreen(<ResetPassword />, { path: '/reset-password', at: '/reset-password' });
    expect(window.location.hash).toBe('');
    const u = userEvent.setup();
    await u.type(screen.getByLabelText('New password'), 'newpassword1');
    await u.type(screen.getByLabelText('Repeat new password'), 'newpassword1');
    await u.click(screen.getByRole('button', { name: 'Set password' }));
    expect(await screen.findByText(/Your password is changed/)).toBeInTheDocument();
    expect(calls[0]?.body).toEqual({ token: 'tok-123', password: 'newpassword1' });
  });

  it('explains a link without a token', () => {
    window.history.replaceState(null, '', '/reset-password');
    mockApi();
    renderScreen(<ResetPassword />, { path: '/reset-password', at: '/reset-password' });
    expect(screen.getByRole('alert')).toHaveTextContent(/no reset token/);
  });
});

describe('VerifyEmail', () => {
  it('confirms once with the fragment token', async () => {
    window.history.replaceState(null, '', '/verify-email#token=v-1');
    const { calls } = mockApi(route('POST', '/api/auth/verify-email', () => ({ status: 204 })));
    renderScreen(<VerifyEmail />, { path: '/verify-email', at: '/verify-email' });
    expect(await screen.findByText(/is confirmed/)).toBeInTheDocument();
    expect(calls.filter((c) => c.path === '/api/auth/verify-email')).toEqual([expect.objectContaining({ body: { token: 'v-1' } })]);
  });

  it('says when the token is used or expired', async () => {
    window.history.replaceState(null, '', '/verify-email#token=old');
    mockApi(route('POST', '/api/auth/verify-email', () => ({ status: 400, body: { error: { code: 'VALIDATION_ERROR', message: 'x', details: [{ field: 'token', message: 'invalid' }] } } })));
    renderScreen(<VerifyEmail />, { path: '/verify-email', at: '/verify-email' });
    expect(await screen.findByText(/invalid, used or expired/)).toBeInTheDocument();
  });
});

describe('ForgotPassword', () => {
  const config = (email: boolean) => ({ quoteLookup: false, billing: false, proPlan: false, email, imageStorage: false, registrationOpen: true });

  it('says what the operator can do when email is off, and promises no link', async () => {
    const { calls } = mockApi(route('GET', '/api/config/public', () => ({ body: config(false) })));
    renderScreen(<ForgotPassword />, { path: '/forgot-password', at: '/forgot-password' });
    const note = await screen.findByTestId('operator-reset');
    expect(note).toHaveTextContent(/does not send email/);
    await userEvent.setup().type(screen.getByLabelText('Email'), 'a@example.com');
    expect(note).toHaveTextContent('reset-password --email a@example.com');
    expect(screen.queryByRole('button', { name: 'Send reset link' })).toBeNull();
    expect(screen.queryByText(/on its way/)).toBeNull();
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
  });

  it('requests a link when email is on', async () => {
    const { calls } = mockApi(
      route('GET', '/api/config/public', () => ({ body: config(true) })),
      route('POST', '/api/auth/password-reset/request', () => ({ status: 202, body: { status: 'accepted' } })),
    );
    renderScreen(<ForgotPassword />, { path: '/forgot-password', at: '/forgot-password' });
    const u = userEvent.setup();
    await u.type(await screen.findByLabelText('Email'), 'a@example.com');
    await u.click(screen.getByRole('button', { name: 'Send reset link' }));
    expect(await screen.findByText(/a reset link valid for one hour is on its way/)).toBeInTheDocument();
    expect(screen.queryByTestId('operator-reset')).toBeNull();
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ email: 'a@example.com' });
  });
});
