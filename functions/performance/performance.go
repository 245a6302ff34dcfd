// Package performance is the route group of trading statistics: GET
// /api/performance answers the report of shared/stats over the caller's
// closed positions, narrowed by the journal's shared filter.
package performance

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"tradejournal/shared/app"
	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/httpx"
	"tradejournal/shared/journal"
	"tradejournal/shared/stats"
)

type handler struct {
	app *app.App
	// width is how many connections one report uses; slots bounds the
	// reports computed at once so that together they never hold more
	// connections than the pool has (a report holds one while it waits for
	// the other: without the bound, a burst of reports could each hold one
	// and wait forever).
	width int
	slots chan struct{}
}

// Group returns the performance route group.
func Group(a *app.App) httpx.Group {
	conns := int(a.DB.Config().MaxConns)
	width := max(1, min(stats.MaxWidth, conns))
	h := handler{app: a, width: width, slots: make(chan struct{}, max(1, conns/width))}
	return httpx.Group{
		Name:   "performance",
		Mounts: []string{"/api/performance"},
		Routes: []httpx.Route{{Pattern: "GET /api/performance", Handler: a.Sessions.Require(h.get)}},
	}
}

// get answers the statistics of the caller's closed positions. Query:
// accountId, symbol, tagId, from, to (YYYY-MM-DD, inclusive, on the close
// date in the account's trading-day zone) and status (only closed
// positions count, so any other status gives empty figures).
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
	rep, err := stats.Compute(ctx, h.app.DB, h.width, auth.CurrentUser(ctx), f, h.app.Now())
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, rep)
}
