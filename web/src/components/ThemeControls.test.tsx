import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ThemeForm, ThemeToggle } from './ThemeControls';
import { mockApi, renderScreen, route } from '../test/render';

const user = (theme: string) => ({
  user: { id: 'u', email: 'a@example.com', emailVerified: true, isAdmin: false, timezone: 'UTC', displayCurrency: 'USD', theme, createdAt: '2024-01-01T00:00:00Z' },
});

function clearTheme() {
  delete document.documentElement.dataset.theme;
  document.cookie = 'tj_theme=; Path=/; Max-Age=0';
}

afterEach(() => {
  vi.unstubAllGlobals();
  clearTheme();
});

describe('ThemeToggle', () => {
  it('signed in, paints the other theme at once, stores it on the server and in the cookie', async () => {
    const { calls } = mockApi(route('PUT', '/api/users/me/theme', (c) => ({ body: user((c.body as { theme: string }).theme) })));
    renderScreen(<ThemeToggle signedIn saved="light" />);
    await userEvent.click(await screen.findByRole('button', { name: 'Switch to dark theme' }));
    expect(document.documentElement.dataset.theme).toBe('dark');
    expect(document.cookie).toContain('tj_theme=dark');
    await waitFor(() => expect(calls.filter((c) => c.method === 'PUT')).toEqual([expect.objectContaining({ path: '/api/users/me/theme', body: { theme: 'dark' } })]));
    expect(await screen.findByRole('button', { name: 'Switch to light theme' })).toBeInTheDocument();
  });

  it('signed out, keeps the pick in the cookie only', async () => {
    const { calls } = mockApi();
    renderScreen(<ThemeToggle signedIn={false} />);
    await userEvent.click(await screen.findByRole('button', { name: 'Switch to dark theme' }));
    expect(document.cookie).toContain('tj_theme=dark');
    expect(calls).toEqual([]);
  });

  it('follows the theme stored from another device', async () => {
    mockApi();
    renderScreen(<ThemeToggle signedIn saved="dark" />);
    expect(await screen.findByRole('button', { name: 'Switch to light theme' })).toBeInTheDocument();
    expect(document.documentElement.dataset.theme).toBe('dark');
  });

  it('says so in words when the server refuses', async () => {
    mockApi(route('PUT', '/api/users/me/theme', () => ({ status: 503, body: { error: { code: 'SERVICE_UNAVAILABLE', message: 'down' } } })));
    renderScreen(<ThemeToggle signedIn saved="light" />);
    await userEvent.click(await screen.findByRole('button', { name: 'Switch to dark theme' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Your theme was not saved');
  });
});

describe('ThemeForm', () => {
  it('goes back to the system theme: no data-theme, the cookie says system', async () => {
    document.documentElement.dataset.theme = 'dark';
    const { calls } = mockApi(route('PUT', '/api/users/me/theme', () => ({ body: user('system') })));
    renderScreen(<ThemeForm saved="dark" />);
    await userEvent.selectOptions(await screen.findByRole('combobox', { name: 'Theme' }), 'system');
    expect(document.documentElement.dataset.theme).toBeUndefined();
    expect(document.cookie).toContain('tj_theme=system');
    expect(await screen.findByRole('status')).toHaveTextContent('Saved.');
    expect(calls[0]).toMatchObject({ method: 'PUT', body: { theme: 'system' } });
  });
});
