import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, unwrap, type Schemas } from '../../api/client';
import { ErrorNote, Field, FormActions, Loading, SelectField } from '../../components/ui';
import { blankDraft, draftOf, drawdownKinds, planLabels, planRequest, type PlanDraft } from './propfirm';
import { StatusCard } from './StatusCard';

type Account = Schemas['Account'];

/** propFirmKeys are the queries a plan's change makes stale. */
export const propFirmKeys = {
  plan: (accountId: string) => ['prop-firm', accountId] as const,
  status: (accountId: string) => ['prop-firm', accountId, 'status'] as const,
  all: ['prop-firm'] as const,
};

/** TemplatePicker fills the form from an example plan of one account size. */
function TemplatePicker({ onPick }: { onPick: (d: PlanDraft) => void }) {
  const templates = useQuery({ queryKey: ['prop-firm', 'templates'], queryFn: () => unwrap(client.GET('/api/prop-firm/templates')), staleTime: Infinity });
  const [picked, setPicked] = useState('');
  if (!templates.data) return <ErrorNote error={templates.error} />;
  const choices = templates.data.items.flatMap((t) => t.sizes.map((s) => ({ key: `${t.id}/${s.label}`, name: `${t.name}: ${s.label}`, plan: s.plan })));
  return (
    <div className="grid">
      <SelectField
        label="Start from an example"
        value={picked}
        onChange={(e) => {
          setPicked(e.target.value);
          const c = choices.find((x) => x.key === e.target.value);
          if (c) onPick(draftOf(c.plan));
        }}
      >
        <option value="">Choose an example plan…</option>
        {choices.map((c) => (
          <option key={c.key} value={c.key}>
            {c.name}
          </option>
        ))}
      </SelectField>
      <p className="note" role="note">
        {templates.data.notice}
      </p>
    </div>
  );
}

/** PlanForm edits the plan and saves it (PUT), or removes it. */
function PlanForm({ account, initial, hasPlan }: { account: Account; initial: PlanDraft; hasPlan: boolean }) {
  const [draft, setDraft] = useState<PlanDraft>(initial);
  const queryClient = useQueryClient();
  const invalidate = () => void queryClient.invalidateQueries({ queryKey: propFirmKeys.all });
  const save = useMutation({
    mutationFn: () => unwrap(client.PUT('/api/accounts/{accountId}/prop-firm', { params: { path: { accountId: account.id } }, body: planRequest(draft) })),
    onSuccess: invalidate,
  });
  const remove = useMutation({
    mutationFn: () => unwrap(client.DELETE('/api/accounts/{accountId}/prop-firm', { params: { path: { accountId: account.id } } })),
    onSuccess: () => {
      setDraft(blankDraft);
      invalidate();
    },
  });
  const err = save.error instanceof ApiError ? save.error : undefined;
  const fe = (field: string) => err?.fieldError(field, { labels: planLabels });
  const set = (k: keyof PlanDraft) => (e: { target: { value: string } }) => setDraft({ ...draft, [k]: e.target.value });
  const check = (k: 'dailyPausesOnly' | 'noWeekendHolding') => (e: { target: { checked: boolean } }) => setDraft({ ...draft, [k]: e.target.checked });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const money = `in ${account.currency}`;
  return (
    <form onSubmit={submit} aria-label={`Prop firm plan of ${account.name}`}>
      <TemplatePicker onPick={setDraft} />
      <div className="grid">
        <SelectField label="Phase" value={draft.phase} onChange={set('phase')} error={fe('phase')}>
          <option value="evaluation">Evaluation (challenge)</option>
          <option value="funded">Funded</option>
        </SelectField>
        <Field label="Plan starting balance" inputMode="decimal" required value={draft.startingBalance} onChange={set('startingBalance')} error={fe('startingBalance')} hint={money} />
        <Field label="Profit target" inputMode="decimal" value={draft.profitTarget} onChange={set('profitTarget')} error={fe('profitTarget')} hint="Profit over the starting balance; empty for a funded account" />
        <Field label="Firm's time zone" list="timezones" value={draft.timezone} onChange={set('timezone')} error={fe('timezone')} />
        <Field label="Trading day starts at" value={draft.dayStart} onChange={set('dayStart')} error={fe('dayStart')} hint="HH:MM on the firm's clock, e.g. 17:00; the daily loss resets then" />
        <Field label="Daily loss limit" inputMode="decimal" value={draft.dailyLoss} onChange={set('dailyLoss')} error={fe('dailyLoss')} hint={`${money}; empty for none`} />
        <SelectField label="Daily loss measured on" value={draft.dailyBasis} onChange={set('dailyBasis')} error={fe('dailyLoss.basis')}>
          <option value="balance">Balance (closed trades)</option>
          <option value="equity">Equity (recorded MAE counts too)</option>
        </SelectField>
        <label className="field">
          <span>
            <input type="checkbox" checked={draft.dailyPausesOnly} onChange={check('dailyPausesOnly')} /> Hitting it only ends the day
          </span>
        </label>
        <Field label="Maximum drawdown" inputMode="decimal" value={draft.drawdown} onChange={set('drawdown')} error={fe('maxDrawdown.amount')} hint={`${money}; empty for none`} />
        <SelectField label="Drawdown kind" value={draft.drawdownKind} onChange={set('drawdownKind')} error={fe('maxDrawdown.kind')}>
          {Object.entries(drawdownKinds).map(([k, name]) => (
            <option key={k} value={k}>
              {name}
            </option>
          ))}
        </SelectField>
        {draft.drawdownKind !== 'static' && (
          <Field label="Floor locks at" inputMode="decimal" value={draft.lockAt} onChange={set('lockAt')} error={fe('maxDrawdown.lockAt')} hint="The highest the trailing floor goes, e.g. the starting balance; empty to trail for good" />
        )}
        <Field label="Minimum trading days" inputMode="numeric" value={draft.minTradingDays} onChange={set('minTradingDays')} error={fe('minTradingDays')} />
        <Field label="Best day at most (% of profit)" inputMode="decimal" value={draft.consistencyPercent} onChange={set('consistencyPercent')} error={fe('consistencyPercent')} hint="Consistency; empty for none" />
        <Field label="Most contracts open" inputMode="decimal" value={draft.maxContracts} onChange={set('maxContracts')} error={fe('maxContracts')} />
        <Field label="Entries allowed from" value={draft.hoursFrom} onChange={set('hoursFrom')} error={fe('allowedHours.from')} hint="HH:MM; empty for any time" />
        <Field label="Entries allowed until" value={draft.hoursTo} onChange={set('hoursTo')} error={fe('allowedHours.to')} hint="Before HH:MM; earlier than the start for overnight" />
        <label className="field">
          <span>
            <input type="checkbox" checked={draft.noWeekendHolding} onChange={check('noWeekendHolding')} /> No holding over the weekend
          </span>
        </label>
        <Field label="Warn at (% of the daily limit)" inputMode="numeric" value={draft.warnAtPercent} onChange={set('warnAtPercent')} error={fe('warnAtPercent')} hint="The dashboard warns when the day's loss reaches it" />
      </div>
      {err && err.details.length === 0 && <ErrorNote error={err} />}
      {err && err.details.length > 0 && (
        <p role="alert" className="note note-warn">
          The plan was not saved: {err.sentences({ labels: planLabels }).join(' ')}
        </p>
      )}
      {save.isSuccess && !save.isPending && <p role="status">Plan saved.</p>}
      <FormActions submit="Save plan" busy={save.isPending} />
      {hasPlan && (
        <button type="button" className="ghost" onClick={() => remove.mutate()} disabled={remove.isPending}>
          Remove the plan
        </button>
      )}
      <ErrorNote error={remove.error} />
    </form>
  );
}

/** PropFirmPanel is an account's prop-firm plan: pick an example, edit, save; and its status. */
export function PropFirmPanel({ account, onClose }: { account: Account; onClose: () => void }) {
  const path = { params: { path: { accountId: account.id } } };
  const plan = useQuery({ queryKey: propFirmKeys.plan(account.id), queryFn: () => unwrap(client.GET('/api/accounts/{accountId}/prop-firm', path)) });
  const hasPlan = Boolean(plan.data?.propFirm);
  const status = useQuery({
    queryKey: propFirmKeys.status(account.id),
    queryFn: () => unwrap(client.GET('/api/accounts/{accountId}/prop-firm/status', path)),
    enabled: hasPlan,
  });
  return (
    <section className="card" aria-label={`Prop firm: ${account.name}`}>
      <div className="row">
        <h2>Prop firm: {account.name}</h2>
        <button type="button" className="ghost" onClick={onClose}>
          Close
        </button>
      </div>
      {plan.isPending ? (
        <Loading />
      ) : plan.error ? (
        <ErrorNote error={plan.error} />
      ) : (
        <PlanForm key={account.id} account={account} hasPlan={hasPlan} initial={plan.data.propFirm ? draftOf(plan.data.propFirm.plan) : blankDraft} />
      )}
      {hasPlan && status.data && <StatusCard status={status.data.status} plan={status.data.plan} currency={account.currency} />}
      {hasPlan && status.error ? <ErrorNote error={status.error} /> : null}
    </section>
  );
}
