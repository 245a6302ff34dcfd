import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, unwrap, type Schemas } from '../api/client';
import { keys, useAppConfig, useMe } from '../api/queries';
import { NewPasswordField } from '../components/authFields';
import { DataTable, QueryView } from '../components/QueryView';
import { ConfirmButton, ErrorNote, Field, Loading, PageTitle } from '../components/ui';
import { counted, formatDateTime } from '../format';
import { forgetSession } from '../session';
import { deviceName, SignInHistory } from '../components/SignInHistory';

const sessionsKey = ['sessions'] as const;

/** CurrentPasswordField is the password the user signs in with now, asked before a change to their credentials. */
function CurrentPasswordField({ value, onChange, error }: { value: string; onChange: (v: string) => void; error?: string | undefined }) {
  return <Field label="Current password" type="password" autoComplete="current-password" required value={value} error={error} onChange={(e) => onChange(e.target.value)} />;
}

function devicesSignedOut(n: number): string {
  if (n === 0) return 'No other device was signed in.';
  return n === 1 ? 'Your other signed-in device was signed out.' : `Your ${n} other signed-in devices were signed out.`;
}

function PasswordForm() {
  const queryClient = useQueryClient();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [revokeTokens, setRevokeTokens] = useState(false);
  const change = useMutation({
    mutationFn: () => unwrap(client.PUT('/api/users/me/password', { body: { currentPassword: current, newPassword: next, revokeTokens } })),
    onSuccess: () => {
      setCurrent('');
      setNext('');
      void queryClient.invalidateQueries({ queryKey: sessionsKey });
    },
  });
  const err = change.error instanceof ApiError ? change.error : undefined;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    change.mutate();
  };
  return (
    <form className="card" onSubmit={submit} aria-label="Change password" noValidate>
      <h2>Password</h2>
      <p className="hint">Changing it signs you out on every other device; this one stays signed in.</p>
      <CurrentPasswordField value={current} onChange={setCurrent} error={err?.fieldError('currentPassword')} />
      <NewPasswordField label="New password" value={next} onChange={setNext} error={err?.fieldError('newPassword')} />
      <label className="check">
        <input type="checkbox" checked={revokeTokens} onChange={(e) => setRevokeTokens(e.target.checked)} /> Also revoke my API tokens
      </label>
      {err && err.details.length === 0 && <ErrorNote error={err} />}
      <div className="row">
        <button type="submit" disabled={change.isPending || current === '' || next === ''}>
          {change.isPending ? 'Changing…' : 'Change password'}
        </button>
        {change.isSuccess && (
          <span role="status">
            Your password is changed. {devicesSignedOut(change.data.endedSessions)}
            {change.data.revokedTokens > 0 && ` ${counted(change.data.revokedTokens, 'API token')} revoked.`}
          </span>
        )}
      </div>
    </form>
  );
}

function EmailForm({ email }: { email: string }) {
  const queryClient = useQueryClient();
  const config = useAppConfig();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const change = useMutation({
    mutationFn: () => unwrap(client.PUT('/api/users/me/email', { body: { currentPassword: current, email: next.trim() } })),
    onSuccess: (data) => {
      setCurrent('');
      queryClient.setQueryData(keys.me, data.user);
    },
  });
  const err = change.error instanceof ApiError ? change.error : undefined;
  const emailError = err?.fieldError('email') ?? (err?.code === 'EMAIL_TAKEN' ? 'Another account already uses this email address.' : undefined);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    change.mutate();
  };
  return (
    <form className="card" onSubmit={submit} aria-label="Change email address" noValidate>
      <h2>Email address</h2>
      <p>
        You sign in with <strong>{email}</strong>.
      </p>
      <p className="hint">
        {config.data?.email
          ? 'We send a confirmation link to the new address; your address changes when you open it.'
          : 'Your address changes at once.'}
      </p>
      <Field label="New email address" type="email" autoComplete="email" required value={next} error={emailError} onChange={(e) => setNext(e.target.value)} />
      <CurrentPasswordField value={current} onChange={setCurrent} error={err?.fieldError('currentPassword')} />
      {err && err.details.length === 0 && err.code !== 'EMAIL_TAKEN' && <ErrorNote error={err} />}
      <div className="row">
        <button type="submit" disabled={change.isPending || current === '' || next.trim() === ''}>
          {change.isPending ? 'Changing…' : 'Change email address'}
        </button>
        {change.isSuccess &&
          (change.data.pendingEmail ? (
            <span role="status">
              We sent a confirmation link to {change.data.pendingEmail}. Open it within 24 hours to finish the change; until then you keep signing in with {email}.
            </span>
          ) : (
            <span role="status">Your email address is changed. Sign in with {change.data.user.email} from now on.</span>
          ))}
      </div>
    </form>
  );
}


/** FailedSignIns tells the owner of the wrong passwords given for their account before this sign-in, until dismissed. */
function FailedSignIns({ notice, onDismissed }: { notice: Schemas['SessionList']['failedSignIns']; onDismissed: () => void }) {
  const dismiss = useMutation({ mutationFn: () => unwrap(client.DELETE('/api/users/me/failed-sign-ins')), onSuccess: onDismissed });
  if (!notice) return null;
  return (
    <div className="notice warning" role="alert">
      <p>
        <strong>{counted(notice.count, 'failed sign-in attempt')} since your last sign-in</strong>, the latest {formatDateTime(notice.lastFailedAt)}. If they were not
        yours, choose a stronger password below and turn on two-factor sign-in. Browsers you signed in with before keep signing in while someone guesses.
      </p>
      <button type="button" className="ghost" disabled={dismiss.isPending} onClick={() => dismiss.mutate()}>
        Dismiss
      </button>
      <ErrorNote error={dismiss.error} />
    </div>
  );
}

function Sessions() {
  const queryClient = useQueryClient();
  const sessions = useQuery({ queryKey: sessionsKey, queryFn: () => unwrap(client.GET('/api/users/me/sessions')) });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: sessionsKey });
  const revoke = useMutation({
    mutationFn: (id: string) => unwrap(client.DELETE('/api/users/me/sessions/{sessionId}', { params: { path: { sessionId: id } } })),
    onSuccess: refresh,
    // An already ended session is gone either way.
    onError: (err) => {
      if (err instanceof ApiError && err.status === 404) refresh();
    },
  });
  const revokeOthers = useMutation({
    mutationFn: () => unwrap(client.DELETE('/api/users/me/sessions')),
    onSuccess: refresh,
  });
  const signOutHere = (s: Schemas['Session']) => {
    revoke.mutate(s.id, {
      onSuccess: () => {
        forgetSession();
        queryClient.clear();
        window.location.assign('/signin');
      },
    });
  };
  return (
    <section className="card" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Signed-in devices</h2>
      <p className="hint">Every browser signed in to your account. Sign out any you do not recognise, then change your password.</p>
      <QueryView query={sessions}>
        {(data) => (
          <>
            <FailedSignIns notice={data.failedSignIns} onDismissed={refresh} />
            <DataTable columns={['Device', 'Signed in', 'Last active', '']} caption="Signed-in devices, most recently active first">
              {data.items.map((s) => (
                <tr key={s.id}>
                  <th scope="row" title={s.userAgent || undefined}>
                    {deviceName(s.userAgent)}
                    {s.current && <span className="chip">this device</span>}
                  </th>
                  <td>{formatDateTime(s.createdAt)}</td>
                  <td>{formatDateTime(s.lastSeenAt)}</td>
                  <td>
                    {s.current ? (
                      <ConfirmButton question="Sign out on this device?" busy={revoke.isPending} label="Sign out on this device" onConfirm={() => signOutHere(s)}>
                        Sign out
                      </ConfirmButton>
                    ) : (
                      <ConfirmButton
                        question={`Sign out ${deviceName(s.userAgent)}, signed in ${formatDateTime(s.createdAt)}?`}
                        busy={revoke.isPending}
                        label={`Sign out ${deviceName(s.userAgent)}, signed in ${formatDateTime(s.createdAt)}`}
                        onConfirm={() => revoke.mutate(s.id)}
                      >
                        Sign out
                      </ConfirmButton>
                    )}
                  </td>
                </tr>
              ))}
            </DataTable>
            {data.items.length > 1 && (
              <div className="row">
                <ConfirmButton question="Sign out on every other device?" busy={revokeOthers.isPending} onConfirm={() => revokeOthers.mutate()}>
                  Sign out everywhere else
                </ConfirmButton>
              </div>
            )}
            <h3>Recent sign-ins</h3>
            <p className="hint">Each sign-in and each wrong password given for your account, newest first. A wrong password you did not type means someone is guessing: keep your password long and turn on two-factor sign-in.</p>
            <SignInHistory events={data.recentSignIns} />
          </>
        )}
      </QueryView>
      {revokeOthers.isSuccess && <p role="status">{devicesSignedOut(revokeOthers.data.endedSessions)}</p>}
      {revoke.isSuccess && <p role="status">That device is signed out.</p>}
      <ErrorNote error={revoke.error instanceof ApiError && revoke.error.status === 404 ? undefined : revoke.error} />
      <ErrorNote error={revokeOthers.error} />
    </section>
  );
}

export default function SettingsSecurity() {
  const me = useMe();
  if (!me.data) return <Loading />;
  return (
    <>
      <PageTitle actions={<Link to="/settings">Back to settings</Link>}>Security</PageTitle>
      <PasswordForm />
      <EmailForm email={me.data.email} />
      <Sessions />
    </>
  );
}
