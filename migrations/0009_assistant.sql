-- The trade-review assistant: conversations, their messages, and the turns
-- that produced them. Titles and message text are private free text: sealed
-- with ENCRYPTION_KEY when it is set (shared/encrypt), so text.

CREATE TABLE assistant_conversations (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    title      text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
-- The list pages newest activity first by keyset on (updated_at, id).
CREATE INDEX assistant_conversations_user_idx ON assistant_conversations (user_id, updated_at DESC, id DESC);

-- One submitted question and its answer. A turn is running while it
-- streams; it ends complete (the provider finished) or incomplete (budget,
-- client disconnect, provider error, an internal error, or abandoned by a
-- process that died).
CREATE TABLE assistant_turns (
    id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id           uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    conversation_id   uuid NOT NULL REFERENCES assistant_conversations (id) ON DELETE CASCADE,
    -- The client's key for this submit: a retry with the same key replays
    -- the stored answer instead of running (and charging) again.
    idempotency_key   text NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 128),
    status            text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'complete', 'incomplete')),
    end_reason        text CHECK (end_reason IN ('complete', 'budget', 'disconnect', 'provider_error', 'error', 'abandoned')),
    -- The credit hold of shared/wallet; settled or released when the turn ends.
    reservation_id    uuid,
    prompt_tokens     bigint CHECK (prompt_tokens >= 0),
    completion_tokens bigint CHECK (completion_tokens >= 0),
    credits_charged   bigint NOT NULL DEFAULT 0 CHECK (credits_charged >= 0),
    started_at        timestamptz NOT NULL,
    finished_at       timestamptz,
    UNIQUE (user_id, idempotency_key),
    CHECK ((status = 'running') = (finished_at IS NULL)),
    CHECK ((status = 'running') = (end_reason IS NULL))
);
-- One turn at a time per user, in every process: a second running turn is
-- a unique violation.
CREATE UNIQUE INDEX assistant_turns_one_running_idx ON assistant_turns (user_id) WHERE status = 'running';
CREATE INDEX assistant_turns_conversation_idx ON assistant_turns (conversation_id);

CREATE TABLE assistant_messages (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    -- Insertion order: a turn's question and answer share a timestamp.
    seq             bigint GENERATED ALWAYS AS IDENTITY,
    conversation_id uuid NOT NULL REFERENCES assistant_conversations (id) ON DELETE CASCADE,
    turn_id         uuid NOT NULL REFERENCES assistant_turns (id) ON DELETE CASCADE,
    role            text NOT NULL CHECK (role IN ('user', 'assistant')),
    content         text NOT NULL,
    -- false for an answer cut short (budget, disconnect, provider error).
    complete        boolean NOT NULL,
    created_at      timestamptz NOT NULL,
    UNIQUE (turn_id, role)
);
CREATE INDEX assistant_messages_conversation_idx ON assistant_messages (conversation_id, seq);
