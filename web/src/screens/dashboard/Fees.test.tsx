import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { FeeRollup, feeShareWhy, periodLabel } from './Fees';
import { formatMoney } from '../../format';
import { mockApi, renderScreen, route } from '../../test/render';

afterEach(() => vi.unstubAllGlobals());

const figures = (fees: string, grossPnl: string, feeShare: string | null, fills: number) => ({ fees, grossPnl, netPnl: grossPnl, feeShare, fills });

const block = (currency: string) => ({
  currency,
  summary: figures('12.5000', '250.0000', '5.00', 4),
  byPeriod: [
    { period: '2024-04', ...figures('2.5000', '50.0000', '5.00', 1) },
    { period: '2024-05', ...figures('10.0000', '-200.0000', null, 3) },
  ],
  byAccount: [{ accountId: 'a1', name: 'Swing', ...figures('12.5000', '250.0000', '5.00', 4) }],
  byBroker: [{ brokerageId: null, name: null, ...figures('12.5000', '250.0000', '5.00', 4) }],
  byAssetType: [{ assetType: 'option', ...figures('12.5000', '250.0000', '5.00', 4) }],
});

describe('periodLabel', () => {
  it('names each kind of period as the dashboard does', () => {
    expect(periodLabel('2024-W05', 'week')).toBe('Week 5, 2024');
    expect(periodLabel('2024', 'year')).toBe('2024');
    expect(periodLabel('2024-05', 'month')).toMatch(/2024/);
    expect(periodLabel('2024-05-03', 'day')).toMatch(/3/);
  });
});

describe('feeShareWhy', () => {
  it('tells no gross P&L from a loss', () => {
    expect(feeShareWhy({ grossPnl: '0.0000' })).toBe('no gross P&L yet');
    expect(feeShareWhy({ grossPnl: '-20.0000' })).toBe('the gross P&L is a loss');
  });
});

describe('FeeRollup', () => {
  it('shows the total in the display currency for the filter, and asks again by the chosen period', async () => {
    const { calls } = mockApi(
      route('GET', '/api/performance/fees', (c) => ({
        body: { period: new URLSearchParams(c.search).get('period'), displayCurrency: 'USD', missingPairs: [], byCurrency: [block('USD')], total: block('USD') },
      })),
    );
    renderScreen(<FeeRollup query={{ accountId: ['a1'], side: 'long', from: '2024-01-01' }} />);
    const tiles = await screen.findByLabelText('Fee figures');
    expect(within(tiles).getByText(formatMoney('12.5000', 'USD'))).toBeInTheDocument();
    expect(within(tiles).getByText('5.00%')).toBeInTheDocument();
    expect(within(tiles).getByText('4 fills with a fee')).toBeInTheDocument();
    const q = new URLSearchParams(calls[0]?.search);
    expect(q.get('period')).toBe('month');
    expect(q.getAll('accountId')).toEqual(['a1']);
    expect(q.get('side')).toBe('long');
    expect(q.get('from')).toBe('2024-01-01');
    // A loss has no share of the gross P&L: said in words.
    const byMonth = screen.getByRole('region', { name: 'Fees by month' });
    expect(within(byMonth).getByText('(the gross P&L is a loss)')).toBeInTheDocument();
    expect(within(screen.getByRole('region', { name: 'Fees by broker' })).getByText('No broker fee schedule')).toBeInTheDocument();
    expect(within(screen.getByRole('region', { name: 'Fees by asset type' })).getByText('Options')).toBeInTheDocument();

    await userEvent.selectOptions(screen.getByLabelText('Fees by'), 'week');
    await screen.findByRole('region', { name: 'Fees by week' });
    await waitFor(() => expect(calls.some((c) => new URLSearchParams(c.search).get('period') === 'week')).toBe(true));
  });

  it('without a rate: names the missing pair with what to do, and shows each currency on its own', async () => {
    mockApi(
      route('GET', '/api/performance/fees', () => ({
        body: { period: 'month', displayCurrency: 'USD', missingPairs: ['EUR/USD'], byCurrency: [block('EUR'), block('USD')], total: null },
      })),
    );
    renderScreen(<FeeRollup query={{}} />);
    const note = await screen.findByText(/^No fee total in USD yet: a rate is missing/);
    expect(note).toHaveTextContent('on the exchange rates screen.');
    expect(within(note).getByRole('link', { name: 'EUR/USD' })).toHaveAttribute('href', '/exchange-rates?base=EUR&quote=USD');
    expect(screen.getByRole('heading', { name: 'EUR accounts' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'USD accounts' })).toBeInTheDocument();
    expect(within(screen.getByLabelText('Fee figures, EUR accounts')).getByText(formatMoney('12.5000', 'EUR'))).toBeInTheDocument();
  });
});
