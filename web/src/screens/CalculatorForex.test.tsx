import { afterEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import Calculator from './Calculator';
import { mockApi, renderScreen, route, type Call } from '../test/render';

afterEach(() => {
  vi.unstubAllGlobals();
  localStorage.clear();
});

const account = { id: 'a1', name: 'FX', currency: 'USD', balance: '10000.0000', startingBalance: '10000.0000', defaultRiskPercent: '1', brokerageId: null, archived: false, timezone: 'UTC' };
const lists = (items: unknown[] = []) => [
  route('GET', '/api/accounts', () => ({ body: { items, nextCursor: null } })),
  route('GET', '/api/brokerages', () => ({ body: { items: [], nextCursor: null } })),
];

/** The answer for EUR/USD in USD, 20 pips of stop, 1% of 10,000 (shared/sizing's worked example). */
const eurusd = {
  pair: 'EUR/USD',
  quoteCurrency: 'USD',
  accountCurrency: 'USD',
  pipSize: '0.0001',
  lotUnits: '100000',
  stopPips: '20',
  pipValuePerLot: '10.00',
  conversionRate: '1',
  conversionSource: 'quote',
  units: '50000',
  lots: '0.50',
  miniLots: '5',
  microLots: '50',
  positionValue: '54250.00',
  actualRisk: '100.00',
  riskBudget: '100.00',
};

const forexPosts = (calls: Call[]) => calls.filter((c) => c.path === '/api/calculator/forex');

describe('Calculator: forex', () => {
  it('switches to the forex calculator, starts in the first account currency, and shows pips, pip value, lots and units', async () => {
    const api = mockApi(...lists([account]), route('POST', '/api/calculator/forex', () => ({ body: eurusd })));
    const { router } = renderScreen(<Calculator />);
    const user = userEvent.setup();
    await user.click(screen.getByRole('radio', { name: 'Forex' }));
    expect(router.state.location.search).toBe('?kind=forex');
    await waitFor(() => expect(screen.getByLabelText('Account currency')).toHaveValue('USD'));
    expect(screen.getByLabelText('Pair')).toHaveValue('EUR/USD');
    // No conversion rate for a USD account trading EUR/USD: the quote is the account's.
    expect(screen.queryByLabelText(/^Value of 1/)).toBeNull();
    fireEvent.change(screen.getByLabelText('Entry price'), { target: { value: '1.0850' } });
    fireEvent.change(screen.getByLabelText('Stop loss'), { target: { value: '1.0830' } });
    fireEvent.change(screen.getByLabelText('Account balance'), { target: { value: '10,000' } });
    expect(await screen.findByTestId('forex-lots')).toHaveTextContent('0.50 lots');
    expect(screen.getByTestId('forex-units')).toHaveTextContent('50,000 units of EUR · 5 mini lots · 50 micro lots');
    expect(screen.getByText('20 pips (a pip is 0.0001)')).toBeInTheDocument();
    expect(screen.getByText('Pip value, 1 standard lot').nextElementSibling).toHaveTextContent('$10.00');
    expect(screen.getByText('Risk at the stop').nextElementSibling).toHaveTextContent('$100.00');
    expect(forexPosts(api.calls)).toHaveLength(1);
    expect(forexPosts(api.calls)[0]?.body).toEqual({
      pair: 'EUR/USD',
      accountCurrency: 'USD',
      direction: 'long',
      entryPrice: '1.0850',
      stopLoss: '1.0830',
      balance: '10000',
      riskPercent: '1',
      lotStep: '0.01',
    });
  });

  it('starts in the display currency when the user has one', async () => {
    localStorage.setItem('tj-signed-in', '1');
    mockApi(...lists([account]), route('GET', '/api/auth/me', () => ({ body: { user: { id: 'u1', email: 'a@example.com', emailVerified: true, isAdmin: false, timezone: 'UTC', displayCurrency: 'EUR', createdAt: '2024-01-01T00:00:00Z' } } })));
    renderScreen(<Calculator />, { at: '/?kind=forex' });
    await waitFor(() => expect(screen.getByLabelText('Account currency')).toHaveValue('EUR'));
  });

  it('asks for the conversion rate in words only when the pair needs one, and sends it only then', async () => {
    const api = mockApi(...lists(), route('POST', '/api/calculator/forex', () => ({ body: eurusd })));
    renderScreen(<Calculator />, { at: '/?kind=forex' });
    const user = userEvent.setup();
    fireEvent.change(screen.getByLabelText('Entry price'), { target: { value: '0.8550' } });
    fireEvent.change(screen.getByLabelText('Stop loss'), { target: { value: '0.8530' } });
    fireEvent.change(screen.getByLabelText('Account balance'), { target: { value: '10000' } });
    fireEvent.change(screen.getByLabelText('Pair'), { target: { value: 'EURGBP' } });
    // EUR/GBP in a USD account: the rate of GBP in USD, asked for before anything is sent.
    const rate = screen.getByLabelText('Value of 1 GBP in USD');
    expect(screen.getByText(/Enter the value of 1 GBP in USD to size the position: the account is in neither currency of EUR\/GBP/)).toBeInTheDocument();
    await user.type(rate, '1.27');
    await waitFor(() => expect(forexPosts(api.calls).at(-1)?.body).toMatchObject({ pair: 'EURGBP', conversionRate: '1.27' }));
    // The account in the base currency: the server uses 1 / entry; the rate typed for GBP is not sent.
    fireEvent.change(screen.getByLabelText('Account currency'), { target: { value: 'eur' } });
    expect(screen.queryByLabelText(/^Value of 1/)).toBeNull();
    await waitFor(() => expect(forexPosts(api.calls).at(-1)?.body).toMatchObject({ accountCurrency: 'EUR' }));
    expect(forexPosts(api.calls).at(-1)?.body).not.toHaveProperty('conversionRate');
    // USD/JPY in a USD account: the base again, no rate.
    fireEvent.change(screen.getByLabelText('Account currency'), { target: { value: 'USD' } });
    fireEvent.change(screen.getByLabelText('Pair'), { target: { value: 'USD/JPY' } });
    expect(screen.queryByLabelText(/^Value of 1/)).toBeNull();
    // GBP/JPY in an EUR account: the value of 1 JPY in EUR.
    fireEvent.change(screen.getByLabelText('Account currency'), { target: { value: 'EUR' } });
    fireEvent.change(screen.getByLabelText('Pair'), { target: { value: 'GBP/JPY' } });
    expect(screen.getByLabelText('Value of 1 JPY in EUR')).toBeInTheDocument();
  });

  it("words the API's errors with the form's field names, on their fields", async () => {
    mockApi(
      ...lists(),
      route('POST', '/api/calculator/forex', () => ({
        status: 400,
        body: {
          error: {
            code: 'VALIDATION_ERROR',
            message: 'pair must be a currency pair',
            details: [
              { field: 'pair', message: 'must be a currency pair such as "EUR/USD", "EURUSD", "EUR_USD" or "EUR.USD" (two ISO currency codes, or a metal XAU XAG XPT XPD first)' },
              { field: 'stopLoss', message: 'must be below entryPrice for a long' },
              { field: 'lotStep', message: 'must be greater than 0 and at most 100, with at most 5 decimal places' },
              { field: 'conversionRate', message: 'is required (the value of 1 GBP in USD, since the account currency is neither of the pair\'s)' },
            ],
          },
        },
      })),
    );
    renderScreen(<Calculator />, { at: '/?kind=forex' });
    fireEvent.change(screen.getByLabelText('Pair'), { target: { value: 'EU/USD' } });
    fireEvent.change(screen.getByLabelText('Entry price'), { target: { value: '1.08' } });
    fireEvent.change(screen.getByLabelText('Stop loss'), { target: { value: '1.09' } });
    fireEvent.change(screen.getByLabelText('Account balance'), { target: { value: '10000' } });
    await waitFor(() => expect(screen.getByLabelText('Stop loss')).toHaveAttribute('aria-invalid', 'true'));
    expect(screen.getAllByText('For a long position, the stop loss must be below the entry price.').length).toBe(2);
    expect(screen.getAllByText('Enter the pair as two currency codes, like EUR/USD or EURUSD (a metal first for gold or silver, like XAU/USD).').length).toBe(2);
    expect(screen.getAllByText('The lot step must be more than 0 and at most 100, with at most 5 digits after the decimal point.').length).toBe(2);
    expect(screen.getByText("Enter the conversion rate: the value of 1 GBP in USD, since the account currency is neither of the pair's.")).toBeInTheDocument();
    expect(screen.getByLabelText('Pair')).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByLabelText('Lot step')).toHaveAttribute('aria-invalid', 'true');
  });

  it('explains a size of nothing in words', async () => {
    mockApi(...lists(), route('POST', '/api/calculator/forex', () => ({ body: { ...eurusd, units: '0', lots: '0.00', miniLots: '0', microLots: '0', actualRisk: '0.00', riskBudget: '1.00', sizingStatus: 'nothing-to-size-against' } })));
    renderScreen(<Calculator />, { at: '/?kind=forex' });
    const user = userEvent.setup();
    await user.click(screen.getByRole('radio', { name: 'Fixed amount' }));
    fireEvent.change(screen.getByLabelText('Entry price'), { target: { value: '1.0850' } });
    fireEvent.change(screen.getByLabelText('Stop loss'), { target: { value: '1.0830' } });
    fireEvent.change(screen.getByLabelText('Risk amount'), { target: { value: '1' } });
    expect(await screen.findByTestId('sizing-status')).toHaveTextContent('does not cover the risk of the smallest size, 0.01 lots');
  });

  it('keeps each form while another is shown', async () => {
    mockApi(...lists());
    renderScreen(<Calculator />);
    const user = userEvent.setup();
    fireEvent.change(screen.getByLabelText('Entry price'), { target: { value: '50' } });
    await user.click(screen.getByRole('radio', { name: 'Forex' }));
    expect(screen.getByLabelText('Entry price')).toHaveValue('');
    fireEvent.change(screen.getByLabelText('Entry price'), { target: { value: '1.1' } });
    await user.click(screen.getByRole('radio', { name: 'Stocks & options' }));
    expect(screen.getByLabelText('Entry price')).toHaveValue('50');
    expect(screen.getByLabelText('Instrument')).toBeInTheDocument();
    await user.click(screen.getByRole('radio', { name: 'Forex' }));
    expect(screen.getByLabelText('Entry price')).toHaveValue('1.1');
  });
});

describe('Calculator: CFD', () => {
  it('sizes a CFD priced in another currency with the rate it names', async () => {
    const api = mockApi(
      ...lists([account]),
      route('POST', '/api/calculator/cfd', () => ({
        body: {
          symbol: 'GER40',
          accountCurrency: 'USD',
          quoteCurrency: 'EUR',
          pointValue: '1',
          stopPoints: '50',
          riskPerContract: '54.00',
          conversionRate: '1.08',
          conversionSource: 'given',
          contracts: '3.70',
          positionValue: '71928.00',
          actualRisk: '199.80',
          riskBudget: '200.00',
        },
      })),
    );
    renderScreen(<Calculator />, { at: '/?kind=cfd' });
    const user = userEvent.setup();
    await waitFor(() => expect(screen.getByLabelText('Account currency')).toHaveValue('USD'));
    fireEvent.change(screen.getByLabelText('Symbol'), { target: { value: 'GER40' } });
    fireEvent.change(screen.getByLabelText('CFD currency (optional)'), { target: { value: 'eur' } });
    fireEvent.change(screen.getByLabelText('Entry price'), { target: { value: '18000' } });
    fireEvent.change(screen.getByLabelText('Stop loss'), { target: { value: '17950' } });
    await user.click(screen.getByRole('radio', { name: 'Fixed amount' }));
    fireEvent.change(screen.getByLabelText('Risk amount'), { target: { value: '200' } });
    expect(screen.getByText(/Enter the value of 1 EUR in USD to size the position/)).toBeInTheDocument();
    fireEvent.change(screen.getByLabelText('Value of 1 EUR in USD'), { target: { value: '1.08' } });
    expect(await screen.findByTestId('cfd-contracts')).toHaveTextContent('3.70 contracts');
    expect(screen.getByText('Risk per contract').nextElementSibling).toHaveTextContent('$54.00');
    expect(screen.getByText('1 EUR = 1.08 USD (as given)')).toBeInTheDocument();
    const posts = api.calls.filter((c) => c.path === '/api/calculator/cfd');
    expect(posts).toHaveLength(1);
    expect(posts[0]?.body).toEqual({
      symbol: 'GER40',
      accountCurrency: 'USD',
      quoteCurrency: 'EUR',
      pointValue: '1',
      direction: 'long',
      entryPrice: '18000',
      stopLoss: '17950',
      riskAmount: '200',
      conversionRate: '1.08',
      contractStep: '0.01',
    });
  });

  it('fills the account currency and balance from an account', async () => {
    const eur = { ...account, id: 'a2', name: 'Euro', currency: 'EUR', balance: '5000.0000', defaultRiskPercent: '2' };
    mockApi(...lists([account, eur]));
    renderScreen(<Calculator />, { at: '/?kind=cfd' });
    const user = userEvent.setup();
    await user.selectOptions(await screen.findByLabelText('Fill from account'), 'a2');
    expect(screen.getByLabelText('Account currency')).toHaveValue('EUR');
    expect(screen.getByLabelText('Account balance')).toHaveValue('5,000.00');
    expect(screen.getByLabelText('Risk percent')).toHaveValue('2');
  });
});
