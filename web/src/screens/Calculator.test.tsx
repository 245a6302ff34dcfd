import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import Calculator from './Calculator';
import { mockApi, renderScreen, route } from '../test/render';

afterEach(() => vi.unstubAllGlobals());

const lists = [route('GET', '/api/accounts', () => ({ body: { items: [], nextCursor: null } })), route('GET', '/api/brokerages', () => ({ body: { items: [], nextCursor: null } }))];

describe('Calculator', () => {
  it('posts the debounced form and shows the live result', async () => {
    const api = mockApi(
      ...lists,
      route('POST', '/api/calculator', () => ({ body: { positionSize: 125, perUnitRisk: '2.00', actualDollarRisk: '250.00', totalPositionValue: '6250.00', derivedDollarRisk: '250.00' } })),
    );
    renderScreen(<Calculator />);
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Entry price'), '50');
    await user.type(screen.getByLabelText('Stop loss'), '48');
    await user.type(screen.getByLabelText('Account balance'), '25000');
    expect(await screen.findByTestId('position-size')).toHaveTextContent('125 shares');
    const posts = api.calls.filter((c) => c.path === '/api/calculator');
    // Typing is debounced: the last request is the whole form, the first ones never carry a partial balance per key.
    expect(posts.length).toBeLessThan(5);
    expect(posts.at(-1)?.body).toEqual({ mode: 'stock', direction: 'long', entryPrice: '50', stopLoss: '48', balance: '25000', riskPercent: '1' });
  });

  it('explains a zero-size outcome in words', async () => {
    mockApi(...lists, route('POST', '/api/calculator', () => ({ body: { positionSize: 0, perUnitRisk: '2.00', actualDollarRisk: '0.00', totalPositionValue: '0.00', sizingStatus: 'buying-power-zero' } })));
    renderScreen(<Calculator />);
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Entry price'), '50');
    await user.type(screen.getByLabelText('Stop loss'), '48');
    await user.type(screen.getByLabelText('Account balance'), '100');
    await user.type(screen.getByLabelText('Buying power (optional)'), '0');
    expect(await screen.findByTestId('sizing-status')).toHaveTextContent(/No buying power/);
  });

  it('shows validation details on their fields', async () => {
    mockApi(
      ...lists,
      route('POST', '/api/calculator', () => ({
        status: 400,
        body: { error: { code: 'VALIDATION_ERROR', message: 'invalid', details: [{ field: 'stopLoss', message: 'must be below the entry price for a long' }] } },
      })),
    );
    renderScreen(<Calculator />);
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Entry price'), '50');
    await user.type(screen.getByLabelText('Stop loss'), '52');
    await user.type(screen.getByLabelText('Account balance'), '100');
    await waitFor(() => expect(screen.getByLabelText('Stop loss')).toHaveAttribute('aria-invalid', 'true'));
    expect(screen.getAllByText(/must be below the entry price for a long/).length).toBeGreaterThan(0);
  });
});
