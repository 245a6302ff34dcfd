import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import TaxPage from './TaxPage';
import { formatMoney } from '../../format';
import { mockApi, renderScreen, route } from '../../test/render';

afterEach(() => vi.unstubAllGlobals());

const account = { accountId: 'a1', name: 'Swing', currency: 'USD', jurisdiction: null, basisReporting: 'reported' };
const figures = (lots: number, proceeds: string, basis: string, adjustments: string, gain: string) => ({ lots, proceeds, basis, adjustments, gain });

/** IRS Publication 550's wash sale: 100 XYZ bought at 10, sold at 7.50, bought again at 8, sold at 11. */
const usReport = {
  jurisdiction: 'us',
  year: 2025,
  from: '2025-01-01',
  to: '2025-12-31',
  method: 'FIFO',
  currency: 'USD',
  accounts: [{ id: 'a1', name: 'Swing' }],
  lots: [
    {
      id: 'l1',
      description: '100 sh XYZ',
      instrument: 'XYZ',
      account: 'a1',
      disposalFills: ['f2'],
      quantity: '100',
      acquired: '2025-01-10',
      sold: '2025-03-01',
      proceeds: '750.00',
      basis: '1000.00',
      adjustmentCode: 'W',
      adjustment: '250.00',
      gain: '0.00',
      term: 'short',
      box: 'A',
      rule: 'fifo',
      matches: [{ rule: 'fifo', fillId: 'f1', account: 'a1', date: '2025-01-10', quantity: '100', cost: '1000.00', washAdjustment: '0' }],
      washedTo: [{ fillId: 'f3', account: 'a1', date: '2025-03-15', quantity: '100', amount: '250.00' }],
    },
    {
      id: 'l2',
      description: '100 sh XYZ',
      instrument: 'XYZ',
      account: 'a1',
      disposalFills: ['f4'],
      quantity: '100',
      acquired: '2025-01-24',
      sold: '2025-06-03',
      proceeds: '1100.00',
      basis: '1050.00',
      adjustment: '0',
      gain: '50.00',
      term: 'short',
      box: 'A',
      rule: 'fifo',
      matches: [{ rule: 'fifo', fillId: 'f3', account: 'a1', date: '2025-03-15', quantity: '100', cost: '1050.00', washAdjustment: '250.00', washedFrom: 'l1' }],
    },
  ],
  washSales: [
    { lossLot: 'l1', instrument: 'XYZ', account: 'a1', sold: '2025-03-01', replacementFill: 'f3', replacementAccount: 'a1', replacementDate: '2025-03-15', quantity: '100', disallowed: '250.00', daysBetween: 14, proRata: false, replacementLots: ['l2'] },
  ],
  possiblyIdentical: [],
  totals: {
    all: figures(2, '1850.00', '2050.00', '250.00', '50.00'),
    shortTerm: figures(2, '1850.00', '2050.00', '250.00', '50.00'),
    longTerm: figures(0, '0', '0', '0', '0'),
    scheduleD: [
      { line: '1a', label: 'Short-term, box A, no adjustments', ...figures(1, '1100.00', '1050.00', '0', '50.00') },
      { line: '1b', label: 'Short-term, Form 8949 box A with adjustments', ...figures(1, '750.00', '1000.00', '250.00', '0.00') },
      { line: '2', label: 'Short-term, Form 8949 box B', ...figures(0, '0', '0', '0', '0') },
    ],
  },
  missing: [
    { kind: 'mark', instrument: 'ESZ5', account: 'a1', date: '2025-12-31', quantity: '1', message: 'no year-end mark for ESZ5 (1 open in account a1 on 2025-12-31)' },
    { kind: 'rate', pair: 'EUR/USD', days: ['2025-02-03'], message: 'no EUR/USD exchange rate on or before 2025-02-03' },
  ],
};

describe('TaxPage', () => {
  it('asks for the jurisdiction first, then shows the report', async () => {
    let jurisdiction: string | null = null;
    const { calls } = mockApi(
      route('GET', '/api/tax/settings', () => ({ body: { jurisdiction, accounts: [account] } })),
      route('PUT', '/api/tax/settings', (c) => {
        jurisdiction = (c.body as { jurisdiction: string }).jurisdiction;
        return { body: { jurisdiction, accounts: [account] } };
      }),
      route('GET', '/api/tax/report', () => ({ body: { ...usReport, missing: [] } })),
    );
    renderScreen(<TaxPage />, { path: '/tax' });
    const form = await screen.findByRole('form', { name: 'First, choose where you pay tax' });
    expect(screen.queryByLabelText('Tax year')).not.toBeInTheDocument();
    expect(calls.some((c) => c.path === '/api/tax/report')).toBe(false);
    await userEvent.selectOptions(within(form).getByLabelText('Your tax jurisdiction'), 'us');
    await userEvent.click(within(form).getByRole('button', { name: 'Save and show the report' }));
    await screen.findByLabelText('Tax year');
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ jurisdiction: 'us', accounts: [] });
    expect(screen.getByRole('link', { name: 'Download Form 8949 (CSV)' })).toHaveAttribute('href', expect.stringMatching(/^\/api\/tax\/report\/form-8949\.csv\?year=\d{4}$/));
  });

  it('marks a wash sale with its disallowed loss and where it went, and opens the buys behind a basis', async () => {
    mockApi(route('GET', '/api/tax/settings', () => ({ body: { jurisdiction: 'us', accounts: [account] } })), route('GET', '/api/tax/report', () => ({ body: usReport })));
    renderScreen(<TaxPage />, { path: '/tax', at: '/tax?year=2025' });
    const lots = await screen.findByRole('region', { name: 'Lots' });
    const [, washRow, replacementRow] = within(lots).getAllByRole('row');
    expect(washRow).toHaveTextContent('Wash sale (W)');
    expect(washRow).toHaveTextContent(`${formatMoney('250.00', 'USD')} of the loss disallowed, added to the basis of the 100 bought on`);
    expect(replacementRow).toHaveTextContent(formatMoney('1050.00', 'USD'));
    expect(replacementRow).toHaveTextContent(`Basis includes ${formatMoney('250.00', 'USD')} of a wash-sale loss from the sale of 100 sh XYZ on`);
    const open = within(replacementRow as HTMLElement).getByRole('button', { name: 'Show which buys made this basis (1)' });
    await userEvent.click(open);
    expect(open).toHaveAttribute('aria-expanded', 'true');
    const matches = screen.getByRole('table', { name: 'What made the basis of 100 sh XYZ' });
    expect(within(matches).getByRole('rowheader', { name: 'First in, first out' })).toBeInTheDocument();
    const wash = screen.getByRole('region', { name: 'Wash sales' });
    expect(wash).toHaveTextContent('14 days after');
    // Schedule D lists the lines with sales only.
    expect(screen.getByRole('table', { name: 'Schedule D lines' })).not.toHaveTextContent('box B');
  });

  it('names what is missing in words, links a rate, and saves a year-end price into the year’s whole list', async () => {
    const { calls } = mockApi(
      route('GET', '/api/tax/settings', () => ({ body: { jurisdiction: 'us', accounts: [account] } })),
      route('GET', '/api/tax/report', () => ({ body: usReport })),
      route('GET', '/api/tax/marks', () => ({ body: { year: 2025, marks: [{ instrument: 'NQZ5', price: '21000' }] } })),
      route('PUT', '/api/tax/marks', (c) =>
        (c.body as { marks: Array<{ price: string }> }).marks[1]?.price === 'abc'
          ? { status: 400, body: { error: { code: 'VALIDATION_ERROR', message: 'invalid', details: [{ field: 'marks[1].price', message: 'must be a decimal string like "1.5"' }] } } }
          : { body: c.body },
      ),
    );
    renderScreen(<TaxPage />, { path: '/tax', at: '/tax?year=2025' });
    const missing = await screen.findByRole('status', { name: /2 things are missing/ });
    expect(missing).toHaveTextContent('ESZ5 (1 open in Swing on');
    expect(within(missing).getByRole('link', { name: 'Add the EUR/USD rate' })).toHaveAttribute('href', '/exchange-rates?base=EUR&quote=USD&date=2025-02-03');
    const price = within(missing).getByLabelText('Year-end price of ESZ5');
    await userEvent.type(price, 'abc');
    await userEvent.click(within(missing).getByRole('button', { name: 'Save price' }));
    expect(await within(missing).findByText(/^Enter the year-end price as a number, like/)).toBeInTheDocument();
    await userEvent.clear(price);
    await userEvent.type(price, '5,012.25');
    await userEvent.click(within(missing).getByRole('button', { name: 'Save price' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(2));
    expect(calls.filter((c) => c.method === 'PUT')[1]?.body).toEqual({
      year: 2025,
      marks: [
        { instrument: 'NQZ5', price: '21000' },
        { instrument: 'ESZ5', price: '5012.25' },
      ],
    });
  });

  it('shows a refused account setting next to its field, in words', async () => {
    mockApi(
      route('GET', '/api/tax/settings', () => ({ body: { jurisdiction: 'us', accounts: [account, { ...account, accountId: 'a2', name: 'IRA' }] } })),
      route('GET', '/api/tax/report', () => ({ body: { ...usReport, missing: [] } })),
      route('PUT', '/api/tax/settings', () => ({
        status: 400,
        body: { error: { code: 'VALIDATION_ERROR', message: 'invalid', details: [{ field: 'accounts[0].accountId', message: 'must be one of your accounts, listed once' }] } },
      })),
    );
    renderScreen(<TaxPage />, { path: '/tax', at: '/tax?year=2025' });
    const form = await screen.findByRole('form', { name: 'Tax settings' });
    const ira = within(form).getByRole('group', { name: 'IRA (USD)' });
    await userEvent.selectOptions(within(ira).getByLabelText('Broker’s Form 1099-B'), 'none');
    await userEvent.click(within(form).getByRole('button', { name: 'Save tax settings' }));
    expect(await within(ira).findByRole('alert')).toHaveTextContent('This account no longer exists: reload the page and try again.');
    expect(within(within(form).getByRole('group', { name: 'Swing (USD)' })).queryByRole('alert')).not.toBeInTheDocument();
  });

  it('names the UK tax year and leaves Form 8949 out', async () => {
    mockApi(
      route('GET', '/api/tax/settings', () => ({ body: { jurisdiction: 'uk', accounts: [{ ...account, currency: 'GBP' }] } })),
      route('GET', '/api/tax/report', () => ({
        body: {
          ...usReport,
          jurisdiction: 'uk',
          year: 2024,
          currency: 'GBP',
          lots: [],
          washSales: [],
          missing: [],
          totals: { all: figures(0, '0', '0', '0', '0'), uk: { disposals: 0, disposalProceeds: '0', allowableCosts: '0', gains: '0', losses: '0', netGain: '0' } },
        },
      })),
    );
    renderScreen(<TaxPage />, { path: '/tax', at: '/tax?year=2024' });
    const year = await screen.findByLabelText('Tax year');
    expect(within(year).getByRole('option', { selected: true })).toHaveTextContent(/^2024\/25 \(.*2024 – .*2025\)$/);
    await screen.findByRole('heading', { name: 'Capital gains' });
    expect(screen.queryByRole('link', { name: 'Download Form 8949 (CSV)' })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Download the lots (CSV)' })).toHaveAttribute('href', '/api/tax/report/lots.csv?year=2024');
    // A UK taxpayer is not asked about Form 1099-B.
    expect(screen.queryByLabelText('Broker’s Form 1099-B')).not.toBeInTheDocument();
  });
});
