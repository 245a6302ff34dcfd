-- The daily journal (shared/dayjournal, functions/journaldays): one entry per
-- user and trading day, with a pre-market plan, a review and free notes
-- (Markdown source; sealed with ENCRYPTION_KEY like position notes, so
-- text), a mood from 1 (awful) to 5 (great), and day tags of the user's own.
-- A day is a calendar date, as the statistics' byDay and the positions
-- list's dateBy=closed read a trading day (in each account's zone).
CREATE TABLE journal_days (
    -- Rotation (encrypt.Rotate) re-seals a table's values by its uuid id.
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    day        date NOT NULL CHECK (day BETWEEN '1900-01-01' AND '2199-12-31'),
    plan       text NOT NULL DEFAULT '',
    review     text NOT NULL DEFAULT '',
    notes      text NOT NULL DEFAULT '',
    mood       smallint CHECK (mood BETWEEN 1 AND 5),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    -- One entry a day; also the list's index, newest first (scanned backwards).
    CONSTRAINT journal_days_user_day_key UNIQUE (user_id, day)
);

-- A day's tags must be its user's: the keys name the day and the tag each
-- with the user, so the database holds the two to one user.
CREATE UNIQUE INDEX tags_id_user_key ON tags (id, user_id);
CREATE TABLE journal_day_tags (
    user_id uuid NOT NULL,
    day     date NOT NULL,
    tag_id  uuid NOT NULL,
    PRIMARY KEY (user_id, day, tag_id),
    FOREIGN KEY (user_id, day) REFERENCES journal_days (user_id, day) ON DELETE CASCADE,
    FOREIGN KEY (tag_id, user_id) REFERENCES tags (id, user_id) ON DELETE CASCADE
);
-- A tag's deletion finds its days.
CREATE INDEX journal_day_tags_tag_idx ON journal_day_tags (tag_id);
