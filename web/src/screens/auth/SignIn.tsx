import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { client, unwrap, ApiError } from '../../api/client';
import { keys } from '../../api/queries';
import { rememberSession } from '../../session';
import { safeNext } from '../../fragment';
import { EmailField } from '../../components/authFields';
import { ErrorNote, Field } from '../../components/ui';

export default function SignIn() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const signIn = useMutation({
    meta: { public: true },
    mutationFn: () => unwrap(client.POST('/api/auth/login', { body: { email, password } })),
    onSuccess: (data) => {
      rememberSession();
      queryClient.clear();
      queryClient.setQueryData(keys.me, data.user);
      void navigate(safeNext(params.get('next')), { replace: true });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    signIn.mutate();
  };
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
