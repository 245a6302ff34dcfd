-- A strategy (migration 0032) is one trade in the statistics: its legs'
-- own records leave closed_trades, and the strategy, once no leg is open,
-- is one record in the row of its account and the UTC day of its last
-- leg's close. The record is laid out as a position's (migration 0030),
-- with a field for every record after the met criteria, where a filter
-- reads it:
--   ... | met criteria | strategy kind (int2 length, then UTF-8; empty for
--   a position in no strategy) | net_pnl, ... (as before)
-- A strategy's record: its id, its last close and first opening, short
-- when it opened for a credit, asset type option, its underlying as symbol
-- and underlying, any leg's tags, the first leg's playbook (in opening
-- order) and the criteria of it any leg met, its legs' sums, its R.
--
-- What the strategy engine (shared/journal, Go) makes of its legs is kept
-- on the strategy for these records and for the rules (which judge a
-- strategy as one trade): its kind and label, whether it opened long (for
-- a debit), its risk (the planned risk, else the defined max loss) and
-- its defined max profit, its R (net P&L over the risk) once closed. The journal store computes
-- them at the end of every write (settleAccounts) for the strategies the
-- triggers below mark stale: any change to a leg's row, a leg added or
-- taken out, a new planned risk. A stale strategy (as every one is after
-- this migration) reads as custom, long, without R until then; the
-- journal's reads bring them up to date first.
ALTER TABLE strategies
    ADD COLUMN analysed    boolean NOT NULL DEFAULT false,
    ADD COLUMN kind        text CHECK (length(kind) <= 40),
    ADD COLUMN label       text CHECK (length(label) <= 200),
    ADD COLUMN opened_long boolean,
    ADD COLUMN risk        numeric(24, 4),
    ADD COLUMN max_profit  numeric(24, 4),
    ADD COLUMN r_multiple  numeric(24, 4);
CREATE INDEX strategies_stale_idx ON strategies (user_id) WHERE NOT analysed;

CREATE FUNCTION strategies_stale() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' AND OLD.strategy_id IS NOT NULL THEN
        UPDATE strategies SET analysed = false WHERE id = OLD.strategy_id AND analysed;
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.strategy_id IS NOT NULL THEN
        UPDATE strategies SET analysed = false WHERE id = NEW.strategy_id AND analysed;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER positions_leg_inserted AFTER INSERT ON positions
    FOR EACH ROW WHEN (NEW.strategy_id IS NOT NULL) EXECUTE FUNCTION strategies_stale();
CREATE TRIGGER positions_leg_updated AFTER UPDATE ON positions
    FOR EACH ROW WHEN (OLD.strategy_id IS NOT NULL OR NEW.strategy_id IS NOT NULL) EXECUTE FUNCTION strategies_stale();
CREATE TRIGGER positions_leg_deleted AFTER DELETE ON positions
    FOR EACH ROW WHEN (OLD.strategy_id IS NOT NULL) EXECUTE FUNCTION strategies_stale();

CREATE FUNCTION strategies_risk_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.analysed := false;
    RETURN NEW;
END $$;
CREATE TRIGGER strategies_risk_changed BEFORE UPDATE OF planned_risk ON strategies
    FOR EACH ROW WHEN (OLD.planned_risk IS DISTINCT FROM NEW.planned_risk) EXECUTE FUNCTION strategies_risk_changed();

CREATE OR REPLACE FUNCTION closed_trades_refresh(owner uuid, accounts uuid[], days date[]) RETURNS void LANGUAGE sql AS $$
    WITH k AS (SELECT DISTINCT a, d FROM unnest(accounts, days) AS k(a, d)),
    -- One index range scan of positions_user_closed_idx a key (LATERAL), for
    -- the positions in no strategy and for the strategies with a leg closed
    -- that day; a strategy's record is in the row of its last close.
    packs AS (
        SELECT k.a, k.d, x.n, x.packed
        FROM k CROSS JOIN LATERAL (
            SELECT count(*)::int AS n, string_agg(r.rec, ''::bytea ORDER BY r.closed_at, r.id) AS packed
            FROM (
                SELECT p.id, p.closed_at,
                    uuid_send(p.id) || timestamptz_send(p.closed_at) || timestamptz_send(coalesce(p.opened_at, p.closed_at))
                    || CASE p.side WHEN 'long' THEN '\x00'::bytea ELSE '\x01'::bytea END
                    || closed_trades_text(p.asset_type) || closed_trades_text(p.symbol)
                    || closed_trades_text(coalesce(p.underlying, p.symbol)) || t.tags
                    || CASE WHEN p.playbook_id IS NULL THEN '\x0000'::bytea ELSE '\x0001'::bytea || uuid_send(p.playbook_id) END
                    || m.met || '\x0000'::bytea
                    || closed_trades_numeric(p.net_pnl) || closed_trades_numeric(p.gross_pnl)
                    || closed_trades_numeric(p.fees) || closed_trades_numeric(p.r_multiple)
                    || float8send(p.entry_quantity::float8)
                    || float8send(coalesce(p.avg_entry_price * p.entry_quantity * p.multiplier, 0)::float8) AS rec
                FROM positions p
                CROSS JOIN LATERAL (
                    SELECT int2send(count(*)::int2) || coalesce(string_agg(uuid_send(pt.tag_id), ''::bytea ORDER BY pt.tag_id), ''::bytea) AS tags
                    FROM position_tags pt WHERE pt.position_id = p.id) t
                CROSS JOIN LATERAL (
                    SELECT int2send(count(*)::int2) || coalesce(string_agg(uuid_send(pc.criterion_id), ''::bytea ORDER BY pc.criterion_id), ''::bytea) AS met
                    FROM position_criteria pc WHERE pc.position_id = p.id) m
                WHERE p.user_id = owner AND p.status = 'closed' AND p.account_id = k.a AND p.strategy_id IS NULL
                    AND p.closed_at >= k.d::timestamp AT TIME ZONE 'UTC' AND p.closed_at < (k.d + 1)::timestamp AT TIME ZONE 'UTC'
            UNION ALL
                SELECT s.id, g.closed_at,
                    uuid_send(s.id) || timestamptz_send(g.closed_at) || timestamptz_send(g.opened_at)
                    || CASE WHEN coalesce(s.opened_long, true) THEN '\x00'::bytea ELSE '\x01'::bytea END
                    || closed_trades_text('option') || closed_trades_text(g.underlying) || closed_trades_text(g.underlying)
                    || t.tags
                    || CASE WHEN g.playbook IS NULL THEN '\x0000'::bytea ELSE '\x0001'::bytea || uuid_send(g.playbook) END
                    || m.met || closed_trades_text(coalesce(s.kind, 'custom'))
                    || closed_trades_numeric(g.net) || closed_trades_numeric(g.gross)
                    || closed_trades_numeric(g.fees) || closed_trades_numeric(s.r_multiple)
                    || float8send(g.quantity::float8) || float8send(g.notional::float8)
                FROM strategies s
                CROSS JOIN LATERAL (
                    SELECT max(l.closed_at) AS closed_at, min(coalesce(l.opened_at, l.closed_at)) AS opened_at,
                        count(*) FILTER (WHERE l.status = 'open') AS open_legs, min(coalesce(l.underlying, l.symbol)) AS underlying,
                        sum(l.net_pnl) AS net, sum(l.gross_pnl) AS gross, sum(l.fees) AS fees, sum(l.entry_quantity) AS quantity,
                        sum(coalesce(l.avg_entry_price * l.entry_quantity * l.multiplier, 0)) AS notional,
                        (array_agg(l.playbook_id ORDER BY l.opened_at NULLS LAST, l.id) FILTER (WHERE l.playbook_id IS NOT NULL))[1] AS playbook
                    FROM positions l WHERE l.strategy_id = s.id) g
                CROSS JOIN LATERAL (
                    SELECT int2send(count(*)::int2) || coalesce(string_agg(uuid_send(u.tag_id), ''::bytea ORDER BY u.tag_id), ''::bytea) AS tags
                    FROM (SELECT DISTINCT pt.tag_id FROM position_tags pt JOIN positions l ON l.id = pt.position_id
                          WHERE l.strategy_id = s.id) u) t
                CROSS JOIN LATERAL (
                    SELECT int2send(count(*)::int2) || coalesce(string_agg(uuid_send(u.criterion_id), ''::bytea ORDER BY u.criterion_id), ''::bytea) AS met
                    FROM (SELECT DISTINCT pc.criterion_id FROM position_criteria pc JOIN positions l ON l.id = pc.position_id
                          WHERE l.strategy_id = s.id AND l.playbook_id = g.playbook) u) m
                WHERE s.id IN (SELECT p.strategy_id FROM positions p
                        WHERE p.user_id = owner AND p.status = 'closed' AND p.account_id = k.a AND p.strategy_id IS NOT NULL
                            AND p.closed_at >= k.d::timestamp AT TIME ZONE 'UTC' AND p.closed_at < (k.d + 1)::timestamp AT TIME ZONE 'UTC')
                    AND s.account_id = k.a AND g.open_legs = 0
                    AND g.closed_at >= k.d::timestamp AT TIME ZONE 'UTC' AND g.closed_at < (k.d + 1)::timestamp AT TIME ZONE 'UTC'
            ) r) x),
    gone AS (
        DELETE FROM closed_trades c USING packs
        WHERE packs.n = 0 AND c.user_id = owner AND c.day = packs.d AND c.account_id = packs.a)
    INSERT INTO closed_trades (user_id, day, account_id, trades, packed)
    SELECT owner, d, a, n, packed FROM packs WHERE n > 0
    ON CONFLICT (user_id, day, account_id) DO UPDATE SET trades = EXCLUDED.trades, packed = EXCLUDED.packed
$$;

SELECT closed_trades_rebuild(id) FROM users;
