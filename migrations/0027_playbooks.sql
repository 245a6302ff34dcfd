-- Playbooks (issue 21): a user's named setups, each with a checklist of
-- criteria. A position follows at most one playbook (positions.playbook_id)
-- and ticks the criteria of that playbook it met (position_criteria). The
-- journal store (shared/journalstore/playbooks.go) writes them; it only
-- ticks criteria of the position's own playbook, and clears the ticks when
-- the playbook changes. The statistics read both from closed_trades
-- (migration 0030).
CREATE TABLE playbooks (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    -- Sealed when ENCRYPTION_KEY is set (encrypt.PlaybookDescriptions).
    description text NOT NULL DEFAULT '',
    -- An archived playbook keeps its positions and statistics but is not
    -- offered for new positions.
    archived    boolean NOT NULL DEFAULT false,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX playbooks_user_name_key ON playbooks (user_id, lower(name));

CREATE TABLE playbook_criteria (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    playbook_id uuid NOT NULL REFERENCES playbooks (id) ON DELETE CASCADE,
    sort_order  integer NOT NULL CHECK (sort_order >= 0),
    text        text NOT NULL CHECK (length(text) BETWEEN 1 AND 200)
);
CREATE INDEX playbook_criteria_playbook_id_idx ON playbook_criteria (playbook_id, sort_order);

-- Deleting a playbook leaves its positions without one (their ticks go
-- with the criteria).
ALTER TABLE positions ADD COLUMN playbook_id uuid REFERENCES playbooks (id) ON DELETE SET NULL;
CREATE INDEX positions_playbook_id_idx ON positions (playbook_id) WHERE playbook_id IS NOT NULL;

CREATE TABLE position_criteria (
    position_id  uuid NOT NULL REFERENCES positions (id) ON DELETE CASCADE,
    criterion_id uuid NOT NULL REFERENCES playbook_criteria (id) ON DELETE CASCADE,
    PRIMARY KEY (position_id, criterion_id)
);
CREATE INDEX position_criteria_criterion_id_idx ON position_criteria (criterion_id, position_id);
