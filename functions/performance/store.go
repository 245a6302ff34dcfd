package performance

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"

	"tradejournal/shared/db"
	"tradejournal/shared/journal"
)

// The statements below aggregate in PostgreSQL: no position row reaches Go,
// only grouped rows (one per currency and trading day, month, symbol or
// tag) and, per series, the order-dependent figures with at most
// maxCurvePoints points of the equity curve. Each reads the user's closed
// positions joined to their account (currency, trading-day zone), narrowed
// by the shared journal filter (%[1]s; the date range applies to closed_at
// in the account's zone).

// daysSQL groups by currency and trading day (the calendar date of
// closed_at in the account's zone) with every sum a figure is derived from,
// and rolls the days up, in SQL, into months and into one row per currency
// (the summary). hi and lo are the largest and smallest net P&L: the
// largest win when hi > 0, the largest loss when lo < 0.
const daysSQL = `
WITH d AS (
	SELECT a.currency::text AS cur, (p.closed_at AT TIME ZONE a.timezone)::date AS day,
		count(*) AS n, count(*) FILTER (WHERE p.net_pnl > 0) AS w, count(*) FILTER (WHERE p.net_pnl < 0) AS l,
		sum(p.net_pnl) AS net, sum(p.gross_pnl) AS gross, sum(p.fees) AS fees,
		coalesce(sum(p.net_pnl) FILTER (WHERE p.net_pnl > 0), 0) AS wsum,
		coalesce(sum(p.net_pnl) FILTER (WHERE p.net_pnl < 0), 0) AS lsum,
		max(p.net_pnl) AS hi, min(p.net_pnl) AS lo,
		coalesce(sum(p.r_multiple), 0) AS rsum, count(p.r_multiple) AS rcount
	FROM positions p JOIN accounts a ON a.id = p.account_id
	WHERE p.user_id = $1 AND p.status = 'closed' AND (%[1]s)
	GROUP BY 1, 2
)` + daysRollUp

// daysRollupSQL is daysSQL over perf_days (migrations/0011): the rows of
// one currency and day are one per account, added up here. %[1]s filters
// them (rollupWhere).
const daysRollupSQL = `
WITH d AS (
	SELECT a.currency::text AS cur, r.day, sum(r.trades)::int8 AS n, sum(r.wins)::int8 AS w, sum(r.losses)::int8 AS l,
		sum(r.net) AS net, sum(r.gross) AS gross, sum(r.fees) AS fees, sum(r.win_sum) AS wsum, sum(r.loss_sum) AS lsum,
		max(r.hi) AS hi, min(r.lo) AS lo, sum(r.r_sum) AS rsum, sum(r.r_count)::int8 AS rcount
	FROM perf_days r JOIN accounts a ON a.id = r.account_id
	WHERE r.user_id = $1 AND (%[1]s)
	GROUP BY 1, 2
)` + daysRollUp

// daysRollUp turns the day rows d into day, month and currency rows. A
// day or a month shows its counts and net P&L only: its other sums are
// left NULL, which costs nothing to send and read.
const daysRollUp = `
SELECT 'day', cur, to_char(day, 'YYYY-MM-DD'), n, w, l, net, NULL::numeric, NULL::numeric, NULL::numeric, NULL::numeric,
	NULL::numeric, NULL::numeric, NULL::numeric, NULL::int8
FROM d
UNION ALL
SELECT 'month', cur, to_char(day, 'YYYY-MM'), sum(n)::int8, sum(w)::int8, sum(l)::int8, sum(net), NULL, NULL, NULL, NULL,
	NULL, NULL, NULL, NULL
FROM d GROUP BY cur, to_char(day, 'YYYY-MM')
UNION ALL
SELECT 'currency', cur, '', sum(n)::int8, sum(w)::int8, sum(l)::int8, sum(net), sum(gross), sum(fees),
	sum(wsum), sum(lsum), max(hi), min(lo), sum(rsum), sum(rcount)::int8
FROM d GROUP BY cur`

// symbolsSQL is the breakdown by symbol (an option's full OCC symbol).
const symbolsSQL = `
SELECT a.currency::text, p.symbol, count(*), count(*) FILTER (WHERE p.net_pnl > 0), count(*) FILTER (WHERE p.net_pnl < 0), sum(p.net_pnl)
FROM positions p JOIN accounts a ON a.id = p.account_id
WHERE p.user_id = $1 AND p.status = 'closed' AND (%[1]s)
GROUP BY 1, 2`

// symbolsRollupSQL is symbolsSQL over perf_symbols.
const symbolsRollupSQL = `
SELECT a.currency::text, r.symbol, sum(r.trades)::int8, sum(r.wins)::int8, sum(r.losses)::int8, sum(r.net)
FROM perf_symbols r JOIN accounts a ON a.id = r.account_id
WHERE r.user_id = $1 AND (%[1]s)
GROUP BY 1, 2`

// tagsSQL is the breakdown by tag: a position with two tags counts in both.
const tagsSQL = `
SELECT a.currency::text, t.id::text, t.name, t.category,
	count(*), count(*) FILTER (WHERE p.net_pnl > 0), count(*) FILTER (WHERE p.net_pnl < 0), sum(p.net_pnl)
FROM positions p JOIN accounts a ON a.id = p.account_id
	JOIN position_tags pt ON pt.position_id = p.id JOIN tags t ON t.id = pt.tag_id
WHERE p.user_id = $1 AND p.status = 'closed' AND (%[1]s)
GROUP BY a.currency, t.id`

// tagsRollupSQL is tagsSQL over perf_tags.
const tagsRollupSQL = `
SELECT a.currency::text, t.id::text, t.name, t.category,
	sum(r.trades)::int8, sum(r.wins)::int8, sum(r.losses)::int8, sum(r.net)
FROM perf_tags r JOIN accounts a ON a.id = r.account_id JOIN tags t ON t.id = r.tag_id
WHERE r.user_id = $1 AND (%[1]s)
GROUP BY a.currency, t.id`

// maxCurvePoints bounds an equity curve.
const maxCurvePoints = 1000

// seriesSQL computes the order-dependent figures of each series named in
// %[2]s (text[]): an account currency, or "*" for every position converted
// into the display currency (net P&L x its currency's factor, %[3]s text[]
// of currencies and %[4]s numeric[] of factors; a currency without a
// factor has no "*" row). Each series is walked in close order (closed_at,
// then id, so ties are stable) by its own sort, led by closed_at (a sort
// led by the currency is several times slower), and two layers of running
// window aggregates:
//   - cum, the cumulative net P&L, and peak, its running maximum counting
//     the starting 0: the drawdown at a close is peak - cum;
//   - w and l, the running counts of wins and losses, and lw (ll), w (l) at
//     the latest close that was not a win (loss): the streak a win ends is
//     w - lw. A breakeven ends both kinds of streak.
//
// The last layer is a plain aggregate: the maximum drawdown, the longest
// streaks, and the equity curve, the cumulative net P&L after every k-th
// close, k = ceil(n/1000), and after the last: at most 1000 points.
const seriesSQL = `
WITH base AS MATERIALIZED (
	SELECT a.currency::text AS cur, p.closed_at, p.id, p.net_pnl AS net, p.net_pnl * f.factor AS tnet
	FROM positions p JOIN accounts a ON a.id = p.account_id
		LEFT JOIN unnest(%[3]s::text[], %[4]s::numeric[]) AS f(cur, factor) ON f.cur = a.currency::text
	WHERE p.user_id = $1 AND p.status = 'closed' AND (%[1]s)
)
SELECT s.series, c.n, coalesce(r.maxdd, 0), coalesce(r.ws, 0), coalesce(r.ls, 0),
	coalesce(r.at, '{}'), coalesce(r.cum, '{}')
FROM unnest(%[2]s::text[]) AS s(series)
CROSS JOIN LATERAL (SELECT count(*) AS n FROM base b
	WHERE CASE WHEN s.series = '*' THEN b.tnet IS NOT NULL ELSE b.cur = s.series END) c
CROSS JOIN LATERAL (
	SELECT max(greatest(peak, 0) - cum) AS maxdd, max(w - coalesce(lw, 0)) AS ws, max(l - coalesce(ll, 0)) AS ls,
		array_agg(closed_at ORDER BY rn) FILTER (WHERE rn %% ((c.n + %[5]d - 1) / %[5]d) = 0 OR rn = c.n) AS at,
		array_agg(cum ORDER BY rn) FILTER (WHERE rn %% ((c.n + %[5]d - 1) / %[5]d) = 0 OR rn = c.n) AS cum
	FROM (
		SELECT closed_at, rn, cum, w, l,
			max(cum) OVER o AS peak,
			max(w) FILTER (WHERE v <= 0) OVER o AS lw,
			max(l) FILTER (WHERE v >= 0) OVER o AS ll
		FROM (
			SELECT b.closed_at, b.id, x.v,
				sum(x.v) OVER o AS cum, row_number() OVER o AS rn,
				count(*) FILTER (WHERE x.v > 0) OVER o AS w, count(*) FILTER (WHERE x.v < 0) OVER o AS l
			FROM base b CROSS JOIN LATERAL (SELECT CASE WHEN s.series = '*' THEN b.tnet ELSE b.net END) AS x(v)
			WHERE CASE WHEN s.series = '*' THEN b.tnet IS NOT NULL ELSE b.cur = s.series END
			WINDOW o AS (ORDER BY b.closed_at, b.id ROWS UNBOUNDED PRECEDING)
		) w1
		WINDOW o AS (ORDER BY closed_at, id ROWS UNBOUNDED PRECEDING)
	) w2
) r`

// aggRow is one grouped row: the sums every figure is derived from.
type aggRow struct {
	trades, wins, losses int64
	net, gross, fees     decimal.Decimal
	winSum, lossSum      decimal.Decimal // sums of the winners' and the losers' net P&L
	hi, lo               decimal.NullDecimal
	rSum                 decimal.Decimal
	rCount               int64
}

type tagRow struct {
	currency, id, name, category string
	trades, wins, losses         int64
	net                          decimal.Decimal
}

// curvePoint is one point of an equity curve.
type curvePoint struct {
	closedAt time.Time
	cum      decimal.Decimal
}

// seriesStats are the figures of a series that depend on order.
type seriesStats struct {
	trades                int64
	maxDrawdown           decimal.Decimal
	winStreak, lossStreak int64
	curve                 []curvePoint
}

// raw is everything the statements return, before formatting.
type raw struct {
	summary  map[string]aggRow            // by currency
	byDay    map[string]map[string]aggRow // currency, "YYYY-MM-DD"
	byMonth  map[string]map[string]aggRow // currency, "YYYY-MM"
	bySymbol map[string]map[string]aggRow
	tags     []tagRow
	series   map[string]seriesStats // by currency, and "*"
	folds    map[string]*fold       // the series read from their segments, while they are read
}

// workMem lets the sorts of seriesSQL and the hash tables stay in memory
// for 100,000 positions; SET LOCAL ends with the transaction.
const workMem = `SET LOCAL work_mem = '64MB'`

// totalSeries is the series name of the converted total.
const totalSeries = "*"

// statement is one SQL text with its arguments and the reader of its rows.
// part places it on a connection (load): 0 for the grouped breakdowns,
// 1 and 2 for the two per-position walks; of the rollup reads, the days
// take part 0 and the rest part 1, which halves their time on two cores.
type statement struct {
	name string
	sql  string
	args []any
	read func(pgx.Rows, *raw) error
	part int
	// after, if set, runs once the batch is read, in the same transaction.
	after func(context.Context, pgx.Tx, *raw) error
}

// statements returns the statements of a report. currencies are the
// series to walk one by one (the user's account currencies); factors the
// display-currency factors of the currencies that have one; total asks for
// the "*" series; src says which parts read the rollups.
func statements(userID string, f journal.Filter, currencies []string, factors map[string]decimal.Decimal, total bool, src sources) []statement {
	args := []any{userID}
	where := f.SQL(&args, "p.closed_at")
	n := len(args)
	p := func(i int) string { return fmt.Sprintf("$%d", n+i) }
	fc, fv := make([]string, 0, len(factors)), make([]string, 0, len(factors))
	for c, v := range factors {
		fc, fv = append(fc, c), append(fv, v.String())
	}
	series := func(names []string, fc, fv []string) []any {
		return append(append([]any{}, args...), names, fc, fv)
	}
	rollup := func(days bool) (string, []any) {
		a := []any{userID}
		return rollupWhere(f, &a, days), a
	}
	var out []statement
	if src.days {
		w, a := rollup(true)
		out = append(out, statement{"days (rollup)", fmt.Sprintf(daysRollupSQL, w), a, readDays, 0, nil})
	} else {
		out = append(out, statement{"days", fmt.Sprintf(daysSQL, where), args, readDays, 0, nil})
	}
	if src.breakdowns {
		w, a := rollup(false)
		out = append(out, statement{"symbols (rollup)", fmt.Sprintf(symbolsRollupSQL, w), a, readSymbols, 1, nil},
			statement{"tags (rollup)", fmt.Sprintf(tagsRollupSQL, w), a, readTags, 1, nil})
	} else {
		out = append(out, statement{"symbols", fmt.Sprintf(symbolsSQL, where), args, readSymbols, 0, nil},
			statement{"tags", fmt.Sprintf(tagsSQL, where), args, readTags, 0, nil})
	}
	var segmented []string
	if src.series {
		segmented = append(segmented, currencies...)
	} else {
		out = append(out, statement{"currency series", fmt.Sprintf(seriesSQL, where, p(1), p(2), p(3), maxCurvePoints),
			series(currencies, []string{}, []string{}), readSeries, 1, nil})
	}
	switch {
	case total && src.total:
		segmented = append(segmented, totalSeries)
	case total:
		out = append(out, statement{"total series", fmt.Sprintf(seriesSQL, where, p(1), p(2), p(3), maxCurvePoints),
			series([]string{totalSeries}, fc, fv), readSeries, 2, nil})
	}
	if len(segmented) > 0 {
		out = append(out, statement{"series segments (rollup)", segmentsSQL, []any{userID, segmented}, readSegments, 1,
			func(ctx context.Context, tx pgx.Tx, r *raw) error { return readCurves(ctx, tx, userID, r) }})
	}
	return out
}

// TxBeginner starts a transaction with options: a pool.
type TxBeginner interface {
	BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error)
}

// readOnly is every transaction's mode: one consistent snapshot, no write.
var readOnly = pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}

// plan picks the statements once the first transaction has read what they
// depend on (the user's currencies and rates).
type plan func(tx pgx.Tx) ([]statement, error)

// MaxWidth is the most connections one report uses at once.
const MaxWidth = 3

// load runs a report's statements on up to width connections at once
// (1..MaxWidth), in read-only repeatable-read transactions that share one
// snapshot (pg_export_snapshot, SET TRANSACTION SNAPSHOT): every figure
// comes from the same state of the database, and the heavy statements use
// more than one core. The first transaction runs plan first. A caller that
// runs several loads at once bounds them so that they never hold more
// connections than the pool has: each holds one while it waits for the
// others.
func load(ctx context.Context, pool TxBeginner, width int, planner plan) (raw, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tx, err := pool.BeginTx(ctx, readOnly)
	if err != nil {
		return raw{}, db.Classify(err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // read-only: nothing to undo
	if _, err := tx.Exec(ctx, workMem); err != nil {
		return raw{}, db.Classify(err)
	}
	sts, err := planner(tx)
	if err != nil {
		return raw{}, err
	}

	// Up to three parts of about equal cost on 100,000 positions (the
	// grouped breakdowns, and each walk of the positions in close order),
	// folded onto width connections.
	width = max(1, min(width, MaxWidth))
	groups := make([][]statement, width)
	for _, st := range sts {
		groups[st.part%width] = append(groups[st.part%width], st)
	}
	// The transaction's snapshot was taken by the planner's first query;
	// the other connections import it.
	var snapshot string
	if slices.ContainsFunc(groups[1:], func(g []statement) bool { return len(g) > 0 }) {
		if err := tx.QueryRow(ctx, `SELECT pg_export_snapshot()`).Scan(&snapshot); err != nil {
			return raw{}, db.Classify(err)
		}
		if !snapshotID.MatchString(snapshot) {
			return raw{}, fmt.Errorf("unexpected snapshot id %q", snapshot)
		}
	}
	results := make([]raw, width)
	errs := make([]error, width)
	var wg sync.WaitGroup
	for i := 1; i < width; i++ {
		if len(groups[i]) == 0 {
			continue
		}
		wg.Go(func() {
			errs[i] = runImported(ctx, pool, snapshot, groups[i], &results[i])
			if errs[i] != nil {
				cancel()
			}
		})
	}
	errs[0] = run(ctx, tx, groups[0], &results[0])
	if errs[0] != nil {
		cancel()
	}
	wg.Wait()
	if err := firstCause(errs); err != nil {
		return raw{}, err
	}
	out := newRaw()
	for _, r := range results {
		out.merge(r)
	}
	return out, nil
}

// snapshotID is the shape of pg_export_snapshot's answer; it is checked
// before being written into SET TRANSACTION SNAPSHOT, which takes no
// parameters.
var snapshotID = regexp.MustCompile(`^[0-9A-F]+-[0-9A-F]+(-[0-9A-F]+)?$`)

// runImported runs statements in a new transaction that imports snapshot.
func runImported(ctx context.Context, pool TxBeginner, snapshot string, sts []statement, out *raw) error {
	tx, err := pool.BeginTx(ctx, readOnly)
	if err != nil {
		return db.Classify(err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // read-only: nothing to undo
	if _, err := tx.Exec(ctx, `SET TRANSACTION SNAPSHOT '`+snapshot+`'`); err != nil {
		return db.Classify(err)
	}
	if _, err := tx.Exec(ctx, workMem); err != nil {
		return db.Classify(err)
	}
	return run(ctx, tx, sts, out)
}

// run sends statements as one batch (one round trip) and reads them in order.
func run(ctx context.Context, tx pgx.Tx, sts []statement, out *raw) error {
	*out = newRaw()
	if len(sts) == 0 {
		return nil
	}
	b := &pgx.Batch{}
	for _, st := range sts {
		b.Queue(st.sql, st.args...)
	}
	br := tx.SendBatch(ctx, b)
	for _, st := range sts {
		rows, err := br.Query()
		if err == nil {
			err = st.read(rows, out)
		}
		if err != nil {
			_ = br.Close()
			return db.Classify(fmt.Errorf("%s: %w", st.name, err))
		}
	}
	if err := br.Close(); err != nil {
		return db.Classify(err)
	}
	for _, st := range sts {
		if st.after == nil {
			continue
		}
		if err := st.after(ctx, tx, out); err != nil {
			return db.Classify(fmt.Errorf("%s: %w", st.name, err))
		}
	}
	return nil
}

// firstCause prefers the error that is not a consequence of another's
// cancellation.
func firstCause(errs []error) error {
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func newRaw() raw {
	return raw{
		summary: map[string]aggRow{}, byDay: map[string]map[string]aggRow{}, byMonth: map[string]map[string]aggRow{},
		bySymbol: map[string]map[string]aggRow{}, series: map[string]seriesStats{}, folds: map[string]*fold{},
	}
}

// merge adds the parts of r that its statements filled.
func (out *raw) merge(r raw) {
	for k, v := range r.summary {
		out.summary[k] = v
	}
	for _, m := range []struct{ dst, src map[string]map[string]aggRow }{
		{out.byDay, r.byDay}, {out.byMonth, r.byMonth}, {out.bySymbol, r.bySymbol},
	} {
		for k, v := range m.src {
			m.dst[k] = v
		}
	}
	out.tags = append(out.tags, r.tags...)
	for k, v := range r.series {
		out.series[k] = v
	}
}

func put(m map[string]map[string]aggRow, cur, key string, a aggRow) {
	if m[cur] == nil {
		m[cur] = map[string]aggRow{}
	}
	m[cur][key] = a
}

func readDays(rows pgx.Rows, out *raw) error {
	var (
		kind, cur, key                   string
		a                                aggRow
		gross, fees, winSum, lossSum, rs decimal.NullDecimal // NULL on days and months
		rCount                           *int64
	)
	_, err := pgx.ForEachRow(rows, []any{&kind, &cur, &key,
		&a.trades, &a.wins, &a.losses, num(&a.net), &gross, &fees, &winSum, &lossSum,
		&a.hi, &a.lo, &rs, &rCount}, func() error {
		switch kind {
		case "day":
			put(out.byDay, cur, key, a)
		case "month":
			put(out.byMonth, cur, key, a)
		case "currency":
			s := a
			s.gross, s.fees, s.winSum, s.lossSum, s.rSum = gross.Decimal, fees.Decimal, winSum.Decimal, lossSum.Decimal, rs.Decimal
			if rCount != nil {
				s.rCount = *rCount
			}
			out.summary[cur] = s
		}
		return nil
	})
	return err
}

func readSymbols(rows pgx.Rows, out *raw) error {
	var cur, symbol string
	var a aggRow
	_, err := pgx.ForEachRow(rows, []any{&cur, &symbol, &a.trades, &a.wins, &a.losses, num(&a.net)}, func() error {
		put(out.bySymbol, cur, symbol, a)
		return nil
	})
	return err
}

func readTags(rows pgx.Rows, out *raw) error {
	var err error
	out.tags, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (tagRow, error) {
		var t tagRow
		err := row.Scan(&t.currency, &t.id, &t.name, &t.category, &t.trades, &t.wins, &t.losses, &t.net)
		return t, err
	})
	return err
}

func readSeries(rows pgx.Rows, out *raw) error {
	var (
		name string
		s    seriesStats
		at   []time.Time
		cum  []decimal.Decimal
	)
	_, err := pgx.ForEachRow(rows, []any{&name, &s.trades, &s.maxDrawdown, &s.winStreak, &s.lossStreak, &at, &cum}, func() error {
		if len(at) != len(cum) {
			return fmt.Errorf("series %s: %d times for %d points", name, len(at), len(cum))
		}
		s.curve = make([]curvePoint, len(at))
		for i := range at {
			s.curve[i] = curvePoint{closedAt: at[i], cum: cum[i]}
		}
		out.series[name] = s
		return nil
	})
	return err
}

// numeric scans a NUMERIC straight from its binary form into a decimal.
// The pool's decimal registration (shared/db) reaches shopspring's
// sql.Scanner here, which formats every value as text and parses it back:
// a third of a report's CPU time in Go on 100,000 positions.
type numeric struct{ dst *decimal.Decimal }

// num is the scan target of a NUMERIC NOT NULL into d.
func num(d *decimal.Decimal) *numeric { return &numeric{d} }

// ScanNumeric implements pgtype.NumericScanner.
func (n *numeric) ScanNumeric(v pgtype.Numeric) error {
	if !v.Valid || v.NaN || v.InfinityModifier != pgtype.Finite {
		return fmt.Errorf("numeric %v is not a finite number", v)
	}
	*n.dst = decimal.NewFromBigInt(v.Int, v.Exp)
	return nil
}
