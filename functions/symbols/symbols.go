// Package symbols is the market-data route group: symbol autocomplete from
// the SEC's public ticker list (no key needed) and the delayed last-price
// lookup (only with the platform-global STOCK_QUOTE_API_KEY). The logic and
// the outbound calls live in shared/market.
package symbols

import (
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"tradejournal/shared/app"
	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/httpx"
	"tradejournal/shared/market"
	"tradejournal/shared/ratelimit"
)

// maxQueryLen is the longest search text, in characters.
const maxQueryLen = 50

// quoteLimit protects the platform-global provider key (whose plan has a
// per-minute quota) from one user: 60 lookups per 60 s per user, cached
// answers included.
var quoteLimit = ratelimit.Limit{Name: "symbol-quote", N: 60, Per: time.Minute}

type handler struct {
	app    *app.App
	index  *market.Index
	quotes *market.Quotes
}

// Group returns the symbols route group with the App's database and market
// configuration. Its index and quote cache live as long as the process.
func Group(a *app.App) httpx.Group {
	return NewGroup(a, market.NewIndex(a.DB, a.Now), market.NewQuotes(a.Config.Market, &http.Client{}, a.Now, a.Log))
}

// NewGroup is Group with a given index and quote client, for tests that
// tune their timings.
func NewGroup(a *app.App, index *market.Index, quotes *market.Quotes) httpx.Group {
	h := handler{app: a, index: index, quotes: quotes}
	return httpx.Group{
		Name:   "symbols",
		Mounts: []string{"/api/symbols/"},
		Routes: []httpx.Route{
			{Pattern: "GET /api/symbols/search", Handler: a.Sessions.Require(h.search)},
			// Registered even without a key, so the route table (and the
			// OpenAPI document held to it) does not depend on configuration;
			// without a key it answers the codeless 404 of an absent route.
			{Pattern: "GET /api/symbols/{symbol}/quote", Handler: a.Sessions.Require(h.quote)},
		},
	}
}

type searchPage struct {
	Items []market.Symbol `json:"items"`
}

func (h handler) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query().Get("q")
	switch {
	case strings.TrimSpace(q) == "":
		httpx.Error(w, r, apperr.Invalid("q", "is required"))
		return
	case !utf8.ValidString(q) || utf8.RuneCountInString(q) > maxQueryLen:
		httpx.Error(w, r, apperr.Invalid("q", "must be at most 50 characters"))
		return
	}
	items, err := h.index.Search(r.Context(), q)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, searchPage{Items: items})
}

func (h handler) quote(w http.ResponseWriter, r *http.Request) {
	if !h.quotes.Enabled() {
		httpx.NotFound(w, r)
		return
	}
	symbol, ok := market.ValidSymbol(r.PathValue("symbol"))
	if !ok {
		httpx.Error(w, r, apperr.Invalid("symbol", "must be 1 to 10 characters of A-Z, 0-9, '.' and '-'"))
		return
	}
	ctx := r.Context()
	if err := ratelimit.Check(ctx, h.app.Limiter, quoteLimit, auth.CurrentUser(ctx).ID); err != nil {
		httpx.Error(w, r, err)
		return
	}
	q, err := h.quotes.Get(ctx, symbol)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, q)
}
