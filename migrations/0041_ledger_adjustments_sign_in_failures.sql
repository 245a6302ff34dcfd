-- Issue 35: the ledger keeps its history (a reconcile to the broker's
-- balance is an adjustment entry; deleting a deposit, withdrawal or
-- adjustment writes the reversing entry instead of erasing the row), an
-- account's stored buying power for the calculator, and the failed
-- sign-ins an account's owner is told about.

-- adjustment: the difference a reconcile recorded to bring the balance to
-- the broker's. Like a deposit it belongs to no position.
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check;
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_check;
ALTER TABLE ledger_entries
    ADD CONSTRAINT ledger_entries_kind_check CHECK (kind IN ('deposit', 'withdrawal', 'adjustment', 'realized_pnl', 'fee')),
    ADD CONSTRAINT ledger_entries_check CHECK ((kind IN ('deposit', 'withdrawal', 'adjustment')) = (position_id IS NULL));

-- reverses_id: this entry undoes that one (same kind, opposite amount),
-- written when the user deletes an entry. Unique, so an entry is reversed
-- at most once; a reversal is itself never reversed (journalstore).
ALTER TABLE ledger_entries
    ADD COLUMN reverses_id uuid UNIQUE REFERENCES ledger_entries (id) ON DELETE CASCADE,
    ADD CONSTRAINT ledger_entries_reverses_user_entry CHECK (reverses_id IS NULL OR position_id IS NULL);

-- The figure the calculator caps a position against when this account is
-- chosen (its buying power at the broker, margin included); null: none
-- stored, the calculator asks. The account-balance domain, as the
-- calculator's buyingPower.
ALTER TABLE accounts ADD COLUMN buying_power numeric(18, 4);

-- Wrong passwords given for a user's account. failed counts those since
-- the user's last sign-in; a sign-in moves it to notice, which the
-- security settings show ("N failed sign-in attempts since your last
-- sign-in") until dismissed. mailed_at: the last alert mail, so an attack
-- mails at most once a day.
CREATE TABLE sign_in_failures (
    user_id        uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    failed         integer NOT NULL DEFAULT 0 CHECK (failed >= 0),
    last_failed_at timestamptz,
    notice         integer NOT NULL DEFAULT 0 CHECK (notice >= 0),
    notice_last_at timestamptz,
    mailed_at      timestamptz
);
