import { Link, useSearchParams } from 'react-router';
import { useInfiniteQuery } from '@tanstack/react-query';
import { client, unwrap } from '../../api/client';
import { useAccounts, useTags } from '../../api/queries';
import { DataTable, numeric, QueryList } from '../../components/QueryView';
import { AccountFilter, DateRangeFilter, TagFilter } from '../../components/filters';
import { Field, LoadMore, PageTitle, SelectField } from '../../components/ui';
import { formatDateTime, formatDecimal, formatMoney, pnlClass } from '../../format';
import { contractText } from './futures';

/** The list filters, kept in the address so a filtered list can be linked and reloaded. */
const filterNames = ['accountId', 'symbol', 'status', 'tagId', 'from', 'to'] as const;
type FilterName = (typeof filterNames)[number];
type PositionFilters = Partial<Record<FilterName, string>>;

function filtersOf(params: URLSearchParams): PositionFilters {
  const f: PositionFilters = {};
  for (const n of filterNames) {
    const v = params.get(n)?.trim();
    if (v) f[n] = v;
  }
  return f;
}

export default function PositionsList() {
  const [params, setParams] = useSearchParams();
  const filters = filtersOf(params);
  const accounts = useAccounts();
  const tags = useTags();
  const pages = useInfiniteQuery({
    queryKey: ['positions', 'list', filters],
    queryFn: ({ pageParam }) =>
      unwrap(
        client.GET('/api/positions', {
          params: { query: { ...(filters as Record<string, string>), limit: 50, ...(pageParam ? { cursor: pageParam } : {}) } },
        }),
      ),
    initialPageParam: '',
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const setFilter = (name: FilterName, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    setParams(next, { replace: true });
  };
  const accountOf = (id: string) => accounts.data?.find((a) => a.id === id);
  const items = pages.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <>
      <PageTitle
        actions={
          <Link className="button" to={`/positions/new${filters.accountId ? `?accountId=${filters.accountId}` : ''}`}>
            New position
          </Link>
        }
      >
        Positions
      </PageTitle>
      <form className="card grid" role="search" aria-label="Filter positions" onSubmit={(e) => e.preventDefault()}>
        <AccountFilter accounts={accounts.data} value={filters.accountId} onChange={(v) => setFilter('accountId', v)} />
        <Field label="Symbol filter" defaultValue={filters.symbol ?? ''} onBlur={(e) => setFilter('symbol', e.target.value.toUpperCase())} onKeyDown={(e) => e.key === 'Enter' && setFilter('symbol', e.currentTarget.value.toUpperCase())} />
        <SelectField label="Status" value={filters.status ?? ''} onChange={(e) => setFilter('status', e.target.value)}>
          <option value="">Any status</option>
          <option value="open">Open</option>
          <option value="closed">Closed</option>
          <option value="draft">Draft</option>
        </SelectField>
        <TagFilter tags={tags.data} value={filters.tagId} onChange={(v) => setFilter('tagId', v)} />
        <DateRangeFilter from={filters.from} to={filters.to} onChange={setFilter} />
      </form>
      <QueryList query={pages} items={items} empty="No positions match.">
        {(positions) => (
          <>
            <DataTable columns={['Symbol', 'Side', 'Status', 'Opened', 'Closed', numeric('Qty'), numeric('Avg entry'), numeric('Avg exit'), numeric('Net P&L'), numeric('R'), 'Tags']}>
              {positions.map((p) => {
                const currency = accountOf(p.accountId)?.currency;
                return (
                  <tr key={p.id}>
                    <th scope="row">
                      <Link to={`/positions/${p.id}`}>{p.symbol}</Link>
                      {p.assetType === 'future' && <div className="muted">{contractText(p)}</div>}
                    </th>
                    <td>{p.side}</td>
                    <td>{p.status}</td>
                    <td className="when">{formatDateTime(p.openedAt)}</td>
                    <td className="when">{formatDateTime(p.closedAt)}</td>
                    <td className="num">{p.entryQuantity}</td>
                    <td className="num">{formatDecimal(p.avgEntryPrice, 2, 4)}</td>
                    <td className="num">{formatDecimal(p.avgExitPrice, 2, 4)}</td>
                    <td className={`num ${pnlClass(p.netPnl)}`}>{formatMoney(p.netPnl, currency)}</td>
                    <td className={`num ${pnlClass(p.rMultiple)}`}>{p.rMultiple ? `${formatDecimal(p.rMultiple, 2)}R` : '—'}</td>
                    <td>
                      {p.tags.map((t) => (
                        <span key={t.id} className="chip">
                          {t.name}
                        </span>
                      ))}
                    </td>
                  </tr>
                );
              })}
            </DataTable>
            <LoadMore query={pages} busyLabel="Loading…" />
          </>
        )}
      </QueryList>
    </>
  );
}
