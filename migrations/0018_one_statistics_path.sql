-- One statistics path (issue 17): GET /api/performance folds every figure
-- from the closed positions themselves (shared/stats), so the rollups of
-- 0011 and the triggers that kept them, a second copy of the arithmetic,
-- go.

DROP TRIGGER perf_positions_insert ON positions;
DROP TRIGGER perf_positions_update ON positions;
DROP TRIGGER perf_positions_delete ON positions;
DROP TRIGGER perf_position_deleting ON positions;
DROP TRIGGER perf_tags_insert ON position_tags;
DROP TRIGGER perf_tags_update ON position_tags;
DROP TRIGGER perf_tags_delete ON position_tags;
DROP TRIGGER perf_account_moved ON accounts;

DROP FUNCTION perf_positions_inserted();
DROP FUNCTION perf_positions_updated();
DROP FUNCTION perf_positions_deleted();
DROP FUNCTION perf_position_deleting();
DROP FUNCTION perf_tags_inserted();
DROP FUNCTION perf_tags_updated();
DROP FUNCTION perf_tags_deleted();
DROP FUNCTION perf_account_moved();
DROP FUNCTION perf_tag_links(position_tags[], int);
DROP FUNCTION perf_apply(perf_change[], boolean);
DROP FUNCTION perf_set_basis(uuid, text[], numeric[]);
DROP FUNCTION perf_rebuild(uuid);
DROP FUNCTION perf_refresh_series(uuid, date[], boolean);
DROP FUNCTION perf_refresh_days(uuid[], uuid[], date[]);
DROP FUNCTION perf_lock(uuid);
DROP TYPE perf_change;

DROP TABLE perf_basis;
DROP TABLE perf_series;
DROP TABLE perf_tags;
DROP TABLE perf_symbols;
DROP TABLE perf_days;

-- The statistics read a user's closed positions in close order, every
-- column they need from the index alone (an index-only scan, no sort). It
-- replaces positions_user_closed_idx (user_id, closed_at), which it
-- covers, so the writes (the CSV import's COPY among them) keep as many
-- indexes as before.
DROP INDEX positions_user_closed_idx;
CREATE INDEX positions_closed_stats_idx ON positions (user_id, closed_at, id)
    INCLUDE (account_id, symbol, net_pnl, gross_pnl, fees, r_multiple) WHERE status = 'closed';
