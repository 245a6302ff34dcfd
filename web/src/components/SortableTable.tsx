// A table that sorts by any column (its heading is a button; aria-sort
// says the order) and folds a long list to its first and last rows.
import { useState, type ReactNode } from 'react';

export interface SortColumn<R> {
  key: string;
  label: string;
  numeric?: boolean;
  /** What the column sorts by; null sorts last either way (a figure that does not exist). */
  sortValue: (row: R) => number | string | null;
  render: (row: R) => ReactNode;
  /** Left out on a phone, so the columns that matter fit without a sideways scroll. */
  optional?: boolean;
  /** The row's heading cell (the first column). */
  rowHeader?: boolean;
}

export type SortOrder = { key: string; descending: boolean } | null;

/** sortRows orders rows by one column, stably, nulls last; null order keeps the given order. */
export function sortRows<R>(rows: readonly R[], columns: readonly SortColumn<R>[], order: SortOrder): R[] {
  const col = order && columns.find((c) => c.key === order.key);
  if (!col) return [...rows];
  const dir = order.descending ? -1 : 1;
  return rows
    .map((row, i) => ({ row, i, v: col.sortValue(row) }))
    .sort((a, b) => {
      if (a.v === null || b.v === null) return a.v === b.v ? a.i - b.i : a.v === null ? 1 : -1;
      const c = typeof a.v === 'number' && typeof b.v === 'number' ? a.v - b.v : String(a.v).localeCompare(String(b.v), undefined, { numeric: true });
      return c === 0 ? a.i - b.i : c * dir;
    })
    .map((x) => x.row);
}

/** nextOrder is a heading click: a new column starts largest first (text A to Z), the same column flips. */
export function nextOrder(order: SortOrder, column: { key: string; numeric?: boolean }): SortOrder {
  if (order?.key === column.key) return { key: column.key, descending: !order.descending };
  return { key: column.key, descending: !!column.numeric };
}

/** SortHeading is a column heading that sorts by its column: a button, with aria-sort on the column it orders by. */
export function SortHeading({ column, className, order, onSort }: { column: { key: string; label: string; numeric?: boolean }; className?: string; order: SortOrder; onSort: (next: SortOrder) => void }) {
  const on = order?.key === column.key;
  return (
    <th scope="col" className={className} aria-sort={on ? (order.descending ? 'descending' : 'ascending') : undefined}>
      <button type="button" className="sort" onClick={() => onSort(nextOrder(order, column))}>
        {column.label}
        <span aria-hidden="true" className="sort-mark">
          {on ? (order.descending ? '▼' : '▲') : '↕'}
        </span>
      </button>
    </th>
  );
}

/** A long table shows its first and last rows until "Show all" (a large journal has thousands of symbols). */
export const headRows = 10;
export const tailRows = 5;

interface SortableTableProps<R> {
  caption: string;
  columns: SortColumn<R>[];
  rows: R[];
  rowKey: (row: R) => string;
}

/** SortableTable renders rows in the chosen order; its fold keeps a render of thousands of rows cheap. */
export function SortableTable<R>({ caption, columns, rows, rowKey }: SortableTableProps<R>) {
  const [order, setOrder] = useState<SortOrder>(null);
  const [all, setAll] = useState(false);
  const sorted = sortRows(rows, columns, order);
  const folded = !all && sorted.length > headRows + tailRows;
  const shown = folded ? [...sorted.slice(0, headRows), null, ...sorted.slice(-tailRows)] : sorted;
  const cls = (c: SortColumn<R>) => [c.numeric ? 'num' : '', c.optional ? 'col-opt' : ''].filter(Boolean).join(' ') || undefined;
  return (
    <>
      <div className="table-wrap">
        <table className="sortable">
          <caption className="sr-only">{caption}, sortable by any column</caption>
          <thead>
            <tr>
              {columns.map((c) => (
                <SortHeading key={c.key} column={c} className={cls(c)} order={order} onSort={setOrder} />
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.map((r) =>
              r === null ? (
                <tr key="gap">
                  <td colSpan={columns.length} className="muted">
                    … {sorted.length - headRows - tailRows} more
                  </td>
                </tr>
              ) : (
                <tr key={rowKey(r)}>
                  {columns.map((c) =>
                    c.rowHeader ? (
                      <th key={c.key} scope="row" className={cls(c)}>
                        {c.render(r)}
                      </th>
                    ) : (
                      <td key={c.key} className={cls(c)}>
                        {c.render(r)}
                      </td>
                    ),
                  )}
                </tr>
              ),
            )}
          </tbody>
        </table>
      </div>
      {sorted.length > headRows + tailRows && (
        <button type="button" className="ghost" onClick={() => setAll(!all)} aria-expanded={all}>
          {all ? 'Show fewer' : `Show all ${sorted.length}`}
        </button>
      )}
    </>
  );
}
