import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Link } from 'react-router';
import PositionPage from './PositionPage';
import { mockApi, renderScreen, route } from '../../test/render';

afterEach(() => vi.unstubAllGlobals());

const account = { id: 'a1', name: 'Swing', currency: 'USD', timezone: 'America/New_York', startingBalance: '0.0000', balance: '0.0000', defaultRiskPercent: null, brokerageId: null, archived: false, createdAt: '' };
const entry = { id: 'f1', type: 'entry', price: '100', quantity: '10', fees: '1.0000', feeEstimated: false, filledAt: '2024-01-02T15:00:00Z', realizedPnl: null };
const exit = { id: 'f2', type: 'exit', price: '110', quantity: '10', fees: '1.0000', feeEstimated: true, filledAt: '2024-01-03T15:00:00Z', realizedPnl: '100.0000' };
const base = {
  id: 'p1',
  accountId: 'a1',
  symbol: 'AAPL',
  assetType: 'stock',
  underlying: null,
  optionExpiry: null,
  optionRight: null,
  optionStrike: null,
  multiplier: 1,
  side: 'long',
  stopLoss: '95',
  targetPrice: null,
  openedAt: '2024-01-02T15:00:00Z',
  entryQuantity: '10',
  avgEntryPrice: '100',
  fees: '1.0000',
  initialRisk: '50.0000',
  tags: [],
  notes: '',
  imageCount: 0,
  maePrice: null,
  mfePrice: null,
  review: { holdSeconds: null, plannedRR: null, mae: null, mfe: null },
  createdAt: '',
};
const open = { ...base, status: 'open', closedAt: null, exitQuantity: '0', openQuantity: '10', avgExitPrice: null, grossPnl: '0.0000', netPnl: '-1.0000', rMultiple: null, fills: [entry], updatedAt: '1' };
const closed = { ...base, status: 'closed', closedAt: '2024-01-03T15:00:00Z', exitQuantity: '10', openQuantity: '0', avgExitPrice: '110', grossPnl: '100.0000', fees: '2.0000', netPnl: '98.0000', rMultiple: '1.9600', fills: [entry, exit], updatedAt: '2' };

function api() {
  let position: typeof open | typeof closed = open;
  return mockApi(
    route('GET', '/api/accounts', () => ({ body: { items: [account], nextCursor: null } })),
    route('GET', '/api/tags', () => ({ body: { items: [], nextCursor: null } })),
    route('GET', '/api/config', () => ({ body: { quoteLookup: false, billing: false, proPlan: false, email: false, imageStorage: false, registrationOpen: true } })),
    route('GET', '/api/positions/p1/images', () => ({ body: { items: [], nextCursor: null } })),
    route('GET', '/api/positions/p1', () => ({ body: { position } })),
    route('POST', '/api/positions/p1/fills', () => {
      position = closed;
      return { status: 201, body: { position } };
    }),
    route('DELETE', '/api/positions/p1/fills/f2', () => {
      position = open;
      return { body: { position } };
    }),
  );
}

describe('PositionPage', () => {
  it('adds an exit fill and shows the figures the API computed', async () => {
    const { calls } = api();
    renderScreen(<PositionPage />, { path: '/positions/:positionId', at: '/positions/p1' });
    expect(await screen.findByTestId('net-pnl')).toHaveTextContent('-$1.00');
    const form = screen.getByRole('form', { name: 'Add fill' });
    expect(within(form).getByLabelText('Fill type')).toHaveValue('exit');
    const user = userEvent.setup();
    await user.type(within(form).getByLabelText('Exit price'), '110');
    await user.type(within(form).getByLabelText('Quantity'), '10');
    await user.click(within(form).getByRole('button', { name: 'Add fill' }));
    await waitFor(() => expect(screen.getByTestId('net-pnl')).toHaveTextContent('$98.00'));
    expect(screen.getByText('1.96R')).toBeInTheDocument();
    expect(screen.getByText('(est.)')).toBeInTheDocument();
    const post = calls.find((c) => c.method === 'POST');
    expect(post?.body).toMatchObject({ type: 'exit', price: '110', quantity: '10' });
    expect(post?.body).not.toHaveProperty('fees');
  });

  it('deletes a fill after confirmation', async () => {
    const { calls } = api();
    renderScreen(<PositionPage />, { path: '/positions/:positionId', at: '/positions/p1' });
    const user = userEvent.setup();
    const form = await screen.findByRole('form', { name: 'Add fill' });
    await user.type(within(form).getByLabelText('Exit price'), '110');
    await user.type(within(form).getByLabelText('Quantity'), '10');
    await user.click(within(form).getByRole('button', { name: 'Add fill' }));
    await user.click(await screen.findByRole('button', { name: /Delete exit fill/ }));
    const ask = screen.getByRole('alertdialog', { name: /^Delete exit fill of .*\?$/ });
    expect(ask).toHaveAccessibleDescription('Delete this fill?');
    await user.click(within(ask).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.getByTestId('net-pnl')).toHaveTextContent('-$1.00'));
    expect(calls.some((c) => c.method === 'DELETE' && c.path === '/api/positions/p1/fills/f2')).toBe(true);
  });

  it('says so when the position does not exist', async () => {
    api();
    renderScreen(<PositionPage />, { path: '/positions/:positionId', at: '/positions/unknown' });
    expect(await screen.findByRole('heading', { name: 'Position not found' })).toBeInTheDocument();
  });

  it('deleting the position leaves its page without fetching it again', async () => {
    const { calls } = mockApi(
      route('GET', '/api/accounts', () => ({ body: { items: [account], nextCursor: null } })),
      route('GET', '/api/tags', () => ({ body: { items: [], nextCursor: null } })),
      route('GET', '/api/config', () => ({ body: { quoteLookup: false, billing: false, proPlan: false, email: false, imageStorage: false, registrationOpen: true } })),
      route('GET', '/api/positions/p1/images', () => ({ body: { items: [], nextCursor: null } })),
      route('GET', '/api/positions/p1', () => ({ body: { position: open } })),
      route('DELETE', '/api/positions/p1', () => ({ status: 204 })),
    );
    renderScreen(<PositionPage />, { path: '/positions/:positionId', at: '/positions/p1' });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Delete position' }));
    const ask = screen.getByRole('alertdialog', { name: 'Delete position?' });
    expect(ask).toHaveAccessibleDescription('Delete AAPL with its fills and images?');
    await user.click(within(ask).getByRole('button', { name: 'Delete position' }));
    expect(await screen.findByText('elsewhere')).toBeInTheDocument();
    await new Promise((r) => setTimeout(r, 50));
    const deleted = calls.findIndex((c) => c.method === 'DELETE');
    expect(deleted).toBeGreaterThan(-1);
    expect(calls.slice(deleted + 1).filter((c) => c.path.startsWith('/api/positions/p1'))).toEqual([]);
  });
});

describe('PositionPage reversals', () => {
  it('says a fill reversed the position and links the position it opened', async () => {
    const part = { ...exit, quantity: '10', fees: '0.2500', reversal: 'closing', tradeQuantity: '40', tradeFees: '1.0000' };
    let position: Record<string, unknown> = { ...open, reversalOf: null, reversedInto: null };
    mockApi(
      route('GET', '/api/accounts', () => ({ body: { items: [account], nextCursor: null } })),
      route('GET', '/api/tags', () => ({ body: { items: [], nextCursor: null } })),
      route('GET', '/api/config', () => ({ body: { quoteLookup: false, billing: false, proPlan: false, email: false, imageStorage: false, registrationOpen: true } })),
      route('GET', '/api/positions/p1/images', () => ({ body: { items: [], nextCursor: null } })),
      route('GET', '/api/positions/p1', () => ({ body: { position } })),
      route('POST', '/api/positions/p1/fills', () => {
        position = { ...closed, fills: [entry, part], reversalOf: null, reversedInto: 'p2' };
        return { status: 201, body: { position, changes: { opened: ['p2'], closed: ['p1'], reopened: [], removed: [] } } };
      }),
    );
    renderScreen(<PositionPage />, { path: '/positions/:positionId', at: '/positions/p1' });
    const form = await screen.findByRole('form', { name: 'Add fill' });
    const user = userEvent.setup();
    await user.type(within(form).getByLabelText('Exit price'), '110');
    await user.type(within(form).getByLabelText('Quantity'), '40');
    await user.click(within(form).getByRole('button', { name: 'Add fill' }));
    // The reversal's note, not the chart's status (the chart now shows for
    // every position, and this harness has no bars to answer it).
    const note = (await screen.findByText(/closed the position and opened the opposite one/)).closest<HTMLElement>('[role="status"]')!;
    expect(within(note).getByRole('link', { name: 'Open the new position' })).toHaveAttribute('href', '/positions/p2');
    expect(screen.getByRole('link', { name: 'reversed into the next position' })).toHaveAttribute('href', '/positions/p2');
    expect(screen.getByText('reversal: closed here')).toBeInTheDocument();
    // Its edit is of the whole trade.
    await user.click(screen.getByRole('button', { name: /Edit exit fill/ }));
    expect(screen.getByText(/part of a trade of 40/)).toBeInTheDocument();
    expect(within(screen.getByRole('form', { name: 'Edit fill' })).getByLabelText('Quantity')).toHaveValue('40');
  });
});

describe('PositionPage notes', () => {
  it('save themselves once typing pauses, and keep unsaved text from being lost on leaving', async () => {
    const patched: unknown[] = [];
    let position = { ...open };
    mockApi(
      route('GET', '/api/accounts', () => ({ body: { items: [account], nextCursor: null } })),
      route('GET', '/api/tags', () => ({ body: { items: [], nextCursor: null } })),
      route('GET', '/api/config', () => ({ body: { quoteLookup: false, billing: false, proPlan: false, email: false, imageStorage: false, registrationOpen: true } })),
      route('GET', '/api/positions/p1/images', () => ({ body: { items: [], nextCursor: null } })),
      route('GET', '/api/positions/p1', () => ({ body: { position } })),
      route('PATCH', '/api/positions/p1', (call) => {
        patched.push(call.body);
        position = { ...position, notes: (call.body as { notes: string }).notes, updatedAt: String(patched.length + 1) };
        return { body: { position } };
      }),
    );
    const { router } = renderScreen(<PositionPage />, { path: '/positions/:positionId', at: '/positions/p1' });
    const user = userEvent.setup();
    const notes = await screen.findByLabelText('Notes');
    await user.type(notes, 'Waited for the retest');
    expect(screen.getByText('Unsaved changes')).toBeInTheDocument();
    await screen.findByText('All changes saved.', undefined, { timeout: 3000 });
    expect(patched).toEqual([{ notes: 'Waited for the retest' }]);
    expect(notes).toHaveValue('Waited for the retest');

    // Unsaved text: leaving asks first; staying keeps the text, which then saves.
    await user.type(notes, '.');
    await router.navigate('/positions');
    const ask = await screen.findByRole('alertdialog', { name: 'Unsaved changes' });
    expect(ask).toHaveAccessibleDescription(/Not saved yet: the notes\./);
    await user.click(within(ask).getByRole('button', { name: 'Stay and keep them' }));
    expect(router.state.location.pathname).toBe('/positions/p1');
    await screen.findByText('All changes saved.', undefined, { timeout: 3000 });
    expect(patched).toEqual([{ notes: 'Waited for the retest' }, { notes: 'Waited for the retest.' }]);
    await router.navigate('/positions');
    expect(await screen.findByText('elsewhere')).toBeInTheDocument();
  });
});

describe('PositionPage unsaved edits', () => {
  const playbook = {
    id: 'b1',
    name: 'Breakout',
    description: '',
    archived: false,
    criteria: [
      { id: 'c1', text: 'Range' },
      { id: 'c2', text: 'Volume' },
    ],
    createdAt: '2024-05-01T00:00:00Z',
    updatedAt: '2024-05-01T00:00:00Z',
  };

  /** pageApi answers the page's requests; PATCH and PUT answer what they were sent. */
  function pageApi(...first: Parameters<typeof mockApi>) {
    let position: Record<string, unknown> = { ...open };
    let follows: unknown = { playbookId: null, criterionIds: [] };
    let version = 1;
    const api = mockApi(
      ...first,
      route('GET', '/api/accounts', () => ({ body: { items: [account], nextCursor: null } })),
      route('GET', '/api/tags', () => ({ body: { items: [], nextCursor: null } })),
      route('GET', '/api/config', () => ({ body: { quoteLookup: false, billing: false, proPlan: false, email: false, imageStorage: false, registrationOpen: true } })),
      route('GET', '/api/positions/p1/images', () => ({ body: { items: [], nextCursor: null } })),
      route('GET', '/api/positions/p1/playbook', () => ({ body: follows })),
      route('GET', '/api/playbooks', () => ({ body: { items: [playbook] } })),
      route('GET', '/api/positions/p1', () => ({ body: { position } })),
      route('PATCH', '/api/positions/p1', (call) => {
        version += 1;
        position = { ...position, ...(call.body as object), updatedAt: String(version) };
        return { body: { position } };
      }),
      route('PUT', '/api/positions/p1/playbook', (call) => {
        follows = call.body;
        return { body: follows };
      }),
      route('DELETE', '/api/positions/p1', () => ({ status: 204 })),
    );
    return api;
  }

  /** The page under the app's menu (one link of it). */
  function renderPage() {
    return renderScreen(
      <>
        <nav aria-label="Main">
          <Link to="/positions">Positions</Link>
        </nav>
        <PositionPage />
      </>,
      { path: '/positions/:positionId', at: '/positions/p1' },
    );
  }

  const menuLink = () => within(screen.getByRole('navigation', { name: 'Main' })).getByRole('link', { name: 'Positions' });
  const stopLoss = () => within(screen.getByRole('form', { name: 'Position details' })).getByLabelText('Stop loss');
  const beforeUnloadStopped = () => {
    const e = new Event('beforeunload', { cancelable: true });
    window.dispatchEvent(e);
    return e.defaultPrevented;
  };

  it('asks in a dialog over the window before a menu link leaves an unsaved stop loss: Escape and Stay keep it, Leave drops it', async () => {
    const { calls } = pageApi();
    const { router } = renderPage();
    const user = userEvent.setup();
    await screen.findByRole('form', { name: 'Position details' });
    expect(beforeUnloadStopped()).toBe(false);
    await user.clear(stopLoss());
    await user.type(stopLoss(), '97');
    expect(screen.getByTestId('details-status')).toHaveTextContent('Not saved yet: the stop loss. Save details to keep it.');
    // Closing or reloading the tab asks too.
    expect(beforeUnloadStopped()).toBe(true);

    await user.click(menuLink());
    let ask = await screen.findByRole('alertdialog', { name: 'Unsaved changes' });
    expect(ask).toHaveAccessibleDescription('Not saved yet: the stop loss. Leave this page and lose these changes?');
    // A modal over the window, not a note at the foot of the page.
    expect(ask).toHaveAttribute('aria-modal', 'true');
    const backdrop = screen.getByTestId('leave-backdrop');
    expect(backdrop.parentElement).toBe(document.body);
    expect(backdrop).toHaveStyle({ position: 'fixed' });
    expect(within(ask).getByRole('button', { name: 'Stay and keep them' })).toHaveFocus();
    // Tab stays inside it.
    await user.tab();
    expect(within(ask).getByRole('button', { name: 'Leave without saving' })).toHaveFocus();
    await user.tab();
    expect(within(ask).getByRole('button', { name: 'Stay and keep them' })).toHaveFocus();

    await user.keyboard('{Escape}');
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(router.state.location.pathname).toBe('/positions/p1');
    expect(stopLoss()).toHaveValue('97');

    await user.click(menuLink());
    ask = await screen.findByRole('alertdialog', { name: 'Unsaved changes' });
    await user.click(within(ask).getByRole('button', { name: 'Stay and keep them' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(router.state.location.pathname).toBe('/positions/p1');
    expect(stopLoss()).toHaveValue('97');

    await user.click(menuLink());
    ask = await screen.findByRole('alertdialog', { name: 'Unsaved changes' });
    await user.click(within(ask).getByRole('button', { name: 'Leave without saving' }));
    expect(await screen.findByText('elsewhere')).toBeInTheDocument();
    expect(calls.filter((c) => c.method === 'PATCH')).toEqual([]);
    expect(beforeUnloadStopped()).toBe(false);
  });

  it('leaves without asking once the stop loss is saved', async () => {
    const { calls } = pageApi();
    renderPage();
    const user = userEvent.setup();
    await screen.findByRole('form', { name: 'Position details' });
    await user.clear(stopLoss());
    await user.type(stopLoss(), '97');
    await user.click(screen.getByRole('button', { name: 'Save details' }));
    expect(await within(screen.getByRole('form', { name: 'Position details' })).findByRole('status')).toHaveTextContent('Saved.');
    expect(calls.find((c) => c.method === 'PATCH')?.body).toMatchObject({ stopLoss: '97' });
    expect(screen.getByTestId('details-status')).toHaveTextContent('');
    expect(beforeUnloadStopped()).toBe(false);
    await user.click(menuLink());
    expect(await screen.findByText('elsewhere')).toBeInTheDocument();
  });

  it('keeps an unsaved stop loss when the notes save themselves', async () => {
    pageApi();
    renderPage();
    const user = userEvent.setup();
    await screen.findByRole('form', { name: 'Position details' });
    await user.clear(stopLoss());
    await user.type(stopLoss(), '97');
    await user.type(screen.getByLabelText('Notes'), 'Tight stop');
    await screen.findByText('All changes saved.', undefined, { timeout: 3000 });
    expect(stopLoss()).toHaveValue('97');
    expect(screen.getByTestId('details-status')).toHaveTextContent('Not saved yet: the stop loss.');
  });

  it('asks before leaving an unsaved playbook tick; staying keeps the tick, and once saved the page leaves without asking', async () => {
    const { calls } = pageApi();
    const { router } = renderPage();
    const user = userEvent.setup();
    const section = await screen.findByRole('region', { name: 'Playbook' });
    await within(section).findByRole('option', { name: 'Breakout' });
    await user.selectOptions(within(section).getByLabelText('Playbook followed'), 'b1');
    await user.click(within(section).getByLabelText('Volume'));
    expect(within(section).getByTestId('playbook-status')).toHaveTextContent('Not saved yet: the playbook followed.');

    await user.click(menuLink());
    const ask = await screen.findByRole('alertdialog', { name: 'Unsaved changes' });
    expect(ask).toHaveAccessibleDescription(/Not saved yet: the playbook followed\./);
    await user.click(within(ask).getByRole('button', { name: 'Stay and keep them' }));
    expect(router.state.location.pathname).toBe('/positions/p1');
    expect(within(section).getByLabelText('Volume')).toBeChecked();

    await user.click(within(section).getByRole('button', { name: 'Save playbook' }));
    expect(await within(section).findByRole('status')).toHaveTextContent('Saved.');
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ playbookId: 'b1', criterionIds: ['c2'] });
    // A tick after the save is unsaved again, named as such.
    await user.click(within(section).getByLabelText('Range'));
    expect(within(section).getByTestId('playbook-status')).toHaveTextContent('Not saved yet: the ticked criteria.');
    await user.click(within(section).getByLabelText('Range'));
    await user.click(menuLink());
    expect(await screen.findByText('elsewhere')).toBeInTheDocument();
  });

  it('names every unsaved edit, a fill being edited among them', async () => {
    pageApi();
    renderPage();
    const user = userEvent.setup();
    await screen.findByRole('form', { name: 'Position details' });
    await user.clear(stopLoss());
    await user.type(stopLoss(), '97');
    await user.click(screen.getByRole('button', { name: /Edit entry fill/ }));
    const price = within(screen.getByRole('form', { name: 'Edit fill' })).getByLabelText(/price/i);
    await user.clear(price);
    await user.type(price, '101');
    await user.click(menuLink());
    const ask = await screen.findByRole('alertdialog', { name: 'Unsaved changes' });
    expect(ask).toHaveAccessibleDescription(/Not saved yet: the stop loss and the entry fill of .+\. Leave this page/);
  });

  it('follows a saved fill into the position it moved to without asking about it', async () => {
    pageApi(route('PATCH', '/api/positions/p1/fills/f1', () => ({ body: { position: { ...open, id: 'p2' } } })));
    const { router } = renderPage();
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: /Edit entry fill/ }));
    const price = within(screen.getByRole('form', { name: 'Edit fill' })).getByLabelText(/price/i);
    await user.clear(price);
    await user.type(price, '101');
    await user.click(screen.getByRole('button', { name: 'Save fill' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/positions/p2'));
    expect(screen.queryByRole('alertdialog')).toBeNull();
  });

  it('deleting the position leaves without asking about its unsaved edits', async () => {
    pageApi();
    renderPage();
    const user = userEvent.setup();
    await screen.findByRole('form', { name: 'Position details' });
    await user.clear(stopLoss());
    await user.type(stopLoss(), '97');
    await user.click(screen.getByRole('button', { name: 'Delete position' }));
    await user.click(within(screen.getByRole('alertdialog', { name: 'Delete position?' })).getByRole('button', { name: 'Delete position' }));
    expect(await screen.findByText('elsewhere')).toBeInTheDocument();
    expect(screen.queryByRole('alertdialog')).toBeNull();
  });
});
