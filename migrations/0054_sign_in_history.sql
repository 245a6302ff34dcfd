-- The sign-in history of a user (shared/auth/signinhistory.go): each
-- session started and each wrong password, with the browser, the newest
-- auth.KeptSignInEvents kept. The owner's security settings and the
-- administrator's user detail list it. No address, no password.
CREATE TABLE sign_in_events (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    at         timestamptz NOT NULL,
    succeeded  boolean NOT NULL,
    user_agent text NOT NULL DEFAULT ''
);
CREATE INDEX sign_in_events_user_idx ON sign_in_events (user_id, id DESC);
