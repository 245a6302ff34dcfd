import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import PositionNew from './PositionNew';
import PositionPage from './PositionPage';
import PositionsList from './PositionsList';
import { cryptoCurrencies, formMarket, lotUnits, quotePnlText, rateHint, rateLabel, unitsOf } from './markets';
import { mockApi, renderScreen, route } from '../../test/render';

afterEach(() => vi.unstubAllGlobals());

const account = { id: 'a1', name: 'Swing', currency: 'USD', timezone: 'America/New_York', startingBalance: '0.0000', balance: '0.0000', defaultRiskPercent: null, brokerageId: null, archived: false, createdAt: '' };
const lists = [
  route('GET', '/api/accounts', () => ({ body: { items: [account], nextCursor: null } })),
  route('GET', '/api/tags', () => ({ body: { items: [], nextCursor: null } })),
  route('GET', '/api/config', () => ({ body: { quoteLookup: false, billing: false, proPlan: false, email: false, imageStorage: false, assistant: false, registrationOpen: true } })),
  route('GET', '/api/symbols/search', () => ({ body: { items: [] } })),
];

// One standard lot of USD/JPY bought at 150.00 and sold at 151.00 in a dollar account: +100,000 JPY, converted at
// the exit's rate the journal found (1 / 151, the account being in the pair's base): +662.25 USD.
const entry = { id: 'f1', type: 'entry', price: '150.00', quantity: '100000', fees: '0.0000', feeEstimated: false, filledAt: '2025-02-12T14:00:00Z', realizedPnl: null, rate: '0.006666666667', rateGiven: false };
const exit = { id: 'f2', type: 'exit', price: '151.00', quantity: '100000', fees: '0.0000', feeEstimated: false, filledAt: '2025-02-13T15:00:00Z', realizedPnl: '662.2517', rate: '0.006622516556', rateGiven: false };
const usdjpy = {
  id: 'p1',
  accountId: 'a1',
  symbol: 'USD/JPY',
  assetType: 'forex',
  underlying: null,
  optionExpiry: null,
  optionRight: null,
  optionStrike: null,
  contractMonth: null,
  multiplier: 1,
  side: 'long',
  status: 'closed',
  stopLoss: null,
  targetPrice: null,
  openedAt: '2025-02-12T14:00:00Z',
  closedAt: '2025-02-13T15:00:00Z',
  entryQuantity: '100000',
  exitQuantity: '100000',
  openQuantity: '0',
  avgEntryPrice: '150',
  avgExitPrice: '151',
  grossPnl: '662.2517',
  fees: '0.0000',
  netPnl: '662.2517',
  initialRisk: null,
  rMultiple: null,
  reversalOf: null,
  reversedInto: null,
  strategyId: null,
  awaitingExpiry: false,
  baseCurrency: 'USD',
  quoteCurrency: 'JPY',
  quoteGrossPnl: '100000.0000',
  awaitingRate: false,
  rateNeeded: null,
  tags: [],
  notes: '',
  imageCount: 0,
  maePrice: null,
  mfePrice: null,
  review: { holdSeconds: null, plannedRR: null, mae: null, mfe: null },
  fills: [entry, exit],
  createdAt: '',
  updatedAt: '1',
};

// EUR/GBP in a dollar account, closed on a day without a GBP/USD rate: its P&L in dollars waits for one.
const eurgbp = {
  ...usdjpy,
  id: 'p2',
  symbol: 'EUR/GBP',
  avgEntryPrice: '0.8300',
  avgExitPrice: '0.8350',
  baseCurrency: 'EUR',
  quoteCurrency: 'GBP',
  quoteGrossPnl: '500.0000',
  grossPnl: '0.0000',
  netPnl: '0.0000',
  awaitingRate: true,
  rateNeeded: 'GBP/USD',
  fills: [
    { ...entry, price: '0.8300', rate: '1.250000000000', rateGiven: false },
    { ...exit, price: '0.8350', realizedPnl: null, rate: null, rateGiven: false },
  ],
};

const page = (position: Record<string, unknown>, ...more: Parameters<typeof mockApi>) =>
  mockApi(
    ...lists,
    route('GET', `/api/positions/${String(position.id)}/images`, () => ({ body: { items: [], nextCursor: null } })),
    route('GET', `/api/positions/${String(position.id)}`, () => ({ body: { position } })),
    ...more,
  );

describe('forex, crypto and CFD helpers', () => {
  it('turns lots into units of the base: currencies 100,000 a lot, metals by their contract', () => {
    expect(lotUnits('EUR')).toBe('100000');
    expect(lotUnits('XAU')).toBe('100');
    expect(lotUnits('XAG')).toBe('5000');
    expect(lotUnits('XPT')).toBe('50');
    expect(unitsOf('1', 'standard', 'USD')).toBe('100000');
    expect(unitsOf('1,5', 'mini', 'EUR')).toBe('15000');
    expect(unitsOf('3', 'micro', 'EUR')).toBe('3000');
    expect(unitsOf('2', 'mini', 'XAU')).toBe('20');
    expect(unitsOf('0.5', 'standard', 'XAG')).toBe('2500');
    expect(unitsOf('12500', 'units', 'EUR')).toBe('12500');
    // Not a number: sent as typed, for the API to refuse in words.
    expect(unitsOf('one', 'standard', 'EUR')).toBe('one');
  });

  it('reads a pair’s currencies as the calculator does, and guesses a crypto pair’s', () => {
    expect(formMarket('forex', 'USDJPY', '', 'USD')).toEqual({ assetType: 'forex', base: 'USD', quote: 'JPY', account: 'USD' });
    expect(formMarket('forex', 'EURUSD.m', '', 'USD')).toMatchObject({ base: 'EUR', quote: 'USD' });
    expect(cryptoCurrencies('BTCUSDT')).toEqual({ base: 'BTC', quote: 'USDT' });
    expect(cryptoCurrencies('btc-usd')).toEqual({ base: 'BTC', quote: 'USD' });
    expect(cryptoCurrencies('BTC/USDT:PERP')).toEqual({ base: 'BTC', quote: 'USDT' });
    expect(cryptoCurrencies('ETHUSDT.P')).toEqual({ base: 'ETH', quote: 'USDT' });
    expect(cryptoCurrencies('BTC-PERP')).toEqual({ base: 'BTC', quote: 'USD' });
    expect(cryptoCurrencies('X')).toBeNull();
    expect(formMarket('cfd', 'GER40', 'eur', 'USD')).toMatchObject({ quote: 'EUR' });
    expect(formMarket('cfd', 'US500', '', 'USD')).toMatchObject({ quote: 'USD' });
  });

  it('names the rate in words, and says what the journal takes when it is blank', () => {
    const usdjpyMarket = formMarket('forex', 'USD/JPY', '', 'USD');
    expect(rateLabel(usdjpyMarket)).toBe('Value of 1 JPY in USD');
    expect(rateHint(usdjpyMarket)).toMatch(/the account is in USD, the pair's base, so the journal takes 1 ÷ the fill's price/);
    expect(rateHint(formMarket('forex', 'EUR/USD', '', 'USD'))).toMatch(/the rate is 1/);
    expect(rateHint(formMarket('forex', 'EUR/GBP', '', 'USD'))).toMatch(/your GBP\/USD exchange rate of the fill's day/);
    expect(rateLabel(formMarket('forex', '', '', 'USD'))).toBe('Rate');
    expect(rateHint(formMarket('crypto', 'BTCUSDT', '', 'USD'))).toMatch(/^Give it from your broker: exchange rates take three-letter codes, so the journal finds no USDT rate/);
    expect(rateHint(formMarket('crypto', 'ETH/BTC', '', 'USD'))).toMatch(/your BTC\/USD exchange rate of the fill's day/);
  });

  it('writes the P&L in the quote currency beside the account’s, only when they differ', () => {
    expect(quotePnlText(usdjpy, 'USD')).toBe('+100,000 JPY · +662.25 USD');
    expect(quotePnlText({ ...usdjpy, quoteCurrency: 'USD' }, 'USD')).toBeNull();
    expect(quotePnlText({ ...usdjpy, quoteCurrency: null, quoteGrossPnl: null }, 'USD')).toBeNull();
    expect(quotePnlText(eurgbp, 'USD')).toBe('+500.00 GBP · USD awaiting a rate');
  });
});

describe('PositionNew with forex', () => {
  it('takes the quantity in lots and sends units; the rate, named in words, is left to the journal', async () => {
    const { calls } = mockApi(...lists, route('POST', '/api/positions', () => ({ status: 201, body: { position: { ...usdjpy, id: 'p7' } } })));
    const { router } = renderScreen(<PositionNew />);
    const user = userEvent.setup();
    await user.type(await screen.findByRole('combobox', { name: 'Symbol' }), 'USDJPY');
    expect(screen.queryByLabelText('Quantity in')).toBeNull();
    expect(screen.queryByLabelText(/Value of 1/)).toBeNull();
    await user.selectOptions(screen.getByLabelText('Asset type'), 'forex');
    expect(screen.getByText(/Currency pair, e\.g\. EUR\/USD, EURUSD or EURUSD\.m/)).toBeInTheDocument();
    // A standard lot unless another size is chosen.
    expect(screen.getByLabelText('Quantity in')).toHaveValue('standard');
    expect(within(screen.getByLabelText('Quantity in')).getByRole('option', { name: 'Mini lots (10,000)' })).toBeInTheDocument();
    await user.type(screen.getByLabelText('Entry price'), '150.00');
    await user.type(screen.getByLabelText('Quantity'), '1');
    expect(screen.getByLabelText('Quantity')).toHaveAccessibleDescription('= 100,000 units of USD.');
    const rate = screen.getByLabelText('Value of 1 JPY in USD');
    expect(rate).toHaveValue('');
    expect(rate).toHaveAccessibleDescription(/Leave blank: the account is in USD, the pair's base/);

    await user.click(screen.getByRole('button', { name: 'Add exit' }));
    await user.type(screen.getByLabelText('Exit price (fill 2)'), '151.00');
    await user.selectOptions(screen.getByLabelText('Quantity in (fill 2)'), 'mini');
    await user.type(screen.getByLabelText('Quantity (fill 2)'), '10');
    expect(screen.getByLabelText('Quantity (fill 2)')).toHaveAccessibleDescription('= 100,000 units of USD.');
    await user.click(screen.getByRole('button', { name: 'Save position' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/positions/p7'));
    const body = calls.find((c) => c.method === 'POST')?.body as { fills: Array<Record<string, unknown>> };
    expect(body).toMatchObject({ assetType: 'forex', symbol: 'USDJPY', fills: [{ type: 'entry', price: '150.00', quantity: '100000' }, { type: 'exit', price: '151.00', quantity: '100000' }] });
    expect(body).not.toHaveProperty('multiplier');
    expect(body).not.toHaveProperty('quoteCurrency');
    expect(body.fills[0]).not.toHaveProperty('rate');
    expect(body.fills[1]).not.toHaveProperty('rate');
  });

  it('sends a rate typed on a fill, and shows the API’s word on it', async () => {
    let attempts = 0;
    const { calls } = mockApi(
      ...lists,
      route('POST', '/api/positions', () => {
        attempts++;
        return attempts === 1
          ? { status: 400, body: { error: { code: 'VALIDATION_ERROR', message: 'fills[0].rate', details: [{ field: 'fills[0].rate', message: 'must be greater than 0 and at most 1000000000' }] } } }
          : { status: 201, body: { position: { ...eurgbp, id: 'p8' } } };
      }),
    );
    const { router } = renderScreen(<PositionNew />);
    const user = userEvent.setup();
    await user.type(await screen.findByRole('combobox', { name: 'Symbol' }), 'EUR/GBP');
    await user.selectOptions(screen.getByLabelText('Asset type'), 'forex');
    await user.selectOptions(screen.getByLabelText('Quantity in'), 'units');
    expect(screen.getByLabelText('Quantity')).toHaveAccessibleDescription('Units of EUR: a standard lot is 100,000.');
    await user.type(screen.getByLabelText('Entry price'), '0.83');
    await user.type(screen.getByLabelText('Quantity'), '25000');
    const rate = screen.getByLabelText('Value of 1 GBP in USD');
    expect(rate).toHaveAccessibleDescription(/your GBP\/USD exchange rate of the fill's day/);
    await user.type(rate, '0');
    await user.click(screen.getByRole('button', { name: 'Save position' }));
    await waitFor(() => expect(rate).toHaveAttribute('aria-invalid', 'true'));
    expect(rate).toHaveAccessibleDescription('The rate of fill 1 must be more than 0 and at most 1,000,000,000.');
    await user.clear(rate);
    await user.type(rate, '1.2650');
    await user.click(screen.getByRole('button', { name: 'Save position' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/positions/p8'));
    expect(calls.filter((c) => c.method === 'POST')[1]?.body).toMatchObject({ fills: [{ quantity: '25000', rate: '1.2650' }] });
  });
});

describe('PositionNew with a CFD or crypto', () => {
  it('takes a CFD’s currency and value per point, names the rate by them, and drops them for a stock', async () => {
    let attempts = 0;
    const { calls } = mockApi(
      ...lists,
      route('POST', '/api/positions', () => {
        attempts++;
        return attempts === 1
          ? {
              status: 400,
              body: { error: { code: 'VALIDATION_ERROR', message: 'quoteCurrency', details: [{ field: 'quoteCurrency', message: 'must be a three-letter ISO 4217 currency code such as USD or EUR' }] } },
            }
          : { status: 201, body: { position: { ...usdjpy, id: 'p9' } } };
      }),
    );
    const { router } = renderScreen(<PositionNew />);
    const user = userEvent.setup();
    await user.type(await screen.findByRole('combobox', { name: 'Symbol' }), 'GER40');
    expect(screen.queryByLabelText('Priced in')).toBeNull();
    await user.selectOptions(screen.getByLabelText('Asset type'), 'cfd');
    expect(screen.getByText(/Ticker, e\.g\. US500 or GER40/)).toBeInTheDocument();
    expect(screen.queryByLabelText('Quantity in')).toBeNull();
    // Blank: the account's currency, so the rate is 1.
    expect(screen.getByLabelText('Value of 1 USD in USD')).toHaveAccessibleDescription(/the rate is 1/);
    const priced = screen.getByLabelText('Priced in');
    await user.type(priced, 'XX');
    await user.type(screen.getByLabelText('Value per point'), '25');
    await user.type(screen.getByLabelText('Entry price'), '18000');
    await user.type(screen.getByLabelText('Quantity'), '2');
    await user.click(screen.getByRole('button', { name: 'Save position' }));
    await waitFor(() => expect(priced).toHaveAttribute('aria-invalid', 'true'));
    expect(priced).toHaveAccessibleDescription('Enter the currency the CFD is priced in as a three-letter code, such as USD or EUR.');

    await user.clear(priced);
    await user.type(priced, 'eur');
    expect(priced).toHaveValue('EUR');
    expect(screen.getByLabelText('Value of 1 EUR in USD')).toBeInTheDocument();
    expect(screen.getByLabelText('Value per point')).toHaveAccessibleDescription('What one point of price moves one contract, in EUR. Blank: 1.');
    await user.click(screen.getByRole('button', { name: 'Save position' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/positions/p9'));
    const body = calls.filter((c) => c.method === 'POST')[1]?.body;
    expect(body).toMatchObject({ assetType: 'cfd', symbol: 'GER40', quoteCurrency: 'EUR', multiplier: '25', fills: [{ quantity: '2' }] });
  });

  it('shows the rate only for forex, crypto and CFDs, and sends no CFD field for a stock', async () => {
    const { calls } = mockApi(...lists, route('POST', '/api/positions', () => ({ status: 201, body: { position: { ...usdjpy, id: 'p3' } } })));
    renderScreen(<PositionNew />);
    const user = userEvent.setup();
    await user.type(await screen.findByRole('combobox', { name: 'Symbol' }), 'BTCUSDT');
    const type = screen.getByLabelText('Asset type');
    const rateShown = () => screen.queryByLabelText(/^(Value of 1|Rate)/) !== null;
    for (const t of ['stock', 'option', 'future', 'future_option']) {
      await user.selectOptions(type, t);
      expect(rateShown(), t).toBe(false);
    }
    await user.selectOptions(type, 'crypto');
    expect(screen.getByText(/a perpetual as BTC\/USDT:PERP/)).toBeInTheDocument();
    expect(screen.getByLabelText('Value of 1 USDT in USD')).toBeInTheDocument();
    expect(screen.queryByLabelText('Quantity in')).toBeNull();
    await user.selectOptions(type, 'cfd');
    await user.type(screen.getByLabelText('Priced in'), 'EUR');
    await user.type(screen.getByLabelText('Value per point'), '25');
    await user.type(screen.getByLabelText('Value of 1 EUR in USD'), '1.08');
    await user.selectOptions(type, 'stock');
    expect(rateShown()).toBe(false);
    await user.type(screen.getByLabelText('Entry price'), '100');
    await user.type(screen.getByLabelText('Quantity'), '3');
    await user.click(screen.getByRole('button', { name: 'Save position' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST')).toBe(true));
    const body = calls.find((c) => c.method === 'POST')?.body as { fills: Array<Record<string, unknown>> };
    expect(body).toMatchObject({ assetType: 'stock', fills: [{ quantity: '3' }] });
    expect(body).not.toHaveProperty('quoteCurrency');
    expect(body).not.toHaveProperty('multiplier');
    expect(body.fills[0]).not.toHaveProperty('rate');
  });
});

describe('PositionPage with forex', () => {
  it('shows the P&L in the quote currency beside the account’s, and each fill’s rate, found or given', async () => {
    page({ ...usdjpy, fills: [{ ...entry, rate: '0.0066', rateGiven: true }, exit] });
    renderScreen(<PositionPage />, { path: '/positions/:positionId', at: '/positions/p1' });
    expect(await screen.findByTestId('quote-pnl')).toHaveTextContent('+100,000 JPY · +662.25 USD');
    expect(screen.getByTestId('net-pnl')).toHaveTextContent('$662.25');
    expect(screen.getByText(/Forex · prices in JPY, quantities in units of USD/)).toBeInTheDocument();
    expect(screen.queryByTestId('awaiting-rate')).toBeNull();
    const table = screen.getByRole('table');
    expect(within(table).getByRole('columnheader', { name: 'Rate' })).toBeInTheDocument();
    const rows = within(table).getAllByRole('row');
    expect(rows[1]).toHaveTextContent(/0\.0066\s*\(given\)/);
    expect(rows[2]).toHaveTextContent(/0\.006622516556\s*\(found\)/);
  });

  it('says what a position waiting for a rate lacks and what to do, with a link to the rate form', async () => {
    page(eurgbp);
    renderScreen(<PositionPage />, { path: '/positions/:positionId', at: '/positions/p2' });
    const note = await screen.findByTestId('awaiting-rate');
    expect(note).toHaveTextContent(/This trade's P&L is in GBP; there is no GBP → USD rate for Feb 13, 2025 yet, so it is left out of your totals\./);
    expect(note).toHaveTextContent(/or edit the exit fill below and give its rate \(the value of 1 GBP in USD\)/);
    expect(within(note).getByRole('link', { name: 'add a GBP/USD rate' })).toHaveAttribute('href', '/exchange-rates?base=GBP&quote=USD&date=2025-02-13');
    expect(screen.getByTestId('quote-pnl')).toHaveTextContent('+500.00 GBP · USD awaiting a rate');
    const exitRow = within(screen.getByRole('table')).getAllByRole('row')[2] as HTMLElement;
    expect(within(exitRow).getByText('awaiting rate')).toBeInTheDocument();
  });

  it('asks for the rate on the fill when no exchange rate can hold it (USDT), and for a fee coin’s rate', async () => {
    const usdt = { ...eurgbp, id: 'p3', symbol: 'BTC/USDT', assetType: 'crypto', baseCurrency: 'BTC', quoteCurrency: 'USDT', quoteGrossPnl: '100.0000', rateNeeded: 'USDT/USD' };
    page(usdt);
    const first = renderScreen(<PositionPage />, { path: '/positions/:positionId', at: '/positions/p3' });
    const note = await screen.findByTestId('awaiting-rate');
    expect(note).toHaveTextContent("This trade's P&L is in USDT; there is no USDT → USD rate for Feb 13, 2025 yet, so it is left out of your totals.");
    expect(note).toHaveTextContent('edit the exit fill below and give its rate (the value of 1 USDT in USD): exchange rates take three-letter codes only.');
    expect(within(note).queryByRole('link')).toBeNull();
    first.unmount();
    vi.unstubAllGlobals();

    // Every exit has its rate; an exit fee charged in BNB waits for BNB's.
    const bnb = { ...usdjpy, id: 'p4', symbol: 'BTC/USD', assetType: 'crypto', baseCurrency: 'BTC', quoteCurrency: 'USD', quoteGrossPnl: '100.0000', awaitingRate: true, rateNeeded: 'BNB/USD' };
    page(bnb);
    renderScreen(<PositionPage />, { path: '/positions/:positionId', at: '/positions/p4' });
    const fee = await screen.findByTestId('awaiting-rate');
    expect(fee).toHaveTextContent('A fee of this trade is in BNB; there is no BNB → USD rate yet, so it is left out of your totals.');
    expect(within(fee).getByRole('link', { name: 'add a BNB/USD rate' })).toHaveAttribute('href', '/exchange-rates?base=BNB&quote=USD');
  });

  it('edits a fill in units with its rate: blank lets the journal find it again', async () => {
    const { calls } = page(
      eurgbp,
      route('PATCH', '/api/positions/p2/fills/f2', () => ({ body: { position: { ...eurgbp, awaitingRate: false } } })),
    );
    renderScreen(<PositionPage />, { path: '/positions/:positionId', at: '/positions/p2' });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: /^Edit exit fill of/ }));
    const form = screen.getByRole('form', { name: 'Edit fill' });
    expect(within(form).getByLabelText('Quantity in')).toHaveValue('units');
    expect(within(form).getByLabelText('Quantity')).toHaveValue('100000');
    await user.type(within(form).getByLabelText('Value of 1 GBP in USD'), '1.2580');
    await user.click(within(form).getByRole('button', { name: 'Save fill' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'PATCH')).toBe(true));
    expect(calls.find((c) => c.method === 'PATCH')?.body).toMatchObject({ quantity: '100000', rate: '1.2580' });

    // The entry's rate was found: left blank, it is found again.
    await user.click(await screen.findByRole('button', { name: /^Edit entry fill of/ }));
    const again = screen.getByRole('form', { name: 'Edit fill' });
    expect(within(again).getByLabelText('Value of 1 GBP in USD')).toHaveValue('');
  });

  it('adds a fill in lots', async () => {
    const open = { ...usdjpy, status: 'open', closedAt: null, exitQuantity: '0', openQuantity: '100000', fills: [entry] };
    const { calls } = page(open, route('POST', '/api/positions/p1/fills', () => ({ status: 201, body: { position: usdjpy } })));
    renderScreen(<PositionPage />, { path: '/positions/:positionId', at: '/positions/p1' });
    const user = userEvent.setup();
    const form = await screen.findByRole('form', { name: 'Add fill' });
    await user.type(within(form).getByLabelText('Exit price'), '151');
    await user.selectOptions(within(form).getByLabelText('Quantity in'), 'micro');
    await user.type(within(form).getByLabelText('Quantity'), '100');
    await user.click(within(form).getByRole('button', { name: 'Add fill' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST')).toBe(true));
    const body = calls.find((c) => c.method === 'POST')?.body;
    expect(body).toMatchObject({ type: 'exit', price: '151', quantity: '100000' });
    expect(body).not.toHaveProperty('rate');
  });
});

describe('PositionPage with a CFD', () => {
  it('edits its currency and value per point, sending both with every save of the details', async () => {
    const cfd = { ...usdjpy, id: 'p5', symbol: 'GER40', assetType: 'cfd', baseCurrency: null, quoteCurrency: 'EUR', multiplier: 25, quoteGrossPnl: '250.0000', grossPnl: '270.0000', netPnl: '270.0000' };
    const { calls } = page(
      cfd,
      route('PATCH', '/api/positions/p5', () => ({ body: { position: { ...cfd, updatedAt: '2' } } })),
    );
    renderScreen(<PositionPage />, { path: '/positions/:positionId', at: '/positions/p5' });
    expect(await screen.findByText(/CFD · prices in EUR · value per point 25/)).toBeInTheDocument();
    expect(screen.getByTestId('quote-pnl')).toHaveTextContent('+250.00 EUR · +270.00 USD');
    const details = screen.getByRole('form', { name: 'Position details' });
    expect(within(details).getByLabelText('Priced in')).toHaveValue('EUR');
    expect(within(details).getByLabelText('Value per point')).toHaveValue('25');
    const user = userEvent.setup();
    await user.type(within(details).getByLabelText('Stop loss'), '17900');
    await user.click(within(details).getByRole('button', { name: 'Save details' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'PATCH')).toBe(true));
    expect(calls.find((c) => c.method === 'PATCH')?.body).toMatchObject({ assetType: 'cfd', stopLoss: '17900', multiplier: '25', quoteCurrency: 'EUR' });
  });
});

describe('PositionsList with forex', () => {
  it('shows the P&L in the quote currency under the account’s, and marks a position waiting for a rate', async () => {
    mockApi(...lists, route('GET', '/api/positions', () => ({ body: { items: [usdjpy, eurgbp], nextCursor: null } })));
    renderScreen(<PositionsList />, { path: '/positions', at: '/positions' });
    const row = (await screen.findByRole('link', { name: 'USD/JPY' })).closest('tr') as HTMLElement;
    expect(within(row).getByText('+100,000 JPY')).toHaveAttribute('title', 'Gross P&L in JPY, the currency of its prices');
    expect(within(row).queryByText('awaiting rate')).toBeNull();
    const waiting = screen.getByRole('link', { name: 'EUR/GBP' }).closest('tr') as HTMLElement;
    expect(within(waiting).getByText('awaiting rate')).toHaveAttribute('title', "Left out of your totals until there is a GBP/USD exchange rate of its exit's day.");
    expect(within(waiting).getByText('+500.00 GBP')).toBeInTheDocument();
  });
});
