import { afterEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import CalculatorStrategy from './CalculatorStrategy';
import { mockApi, renderScreen, route } from '../test/render';

afterEach(() => vi.unstubAllGlobals());

// The drawing needs a canvas (the end-to-end tests see it in Chromium): here the chart is its text alternative.
vi.mock('./calculator/PayoffChart', () => ({ PayoffChart: ({ summary }: { summary: string }) => <div role="img" aria-label={summary} /> }));

const condor = {
  name: 'iron-condor',
  label: 'Short iron condor',
  netDebit: '-300.00',
  maxProfit: '300.00',
  maxLoss: '200.00',
  breakevens: ['92', '108'],
  payoff: [
    { price: '0', value: '-200.00' },
    { price: '90', value: '-200.00' },
    { price: '92', value: '0.00' },
    { price: '95', value: '300.00' },
    { price: '105', value: '300.00' },
    { price: '108', value: '0.00' },
    { price: '110', value: '-200.00' },
    { price: '165', value: '-200.00' },
  ],
};

function fillLeg(n: number, strike: string, price: string) {
  const leg = screen.getByRole('group', { name: new RegExp(`^Leg ${n}:`) });
  fireEvent.change(within(leg).getByLabelText('Strike'), { target: { value: strike } });
  fireEvent.change(within(leg).getByLabelText('Price per share'), { target: { value: price } });
}

describe('CalculatorStrategy', () => {
  it('builds an iron condor from its template and shows what the server names it', async () => {
    const api = mockApi(route('POST', '/api/calculator/strategy', () => ({ body: condor })));
    renderScreen(<CalculatorStrategy />);
    expect(screen.getByLabelText('Strategy')).toHaveValue('iron-condor');
    fireEvent.change(screen.getAllByLabelText('Expiry')[0]!, { target: { value: '2024-01-19' } });
    fillLeg(1, '90', '1');
    fillLeg(2, '95', '2.50');
    fillLeg(3, '105', '2.40');
    fillLeg(4, '110', '0.90');
    expect(await screen.findByTestId('strategy-name')).toHaveTextContent('Short iron condor');
    expect(screen.getByText('Net credit (received)')).toBeInTheDocument();
    expect(screen.getByTestId('net-debit')).toHaveTextContent('300.00');
    expect(screen.getByTestId('max-profit')).toHaveTextContent('300.00');
    expect(screen.getByTestId('max-loss')).toHaveTextContent('200.00');
    expect(screen.getByTestId('breakevens')).toHaveTextContent('92.00 and 108.00');
    expect(screen.getByRole('img', { name: /Payoff at expiry of the short iron condor: max profit 300.00, max loss 200.00/ })).toBeInTheDocument();
    const posts = api.calls.filter((c) => c.path === '/api/calculator/strategy');
    expect(posts).toHaveLength(1);
    expect(posts[0]?.body).toEqual({
      legs: [
        { type: 'put', strike: '90', expiry: '2024-01-19', side: 'long', quantity: '1', price: '1' },
        { type: 'put', strike: '95', expiry: '2024-01-19', side: 'short', quantity: '1', price: '2.50' },
        { type: 'call', strike: '105', expiry: '2024-01-19', side: 'short', quantity: '1', price: '2.40' },
        { type: 'call', strike: '110', expiry: '2024-01-19', side: 'long', quantity: '1', price: '0.90' },
      ],
    });
  });

  it('adds and removes legs, and draws a calendar at its first expiry at the implied volatility given', async () => {
    const estimate = {
      date: '2024-01-19',
      volatility: '30',
      rate: '4',
      maxProfit: '196.43',
      maxLoss: '150.00',
      breakevens: ['95.3072', '105.7709'],
      points: [
        { price: '0', value: '-150.00' },
        { price: '95.3072', value: '0.00' },
        { price: '100', value: '196.43' },
        { price: '105.7709', value: '0.00' },
        { price: '200', value: '-119.36' },
      ],
    };
    const api = mockApi(
      route('POST', '/api/calculator/strategy', (c) => ({
        body: { name: 'calendar', label: 'Long call calendar', netDebit: '150.00', payoffUndefined: 'different dates', ...((c.body as { volatility?: string }).volatility ? { firstExpiry: estimate } : {}) },
      })),
    );
    renderScreen(<CalculatorStrategy />);
    fireEvent.change(screen.getByLabelText('Strategy'), { target: { value: 'custom' } });
    expect(screen.getByText(/Add a leg, or pick a strategy/)).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Add leg' }));
    fireEvent.click(screen.getByRole('button', { name: 'Add leg' }));
    fireEvent.click(screen.getByRole('button', { name: 'Add leg' }));
    fireEvent.click(screen.getByRole('button', { name: 'Remove leg 3' }));
    expect(screen.queryByRole('group', { name: /^Leg 3:/ })).toBeNull();
    const leg2 = screen.getByRole('group', { name: /^Leg 2:/ });
    fireEvent.change(within(leg2).getByLabelText('Side'), { target: { value: 'short' } });
    expect(screen.queryByLabelText('Implied volatility %')).toBeNull();
    for (const [n, expiry] of [
      [1, '2024-02-16'],
      [2, '2024-01-19'],
    ] as const) {
      fireEvent.change(within(screen.getByRole('group', { name: new RegExp(`^Leg ${n}:`) })).getByLabelText('Expiry'), { target: { value: expiry } });
      fillLeg(n, '100', n === 1 ? '3.50' : '2');
    }
    // Two expiries: the volatility field, at 30 to start with, and the estimate at the first expiry.
    expect(screen.getByLabelText('Implied volatility %')).toHaveValue('30');
    expect(await screen.findByTestId('estimate-note')).toHaveTextContent(/model's estimate \(Black–Scholes\).*30% implied volatility and a 4% risk-free rate/);
    expect(screen.getByTestId('strategy-name')).toHaveTextContent('Long call calendar');
    expect(screen.getByTestId('max-profit')).toHaveTextContent('196.43');
    expect(screen.getByTestId('max-loss')).toHaveTextContent('150.00');
    expect(screen.getByTestId('breakevens')).toHaveTextContent('95.3072 and 105.7709');
    expect(screen.getByRole('img', { name: /^Estimated P&L at the first expiry of the long call calendar: max profit 196.43/ })).toBeInTheDocument();
    expect(api.calls.at(-1)?.body).toMatchObject({ volatility: '30' });
    // Without a volatility: why there is no figure, and what to enter.
    fireEvent.change(screen.getByLabelText('Implied volatility %'), { target: { value: '' } });
    expect(await screen.findByTestId('no-payoff')).toHaveTextContent(/expire on different dates.*Enter the implied volatility/);
    expect(screen.queryByTestId('max-loss')).toBeNull();
    expect(api.calls.at(-1)?.body).not.toHaveProperty('volatility');
  });

  it('names the leg and the field of a validation problem', async () => {
    mockApi(
      route('POST', '/api/calculator/strategy', () => ({
        status: 400,
        body: { error: { code: 'VALIDATION_ERROR', message: 'invalid', details: [{ field: 'legs[1].strike', message: 'must be greater than 0 and at most 99999999' }] } },
      })),
    );
    renderScreen(<CalculatorStrategy />);
    fireEvent.change(screen.getByLabelText('Strategy'), { target: { value: 'bull-call' } });
    fireEvent.change(screen.getAllByLabelText('Expiry')[0]!, { target: { value: '2024-01-19' } });
    fillLeg(1, '100', '5');
    fillLeg(2, '0', '2');
    const leg2 = screen.getByRole('group', { name: /^Leg 2:/ });
    await waitFor(() => expect(within(leg2).getByLabelText('Strike')).toHaveAttribute('aria-invalid', 'true'));
    expect(screen.getAllByText(/strike of leg 2/i).length).toBeGreaterThan(0);
  });
});
