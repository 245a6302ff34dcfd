import { afterEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import Calculator from './Calculator';
import { mockApi, renderScreen, route } from '../test/render';

afterEach(() => vi.unstubAllGlobals());

const lists = [route('GET', '/api/accounts', () => ({ body: { items: [], nextCursor: null } })), route('GET', '/api/brokerages', () => ({ body: { items: [], nextCursor: null } }))];

describe('Calculator', () => {
  it('posts once, after typing pauses, with the whole form, and shows the live result', async () => {
    const api = mockApi(
      ...lists,
      route('POST', '/api/calculator', () => ({ body: { positionSize: 125, perUnitRisk: '2.00', actualDollarRisk: '250.00', totalPositionValue: '6250.00', derivedDollarRisk: '250.00' } })),
    );
    renderScreen(<Calculator />);
    // Edits in one synchronous block: no timer can fire between them. The form is complete (and askable) after
    // the third edit already, so without the debounce a request with stop 4 would go out before the one with 48.
    fireEvent.change(screen.getByLabelText('Account balance'), { target: { value: '25000' } });
    fireEvent.change(screen.getByLabelText('Entry price'), { target: { value: '50' } });
    fireEvent.change(screen.getByLabelText('Stop loss'), { target: { value: '4' } });
    fireEvent.change(screen.getByLabelText('Stop loss'), { target: { value: '48' } });
    expect(api.calls.filter((c) => c.path === '/api/calculator')).toHaveLength(0);
    expect(await screen.findByTestId('position-size')).toHaveTextContent('125 shares');
    const posts = api.calls.filter((c) => c.path === '/api/calculator');
    expect(posts).toHaveLength(1);
    expect(posts[0]?.body).toEqual({ mode: 'stock', direction: 'long', entryPrice: '50', stopLoss: '48', balance: '25000', riskPercent: '1' });
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
    expect(screen.getAllByText('For a long position, the stop loss must be below the entry price.').length).toBeGreaterThan(0);
  });

  it('takes numbers as a person types them', async () => {
    const api = mockApi(...lists, route('POST', '/api/calculator', () => ({ body: { positionSize: 125, perUnitRisk: '2.00', actualDollarRisk: '250.00', totalPositionValue: '6250.00' } })));
    renderScreen(<Calculator />);
    fireEvent.change(screen.getByLabelText('Account balance'), { target: { value: '25,000' } });
    fireEvent.change(screen.getByLabelText('Entry price'), { target: { value: '1 050.5' } });
    fireEvent.change(screen.getByLabelText('Stop loss'), { target: { value: '1,048' } });
    await screen.findByTestId('position-size');
    expect(api.calls.find((c) => c.path === '/api/calculator')?.body).toMatchObject({ balance: '25000', entryPrice: '1050.5', stopLoss: '1048' });
  });

  it('fills an account balance as a person writes it', async () => {
    const account = { id: 'a1', name: 'Main', currency: 'USD', balance: '27205.3400', startingBalance: '25000.0000', defaultRiskPercent: '1.5', brokerageId: null, archived: false, timezone: 'America/New_York' };
    mockApi(route('GET', '/api/accounts', () => ({ body: { items: [account], nextCursor: null } })), lists[1]!);
    renderScreen(<Calculator />);
    const user = userEvent.setup();
    await user.selectOptions(await screen.findByLabelText('Fill from account'), 'a1');
    expect(screen.getByLabelText('Account balance')).toHaveValue('27,205.34');
  });
});
