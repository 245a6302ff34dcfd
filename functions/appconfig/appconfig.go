// Package appconfig is the route group that tells the web which optional
// features this instance has: GET /api/config. It reports switches only,
// derived from the configuration; no secret, key or address ever appears.
// It is authenticated, as the spec says; the two switches a signed-out
// screen needs (is sign-up open, is email on for a password reset) are
// public at GET /api/config/public, so those screens make no request that
// answers 401 before there is a session.
package appconfig

import (
	"net/http"

	"tradejournal/shared/app"
	"tradejournal/shared/httpx"
	"tradejournal/shared/packs"
)

// PublicFeatures is the body of GET /api/config/public: what a signed-out
// screen needs, and nothing else.
type PublicFeatures struct {
	RegistrationOpen bool `json:"registrationOpen"`
	Email            bool `json:"email"`
}

// Features is the body of GET /api/config.
type Features struct {
	// QuoteLookup: STOCK_QUOTE_API_KEY is set, so GET
	// /api/symbols/{symbol}/quote answers (otherwise it is a 404).
	QuoteLookup bool `json:"quoteLookup"`
	// Billing: credit packs can be bought (PAYMENT_SECRET_KEY is set).
	Billing bool `json:"billing"`
	// ProPlan: the monthly Pro plan can be bought.
	ProPlan bool `json:"proPlan"`
	// Email: password reset and verification mails are sent.
	Email bool `json:"email"`
	// ImageStorage: new images go to object storage (else inline); true
	// exactly when the api built its bucket client.
	ImageStorage bool `json:"imageStorage"`
	// Assistant: the trade-review assistant is on (ASSISTANT_API_KEY and
	// ASSISTANT_MODEL are set); off, its routes answer 404.
	Assistant bool `json:"assistant"`
	// RegistrationOpen: DISABLE_REGISTRATION is not true.
	RegistrationOpen bool `json:"registrationOpen"`
	// CreditPacks is the catalogue, present only when Billing is true.
	CreditPacks []packs.Pack `json:"creditPacks,omitempty"`
}

// Group returns the configuration route group.
func Group(a *app.App) httpx.Group {
	features := Describe(a)
	return httpx.Group{
		Name:   "appconfig",
		Mounts: []string{"/api/config", "/api/config/"},
		Routes: []httpx.Route{
			{Pattern: "GET /api/config", Handler: a.Sessions.Require(func(w http.ResponseWriter, _ *http.Request) {
				httpx.JSON(w, http.StatusOK, features)
			})},
			{Pattern: "GET /api/config/public", Handler: func(w http.ResponseWriter, _ *http.Request) {
				httpx.JSON(w, http.StatusOK, PublicFeatures{RegistrationOpen: features.RegistrationOpen, Email: features.Email})
			}},
		},
	}
}

// Describe derives the feature switches from a's configuration, read once
// at start like the configuration itself.
func Describe(a *app.App) Features {
	c := a.Config
	f := Features{
		QuoteLookup:      c.Market.QuoteAPIKey != "",
		Billing:          c.Billing.Configured(),
		ProPlan:          c.Billing.ProPlanEnabled(),
		Email:            c.Email.Enabled(),
		ImageStorage:     a.Objects != nil,
		Assistant:        c.Assistant.Enabled(),
		RegistrationOpen: !c.Accounts.DisableRegistration,
	}
	if f.Billing {
		f.CreditPacks = a.Packs
	}
	return f
}
