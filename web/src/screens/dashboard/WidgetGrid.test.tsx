import { afterEach, describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { LayoutEditor, useDashboardLayout, WidgetGrid } from './WidgetGrid';
import { mockApi, renderScreen, route } from '../../test/render';
import type { Widget, WidgetId } from './layout';

afterEach(() => vi.unstubAllGlobals());

/** Board is the dashboard's layout part alone: the grid and, while editing, its editor. */
function Board({ empty = [] }: { empty?: WidgetId[] }) {
  const { layout, save, reset } = useDashboardLayout();
  const widgets = layout.data?.widgets;
  if (!widgets) return <p>loading</p>;
  return (
    <>
      <LayoutEditor widgets={widgets} custom={layout.data?.custom ?? false} onChange={(w) => save.mutate(w)} onReset={() => reset.mutate()} resetting={false} error={save.error} sent={save.variables} onDone={() => {}} />
      <WidgetGrid label="Statistics" widgets={widgets} editing onChange={(w) => save.mutate(w)} render={(id) => (empty.includes(id) ? null : <div className="card">content of {id}</div>)} />
    </>
  );
}

const start: Widget[] = [
  { id: 'net-pnl', size: 'quarter' },
  { id: 'calendar', size: 'full' },
  { id: 'by-tag', size: 'half' },
];

function server(initial: Widget[]) {
  let stored = { widgets: initial, custom: true };
  const api = mockApi(
    route('GET', '/api/users/me/dashboard-layout', () => ({ body: stored })),
    route('PUT', '/api/users/me/dashboard-layout', (c) => {
      const body = c.body as { widgets: Widget[] };
      if (body.widgets.some((w) => w.size === 'full' && w.id === 'net-pnl')) {
        return { status: 400, body: { error: { code: 'VALIDATION_ERROR', message: 'widgets[0].size must be quarter, third, half or full', details: [{ field: 'widgets[0].size', message: 'must be quarter, third, half or full' }] } } };
      }
      stored = { widgets: body.widgets, custom: true };
      return { body: stored };
    }),
    route('DELETE', '/api/users/me/dashboard-layout', () => {
      stored = { widgets: [{ id: 'total-balance', size: 'full' }], custom: false };
      return { body: stored };
    }),
  );
  return { ...api, stored: () => stored };
}

const order = () => screen.getAllByText(/^content of /).map((e) => e.textContent?.replace('content of ', ''));

describe('the dashboard layout', () => {
  it('builds a second quick move on the first, before the first has rendered', async () => {
    const sent: WidgetId[][] = [];
    // The parent never re-renders: each change must start from the last one made.
    render(<WidgetGrid label="Statistics" widgets={start} editing onChange={(w) => sent.push(w.map((x) => x.id))} render={(id) => <div>{id}</div>} />);
    const later = screen.getByRole('button', { name: 'Move Net P&L later' });
    await userEvent.click(later);
    await userEvent.click(later);
    expect(sent).toEqual([
      ['calendar', 'net-pnl', 'by-tag'],
      ['calendar', 'by-tag', 'net-pnl'],
    ]);
  });

  it('moves, resizes, removes and adds widgets, saving each change, and keeps the focus on the moved widget’s button', async () => {
    const api = server(start);
    renderScreen(<Board />);
    const user = userEvent.setup();
    const later = await screen.findByRole('button', { name: 'Move Net P&L later' });
    await user.click(later);
    expect(order()).toEqual(['calendar', 'net-pnl', 'by-tag']);
    await waitFor(() => expect(api.stored().widgets.map((w) => w.id)).toEqual(['calendar', 'net-pnl', 'by-tag']));
    expect(screen.getByRole('button', { name: 'Move Net P&L later' })).toHaveFocus();
    expect(screen.getByRole('button', { name: 'Move P&L calendar earlier' })).toBeDisabled();

    await user.selectOptions(screen.getByRole('combobox', { name: 'Width of By tag' }), 'third');
    await waitFor(() => expect(api.stored().widgets[2]).toEqual({ id: 'by-tag', size: 'third' }));
    expect(screen.getByText('content of by-tag').parentElement).toHaveClass('w-third');

    await user.click(screen.getByRole('button', { name: 'Remove P&L calendar' }));
    await waitFor(() => expect(api.stored().widgets.map((w) => w.id)).toEqual(['net-pnl', 'by-tag']));
    expect(screen.queryByText('content of calendar')).toBeNull();

    await user.selectOptions(screen.getByRole('combobox', { name: 'Add a widget' }), 'calendar');
    await user.click(screen.getByRole('button', { name: 'Add widget' }));
    await waitFor(() => expect(api.stored().widgets.at(-1)).toEqual({ id: 'calendar', size: 'half' }));
  });

  it('puts a refused change back and says why in the field’s words', async () => {
    server(start);
    renderScreen(<Board />);
    const user = userEvent.setup();
    // The fake refuses a full-width Net P&L, as the server refuses a size it does not know.
    await user.selectOptions(await screen.findByRole('combobox', { name: 'Width of Net P&L' }), 'full');
    expect(await screen.findByRole('alert')).toHaveTextContent('Not saved: Choose the width of Net P&L: quarter, third, half or full.');
    await waitFor(() => expect(screen.getByText('content of net-pnl').parentElement).toHaveClass('w-quarter'));
  });

  it('keeps an empty widget editable with a placeholder, and resets to the default after asking', async () => {
    const api = server(start);
    renderScreen(<Board empty={['calendar']} />);
    const user = userEvent.setup();
    const grid = await screen.findByRole('region', { name: 'Statistics' });
    expect(within(grid).getByText('P&L calendar')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Reset to default' }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Reset to default' }));
    await waitFor(() => expect(api.stored().custom).toBe(false));
    expect(await screen.findByText('content of total-balance')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Reset to default' })).toBeNull();
  });
});
