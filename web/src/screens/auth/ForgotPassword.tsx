import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useMutation, useQuery } from '@tanstack/react-query';
import { client, unwrap, ApiError } from '../../api/client';
import { keys } from '../../api/queries';
import { EmailField } from '../../components/authFields';
import { ErrorNote } from '../../components/ui';

/** OperatorReset says how passwords are reset on an instance that sends no email. */
function OperatorReset() {
  return (
    <>
      the operator resets passwords on the server (<code>reset-password --email you@example.com</code>); ask them for a new one.
    </>
  );
}

export default function ForgotPassword() {
  const [email, setEmail] = useState('');
  // The feature switches are readable only when signed in; signed out, both outcomes are explained.
  const config = useQuery({ queryKey: keys.config, queryFn: () => unwrap(client.GET('/api/config')), retry: false, staleTime: Infinity });
  const emailOff = config.data?.email === false;
  const request = useMutation({
    meta: { public: true },
    mutationFn: () => unwrap(client.POST('/api/auth/password-reset/request', { body: { email } })),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    request.mutate();
  };
  const err = request.error instanceof ApiError ? request.error : undefined;
  return (
    <section className="auth-card" aria-labelledby="forgot-title">
      <h1 id="forgot-title">Reset your password</h1>
      {emailOff ? (
        <p className="note" data-testid="operator-reset">
          This instance does not send email: <OperatorReset />
        </p>
      ) : request.isSuccess ? (
        <div role="status">
          <p>If an account has this address, a reset link valid for one hour is on its way.</p>
          {config.data === undefined && (
            <p className="hint">
              No mail? If this instance does not send email, <OperatorReset />
            </p>
          )}
        </div>
      ) : (
        <form onSubmit={submit} noValidate>
          <EmailField value={email} onChange={setEmail} error={err?.fieldError('email')} />
          {err && err.details.length === 0 && <ErrorNote error={err} />}
          <button type="submit" disabled={request.isPending}>
            Send reset link
          </button>
        </form>
      )}
      <p>
        <Link to="/signin">Back to sign in</Link>
      </p>
    </section>
  );
}
