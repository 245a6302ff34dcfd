import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, unwrap } from '../api/client';
import { keys, useAppConfig, useMe } from '../api/queries';
import { Datalists } from '../components/Datalists';
import { ThemeForm } from '../components/ThemeControls';
import { ErrorNote, Field, Loading, PageTitle } from '../components/ui';
import { publicConfig } from '../config';
import { browserTimeZone } from './auth/SignUp';
import { PlanUsage } from './PlanUsage';
import { TagsManager } from './TagsManager';
import { ApiTokensSection, TwoFactorSection } from './Security';
import { YourData } from './YourData';

function TimezoneForm({ current }: { current: string }) {
  const queryClient = useQueryClient();
  const [timezone, setTimezone] = useState(current);
  const save = useMutation({
    mutationFn: () => unwrap(client.PUT('/api/users/me/timezone', { body: { timezone: timezone.trim() } })),
    onSuccess: (data) => {
      queryClient.setQueryData(keys.me, data.user);
      void queryClient.invalidateQueries({ queryKey: ['dashboard'] });
    },
  });
  const err = save.error instanceof ApiError ? save.error : undefined;
  const detected = browserTimeZone();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form className="card" onSubmit={submit} aria-label="Reporting time zone">
      <h2>Reporting time zone</h2>
      <p className="hint">Used for reports and "today" on the dashboard. Each account keeps its own trading-day zone.</p>
      <Field label="Reporting time zone" list="timezones" required value={timezone} onChange={(e) => setTimezone(e.target.value)} error={err?.fieldError('timezone')} />
      {detected && detected !== timezone && (
        <button type="button" className="link" onClick={() => setTimezone(detected)}>
          Use this browser's zone ({detected})
        </button>
      )}
      {err && err.details.length === 0 && <ErrorNote error={err} />}
      <div className="row">
        <button type="submit" disabled={save.isPending || timezone.trim() === current}>
          Save time zone
        </button>
        {save.isSuccess && timezone.trim() === current && <span role="status">Saved.</span>}
      </div>
    </form>
  );
}

function DisplayCurrencyForm({ current }: { current: string | null }) {
  const queryClient = useQueryClient();
  const [currency, setCurrency] = useState(current ?? '');
  const save = useMutation({
    mutationFn: () => unwrap(client.PUT('/api/users/me/display-currency', { body: { currency: currency.trim().toUpperCase() } })),
    onSuccess: () => {
      for (const key of [keys.me, ['dashboard'], ['performance']]) void queryClient.invalidateQueries({ queryKey: key });
    },
  });
  const err = save.error instanceof ApiError ? save.error : undefined;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form className="card" onSubmit={submit} aria-label="Display currency">
      <h2>Display currency</h2>
      <p className="hint">The dashboard total and the multi-account statistics are converted into it with your exchange rates.</p>
      <Field label="Display currency" list="currencies" required maxLength={3} value={currency} onChange={(e) => setCurrency(e.target.value)} error={err?.fieldError('currency')} />
      {err && err.details.length === 0 && <ErrorNote error={err} />}
      <div className="row">
        <button type="submit" disabled={save.isPending || currency.trim().toUpperCase() === (current ?? '')}>
          Save display currency
        </button>
        {save.isSuccess && <span role="status">Saved.</span>}
      </div>
    </form>
  );
}

function EmailStatus({ verified }: { verified: boolean }) {
  const config = useAppConfig();
  const resend = useMutation({ mutationFn: () => unwrap(client.POST('/api/auth/verify-email/resend')) });
  if (verified) return <p>Your email address is confirmed.</p>;
  if (!config.data?.email) return <p className="muted">Email is not configured on this instance; nothing depends on confirming your address.</p>;
  return (
    <div>
      <p>Your email address is not confirmed yet.</p>
      <button type="button" className="ghost" onClick={() => resend.mutate()} disabled={resend.isPending || resend.isSuccess}>
        {resend.isSuccess ? 'Link sent' : 'Send a new confirmation link'}
      </button>
      <ErrorNote error={resend.error} />
    </div>
  );
}

export default function Settings() {
  const me = useMe();
  if (!me.data) return <Loading />;
  const version = publicConfig().version;
  return (
    <>
      <PageTitle>Settings</PageTitle>
      <Datalists />
      <TimezoneForm key={me.data.timezone} current={me.data.timezone} />
      <DisplayCurrencyForm key={me.data.displayCurrency ?? ''} current={me.data.displayCurrency} />
      <PlanUsage />
      <ThemeForm saved={me.data.theme} />
      <TagsManager />
      <TwoFactorSection />
      <ApiTokensSection />
      <section className="card" aria-labelledby="account-title">
        <h2 id="account-title">Your account</h2>
        <p>
          Signed in as <strong>{me.data.email}</strong>
          {me.data.isAdmin && <span className="chip">admin</span>}
        </p>
        <EmailStatus verified={me.data.emailVerified} />
        <p>
          <Link to="/settings/security">Security: password, email address and signed-in devices</Link>
        </p>
        {version && <p className="hint">Trade Journal {version}</p>}
      </section>
      <h2 className="section-title">Your data</h2>
      <YourData email={me.data.email} />
    </>
  );
}
