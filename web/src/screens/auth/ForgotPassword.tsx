import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useMutation } from '@tanstack/react-query';
import { client, unwrap, ApiError } from '../../api/client';
import { usePublicConfig } from '../../api/queries';
import { EmailField } from '../../components/authFields';
import { ErrorNote, Loading } from '../../components/ui';

/** OperatorReset says what to do on an instance that sends no email: the operator's reset-password command. */
export function OperatorReset({ email }: { email: string }) {
  const address = email.trim() || 'you@example.com';
  return (
    <div className="note" data-testid="operator-reset">
      <p>
        This Trade Journal does not send email, so it cannot mail you a reset link. Ask the person who runs it to set a new password for you.
        On the server they run
      </p>
      <pre className="command">
        <code>reset-password --email {address}</code>
      </pre>
      <p className="hint">
        (<code>bin/local reset-password …</code> for <code>make run</code>, <code>docker compose exec api /usr/local/bin/tradejournal reset-password …</code>{' '}
        with compose). It prints a new password once; sign in with it, then change it.
      </p>
    </div>
  );
}

export default function ForgotPassword() {
  const [email, setEmail] = useState('');
  // Whether this instance sends email is known before anything is asked (GET /api/config/public).
  const config = usePublicConfig();
  const request = useMutation({
    meta: { public: true },
    mutationFn: () => unwrap(client.POST('/api/auth/password-reset/request', { body: { email } })),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    request.mutate();
  };
  const err = request.error instanceof ApiError ? request.error : undefined;
  let body;
  if (config.isPending) {
    body = <Loading />;
  } else if (config.data?.email !== true) {
    // Email off (or the switches could not be read): no promise of a mail.
    body = (
      <>
        <EmailField value={email} onChange={setEmail} />
        <OperatorReset email={email} />
      </>
    );
  } else if (request.isSuccess) {
    body = (
      <p role="status">If an account has this address, a reset link valid for one hour is on its way. Check your inbox (and its spam folder).</p>
    );
  } else {
    body = (
      <form onSubmit={submit} noValidate>
        <EmailField value={email} onChange={setEmail} error={err?.fieldError('email')} />
        {err && err.details.length === 0 && <ErrorNote error={err} />}
        <button type="submit" disabled={request.isPending}>
          Send reset link
        </button>
      </form>
    );
  }
  return (
    <section className="auth-card" aria-labelledby="forgot-title">
      <h1 id="forgot-title">Reset your password</h1>
      {body}
      <p>
        <Link to="/signin">Back to sign in</Link>
      </p>
    </section>
  );
}
