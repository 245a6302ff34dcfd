import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, unwrap, type Schemas } from '../../api/client';
import { useAccounts } from '../../api/queries';
import { DataTable, numeric, opt, optional, QueryView } from '../../components/QueryView';
import { SaveState, useAutosave } from '../../components/autosave';
import { MarkdownView } from '../../components/Markdown';
import { PageTitle, SelectField, TextAreaField } from '../../components/ui';
import { closedOnDay, emptyFilters, writeFilters } from '../../filterState';
import { formatDateTime, formatDay, formatDecimal, formatMoney, formatPercent, pnlClass, tradesText } from '../../format';
import { TagPicker } from '../positions/TagPicker';
import { moods, shiftDay, validDay } from './days';
import { DayCompliance } from '../rules/DayCompliance';
import { ReviewButton } from '../assistant/ReviewButton';

type Entry = Schemas['JournalDay'];
type Summary = Schemas['PositionSummary'];

/** journalKeys are the query keys of the daily journal. */
export const journalKeys = {
  all: ['journal'] as const,
  day: (date: string) => ['journal', 'day', date] as const,
  list: (q: string) => ['journal', 'list', q] as const,
};

/** DayPage is one trading day: its figures, its positions and its journal entry. */
export default function DayPage() {
  const { date = '' } = useParams();
  if (!validDay(date)) {
    return (
      <>
        <PageTitle>Journal</PageTitle>
        <p className="note note-error" role="alert">
          “{date}” is not a day. <Link to="/journal">Open the journal</Link> and choose one.
        </p>
      </>
    );
  }
  return <Day key={date} date={date} />;
}

function Day({ date }: { date: string }) {
  const day = useQuery({
    queryKey: journalKeys.day(date),
    queryFn: () => unwrap(client.GET('/api/journal/days/{date}', { params: { path: { date } } })),
  });
  const previous = day.data?.previousDate ?? shiftDay(date, -1);
  const next = day.data?.nextDate ?? shiftDay(date, 1);
  return (
    <>
      <PageTitle
        actions={
          <nav aria-label="Other days" className="row">
            <Link className="button ghost" to={`/journal/${previous}`} aria-label={`Previous day, ${formatDay(previous)}`}>
              ‹ {formatDay(previous)}
            </Link>
            <Link className="button ghost" to={`/journal/${next}`} aria-label={`Next day, ${formatDay(next)}`}>
              {formatDay(next)} ›
            </Link>
            <Link className="button ghost" to="/journal">
              All days
            </Link>
            <ReviewButton review={{ kind: 'day', date }}>Review this day</ReviewButton>
          </nav>
        }
      >
        Journal · {formatDay(date)}
      </PageTitle>
      <Figures date={date} />
      <DayCompliance date={date} />
      <Positions date={date} />
      <QueryView query={day}>{(d) => <EntryEditor entry={d.day} />}</QueryView>
    </>
  );
}

/** Figures are the day's closed trades from the statistics (the calendar's numbers). */
function Figures({ date }: { date: string }) {
  const perf = useQuery({
    queryKey: ['performance', { from: date, to: date }],
    queryFn: () => unwrap(client.GET('/api/performance', { params: { query: { from: date, to: date, bySymbol: false } } })),
  });
  return (
    <section className="card" aria-labelledby="day-figures">
      <h2 id="day-figures">The day in figures</h2>
      <QueryView query={perf}>
        {(report) => {
          const blocks = report.total ? [report.total] : report.byCurrency;
          if (blocks.every((b) => b.summary.trades === 0)) return <p className="muted">No positions closed on this day.</p>;
          return blocks.map((b) => (
            <div className="tiles" key={b.currency} aria-label={`Figures in ${b.currency}`}>
              <Tile label="Net P&L" value={formatMoney(b.summary.netPnl, b.currency)} className={pnlClass(b.summary.netPnl)} />
              <Tile label="Trades" value={tradesText(b.summary)} />
              <Tile label="Win rate" value={formatPercent(b.summary.winRate)} />
              <Tile label="Largest win" value={b.summary.largestWin ? formatMoney(b.summary.largestWin, b.currency) : '—'} />
              <Tile label="Largest loss" value={b.summary.largestLoss ? formatMoney(b.summary.largestLoss, b.currency) : '—'} />
              <Tile label="Fees" value={formatMoney(b.summary.fees, b.currency)} />
            </div>
          ));
        }}
      </QueryView>
    </section>
  );
}

function Tile({ label, value, className = '' }: { label: string; value: string; className?: string }) {
  return (
    <div className="tile">
      <div className="label">{label}</div>
      <div className={`value ${className}`}>{value}</div>
    </div>
  );
}

/** Positions lists the positions closed that day, and those opened that day and still open. */
function Positions({ date }: { date: string }) {
  const accounts = useAccounts();
  const closed = useQuery({
    queryKey: ['positions', 'list', { status: 'closed', dateBy: 'closed', from: date, to: date }],
    queryFn: () => unwrap(client.GET('/api/positions', { params: { query: { status: 'closed', dateBy: 'closed', from: date, to: date, limit: 200 } } })),
  });
  const open = useQuery({
    queryKey: ['positions', 'list', { status: 'open', from: date, to: date }],
    queryFn: () => unwrap(client.GET('/api/positions', { params: { query: { status: 'open', from: date, to: date, limit: 200 } } })),
  });
  const currencyOf = (id: string) => accounts.data?.find((a) => a.id === id)?.currency;
  const table = (items: Summary[], caption: string) => (
    <DataTable caption={caption} columns={['Symbol', optional('Side'), optional('Opened'), optional('Closed'), numeric('Net P&L'), numeric('R'), optional('Tags')]}>
      {items.map((p) => (
        <tr key={p.id}>
          <th scope="row">
            <Link to={`/positions/${p.id}`}>{p.symbol}</Link>
          </th>
          <td className={opt}>{p.side}</td>
          <td className={`when ${opt}`}>{formatDateTime(p.openedAt)}</td>
          <td className={`when ${opt}`}>{formatDateTime(p.closedAt)}</td>
          <td className={`num ${pnlClass(p.netPnl)}`}>{formatMoney(p.netPnl, currencyOf(p.accountId))}</td>
          <td className={`num ${pnlClass(p.rMultiple)}`}>{p.rMultiple ? `${formatDecimal(p.rMultiple, 2)}R` : '—'}</td>
          <td className={opt}>
            {p.tags.map((t) => (
              <span key={t.id} className="chip">
                {t.name}
              </span>
            ))}
          </td>
        </tr>
      ))}
    </DataTable>
  );
  return (
    <section className="card" aria-labelledby="day-positions">
      <h2 id="day-positions">Positions</h2>
      <QueryView query={closed}>
        {(page) =>
          page.items.length === 0 ? (
            <p className="muted">No positions closed on this day.</p>
          ) : (
            <>
              <h3>Closed this day</h3>
              {table(page.items, 'Positions closed this day')}
              <p>
                <Link to={`/positions?${writeFilters(closedOnDay(emptyFilters(), date)).toString()}`}>Open them in the positions list</Link>
              </p>
            </>
          )
        }
      </QueryView>
      <QueryView query={open}>
        {(page) =>
          page.items.length > 0 && (
            <>
              <h3>Opened this day, still open</h3>
              {table(page.items, 'Positions opened this day and still open')}
            </>
          )
        }
      </QueryView>
    </section>
  );
}

/** The entry as the editor holds it: the PUT body. */
interface Draft {
  plan: string;
  review: string;
  notes: string;
  mood: number | null;
  tagIds: string[];
}

/** EntryEditor writes the day's plan, review, notes, mood and tags; they save themselves as they change. */
function EntryEditor({ entry }: { entry: Entry }) {
  const queryClient = useQueryClient();
  const draft = useAutosave<Draft>(
    { plan: entry.plan, review: entry.review, notes: entry.notes, mood: entry.mood, tagIds: entry.tags.map((t) => t.id) },
    async (body) => {
      const saved = await unwrap(client.PUT('/api/journal/days/{date}', { params: { path: { date: entry.date } }, body }));
      queryClient.setQueryData(journalKeys.day(entry.date), (old: { previousDate: string | null; nextDate: string | null } | undefined) =>
        old ? { ...old, day: saved.day } : old,
      );
      void queryClient.invalidateQueries({ queryKey: ['journal', 'list'] });
    },
  );
  const v = draft.value;
  const set = (change: Partial<Draft>) => draft.setValue({ ...v, ...change });
  const err = draft.error instanceof ApiError ? draft.error : undefined;
  const fieldShown = ['plan', 'review', 'notes', 'mood'].some((f) => err?.fieldError(f));
  return (
    <section className="card" aria-labelledby="day-entry">
      <h2 id="day-entry">Journal entry</h2>
      <MarkdownField label="Pre-market plan" value={v.plan} onChange={(plan) => set({ plan })} error={err?.fieldError('plan')} />
      <MarkdownField label="Review" value={v.review} onChange={(review) => set({ review })} error={err?.fieldError('review')} />
      <MarkdownField label="Notes" value={v.notes} onChange={(notes) => set({ notes })} error={err?.fieldError('notes')} />
      <SelectField label="Mood" value={v.mood ?? ''} onChange={(e) => set({ mood: e.target.value ? Number(e.target.value) : null })} error={err?.fieldError('mood')}>
        <option value="">No mood noted</option>
        {moods.map((m, i) => (
          <option key={m} value={i + 1}>
            {i + 1} · {m}
          </option>
        ))}
      </SelectField>
      <TagPicker selected={v.tagIds} onChange={(tagIds) => set({ tagIds })} />
      <SaveState state={draft} fieldShown={fieldShown} />
    </section>
  );
}

/** MarkdownField edits Markdown source, with a preview of how it reads. */
function MarkdownField({ label, value, onChange, error }: { label: string; value: string; onChange: (v: string) => void; error: string | undefined }) {
  const [preview, setPreview] = useState(false);
  return (
    <div className="markdown-field">
      {preview ? (
        <div className="field">
          <span className="label">{label}</span>
          {value.trim() ? <MarkdownView source={value} label={`${label}, as it reads`} /> : <p className="muted">Nothing written yet.</p>}
        </div>
      ) : (
        <TextAreaField label={label} rows={5} maxLength={20000} value={value} onChange={(e) => onChange(e.target.value)} error={error} />
      )}
      <button type="button" className="ghost" aria-pressed={preview} onClick={() => setPreview(!preview)}>
        {preview ? `Edit the ${label.toLowerCase()}` : `Preview the ${label.toLowerCase()}`}
      </button>
    </div>
  );
}
