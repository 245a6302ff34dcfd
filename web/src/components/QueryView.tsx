// How every screen shows data it fetched: the same loading, error and empty states, and the same tables.
import type { ReactNode } from 'react';
import { ErrorNote, Loading } from './ui';
import { SortHeading, type SortOrder } from './SortableTable';

/** QueryState is the part of a TanStack query (plain or infinite) the views below read. */
export interface QueryState<D> {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  data: D | undefined;
}

/**
 * QueryView shows <Loading/> while a query has no data, its error when it failed,
 * and otherwise what children render from the data.
 */
export function QueryView<D>({ query, children }: { query: QueryState<D>; children: (data: D) => ReactNode }) {
  if (query.isPending) return <Loading />;
  if (query.isError) return <ErrorNote error={query.error} />;
  // Neither pending nor failed: TanStack Query guarantees the data is there.
  return <>{children(query.data as D)}</>;
}

/**
 * QueryList is QueryView for a list: items are what the caller reads from the data
 * (a page list flattened, say); no items show the empty text as a muted line.
 */
export function QueryList<T>({ query, items, empty, children }: { query: QueryState<unknown>; items: T[] | undefined; empty: ReactNode; children: (items: T[]) => ReactNode }) {
  return <QueryView query={query}>{() => (!items || items.length === 0 ? <p className="muted">{empty}</p> : children(items))}</QueryView>;
}

/** A column heading; numeric columns are right-aligned; one with a sortKey sorts the table (DataTable's onSort). */
export type Column = string | { label: string; numeric?: true; optional?: true; sort?: { key: string; largestFirst: boolean } };

/** numeric marks a right-aligned column heading. */
export const numeric = (label: string): Column => ({ label, numeric: true });

/**
 * optional marks a column a phone leaves out (styles.css .col-opt), so the
 * ones that matter (net P&L, R) stay in view; its cells take the class
 * opt, for the same reason.
 */
export const optional = (c: Column): Column => (typeof c === 'string' ? { label: c, optional: true } : { ...c, optional: true });

/**
 * sortable marks a column heading that sorts the table by key; its first
 * click sorts largest (latest) first, or A to Z for text (largestFirst false).
 */
export const sortable = (c: Column, key: string, largestFirst: boolean): Column => ({ ...(typeof c === 'string' ? { label: c } : c), sort: { key, largestFirst } });

/** opt is the class of an optional column's cells (optional). */
export const opt = 'col-opt';

/**
 * DataTable is a scrollable table with column headings; children are its
 * body rows. With onSort, the headings of columns with a sortKey are
 * buttons that ask for an order (the rows come sorted by the caller, a
 * server-side sort of a paged list).
 */
export function DataTable({ columns, caption, children, order, onSort }: { columns: Column[]; caption?: string; children: ReactNode; order?: SortOrder; onSort?: (next: SortOrder) => void }) {
  return (
    <div className="table-wrap">
      <table>
        {caption && <caption className="sr-only">{caption}</caption>}
        <thead>
          <tr>
            {columns.map((c) => {
              const col = typeof c === 'string' ? { label: c } : c;
              const cls = [col.numeric ? 'num' : '', col.optional ? opt : ''].filter(Boolean).join(' ') || undefined;
              if (col.sort && onSort) {
                return <SortHeading key={col.label} column={{ key: col.sort.key, label: col.label, numeric: col.sort.largestFirst }} className={cls} order={order ?? null} onSort={onSort} />;
              }
              return (
                <th key={col.label} scope="col" className={cls}>
                  {col.label}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
