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

// segmentsSQL reads the segments of the series in $2 in order; fold
// composes them.
const segmentsSQL = `
SELECT series, bucket, trades, net, max_prefix, min_prefix, max_drawdown,
	lead_wins, lead_losses, trail_wins, trail_losses, best_wins, best_losses
FROM perf_series WHERE user_id = $1 AND series = ANY ($2::text[])
ORDER BY series, bucket`

// pointsSQL reads the closes the equity curves sample: the i-th close of
// a segment and the segment's cumulative sum after it, in the order asked.
const pointsSQL = `
SELECT p.closed_at[x.i], p.cum[x.i]
FROM unnest($2::text[], $3::date[], $4::int[]) WITH ORDINALITY AS x(series, bucket, i, ord)
JOIN perf_series p ON p.user_id = $1 AND p.series = x.series AND p.bucket = x.bucket
ORDER BY x.ord`

// segment is one perf_series row.
type segment struct {
	bucket                    time.Time
	trades                    int64
	net, maxPrefix, minPrefix decimal.Decimal
	maxDrawdown               decimal.Decimal
	leadWins, leadLosses      int64
	trailWins, trailLosses    int64
	bestWins, bestLosses      int64
}

// fold is a series composed so far: the state of seriesSQL's walk after
// the segments seen, and where each segment starts.
type fold struct {
	stats           seriesStats
	cum, peak       decimal.Decimal // peak counts the starting 0
	winRun, lossRun int64           // the streaks running at the end
	starts          []segmentStart
}

// segmentStart places a segment in its series: its date, its closes and
// the closes and cumulative sum before it.
type segmentStart struct {
	bucket         time.Time
	trades, before int64
	base           decimal.Decimal
}

// add appends a segment: a drawdown inside it, or from the peak before it
// to its lowest point; a streak inside it, or the one running into it
// continued by its leading run.
func (f *fold) add(s segment) {
	if s.trades == 0 {
		return
	}
	s0 := &f.stats
	f.starts = append(f.starts, segmentStart{bucket: s.bucket, trades: s.trades, before: s0.trades, base: f.cum})
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
	var (
		name string
		s    segment
	)
	_, err := pgx.ForEachRow(rows, []any{&name, &s.bucket, &s.trades, num(&s.net), num(&s.maxPrefix), num(&s.minPrefix), num(&s.maxDrawdown),
		&s.leadWins, &s.leadLosses, &s.trailWins, &s.trailLosses, &s.bestWins, &s.bestLosses}, func() error {
		if out.folds[name] == nil {
			out.folds[name] = &fold{}
		}
		out.folds[name].add(s)
		return nil
	})
	return err
}

// curveSample is one point of an equity curve to read: the segment's
// cumulative sum before it (base) plus the one at close i of the segment.
type curveSample struct {
	series string
	bucket time.Time
	i      int32
	base   decimal.Decimal
}

// curveSamples places the points of the equity curve of every folded
// series as seriesSQL samples them from the positions: after every k-th
// close, k = ceil(n/maxCurvePoints), and after the last.
func curveSamples(folds map[string]*fold) []curveSample {
	var out []curveSample
	for _, name := range slices.Sorted(maps.Keys(folds)) {
		f := folds[name]
		n := f.stats.trades
		k := (n + maxCurvePoints - 1) / maxCurvePoints
		seg := 0
		for next := k; next < n+k; next += k {
			r := min(next, n)
			for f.starts[seg].before+f.starts[seg].trades < r {
				seg++
			}
			st := f.starts[seg]
			out = append(out, curveSample{series: name, bucket: st.bucket, i: int32(r - st.before), base: st.base})
		}
	}
	return out
}

// pointsArgs are pointsSQL's arguments for samples.
func pointsArgs(userID string, samples []curveSample) []any {
	names, buckets, index := make([]string, len(samples)), make([]time.Time, len(samples)), make([]int32, len(samples))
	for j, s := range samples {
		names[j], buckets[j], index[j] = s.series, s.bucket, s.i
	}
	return []any{userID, names, buckets, index}
}

// readCurves reads the sampled points of every folded series (one query,
// ~1,000 points a series) and moves the folded series into out.series.
func readCurves(ctx context.Context, tx pgx.Tx, userID string, out *raw) error {
	samples := curveSamples(out.folds)
	at := make([]time.Time, 0, len(samples))
	cum := make([]decimal.Decimal, 0, len(samples))
	if len(samples) > 0 {
		rows, err := tx.Query(ctx, pointsSQL, pointsArgs(userID, samples)...)
		if err != nil {
			return err
		}
		var (
			t time.Time
			c decimal.Decimal
		)
		if _, err := pgx.ForEachRow(rows, []any{&t, num(&c)}, func() error {
			at, cum = append(at, t), append(cum, c)
			return nil
		}); err != nil {
			return err
		}
	}
	if len(at) != len(samples) {
		return fmt.Errorf("equity curves: %d points for %d samples", len(at), len(samples))
	}
	for j, s := range samples {
		f := out.folds[s.series]
		f.stats.curve = append(f.stats.curve, curvePoint{closedAt: at[j], cum: s.base.Add(cum[j])})
	}
	for name, f := range out.folds {
		out.series[name] = f.stats
	}
	return nil
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
	// Never nil: no factor at all is a basis too (empty arrays, not NULL).
	currencies := slices.AppendSeq(make([]string, 0, len(factors)), maps.Keys(factors))
	slices.Sort(currencies)
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
