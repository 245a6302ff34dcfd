// Package options is the route group of the standalone option tools: an
// OCC symbol read into its parts (GET /api/options/occ/parse) or written
// from them (GET /api/options/occ/encode), and one option's
// Black–Scholes–Merton value and Greeks (POST /api/options/black-scholes).
// Stateless: no database read beyond the session check.
package options

import (
	"net/http"

	"tradejournal/shared/app"
	"tradejournal/shared/apperr"
	"tradejournal/shared/httpx"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
)

// Group returns the options route group.
func Group(a *app.App) httpx.Group {
	h := handler{app: a}
	return httpx.Group{
		Name:   "options",
		Mounts: []string{"/api/options/"},
		Routes: []httpx.Route{
			{Pattern: "GET /api/options/occ/parse", Handler: a.Sessions.Require(h.parse)},
			{Pattern: "GET /api/options/occ/encode", Handler: a.Sessions.Require(h.encode)},
			{Pattern: "POST /api/options/black-scholes", Handler: a.Sessions.Require(h.blackScholes)},
		},
	}
}

type handler struct{ app *app.App }

// parse reads the symbol query parameter as an OCC option symbol.
func (h handler) parse(w http.ResponseWriter, r *http.Request) {
	symbol := r.URL.Query().Get("symbol")
	if symbol == "" {
		httpx.Error(w, r, apperr.Invalid("symbol", "is required"))
		return
	}
	o, err := instrument.ParseOCC(symbol)
	if err != nil {
		httpx.Error(w, r, apperr.Invalid("symbol", instrument.ErrOCC.Error()))
		return
	}
	httpx.JSON(w, http.StatusOK, journal.NewOCCOutput(o))
}

// encode writes the OCC symbol of the option the query gives by its parts.
func (h handler) encode(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	strike := journal.Field{}
	if q.Has("strike") {
		strike = journal.S(q.Get("strike"))
	}
	o, err := journal.EncodeOCC(q.Get("underlying"), q.Get("expiry"), q.Get("right"), strike)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, journal.NewOCCOutput(o))
}

// blackScholes prices one European option and its Greeks.
func (h handler) blackScholes(w http.ResponseWriter, r *http.Request) {
	var in journal.BlackScholesInput
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	out, err := journal.PriceBlackScholes(in, h.app.Now())
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, out)
}
