-- The statistics' input (shared/stats): each user's closed positions, one
-- row per account and UTC day of close, every figure a report filters or
-- adds up packed into one bytea in close order. A report over 100,000
-- positions reads a few thousand of these rows instead of 100,000 rows
-- and their tag links, and filters and folds them in Go. The journal store
-- (shared/journalstore) refreshes the rows of every account and day a
-- write touches, in the write's transaction, with closed_trades_refresh;
-- the rows are always what closed_trades_refresh makes of the positions.
--
-- A record (big-endian; shared/stats/store.go reads it), what a filter
-- reads first:
--   id uuid (16) | closed_at, opened_at (timestamptz_send: 8 each, µs since 2000-01-01)
--   | side (1: 0 long, 1 short)
--   | asset_type, symbol, underlying (each: int2 length, then UTF-8; the underlying is the symbol's when none)
--   | tags (int2 count, then each tag id: 16)
--   | net_pnl, gross_pnl, fees, r_multiple (each: int2 length, then numeric_send; -1 for NULL,
--     -2 for an int8 of ten-thousandths)
--   | entry_quantity, entry notional (float8send: 8 each; the averages of size are approximate)
CREATE TABLE closed_trades (
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    day        date NOT NULL,
    account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    trades     integer NOT NULL CHECK (trades > 0),
    packed     bytea NOT NULL,
    PRIMARY KEY (user_id, day, account_id)
) WITH (toast_tuple_target = 8160);
-- Out of line only past 8 kB, and never compressed: the reads want the bytes as they are.
ALTER TABLE closed_trades ALTER COLUMN packed SET STORAGE EXTERNAL;
CREATE INDEX closed_trades_account_id_idx ON closed_trades (account_id);

-- A figure: NULL as length -1; a value that fits as ten-thousandths in an
-- int8 (every numeric(24, 4) below 9e14) as length -2 and that int8, which
-- is smaller and far quicker to read; anything else as numeric_send.
CREATE FUNCTION closed_trades_numeric(v numeric) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN v IS NULL THEN '\xffff'::bytea
        WHEN scale(v) <= 4 AND abs(v) < 900000000000000 THEN '\xfffe'::bytea || int8send((v * 10000)::int8)
        ELSE int2send(octet_length(numeric_send(v))::int2) || numeric_send(v) END
$$;

CREATE FUNCTION closed_trades_text(v text) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
    SELECT int2send(octet_length(convert_to(v, 'UTF8'))::int2) || convert_to(v, 'UTF8')
$$;

-- closed_trades_refresh makes the rows of owner's accounts and UTC days
-- (the pairs accounts[i], days[i]) what the positions say: written, or
-- deleted when no closed position is left there. The caller holds a lock
-- that orders it after any other writer of those accounts (the store
-- locks the accounts' rows first, in a statement of its own, so this
-- statement's snapshot sees what they committed).
CREATE FUNCTION closed_trades_refresh(owner uuid, accounts uuid[], days date[]) RETURNS void LANGUAGE sql AS $$
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
                || closed_trades_numeric(p.net_pnl) || closed_trades_numeric(p.gross_pnl)
                || closed_trades_numeric(p.fees) || closed_trades_numeric(p.r_multiple)
                || float8send(p.entry_quantity::float8)
                || float8send(coalesce(p.avg_entry_price * p.entry_quantity * p.multiplier, 0)::float8),
                ''::bytea ORDER BY p.closed_at, p.id) AS packed
            FROM positions p
            CROSS JOIN LATERAL (
                SELECT int2send(count(*)::int2) || coalesce(string_agg(uuid_send(pt.tag_id), ''::bytea ORDER BY pt.tag_id), ''::bytea) AS tags
                FROM position_tags pt WHERE pt.position_id = p.id) t
            WHERE p.user_id = owner AND p.status = 'closed' AND p.account_id = k.a
                AND p.closed_at >= k.d::timestamp AT TIME ZONE 'UTC' AND p.closed_at < (k.d + 1)::timestamp AT TIME ZONE 'UTC') x),
    gone AS (
        DELETE FROM closed_trades c USING packs
        WHERE packs.n = 0 AND c.user_id = owner AND c.day = packs.d AND c.account_id = packs.a)
    INSERT INTO closed_trades (user_id, day, account_id, trades, packed)
    SELECT owner, d, a, n, packed FROM packs WHERE n > 0
    ON CONFLICT (user_id, day, account_id) DO UPDATE SET trades = EXCLUDED.trades, packed = EXCLUDED.packed
$$;

-- closed_trades_rebuild refreshes every row of owner: for journals
-- written without the store (this migration, the benchmarks' seeder).
CREATE FUNCTION closed_trades_rebuild(owner uuid) RETURNS void LANGUAGE sql AS $$
    DELETE FROM closed_trades WHERE user_id = owner;
    SELECT closed_trades_refresh(owner, coalesce(array_agg(account_id), '{}'), coalesce(array_agg(day), '{}'))
    FROM (SELECT DISTINCT account_id, (closed_at AT TIME ZONE 'UTC')::date AS day
          FROM positions WHERE user_id = owner AND status = 'closed') s;
$$;

SELECT closed_trades_rebuild(id) FROM users;

-- The statistics no longer read positions; the refresh finds a day's
-- closes by (user_id, closed_at), which the covering index no longer needs
-- to carry.
DROP INDEX IF EXISTS positions_closed_stats_idx;
CREATE INDEX positions_user_closed_idx ON positions (user_id, closed_at) WHERE status = 'closed';
