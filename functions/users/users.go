// Package users is the route group for the signed-in user's own settings
// and credentials: time zone, display currency, theme, password, email
// address and signed-in devices; and their dashboard's layout and saved
// views, the onboarding checklist and the coach marks they have seen
// (shared/personal).
package users

import (
	"net/http"
	"strings"

	"tradejournal/shared/app"
	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/httpx"
	"tradejournal/shared/money"
)

type handler struct{ app *app.App }

// Group returns the users route group.
func Group(a *app.App) httpx.Group {
	h := handler{app: a}
	return httpx.Group{
		Name:   "users",
		Mounts: []string{"/api/users/"},
		Routes: []httpx.Route{
			{Pattern: "PUT /api/users/me/timezone", Handler: a.Sessions.Require(h.setTimezone)},
			{Pattern: "PUT /api/users/me/display-currency", Handler: a.Sessions.Require(h.setDisplayCurrency)},
			{Pattern: "PUT /api/users/me/theme", Handler: a.Sessions.Require(h.setTheme)},
			{Pattern: "PUT /api/users/me/password", Handler: a.Sessions.Require(h.changePassword)},
			{Pattern: "PUT /api/users/me/email", Handler: a.Sessions.Require(h.changeEmail)},
			{Pattern: "POST /api/users/email-change/confirm", Handler: h.confirmEmailChange},
			{Pattern: "GET /api/users/me/sessions", Handler: a.Sessions.Require(h.listSessions)},
			{Pattern: "DELETE /api/users/me/sessions", Handler: a.Sessions.Require(h.revokeOtherSessions)},
			{Pattern: "DELETE /api/users/me/sessions/{sessionId}", Handler: a.Sessions.Require(h.revokeSession)},
			{Pattern: "DELETE /api/users/me/failed-sign-ins", Handler: a.Sessions.Require(h.dismissFailedSignIns)},
			{Pattern: "DELETE /api/users/me", Handler: a.Sessions.Require(h.deleteMe)},
			{Pattern: "GET /api/users/me/dashboard-layout", Handler: a.Sessions.Require(h.getLayout)},
			{Pattern: "PUT /api/users/me/dashboard-layout", Handler: a.Sessions.Require(h.putLayout)},
			{Pattern: "DELETE /api/users/me/dashboard-layout", Handler: a.Sessions.Require(h.resetLayout)},
			{Pattern: "GET /api/users/me/saved-views", Handler: a.Sessions.Require(h.listViews)},
			{Pattern: "POST /api/users/me/saved-views", Handler: a.Sessions.Require(h.createView)},
			{Pattern: "PATCH /api/users/me/saved-views/{viewId}", Handler: a.Sessions.Require(h.updateView)},
			{Pattern: "DELETE /api/users/me/saved-views/{viewId}", Handler: a.Sessions.Require(h.deleteView)},
			{Pattern: "GET /api/users/me/onboarding", Handler: a.Sessions.Require(h.getOnboarding)},
			{Pattern: "POST /api/users/me/onboarding/dismiss", Handler: a.Sessions.Require(h.dismissOnboarding)},
			{Pattern: "PUT /api/users/me/coach-marks/{mark}", Handler: a.Sessions.Require(h.seeCoachMark)},
			{Pattern: "GET /api/users/me/plan", Handler: a.Sessions.Require(h.getPlan)},
		},
	}
}

type timezoneRequest struct {
	Timezone string `json:"timezone"`
}

// setTimezone changes the reporting time zone (not an account's trading-day zone).
func (h handler) setTimezone(w http.ResponseWriter, r *http.Request) {
	var req timezoneRequest
	if err := httpx.Decode(w, r, &req); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if msg := auth.CheckTimezone(req.Timezone); msg != "" {
		httpx.Error(w, r, apperr.Invalid("timezone", msg))
		return
	}
	u, err := auth.SetTimezone(r.Context(), h.app.DB, auth.CurrentUser(r.Context()).ID, req.Timezone)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, userEnvelope{u})
}

type displayCurrencyRequest struct {
	Currency string `json:"currency"`
}

// setDisplayCurrency changes the currency the dashboard total and the
// performance totals are converted into: an ISO 4217 code, upper-cased.
func (h handler) setDisplayCurrency(w http.ResponseWriter, r *http.Request) {
	var req displayCurrencyRequest
	if err := httpx.Decode(w, r, &req); err != nil {
		httpx.Error(w, r, err)
		return
	}
	code := strings.ToUpper(req.Currency)
	if !money.ValidCurrency(code) {
		httpx.Error(w, r, apperr.Invalid("currency", "must be an ISO 4217 currency code such as USD"))
		return
	}
	u, err := auth.SetDisplayCurrency(r.Context(), h.app.DB, auth.CurrentUser(r.Context()).ID, code)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, userEnvelope{u})
}

type themeRequest struct {
	Theme string `json:"theme"`
}

// setTheme stores the colour theme and sends it as the cookie the next
// first paint reads (auth.SetThemeCookie).
func (h handler) setTheme(w http.ResponseWriter, r *http.Request) {
	var req themeRequest
	if err := httpx.Decode(w, r, &req); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if !auth.ValidTheme(req.Theme) {
		httpx.Error(w, r, apperr.Invalid("theme", "must be light, dark or system"))
		return
	}
	u, err := auth.SetTheme(r.Context(), h.app.DB, auth.CurrentUser(r.Context()).ID, req.Theme)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	auth.SetThemeCookie(w, u.Theme)
	httpx.JSON(w, http.StatusOK, userEnvelope{u})
}

type userEnvelope struct {
	User auth.User `json:"user"`
}
