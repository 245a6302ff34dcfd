// Package calculator is the calculators' route group: the trade-size
// calculator (POST /api/calculator), the forex and CFD position-size
// calculators (POST /api/calculator/forex, /api/calculator/cfd) and the
// options strategy builder (POST /api/calculator/strategy), stateless (no
// database read beyond the session check).
package calculator

import (
	"net/http"

	"tradejournal/shared/analytics"
	"tradejournal/shared/app"
	"tradejournal/shared/auth"
	"tradejournal/shared/httpx"
	"tradejournal/shared/journal"
	"tradejournal/shared/sizing"
)

// Group returns the calculator route group.
func Group(a *app.App) httpx.Group {
	return httpx.Group{
		Name:   "calculator",
		Mounts: []string{"/api/calculator", "/api/calculator/strategy", "/api/calculator/forex", "/api/calculator/cfd"},
		Routes: []httpx.Route{
			{Pattern: "POST /api/calculator", Handler: a.Sessions.Require(handler{a}.calculate)},
			{Pattern: "POST /api/calculator/forex", Handler: a.Sessions.Require(handler{a}.forex)},
			{Pattern: "POST /api/calculator/cfd", Handler: a.Sessions.Require(handler{a}.cfd)},
			{Pattern: "POST /api/calculator/strategy", Handler: a.Sessions.Require(handler{a}.strategy)},
		},
	}
}

type handler struct{ app *app.App }

func (h handler) calculate(w http.ResponseWriter, r *http.Request) {
	// encoding/json, about 5 µs of CPU per body (a hand-written parser took
	// 0.5 µs): the request stays within its budget of 15% over /me, which
	// costs about 85 µs of CPU in all (docs/performance.md).
	var in sizing.Input
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	p, err := sizing.Validate(in)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	// The mode only (a fixed word): none of the prices or amounts leave.
	h.app.Analytics.Capture(auth.CurrentUser(r.Context()).ID, analytics.EventCalculatorUsed, analytics.Props{"mode": in.Mode})
	httpx.JSON(w, http.StatusOK, sizing.Calculate(p))
}

// forex sizes a forex position (shared/sizing.ValidateForex).
func (h handler) forex(w http.ResponseWriter, r *http.Request) {
	var in sizing.ForexInput
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	p, err := sizing.ValidateForex(in)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	h.app.Analytics.Capture(auth.CurrentUser(r.Context()).ID, analytics.EventCalculatorUsed, analytics.Props{"mode": "forex"})
	httpx.JSON(w, http.StatusOK, sizing.CalculateForex(p))
}

// cfd sizes a CFD position (shared/sizing.ValidateCFD).
func (h handler) cfd(w http.ResponseWriter, r *http.Request) {
	var in sizing.CFDInput
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	p, err := sizing.ValidateCFD(in)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	h.app.Analytics.Capture(auth.CurrentUser(r.Context()).ID, analytics.EventCalculatorUsed, analytics.Props{"mode": "cfd"})
	httpx.JSON(w, http.StatusOK, sizing.CalculateCFD(p))
}

// strategy analyses the legs of an options strategy: its name, net debit or
// credit, and its payoff at expiry, or a model's estimate at the first
// expiry for legs that expire on different dates.
func (h handler) strategy(w http.ResponseWriter, r *http.Request) {
	var in journal.StrategyInput
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	legs, m, err := journal.ValidateStrategy(in)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	s, err := journal.AnalyzeStrategy(legs)
	if err != nil {
		httpx.Error(w, r, err) // validated legs are always analysed: a 500 here is a bug
		return
	}
	out, err := journal.StrategyReport(legs, s, m)
	if err != nil {
		httpx.Error(w, r, err) // as above
		return
	}
	httpx.JSON(w, http.StatusOK, out)
}
