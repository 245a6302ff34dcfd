import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { client, unwrap, ApiError } from '../../api/client';
import { keys } from '../../api/queries';
import { rememberSession } from '../../session';
import { publicConfig, safeHttpUrl } from '../../config';
import { EmailField, NewPasswordField } from '../../components/authFields';
import { ErrorNote } from '../../components/ui';

/** browserTimeZone is the IANA zone the browser runs in, sent as the reporting zone. */
export function browserTimeZone(): string | undefined {
  try {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    return zone && zone.length <= 64 ? zone : undefined;
  } catch {
    return undefined;
  }
}

/** ClosedSignUp is the notice shown when the operator has turned registration off. */
function ClosedSignUp() {
  const newsletter = safeHttpUrl(publicConfig().newsletterUrl);
  return (
    <section className="auth-card" aria-labelledby="closed-title">
      <h1 id="closed-title">Sign-up is closed</h1>
      <p>This Trade Journal is not taking new accounts right now.</p>
      {newsletter && (
        <p>
          <a href={newsletter} rel="noopener noreferrer">
            Join the newsletter
          </a>{' '}
          to hear when it opens.
        </p>
      )}
      <p>
        Already have an account? <Link to="/signin">Sign in</Link>
      </p>
    </section>
  );
}

export default function SignUp() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const signUp = useMutation({
    meta: { public: true },
    mutationFn: () => {
      const timezone = browserTimeZone();
      return unwrap(client.POST('/api/auth/register', { body: { email, password, ...(timezone ? { timezone } : {}) } }));
    },
    onSuccess: (data) => {
      rememberSession();
      queryClient.clear();
      queryClient.setQueryData(keys.me, data.user);
      void navigate('/accounts?welcome=1', { replace: true });
    },
  });
  const err = signUp.error instanceof ApiError ? signUp.error : undefined;
  if (err?.code === 'REGISTRATION_DISABLED') return <ClosedSignUp />;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    signUp.mutate();
  };
  return (
    <section className="auth-card" aria-labelledby="signup-title">
      <h1 id="signup-title">Create your account</h1>
      <form onSubmit={submit} noValidate>
        <EmailField
          value={email}
          onChange={setEmail}
          error={err?.fieldError('email') ?? (err?.code === 'EMAIL_TAKEN' ? 'An account with this email already exists.' : undefined)}
        />
        <NewPasswordField label="Password" value={password} onChange={setPassword} error={err?.fieldError('password')} />
        {err && err.details.length === 0 && err.code !== 'EMAIL_TAKEN' && <ErrorNote error={err} />}
        {signUp.error && !err && <ErrorNote error={signUp.error} />}
        <button type="submit" disabled={signUp.isPending}>
          {signUp.isPending ? 'Creating…' : 'Sign up'}
        </button>
      </form>
      <p>
        Already have an account? <Link to="/signin">Sign in</Link>
      </p>
    </section>
  );
}
