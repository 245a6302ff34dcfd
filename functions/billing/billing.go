// Package billing is the billing route group: the credit-pack catalogue,
// the wallet, hosted checkout of packs and of the Pro plan, the billing
// portal, and the payment processor's signed webhook, which is what credits
// a purchase (the checkout call never writes to the wallet).
//
// The processor is Stripe, reached with stripe-go v76 through a client
// owned by this group (never the package-global stripe.Key), whose backend
// URL is PAYMENT_API_BASE_URL when set (stripe-mock in the tests).
package billing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v76"
	"github.com/stripe/stripe-go/v76/client"

	"tradejournal/shared/app"
	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/config"
	"tradejournal/shared/db"
	"tradejournal/shared/httpx"
	"tradejournal/shared/listquery"
	"tradejournal/shared/packs"
	"tradejournal/shared/plans"
	"tradejournal/shared/ratelimit"
	"tradejournal/shared/wallet"
)

// checkoutLimit is the spec's checkout limit, 10 requests per 60 s per user.
// The Pro checkout and the portal share it: all three create a session at
// the processor on the caller's behalf.
var checkoutLimit = ratelimit.Limit{Name: "billing-checkout", N: 10, Per: time.Minute}

// Page sizes of the wallet history.
const (
	defaultPageSize = 25
	maxPageSize     = 100
)

// processorTimeout bounds one call to the processor, retries included.
const processorTimeout = 20 * time.Second

// The web app's page a checkout or the portal returns to.
const returnPath = "/billing"

var errNotAvailable = apperr.New(apperr.BillingNotAvailable, "billing is not available on this instance")

type handler struct {
	app    *app.App
	stripe *client.API // nil unless PAYMENT_SECRET_KEY is set
	secret string      // PAYMENT_WEBHOOK_SECRET, "" when the webhook is off
}

// Group returns the billing route group. Every route but the webhook needs
// a session. The webhook route is always registered, so the route table is
// the same in every configuration, but it answers the plain 404 of an
// unknown path unless PAYMENT_SECRET_KEY and PAYMENT_WEBHOOK_SECRET are both
// set.
func Group(a *app.App) httpx.Group {
	h := &handler{app: a, stripe: NewClient(a.Config.Billing, a.Log)}
	if a.Config.Billing.WebhookEnabled() {
		h.secret = a.Config.Billing.WebhookSecret
	}
	req := a.Sessions.Require
	return httpx.Group{
		Name:   "billing",
		Mounts: []string{"/api/billing/"},
		Routes: []httpx.Route{
			{Pattern: "GET /api/billing/packs", Handler: req(h.listPacks)},
			{Pattern: "GET /api/billing/wallet", Handler: req(h.getWallet)},
			{Pattern: "GET /api/billing/subscription", Handler: req(h.getSubscription)},
			{Pattern: "POST /api/billing/checkout", Handler: req(h.checkout)},
			{Pattern: "POST /api/billing/subscription/checkout", Handler: req(h.subscriptionCheckout)},
			{Pattern: "POST /api/billing/subscription/portal", Handler: req(h.portal)},
			{Pattern: "POST /api/billing/webhook", Handler: h.webhook},
		},
	}
}

// NewClient returns a Stripe client for the billing configuration, or nil
// when billing is not configured. It is the App's own client: its key and
// backends are its own, so nothing touches stripe-go's package globals.
func NewClient(cfg config.Billing, log *slog.Logger) *client.API {
	if !cfg.Configured() {
		return nil
	}
	backend := func(t stripe.SupportedBackend) stripe.Backend {
		bc := &stripe.BackendConfig{
			HTTPClient:        &http.Client{Timeout: processorTimeout},
			LeveledLogger:     stripeLogger{log},
			MaxNetworkRetries: stripe.Int64(2),
		}
		if cfg.APIBaseURL != "" {
			bc.URL = stripe.String(cfg.APIBaseURL)
		}
		return stripe.GetBackendWithConfig(t, bc)
	}
	api := &client.API{}
	api.Init(cfg.SecretKey, &stripe.Backends{
		API:     backend(stripe.APIBackend),
		Connect: backend(stripe.ConnectBackend),
		Uploads: backend(stripe.UploadsBackend),
	})
	return api
}

// stripeLogger hands stripe-go's own messages to the App's logger as
// warnings; the handlers log the failures that reach a client themselves.
type stripeLogger struct{ log *slog.Logger }

func (stripeLogger) Debugf(string, ...any) {}
func (stripeLogger) Infof(string, ...any)  {}
func (l stripeLogger) Warnf(format string, v ...any) {
	l.log.Warn("payment processor client", "detail", fmt.Sprintf(format, v...))
}
func (l stripeLogger) Errorf(format string, v ...any) {
	l.log.Warn("payment processor client", "detail", fmt.Sprintf(format, v...))
}

// processorError logs a failed processor call with what identifies it (the
// processor's error type, code and request id; never a key) and answers 502:
// the client can only try again later.
func processorError(r *http.Request, op string, err error) error {
	attrs := []any{"op", op, "err", err}
	var se *stripe.Error
	if errors.As(err, &se) {
		attrs = []any{"op", op, "status", se.HTTPStatusCode, "type", se.Type, "code", se.Code, "param", se.Param, "request_id", se.RequestID, "message", se.Msg}
	}
	httpx.Logger(r.Context()).Error("payment processor call failed", attrs...)
	return apperr.New(apperr.BadGateway, "the payment processor did not accept the request; try again later")
}

// packList is the answer of GET /api/billing/packs.
type packList struct {
	// PurchasesAvailable is false when billing is not configured: the web
	// then shows no purchase UI.
	PurchasesAvailable bool         `json:"purchasesAvailable"`
	Packs              []packs.Pack `json:"packs"`
}

func (h *handler) listPacks(w http.ResponseWriter, r *http.Request) {
	httpx.JSON(w, http.StatusOK, packList{PurchasesAvailable: h.stripe != nil, Packs: h.app.Packs})
}

// walletView is the answer of GET /api/billing/wallet.
type walletView struct {
	wallet.Balance
	Transactions []wallet.Transaction `json:"transactions"`
	NextCursor   *string              `json:"nextCursor"`
}

func (h *handler) getWallet(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	user := auth.CurrentUser(ctx)
	q := r.URL.Query()
	limit, err := listquery.Limit(q.Get("limit"), defaultPageSize, maxPageSize)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	bal, err := wallet.Get(ctx, h.app.DB, user.ID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	page, err := wallet.History(ctx, h.app.DB, user.ID, q.Get("cursor"), limit)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	if page.Items == nil {
		page.Items = []wallet.Transaction{}
	}
	httpx.JSON(w, http.StatusOK, walletView{Balance: bal, Transactions: page.Items, NextCursor: page.NextCursor})
}

// checkoutRequest is the body of POST /api/billing/checkout.
type checkoutRequest struct {
	PackID *string `json:"packId"`
}

// checkoutAnswer is the answer of every route that hands the browser to a
// page hosted by the processor.
type checkoutAnswer struct {
	URL string `json:"url"`
}

// checkout creates a hosted Checkout Session for one pack, priced from the
// server's catalogue. It writes nothing to the wallet: the webhook credits
// the pack once the processor reports the payment.
func (h *handler) checkout(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	user := auth.CurrentUser(ctx)
	if h.stripe == nil {
		httpx.Error(w, r, errNotAvailable)
		return
	}
	if err := ratelimit.Check(ctx, h.app.Limiter, checkoutLimit, user.ID); err != nil {
		httpx.Error(w, r, err)
		return
	}
	var body checkoutRequest
	if err := httpx.Decode(w, r, &body); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if body.PackID == nil || *body.PackID == "" {
		httpx.Error(w, r, apperr.Invalid("packId", "is required"))
		return
	}
	pack, ok := packs.Find(h.app.Packs, *body.PackID)
	if !ok {
		httpx.Error(w, r, apperr.New(apperr.UnknownPack, "there is no credit pack with that id"))
		return
	}
	customer, err := h.customer(r, user)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	base := returnBase(h.app.Config, r)
	meta := map[string]string{metaKind: kindPack, metaUserID: user.ID, metaPackID: pack.ID}
	params := &stripe.CheckoutSessionParams{
		Mode:              stripe.String(string(stripe.CheckoutSessionModePayment)),
		Customer:          stripe.String(customer),
		ClientReferenceID: stripe.String(user.ID),
		SuccessURL:        stripe.String(base + returnPath + "?checkout=success&session_id={CHECKOUT_SESSION_ID}"),
		CancelURL:         stripe.String(base + returnPath + "?checkout=cancel"),
		LineItems: []*stripe.CheckoutSessionLineItemParams{{
			Quantity: stripe.Int64(1),
			PriceData: &stripe.CheckoutSessionLineItemPriceDataParams{
				Currency:   stripe.String(strings.ToLower(pack.Currency)),
				UnitAmount: stripe.Int64(pack.PriceMinor),
				ProductData: &stripe.CheckoutSessionLineItemPriceDataProductDataParams{
					Name:        stripe.String(pack.Label),
					Description: stripe.String(fmt.Sprintf("%d credits", pack.Credits)),
				},
			},
		}},
		Metadata:          meta,
		PaymentIntentData: &stripe.CheckoutSessionPaymentIntentDataParams{Metadata: meta},
	}
	params.Context = ctx
	s, err := h.stripe.CheckoutSessions.New(params)
	if err != nil {
		httpx.Error(w, r, processorError(r, "create pack checkout session", err))
		return
	}
	httpx.JSON(w, http.StatusOK, checkoutAnswer{URL: s.URL})
}

// subscriptionCheckout creates a hosted Checkout Session for the Pro plan at
// the configured price (PAYMENT_PRO_PRICE_ID). Subscriptions bought earlier
// keep their own price.
func (h *handler) subscriptionCheckout(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	user := auth.CurrentUser(ctx)
	if h.stripe == nil || !h.app.Config.Billing.ProPlanEnabled() {
		httpx.Error(w, r, apperr.New(apperr.BillingNotAvailable, "the Pro plan is not available on this instance"))
		return
	}
	if err := ratelimit.Check(ctx, h.app.Limiter, checkoutLimit, user.ID); err != nil {
		httpx.Error(w, r, err)
		return
	}
	sub, err := CurrentSubscription(ctx, h.app.DB, user.ID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	if sub != nil && sub.Pro(h.app.Now()) {
		httpx.Error(w, r, apperr.New(apperr.Conflict, "you already have Pro; manage it in the billing portal"))
		return
	}
	customer, err := h.customer(r, user)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	base := returnBase(h.app.Config, r)
	meta := map[string]string{metaKind: kindPro, metaUserID: user.ID}
	params := &stripe.CheckoutSessionParams{
		Mode:              stripe.String(string(stripe.CheckoutSessionModeSubscription)),
		Customer:          stripe.String(customer),
		ClientReferenceID: stripe.String(user.ID),
		SuccessURL:        stripe.String(base + returnPath + "?subscription=success&session_id={CHECKOUT_SESSION_ID}"),
		CancelURL:         stripe.String(base + returnPath + "?subscription=cancel"),
		LineItems: []*stripe.CheckoutSessionLineItemParams{{
			Price:    stripe.String(h.app.Config.Billing.ProPriceID),
			Quantity: stripe.Int64(1),
		}},
		Metadata:         meta,
		SubscriptionData: &stripe.CheckoutSessionSubscriptionDataParams{Metadata: meta},
	}
	params.Context = ctx
	s, err := h.stripe.CheckoutSessions.New(params)
	if err != nil {
		httpx.Error(w, r, processorError(r, "create subscription checkout session", err))
		return
	}
	httpx.JSON(w, http.StatusOK, checkoutAnswer{URL: s.URL})
}

// portal opens a billing portal session, where the user manages the Pro
// subscription, payment methods and receipts.
func (h *handler) portal(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	user := auth.CurrentUser(ctx)
	if h.stripe == nil {
		httpx.Error(w, r, errNotAvailable)
		return
	}
	if err := ratelimit.Check(ctx, h.app.Limiter, checkoutLimit, user.ID); err != nil {
		httpx.Error(w, r, err)
		return
	}
	customer, err := h.customer(r, user)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	params := &stripe.BillingPortalSessionParams{
		Customer:  stripe.String(customer),
		ReturnURL: stripe.String(returnBase(h.app.Config, r) + returnPath),
	}
	params.Context = ctx
	s, err := h.stripe.BillingPortalSessions.New(params)
	if err != nil {
		httpx.Error(w, r, processorError(r, "create billing portal session", err))
		return
	}
	httpx.JSON(w, http.StatusOK, checkoutAnswer{URL: s.URL})
}

// customer returns the processor's customer of the user, creating it on the
// first checkout. The creation carries an idempotency key derived from the
// user, so two first checkouts at once get the same customer from the
// processor, and one row wins here.
func (h *handler) customer(r *http.Request, user auth.User) (string, error) {
	ctx := r.Context()
	var id string
	err := h.app.DB.QueryRow(ctx, `SELECT customer_id FROM billing_customers WHERE user_id = $1`, user.ID).Scan(&id)
	if err == nil {
		return id, nil
	}
	if err = db.Classify(err); err != apperr.ErrNotFound {
		return "", err
	}
	params := &stripe.CustomerParams{
		Email:    stripe.String(user.Email),
		Metadata: map[string]string{metaUserID: user.ID},
	}
	params.Context = ctx
	params.IdempotencyKey = stripe.String("tj-customer-" + user.ID)
	c, err := h.stripe.Customers.New(params)
	if err != nil {
		return "", processorError(r, "create customer", err)
	}
	// The first link wins; a concurrent first checkout of the same user got
	// the same customer from the processor anyway (same idempotency key).
	const link = `INSERT INTO billing_customers (user_id, customer_id, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`
	if _, err := h.app.DB.Exec(ctx, link, user.ID, c.ID, h.app.Now()); err != nil {
		return "", db.Classify(err)
	}
	err = h.app.DB.QueryRow(ctx, `SELECT customer_id FROM billing_customers WHERE user_id = $1`, user.ID).Scan(&id)
	return id, db.Classify(err)
}

// returnBase is the web origin a checkout returns to: WEB_BASE_URL when set,
// else the request's Origin (the web app that called), else the scheme and
// host the request came to.
func returnBase(cfg config.Config, r *http.Request) string {
	if cfg.Email.WebBaseURL != "" {
		return cfg.Email.WebBaseURL
	}
	if o := r.Header.Get("Origin"); validOrigin(o) {
		return strings.TrimSuffix(o, "/")
	}
	scheme := "http"
	if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func validOrigin(o string) bool {
	u, err := url.Parse(o)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.User == nil &&
		(u.Path == "" || u.Path == "/") && u.RawQuery == "" && u.Fragment == ""
}

// Subscription is a user's Pro subscription as the processor last reported it.
type Subscription struct {
	Status            string     `json:"status"`
	PriceID           *string    `json:"priceId"`
	CurrentPeriodEnd  *time.Time `json:"currentPeriodEnd"`
	CancelAtPeriodEnd bool       `json:"cancelAtPeriodEnd"`
}

// Pro reports whether the subscription grants Pro at now: it is active or
// trialing and its paid period has not ended. A past-due subscription does
// not (the processor has already moved its period on, unpaid).
func (s Subscription) Pro(now time.Time) bool {
	return plans.GrantsPro(s.Status, s.CurrentPeriodEnd, now)
}

// CurrentSubscription returns the user's most relevant subscription (one
// that grants Pro first, then the latest period end), or nil if the user
// never subscribed.
func CurrentSubscription(ctx context.Context, q db.Querier, userID string) (*Subscription, error) {
	const sql = `SELECT status, price_id, current_period_end, cancel_at_period_end FROM billing_subscriptions
		WHERE user_id = $1 ` + plans.SubscriptionOrder + ` LIMIT 1`
	var s Subscription
	err := q.QueryRow(ctx, sql, userID).Scan(&s.Status, &s.PriceID, &s.CurrentPeriodEnd, &s.CancelAtPeriodEnd)
	if err = db.Classify(err); err == apperr.ErrNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// subscriptionView is the answer of GET /api/billing/subscription.
type subscriptionView struct {
	// ProPlanAvailable is whether the Pro plan is sold here.
	ProPlanAvailable bool          `json:"proPlanAvailable"`
	Pro              bool          `json:"pro"`
	Subscription     *Subscription `json:"subscription"`
}

func (h *handler) getSubscription(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	sub, err := CurrentSubscription(ctx, h.app.DB, auth.CurrentUser(ctx).ID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	v := subscriptionView{ProPlanAvailable: h.app.Config.Billing.ProPlanEnabled(), Subscription: sub}
	v.Pro = sub != nil && sub.Pro(h.app.Now())
	httpx.JSON(w, http.StatusOK, v)
}
