import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import CsvImport from '../CsvImport';
import { mockApi, renderScreen, route } from '../../test/render';

afterEach(() => vi.unstubAllGlobals());

const account = { id: 'a1', name: 'Options', currency: 'USD', timezone: 'America/New_York', startingBalance: '0.0000', balance: '0.0000', defaultRiskPercent: null, brokerageId: null, archived: false, createdAt: '' };
const presets = {
  items: [{ id: 'generic', name: 'Generic', description: 'd', howToExport: 'h', rowShape: 'execution', delimiter: ',', dateFormat: 'iso', numberFormat: 'us', columns: {}, required: [] }],
  fields: { execution: [], 'round-trip': [] },
  limits: { maxFileBytes: 10485760, maxRows: 100000 },
};
const summary = { rows: 5, skippedRows: 0, fills: 5, importFills: 5, positions: 5, newPositions: 5, continuedPositions: 0, openPositions: 5, duplicateFills: 0, duplicatesInFile: 0, currency: 'USD', grossPnl: '0.0000', fees: '0.0000', netPnl: '0.0000' };
const leg = (symbol: string, side: string, price: string) => ({
  accountId: 'a1',
  existingPositionId: null,
  reversalOf: null,
  symbol,
  assetType: 'option',
  multiplier: 100,
  side,
  status: 'open',
  openedAt: '2025-05-01T14:15:00Z',
  closedAt: null,
  fills: 1,
  rows: [2],
  entryQuantity: '1',
  exitQuantity: '0',
  openQuantity: '1',
  avgEntryPrice: price,
  avgExitPrice: null,
  grossPnl: '0.0000',
  fees: '0.0000',
  netPnl: '0.0000',
});
const preview = {
  token: 't1',
  expiresAt: '2025-05-01T15:00:00Z',
  canCommit: true,
  accountId: 'a1',
  summary,
  positions: [
    leg('SPY   270618P00095000', 'short', '2.00'),
    leg('SPY   270618P00090000', 'long', '1.00'),
    leg('SPY   270618C00105000', 'short', '2.00'),
    leg('SPY   270618C00110000', 'long', '1.00'),
    leg('SPY   270618P00080000', 'long', '0.50'),
  ],
  strategies: [{ positions: [0, 1, 2, 3], label: 'Short iron condor' }],
  errors: [],
  warnings: [],
  errorCount: 0,
  warningCount: 0,
  warningGroups: [],
  detectedPresetId: null,
  presetId: 'generic',
  canImportPartial: false,
  partialRowsLeftOut: 0,
  fileAccounts: [],
  accountMap: null,
};
const committed = { accountId: 'a1', positionsCreated: 5, positionsContinued: 0, strategiesCreated: 1, fillsCreated: 5, duplicatesSkipped: 0, positionIds: [], continuedPositionIds: [], balance: '0.0000', rowsLeftOut: 0, accounts: [] };

async function previewed() {
  const api = mockApi(
    route('GET', '/api/accounts', () => ({ body: { items: [account], nextCursor: null } })),
    route('GET', '/api/csv-import/presets', () => ({ body: presets })),
    route('GET', '/api/csv-import/mappings', () => ({ body: { items: [] } })),
    route('POST', '/api/csv-import/preview', () => ({ body: preview })),
    route('POST', '/api/calculator/strategy', () => ({ body: { name: 'custom', label: 'Custom: 3 legs', netDebit: '-300.00' } })),
    route('POST', '/api/csv-import/commit', () => ({ status: 201, body: { import: committed } })),
  );
  renderScreen(<CsvImport />, { path: '/import', at: '/import' });
  const user = userEvent.setup();
  await user.upload(await screen.findByLabelText('CSV file'), new File(['Date,Symbol\n'], 'f.csv', { type: 'text/csv' }));
  await user.click(screen.getByRole('button', { name: 'Preview import' }));
  const strategies = await screen.findByRole('region', { name: 'Strategies' });
  return { api, user, strategies };
}

const commitBody = (api: Awaited<ReturnType<typeof previewed>>['api']) => api.calls.find((c) => c.path === '/api/csv-import/commit')?.body as Record<string, unknown> | undefined;

describe('StrategyGroups in the import preview', () => {
  it('commits the proposal as it is without a grouping of its own', async () => {
    const { api, user, strategies } = await previewed();
    expect(within(strategies).getByRole('group', { name: 'Strategy 1' })).toHaveTextContent(/Short iron condor on SPY, 4 legs/);
    await user.click(screen.getByRole('button', { name: 'Import' }));
    await screen.findByText(/grouped as 1 strategy/);
    expect(commitBody(api)).not.toHaveProperty('strategies');
  });

  it('takes a leg out, names the rest with the calculator, and commits that grouping', async () => {
    const { api, user, strategies } = await previewed();
    await user.click(within(strategies).getByRole('button', { name: 'Take long SPY 270618C00110000 · 1 @ 1.00 out of this strategy' }));
    const group = within(strategies).getByRole('group', { name: 'Strategy 1' });
    await within(group).findByText('Custom: 3 legs');
    expect(group).toHaveTextContent(/3 legs/);
    const asked = api.calls.find((c) => c.path === '/api/calculator/strategy')?.body as { legs: { symbol: string }[] };
    expect(asked.legs.map((l) => l.symbol)).toEqual(['SPY   270618P00095000', 'SPY   270618P00090000', 'SPY   270618C00105000']);
    await user.click(screen.getByRole('button', { name: 'Import' }));
    await waitFor(() => expect(commitBody(api)?.strategies).toEqual([[0, 1, 2]]));
  });

  it('merges ticked legs, refuses one leg in words, and ungroups', async () => {
    const { api, user, strategies } = await previewed();
    const pick = within(strategies).getByRole('group', { name: 'Legs to group' });
    await user.click(within(pick).getByLabelText(/long SPY 270618P00080000/));
    await user.click(within(strategies).getByRole('button', { name: 'Group as one strategy' }));
    expect(within(strategies).getByRole('alert')).toHaveTextContent('Tick two legs or more to group them as one strategy.');
    await user.click(within(pick).getByLabelText(/short SPY 270618P00095000 · 1 @ 2.00 \(in strategy 1\)/));
    await user.click(within(pick).getByLabelText(/long SPY 270618P00090000/));
    await user.click(within(strategies).getByRole('button', { name: 'Group as one strategy' }));
    expect(within(strategies).queryByRole('alert')).toBeNull();
    // The condor keeps its calls; the puts and the lone put are a strategy of their own.
    expect(within(strategies).getByRole('group', { name: 'Strategy 1' })).toHaveTextContent(/2 legs/);
    expect(within(strategies).getByRole('group', { name: 'Strategy 2' })).toHaveTextContent(/3 legs/);
    await user.click(within(within(strategies).getByRole('group', { name: 'Strategy 1' })).getByRole('button', { name: 'Ungroup' }));
    await user.click(screen.getByRole('button', { name: 'Import' }));
    await waitFor(() => expect(commitBody(api)?.strategies).toEqual([[0, 1, 4]]));
  });

  it('ungroups everything: the commit makes no strategy', async () => {
    const { api, user, strategies } = await previewed();
    await user.click(within(strategies).getByRole('button', { name: 'Ungroup' }));
    expect(strategies).toHaveTextContent('No strategies: every leg stays a position of its own.');
    await user.click(within(strategies).getByRole('button', { name: 'Back to the proposed strategies' }));
    expect(within(strategies).getByRole('group', { name: 'Strategy 1' })).toBeInTheDocument();
    await user.click(within(strategies).getByRole('button', { name: 'Ungroup' }));
    await user.click(screen.getByRole('button', { name: 'Import' }));
    await waitFor(() => expect(commitBody(api)?.strategies).toEqual([]));
  });
});
