-- Two-factor sign-in (TOTP, RFC 6238) and personal API tokens
-- (shared/auth totp.go and apitokens.go).

-- One authenticator per user. The secret is sealed with ENCRYPTION_KEY
-- (encrypt.TOTPSecrets; rotation walks it by id). enabled_at is null while an
-- enrolment waits for its first code; last_step is the latest 30-second step
-- whose code was accepted, so a code is used at most once.
CREATE TABLE user_totp (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id    uuid NOT NULL UNIQUE REFERENCES users (id) ON DELETE CASCADE,
    secret     text NOT NULL,
    enabled_at timestamptz,
    last_step  bigint NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL
);

-- Ten single-use recovery codes per enrolment, as their SHA-256 (80 random
-- bits each, so a plain hash is enough; see auth.NewRecoveryCodes).
CREATE TABLE totp_recovery_codes (
    user_id   uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code_hash bytea NOT NULL,
    used_at   timestamptz,
    PRIMARY KEY (user_id, code_hash)
);

-- A password accepted for a user with two-factor on: the short-lived,
-- single-purpose token that the code step completes. Not a session: it
-- opens nothing but POST /api/auth/login/totp.
CREATE TABLE signin_challenges (
    token_hash bytea PRIMARY KEY,
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    expires_at timestamptz NOT NULL
);
CREATE INDEX signin_challenges_user_id_idx ON signin_challenges (user_id);

-- Personal API tokens: the token is shown once; the row holds its SHA-256.
CREATE TABLE api_tokens (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    scopes       text[] NOT NULL CHECK (cardinality(scopes) BETWEEN 1 AND 3),
    token_hash   bytea NOT NULL UNIQUE,
    created_at   timestamptz NOT NULL,
    last_used_at timestamptz
);
CREATE INDEX api_tokens_user_id_idx ON api_tokens (user_id, created_at DESC);
