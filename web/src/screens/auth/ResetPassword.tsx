import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useMutation } from '@tanstack/react-query';
import { client, unwrap, ApiError } from '../../api/client';
import { takeFragmentToken } from '../../fragment';
import { NewPasswordField } from '../../components/authFields';
import { ErrorNote, Field } from '../../components/ui';

export default function ResetPassword() {
  const [token] = useState(takeFragmentToken);
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const confirm = useMutation({
    meta: { public: true },
    mutationFn: (t: string) => unwrap(client.POST('/api/auth/password-reset/confirm', { body: { token: t, password } })),
  });
  if (!token) {
    return (
      <section className="auth-card">
        <h1>Reset your password</h1>
        <p role="alert">This link has no reset token. Open the link from the email again, or <Link to="/forgot-password">ask for a new one</Link>.</p>
      </section>
    );
  }
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setMismatch(password !== repeat);
    if (password === repeat) confirm.mutate(token);
  };
  const err = confirm.error instanceof ApiError ? confirm.error : undefined;
  const tokenError = err?.fieldError('token');
  return (
    <section className="auth-card" aria-labelledby="reset-title">
      <h1 id="reset-title">Choose a new password</h1>
      {confirm.isSuccess ? (
        <p role="status">
          Your password is changed and every session has ended. <Link to="/signin">Sign in</Link>
        </p>
      ) : (
        <form onSubmit={submit} noValidate>
          <NewPasswordField label="New password" value={password} onChange={setPassword} error={err?.fieldError('password')} />
          <Field
            label="Repeat new password"
            type="password"
            autoComplete="new-password"
            required
            value={repeat}
            error={mismatch ? 'The two passwords differ.' : undefined}
            onChange={(e) => setRepeat(e.target.value)}
          />
          {tokenError && (
            <p className="note note-error" role="alert">
              This reset link is invalid, used or expired. <Link to="/forgot-password">Ask for a new one</Link>.
            </p>
          )}
          {err && err.details.length === 0 && <ErrorNote error={err} />}
          <button type="submit" disabled={confirm.isPending}>
            Set password
          </button>
        </form>
      )}
    </section>
  );
}
