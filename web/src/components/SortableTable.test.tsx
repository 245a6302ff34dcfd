import { describe, expect, it } from 'vitest';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { nextOrder, SortableTable, sortRows, type SortColumn } from './SortableTable';

interface Row {
  name: string;
  pnl: string | null;
}
const columns: SortColumn<Row>[] = [
  { key: 'name', label: 'Name', rowHeader: true, sortValue: (r) => r.name, render: (r) => r.name },
  { key: 'pnl', label: 'Net P&L', numeric: true, sortValue: (r) => (r.pnl === null ? null : Number(r.pnl)), render: (r) => r.pnl ?? '—' },
];
const rows: Row[] = [
  { name: 'B', pnl: '-5.0000' },
  { name: 'A10', pnl: null },
  { name: 'A2', pnl: '12.5000' },
  { name: 'C', pnl: '3.0000' },
];

describe('sortRows', () => {
  it('keeps the given order without a column, sorts numbers as numbers and names naturally', () => {
    expect(sortRows(rows, columns, null).map((r) => r.name)).toEqual(['B', 'A10', 'A2', 'C']);
    expect(sortRows(rows, columns, { key: 'pnl', descending: true }).map((r) => r.name)).toEqual(['A2', 'C', 'B', 'A10']);
    expect(sortRows(rows, columns, { key: 'pnl', descending: false }).map((r) => r.name)).toEqual(['B', 'C', 'A2', 'A10']);
    expect(sortRows(rows, columns, { key: 'name', descending: false }).map((r) => r.name)).toEqual(['A2', 'A10', 'B', 'C']);
  });
  it('starts a number column largest first and flips on a second click', () => {
    const first = nextOrder(null, { key: 'pnl', numeric: true });
    expect(first).toEqual({ key: 'pnl', descending: true });
    expect(nextOrder(first, { key: 'pnl', numeric: true })).toEqual({ key: 'pnl', descending: false });
    expect(nextOrder(first, { key: 'name' })).toEqual({ key: 'name', descending: false });
  });
});

describe('SortableTable', () => {
  it('sorts on a heading click and says so with aria-sort', async () => {
    const user = userEvent.setup();
    render(<SortableTable caption="Test" columns={columns} rows={rows} rowKey={(r) => r.name} />);
    const names = () => screen.getAllByRole('rowheader').map((c) => c.textContent);
    expect(names()).toEqual(['B', 'A10', 'A2', 'C']);
    const heading = screen.getByRole('columnheader', { name: /Net P&L/ });
    expect(heading).not.toHaveAttribute('aria-sort');
    await user.click(within(heading).getByRole('button'));
    expect(heading).toHaveAttribute('aria-sort', 'descending');
    expect(names()).toEqual(['A2', 'C', 'B', 'A10']);
    await user.click(within(heading).getByRole('button'));
    expect(heading).toHaveAttribute('aria-sort', 'ascending');
    expect(names()).toEqual(['B', 'C', 'A2', 'A10']);
    await user.click(screen.getByRole('button', { name: /Name/ }));
    expect(heading).not.toHaveAttribute('aria-sort');
    expect(screen.getByRole('columnheader', { name: /Name/ })).toHaveAttribute('aria-sort', 'ascending');
  });

  it('folds a long list to its first 10 and last 5 rows in the chosen order', async () => {
    const user = userEvent.setup();
    const many = Array.from({ length: 30 }, (_, i) => ({ name: `S${String(i).padStart(2, '0')}`, pnl: `${i}.0000` }));
    render(<SortableTable caption="Test" columns={columns} rows={many} rowKey={(r) => r.name} />);
    expect(screen.getAllByRole('rowheader')).toHaveLength(15);
    expect(screen.getByText('… 15 more')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: /Net P&L/ }));
    const shown = screen.getAllByRole('rowheader').map((c) => c.textContent);
    expect(shown.slice(0, 2)).toEqual(['S29', 'S28']);
    expect(shown.slice(-1)).toEqual(['S00']);
    await user.click(screen.getByRole('button', { name: 'Show all 30' }));
    expect(screen.getAllByRole('rowheader')).toHaveLength(30);
  });
});
