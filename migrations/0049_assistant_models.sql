-- The assistant's models, keys, consent and tools (issue 34, points 3 to 5).

-- A trader's own provider keys. The key itself is sealed with
-- ENCRYPTION_KEY (never stored without it) and never returned: the list
-- shows the provider, the model and the key's last four characters.
CREATE TABLE assistant_keys (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    provider   text NOT NULL CHECK (provider IN ('openai', 'anthropic')),
    model      text NOT NULL CHECK (length(model) BETWEEN 1 AND 200),
    images     boolean NOT NULL DEFAULT false,
    secret     text NOT NULL,
    last4      text NOT NULL CHECK (length(last4) <= 4),
    created_at timestamptz NOT NULL
);
CREATE INDEX assistant_keys_user_idx ON assistant_keys (user_id, created_at);

-- Whether the assistant may read the trader's journal. No row: it may not.
CREATE TABLE assistant_settings (
    user_id        uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    journal_access boolean NOT NULL,
    updated_at     timestamptz NOT NULL
);

-- Which model answered a turn (an operator model's id, or key:<own key id>).
ALTER TABLE assistant_turns ADD COLUMN model text;

-- The tool calls of a turn and their results, in the order they ran. The
-- detail ({arguments, result}) is sealed like the messages.
CREATE TABLE assistant_tool_calls (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    turn_id    uuid NOT NULL REFERENCES assistant_turns (id) ON DELETE CASCADE,
    seq        integer NOT NULL CHECK (seq >= 0),
    name       text NOT NULL,
    detail     text NOT NULL,
    created_at timestamptz NOT NULL,
    UNIQUE (turn_id, seq)
);
