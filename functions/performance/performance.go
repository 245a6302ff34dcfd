// Package performance is the route group of trading statistics: GET
// /api/performance answers the report of shared/stats over the caller's
// closed positions, narrowed by the journal's shared filter.
package performance

import (
	"net/http"

	"tradejournal/shared/app"
	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/httpx"
	"tradejournal/shared/listquery"
	"tradejournal/shared/stats"
)

type handler struct{ app *app.App }

// Group returns the performance route group.
func Group(a *app.App) httpx.Group {
	h := handler{app: a}
	return httpx.Group{
		Name:   "performance",
		Mounts: []string{"/api/performance", "/api/performance/"},
		Routes: []httpx.Route{
			{Pattern: "GET /api/performance", Handler: a.Sessions.Require(h.get)},
			{Pattern: "GET /api/performance/fees", Handler: a.Sessions.Require(h.fees)},
		},
		// One vCPU: the report is CPU-bound Go (docs/performance.md has its
		// CPU per report; at the default 512 MB, about 0.3 of a core, a
		// report would take three times as long).
		MemoryMB: 1769,
	}
}

// get answers the statistics of the caller's closed positions in the
// journal's shared filter (listquery.ParseFilter: accounts, symbols, tags in
// and out, side, asset types, entry weekday and hour, status, and from/to
// on the close date in the account's trading-day zone; only closed
// positions count, so another status gives empty figures). bySymbol=false
// leaves out the breakdown by symbol (one row per option contract), which
// the dashboard does not show.
func (h handler) get(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f, err := listquery.ParseFilter(q)
	withSymbols := true
	switch q.Get("bySymbol") {
	case "", "true":
	case "false":
		withSymbols = false
	default:
		err = apperr.Invalid("bySymbol", "must be true or false")
	}
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	rep, err := stats.Compute(ctx, h.app.DB, auth.CurrentUser(ctx), f, withSymbols, h.app.Now())
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, rep)
}
