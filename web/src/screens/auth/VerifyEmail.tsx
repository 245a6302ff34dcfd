import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { useMutation } from '@tanstack/react-query';
import { client, unwrap, ApiError } from '../../api/client';
import { takeFragmentToken } from '../../fragment';
import { ErrorNote, Loading } from '../../components/ui';

export default function VerifyEmail() {
  const [token] = useState(takeFragmentToken);
  const sent = useRef(false);
  const verify = useMutation({
    meta: { public: true },
    mutationFn: (t: string) => unwrap(client.POST('/api/auth/verify-email', { body: { token: t } })),
  });
  useEffect(() => {
    // Once, even under StrictMode's double effect: the token is single use.
    if (token && !sent.current) {
      sent.current = true;
      verify.mutate(token);
    }
  }, [token, verify]);
  const invalid = verify.error instanceof ApiError && verify.error.status === 400;
  return (
    <section className="auth-card" aria-labelledby="verify-title">
      <h1 id="verify-title">Confirm your email</h1>
      {!token ? (
        <p role="alert">This link has no verification token. Open the link from the email again.</p>
      ) : verify.isSuccess ? (
        <p role="status">
          Your email address is confirmed. <Link to="/">Open your journal</Link>
        </p>
      ) : invalid ? (
        <p role="alert">This verification link is invalid, used or expired. Sign in and ask for a new one in Settings.</p>
      ) : verify.isError ? (
        <ErrorNote error={verify.error} />
      ) : (
        <Loading label="Confirming…" />
      )}
    </section>
  );
}
