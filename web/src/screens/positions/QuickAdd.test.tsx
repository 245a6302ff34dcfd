import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import QuickAdd from './QuickAdd';
import { mockApi, renderScreen, route } from '../../test/render';

afterEach(() => vi.unstubAllGlobals());

const account = (id: string, name: string) => ({ id, name, currency: 'USD', archived: false });

describe('QuickAdd', () => {
  it('writes one entry through the positions API and opens the position', async () => {
    const { calls } = mockApi(
      route('GET', '/api/accounts', () => ({ body: { items: [account('a1', 'Main'), account('a2', 'Swing')] } })),
      route('POST', '/api/positions', () => ({ status: 201, body: { position: { id: 'p1' } } })),
    );
    const { router } = renderScreen(<QuickAdd />, { path: '/positions/quick' });
    await userEvent.type(await screen.findByLabelText('Symbol'), 'aapl ');
    await userEvent.click(screen.getByLabelText('Short (sell)'));
    await userEvent.type(screen.getByLabelText('Quantity'), '10');
    await userEvent.type(screen.getByLabelText('Price'), '190.5');
    await userEvent.selectOptions(screen.getByLabelText('Account'), 'a2');
    await userEvent.click(screen.getByRole('button', { name: 'Save trade' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/positions/p1'));
    const post = calls.find((c) => c.method === 'POST');
    expect(post?.body).toMatchObject({ accountId: 'a2', symbol: 'aapl', assetType: 'stock', side: 'short', fills: [{ type: 'entry', price: '190.5', quantity: '10' }] });
    expect((post?.body as { fills: Array<{ filledAt: string }> }).fills[0]?.filledAt).toMatch(/Z$/);
  });

  it("names the form's own fields in the API's errors", async () => {
    mockApi(
      route('GET', '/api/accounts', () => ({ body: { items: [account('a1', 'Main')] } })),
      route('POST', '/api/positions', () => ({
        status: 400,
        body: { error: { code: 'VALIDATION_ERROR', message: 'invalid', details: [{ field: 'fills[0].price', message: 'must be positive' }] } },
      })),
    );
    renderScreen(<QuickAdd />, { path: '/positions/quick' });
    await userEvent.type(await screen.findByLabelText('Symbol'), 'AAPL');
    await userEvent.click(screen.getByRole('button', { name: 'Save trade' }));
    expect(await screen.findByText('The price must be more than 0.')).toBeInTheDocument();
    expect(screen.getByText(/Account: Main \(USD\)/)).toBeInTheDocument();
  });
});
