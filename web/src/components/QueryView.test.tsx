import { afterEach, describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { DataTable, numeric, QueryList, QueryView, type QueryState } from './QueryView';
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
  it('acts only when the user confirms', async () => {
    const onConfirm = vi.fn();
    const confirm = vi.spyOn(window, 'confirm').mockReturnValueOnce(false).mockReturnValueOnce(true);
    render(
      <ConfirmButton question="Really?" label="Delete x" busy={false} onConfirm={onConfirm}>
        Delete
      </ConfirmButton>,
    );
    const button = screen.getByRole('button', { name: 'Delete x' });
    await userEvent.click(button);
    expect(onConfirm).not.toHaveBeenCalled();
    await userEvent.click(button);
    expect(confirm).toHaveBeenCalledWith('Really?');
    expect(onConfirm).toHaveBeenCalledOnce();
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
