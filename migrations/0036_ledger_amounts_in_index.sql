-- The account's ledger index carries the amount, so that the sums of a
-- stretch of it (the trading rules' balance at the start of each day of
-- a range: journalstore.RuleTrades) are index-only scans, not a visit to
-- each row. It replaces ledger_entries_account_idx (same keys, which the
-- ledger's pages walk): one index to keep up on every write, as before.
CREATE INDEX ledger_entries_account_amount_idx ON ledger_entries (account_id, occurred_at DESC, id DESC) INCLUDE (amount);
DROP INDEX ledger_entries_account_idx;
