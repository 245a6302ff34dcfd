// Package currency is the route group of a user's exchange rates and of what
// they are for: the dashboard total of every account converted into the
// display currency, and the read-only preview of how a rate change moves it.
//
//	GET    /api/exchange-rates              list, keyset-paginated
//	POST   /api/exchange-rates              upsert on (base, quote, date): 201 created, 200 replaced
//	GET    /api/exchange-rates/{rateId}     one rate
//	DELETE /api/exchange-rates/{rateId}     204
//	POST   /api/exchange-rates/preview      before/after totals, writes nothing
//	GET    /api/dashboard/totals            {displayCurrency, total, missingPairs}
package currency

import (
	"net/http"
	"strings"

	"github.com/shopspring/decimal"

	"tradejournal/shared/app"
	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/fx"
	"tradejournal/shared/fx/fxdb"
	"tradejournal/shared/httpx"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
	"tradejournal/shared/journalstore"
	"tradejournal/shared/listquery"
	"tradejournal/shared/money"
)

type handler struct {
	app     *app.App
	journal *journalstore.Store
}

// Group returns the currency route group.
func Group(a *app.App) httpx.Group {
	h := handler{app: a, journal: journalstore.New(a.DB, a.Keyring, a.Now)}
	return httpx.Group{
		Name:   "currency",
		Mounts: []string{"/api/exchange-rates", "/api/exchange-rates/", "/api/dashboard/totals"},
		Routes: []httpx.Route{
			{Pattern: "GET /api/exchange-rates", Handler: a.Sessions.Require(h.list)},
			{Pattern: "POST /api/exchange-rates", Handler: a.Sessions.Require(h.upsert)},
			{Pattern: "GET /api/exchange-rates/{rateId}", Handler: a.Sessions.Require(h.get)},
			{Pattern: "DELETE /api/exchange-rates/{rateId}", Handler: a.Sessions.Require(h.delete)},
			{Pattern: "POST /api/exchange-rates/preview", Handler: a.Sessions.Require(h.preview)},
			{Pattern: "GET /api/dashboard/totals", Handler: a.Sessions.Require(h.totals)},
		},
	}
}

// RateInput is an exchange rate as a client writes it (spec part 2,
// ExchangeRate): 1 baseCurrency = rate quoteCurrency from effectiveDate on.
type RateInput struct {
	BaseCurrency  string `json:"baseCurrency"`
	QuoteCurrency string `json:"quoteCurrency"`
	EffectiveDate string `json:"effectiveDate"`
	Rate          string `json:"rate"`
}

// Limits of a rate, from the column numeric(30, 12).
const (
	maxRatePlaces = 12
	maxRateDigits = 18 // before the point
)

// minDate and maxDate bound an effective date: wide enough for any real
// rate, narrow enough that every date is one PostgreSQL and Go agree on.
var (
	minDate = "1900-01-01"
	maxDate = "9999-12-31"
)

// ParseCurrency upper-cases code and checks it is an ISO 4217 currency
// or a coin a crypto trade converts from
// (instrument.RateCode: BNB for a fee, BTC for an ETH/BTC pair). It
// returns what is wrong, or "".
func ParseCurrency(code string) (string, string) {
	c := strings.ToUpper(code)
	switch {
	case code == "":
		return "", "is required"
	case len(code) != 3:
		return "", "must be exactly 3 letters, an ISO 4217 currency code such as USD"
	case !instrument.RateCode(c):
		return "", "must be an ISO 4217 currency code such as USD (or a coin such as BTC or BNB)"
	}
	return c, ""
}

// Validate checks a rate; prefix names its fields in the details ("rate."
// inside the preview). Every problem is reported, not only the first.
func (in RateInput) Validate(prefix string) (fx.Rate, []apperr.FieldError) {
	var problems []apperr.FieldError
	bad := func(field, msg string) {
		problems = append(problems, apperr.FieldError{Field: prefix + field, Message: msg})
	}
	var r fx.Rate
	var msg string
	if r.Base, msg = ParseCurrency(in.BaseCurrency); msg != "" {
		bad("baseCurrency", msg)
	}
	if r.Quote, msg = ParseCurrency(in.QuoteCurrency); msg != "" {
		bad("quoteCurrency", msg)
	} else if r.Quote == r.Base {
		bad("quoteCurrency", "must differ from baseCurrency")
	}
	if d, err := journal.ParseDate(in.EffectiveDate); err != nil {
		bad("effectiveDate", "must be a date YYYY-MM-DD")
	} else if in.EffectiveDate < minDate || in.EffectiveDate > maxDate {
		bad("effectiveDate", "must be between "+minDate+" and "+maxDate)
	} else {
		r.Date = d
	}
	if v, err := money.Parse(in.Rate); in.Rate == "" {
		bad("rate", "is required")
	} else if err != nil {
		bad("rate", "must be a decimal string like 1.0850")
	} else if v.Sign() <= 0 {
		bad("rate", "must be greater than 0")
	} else if v.Exponent() < -maxRatePlaces {
		bad("rate", "must have at most 12 decimal places")
	} else if v.GreaterThanOrEqual(decimal.New(1, maxRateDigits)) {
		bad("rate", "must be less than 1000000000000000000")
	} else {
		r.Value = v
	}
	return r, problems
}

// list answers one page of the caller's rates, grouped by pair (base, then
// quote, alphabetically), newest effective date first within a pair.
func (h handler) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var problems []apperr.FieldError
	var f listFilter
	for _, p := range []struct {
		name string
		dst  *string
	}{{"base", &f.Base}, {"quote", &f.Quote}} {
		if v := q.Get(p.name); v != "" {
			code, msg := ParseCurrency(v)
			if msg != "" {
				problems = append(problems, apperr.FieldError{Field: p.name, Message: msg})
			}
			*p.dst = code
		}
	}
	limit, err := listquery.Limit(q.Get("limit"), defaultPageSize, maxPageSize)
	if e, ok := apperr.As(err); ok {
		problems = append(problems, e.Details...)
	}
	if err := apperr.Fields(problems); err != nil {
		httpx.Error(w, r, err)
		return
	}
	f.After = decodeCursor(q.Get("cursor"))
	page, err := listRates(r.Context(), h.app.DB, auth.CurrentUser(r.Context()).ID, f, limit)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, page)
}

// upsert writes the rate of (base, quote, date): 201 when it is new, 200
// when it replaced the rate of that day.
func (h handler) upsert(w http.ResponseWriter, r *http.Request) {
	var in RateInput
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	rate, problems := in.Validate("")
	if err := apperr.Fields(problems); err != nil {
		httpx.Error(w, r, err)
		return
	}
	userID := auth.CurrentUser(r.Context()).ID
	saved, created, err := upsertRate(r.Context(), h.app.DB, userID, rate, h.app.Now())
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	// Forex, crypto and CFD positions waiting for a rate take it now.
	if _, err := h.journal.ConvertAwaiting(r.Context(), userID); err != nil {
		httpx.Error(w, r, err)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	httpx.JSON(w, status, rateEnvelope{saved})
}

// get answers one of the caller's rates; another user's id, a missing one
// and a malformed one are the same codeless 404.
func (h handler) get(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("rateId")
	if !db.ValidUUID(id) {
		httpx.NotFound(w, r)
		return
	}
	rate, err := rateByID(r.Context(), h.app.DB, auth.CurrentUser(r.Context()).ID, id)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, rateEnvelope{rate})
}

// delete removes one of the caller's rates; another user's id, a missing
// one and a malformed one are the same codeless 404.
func (h handler) delete(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("rateId")
	if !db.ValidUUID(id) {
		httpx.NotFound(w, r)
		return
	}
	if err := deleteRate(r.Context(), h.app.DB, auth.CurrentUser(r.Context()).ID, id); err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.NoContent(w)
}

// Totals is the body of GET /api/dashboard/totals.
type Totals struct {
	DisplayCurrency *string `json:"displayCurrency"`
	// Total is the 4-place sum, or null when the user has no display
	// currency or a pair has no rate.
	Total        *string  `json:"total"`
	MissingPairs []string `json:"missingPairs"`
}

// totals converts every account's balance (archived accounts included) into
// the display currency with the spot rates of today in the user's
// reporting time zone.
func (h handler) totals(w http.ResponseWriter, r *http.Request) {
	u := auth.CurrentUser(r.Context())
	out := Totals{DisplayCurrency: u.DisplayCurrency, MissingPairs: []string{}}
	if u.DisplayCurrency == nil {
		httpx.JSON(w, http.StatusOK, out)
		return
	}
	day := fx.Today(h.app.Now(), u.Timezone)
	snap, err := fxdb.Load(r.Context(), h.app.DB, fxdb.Query{UserID: u.ID, Display: *u.DisplayCurrency, Day: day, Keep: 1})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	total, missing, ok := fx.Total(snap.Balances, snap.Rates, *u.DisplayCurrency, day)
	if ok {
		s := money.RoundN(total, fx.Places)
		out.Total = &s
	} else {
		out.MissingPairs = missing
	}
	httpx.JSON(w, http.StatusOK, out)
}

// PreviewRequest is the body of POST /api/exchange-rates/preview:
// {intent: "upsert", rate} or {intent: "delete", rateId}.
type PreviewRequest struct {
	Intent string     `json:"intent"`
	Rate   *RateInput `json:"rate"`
	RateID *string    `json:"rateId"`
}

// PreviewResponse is spec part 2's ExchangeRatePreview.
type PreviewResponse struct {
	BeforeTotal      *string `json:"beforeTotal"`
	AfterTotal       *string `json:"afterTotal"`
	DisplayCurrency  *string `json:"displayCurrency"`
	ExceedsThreshold bool    `json:"exceedsThreshold"`
}

// preview computes the dashboard total before and after the proposed
// change, in memory, from one read of the caller's balances and rates. It
// writes nothing.
func (h handler) preview(w http.ResponseWriter, r *http.Request) {
	var req PreviewRequest
	if err := httpx.Decode(w, r, &req); err != nil {
		httpx.Error(w, r, err)
		return
	}
	change, err := req.change()
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	u := auth.CurrentUser(r.Context())
	display := ""
	if u.DisplayCurrency != nil {
		display = *u.DisplayCurrency
	}
	day := fx.Today(h.app.Now(), u.Timezone)
	snap, err := fxdb.Load(r.Context(), h.app.DB, fxdb.Query{UserID: u.ID, Display: display, Day: day, Keep: 2, RateID: change.DeleteID})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	if change.DeleteID != "" && !snap.RateFound {
		httpx.NotFound(w, r)
		return
	}
	p := fx.PreviewChange(snap.Balances, snap.Rates, display, day, change)
	httpx.JSON(w, http.StatusOK, PreviewResponse{
		BeforeTotal:      format(p.Before),
		AfterTotal:       format(p.After),
		DisplayCurrency:  u.DisplayCurrency,
		ExceedsThreshold: p.ExceedsThreshold,
	})
}

// change validates the request into the change it proposes. A rateId that
// is not a UUID cannot name a rate: 404, like one that does not exist.
func (req PreviewRequest) change() (fx.Change, error) {
	switch req.Intent {
	case "upsert":
		if req.RateID != nil {
			return fx.Change{}, apperr.Invalid("rateId", "must not be given with intent upsert")
		}
		if req.Rate == nil {
			return fx.Change{}, apperr.Invalid("rate", "is required with intent upsert")
		}
		rate, problems := req.Rate.Validate("rate.")
		if err := apperr.Fields(problems); err != nil {
			return fx.Change{}, err
		}
		return fx.Change{Upsert: &rate}, nil
	case "delete":
		if req.Rate != nil {
			return fx.Change{}, apperr.Invalid("rate", "must not be given with intent delete")
		}
		if req.RateID == nil || *req.RateID == "" {
			return fx.Change{}, apperr.Invalid("rateId", "is required with intent delete")
		}
		if !db.ValidUUID(*req.RateID) {
			return fx.Change{}, apperr.ErrNotFound
		}
		return fx.Change{DeleteID: *req.RateID}, nil
	case "":
		return fx.Change{}, apperr.Invalid("intent", "is required: upsert or delete")
	}
	return fx.Change{}, apperr.Invalid("intent", "must be upsert or delete")
}

func format(d *decimal.Decimal) *string {
	if d == nil {
		return nil
	}
	s := money.RoundN(*d, fx.Places)
	return &s
}

type rateEnvelope struct {
	Rate ExchangeRate `json:"rate"`
}
