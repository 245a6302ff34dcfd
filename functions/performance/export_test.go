package performance

import (
	"context"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/app"
	"tradejournal/shared/auth"
	"tradejournal/shared/journal"
)

// WorkMem is the setting load makes before its statements.
const WorkMem = workMem

// Statement is one statement of a report, for EXPLAIN ANALYZE in the
// benchmark.
type Statement struct {
	Name string
	SQL  string
	Args []any
}

// Statements exposes a report's statements: from the positions, or from
// the rollups wherever f allows (the total's too: the caller makes sure
// its basis is today's).
func Statements(userID string, f journal.Filter, currencies []string, factors map[string]decimal.Decimal, total, rollups bool) []Statement {
	var src sources
	if rollups {
		src = rollupSources(f)
		src.total = src.series
	}
	var out []Statement
	for _, st := range statements(userID, f, currencies, factors, total, src) {
		out = append(out, Statement{st.name, st.sql, st.args})
	}
	return out
}

// FromPositions computes a report without the rollups: the oracle the
// rollup-based report must equal.
func FromPositions(ctx context.Context, pool TxBeginner, u auth.User, f journal.Filter, now time.Time) (Report, error) {
	return compute(ctx, pool, MaxWidth, u, f, now, false)
}

// PointsStatement is the query that reads the sampled equity-curve points
// of the series named, placed from their segments as a report places them.
func PointsStatement(ctx context.Context, tx pgx.Tx, userID string, series []string) (Statement, error) {
	out := newRaw()
	rows, err := tx.Query(ctx, segmentsSQL, userID, series)
	if err != nil {
		return Statement{}, err
	}
	if err := readSegments(rows, &out); err != nil {
		return Statement{}, err
	}
	return Statement{"series curve points (rollup)", pointsSQL, pointsArgs(userID, curveSamples(out.folds))}, nil
}

// RouteFromPositions is GET /api/performance as the route answers it with
// the rollups never read: the per-position statements, for the benchmark.
func RouteFromPositions(a *app.App) http.Handler {
	return a.Serve(a.Sessions.Require(newHandler(a, false).get))
}
