import { afterEach, describe, expect, it, vi } from 'vitest';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { DataTable, numeric, optional, QueryList, QueryView, type QueryState } from './QueryView';
import { ConfirmButton, LoadMore } from './ui';

afterEach(() => vi.restoreAllMocks());

const state = <D,>(over: Partial<QueryState<D>>): QueryState<D> => ({ isPending: false, isError: false, error: null, data: undefined, ...over });

describe('QueryView', () => {
  it('shows loading, then the error, then what children render from the data', () => {
    const { rerender } = render(<QueryView query={state<string>({ isPending: true })}>{(d) => <p>{d}</p>}</QueryView>);
    expect(screen.getByRole('status')).toHaveTextContent('Loading…');
    rerender(<QueryView query={state<string>({ isError: true, error: new Error('boom') })}>{(d) => <p>{d}</p>}</QueryView>);
    expect(screen.getByRole('alert')).toHaveTextContent('boom');
    rerender(<QueryView query={state({ data: 'hello' })}>{(d) => <p>{d}</p>}</QueryView>);
    expect(screen.getByText('hello')).toBeInTheDocument();
  });
});

describe('QueryList', () => {
  it('shows the empty text for no items and the rendered items otherwise', () => {
    const { rerender } = render(
      <QueryList query={state({ data: [] })} items={[] as string[]} empty="Nothing here.">
        {(items) => <p>{items.join(',')}</p>}
      </QueryList>,
    );
    expect(screen.getByText('Nothing here.')).toHaveClass('muted');
    rerender(
      <QueryList query={state({ data: ['a', 'b'] })} items={['a', 'b']} empty="Nothing here.">
        {(items) => <p>{items.join(',')}</p>}
      </QueryList>,
    );
    expect(screen.getByText('a,b')).toBeInTheDocument();
    expect(screen.queryByText('Nothing here.')).toBeNull();
  });
});

describe('DataTable', () => {
  it('labels its columns and right-aligns the numeric ones', () => {
    render(
      <DataTable columns={['Name', numeric('Net P&L')]} caption="Figures">
        <tr>
          <td>x</td>
          <td>1</td>
        </tr>
      </DataTable>,
    );
    expect(screen.getByRole('table', { name: 'Figures' })).toBeInTheDocument();
    expect(screen.getByRole('columnheader', { name: 'Name' })).not.toHaveClass('num');
    expect(screen.getByRole('columnheader', { name: 'Net P&L' })).toHaveClass('num');
  });
});

describe('ConfirmButton', () => {
  it("asks in the app's own dialog, not the browser's: Cancel, Escape and a click beside it do nothing, confirming acts once", async () => {
    const onConfirm = vi.fn();
    const browser = vi.spyOn(window, 'confirm');
    render(
      <>
        <p>Before</p>
        <ConfirmButton question="Delete the playbook Breakout and its checklist?" label="Delete playbook Breakout" busy={false} onConfirm={onConfirm}>
          Delete
        </ConfirmButton>
      </>,
    );
    const user = userEvent.setup();
    const button = screen.getByRole('button', { name: 'Delete playbook Breakout' });

    // Cancel: nothing happens, and focus goes back to the button.
    await user.click(button);
    let ask = screen.getByRole('alertdialog', { name: 'Delete playbook Breakout?' });
    expect(ask).toHaveAttribute('aria-modal', 'true');
    expect(ask).toHaveAccessibleDescription('Delete the playbook Breakout and its checklist?');
    // Drawn over the window, outside the page's layout.
    const backdrop = screen.getByTestId('confirm-backdrop');
    expect(backdrop.parentElement).toBe(document.body);
    expect(backdrop).toHaveStyle({ position: 'fixed' });
    const cancel = within(ask).getByRole('button', { name: 'Cancel' });
    const confirm = within(ask).getByRole('button', { name: 'Delete' });
    expect(cancel).toHaveFocus();
    // Tab stays inside.
    await user.tab();
    expect(confirm).toHaveFocus();
    await user.tab();
    expect(cancel).toHaveFocus();
    await user.tab({ shift: true });
    expect(confirm).toHaveFocus();
    await user.click(cancel);
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(button).toHaveFocus();
    expect(onConfirm).not.toHaveBeenCalled();

    // Escape: the same.
    await user.click(button);
    expect(screen.getByRole('alertdialog', { name: 'Delete playbook Breakout?' })).toBeInTheDocument();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(button).toHaveFocus();

    // A click beside the dialog: the same.
    await user.click(button);
    await user.click(screen.getByTestId('confirm-backdrop'));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(button).toHaveFocus();
    expect(onConfirm).not.toHaveBeenCalled();

    // Confirming acts once, closes the dialog and gives the focus back.
    await user.click(button);
    ask = screen.getByRole('alertdialog', { name: 'Delete playbook Breakout?' });
    await user.click(within(ask).getByRole('button', { name: 'Delete' }));
    expect(onConfirm).toHaveBeenCalledOnce();
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(button).toHaveFocus();
    expect(browser).not.toHaveBeenCalled();
  });

  it('is named after its text when it has no label, and asks nothing while busy', async () => {
    const onConfirm = vi.fn();
    const { rerender } = render(
      <ConfirmButton className="danger" question="Delete AAPL with its fills and images?" busy={false} onConfirm={onConfirm}>
        Delete <strong>position</strong>
      </ConfirmButton>,
    );
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Delete position' }));
    const ask = screen.getByRole('alertdialog', { name: 'Delete position?' });
    expect(ask).toHaveAccessibleDescription('Delete AAPL with its fills and images?');
    await user.keyboard('{Enter}'); // on Cancel, which has the focus
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(onConfirm).not.toHaveBeenCalled();
    rerender(
      <ConfirmButton className="danger" question="Delete AAPL with its fills and images?" busy onConfirm={onConfirm}>
        Delete <strong>position</strong>
      </ConfirmButton>,
    );
    expect(screen.getByRole('button', { name: 'Delete position' })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Delete position' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
  });
});

describe('LoadMore', () => {
  it('is there only while a next page is, and shows the busy label while it loads', async () => {
    const fetchNextPage = vi.fn(() => Promise.resolve());
    const { rerender } = render(<LoadMore query={{ hasNextPage: false, isFetchingNextPage: false, fetchNextPage }} />);
    expect(screen.queryByRole('button')).toBeNull();
    rerender(<LoadMore query={{ hasNextPage: true, isFetchingNextPage: false, fetchNextPage }} busyLabel="Loading…" />);
    await userEvent.click(screen.getByRole('button', { name: 'Load more' }));
    expect(fetchNextPage).toHaveBeenCalledOnce();
    rerender(<LoadMore query={{ hasNextPage: true, isFetchingNextPage: true, fetchNextPage }} busyLabel="Loading…" />);
    expect(screen.getByRole('button', { name: 'Loading…' })).toBeDisabled();
  });
});

describe('DataTable', () => {
  it('marks optional columns for a phone to leave out, keeping the others', () => {
    render(
      <DataTable columns={['Symbol', optional('Opened'), numeric('Net P&L'), optional(numeric('Qty'))]}>
        <tr />
      </DataTable>,
    );
    const heads = screen.getAllByRole('columnheader');
    expect(heads.map((h) => h.className)).toEqual(['', 'col-opt', 'num', 'num col-opt']);
  });
});
