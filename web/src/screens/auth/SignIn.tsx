import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { client, unwrap, ApiError } from '../../api/client';
import { keys, type User } from '../../api/queries';
import { rememberSession } from '../../session';
import { safeNext } from '../../fragment';
import { EmailField } from '../../components/authFields';
import { ErrorNote, Field } from '../../components/ui';

/** useSignedIn is what follows a completed sign-in: the session is remembered and the user goes where they were headed. */
function useSignedIn() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return (user: User) => {
    rememberSession();
    queryClient.clear();
    queryClient.setQueryData(keys.me, user);
    void navigate(safeNext(params.get('next')), { replace: true });
  };
}

/** CodeStep asks a user with two-factor sign-in on for the code, after the password was right. */
function CodeStep({ pendingToken, onRestart }: { pendingToken: string; onRestart: () => void }) {
  const [code, setCode] = useState('');
  const signedIn = useSignedIn();
  const verify = useMutation({
    meta: { public: true },
    mutationFn: () => unwrap(client.POST('/api/auth/login/two-factor', { body: { pendingToken, code: code.trim() } })),
    onSuccess: (data) => signedIn(data.user),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    verify.mutate();
  };
  const err = verify.error instanceof ApiError ? verify.error : undefined;
  let message;
  if (err?.code === 'INVALID_CREDENTIALS') message = 'That code did not work. Enter the code your app shows now; each code works only once.';
  else if (err?.code === 'UNAUTHENTICATED') message = 'This sign-in has expired. Start again with your email and password.';
  return (
    <section className="auth-card" aria-labelledby="code-title">
      <h1 id="code-title">Enter your code</h1>
      <form onSubmit={submit} noValidate>
        <p>Open your authenticator app and enter the 6-digit code it shows for Trade Journal. Lost your phone? Enter one of your recovery codes instead.</p>
        <Field
          label="Code"
          inputMode="numeric"
          autoComplete="one-time-code"
          autoFocus
          required
          maxLength={24}
          value={code}
          onChange={(e) => setCode(e.target.value)}
        />
        {message ? (
          <p className="note note-error" role="alert">
            {message}
          </p>
        ) : (
          <ErrorNote error={verify.error} />
        )}
        <button type="submit" disabled={verify.isPending || code.trim() === ''}>
          {verify.isPending ? 'Checking…' : 'Sign in'}
        </button>
      </form>
      <p>
        <button type="button" className="link" onClick={onRestart}>
          Start again
        </button>
      </p>
    </section>
  );
}

export default function SignIn() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [pendingToken, setPendingToken] = useState<string | null>(null);
  const signedIn = useSignedIn();
  const signIn = useMutation({
    meta: { public: true },
    mutationFn: () => unwrap(client.POST('/api/auth/login', { body: { email, password } })),
    onSuccess: (data) => {
      if ('pendingToken' in data) {
        setPendingToken(data.pendingToken);
        return;
      }
      signedIn(data.user);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    signIn.mutate();
  };
  if (pendingToken) {
    return (
      <CodeStep
        pendingToken={pendingToken}
        onRestart={() => {
          setPendingToken(null);
          setPassword('');
          signIn.reset();
        }}
      />
    );
  }
  const invalid = signIn.error instanceof ApiError && signIn.error.code === 'INVALID_CREDENTIALS';
  return (
    <section className="auth-card" aria-labelledby="signin-title">
      <h1 id="signin-title">Sign in</h1>
      <form onSubmit={submit} noValidate>
        <EmailField value={email} onChange={setEmail} />
        <Field
          label="Password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        {invalid ? (
          <p className="note note-error" role="alert">
            Wrong email or password.
          </p>
        ) : (
          <ErrorNote error={signIn.error} />
        )}
        <button type="submit" disabled={signIn.isPending}>
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p>
        <Link to="/forgot-password">Forgot your password?</Link>
      </p>
      <div className="signup-offer">
        <p>New to this Trade Journal?</p>
        <Link to="/signup" className="button ghost">
          Create an account
        </Link>
      </div>
    </section>
  );
}
