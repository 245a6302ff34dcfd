-- The closed_trades record (migration 0022) gains the position's playbook
-- and the criteria it met, after its tags, where a filter reads:
--   id uuid (16) | closed_at, opened_at (8 each) | side (1)
--   | asset_type, symbol, underlying (each: int2 length, then UTF-8)
--   | tags (int2 count, then each tag id: 16)
--   | playbook (int2 count: 0 for none, or 1 and the playbook id: 16)
--   | met criteria (int2 count, then each criterion id: 16)
--   | net_pnl, gross_pnl, fees, r_multiple | entry_quantity, entry notional
-- (the rest as 0022 describes). Whether a position missed a criterion is
-- not stored: it is every criterion of its playbook it did not meet, read
-- with the playbooks. The journal store refreshes the rows whenever a
-- position's playbook or ticks change, and when a playbook or a criterion
-- is deleted. Every user's rows are rebuilt in the new layout here.

CREATE OR REPLACE FUNCTION closed_trades_refresh(owner uuid, accounts uuid[], days date[]) RETURNS void LANGUAGE sql AS $$
    WITH k AS (SELECT DISTINCT a, d FROM unnest(accounts, days) AS k(a, d)),
    -- One index range scan of positions_user_closed_idx a key (LATERAL):
    -- joined as a set, the planner read all the user's closes. The record
    -- is written out here, not in a function of its own: a call a
    -- position (a function with a subquery is not inlined) cost the
    -- 10,000-row import a fifth of its time.
    packs AS (
        SELECT k.a, k.d, x.n, x.packed
        FROM k CROSS JOIN LATERAL (
            SELECT count(*)::int AS n, string_agg(
                uuid_send(p.id) || timestamptz_send(p.closed_at) || timestamptz_send(coalesce(p.opened_at, p.closed_at))
                || CASE p.side WHEN 'long' THEN '\x00'::bytea ELSE '\x01'::bytea END
                || closed_trades_text(p.asset_type) || closed_trades_text(p.symbol)
                || closed_trades_text(coalesce(p.underlying, p.symbol)) || t.tags
                || CASE WHEN p.playbook_id IS NULL THEN '\x0000'::bytea ELSE '\x0001'::bytea || uuid_send(p.playbook_id) END
                || m.met
                || closed_trades_numeric(p.net_pnl) || closed_trades_numeric(p.gross_pnl)
                || closed_trades_numeric(p.fees) || closed_trades_numeric(p.r_multiple)
                || float8send(p.entry_quantity::float8)
                || float8send(coalesce(p.avg_entry_price * p.entry_quantity * p.multiplier, 0)::float8),
                ''::bytea ORDER BY p.closed_at, p.id) AS packed
            FROM positions p
            CROSS JOIN LATERAL (
                SELECT int2send(count(*)::int2) || coalesce(string_agg(uuid_send(pt.tag_id), ''::bytea ORDER BY pt.tag_id), ''::bytea) AS tags
                FROM position_tags pt WHERE pt.position_id = p.id) t
            CROSS JOIN LATERAL (
                SELECT int2send(count(*)::int2) || coalesce(string_agg(uuid_send(pc.criterion_id), ''::bytea ORDER BY pc.criterion_id), ''::bytea) AS met
                FROM position_criteria pc WHERE pc.position_id = p.id) m
            WHERE p.user_id = owner AND p.status = 'closed' AND p.account_id = k.a
                AND p.closed_at >= k.d::timestamp AT TIME ZONE 'UTC' AND p.closed_at < (k.d + 1)::timestamp AT TIME ZONE 'UTC') x),
    gone AS (
        DELETE FROM closed_trades c USING packs
        WHERE packs.n = 0 AND c.user_id = owner AND c.day = packs.d AND c.account_id = packs.a)
    INSERT INTO closed_trades (user_id, day, account_id, trades, packed)
    SELECT owner, d, a, n, packed FROM packs WHERE n > 0
    ON CONFLICT (user_id, day, account_id) DO UPDATE SET trades = EXCLUDED.trades, packed = EXCLUDED.packed
$$;

SELECT closed_trades_rebuild(id) FROM users;
