-- The assistant's personas (shared/assistantdata): a trader's own ways for
-- it to speak, each a name and instructions added to the system prompt.
-- The built-in default is not a row: a conversation without a persona uses it.
CREATE TABLE assistant_personas (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         text NOT NULL CHECK (length(name) BETWEEN 1 AND 60),
    instructions text NOT NULL CHECK (length(instructions) BETWEEN 1 AND 2000),
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL
);
-- Names are unique per user, ignoring case.
CREATE UNIQUE INDEX assistant_personas_user_name_idx ON assistant_personas (user_id, lower(name));

-- A conversation's persona (NULL: the built-in default; a deleted persona
-- leaves its conversations on the default), and the review it was opened
-- for: a week or a day (review_date) or a position (review_position_id,
-- no foreign key: each turn reads it with the user's rights, and a deleted
-- position is then said to be gone).
ALTER TABLE assistant_conversations
    ADD COLUMN persona_id         uuid REFERENCES assistant_personas (id) ON DELETE SET NULL,
    ADD COLUMN review_kind        text CHECK (review_kind IN ('week', 'day', 'position')),
    ADD COLUMN review_date        date,
    ADD COLUMN review_position_id uuid,
    ADD CONSTRAINT assistant_conversations_review_check CHECK (
        (review_kind IS NULL AND review_date IS NULL AND review_position_id IS NULL)
        OR (review_kind IN ('week', 'day') AND review_date IS NOT NULL AND review_position_id IS NULL)
        OR (review_kind = 'position' AND review_position_id IS NOT NULL AND review_date IS NULL));
CREATE INDEX assistant_conversations_persona_idx ON assistant_conversations (persona_id) WHERE persona_id IS NOT NULL;
