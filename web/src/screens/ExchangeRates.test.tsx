import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import ExchangeRates, { moveText } from './ExchangeRates';
import { mockApi, renderScreen, route, type Call } from '../test/render';

afterEach(() => vi.unstubAllGlobals());

const stored = { id: '11111111-1111-4111-8111-111111111111', baseCurrency: 'EUR', quoteCurrency: 'USD', effectiveDate: '2024-03-01', rate: '1.085', createdAt: '', updatedAt: '' };

function api(preview: { exceedsThreshold: boolean; beforeTotal: string | null; afterTotal: string | null }) {
  return mockApi(
    route('GET', '/api/exchange-rates', () => ({ body: { items: [stored], nextCursor: null } })),
    route('POST', '/api/exchange-rates/preview', () => ({ body: { ...preview, displayCurrency: 'USD' } })),
    route('POST', '/api/exchange-rates', (c: Call) => ({ status: 201, body: { rate: { ...stored, ...(c.body as object) } } })),
    route('DELETE', `/api/exchange-rates/${stored.id}`, () => ({ status: 204 })),
  );
}

async function fillRate() {
  const user = userEvent.setup();
  await user.type(screen.getByLabelText('Base currency'), 'eur');
  await user.type(screen.getByLabelText('Quote currency'), 'usd');
  await user.type(screen.getByLabelText('Rate'), '2.5');
  await user.click(screen.getByRole('button', { name: 'Save rate' }));
  return user;
}

describe('ExchangeRates', () => {
  it('saves a small change right after its preview', async () => {
    const { calls } = api({ exceedsThreshold: false, beforeTotal: '100.0000', afterTotal: '101.0000' });
    renderScreen(<ExchangeRates />);
    await fillRate();
    await screen.findByText(/Saved EUR\/USD/);
    const posts = calls.filter((c) => c.method === 'POST');
    expect(posts.map((c) => c.path)).toEqual(['/api/exchange-rates/preview', '/api/exchange-rates']);
    expect(posts[0]?.body).toMatchObject({ intent: 'upsert', rate: { baseCurrency: 'EUR', quoteCurrency: 'USD', rate: '2.5' } });
  });

  it('saves the first rate without a warning: there was no total to move', async () => {
    const { calls } = api({ exceedsThreshold: true, beforeTotal: null, afterTotal: '27205.3400' });
    renderScreen(<ExchangeRates />);
    await fillRate();
    await screen.findByText(/Saved EUR\/USD/);
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.path)).toEqual(['/api/exchange-rates/preview', '/api/exchange-rates']);
  });

  it('asks for explicit confirmation of a large upsert, showing before and after', async () => {
    const { calls } = api({ exceedsThreshold: true, beforeTotal: '1000.0000', afterTotal: '2300.0000' });
    renderScreen(<ExchangeRates />);
    const user = await fillRate();
    const dialog = await screen.findByRole('alertdialog');
    expect(screen.getByTestId('preview-before')).toHaveTextContent('$1,000.00');
    expect(screen.getByTestId('preview-after')).toHaveTextContent('$2,300.00');
    expect(calls.some((c) => c.method === 'POST' && c.path === '/api/exchange-rates')).toBe(false);
    expect(dialog).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Confirm and save rate' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST' && c.path === '/api/exchange-rates')).toBe(true));
  });

  it('cancelling a large change writes nothing', async () => {
    const { calls } = api({ exceedsThreshold: true, beforeTotal: '1000.0000', afterTotal: null });
    renderScreen(<ExchangeRates />);
    const user = await fillRate();
    expect(await screen.findByTestId('preview-after')).toHaveTextContent(/no total/);
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(calls.filter((c) => c.path === '/api/exchange-rates' && c.method === 'POST')).toHaveLength(0);
  });

  it('previews a delete and confirms a large one', async () => {
    const { calls } = api({ exceedsThreshold: true, beforeTotal: '1000.0000', afterTotal: null });
    renderScreen(<ExchangeRates />);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Delete EUR/USD of 2024-03-01' }));
    await screen.findByRole('alertdialog');
    expect(calls.find((c) => c.path === '/api/exchange-rates/preview')?.body).toEqual({ intent: 'delete', rateId: stored.id });
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    await user.click(screen.getByRole('button', { name: 'Confirm and delete rate' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'DELETE')).toBe(true));
  });
});

describe('moveText', () => {
  it('names the kind of large change', () => {
    const p = { displayCurrency: 'USD', exceedsThreshold: true };
    expect(moveText({ ...p, beforeTotal: '1.0000', afterTotal: null })).toMatch(/no longer be computed/);
    expect(moveText({ ...p, beforeTotal: '100.0000', afterTotal: '200.0000' })).toMatch(/more than 5%/);
  });
});
