import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import PositionNew from './PositionNew';
import PositionPage from './PositionPage';
import PositionsList from './PositionsList';
import CsvImport from '../CsvImport';
import { contractLabel, contractMonthText, contractText, plainNumber } from './futures';
import { mockApi, renderScreen, route } from '../../test/render';

afterEach(() => vi.unstubAllGlobals());

const account = { id: 'a1', name: 'Futures', currency: 'USD', timezone: 'America/Chicago', startingBalance: '0.0000', balance: '0.0000', defaultRiskPercent: null, brokerageId: null, archived: false, createdAt: '' };
const lists = [
  route('GET', '/api/accounts', () => ({ body: { items: [account], nextCursor: null } })),
  route('GET', '/api/tags', () => ({ body: { items: [], nextCursor: null } })),
  route('GET', '/api/config', () => ({ body: { quoteLookup: false, billing: false, proPlan: false, email: false, imageStorage: false, assistant: false, registrationOpen: true } })),
];
const future = {
  id: 'p1',
  accountId: 'a1',
  symbol: 'MYMZ24',
  assetType: 'future',
  underlying: 'MYM',
  optionExpiry: null,
  optionRight: null,
  optionStrike: null,
  contractMonth: '2024-12',
  multiplier: 0.5,
  side: 'long',
  status: 'closed',
  stopLoss: null,
  targetPrice: null,
  openedAt: '2024-11-01T15:00:00Z',
  closedAt: '2024-11-01T16:00:00Z',
  entryQuantity: '2',
  exitQuantity: '2',
  openQuantity: '0',
  avgEntryPrice: '42000',
  avgExitPrice: '42100',
  grossPnl: '100.0000',
  fees: '0.0000',
  netPnl: '100.0000',
  initialRisk: null,
  rMultiple: null,
  tags: [],
  notes: '',
  imageCount: 0,
  maePrice: null,
  mfePrice: null,
  review: { holdSeconds: null, plannedRR: null, mae: null, mfe: null },
  fills: [],
  createdAt: '',
  updatedAt: '1',
};

const futureOption = {
  symbol: './ESZ24 241220C5000',
  assetType: 'future_option' as const,
  underlying: 'ES',
  optionExpiry: '2024-12-20',
  optionRight: 'C' as 'C' | 'P',
  optionStrike: '5000',
  contractMonth: '2024-12',
  multiplier: 50,
};

describe('futures helpers', () => {
  it('writes point values without exponent or trailing zeros', () => {
    expect(plainNumber(50)).toBe('50');
    expect(plainNumber(0.5)).toBe('0.5');
    expect(plainNumber(12500000)).toBe('12500000');
    expect(plainNumber(1e-8)).toBe('0.00000001');
  });

  it('names the contract by root and month', () => {
    expect(contractMonthText('2024-12')).toBe('Dec 2024');
    expect(contractText(future as Parameters<typeof contractText>[0])).toBe('MYM Dec 2024 · ×0.5');
    expect(contractText({ assetType: 'stock', underlying: null, contractMonth: null, multiplier: 1, optionRight: null, optionStrike: null })).toBe('');
  });

  it('names a futures option by its future, strike and right', () => {
    expect(contractLabel(futureOption)).toBe('ES Dec 2024 5000 call');
    expect(contractText(futureOption)).toBe('ES Dec 2024 5000 call · ×50');
    expect(contractLabel({ ...futureOption, optionRight: 'P', optionStrike: '4800' })).toBe('ES Dec 2024 4800 put');
  });
});

describe('PositionNew with a futures option', () => {
  it('offers the asset type with its hint and point value, and sends the symbol as typed', async () => {
    const { calls } = mockApi(...lists, route('POST', '/api/positions', () => ({ status: 201, body: { position: { ...future, ...futureOption, id: 'p7' } } })));
    const { router } = renderScreen(<PositionNew />);
    const user = userEvent.setup();
    await user.type(await screen.findByRole('combobox', { name: 'Symbol' }), '/ESZ4 C5000');
    await user.selectOptions(screen.getByLabelText('Asset type'), 'future_option');
    expect(screen.getByText(/Future, expiry \(YYMMDD\), C or P and strike/)).toBeInTheDocument();
    expect(screen.getByLabelText('Multiplier (point value)')).toBeInTheDocument();
    await user.type(screen.getByLabelText('Entry price'), '50.25');
    await user.type(screen.getByLabelText('Quantity'), '1');
    await user.click(screen.getByRole('button', { name: 'Save position' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/positions/p7'));
    const body = calls.find((c) => c.method === 'POST')?.body;
    expect(body).toMatchObject({ assetType: 'future_option', symbol: '/ESZ4 C5000' });
    expect(body).not.toHaveProperty('multiplier');
  });
});

describe('PositionNew with a future', () => {
  it('offers the multiplier only for futures, sends it, and shows the API asking for it for an unknown root', async () => {
    let attempts = 0;
    const { calls } = mockApi(
      ...lists,
      route('POST', '/api/positions', () => {
        attempts++;
        return attempts === 1
          ? {
              status: 400,
              body: {
                error: {
                  code: 'VALIDATION_ERROR',
                  message: 'multiplier is required',
                  details: [{ field: 'multiplier', message: 'is required for a future of root XYZ, which has no built-in point value' }],
                },
              },
            }
          : { status: 201, body: { position: { ...future, id: 'p9' } } };
      }),
    );
    const { router } = renderScreen(<PositionNew />);
    const user = userEvent.setup();
    await user.type(await screen.findByRole('combobox', { name: 'Symbol' }), 'XYZZ24');
    expect(screen.queryByLabelText('Multiplier (point value)')).toBeNull();
    await user.selectOptions(screen.getByLabelText('Asset type'), 'future');
    expect(screen.getByText(/Contract symbol, e\.g\. ESZ24/)).toBeInTheDocument();
    await user.type(screen.getByLabelText('Entry price'), '100');
    await user.type(screen.getByLabelText('Quantity'), '1');
    await user.click(screen.getByRole('button', { name: 'Save position' }));
    const field = screen.getByLabelText('Multiplier (point value)');
    await waitFor(() => expect(field).toHaveAttribute('aria-invalid', 'true'));
    expect(field).toHaveAccessibleDescription(/futures of root XYZ have no built-in point value/);
    expect(calls.find((c) => c.method === 'POST')?.body).toMatchObject({ assetType: 'future', symbol: 'XYZZ24' });
    expect(calls.find((c) => c.method === 'POST')?.body).not.toHaveProperty('multiplier');

    await user.type(field, '0.5');
    await user.click(screen.getByRole('button', { name: 'Save position' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/positions/p9'));
    expect(calls.filter((c) => c.method === 'POST')[1]?.body).toMatchObject({ assetType: 'future', multiplier: '0.5' });
  });

  it('does not send a multiplier for a stock even if one was typed for a future', async () => {
    const { calls } = mockApi(...lists, route('POST', '/api/positions', () => ({ status: 201, body: { position: { ...future, id: 'p2' } } })));
    renderScreen(<PositionNew />);
    const user = userEvent.setup();
    await user.type(await screen.findByRole('combobox', { name: 'Symbol' }), 'AAPL');
    await user.selectOptions(screen.getByLabelText('Asset type'), 'future');
    await user.type(screen.getByLabelText('Multiplier (point value)'), '50');
    await user.selectOptions(screen.getByLabelText('Asset type'), 'stock');
    await user.type(screen.getByLabelText('Entry price'), '100');
    await user.type(screen.getByLabelText('Quantity'), '1');
    await user.click(screen.getByRole('button', { name: 'Save position' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST')).toBe(true));
    expect(calls.find((c) => c.method === 'POST')?.body).not.toHaveProperty('multiplier');
  });
});

describe('PositionPage with a future', () => {
  it('shows the contract and point value, and patches the multiplier only when changed', async () => {
    const { calls } = mockApi(
      ...lists,
      route('GET', '/api/positions/p1/images', () => ({ body: { items: [], nextCursor: null } })),
      route('GET', '/api/positions/p1', () => ({ body: { position: future } })),
      route('PATCH', '/api/positions/p1', (c) => {
        const given = (c.body as { multiplier?: string }).multiplier;
        return { body: { position: { ...future, multiplier: given ? Number(given) : future.multiplier, updatedAt: String(Math.random()) } } };
      }),
    );
    renderScreen(<PositionPage />, { path: '/positions/:positionId', at: '/positions/p1' });
    expect(await screen.findByText(/MYM Dec 2024 · ×0\.5/)).toBeInTheDocument();
    const details = () => screen.getByRole('form', { name: 'Position details' });
    expect(within(details()).getByLabelText('Multiplier (point value)')).toHaveValue('0.5');
    const user = userEvent.setup();
    const before = details();
    await user.click(within(details()).getByRole('button', { name: 'Save details' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'PATCH')).toBe(true));
    expect(calls.find((c) => c.method === 'PATCH')?.body).not.toHaveProperty('multiplier');

    // The form shows the saved position.
    expect(await within(details()).findByRole('status')).toHaveTextContent('Saved.');
    expect(details()).toBe(before);
    const field = within(details()).getByLabelText('Multiplier (point value)');
    await user.clear(field);
    await user.type(field, '5');
    await user.click(within(details()).getByRole('button', { name: 'Save details' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'PATCH')).toHaveLength(2));
    expect(calls.filter((c) => c.method === 'PATCH')[1]?.body).toMatchObject({ assetType: 'future', multiplier: '5' });
    expect(await screen.findByText(/MYM Dec 2024 · ×5$/)).toBeInTheDocument();
  });
});

describe('PositionsList with a future', () => {
  it('shows the contract and multiplier under the symbol', async () => {
    mockApi(...lists, route('GET', '/api/positions', () => ({ body: { items: [future], nextCursor: null } })));
    renderScreen(<PositionsList />, { path: '/positions', at: '/positions' });
    const row = (await screen.findByRole('link', { name: 'MYMZ24' })).closest('tr');
    expect(row).not.toBeNull();
    expect(within(row as HTMLElement).getByText('MYM Dec 2024 · ×0.5')).toBeInTheDocument();
  });
});

describe('CsvImport with futures', () => {
  const presets = {
    items: [{ id: 'generic', name: 'Generic', description: 'd', howToExport: 'h', rowShape: 'execution', delimiter: ',', dateFormat: 'iso', numberFormat: 'us', columns: {}, required: [] }],
    fields: { execution: [], 'round-trip': [] },
    limits: { maxFileBytes: 10485760, maxRows: 100000 },
  };
  const summary = { rows: 3, skippedRows: 0, fills: 2, importFills: 2, positions: 1, newPositions: 1, continuedPositions: 0, openPositions: 0, duplicateFills: 0, duplicatesInFile: 0, currency: 'USD', grossPnl: '25.0000', fees: '0.0000', netPnl: '25.0000' };
  const proposed = {
    existingPositionId: null,
    symbol: 'MESZ24',
    assetType: 'future',
    multiplier: 5,
    side: 'long',
    status: 'closed',
    openedAt: '2024-11-01T15:00:00Z',
    closedAt: '2024-11-01T16:00:00Z',
    fills: 2,
    rows: [2, 3],
    entryQuantity: '1',
    exitQuantity: '1',
    openQuantity: '0',
    avgEntryPrice: '6000',
    avgExitPrice: '6005',
    grossPnl: '25.0000',
    fees: '0.0000',
    netPnl: '25.0000',
  };
  const problem = { row: 4, column: 2, columnName: 'Symbol', field: 'symbol', code: 'UNKNOWN_POINT_VALUE', message: '"XYZZ24": the futures root XYZ has no built-in point value' };

  it('shows the multiplier of previewed positions and explains a futures root without a point value', async () => {
    mockApi(
      ...lists,
      route('GET', '/api/csv-import/presets', () => ({ body: presets })),
      route('POST', '/api/csv-import/preview', () => ({
        body: { token: null, expiresAt: null, canCommit: false, accountId: 'a1', summary, positions: [proposed], strategies: [], errors: [problem], warnings: [], errorCount: 1, warningCount: 0 },
      })),
    );
    renderScreen(<CsvImport />, { path: '/import', at: '/import' });
    const user = userEvent.setup();
    await user.upload(await screen.findByLabelText('CSV file'), new File(['Date,Symbol\n'], 'f.csv', { type: 'text/csv' }));
    await user.click(screen.getByRole('button', { name: 'Preview import' }));
    const errors = await screen.findByRole('region', { name: 'Errors' });
    // In words, not the code.
    expect(within(errors).getByText('No point value for this futures root')).toBeInTheDocument();
    expect(within(errors).queryByText('UNKNOWN_POINT_VALUE')).toBeNull();
    const note = screen.getByRole('note');
    expect(note).toHaveTextContent(/Futures without a built-in point value \(rows 4\)/);
    expect(within(note).getByRole('link', { name: 'New position' })).toHaveAttribute('href', '/positions/new');
    const row = screen.getByRole('rowheader', { name: 'MESZ24' }).closest('tr') as HTMLElement;
    expect(within(row).getByText('×5')).toBeInTheDocument();
  });
});
