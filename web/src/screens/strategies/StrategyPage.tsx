import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, unwrap, type Schemas } from '../../api/client';
import { useAccounts } from '../../api/queries';
import { DataTable, numeric } from '../../components/QueryView';
import { ConfirmButton, ErrorNote, Field, FormActions, Loading, PageTitle } from '../../components/ui';
import { formatDateTime, formatDecimal, formatMoney, pnlClass } from '../../format';
import { useSettledQuery } from '../../hooks';
import { normalizeDecimal } from '../../numbers';
import { PayoffChart } from '../calculator/PayoffChart';
import { defaultVolatility, estimateChart, estimateText, payoffRange } from '../calculator/strategy';
import { estimateLegs, estimateRequest } from './estimate';
import { LegPicker, usePositionsOn } from './LegPicker';
import { legChoices, legName, occText, sortLegs } from './legs';
import { payoffAxis, payoffChart } from './payoff';
import { legsError } from './text';

type Strategy = Schemas['Strategy'];

/** StrategyPage shows a multi-leg trade: what the legs make, the payoff at expiry, the legs, and rolls. */
export default function StrategyPage() {
  const { strategyId = '' } = useParams();
  const accounts = useAccounts();
  const query = useQuery({
    queryKey: ['strategies', strategyId],
    queryFn: async () => (await unwrap(client.GET('/api/strategies/{strategyId}', { params: { path: { strategyId } } }))).strategy,
  });
  if (query.isPending) return <Loading />;
  if (query.isError) {
    if (query.error instanceof ApiError && query.error.status === 404) {
      return (
        <>
          <PageTitle>Strategy not found</PageTitle>
          <p>
            There is no such strategy in your journal. <Link to="/strategies">All strategies</Link>
          </p>
        </>
      );
    }
    return <ErrorNote error={query.error} />;
  }
  const s = query.data;
  const currency = accounts.data?.find((a) => a.id === s.accountId)?.currency;
  return <Loaded key={s.updatedAt} s={s} currency={currency} />;
}

function Loaded({ s, currency }: { s: Strategy; currency: string | undefined }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState(s.name);
  const [risk, setRisk] = useState(s.plannedRisk ?? '');
  const [legs, setLegs] = useState(s.legs.map((l) => l.id));
  // Offered as legs: the strategy's own, and the open positions of its account on its underlying.
  const positions = usePositionsOn(s.accountId, s.underlying ?? '', { openOnly: true });
  const choices = positions.data ? legChoices(s, positions.data.items) : s.underlying ? undefined : legChoices(s, []);
  const saved = (d: { strategy: Strategy }) => {
    queryClient.setQueryData(['strategies', s.id], d.strategy);
    void queryClient.invalidateQueries({ queryKey: ['strategies'], exact: true });
  };
  const update = useMutation({
    mutationFn: (body: Schemas['StrategyWrite']) => unwrap(client.PATCH('/api/strategies/{strategyId}', { params: { path: { strategyId: s.id } }, body })),
    onSuccess: saved,
  });
  const ungroup = useMutation({
    mutationFn: () => unwrap(client.DELETE('/api/strategies/{strategyId}', { params: { path: { strategyId: s.id } } })),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['strategies'] });
      void navigate('/strategies');
    },
  });
  const err = update.error instanceof ApiError ? update.error : undefined;
  const saveDetails = (e: FormEvent) => {
    e.preventDefault();
    update.mutate({ name, plannedRisk: risk.trim() ? normalizeDecimal(risk) : null });
  };
  const money = (v: string | null | undefined, none: string) => (v ? formatMoney(v, currency) : none);
  return (
    <>
      <PageTitle
        actions={
          <ConfirmButton question="Ungroup this strategy? Its legs stay, as positions of their own." busy={ungroup.isPending} onConfirm={() => ungroup.mutate()}>
            Ungroup
          </ConfirmButton>
        }
      >
        {s.name || s.label || 'Strategy'} {s.underlying && <span className="chip">{s.underlying}</span>} <span className="chip">{s.status}</span>
      </PageTitle>
      <dl className="facts card" aria-label="Figures">
        <dt>Structure</dt>
        <dd>{s.label ?? '—'}</dd>
        <dt>{s.netDebit && s.netDebit.startsWith('-') ? 'Net credit' : 'Net debit'}</dt>
        <dd>{s.netDebit ? formatMoney(s.netDebit.replace(/^-/, ''), currency) : '—'}</dd>
        <dt>Max profit</dt>
        <dd>{money(s.maxProfit, s.noPayoff ? '—' : 'Unlimited')}</dd>
        <dt>Max loss</dt>
        <dd>{money(s.maxLoss, s.noPayoff ? '—' : 'Unlimited')}</dd>
        <dt>Breakevens</dt>
        <dd>{s.breakevens.length ? s.breakevens.map((b) => formatDecimal(b, 2, 8)).join(', ') : '—'}</dd>
        <dt>Net P&amp;L</dt>
        <dd className={pnlClass(s.netPnl)}>{formatMoney(s.netPnl, currency)}</dd>
        <dt>R</dt>
        <dd>{s.rMultiple ? `${formatDecimal(s.rMultiple, 2)}R` : '—'}</dd>
        <dt>Opened / closed</dt>
        <dd>
          {formatDateTime(s.openedAt)} / {formatDateTime(s.closedAt)}
        </dd>
      </dl>
      {s.noPayoff && <p className="note">{s.noPayoff}</p>}
      {s.noPayoff && <FirstExpiry s={s} currency={currency} />}
      {s.payoff.length > 0 && (
        <section className="card" aria-labelledby="payoff-title">
          <StrategyPayoff s={s} />
        </section>
      )}
      <section aria-labelledby="legs-title">
        <h2 id="legs-title">Legs</h2>
        <DataTable columns={['Leg', 'Side', 'Status', numeric('Qty'), numeric('Avg entry'), numeric('Avg exit'), numeric('Net P&L')]}>
          {sortLegs(s.legs).map((l) => (
            <tr key={l.id}>
              <th scope="row">
                <Link to={`/positions/${l.id}`} title={l.assetType === 'option' ? occText(l) : undefined}>
                  {legName(l)}
                </Link>
              </th>
              <td>{l.side}</td>
              <td>{l.status}</td>
              <td className="num">{l.entryQuantity}</td>
              <td className="num">{formatDecimal(l.avgEntryPrice, 2, 4)}</td>
              <td className="num">{formatDecimal(l.avgExitPrice, 2, 4)}</td>
              <td className={`num ${pnlClass(l.netPnl)}`}>{formatMoney(l.netPnl, currency)}</td>
            </tr>
          ))}
        </DataTable>
      </section>
      <form className="card" onSubmit={saveDetails} aria-label="Name and planned risk">
        <Field label="Name" value={name} maxLength={100} onChange={(e) => setName(e.target.value)} error={err?.fieldError('name')} hint="Your own name for it; the structure's is shown without one." />
        <Field label="Planned risk" inputMode="decimal" value={risk} onChange={(e) => setRisk(e.target.value)} error={err?.fieldError('plannedRisk')} hint="What you meant to risk, for R. Empty: the max loss." />
        <FormActions submit="Save" busy={update.isPending && !legsChanged(s, legs)} />
      </form>
      <form
        className="card"
        aria-label="Roll or change the legs"
        onSubmit={(e) => {
          e.preventDefault();
          update.mutate({ positionIds: legs });
        }}
      >
        <h2>Roll or change the legs</h2>
        <p className="muted">A roll: record the new leg as a position, tick it here, and keep or untick the leg it replaced.</p>
        {choices && <LegPicker positions={choices} chosen={legs} onChange={setLegs} currency={currency} />}
        {!choices && <ErrorNote error={positions.error} />}
        {err && legsChanged(s, legs) && (
          <p className="field-error" role="alert">
            {legsError(err, choices ?? s.legs, legs)}
          </p>
        )}
        <FormActions submit="Save the legs" busy={update.isPending && legsChanged(s, legs)} />
      </form>
    </>
  );
}

/** StrategyPayoff draws the payoff at expiry across every strike of the legs, with room on each side. */
function StrategyPayoff({ s }: { s: Strategy }) {
  const axis = payoffAxis(s);
  const breakevens = s.breakevens.map((b) => formatDecimal(b, 2, 8)).join(', ') || 'none';
  return <PayoffChart out={payoffChart(s, axis)} range={axis} summary={`P&L at expiry of ${s.label ?? 'the strategy'}, with breakevens at ${breakevens}`} />;
}

/**
 * FirstExpiry estimates a calendar's or diagonal's P&L when its first options expire: the open legs, at the implied
 * volatility typed, through the options strategy calculator. Nothing when the legs give no such request.
 */
function FirstExpiry({ s, currency }: { s: Strategy; currency: string | undefined }) {
  const [volatility, setVolatility] = useState(defaultVolatility);
  const legs = estimateLegs(s.legs);
  const request = legs && estimateRequest(legs, volatility);
  const { query, stale } = useSettledQuery('strategy-first-expiry', request, (body: Schemas['StrategyInput']) => unwrap(client.POST('/api/calculator/strategy', { body })));
  if (!legs) return null;
  const err = query.error instanceof ApiError ? query.error : undefined;
  const fe = query.data?.firstExpiry;
  const amount = (v: string | undefined, unlimited: string) => (v === undefined ? unlimited : formatMoney(v, currency));
  const range = payoffRange(
    legs.map((l) => ({ type: l.type ?? 'shares', strike: l.strike ?? '', price: l.price ?? '' })),
    fe?.breakevens,
  );
  return (
    <section className="card" aria-labelledby="estimate-title">
      <h2 id="estimate-title">Estimate at the first expiry</h2>
      <Field
        label="Implied volatility %"
        inputMode="decimal"
        value={volatility}
        onChange={(e) => setVolatility(e.target.value)}
        error={err?.fieldError('volatility', { labels: { volatility: 'implied volatility %' } })}
        hint="The later options' implied volatility, a year (30 for 30%): it prices them for the estimate."
      />
      {request === null ? (
        <p className="muted">Enter the implied volatility to estimate what the open legs make when the first ones expire.</p>
      ) : query.isError && !err?.fieldError('volatility') ? (
        <ErrorNote error={query.error} />
      ) : fe ? (
        <div style={{ opacity: stale ? 0.6 : 1 }}>
          <dl className="facts" aria-label="Estimate">
            <dt>Max profit (estimate)</dt>
            <dd>{amount(fe.maxProfit, 'Unlimited')}</dd>
            <dt>Max loss (estimate)</dt>
            <dd>{amount(fe.maxLoss, 'Unlimited')}</dd>
            <dt>Breakevens (estimate)</dt>
            <dd>{fe.breakevens?.map((b) => formatDecimal(b, 2, 4)).join(', ') ?? '—'}</dd>
          </dl>
          <PayoffChart
            out={estimateChart(fe)}
            range={range}
            summary={`Estimated P&L at the first expiry of ${s.label ?? 'the strategy'}, with breakevens at ${fe.breakevens?.join(', ') ?? 'none'}`}
            estimate
          />
          <p className="hint">{estimateText(fe)}</p>
        </div>
      ) : query.isPending ? (
        <p className="muted">Calculating…</p>
      ) : null}
    </section>
  );
}

function legsChanged(s: Strategy, legs: string[]): boolean {
  return legs.length !== s.legs.length || s.legs.some((l) => !legs.includes(l.id));
}
