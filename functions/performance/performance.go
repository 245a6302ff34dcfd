// Package performance is the route group of trading statistics: GET
// /api/performance, over the caller's closed positions, narrowed by the
// journal's shared filter, per account currency and converted into the
// display currency.
package performance

import (
	"context"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/app"
	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/fx"
	"tradejournal/shared/fx/fxdb"
	"tradejournal/shared/httpx"
	"tradejournal/shared/journal"
)

type handler struct {
	app *app.App
	// width is how many connections one report uses; slots bounds the
	// reports computed at once so that together they never hold more
	// connections than the pool has (a report holds one while it waits for
	// the others: without the bound, a burst of reports could each hold
	// one and wait forever).
	width int
	slots chan struct{}
	// rollups lets the report read the rollups where its filter allows;
	// false (a benchmark's handler) times the per-position statements.
	rollups bool
}

// Group returns the performance route group.
func Group(a *app.App) httpx.Group {
	h := newHandler(a, true)
	return httpx.Group{
		Name:   "performance",
		Mounts: []string{"/api/performance"},
		Routes: []httpx.Route{{Pattern: "GET /api/performance", Handler: a.Sessions.Require(h.get)}},
	}
}

func newHandler(a *app.App, rollups bool) handler {
	conns := int(a.DB.Config().MaxConns)
	width := max(1, min(MaxWidth, conns))
	return handler{app: a, width: width, slots: make(chan struct{}, max(1, conns/width)), rollups: rollups}
}

// get answers the statistics of the caller's closed positions. Query:
// accountId, symbol, tagId, from, to (YYYY-MM-DD, inclusive, on the close
// date in the account's trading-day zone) and status (only closed
// positions count, so any other status gives empty figures).
//
// The total converts with the spot rates of today in the user's reporting
// zone, the dashboard's rates, not the rate of each close day.
func (h handler) get(w http.ResponseWriter, r *http.Request) {
	f, err := journal.ParseFilter(r.URL.Query())
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	// PostgreSQL refuses text with NUL or invalid UTF-8; no symbol has either.
	if !utf8.ValidString(f.Symbol) || strings.ContainsRune(f.Symbol, 0) {
		httpx.Error(w, r, apperr.Invalid("symbol", "must be a ticker or OCC option symbol"))
		return
	}
	ctx := r.Context()
	select {
	case h.slots <- struct{}{}:
		defer func() { <-h.slots }()
	case <-ctx.Done():
		httpx.Error(w, r, ctx.Err())
		return
	}
	rep, err := compute(ctx, h.app.DB, h.width, auth.CurrentUser(ctx), f, h.app.Now(), h.rollups)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, rep)
}

// Compute is the report GET /api/performance answers for u, on one
// connection: the assistant grounds its answers in the same figures the
// journal shows.
func Compute(ctx context.Context, pool TxBeginner, u auth.User, f journal.Filter, now time.Time) (Report, error) {
	return compute(ctx, pool, 1, u, f, now, true)
}

// compute reads the user's rates in force today (in their reporting zone)
// and runs the report's statements on one snapshot, from the rollups where
// the filter allows (rollups false: never, the per-position oracle of the
// tests). When the converted total could have come from the rollups but
// their basis is not today's factors, the total is walked from the
// positions and the basis is brought up to date for the next report.
func compute(ctx context.Context, pool TxBeginner, width int, u auth.User, f journal.Filter, now time.Time, rollups bool) (Report, error) {
	display := ""
	if u.DisplayCurrency != nil {
		display = *u.DisplayCurrency
	}
	var (
		factors map[string]decimal.Decimal
		stale   bool
	)
	planner := func(tx pgx.Tx) ([]statement, error) {
		day := fx.Today(now, u.Timezone)
		snap, err := fxdb.Load(ctx, tx, fxdb.Query{UserID: u.ID, Display: display, Day: day, Keep: 1})
		if err != nil {
			return nil, err
		}
		currencies := make([]string, 0, len(snap.Balances))
		for _, b := range snap.Balances {
			currencies = append(currencies, b.Currency)
		}
		if display != "" {
			factors, _ = fx.Factors(snap.Balances, snap.Rates, display, day)
		}
		var src sources
		if rollups {
			src = rollupSources(f)
		}
		if display != "" && src.series {
			src.total, err = basisIsToday(ctx, tx, u.ID, factors)
			if err != nil {
				return nil, err
			}
			stale = !src.total
		}
		return statements(u.ID, f, currencies, factors, display != "", src), nil
	}
	data, err := load(ctx, pool, width, planner)
	if err != nil {
		return Report{}, err
	}
	if stale {
		if err := setBasis(ctx, pool, u.ID, factors); err != nil {
			return Report{}, err
		}
	}
	return build(data, display, factors), nil
}
