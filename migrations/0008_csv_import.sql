-- CSV import previews, staged between POST /api/csv-import/preview and
-- POST /api/csv-import/commit. A row holds the fills a preview read from the
-- file (shared/brokerfile's staged form), never the file itself.
--
-- Lifecycle: a preview inserts a row in state 'staged'. A commit claims it
-- with one atomic UPDATE (state 'committing', claimed_at set; only one of two
-- racing commits wins), writes the positions and fills in one transaction
-- and deletes the row in that same transaction. A staged row older than
-- CSV_IMPORT_STAGING_TTL_MINUTES is expired: it cannot be claimed and the
-- clean-up deletes it. A row left 'committing' longer than
-- CSV_IMPORT_CLAIM_TIMEOUT_SECONDS (its commit died with its process) is
-- deleted by the clean-up as well. created_at and claimed_at come from the
-- application's clock, so tests can move time.
CREATE TABLE csv_import_staging (
    -- SHA-256 of the token the preview returned; the token itself is never stored.
    token_hash    bytea PRIMARY KEY CHECK (length(token_hash) = 32),
    user_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    account_id    uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    state         text NOT NULL DEFAULT 'staged' CHECK (state IN ('staged', 'committing')),
    created_at    timestamptz NOT NULL,
    claimed_at    timestamptz,
    payload       bytea NOT NULL,
    -- The payload's size, checked against CSV_IMPORT_MAX_STAGED_BYTES
    -- before the insert; kept for the operator's eye.
    payload_bytes integer NOT NULL CHECK (payload_bytes = length(payload)),
    CHECK ((state = 'committing') = (claimed_at IS NOT NULL))
);
-- Stored out of line without compression: the payload is written once and
-- read once, and compressing a few megabytes costs more than it saves.
ALTER TABLE csv_import_staging ALTER COLUMN payload SET STORAGE EXTERNAL;

-- A user's previews (the cap on how many one user keeps staged).
CREATE INDEX csv_import_staging_user_idx ON csv_import_staging (user_id, created_at);
-- The clean-up's two sweeps.
CREATE INDEX csv_import_staging_staged_idx ON csv_import_staging (created_at) WHERE state = 'staged';
CREATE INDEX csv_import_staging_claimed_idx ON csv_import_staging (claimed_at) WHERE state = 'committing';
