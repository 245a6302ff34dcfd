package performance

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/db"
	"tradejournal/shared/journal"
)

// The rollups (migrations/0011) are kept by triggers in the transaction of
// every write that changes a closed position. A report reads them wherever
// the filter lines up with their keys and falls back to the per-position
// statements elsewhere; both give the same figures (TestRollupsMatchPositions).

// sources says which parts of a report come from the rollups.
type sources struct {
	days       bool // perf_days: the calendar, months and summary
	breakdowns bool // perf_symbols and perf_tags
	series     bool // perf_series: the order-dependent figures per currency
	total      bool // perf_series '*': its basis is today's factors
}

// rollupSources is what the rollups can answer exactly under f: days are
// keyed by account and trading day, symbols and tags by account, series by
// currency and UTC date only. A symbol or tag filter, or a status other
// than closed (which leaves nothing to count), reads positions.
func rollupSources(f journal.Filter) sources {
	aligned := f.Symbol == "" && f.TagID == "" && (f.Status == "" || f.Status == "closed")
	undated := aligned && f.From == nil && f.To == nil
	return sources{days: aligned, breakdowns: undated, series: undated && f.AccountID == ""}
}

// rollupWhere is the filter over a rollup aliased r: its account, and for
// perf_days its trading day (the same day the positions' filter reads in
// the account's zone).
func rollupWhere(f journal.Filter, args *[]any, days bool) string {
	conds := "TRUE"
	arg := func(v any) string {
		*args = append(*args, v)
		return fmt.Sprintf("$%d", len(*args))
	}
	if f.AccountID != "" {
		conds += " AND r.account_id = " + arg(f.AccountID)
	}
	if days && f.From != nil {
		conds += " AND r.day >= " + arg(f.From.Format(time.DateOnly)) + "::date"
	}
	if days && f.To != nil {
		conds += " AND r.day <= " + arg(f.To.Format(time.DateOnly)) + "::date"
	}
	return conds
}

// segmentsSQL reads the segments of the series in $2 in order; compose
// folds them.
const segmentsSQL = `
SELECT series, trades, net, max_prefix, min_prefix, max_drawdown,
	lead_wins, lead_losses, trail_wins, trail_losses, best_wins, best_losses
FROM perf_series WHERE user_id = $1 AND series = ANY ($2::text[])
ORDER BY series, bucket`

// curveSQL samples the equity curve of each series in $2 from its
// segments, as seriesSQL does from the positions: after every k-th close,
// k = ceil(n/%[1]d), and after the last. A sample's cumulative sum is the
// sum of the segments before it plus the one inside its segment.
const curveSQL = `
WITH s AS (
	SELECT series, closed_at, cum, trades,
		(sum(trades) OVER w - trades)::int8 AS before, sum(net) OVER w - net AS base,
		(sum(trades) OVER (PARTITION BY series))::int8 AS n
	FROM perf_series WHERE user_id = $1 AND series = ANY ($2::text[])
	WINDOW w AS (PARTITION BY series ORDER BY bucket)
), k AS (SELECT *, (n + %[1]d - 1) / %[1]d AS step FROM s)
SELECT k.series, array_agg(k.closed_at[(x.r - k.before)::int] ORDER BY x.r),
	array_agg(k.base + k.cum[(x.r - k.before)::int] ORDER BY x.r)
FROM k CROSS JOIN LATERAL (
	SELECT g FROM generate_series(((k.before + k.step) / k.step) * k.step, k.before + k.trades, k.step) AS g
	UNION SELECT k.n WHERE k.n > k.before AND k.n <= k.before + k.trades
) AS x(r)
GROUP BY k.series`

// segment is one perf_series row.
type segment struct {
	trades                    int64
	net, maxPrefix, minPrefix decimal.Decimal
	maxDrawdown               decimal.Decimal
	leadWins, leadLosses      int64
	trailWins, trailLosses    int64
	bestWins, bestLosses      int64
}

// fold is a series composed so far: the state of seriesSQL's walk after
// the segments seen.
type fold struct {
	stats           seriesStats
	cum, peak       decimal.Decimal // peak counts the starting 0
	winRun, lossRun int64           // the streaks running at the end
}

// add appends a segment: a drawdown inside it, or from the peak before it
// to its lowest point; a streak inside it, or the one running into it
// continued by its leading run.
func (f *fold) add(s segment) {
	if s.trades == 0 {
		return
	}
	s0 := &f.stats
	s0.trades += s.trades
	s0.maxDrawdown = decimal.Max(s0.maxDrawdown, s.maxDrawdown, f.peak.Sub(f.cum.Add(s.minPrefix)))
	f.peak = decimal.Max(f.peak, f.cum.Add(s.maxPrefix))
	f.cum = f.cum.Add(s.net)
	f.winRun, s0.winStreak = streak(f.winRun, s0.winStreak, s.trades, s.leadWins, s.trailWins, s.bestWins)
	f.lossRun, s0.lossStreak = streak(f.lossRun, s0.lossStreak, s.trades, s.leadLosses, s.trailLosses, s.bestLosses)
}

// streak continues the running streak by a segment of n closes that leads
// with lead, trails with trail and holds best at most; it returns the new
// running streak and the longest.
func streak(running, longest, n, lead, trail, best int64) (int64, int64) {
	if lead == n {
		running += n
	} else {
		longest = max(longest, running+lead)
		running = trail
	}
	return running, max(longest, best, running)
}

func readSegments(rows pgx.Rows, out *raw) error {
	folds := map[string]*fold{}
	var (
		name string
		s    segment
	)
	_, err := pgx.ForEachRow(rows, []any{&name, &s.trades, &s.net, &s.maxPrefix, &s.minPrefix, &s.maxDrawdown,
		&s.leadWins, &s.leadLosses, &s.trailWins, &s.trailLosses, &s.bestWins, &s.bestLosses}, func() error {
		if folds[name] == nil {
			folds[name] = &fold{}
		}
		folds[name].add(s)
		return nil
	})
	for name, f := range folds {
		st := f.stats
		st.curve = out.series[name].curve
		out.series[name] = st
	}
	return err
}

func readCurves(rows pgx.Rows, out *raw) error {
	var (
		name string
		at   []time.Time
		cum  []decimal.Decimal
	)
	_, err := pgx.ForEachRow(rows, []any{&name, &at, &cum}, func() error {
		if len(at) != len(cum) {
			return fmt.Errorf("series %s: %d times for %d points", name, len(at), len(cum))
		}
		st := out.series[name]
		st.curve = make([]curvePoint, len(at))
		for i := range at {
			st.curve[i] = curvePoint{closedAt: at[i], cum: cum[i]}
		}
		out.series[name] = st
		return nil
	})
	return err
}

// basisSQL reads the factors the '*' segments were computed with.
const basisSQL = `SELECT currencies, factors FROM perf_basis WHERE user_id = $1`

// basisIsToday reports whether the user's '*' segments were computed with
// factors: the same currencies, each with an equal factor.
func basisIsToday(ctx context.Context, tx pgx.Tx, userID string, factors map[string]decimal.Decimal) (bool, error) {
	var (
		currencies []string
		values     []decimal.Decimal
	)
	err := tx.QueryRow(ctx, basisSQL, userID).Scan(&currencies, &values)
	if err == pgx.ErrNoRows {
		return false, nil
	}
	if err != nil {
		return false, db.Classify(err)
	}
	if len(currencies) != len(factors) || len(values) != len(currencies) {
		return false, nil
	}
	for i, c := range currencies {
		if f, ok := factors[c]; !ok || !f.Equal(values[i]) {
			return false, nil
		}
	}
	return true, nil
}

// setBasis recomputes the user's '*' segments with factors (perf_set_basis,
// which does nothing when another report just did it). It costs about one
// per-position walk, once per change of today's factors (a new rate, a new
// day, another display currency).
func setBasis(ctx context.Context, pool TxBeginner, userID string, factors map[string]decimal.Decimal) error {
	currencies := slices.Sorted(maps.Keys(factors))
	values := make([]string, len(currencies))
	for i, c := range currencies {
		values[i] = factors[c].String()
	}
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{})
	if err != nil {
		return db.Classify(err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // after Commit: nothing to undo
	if _, err := tx.Exec(ctx, `SELECT perf_set_basis($1, $2::text[], $3::numeric[])`, userID, currencies, values); err != nil {
		return db.Classify(err)
	}
	return db.Classify(tx.Commit(ctx))
}
