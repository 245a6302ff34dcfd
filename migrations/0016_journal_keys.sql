-- Fewer, wider foreign keys on the journal's bulk-written tables. PostgreSQL
-- checks a foreign key row by row, so a 10,000-row CSV import (5,000
-- positions, 10,000 fills, 15,000 ledger rows) paid for 65,000 checks, over
-- half of its commit. Each pair of keys below named one parent through two
-- columns that must agree but were never checked against each other; one
-- composite key now checks both the parent and the agreement, once a row.

-- A position's account must be one of its user's: (account_id, user_id)
-- names the account, in place of a key to accounts and another to users. A
-- user's positions still go with the user, by way of the accounts.
CREATE UNIQUE INDEX accounts_id_user_key ON accounts (id, user_id);
ALTER TABLE positions
    DROP CONSTRAINT positions_user_id_fkey,
    DROP CONSTRAINT positions_account_id_fkey,
    ADD CONSTRAINT positions_account_fkey FOREIGN KEY (account_id, user_id)
        REFERENCES accounts (id, user_id) ON DELETE CASCADE;

-- A ledger row of a fill (realised P&L, fee) must name that fill's
-- position: (position_id, fill_id) names the fill, in place of a key to
-- fills and another to positions, and goes with it (a position's deletion
-- cascades to its fills). Deposits and withdrawals name neither. The
-- fills index that served the old key by position now leads the new one;
-- a position's few fills are sorted by time when read.
CREATE UNIQUE INDEX fills_position_fill_key ON fills (position_id, id);
DROP INDEX fills_position_id_idx;
ALTER TABLE ledger_entries
    DROP CONSTRAINT ledger_entries_position_id_fkey,
    DROP CONSTRAINT ledger_entries_fill_id_fkey,
    ADD CONSTRAINT ledger_entries_fill_fkey FOREIGN KEY (position_id, fill_id)
        REFERENCES fills (position_id, id) ON DELETE CASCADE,
    ADD CONSTRAINT ledger_entries_fill_check CHECK ((position_id IS NULL) = (fill_id IS NULL));
