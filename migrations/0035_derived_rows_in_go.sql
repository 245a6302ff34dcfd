-- Derived rows are kept by the journal store's write transaction itself
-- (shared/journalstore, writeTx): it records every position, strategy and
-- balance a write touches and, once before commit, analyses the touched
-- strategies and encodes the closed_trades rows again in Go
-- (shared/stats/record.go, the one definition of the packed record, with a
-- version byte). Nothing is derived in SQL any more: the triggers that
-- marked strategies stale and the plpgsql encoder of migrations 0022,
-- 0030 and 0033 go, and with them the strategies' "analysed" mark.
DROP TRIGGER positions_leg_inserted ON positions;
DROP TRIGGER positions_leg_updated ON positions;
DROP TRIGGER positions_leg_deleted ON positions;
DROP FUNCTION strategies_stale();
DROP TRIGGER strategies_risk_changed ON strategies;
DROP FUNCTION strategies_risk_changed();
ALTER TABLE strategies DROP COLUMN analysed;

DROP FUNCTION closed_trades_rebuild(uuid);
DROP FUNCTION closed_trades_refresh(uuid, uuid[], date[]);
DROP FUNCTION closed_trades_numeric(numeric);
DROP FUNCTION closed_trades_text(text);

-- The journals whose derived rows are of an older layout (every one here:
-- the rows 0033 wrote have no version byte). The deploy's migrate step
-- (journalstore.Migrate: `local migrate`, the api's start, the migration
-- function) rebuilds each from its positions and takes it off the list; a
-- later change of the record's layout queues every journal again.
CREATE TABLE journal_rebuilds (
    user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE
);
INSERT INTO journal_rebuilds (user_id) SELECT DISTINCT user_id FROM positions;
