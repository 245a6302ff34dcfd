-- Two changes of issue 38: the positions list's sorts, and the demo
-- journal's newer features.

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

-- The demo journal's newer features (functions/accounts, demo.go). Its
-- trading rule and options strategy belong to the demo account and go with
-- it (ON DELETE CASCADE); its playbook and day entry belong to the user,
-- not an account, so they carry the flag tags have had since 0020: the
-- removal takes the demo playbook when no position of the user's own
-- follows it, and the demo day entry unless the user wrote in it (a write
-- clears the flag: dayjournal.Store.Write).
ALTER TABLE playbooks ADD COLUMN demo boolean NOT NULL DEFAULT false;
ALTER TABLE journal_days ADD COLUMN demo boolean NOT NULL DEFAULT false;
