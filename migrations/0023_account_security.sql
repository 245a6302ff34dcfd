-- Account security (issue 22): the signed-in devices a user sees and ends,
-- accounts an administrator disables, email changes awaiting confirmation,
-- and a record of committed CSV imports for the instance's usage figures.

-- A session's public id (the token hash stays the lookup key and is never
-- shown) and the browser that signed in, cut to 200 characters.
ALTER TABLE sessions
    ADD COLUMN id uuid NOT NULL DEFAULT gen_random_uuid(),
    ADD COLUMN user_agent text NOT NULL DEFAULT '' CHECK (length(user_agent) <= 200);
CREATE UNIQUE INDEX sessions_id_key ON sessions (id);

-- Set while an administrator has disabled the account: no sign-in, no session.
ALTER TABLE users ADD COLUMN disabled_at timestamptz;

-- An email change is a mailed token that carries the new address; the
-- change happens when the token is used.
ALTER TABLE email_tokens DROP CONSTRAINT email_tokens_purpose_check;
ALTER TABLE email_tokens
    ADD CONSTRAINT email_tokens_purpose_check CHECK (purpose IN ('verify', 'reset', 'email')),
    ADD COLUMN new_email text CHECK (new_email = lower(new_email) AND length(new_email) BETWEEN 3 AND 254),
    ADD CONSTRAINT email_tokens_address_only_for_change CHECK (new_email IS NULL OR purpose = 'email');

-- One row per committed CSV import (counts only, for the admin usage
-- panel); imports committed before this migration are not counted.
CREATE TABLE csv_imports (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    committed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX csv_imports_user_idx ON csv_imports (user_id);
