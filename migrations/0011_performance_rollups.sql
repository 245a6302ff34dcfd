-- Performance rollups: what GET /api/performance reads instead of walking
-- every closed position (functions/performance, docs/performance.md).
--
-- They are maintained by triggers in the same transaction as every write
-- that changes a closed position's figures, whatever the write path (the
-- journal's fill arithmetic, position edits, the CSV import's COPY, account
-- deletion, tag changes), so a report reads state as consistent as the
-- positions themselves. Only closed positions count.
--
--   perf_days     per (account, trading day in the account's zone): every
--                 sum the summary, the calendar and the months derive from;
--   perf_symbols  per (account, symbol) and
--   perf_tags     per (account, tag): trades, wins, losses, net P&L;
--   perf_series   per (series, UTC close date): the order-dependent figures
--                 of the closes of that date in (closed_at, id) order, in a
--                 form that composes in order (see the column comments).
--                 A series is an account currency, or '*': every position
--                 converted with the factors in perf_basis.
--   perf_basis    the factors the '*' rows were computed with: the report
--                 uses them only when they are today's factors and rebuilds
--                 them otherwise (perf_set_basis).

CREATE TABLE perf_days (
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    day        date NOT NULL,
    trades     bigint NOT NULL,
    wins       bigint NOT NULL,
    losses     bigint NOT NULL,
    net        numeric NOT NULL,
    gross      numeric NOT NULL,
    fees       numeric NOT NULL,
    win_sum    numeric NOT NULL, -- the winners' net P&L
    loss_sum   numeric NOT NULL, -- the losers' net P&L
    hi         numeric NOT NULL, -- the largest net P&L
    lo         numeric NOT NULL, -- the smallest net P&L
    r_sum      numeric NOT NULL,
    r_count    bigint NOT NULL,
    PRIMARY KEY (user_id, account_id, day)
);
CREATE INDEX perf_days_account_idx ON perf_days (account_id);

CREATE TABLE perf_symbols (
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    symbol     text NOT NULL,
    trades     bigint NOT NULL,
    wins       bigint NOT NULL,
    losses     bigint NOT NULL,
    net        numeric NOT NULL,
    PRIMARY KEY (user_id, account_id, symbol)
);
CREATE INDEX perf_symbols_account_idx ON perf_symbols (account_id);

CREATE TABLE perf_tags (
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    tag_id     uuid NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
    trades     bigint NOT NULL,
    wins       bigint NOT NULL,
    losses     bigint NOT NULL,
    net        numeric NOT NULL,
    PRIMARY KEY (user_id, account_id, tag_id)
);
CREATE INDEX perf_tags_account_idx ON perf_tags (account_id);
CREATE INDEX perf_tags_tag_idx ON perf_tags (tag_id);

-- One segment of a series: its closes of one UTC date, in (closed_at, id)
-- order, with values v (net P&L, or net P&L x factor for '*'). Cumulative
-- sums start at 0 at the segment's start. Segments compose in date order:
-- the drawdown from the running peak and cumulative sum, the streaks from
-- the running trailing streak (functions/performance, fold.add).
CREATE TABLE perf_series (
    user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    series       text NOT NULL,
    bucket       date NOT NULL,
    trades       bigint NOT NULL,
    net          numeric NOT NULL, -- the sum of v
    max_prefix   numeric NOT NULL, -- max(0, the largest cumulative sum)
    min_prefix   numeric NOT NULL, -- min(0, the smallest cumulative sum)
    max_drawdown numeric NOT NULL, -- the largest fall from a running peak counting 0
    lead_wins    bigint NOT NULL,  -- closes before the first that is not a win (v > 0)
    lead_losses  bigint NOT NULL,  -- closes before the first that is not a loss (v < 0)
    trail_wins   bigint NOT NULL,  -- closes after the last that is not a win
    trail_losses bigint NOT NULL,
    best_wins    bigint NOT NULL,  -- the longest run of wins inside
    best_losses  bigint NOT NULL,
    closed_at    timestamptz[] NOT NULL, -- every close, for the equity curve's samples
    cum          numeric[] NOT NULL,     -- the cumulative sum after each
    PRIMARY KEY (user_id, series, bucket)
);

CREATE TABLE perf_basis (
    user_id    uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    currencies text[] NOT NULL,
    factors    numeric[] NOT NULL
);

-- perf_lock serialises the rollup writes of one user: the recomputed rows
-- (days, series) are read from the positions after the lock, so two
-- transactions never write rows computed without each other's changes.
-- Every write path locks its positions first and reaches the triggers
-- after, so the lock is always taken last.
CREATE FUNCTION perf_lock(p_user uuid) RETURNS void LANGUAGE sql AS $$
    SELECT pg_advisory_xact_lock(7240815, hashtext(p_user::text))
$$;

-- perf_refresh_days recomputes the perf_days rows of the keys given, from
-- the closed positions (a key with none loses its row).
CREATE FUNCTION perf_refresh_days(p_users uuid[], p_accounts uuid[], p_days date[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM perf_days d USING unnest(p_users, p_accounts, p_days) AS k(user_id, account_id, day)
    WHERE d.user_id = k.user_id AND d.account_id = k.account_id AND d.day = k.day;
    INSERT INTO perf_days
    SELECT k.user_id, k.account_id, k.day, count(*), count(*) FILTER (WHERE p.net_pnl > 0), count(*) FILTER (WHERE p.net_pnl < 0),
        sum(p.net_pnl), sum(p.gross_pnl), sum(p.fees),
        coalesce(sum(p.net_pnl) FILTER (WHERE p.net_pnl > 0), 0), coalesce(sum(p.net_pnl) FILTER (WHERE p.net_pnl < 0), 0),
        max(p.net_pnl), min(p.net_pnl), coalesce(sum(p.r_multiple), 0), count(p.r_multiple)
    FROM (SELECT DISTINCT * FROM unnest(p_users, p_accounts, p_days) AS k(user_id, account_id, day)) k
    JOIN accounts a ON a.id = k.account_id
    -- A UTC window around the day holds it in any zone; the exact test
    -- follows. OFFSET 0 keeps the account test outside, so the window reads
    -- positions_user_closed_idx rather than every position of the account.
    CROSS JOIN LATERAL (
        SELECT * FROM positions p WHERE p.user_id = k.user_id AND p.status = 'closed'
            AND p.closed_at >= (k.day - 1)::timestamp AT TIME ZONE 'UTC' AND p.closed_at < (k.day + 2)::timestamp AT TIME ZONE 'UTC'
        OFFSET 0
    ) p
    WHERE p.account_id = k.account_id AND (p.closed_at AT TIME ZONE a.timezone)::date = k.day
    GROUP BY k.user_id, k.account_id, k.day;
END $$;

-- perf_refresh_series recomputes the user's perf_series rows of the UTC
-- dates given (NULL: every date), for every currency series and, when the
-- user has a basis, for '*'; total_only limits it to '*'.
CREATE FUNCTION perf_refresh_series(p_user uuid, p_buckets date[], p_total_only boolean) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM perf_series s WHERE s.user_id = p_user
        AND (p_buckets IS NULL OR s.bucket = ANY (p_buckets)) AND (NOT p_total_only OR s.series = '*');
    INSERT INTO perf_series
    WITH base AS (
        SELECT a.currency::text AS cur, (p.closed_at AT TIME ZONE 'UTC')::date AS bucket, p.closed_at, p.id, p.net_pnl AS net, f.factor
        FROM positions p JOIN accounts a ON a.id = p.account_id
            LEFT JOIN perf_basis b ON b.user_id = p_user
            LEFT JOIN LATERAL unnest(b.currencies, b.factors) AS f(cur, factor) ON f.cur = a.currency::text
        WHERE p.user_id = p_user AND p.status = 'closed'
            AND (p_buckets IS NULL OR (p.closed_at >= (SELECT min(x) FROM unnest(p_buckets) x)::timestamp AT TIME ZONE 'UTC'
                AND p.closed_at < ((SELECT max(x) FROM unnest(p_buckets) x) + 1)::timestamp AT TIME ZONE 'UTC'
                AND (p.closed_at AT TIME ZONE 'UTC')::date = ANY (p_buckets)))
    ), ser AS (
        SELECT cur AS series, bucket, closed_at, id, net AS v FROM base WHERE NOT p_total_only
        UNION ALL
        SELECT '*', bucket, closed_at, id, net * factor FROM base WHERE factor IS NOT NULL
    ), w1 AS (
        SELECT *, sum(v) OVER o AS cum, row_number() OVER o AS rn,
            count(*) FILTER (WHERE v > 0) OVER o AS w, count(*) FILTER (WHERE v < 0) OVER o AS l
        FROM ser WINDOW o AS (PARTITION BY series, bucket ORDER BY closed_at, id ROWS UNBOUNDED PRECEDING)
    ), w2 AS (
        SELECT *, max(cum) OVER o AS peak,
            max(w) FILTER (WHERE v <= 0) OVER o AS lw, max(l) FILTER (WHERE v >= 0) OVER o AS ll
        FROM w1 WINDOW o AS (PARTITION BY series, bucket ORDER BY closed_at, id ROWS UNBOUNDED PRECEDING)
    )
    SELECT p_user, series, bucket, count(*), sum(v), greatest(max(cum), 0), least(min(cum), 0), max(greatest(peak, 0) - cum),
        coalesce(min(rn) FILTER (WHERE v <= 0) - 1, count(*)), coalesce(min(rn) FILTER (WHERE v >= 0) - 1, count(*)),
        count(*) - coalesce(max(rn) FILTER (WHERE v <= 0), 0), count(*) - coalesce(max(rn) FILTER (WHERE v >= 0), 0),
        max(w - coalesce(lw, 0)), max(l - coalesce(ll, 0)),
        array_agg(closed_at ORDER BY rn), array_agg(cum ORDER BY rn)
    FROM w2 GROUP BY series, bucket;
END $$;

-- perf_rebuild recomputes every rollup of a user from their positions: the
-- backfill, and the answer to a change that moves all of them (an
-- account's currency or trading-day zone).
CREATE FUNCTION perf_rebuild(p_user uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM perf_lock(p_user);
    DELETE FROM perf_days WHERE user_id = p_user;
    DELETE FROM perf_symbols WHERE user_id = p_user;
    DELETE FROM perf_tags WHERE user_id = p_user;
    INSERT INTO perf_days
    SELECT p.user_id, p.account_id, (p.closed_at AT TIME ZONE a.timezone)::date,
        count(*), count(*) FILTER (WHERE p.net_pnl > 0), count(*) FILTER (WHERE p.net_pnl < 0),
        sum(p.net_pnl), sum(p.gross_pnl), sum(p.fees),
        coalesce(sum(p.net_pnl) FILTER (WHERE p.net_pnl > 0), 0), coalesce(sum(p.net_pnl) FILTER (WHERE p.net_pnl < 0), 0),
        max(p.net_pnl), min(p.net_pnl), coalesce(sum(p.r_multiple), 0), count(p.r_multiple)
    FROM positions p JOIN accounts a ON a.id = p.account_id
    WHERE p.user_id = p_user AND p.status = 'closed'
    GROUP BY 1, 2, 3;
    INSERT INTO perf_symbols
    SELECT p.user_id, p.account_id, p.symbol, count(*), count(*) FILTER (WHERE p.net_pnl > 0), count(*) FILTER (WHERE p.net_pnl < 0), sum(p.net_pnl)
    FROM positions p WHERE p.user_id = p_user AND p.status = 'closed'
    GROUP BY 1, 2, 3;
    INSERT INTO perf_tags
    SELECT p.user_id, p.account_id, pt.tag_id, count(*), count(*) FILTER (WHERE p.net_pnl > 0), count(*) FILTER (WHERE p.net_pnl < 0), sum(p.net_pnl)
    FROM positions p JOIN position_tags pt ON pt.position_id = p.id
    WHERE p.user_id = p_user AND p.status = 'closed'
    GROUP BY 1, 2, 3;
    PERFORM perf_refresh_series(p_user, NULL, false);
END $$;

-- perf_set_basis makes factors (with currencies, the same order) the
-- basis of the user's '*' rows and recomputes them, unless they already
-- are. The report calls it when today's factors differ from the basis.
CREATE FUNCTION perf_set_basis(p_user uuid, p_currencies text[], p_factors numeric[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM perf_lock(p_user);
    IF EXISTS (SELECT 1 FROM perf_basis WHERE user_id = p_user AND currencies = p_currencies AND factors = p_factors) THEN
        RETURN;
    END IF;
    INSERT INTO perf_basis (user_id, currencies, factors) VALUES (p_user, p_currencies, p_factors)
    ON CONFLICT (user_id) DO UPDATE SET currencies = excluded.currencies, factors = excluded.factors;
    PERFORM perf_refresh_series(p_user, NULL, true);
END $$;

-- perf_change is a closed position leaving (sign -1) or entering (+1)
-- the rollups: what they read of it.
CREATE TYPE perf_change AS (sign int, id uuid, user_id uuid, account_id uuid, symbol text, closed_at timestamptz, net numeric);

-- perf_apply moves the rollups by changes: the old row of an update
-- leaves, the new one enters. Rows of an account being deleted are
-- skipped: its rollup rows go with it (ON DELETE CASCADE). with_tags is
-- false for deleted positions: perf_position_deleting took their tags off
-- while their position_tags rows still existed.
CREATE FUNCTION perf_apply(changes perf_change[], with_tags boolean) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    u uuid;
BEGIN
    IF coalesce(cardinality(changes), 0) = 0 THEN
        RETURN;
    END IF;
    FOR u IN SELECT DISTINCT c.user_id FROM unnest(changes) c ORDER BY 1 LOOP
        PERFORM perf_lock(u);
    END LOOP;

    PERFORM perf_refresh_days(array_agg(k.user_id), array_agg(k.account_id), array_agg(k.day))
    FROM (SELECT DISTINCT c.user_id, c.account_id, (c.closed_at AT TIME ZONE a.timezone)::date AS day
          FROM unnest(changes) c JOIN accounts a ON a.id = c.account_id) k
    HAVING count(*) > 0;

    INSERT INTO perf_symbols AS s
    SELECT c.user_id, c.account_id, c.symbol, sum(c.sign), coalesce(sum(c.sign) FILTER (WHERE c.net > 0), 0),
        coalesce(sum(c.sign) FILTER (WHERE c.net < 0), 0), sum(c.sign * c.net)
    FROM unnest(changes) c JOIN accounts a ON a.id = c.account_id
    GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (user_id, account_id, symbol) DO UPDATE SET trades = s.trades + excluded.trades,
        wins = s.wins + excluded.wins, losses = s.losses + excluded.losses, net = s.net + excluded.net;
    DELETE FROM perf_symbols s USING unnest(changes) c
    WHERE s.user_id = c.user_id AND s.account_id = c.account_id AND s.symbol = c.symbol AND s.trades = 0;

    IF with_tags THEN
        INSERT INTO perf_tags AS t
        SELECT c.user_id, c.account_id, pt.tag_id, sum(c.sign), coalesce(sum(c.sign) FILTER (WHERE c.net > 0), 0),
            coalesce(sum(c.sign) FILTER (WHERE c.net < 0), 0), sum(c.sign * c.net)
        FROM unnest(changes) c JOIN accounts a ON a.id = c.account_id JOIN position_tags pt ON pt.position_id = c.id
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (user_id, account_id, tag_id) DO UPDATE SET trades = t.trades + excluded.trades,
            wins = t.wins + excluded.wins, losses = t.losses + excluded.losses, net = t.net + excluded.net;
        DELETE FROM perf_tags t USING unnest(changes) c JOIN position_tags pt ON pt.position_id = c.id
        WHERE t.user_id = c.user_id AND t.account_id = c.account_id AND t.tag_id = pt.tag_id AND t.trades = 0;
    END IF;

    FOR u IN SELECT DISTINCT c.user_id FROM unnest(changes) c ORDER BY 1 LOOP
        PERFORM perf_refresh_series(u, (SELECT array_agg(DISTINCT (c.closed_at AT TIME ZONE 'UTC')::date)
            FROM unnest(changes) c WHERE c.user_id = u), false);
    END LOOP;
END $$;

-- The positions triggers hand perf_apply the closed rows whose reported
-- figures changed; an edit of the notes or a stop changes nothing here.
CREATE FUNCTION perf_positions_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM perf_apply((SELECT array_agg(ROW(1, n.id, n.user_id, n.account_id, n.symbol, n.closed_at, n.net_pnl)::perf_change)
        FROM new_rows n WHERE n.status = 'closed'), true);
    RETURN NULL;
END $$;

CREATE FUNCTION perf_positions_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM perf_apply((
        WITH moved AS (
            SELECT o.id FROM old_rows o JOIN new_rows n ON n.id = o.id
            WHERE (o.status = 'closed' OR n.status = 'closed')
                AND (o.status, o.user_id, o.account_id, o.symbol, o.closed_at, o.net_pnl, o.gross_pnl, o.fees, o.r_multiple)
                    IS DISTINCT FROM (n.status, n.user_id, n.account_id, n.symbol, n.closed_at, n.net_pnl, n.gross_pnl, n.fees, n.r_multiple)
        )
        SELECT array_agg(c) FROM (
            SELECT ROW(-1, o.id, o.user_id, o.account_id, o.symbol, o.closed_at, o.net_pnl)::perf_change AS c
            FROM old_rows o JOIN moved m ON m.id = o.id WHERE o.status = 'closed'
            UNION ALL
            SELECT ROW(1, n.id, n.user_id, n.account_id, n.symbol, n.closed_at, n.net_pnl)::perf_change
            FROM new_rows n JOIN moved m ON m.id = n.id WHERE n.status = 'closed'
        ) x), true);
    RETURN NULL;
END $$;

CREATE FUNCTION perf_positions_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM perf_apply((SELECT array_agg(ROW(-1, o.id, o.user_id, o.account_id, o.symbol, o.closed_at, o.net_pnl)::perf_change)
        FROM old_rows o WHERE o.status = 'closed'), false);
    RETURN NULL;
END $$;

-- perf_position_deleting takes a closed position's tags off perf_tags
-- while its position_tags rows still exist (position_tags' own trigger
-- skips rows whose position is gone). In an account's deletion the
-- account is already gone and its perf_tags rows go with it.
CREATE FUNCTION perf_position_deleting() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.status = 'closed' AND EXISTS (SELECT 1 FROM accounts WHERE id = OLD.account_id) THEN
        PERFORM perf_lock(OLD.user_id);
        UPDATE perf_tags t SET trades = t.trades - 1, wins = t.wins - (OLD.net_pnl > 0)::int,
            losses = t.losses - (OLD.net_pnl < 0)::int, net = t.net - OLD.net_pnl
        FROM position_tags pt
        WHERE pt.position_id = OLD.id AND t.user_id = OLD.user_id AND t.account_id = OLD.account_id AND t.tag_id = pt.tag_id;
        DELETE FROM perf_tags t USING position_tags pt
        WHERE pt.position_id = OLD.id AND t.user_id = OLD.user_id AND t.account_id = OLD.account_id AND t.tag_id = pt.tag_id
            AND t.trades = 0;
    END IF;
    RETURN OLD;
END $$;

-- perf_tag_links moves perf_tags by position_tags rows added (sign 1) or
-- removed (-1) whose position and tag still exist (a cascade from either
-- is handled by the other's deletion).
CREATE FUNCTION perf_tag_links(links position_tags[], sign int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM perf_lock(u) FROM (SELECT DISTINCT p.user_id AS u FROM unnest(links) l JOIN positions p ON p.id = l.position_id ORDER BY 1) x;
    INSERT INTO perf_tags AS t
    SELECT p.user_id, p.account_id, l.tag_id, sum(sign), count(*) FILTER (WHERE p.net_pnl > 0) * sign,
        count(*) FILTER (WHERE p.net_pnl < 0) * sign, sum(p.net_pnl) * sign
    FROM unnest(links) l JOIN positions p ON p.id = l.position_id AND p.status = 'closed'
        JOIN tags g ON g.id = l.tag_id
    GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (user_id, account_id, tag_id) DO UPDATE SET trades = t.trades + excluded.trades,
        wins = t.wins + excluded.wins, losses = t.losses + excluded.losses, net = t.net + excluded.net;
    DELETE FROM perf_tags t USING unnest(links) l JOIN positions p ON p.id = l.position_id
    WHERE t.user_id = p.user_id AND t.account_id = p.account_id AND t.tag_id = l.tag_id AND t.trades = 0;
END $$;

CREATE FUNCTION perf_tags_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM perf_tag_links(array_agg(ROW(n.*)::position_tags), 1) FROM new_rows n HAVING count(*) > 0;
    RETURN NULL;
END $$;

CREATE FUNCTION perf_tags_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM perf_tag_links(array_agg(ROW(o.*)::position_tags), -1) FROM old_rows o HAVING count(*) > 0;
    RETURN NULL;
END $$;

-- A position_tags row is never updated (the routes delete and insert);
-- if one were, this keeps the rollup exact all the same.
CREATE FUNCTION perf_tags_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM perf_tag_links(array_agg(ROW(o.*)::position_tags), -1) FROM old_rows o HAVING count(*) > 0;
    PERFORM perf_tag_links(array_agg(ROW(n.*)::position_tags), 1) FROM new_rows n HAVING count(*) > 0;
    RETURN NULL;
END $$;

CREATE FUNCTION perf_account_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM perf_rebuild(NEW.user_id);
    RETURN NULL;
END $$;

CREATE TRIGGER perf_positions_insert AFTER INSERT ON positions
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION perf_positions_inserted();
CREATE TRIGGER perf_positions_update AFTER UPDATE ON positions
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION perf_positions_updated();
CREATE TRIGGER perf_positions_delete AFTER DELETE ON positions
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION perf_positions_deleted();
CREATE TRIGGER perf_position_deleting BEFORE DELETE ON positions
    FOR EACH ROW EXECUTE FUNCTION perf_position_deleting();
CREATE TRIGGER perf_tags_insert AFTER INSERT ON position_tags
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION perf_tags_inserted();
CREATE TRIGGER perf_tags_update AFTER UPDATE ON position_tags
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION perf_tags_updated();
CREATE TRIGGER perf_tags_delete AFTER DELETE ON position_tags
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION perf_tags_deleted();
-- A new currency or trading-day zone moves every day and series row of the account.
CREATE TRIGGER perf_account_moved AFTER UPDATE OF currency, timezone ON accounts
    FOR EACH ROW WHEN (OLD.currency IS DISTINCT FROM NEW.currency OR OLD.timezone IS DISTINCT FROM NEW.timezone)
    EXECUTE FUNCTION perf_account_moved();

-- Backfill: every user's existing positions.
SELECT perf_rebuild(id) FROM users WHERE EXISTS (SELECT 1 FROM positions p WHERE p.user_id = users.id);
