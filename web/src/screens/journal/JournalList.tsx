import { useEffect, useState, type ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { client, unwrap, type Schemas } from '../../api/client';
import { DataTable, numeric, QueryList } from '../../components/QueryView';
import { Field, LoadMore, PageTitle } from '../../components/ui';
import { useDebounced } from '../../hooks';
import { formatDay, formatMoney, pnlClass } from '../../format';
import { figuresByDay, moodText, today, type DayFigure } from './days';
import { journalKeys } from './DayPage';

type Summary = Schemas['JournalDaySummary'];
type Match = Schemas['JournalDayMatch'];

/** Highlight marks each word of q in text, regardless of case. */
export function Highlight({ text, q }: { text: string; q: string }) {
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return <>{text}</>;
  const pattern = new RegExp(`(${words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`, 'gi');
  const parts: ReactNode[] = text.split(pattern).map((part, i) => (i % 2 === 1 ? <mark key={i}>{part}</mark> : part));
  return <>{parts}</>;
}

const fieldNames: Record<Match['field'], string> = { plan: 'Plan', review: 'Review', notes: 'Notes', position: 'Position' };

function MatchLine({ m, q }: { m: Match; q: string }) {
  return (
    <li>
      <span className="muted">
        {m.field === 'position' && m.positionId ? (
          <>
            <Link to={`/positions/${m.positionId}`}>{m.symbol}</Link> notes
          </>
        ) : (
          fieldNames[m.field]
        )}
        :{' '}
      </span>
      <Highlight text={m.snippet} q={q} />
    </li>
  );
}

function Pnl({ figures }: { figures: DayFigure[] | undefined }) {
  if (!figures || figures.length === 0) return <>—</>;
  return (
    <>
      {figures.map((f) => (
        <div key={f.currency} className={pnlClass(f.netPnl)}>
          {formatMoney(f.netPnl, f.currency)}
        </div>
      ))}
    </>
  );
}

/** JournalList lists the journal's days newest first, with a search across every note. */
export default function JournalList() {
  const [params, setParams] = useSearchParams();
  const q = params.get('q') ?? '';
  const [typed, setTyped] = useState(q);
  const settled = useDebounced(typed.trim(), 300);
  useEffect(() => {
    if (settled !== q) setParams(settled ? { q: settled } : {}, { replace: true });
  }, [settled, q, setParams]);
  const pages = useInfiniteQuery({
    queryKey: journalKeys.list(q),
    queryFn: ({ pageParam }) =>
      unwrap(client.GET('/api/journal/days', { params: { query: { limit: 30, ...(q ? { q } : {}), ...(pageParam ? { cursor: pageParam } : {}) } } })),
    initialPageParam: '',
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const items: Summary[] = pages.data?.pages.flatMap((p) => p.items) ?? [];
  const from = items[items.length - 1]?.date;
  const to = items[0]?.date;
  const perf = useQuery({
    queryKey: ['performance', { from, to }],
    queryFn: () => unwrap(client.GET('/api/performance', { params: { query: { from: from ?? '', to: to ?? '', bySymbol: false } } })),
    enabled: !!from && !!to,
  });
  const figures = figuresByDay(perf.data);
  const empty = q ? `No day’s notes hold “${q}”. Try fewer or other words.` : 'No journal days yet: write today’s plan, or open a day from the calendar on the dashboard.';
  return (
    <>
      <PageTitle
        actions={
          <Link className="button" to={`/journal/${today()}`}>
            Today’s page
          </Link>
        }
      >
        Journal
      </PageTitle>
      <section className="card" role="search" aria-label="Search the journal">
        <Field
          label="Search your notes"
          type="search"
          value={typed}
          maxLength={200}
          onChange={(e) => setTyped(e.target.value)}
          hint="Finds the days whose plan, review or notes, or whose positions’ notes, hold every word."
        />
      </section>
      <QueryList query={pages} items={items} empty={empty}>
        {(days) => (
          <>
            <DataTable caption="Journal days" columns={['Day', numeric('Net P&L'), 'Positions', 'Mood', 'Notes']}>
              {days.map((d) => (
                <tr key={d.date}>
                  <th scope="row">
                    <Link to={`/journal/${d.date}`}>{formatDay(d.date)}</Link>
                  </th>
                  <td className="num">
                    <Pnl figures={figures.get(d.date)} />
                  </td>
                  <td>
                    {d.closedPositions > 0 && <div>{d.closedPositions} closed</div>}
                    {d.openPositions > 0 && <div>{d.openPositions} opened, still open</div>}
                  </td>
                  <td>{moodText(d.mood)}</td>
                  <td>
                    {d.matches.length > 0 ? (
                      <ul className="matches">
                        {d.matches.map((m, i) => (
                          <MatchLine key={i} m={m} q={q} />
                        ))}
                      </ul>
                    ) : (
                      <span>{d.excerpt || <span className="muted">{d.hasEntry ? '' : 'No entry yet'}</span>}</span>
                    )}
                    {d.tags.map((t) => (
                      <span key={t.id} className="chip">
                        {t.name}
                      </span>
                    ))}
                  </td>
                </tr>
              ))}
            </DataTable>
            <LoadMore query={pages} busyLabel="Loading…" />
          </>
        )}
      </QueryList>
    </>
  );
}
