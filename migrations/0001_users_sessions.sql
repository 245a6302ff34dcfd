-- Users, their sessions, and what the instance remembers about itself.

CREATE TABLE users (
    id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    -- Stored trimmed and lowercase, so equality is case-insensitive uniqueness.
    email          text NOT NULL CONSTRAINT users_email_key UNIQUE
                   CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 254),
    password_hash  text NOT NULL,
    email_verified boolean NOT NULL DEFAULT false,
    is_admin       boolean NOT NULL DEFAULT false,
    timezone       text NOT NULL DEFAULT 'UTC',
    created_at     timestamptz NOT NULL DEFAULT now(),
    -- Latest session activity, kept here so it outlives logged-out sessions.
    last_active_at timestamptz
);

-- The admin list pages newest first by (created_at, id).
CREATE INDEX users_created_at_id_idx ON users (created_at DESC, id DESC);
CREATE INDEX users_is_admin_idx ON users (id) WHERE is_admin;

CREATE TABLE sessions (
    -- SHA-256 of the cookie token: the token itself is never stored.
    token_hash   bytea PRIMARY KEY,
    user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL
);

CREATE INDEX sessions_user_id_idx ON sessions (user_id);
CREATE INDEX sessions_expires_at_idx ON sessions (expires_at);

-- Facts about this instance, such as that its first admin was bootstrapped.
CREATE TABLE instance_state (
    key        text PRIMARY KEY,
    value      text NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
