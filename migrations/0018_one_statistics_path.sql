-- One statistics path (issue 17): GET /api/performance folds every figure
-- from the closed positions themselves (shared/stats), so the rollups of
-- 0011 and the triggers that kept them, a second copy of the arithmetic,
-- go. IF EXISTS throughout: the journal store's own migration may already
-- have dropped some of them.

DROP TRIGGER IF EXISTS perf_positions_insert ON positions;
DROP TRIGGER IF EXISTS perf_positions_update ON positions;
DROP TRIGGER IF EXISTS perf_positions_delete ON positions;
DROP TRIGGER IF EXISTS perf_position_deleting ON positions;
DROP TRIGGER IF EXISTS perf_tags_insert ON position_tags;
DROP TRIGGER IF EXISTS perf_tags_update ON position_tags;
DROP TRIGGER IF EXISTS perf_tags_delete ON position_tags;
DROP TRIGGER IF EXISTS perf_account_moved ON accounts;

DROP FUNCTION IF EXISTS perf_positions_inserted();
DROP FUNCTION IF EXISTS perf_positions_updated();
DROP FUNCTION IF EXISTS perf_positions_deleted();
DROP FUNCTION IF EXISTS perf_position_deleting();
DROP FUNCTION IF EXISTS perf_tags_inserted();
DROP FUNCTION IF EXISTS perf_tags_updated();
DROP FUNCTION IF EXISTS perf_tags_deleted();
DROP FUNCTION IF EXISTS perf_account_moved();
DROP FUNCTION IF EXISTS perf_tag_links(position_tags[], int);
DROP FUNCTION IF EXISTS perf_apply(perf_change[], boolean);
DROP FUNCTION IF EXISTS perf_set_basis(uuid, text[], numeric[]);
DROP FUNCTION IF EXISTS perf_rebuild(uuid);
DROP FUNCTION IF EXISTS perf_refresh_series(uuid, date[], boolean);
DROP FUNCTION IF EXISTS perf_refresh_days(uuid[], uuid[], date[]);
DROP FUNCTION IF EXISTS perf_lock(uuid);
DROP TYPE IF EXISTS perf_change;

DROP TABLE IF EXISTS perf_basis;
DROP TABLE IF EXISTS perf_series;
DROP TABLE IF EXISTS perf_tags;
DROP TABLE IF EXISTS perf_symbols;
DROP TABLE IF EXISTS perf_days;

-- The statistics read a user's closed positions in close order, every
-- column they need from the index alone (an index-only scan, no sort). It
-- replaces positions_user_closed_idx (user_id, closed_at), which it
-- covers, so the writes (the CSV import's COPY among them) keep as many
-- indexes as before.
DROP INDEX IF EXISTS positions_user_closed_idx;
CREATE INDEX positions_closed_stats_idx ON positions (user_id, closed_at, id)
    INCLUDE (account_id, symbol, net_pnl, gross_pnl, fees, r_multiple) WHERE status = 'closed';
