-- The positions list's sorts (GET /api/positions?sort=): each sortable
-- column with the id that breaks its ties, so that any page of any sort is
-- one index range read forward (ascending) or backward (descending), the
-- positions without the value (NULL) included. Opened time already has
-- positions_user_opened_idx. The close's index replaces
-- positions_user_closed_idx (user_id, closed_at) WHERE status = 'closed',
-- whose reads of closes by time it serves as well: the open positions it
-- adds are few. Three more indexes to keep up on a write, so a position's
-- write costs a little more (docs/performance.md).
CREATE INDEX positions_user_closed_at_idx ON positions (user_id, closed_at, id);
DROP INDEX positions_user_closed_idx;
CREATE INDEX positions_user_symbol_idx ON positions (user_id, symbol, id);
CREATE INDEX positions_user_net_pnl_idx ON positions (user_id, net_pnl, id);
CREATE INDEX positions_user_r_multiple_idx ON positions (user_id, r_multiple, id);
