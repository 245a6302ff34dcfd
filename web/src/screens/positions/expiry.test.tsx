import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import PositionPage from './PositionPage';
import PositionsList from './PositionsList';
import { awaitingExpiryText } from './expiry';
import { mockApi, renderScreen, route } from '../../test/render';

afterEach(() => vi.unstubAllGlobals());

const account = { id: 'a1', name: 'Options', currency: 'USD', timezone: 'America/New_York', startingBalance: '0.0000', balance: '0.0000', defaultRiskPercent: null, brokerageId: null, archived: false, createdAt: '' };
const entry = { id: 'f1', type: 'entry', price: '3.00', quantity: '2', fees: '1.3000', feeEstimated: false, filledAt: '2025-03-17T14:00:00Z', realizedPnl: null };
// A call held past its expiry day that the option-expiry job has not closed yet.
const expired = {
  id: 'o1',
  accountId: 'a1',
  symbol: 'AAPL  250321C00200000',
  assetType: 'option',
  underlying: 'AAPL',
  optionExpiry: '2025-03-21',
  optionRight: 'C',
  optionStrike: '200',
  contractMonth: null,
  multiplier: 100,
  side: 'long',
  status: 'open',
  stopLoss: null,
  targetPrice: null,
  openedAt: '2025-03-17T14:00:00Z',
  closedAt: null,
  entryQuantity: '2',
  exitQuantity: '0',
  openQuantity: '2',
  avgEntryPrice: '3',
  avgExitPrice: null,
  grossPnl: '0.0000',
  fees: '1.3000',
  netPnl: '-1.3000',
  initialRisk: null,
  rMultiple: null,
  reversalOf: null,
  strategyId: null,
  tags: [],
  createdAt: '',
  updatedAt: '1',
  awaitingExpiry: true,
};
const later = { ...expired, id: 'o2', symbol: 'AAPL  270618C00200000', optionExpiry: '2027-06-18', awaitingExpiry: false };
const full = (p: typeof expired) => ({
  ...p,
  notes: '',
  fills: [entry],
  imageCount: 0,
  reversedInto: null,
  maePrice: null,
  mfePrice: null,
  review: { holdSeconds: null, plannedRR: null, mae: null, mfe: null },
});
const lists = [
  route('GET', '/api/accounts', () => ({ body: { items: [account], nextCursor: null } })),
  route('GET', '/api/tags', () => ({ body: { items: [], nextCursor: null } })),
  route('GET', '/api/config', () => ({ body: { quoteLookup: false, billing: false, proPlan: false, email: false, imageStorage: false, registrationOpen: true } })),
];

describe('an option awaiting expiry', () => {
  it('says on its page that the journal closes it at 0 soon, or that the trader records an assignment', async () => {
    mockApi(
      ...lists,
      route('GET', '/api/positions/o1/images', () => ({ body: { items: [], nextCursor: null } })),
      route('GET', '/api/positions/o1/playbook', () => ({ body: { playbookId: null, criterionIds: [] } })),
      route('GET', '/api/positions/o1', () => ({ body: { position: full(expired) } })),
    );
    renderScreen(<PositionPage />, { path: '/positions/:positionId', at: '/positions/o1' });
    expect(await screen.findByTestId('awaiting-expiry')).toHaveTextContent(
      'Expired – the journal closes it at 0 within 15 minutes; if it was exercised or assigned, record that instead.',
    );
    expect(screen.getByRole('heading', { name: 'Exercise or assignment' })).toBeInTheDocument();
  });

  it('says nothing of the kind for an option still trading', async () => {
    mockApi(
      ...lists,
      route('GET', '/api/positions/o2/images', () => ({ body: { items: [], nextCursor: null } })),
      route('GET', '/api/positions/o2/playbook', () => ({ body: { playbookId: null, criterionIds: [] } })),
      route('GET', '/api/positions/o2', () => ({ body: { position: full(later) } })),
    );
    renderScreen(<PositionPage />, { path: '/positions/:positionId', at: '/positions/o2' });
    expect(await screen.findByRole('heading', { name: 'Exercise or assignment' })).toBeInTheDocument();
    expect(screen.queryByTestId('awaiting-expiry')).not.toBeInTheDocument();
  });

  it('carries a badge in the positions list', async () => {
    mockApi(...lists, route('GET', '/api/positions', () => ({ body: { items: [expired, later], nextCursor: null } })));
    renderScreen(<PositionsList />, { path: '/positions', at: '/positions' });
    // An accessible name collapses the OCC symbol's spaces.
    const link = (p: typeof expired) => screen.findByRole('link', { name: p.symbol.replace(/ +/g, ' ') });
    const row = (await link(expired)).closest('tr') as HTMLElement;
    const badge = within(row).getByText('expired');
    expect(badge).toHaveAttribute('title', awaitingExpiryText);
    const other = (await link(later)).closest('tr') as HTMLElement;
    expect(within(other).queryByText('expired')).not.toBeInTheDocument();
  });
});
