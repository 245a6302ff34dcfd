import { Link, useSearchParams } from 'react-router';
import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { client, unwrap } from '../../api/client';
import { useAccounts, useTags } from '../../api/queries';
import { DataTable, numeric, opt, optional, QueryList, sortable } from '../../components/QueryView';
import { FilterBar, useUrlFilters } from '../../components/filters';
import { LoadMore, PageTitle } from '../../components/ui';
import { apiQuery, carriedSearch, positionSort, positionSortParam, writeFilters, writePositionSort } from '../../filterState';
import { formatAmount, formatDateTime, formatDay, formatDecimal, formatMoney, pnlClass } from '../../format';
import { AwaitingExpiryBadge } from './expiry';
import { contractText, takesPointValue } from './futures';
import { AwaitingRateBadge } from './markets';

/**
 * PositionsList is the journal's positions, filtered and sorted by the
 * address (a heading's button sorts; the API sorts, since the list comes a
 * page at a time). The table stays while another order loads, so the
 * heading just pressed keeps the focus.
 */
export default function PositionsList() {
  const [filters, setFilters] = useUrlFilters();
  const [params, setParams] = useSearchParams();
  const order = positionSort(params);
  // The default order is asked for by leaving sort out, as the address does.
  const sort = params.has('sort') ? { sort: positionSortParam(order) } : {};
  const query = { ...apiQuery(filters, 'list'), ...sort };
  const accounts = useAccounts();
  const tags = useTags();
  const pages = useInfiniteQuery({
    queryKey: ['positions', 'list', query],
    queryFn: ({ pageParam }) =>
      unwrap(
        client.GET('/api/positions', {
          params: { query: { ...query, limit: 50, ...(pageParam ? { cursor: pageParam } : {}) } },
        }),
      ),
    initialPageParam: '',
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    placeholderData: keepPreviousData,
  });
  const accountOf = (id: string) => accounts.data?.find((a) => a.id === id);
  const items = pages.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <>
      <PageTitle
        actions={
          <>
            <Link className="button ghost" to="/positions/quick">
              Quick add
            </Link>
            <Link className="button" to={`/positions/new${filters.accountId.length === 1 ? `?accountId=${filters.accountId[0]}` : ''}`}>
              New position
            </Link>
          </>
        }
      >
        Positions
      </PageTitle>
      <FilterBar filters={filters} onChange={setFilters} accounts={accounts.data} tags={tags.data} scope="list" label="Filter positions" />
      {filters.dateBy === 'closed' && filters.from && filters.from === filters.to && (
        <p className="note" data-testid="closed-day">
          Positions closed on {formatDay(filters.from)}.{' '}
          <Link to={`/journal/${filters.from}`}>Open the day in the journal</Link> ·{' '}
          <Link to={`/${carriedSearch(writeFilters(filters).toString(), 'statistics')}`}>Back to the dashboard with this filter</Link>
        </p>
      )}
      <QueryList query={pages} items={items} empty="No positions match.">
        {(positions) => (
          <>
            <DataTable
              caption="Positions"
              order={order}
              onSort={(next) => next && setParams(writePositionSort(next, params))}
              columns={[
                sortable('Symbol', 'symbol', false),
                'Side',
                'Status',
                optional(sortable('Opened', 'openedAt', true)),
                optional(sortable('Closed', 'closedAt', true)),
                optional(numeric('Qty')),
                optional(numeric('Avg entry')),
                optional(numeric('Avg exit')),
                sortable(numeric('Net P&L'), 'netPnl', true),
                sortable(numeric('R'), 'rMultiple', true),
                optional('Tags'),
              ]}
            >
              {positions.map((p) => {
                const currency = accountOf(p.accountId)?.currency;
                return (
                  <tr key={p.id}>
                    <th scope="row">
                      <Link to={`/positions/${p.id}`}>{p.symbol}</Link>
                      {takesPointValue(p.assetType) && <div className="muted">{contractText(p)}</div>}
                    </th>
                    <td>{p.side}</td>
                    <td>
                      {p.status}
                      {p.status === 'open' && p.awaitingExpiry && (
                        <>
                          {' '}
                          <AwaitingExpiryBadge />
                        </>
                      )}
                      {p.awaitingRate && (
                        <>
                          {' '}
                          <AwaitingRateBadge pair={p.rateNeeded} />
                        </>
                      )}
                    </td>
                    <td className={`when ${opt}`}>{formatDateTime(p.openedAt)}</td>
                    <td className={`when ${opt}`}>{formatDateTime(p.closedAt)}</td>
                    <td className={`num ${opt}`}>{p.entryQuantity}</td>
                    <td className={`num ${opt}`}>{formatDecimal(p.avgEntryPrice, 2, 4)}</td>
                    <td className={`num ${opt}`}>{formatDecimal(p.avgExitPrice, 2, 4)}</td>
                    <td className={`num ${pnlClass(p.netPnl)}`}>
                      {formatMoney(p.netPnl, currency)}
                      {p.quoteCurrency && p.quoteGrossPnl != null && p.quoteCurrency !== currency && (
                        <div className="muted" title={`Gross P&L in ${p.quoteCurrency}, the currency of its prices`}>
                          {formatAmount(p.quoteGrossPnl, p.quoteCurrency)}
                        </div>
                      )}
                    </td>
                    <td className={`num ${pnlClass(p.rMultiple)}`}>{p.rMultiple ? `${formatDecimal(p.rMultiple, 2)}R` : '—'}</td>
                    <td className={opt}>
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
