// Onboarding: the first-run checklist on the dashboard and a short hint
// (coach mark) the first time a screen is opened. Progress comes from the
// journal itself (GET /api/users/me/onboarding); the dismissals are stored
// on the server, so what is dismissed stays dismissed on every device.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation } from 'react-router';
import { client, unwrap, type Schemas } from '../api/client';
import { ErrorNote } from './ui';
import { hasSession } from '../session';

type Onboarding = Schemas['Onboarding'];
type StepId = Schemas['OnboardingStepId'];
type Mark = Schemas['CoachMark'];

const onboardingKey = ['onboarding'] as const;

/** useOnboarding is the checklist and the coach marks seen; asked for again whenever a screen showing it opens, as the journal may have changed. */
export function useOnboarding() {
  return useQuery({ queryKey: onboardingKey, queryFn: () => unwrap(client.GET('/api/users/me/onboarding')), staleTime: 0, enabled: hasSession() });
}

/** steps says, for each step, what it is and where it is done. */
export const steps: Record<StepId, { text: string; link: string; to: string }> = {
  account: { text: 'Add the trading account you trade in', link: 'Add a trading account', to: '/accounts' },
  trade: { text: 'Enter a trade, or import your broker’s file', link: 'Record or import a trade', to: '/positions/new' },
  review: { text: 'Tag a trade and review it (notes, excursions or a playbook)', link: 'Tag and review a trade', to: '/positions' },
  dayPlan: { text: 'Write a plan for a trading day in the journal', link: 'Write a day plan', to: '/journal' },
  rule: { text: 'Set a rule you trade by', link: 'Set a trading rule', to: '/rules' },
};

/** OnboardingChecklist is shown on the dashboard until every step is done or the user dismisses it. */
export function OnboardingChecklist() {
  const qc = useQueryClient();
  const onboarding = useOnboarding();
  const dismiss = useMutation({
    mutationFn: () => unwrap(client.POST('/api/users/me/onboarding/dismiss')),
    onSuccess: (data) => qc.setQueryData(onboardingKey, data),
  });
  const o = onboarding.data;
  if (!o || o.dismissed || o.done === o.steps.length) return null;
  return (
    <section className="card onboarding" aria-labelledby="onboarding-title">
      <div className="card-head">
        <h2 id="onboarding-title">Get started</h2>
        <button type="button" className="ghost" onClick={() => dismiss.mutate()} disabled={dismiss.isPending}>
          Dismiss the checklist
        </button>
      </div>
      <p>
        <label>
          {o.done} of {o.steps.length} steps done{' '}
          <progress max={o.steps.length} value={o.done}>
            {o.done} of {o.steps.length}
          </progress>
        </label>
      </p>
      <ol className="checklist">
        {o.steps.map((s) => (
          <li key={s.id} className={s.done ? 'done' : ''} data-step={s.id}>
            <span aria-hidden="true">{s.done ? '✓' : '○'}</span> {steps[s.id].text}
            {s.done ? <span className="sr-only"> (done)</span> : <> — <Link to={steps[s.id].to}>{steps[s.id].link}</Link></>}
            {s.id === 'trade' && !s.done && (
              <>
                {' '}
                or <Link to="/import">import a CSV file</Link>
              </>
            )}
          </li>
        ))}
      </ol>
      <ErrorNote error={dismiss.error} />
    </section>
  );
}

/** coachMarks are the screens with a hint, by their path, and what each says. */
export const coachMarks: Record<string, { mark: Mark; text: string }> = {
  '/': { mark: 'dashboard', text: 'Your statistics live here. “Customize dashboard” adds, removes, moves and resizes the widgets; save a set of filters as a view to get back to it in one click.' },
  '/positions': { mark: 'positions', text: 'Every trade you enter or import is listed here. Open one to add fills, tags, notes, excursions and chart images.' },
  '/import': { mark: 'import', text: 'Upload the CSV file your broker exports. The preview shows what would be imported, and which rows cannot be read, before anything is saved.' },
  '/journal': { mark: 'journal', text: 'One entry a day: a plan before the session, a review after it, and notes. The day’s trades are listed beside it.' },
  '/rules': { mark: 'rules', text: 'Set the rules you trade by. The calendar marks each day you broke one, and the dashboard counts the days you kept them.' },
};

/** CoachMark is the current screen's hint until the user dismisses it (once, for every device). */
export function CoachMark() {
  const { pathname } = useLocation();
  const qc = useQueryClient();
  const onboarding = useOnboarding();
  const hint = coachMarks[pathname];
  const seen = useMutation({
    mutationFn: (mark: Mark) => unwrap(client.PUT('/api/users/me/coach-marks/{mark}', { params: { path: { mark } } })),
    // Gone at once; the server's answer needs no waiting for.
    onMutate: (mark) => qc.setQueryData<Onboarding>(onboardingKey, (o) => o && { ...o, coachMarksSeen: [...o.coachMarksSeen, mark] }),
  });
  if (!hint || !onboarding.data || onboarding.data.coachMarksSeen.includes(hint.mark)) return null;
  return (
    <aside className="note coach-mark" aria-label="Tip">
      <p>{hint.text}</p>
      <button type="button" className="ghost" onClick={() => seen.mutate(hint.mark)}>
        Got it, hide this tip
      </button>
    </aside>
  );
}
