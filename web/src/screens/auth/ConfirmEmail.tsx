import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { client, unwrap, ApiError } from '../../api/client';
import { keys } from '../../api/queries';
import { takeFragmentToken } from '../../fragment';
import { ErrorNote, Loading } from '../../components/ui';

/** ConfirmEmail is the page of the link mailed to a new address (Settings → Security → Email address). */
export default function ConfirmEmail() {
  const [token] = useState(takeFragmentToken);
  const sent = useRef(false);
  const queryClient = useQueryClient();
  const confirm = useMutation({
    meta: { public: true },
    mutationFn: (t: string) => unwrap(client.POST('/api/users/email-change/confirm', { body: { token: t } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: keys.me }),
  });
  useEffect(() => {
    // Once, even under StrictMode's double effect: the token is single use.
    if (token && !sent.current) {
      sent.current = true;
      confirm.mutate(token);
    }
  }, [token, confirm]);
  const err = confirm.error instanceof ApiError ? confirm.error : undefined;
  return (
    <section className="auth-card" aria-labelledby="confirm-email-title">
      <h1 id="confirm-email-title">Confirm your new email address</h1>
      {!token ? (
        <p role="alert">This link has no confirmation token. Open the link from the email again.</p>
      ) : confirm.isSuccess ? (
        <p role="status">
          Your email address is changed. From now on, sign in with the new one. <Link to="/">Open your journal</Link>
        </p>
      ) : err?.status === 400 ? (
        <p role="alert">This link is invalid, used or expired, or a newer change replaced it. Sign in and change your email address again in Settings.</p>
      ) : err?.code === 'EMAIL_TAKEN' ? (
        <p role="alert">Another account took this email address in the meantime, so your address stays as it was.</p>
      ) : confirm.isError ? (
        <ErrorNote error={confirm.error} />
      ) : (
        <Loading label="Confirming…" />
      )}
    </section>
  );
}
