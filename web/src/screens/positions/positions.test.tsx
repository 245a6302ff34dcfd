import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import PositionsList from './PositionsList';
import PositionNew, { fillInput } from './PositionNew';
import { Images, imageFiles } from './Images';
import { mockApi, renderScreen, route } from '../../test/render';

afterEach(() => vi.unstubAllGlobals());

const account = { id: 'a1', name: 'Swing', currency: 'USD', timezone: 'America/New_York', startingBalance: '0.0000', balance: '0.0000', defaultRiskPercent: null, brokerageId: null, archived: false, createdAt: '' };
const summary = (id: string, symbol: string) => ({
  id,
  accountId: 'a1',
  symbol,
  assetType: 'stock',
  underlying: null,
  optionExpiry: null,
  optionRight: null,
  optionStrike: null,
  multiplier: 1,
  side: 'long',
  status: 'closed',
  stopLoss: '95',
  targetPrice: null,
  openedAt: '2024-01-02T15:00:00Z',
  closedAt: '2024-01-03T15:00:00Z',
  entryQuantity: '10',
  exitQuantity: '10',
  openQuantity: '0',
  avgEntryPrice: '100',
  avgExitPrice: '110',
  grossPnl: '100.0000',
  fees: '2.0000',
  netPnl: '98.0000',
  initialRisk: '50.0000',
  rMultiple: '1.9600',
  tags: [],
  createdAt: '',
  updatedAt: '',
});
const lists = [
  route('GET', '/api/accounts', () => ({ body: { items: [account], nextCursor: null } })),
  route('GET', '/api/tags', () => ({ body: { items: [], nextCursor: null } })),
  route('GET', '/api/config', () => ({ body: { quoteLookup: true, billing: false, proPlan: false, email: false, imageStorage: false, registrationOpen: true } })),
];

describe('PositionsList', () => {
  it('passes the address filters to the API and pages with the cursor', async () => {
    const { calls } = mockApi(
      ...lists,
      route('GET', '/api/positions', (c) =>
        c.search.includes('cursor=next1') ? { body: { items: [summary('p2', 'MSFT')], nextCursor: null } } : { body: { items: [summary('p1', 'AAPL')], nextCursor: 'next1' } },
      ),
    );
    renderScreen(<PositionsList />, { path: '/positions', at: '/positions?status=closed&symbol=AAPL&from=2024-01-01' });
    expect(await screen.findByRole('link', { name: 'AAPL' })).toHaveAttribute('href', '/positions/p1');
    expect(screen.getByText('$98.00')).toBeInTheDocument();
    expect(screen.getByText('1.96R')).toBeInTheDocument();
    const first = new URLSearchParams(calls.find((c) => c.path === '/api/positions')?.search);
    expect(Object.fromEntries(first)).toEqual({ status: 'closed', symbol: 'AAPL', from: '2024-01-01', limit: '50' });
    await userEvent.setup().click(screen.getByRole('button', { name: 'Load more' }));
    expect(await screen.findByRole('link', { name: 'MSFT' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
  });
});

describe('PositionsList filters', () => {
  it('sends several values of a filter, and lists a calendar day by close date', async () => {
    const { calls } = mockApi(...lists, route('GET', '/api/positions', () => ({ body: { items: [summary('p1', 'AAPL')], nextCursor: null } })));
    renderScreen(<PositionsList />, { path: '/positions', at: '/positions?accountId=a1,a2&weekday=1&weekday=5&dateBy=closed&from=2024-01-03&to=2024-01-03&propFirm=true&phase=evaluation' });
    await screen.findByRole('link', { name: 'AAPL' });
    const query = new URLSearchParams(calls.find((c) => c.path === '/api/positions')?.search);
    expect(query.get('propFirm')).toBe('true');
    expect(query.getAll('phase')).toEqual(['evaluation']);
    expect(query.getAll('accountId')).toEqual(['a1', 'a2']);
    expect(query.getAll('weekday')).toEqual(['1', '5']);
    expect(query.get('dateBy')).toBe('closed');
    expect(screen.getByTestId('closed-day')).toHaveTextContent('Positions closed on');
    expect(screen.getByRole('link', { name: 'Open the day in the journal' })).toHaveAttribute('href', '/journal/2024-01-03');
    expect(screen.getByLabelText('Closed from')).toHaveValue('2024-01-03');
  });

  it('changes the address with each filter, and clears them all at once', async () => {
    const user = userEvent.setup();
    mockApi(...lists, route('GET', '/api/positions', () => ({ body: { items: [], nextCursor: null } })));
    const { router } = renderScreen(<PositionsList />, { path: '/positions', at: '/positions?status=open' });
    await screen.findByText('No positions match.');
    await user.selectOptions(screen.getByLabelText('Side'), 'short');
    await user.click(screen.getByText('Every day'));
    await user.click(screen.getByRole('checkbox', { name: 'Tuesday' }));
    await user.click(screen.getByRole('checkbox', { name: 'Friday' }));
    // The open list closes with Escape; its button says what is chosen.
    const list = screen.getByText('Tuesday, Friday').closest('details');
    expect(list).toHaveAttribute('open');
    await user.keyboard('{Escape}');
    expect(list).not.toHaveAttribute('open');
    expect(router.state.location.search).toBe('?weekday=2%2C5&side=short&status=open');
    // Prop-firm accounts, and their plans' phases.
    await user.selectOptions(screen.getByLabelText('Prop-firm accounts'), 'Only accounts with a prop-firm plan');
    await user.click(screen.getByText('Any phase, or no plan'));
    await user.click(screen.getByRole('checkbox', { name: 'Funded' }));
    await user.keyboard('{Escape}');
    expect(router.state.location.search).toBe('?weekday=2%2C5&phase=funded&side=short&status=open&propFirm=true');
    await user.click(screen.getByRole('button', { name: 'Clear filters' }));
    expect(router.state.location.search).toBe('');
    // Each change was a step in the history: back brings the filter again.
    await act(() => router.navigate(-1));
    expect(router.state.location.search).toBe('?weekday=2%2C5&phase=funded&side=short&status=open&propFirm=true');
  });
});

describe('PositionNew', () => {
  it('turns fill rows into the API body, leaving blank fees to the fee schedule', () => {
    const local = '2024-01-02T10:00:00';
    expect(fillInput({ type: 'entry', price: ' 100 ', quantity: '10', fees: '', filledAt: local, unit: 'standard', rate: '' })).toEqual({
      type: 'entry',
      price: '100',
      quantity: '10',
      filledAt: new Date(local).toISOString(),
    });
    expect(fillInput({ type: 'exit', price: '110', quantity: '10', fees: '1', filledAt: local, unit: 'standard', rate: '' }).fees).toBe('1');
  });

  it('suggests symbols as the user types and shows the delayed quote when configured', async () => {
    const { calls } = mockApi(
      ...lists,
      route('GET', '/api/symbols/search', () => ({ body: { items: [{ ticker: 'AAPL', name: 'Apple Inc.', exchange: 'Nasdaq', cik: 320193 }] } })),
      route('GET', '/api/symbols/AAPL/quote', () => ({ body: { symbol: 'AAPL', price: '261.74', currency: 'USD', asOf: '2024-01-02T20:00:00Z', delayed: true } })),
    );
    renderScreen(<PositionNew />);
    const user = userEvent.setup();
    await user.type(await screen.findByRole('combobox', { name: 'Symbol' }), 'aap');
    const option = await screen.findByRole('option', { name: /AAPL Apple Inc\./ });
    expect(new URLSearchParams(calls.find((c) => c.path === '/api/symbols/search')?.search).get('q')).toMatch(/^AAP/);
    await user.keyboard('{ArrowDown}{Enter}');
    expect(screen.getByRole('combobox', { name: 'Symbol' })).toHaveValue('AAPL');
    expect(option).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Get delayed quote' }));
    expect(await screen.findByText(/\$261\.74 \(delayed/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Use as entry price' }));
    expect(screen.getByLabelText('Entry price')).toHaveValue('261.74');
  });

  it('shows the API error on the fill that caused it', async () => {
    mockApi(
      ...lists,
      route('POST', '/api/positions', () => ({ status: 400, body: { error: { code: 'VALIDATION_ERROR', message: 'x', details: [{ field: 'fills[0].quantity', message: 'must be greater than 0' }] } } })),
    );
    renderScreen(<PositionNew />);
    const user = userEvent.setup();
    await user.type(await screen.findByRole('combobox', { name: 'Symbol' }), 'AAPL');
    await user.type(screen.getByLabelText('Entry price'), '100');
    await user.type(screen.getByLabelText('Quantity'), '0');
    await user.click(screen.getByRole('button', { name: 'Save position' }));
    await waitFor(() => expect(screen.getByLabelText('Quantity')).toHaveAttribute('aria-invalid', 'true'));
  });
});

describe('Images', () => {
  it('keeps only PNG, JPEG and WebP files', () => {
    const png = new File(['x'], 'a.png', { type: 'image/png' });
    const gif = new File(['x'], 'a.gif', { type: 'image/gif' });
    expect(imageFiles([png, gif])).toEqual([png]);
  });

  it('uploads a pasted screenshot as multipart and shows it from the API', async () => {
    let uploaded = false;
    const { calls } = mockApi(
      route('GET', '/api/positions/p1/images', () => ({
        body: { items: uploaded ? [{ id: 'i1', contentType: 'image/png', sizeBytes: 1, caption: '', url: '/api/positions/p1/images/i1', createdAt: '' }] : [], nextCursor: null },
      })),
      route('POST', '/api/positions/p1/images', () => {
        uploaded = true;
        return { status: 201, body: { image: {} } };
      }),
    );
    renderScreen(<Images positionId="p1" />);
    await screen.findByRole('heading', { name: 'Screenshots' });
    const file = new File([new Uint8Array([137, 80, 78, 71])], 'shot.png', { type: 'image/png' });
    fireEvent.paste(document.body, { clipboardData: { items: [{ kind: 'file', getAsFile: () => file }] } });
    expect(await screen.findByRole('img', { name: 'Screenshot 1' })).toHaveAttribute('src', '/api/positions/p1/images/i1');
    expect(calls.some((c) => c.method === 'POST' && c.path === '/api/positions/p1/images')).toBe(true);
  });
});
