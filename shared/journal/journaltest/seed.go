// Package journaltest seeds the journal's benchmark dataset straight into
// PostgreSQL: closed positions with five fills each, their ledger rows and
// consistent account balances, written set-wise (INSERT ... SELECT
// generate_series) so 100,000 positions take seconds, not an hour of API
// calls. Every derived figure follows journal.Compute exactly (a test
// recomputes a seeded sample and finds nothing to change), so benchmarks of
// lists, performance statistics and dashboard totals read realistic,
// self-consistent rows.
package journaltest

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tradejournal/shared/journalstore"
)

// Options shape a seed. Zero values take the defaults of the speed
// targets: 100,000 closed positions (500,000 fills) across 5 accounts in 3
// currencies for one user.
type Options struct {
	Positions int       // closed positions; default 100,000
	Accounts  int       // default 5; currencies cycle USD, EUR, GBP
	Tags      int       // default 3; the performance benchmark seeds 15
	Start     time.Time // the first position opens here; default 2021-01-04 14:30 UTC
}

// Dataset says what Seed wrote.
type Dataset struct {
	UserID     string
	AccountIDs []string // in creation order
	Currencies []string // of each account
	TagIDs     []string // Breakout (setup), Late entry (mistake), FOMO (emotion), then "Tag 4"...
	Positions  int
	Fills      int
	First      time.Time // opened_at of the first position
	Last       time.Time // closed_at of the last position
}

// Spacing is the time between two seeded positions' openings (25 minutes,
// so 100,000 positions span about 4.75 years).
const Spacing = 25 * time.Minute

// The built-in brokerages the seeded accounts use (migrations/0003).
const (
	commissionFree = "00000000-0000-4000-8000-000000000001"
	ibFixed        = "00000000-0000-4000-8000-000000000002"
)

var (
	currencies = []string{"USD", "EUR", "GBP"}
	zones      = map[string]string{"USD": "America/New_York", "EUR": "Europe/Berlin", "GBP": "Europe/London"}
)

// Seed writes the dataset for an existing user (register one through the
// API first, so the benchmark can sign in as them) and sets their display
// currency to USD when unset. It creates its own accounts and tags; run it
// once per database. Afterwards it runs ANALYZE on the tables it filled.
//
// Position i (1-based) of n: account (i-1) mod Accounts; an option (OCC
// symbol, multiplier 100, contracts) when i mod 10 = 0, else a stock; short
// when i mod 4 = 0; entries of 6u and 4u, exits of 3u, 3u and 4u (u = 10
// shares or 1 contract) at prices that make winners, losers and flat
// trades; the last exit a day later when i mod 5 = 0 (multi-day holds);
// fees from the accounts' built-in schedule (Interactive Brokers on even
// accounts, commission-free on odd), marked estimated; a stop on every
// position, so each has an initial risk and an R multiple; tag 1 + i mod
// Tags, and tag 1 + (i+1) mod Tags too when i mod 7 = 0.
func Seed(ctx context.Context, pool *pgxpool.Pool, userID string, opt Options) (Dataset, error) {
	if opt.Positions <= 0 {
		opt.Positions = 100_000
	}
	if opt.Accounts <= 0 {
		opt.Accounts = 5
	}
	if opt.Tags <= 0 {
		opt.Tags = 3
	}
	if opt.Start.IsZero() {
		opt.Start = time.Date(2021, 1, 4, 14, 30, 0, 0, time.UTC)
	}
	ds := Dataset{UserID: userID, Positions: opt.Positions, Fills: 5 * opt.Positions, First: opt.Start.UTC()}

	var packs bool
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		for n := range opt.Accounts {
			cur := currencies[n%len(currencies)]
			brokerage := commissionFree
			if n%2 == 0 {
				brokerage = ibFixed
			}
			var id string
			const acc = `INSERT INTO accounts (user_id, name, currency, timezone, starting_balance, balance, brokerage_id, created_at)
				VALUES ($1, $2, $3, $4, 25000, 25000, $5, $6) RETURNING id::text`
			if err := tx.QueryRow(ctx, acc, userID, fmt.Sprintf("Seed %d %s", n+1, cur), cur, zones[cur], brokerage,
				opt.Start.Add(-48*time.Hour)).Scan(&id); err != nil {
				return fmt.Errorf("seed account: %w", err)
			}
			ds.AccountIDs = append(ds.AccountIDs, id)
			ds.Currencies = append(ds.Currencies, cur)
		}
		tags := [][2]string{{"Breakout", "setup"}, {"Late entry", "mistake"}, {"FOMO", "emotion"}}
		for n := len(tags); n < opt.Tags; n++ {
			tags = append(tags, [2]string{fmt.Sprintf("Tag %d", n+1), "general"})
		}
		for _, tag := range tags[:opt.Tags] {
			var id string
			if err := tx.QueryRow(ctx, `INSERT INTO tags (user_id, name, category) VALUES ($1, $2, $3) RETURNING id::text`,
				userID, tag[0], tag[1]).Scan(&id); err != nil {
				return fmt.Errorf("seed tag: %w", err)
			}
			ds.TagIDs = append(ds.TagIDs, id)
		}
		if _, err := tx.Exec(ctx, `UPDATE users SET display_currency = 'USD' WHERE id = $1 AND display_currency IS NULL`, userID); err != nil {
			return fmt.Errorf("seed display currency: %w", err)
		}
		// The rows below satisfy their foreign keys by construction; a
		// superuser (the test cluster's) skips the per-row checks, which
		// otherwise cost most of the seed's time. Anyone else runs them.
		if _, err := tx.Exec(ctx, `SAVEPOINT replica`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SET LOCAL session_replication_role = replica`); err != nil {
			if _, err := tx.Exec(ctx, `ROLLBACK TO SAVEPOINT replica`); err != nil {
				return err
			}
		}
		// A schema older than migration 0035 has statistics' rows of
		// another layout, which its migration queues for a rebuild.
		if err := tx.QueryRow(ctx, `SELECT to_regclass('journal_rebuilds') IS NOT NULL`).Scan(&packs); err != nil {
			return fmt.Errorf("seed: %w", err)
		}
		for _, step := range seedSteps {
			if _, err := tx.Exec(ctx, step.sql, step.args(ds.AccountIDs, opt.Positions, opt.Start.UTC(), userID, ds.TagIDs)...); err != nil {
				return fmt.Errorf("seed %s: %w", step.name, err)
			}
		}
		return nil
	})
	if err != nil {
		return Dataset{}, err
	}
	if packs { // the derived rows the journal store keeps, from what was written
		if err := journalstore.Rebuild(ctx, pool, userID); err != nil {
			return Dataset{}, fmt.Errorf("seed closed trades: %w", err)
		}
	}
	analyze := `ANALYZE accounts, positions, fills, ledger_entries, position_tags, tags`
	if packs {
		analyze += `, closed_trades`
	}
	if _, err := pool.Exec(ctx, analyze); err != nil {
		return Dataset{}, fmt.Errorf("seed analyze: %w", err)
	}
	if err := pool.QueryRow(ctx, `SELECT max(closed_at) FROM positions WHERE user_id = $1`, userID).Scan(&ds.Last); err != nil {
		return Dataset{}, fmt.Errorf("seed last: %w", err)
	}
	return ds, nil
}

// seedSteps run in order, each with the arguments its args picks from
// (account ids, number of positions, start, user id, tag ids).

var seedSteps = []struct {
	name string
	sql  string
	args func(accounts []string, n int, start time.Time, user string, tags []string) []any
}{
	{"positions plan", `
CREATE TEMP TABLE seed_p ON COMMIT DROP AS
WITH base AS (
	SELECT i, gen_random_uuid() AS id, (i - 1) % cardinality($1::uuid[]) AS acct,
	       i % 10 = 0 AS opt, CASE WHEN i % 4 = 0 THEN -1 ELSE 1 END AS s,
	       $3::timestamptz + (i - 1) * interval '25 minutes' AS t0,
	       (((i * 7919) % 41) - 17)::numeric AS o
	FROM generate_series(1, $2::int) AS i
), sized AS (
	SELECT b.*, ($1::uuid[])[b.acct + 1] AS account_id,
	       CASE WHEN opt THEN 100 ELSE 1 END AS mult,
	       CASE WHEN opt THEN 1 ELSE 10 END AS u,
	       CASE WHEN opt THEN 0.01 ELSE 0.05 END AS tick,
	       CASE WHEN opt THEN 1 + ((i * 13) % 40) * 0.05 ELSE 20 + ((i * 37) % 1000) * 0.25 END AS p,
	       CASE WHEN opt THEN 0.05 ELSE 0.10 END AS step,
	       CASE WHEN opt THEN 0.50 ELSE 1.00 END AS rp,
	       (ARRAY['AAPL','MSFT','NVDA','AMZN','GOOGL','META','TSLA','AMD','NFLX','SPY',
	              'QQQ','IWM','JPM','BAC','XOM','CVX','KO','PEP','WMT','COST',
	              'DIS','NKE','INTC','CSCO','ORCL','CRM','ADBE','PYPL','SHOP','UBER',
	              'SQ','COIN','PLTR','SNOW','NET','CRWD','BA','CAT','GE','F'])[1 + (i * 7) % 40] AS root,
	       ((b.t0 + interval '30 days') AT TIME ZONE 'UTC')::date AS expiry
	FROM base b
), priced AS (
	SELECT z.*, p + step AS p2, round((6 * p + 4 * (p + step)) / 10, 10) AS avg,
	       o * tick AS m2, o * tick - tick * sign(o) AS m1, o * tick + tick * sign(o) AS m3
	FROM sized z
)
SELECT *, avg + s * m1 AS x1, avg + s * m2 AS x2, avg + s * m3 AS x3,
       p - s * rp AS stop,
       CASE WHEN i % 20 = 0 THEN 'P' ELSE 'C' END AS option_right,
       50 + (i % 50) * 5 AS strike,
       CASE WHEN opt THEN rpad(root, 6) || to_char(expiry, 'YYMMDD') || CASE WHEN i % 20 = 0 THEN 'P' ELSE 'C' END
                          || lpad(((50 + (i % 50) * 5) * 1000)::text, 8, '0')
            ELSE root END AS symbol,
       acct % 2 = 0 AS charged
FROM priced`,
		func(accounts []string, n int, start time.Time, _ string, _ []string) []any {
			return []any{accounts, n, start}
		}},
	{"fills plan", `
CREATE TEMP TABLE seed_f ON COMMIT DROP AS
SELECT gen_random_uuid() AS id, sp.id AS position_id, sp.account_id, f.k, f.type, f.price, f.qty,
       CASE WHEN NOT sp.charged THEN 0 WHEN sp.opt THEN 0.65 * f.qty ELSE 1.00 END AS fee,
       f.realized, f.at
FROM seed_p sp CROSS JOIN LATERAL (VALUES
	(1, 'entry', sp.p,  6 * sp.u, 0,                           sp.t0),
	(2, 'entry', sp.p2, 4 * sp.u, 0,                           sp.t0 + interval '5 minutes'),
	(3, 'exit',  sp.x1, 3 * sp.u, sp.m1 * 3 * sp.u * sp.mult,  sp.t0 + interval '30 minutes'),
	(4, 'exit',  sp.x2, 3 * sp.u, sp.m2 * 3 * sp.u * sp.mult,  sp.t0 + interval '2 hours'),
	(5, 'exit',  sp.x3, 4 * sp.u, sp.m3 * 4 * sp.u * sp.mult,
	    sp.t0 + CASE WHEN sp.i % 5 = 0 THEN interval '1 day 3 hours' ELSE interval '4 hours' END)
) AS f(k, type, price, qty, realized, at)`,
		func([]string, int, time.Time, string, []string) []any { return nil }},
	{"positions", `
INSERT INTO positions (id, user_id, account_id, symbol, asset_type, underlying, option_expiry, option_right, option_strike,
	multiplier, side, status, stop_loss, opened_at, closed_at, entry_quantity, exit_quantity, open_quantity,
	avg_entry_price, avg_exit_price, gross_pnl, fees, net_pnl, initial_risk, r_multiple, created_at, updated_at)
SELECT sp.id, $1::uuid, sp.account_id, sp.symbol, CASE WHEN sp.opt THEN 'option' ELSE 'stock' END,
       CASE WHEN sp.opt THEN sp.root END, CASE WHEN sp.opt THEN sp.expiry END,
       CASE WHEN sp.opt THEN sp.option_right END, CASE WHEN sp.opt THEN sp.strike END,
       sp.mult, CASE WHEN sp.s = 1 THEN 'long' ELSE 'short' END, 'closed', sp.stop, sp.t0, a.closed_at,
       10 * sp.u, 10 * sp.u, 0, sp.avg, round((3 * sp.x1 + 3 * sp.x2 + 4 * sp.x3) / 10, 10),
       a.gross, a.fees, a.gross - a.fees,
       round(abs(sp.avg - sp.stop) * 10 * sp.u * sp.mult, 4),
       round((a.gross - a.fees) / round(abs(sp.avg - sp.stop) * 10 * sp.u * sp.mult, 4), 4),
       sp.t0, a.closed_at
FROM seed_p sp
JOIN (SELECT position_id, sum(realized) AS gross, sum(fee) AS fees, max(at) AS closed_at FROM seed_f GROUP BY position_id) a
	ON a.position_id = sp.id`,
		func(_ []string, _ int, _ time.Time, user string, _ []string) []any { return []any{user} }},
	{"fills", `
INSERT INTO fills (id, position_id, type, price, quantity, fees, fee_estimated, filled_at, created_at)
SELECT id, position_id, type, price, qty, fee, true, at, at FROM seed_f`,
		func([]string, int, time.Time, string, []string) []any { return nil }},
	{"ledger", `
INSERT INTO ledger_entries (account_id, kind, amount, position_id, fill_id, occurred_at, created_at)
SELECT account_id, 'realized_pnl', realized, position_id, id, at, at FROM seed_f WHERE type = 'exit'
UNION ALL
SELECT account_id, 'fee', -fee, position_id, id, at, at FROM seed_f WHERE fee > 0
UNION ALL
SELECT a, 'deposit', 10000, NULL, NULL, $2::timestamptz - interval '1 day', $2::timestamptz - interval '1 day'
FROM unnest($1::uuid[]) AS a`,
		func(accounts []string, _ int, start time.Time, _ string, _ []string) []any {
			return []any{accounts, start}
		}},
	{"tags", `
INSERT INTO position_tags (position_id, tag_id)
SELECT id, ($1::uuid[])[1 + i % cardinality($1::uuid[])] FROM seed_p
UNION ALL
SELECT id, ($1::uuid[])[1 + (i + 1) % cardinality($1::uuid[])] FROM seed_p WHERE i % 7 = 0 AND cardinality($1::uuid[]) > 1`,
		func(_ []string, _ int, _ time.Time, _ string, tags []string) []any { return []any{tags} }},
	{"balances", `
UPDATE accounts a SET balance = a.starting_balance
	+ coalesce((SELECT sum(l.amount) FROM ledger_entries l WHERE l.account_id = a.id), 0)
WHERE a.id = ANY($1::uuid[])`,
		func(accounts []string, _ int, _ time.Time, _ string, _ []string) []any { return []any{accounts} }},
}
