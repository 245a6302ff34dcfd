-- Indexes for the filtered positions list (GET /api/positions), which pages
-- by keyset on (opened_at DESC NULLS FIRST, id DESC). 0003's
-- positions_user_opened_idx serves the unfiltered list; with a filter it
-- walks every newer position until a page is full, which is fine for a
-- common filter value and slow for a rare one (a symbol traded twice, a new
-- account, the few open positions among 100,000 closed ones: 40 ms and
-- more). These keep each filtered page one short, ordered index range.

-- By symbol. Replaces (user_id, symbol), whose lookups it serves as well.
DROP INDEX positions_user_symbol_idx;
CREATE INDEX positions_user_symbol_opened_idx ON positions (user_id, symbol, opened_at DESC NULLS FIRST, id DESC);

-- By account. Replaces (account_id), whose lookups (the foreign key's
-- cascade, an account's positions) it serves as well.
DROP INDEX positions_account_id_idx;
CREATE INDEX positions_account_opened_idx ON positions (account_id, opened_at DESC NULLS FIRST, id DESC);

-- Drafts and open positions: few beside the closed ones. The list adds
-- "status <> 'closed'" to a draft or open filter so this index applies.
CREATE INDEX positions_user_unclosed_idx ON positions (user_id, opened_at DESC NULLS FIRST, id DESC)
    WHERE status <> 'closed';
