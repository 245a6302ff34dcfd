-- Single-use tokens mailed for email verification and password reset, and
-- the outbox the mailer drains, so sending never blocks or fails a request.

CREATE TABLE email_tokens (
    -- SHA-256 of the token: the token itself only travels in the mail.
    token_hash bytea PRIMARY KEY,
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    purpose    text NOT NULL CHECK (purpose IN ('verify', 'reset')),
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX email_tokens_user_idx ON email_tokens (user_id, purpose);

-- A row is deleted once sent (its link carries a live token) or after its
-- last attempt.
CREATE TABLE email_outbox (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    to_address      text NOT NULL,
    subject         text NOT NULL,
    body            text NOT NULL,
    attempts        integer NOT NULL DEFAULT 0,
    -- New mail is due at once, whatever the clocks say.
    next_attempt_at timestamptz NOT NULL DEFAULT '-infinity',
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX email_outbox_due_idx ON email_outbox (next_attempt_at);
