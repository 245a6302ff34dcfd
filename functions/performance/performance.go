// Package performance is the route group of trading statistics: GET
// /api/performance answers the report of shared/stats over the caller's
// closed positions, narrowed by the journal's shared filter.
package performance

import (
	"net/http"

	"tradejournal/shared/app"
	"tradejournal/shared/auth"
	"tradejournal/shared/httpx"
	"tradejournal/shared/journal"
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
// the dashboard does not show. netOfExpenses=true adds the expense charges
// of the same date range and accounts (stats.NetReport); off, the answer
// is exactly what it was before expenses existed.
func (h handler) get(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var p journal.Problems
	f, err := listquery.ParseFilter(q)
	p.Merge(err)
	withSymbols, netOfExpenses := true, false
	switch q.Get("bySymbol") {
	case "", "true":
	case "false":
		withSymbols = false
	default:
		p.Add("bySymbol", "must be true or false")
	}
	switch q.Get("netOfExpenses") {
	case "", "false":
	case "true":
		netOfExpenses = true
	default:
		p.Add("netOfExpenses", "must be true or false")
	}
	if err := p.Err(); err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	if netOfExpenses {
		rep, err := stats.ComputeNetOfExpenses(ctx, h.app.DB, auth.CurrentUser(ctx), f, withSymbols, h.app.Now())
		if err != nil {
			httpx.Error(w, r, err)
			return
		}
		httpx.JSON(w, http.StatusOK, rep)
		return
	}
	rep, err := stats.Compute(ctx, h.app.DB, auth.CurrentUser(ctx), f, withSymbols, h.app.Now())
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, rep)
}
