// The journal filter shared by the dashboard, its calendar and the
// positions list. It lives in the address (bookmarkable, the back button
// steps through changes) under the API's own parameter names, so the query
// string passes straight through to GET /api/performance and /api/positions.
import type { Schemas } from './api/client';
import type { paths } from './api/schema';
import type { AssetType } from './assetTypes';

/** Filters that take several values: any of them matches (written comma-separated). */
export const listFilterNames = ['accountId', 'symbol', 'tagId', 'excludeTagId', 'playbookId', 'strategy', 'result', 'assetType', 'weekday', 'hour', 'phase'] as const;
/** Filters that take one value. status and dateBy belong to the positions list only. */
export const singleFilterNames = ['side', 'status', 'from', 'to', 'dateBy', 'propFirm'] as const;

export type ListFilterName = (typeof listFilterNames)[number];
export type SingleFilterName = (typeof singleFilterNames)[number];
export type FilterName = ListFilterName | SingleFilterName;

export type Filters = Record<ListFilterName, string[]> & Partial<Record<SingleFilterName, string>>;

/** The parameters the statistics do not take: the list's status and date basis. */
export const listOnlyFilterNames: readonly FilterName[] = ['status', 'dateBy'];

const allNames: readonly string[] = [...listFilterNames, ...singleFilterNames];

/** isFilterName tells a filter parameter from any other parameter of the address. */
export function isFilterName(name: string): name is FilterName {
  return allNames.includes(name);
}

function isListName(name: FilterName): name is ListFilterName {
  return (listFilterNames as readonly string[]).includes(name);
}

/** emptyFilters is the filter that matches everything. */
export function emptyFilters(): Filters {
  return { accountId: [], symbol: [], tagId: [], excludeTagId: [], playbookId: [], strategy: [], result: [], assetType: [], weekday: [], hour: [], phase: [] };
}

/**
 * parseFilters reads the filter from an address's query. A list is repeated
 * parameters or comma-separated (as the API takes it); blanks and repeats
 * are dropped, symbols are upper-cased.
 */
export function parseFilters(params: URLSearchParams): Filters {
  const f = emptyFilters();
  for (const name of listFilterNames) {
    const seen = new Set<string>();
    for (const raw of params.getAll(name)) {
      for (const part of raw.split(',')) {
        const v = name === 'symbol' ? part.trim().toUpperCase() : part.trim();
        if (v) seen.add(v);
      }
    }
    f[name] = [...seen];
  }
  for (const name of singleFilterNames) {
    const v = params.get(name)?.trim();
    if (v) f[name] = v;
  }
  return f;
}

/**
 * writeFilters puts a filter into params, replacing every filter parameter
 * and keeping the others; lists are written comma-separated, in a fixed
 * order, so one filter always has one address.
 */
export function writeFilters(f: Filters, params: URLSearchParams = new URLSearchParams()): URLSearchParams {
  const next = new URLSearchParams();
  for (const [k, v] of params) if (!isFilterName(k)) next.append(k, v);
  for (const name of listFilterNames) if (f[name].length > 0) next.set(name, f[name].join(','));
  for (const name of singleFilterNames) {
    const v = f[name];
    if (v) next.set(name, v);
  }
  return next;
}

/** withFilter is f with one parameter changed ("" or [] removes it). */
export function withFilter(f: Filters, name: FilterName, value: string | string[]): Filters {
  const next: Filters = { ...f };
  if (isListName(name)) next[name] = Array.isArray(value) ? value : value ? [value] : [];
  else {
    const v = Array.isArray(value) ? (value[0] ?? '') : value;
    if (v) next[name] = v;
    else delete next[name];
  }
  return next;
}

/** withoutNames drops some parameters (the list's status and date basis on the dashboard). */
export function withoutNames(f: Filters, names: readonly FilterName[]): Filters {
  let next = f;
  for (const n of names) next = withFilter(next, n, '');
  return next;
}

/** activeCount is how many parameters narrow the filter (for the collapsed bar's button). */
export function activeCount(f: Filters): number {
  return listFilterNames.filter((n) => f[n].length > 0).length + singleFilterNames.filter((n) => f[n]).length;
}

/** ApiQuery is the filter as the statistics' and the list's routes take it. */
export type ApiQuery = {
  accountId?: string[];
  symbol?: string[];
  tagId?: string[];
  excludeTagId?: string[];
  playbookId?: string[];
  strategy?: Array<Schemas['StrategyKind'] | 'none'>;
  result?: Array<'win' | 'loss' | 'breakeven'>;
  assetType?: AssetType[];
  weekday?: number[];
  hour?: number[];
  /** The phases of the accounts' prop-firm plans. */
  phase?: Array<'evaluation' | 'funded'>;
  side?: 'long' | 'short';
  /** Accounts with a prop-firm plan (true) or without one (false). */
  propFirm?: boolean;
  status?: 'draft' | 'open' | 'closed';
  dateBy?: 'opened' | 'closed';
  from?: string;
  to?: string;
};

/**
 * apiQuery is the filter as the typed client's query: only the parameters
 * present (so the request and the query cache key stay short), lists as
 * arrays (sent as repeated parameters). The API validates every value: a
 * hand-edited address gets its error message, not a silent drop.
 */
export function apiQuery(f: Filters, scope: 'statistics' | 'list'): ApiQuery {
  const q: Record<string, unknown> = {};
  for (const name of listFilterNames) {
    if (f[name].length === 0) continue;
    q[name] = name === 'weekday' || name === 'hour' ? f[name].map(Number) : f[name];
  }
  for (const name of singleFilterNames) {
    if (scope === 'statistics' && listOnlyFilterNames.includes(name)) continue;
    const v = f[name];
    if (v) q[name] = name === 'propFirm' ? v === 'true' : v;
  }
  return q as ApiQuery;
}

/**
 * carriedSearch is the query string a link to another filtered view keeps
 * from the current address: the filter only; the dashboard drops the list's
 * status and date basis.
 */
export function carriedSearch(search: string, target: 'statistics' | 'list'): string {
  let f = parseFilters(new URLSearchParams(search));
  if (target === 'statistics') f = withoutNames(f, listOnlyFilterNames);
  const q = writeFilters(f).toString();
  return q ? `?${q}` : '';
}

/** closedOnDay is the positions-list filter of the positions closed on one trading day, keeping the rest of f. */
export function closedOnDay(f: Filters, day: string): Filters {
  return { ...f, dateBy: 'closed', from: day, to: day };
}

/** PositionSort is a sort the positions list's API takes ("-netPnl"). */
export type PositionSort = NonNullable<NonNullable<paths['/api/positions']['get']['parameters']['query']>['sort']>;

const positionSortKeys = ['openedAt', 'closedAt', 'symbol', 'netPnl', 'rMultiple'];

/** defaultPositionSort is the list's order with no sort in the address: newest opened first. */
export const defaultPositionSort = { key: 'openedAt', descending: true };

/**
 * positionSort reads the list's order from the address's sort parameter
 * (the API's own value, "-netPnl"); a value that is not one of them is
 * the default, never a request the API refuses.
 */
export function positionSort(params: URLSearchParams): { key: string; descending: boolean } {
  const v = params.get('sort') ?? '';
  const key = v.replace(/^-/, '');
  return positionSortKeys.includes(key) ? { key, descending: v.startsWith('-') } : defaultPositionSort;
}

/** writePositionSort puts an order into params (the default leaves the address without one), keeping the rest. */
export function writePositionSort(order: { key: string; descending: boolean }, params: URLSearchParams): URLSearchParams {
  const next = new URLSearchParams(params);
  const v = positionSortParam(order);
  if (v === positionSortParam(defaultPositionSort)) next.delete('sort');
  else next.set('sort', v);
  return next;
}

/** positionSortParam is the API's sort value of an order. */
export function positionSortParam(order: { key: string; descending: boolean }): PositionSort {
  return `${order.descending ? '-' : ''}${order.key}` as PositionSort;
}
