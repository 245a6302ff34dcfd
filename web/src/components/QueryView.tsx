// How every screen shows data it fetched: the same loading, error and empty states, and the same tables.
import type { ReactNode } from 'react';
import { ErrorNote, Loading } from './ui';

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

/** A column heading; numeric columns are right-aligned. */
export type Column = string | { label: string; numeric?: true; optional?: true };

/** numeric marks a right-aligned column heading. */
export const numeric = (label: string): Column => ({ label, numeric: true });

/**
 * optional marks a column a phone leaves out (styles.css .col-opt), so the
 * ones that matter (net P&L, R) stay in view; its cells take the class
 * opt, for the same reason.
 */
export const optional = (c: Column): Column => (typeof c === 'string' ? { label: c, optional: true } : { ...c, optional: true });

/** opt is the class of an optional column's cells (optional). */
export const opt = 'col-opt';

/** DataTable is a scrollable table with column headings; children are its body rows. */
export function DataTable({ columns, caption, children }: { columns: Column[]; caption?: string; children: ReactNode }) {
  return (
    <div className="table-wrap">
      <table>
        {caption && <caption className="sr-only">{caption}</caption>}
        <thead>
          <tr>
            {columns.map((c) => {
              const col = typeof c === 'string' ? { label: c } : c;
              const cls = [col.numeric ? 'num' : '', col.optional ? opt : ''].filter(Boolean).join(' ');
              return (
                <th key={col.label} scope="col" className={cls || undefined}>
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
