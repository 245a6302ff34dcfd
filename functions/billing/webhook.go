package billing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stripe/stripe-go/v76"
	"github.com/stripe/stripe-go/v76/webhook"

	"tradejournal/shared/analytics"
	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
	"tradejournal/shared/httpx"
	"tradejournal/shared/packs"
	"tradejournal/shared/wallet"
)

// Metadata this service writes on the processor's objects at checkout, and
// reads back from the webhook's events. The processor signs the events, and
// only the server (with the secret key) can write metadata, so a client
// cannot forge them; the credits granted still come from the catalogue.
const (
	metaKind   = "kind"
	metaUserID = "userId"
	metaPackID = "packId"
	kindPack   = "credit_pack"
	kindPro    = "pro"
)

// maxWebhookBody bounds an event body. The processor's events are a few
// kilobytes; its largest (an invoice with many lines) stay far below this.
const maxWebhookBody = 1 << 20

// webhookOptions are how events are verified: the signature over the raw
// body with PAYMENT_WEBHOOK_SECRET, and the signature's timestamp within the
// default tolerance of 5 minutes (webhook.DefaultTolerance), every time.
//
// IgnoreAPIVersionMismatch is true, deliberately. stripe-go v76 pins API
// version 2023-10-16, and webhook.ConstructEvent refuses every event rendered
// at any other version. An event's version is not ours to choose: it is the
// webhook endpoint's, or the account's default, set in the processor's
// dashboard, and it moves whenever the account is upgraded. With the check
// on, one upgrade would turn every delivery into a 400; the processor would
// retry for three days and give up, and paid packs would never be credited.
// The check exists to protect stripe-go's typed objects from fields that
// changed shape, and this handler does not use them: it reads the few fields
// it needs into its own types below, which accept both shapes of the fields
// that moved (a subscription's current_period_end now lives on its items; an
// invoice's subscription now lives under parent.subscription_details).
// Authenticity does not depend on the version: the signature still decides.
var webhookOptions = webhook.ConstructEventOptions{IgnoreAPIVersionMismatch: true}

type webhookAnswer struct {
	Received bool `json:"received"`
}

// webhook receives the processor's events. Without both PAYMENT_SECRET_KEY
// and PAYMENT_WEBHOOK_SECRET it is the plain 404 of an unknown path. A
// missing or bad signature or a stale timestamp is a 400 and nothing is
// written. Each handled event is recorded by id in the transaction of its
// effect, so a replay or a concurrent duplicate changes nothing and answers
// 200. Event types it does not handle answer 200 and do nothing.
func (h *handler) webhook(w http.ResponseWriter, r *http.Request) {
	if h.secret == "" {
		httpx.NotFound(w, r)
		return
	}
	ctx := r.Context()
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxWebhookBody))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			httpx.Error(w, r, apperr.New(apperr.PayloadTooLarge, "request body is larger than %d bytes", tooLarge.Limit))
			return
		}
		httpx.Error(w, r, apperr.New(apperr.InvalidJSON, "the request body could not be read"))
		return
	}
	// The Lambda adapter splits most request headers on commas, and this
	// one is "t=...,v1=...": join its values back into the header as sent.
	signature := strings.Join(r.Header.Values("Stripe-Signature"), ",")
	ev, err := webhook.ConstructEventWithOptions(body, signature, h.secret, webhookOptions)
	if err != nil {
		httpx.Logger(ctx).Warn("webhook event refused", "reason", err.Error())
		switch {
		case errors.Is(err, webhook.ErrNotSigned), errors.Is(err, webhook.ErrInvalidHeader),
			errors.Is(err, webhook.ErrNoValidSignature), errors.Is(err, webhook.ErrTooOld):
			httpx.Error(w, r, apperr.Invalid("Stripe-Signature", "is missing, stale, or does not match the body"))
		default:
			httpx.Error(w, r, apperr.New(apperr.InvalidJSON, "the event body is not a valid event"))
		}
		return
	}
	if err := h.process(ctx, ev); err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, webhookAnswer{Received: true})
}

// effect is what one event does, run in the transaction that records it.
// afterCommit, when not nil, runs once that transaction has committed (the
// analytics event of a purchase, which must not report a rolled-back one).
type effect func(ctx context.Context, tx pgx.Tx) (afterCommit func(), err error)

// process applies a verified event exactly once.
//
// The event id is inserted first, in the same transaction as the effect. A
// replay finds the committed id and stops. A concurrent duplicate blocks on
// the first delivery's uncommitted insert until it commits (then stops) or
// rolls back (then applies the effect itself), so 50 deliveries at once
// still apply it once, and all of them answer 200.
func (h *handler) process(ctx context.Context, ev stripe.Event) error {
	apply, err := h.effectOf(ctx, ev)
	if err != nil || apply == nil {
		return err
	}
	if ev.ID == "" {
		return apperr.New(apperr.InvalidJSON, "the event has no id")
	}
	var afterCommit func()
	err = db.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		const record = `INSERT INTO billing_webhook_events (event_id, type, event_created, processed_at)
			VALUES ($1, $2, $3, $4) ON CONFLICT (event_id) DO NOTHING`
		tag, err := tx.Exec(ctx, record, ev.ID, string(ev.Type), eventTime(ev), h.app.Now())
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			httpx.Logger(ctx).Info("webhook event already processed", "event_id", ev.ID, "type", ev.Type)
			return nil
		}
		afterCommit, err = apply(ctx, tx)
		return err
	})
	if err == nil && afterCommit != nil {
		afterCommit()
	}
	return db.Classify(err)
}

// effectOf decodes an event's object and returns its effect, or nil for an
// event type this service does not act on.
func (h *handler) effectOf(ctx context.Context, ev stripe.Event) (effect, error) {
	switch ev.Type {
	case stripe.EventTypeCheckoutSessionCompleted, stripe.EventTypeCheckoutSessionAsyncPaymentSucceeded:
		var s checkoutSession
		if err := decodeObject(ev, &s); err != nil {
			return nil, err
		}
		return func(ctx context.Context, tx pgx.Tx) (func(), error) { return h.checkoutCompleted(ctx, tx, ev, s) }, nil
	case stripe.EventTypeCustomerSubscriptionCreated, stripe.EventTypeCustomerSubscriptionUpdated, stripe.EventTypeCustomerSubscriptionDeleted:
		var s subscriptionObject
		if err := decodeObject(ev, &s); err != nil {
			return nil, err
		}
		return func(ctx context.Context, tx pgx.Tx) (func(), error) {
			return nil, h.subscriptionChanged(ctx, tx, ev, s)
		}, nil
	case stripe.EventTypeInvoicePaid:
		var inv invoiceObject
		if err := decodeObject(ev, &inv); err != nil {
			return nil, err
		}
		return func(ctx context.Context, tx pgx.Tx) (func(), error) { return nil, h.invoicePaid(ctx, tx, ev, inv) }, nil
	}
	httpx.Logger(ctx).Debug("webhook event type not handled", "event_id", ev.ID, "type", ev.Type)
	return nil, nil
}

func decodeObject(ev stripe.Event, v any) error {
	if ev.Data == nil || len(ev.Data.Raw) == 0 {
		return apperr.New(apperr.InvalidJSON, "the event has no data object")
	}
	if err := json.Unmarshal(ev.Data.Raw, v); err != nil {
		return apperr.New(apperr.InvalidJSON, "the event's data object is not of its type")
	}
	return nil
}

func eventTime(ev stripe.Event) time.Time { return time.Unix(ev.Created, 0).UTC() }

// checkoutCompleted credits a paid pack checkout with the pack's grant from
// the server's catalogue (never the event's amounts), once per checkout
// session: completed (paid at once) and async_payment_succeeded (paid later,
// by a delayed method) both land here, and billing_purchases keys on the
// session. A completed subscription checkout only links its customer.
func (h *handler) checkoutCompleted(ctx context.Context, tx pgx.Tx, ev stripe.Event, s checkoutSession) (afterCommit func(), err error) {
	log := httpx.Logger(ctx).With("event_id", ev.ID, "checkout_session", s.ID)
	userID := s.Metadata[metaUserID]
	if userID == "" {
		userID = s.ClientReferenceID
	}
	if s.ClientReferenceID != "" && s.ClientReferenceID != userID || !db.ValidUUID(userID) {
		log.Info("checkout session without a user of this service; ignored")
		return nil, nil
	}
	if exists, err := userExists(ctx, tx, userID); err != nil || !exists {
		if err == nil {
			log.Warn("checkout session of a user who no longer exists; ignored")
		}
		return nil, err
	}
	if s.Customer != "" {
		if err := linkCustomer(ctx, tx, userID, string(s.Customer), h.app.Now()); err != nil {
			return nil, err
		}
	}
	if s.Mode != string(stripe.CheckoutSessionModePayment) || s.Metadata[metaKind] != kindPack {
		return nil, nil
	}
	if s.PaymentStatus != string(stripe.CheckoutSessionPaymentStatusPaid) {
		log.Info("checkout completed; payment not yet received", "payment_status", s.PaymentStatus)
		return nil, nil
	}
	if s.ID == "" {
		return nil, apperr.New(apperr.InvalidJSON, "the checkout session has no id")
	}
	packID := s.Metadata[metaPackID]
	pack, ok := packs.Find(h.app.Packs, packID)
	if !ok {
		// A 500: the processor retries for days, so restoring the pack in
		// CREDIT_PACKS credits the purchase on the next delivery.
		return nil, fmt.Errorf("checkout session %s paid for pack %q, which CREDIT_PACKS no longer lists; restore it and the processor's retry credits the purchase", s.ID, packID)
	}
	if s.AmountTotal != nil && (*s.AmountTotal != pack.PriceMinor || !strings.EqualFold(s.Currency, pack.Currency)) {
		log.Info("checkout amount differs from the catalogue price; crediting the catalogue's grant",
			"pack", pack.ID, "amount_total", *s.AmountTotal, "currency", s.Currency)
	}
	now := h.app.Now()
	const purchase = `INSERT INTO billing_purchases (checkout_session_id, user_id, pack_id, credits, amount_minor, currency, event_id, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (checkout_session_id) DO NOTHING`
	tag, err := tx.Exec(ctx, purchase, s.ID, userID, pack.ID, pack.Credits, s.AmountTotal, db.NullIfEmpty(strings.ToUpper(s.Currency)), ev.ID, now)
	if err != nil {
		return nil, err
	}
	if tag.RowsAffected() == 0 {
		log.Info("checkout session already credited")
		return nil, nil
	}
	balance, err := wallet.CreditPurchase(ctx, tx, userID, pack.Credits, pack.ID, s.ID, now)
	if err != nil {
		return nil, err
	}
	log.Info("credit pack credited", "pack", pack.ID, "credits", pack.Credits, "balance", balance)
	return func() {
		h.app.Analytics.Capture(userID, analytics.EventPackPurchased, analytics.Props{"pack": pack.ID})
	}, nil
}

// subscriptionChanged keeps the user's Pro subscription as the event reports
// it. An event older than the last one applied is skipped (the processor
// does not promise order), and a canceled subscription stays canceled.
func (h *handler) subscriptionChanged(ctx context.Context, tx pgx.Tx, ev stripe.Event, s subscriptionObject) error {
	log := httpx.Logger(ctx).With("event_id", ev.ID, "subscription", s.ID)
	userID, err := resolveUser(ctx, tx, string(s.Customer), s.Metadata[metaUserID], h.app.Now())
	if err != nil || userID == "" {
		if err == nil {
			log.Warn("subscription of a customer this service does not know; ignored")
		}
		return err
	}
	status := s.Status
	if status == "" && ev.Type == stripe.EventTypeCustomerSubscriptionDeleted {
		status = string(stripe.SubscriptionStatusCanceled)
	}
	if s.ID == "" || status == "" {
		return apperr.New(apperr.InvalidJSON, "the subscription has no id or status")
	}
	const upsert = `INSERT INTO billing_subscriptions AS s (subscription_id, user_id, customer_id, status, price_id,
			current_period_end, cancel_at_period_end, last_event_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (subscription_id) DO UPDATE SET customer_id = EXCLUDED.customer_id, status = EXCLUDED.status,
			price_id = EXCLUDED.price_id, current_period_end = EXCLUDED.current_period_end,
			cancel_at_period_end = EXCLUDED.cancel_at_period_end, last_event_at = EXCLUDED.last_event_at,
			updated_at = EXCLUDED.updated_at
		WHERE s.last_event_at <= EXCLUDED.last_event_at AND s.status NOT IN ('canceled', 'incomplete_expired')`
	tag, err := tx.Exec(ctx, upsert, s.ID, userID, db.NullIfEmpty(string(s.Customer)), status, db.NullIfEmpty(s.priceID()),
		s.periodEnd(), s.CancelAtPeriodEnd, eventTime(ev), h.app.Now())
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		log.Info("subscription event older than the state kept; skipped", "type", ev.Type)
	}
	return nil
}

// invoicePaid extends a subscription's paid period to the invoice's period
// end, and makes a subscription that was waiting for this payment
// (incomplete, past due, unpaid) active. It never moves a period end back,
// and never revives a canceled subscription.
func (h *handler) invoicePaid(ctx context.Context, tx pgx.Tx, ev stripe.Event, inv invoiceObject) error {
	log := httpx.Logger(ctx).With("event_id", ev.ID, "invoice", inv.ID)
	subID := inv.subscriptionID()
	if subID == "" {
		return nil // not a subscription's invoice
	}
	userID, err := resolveUser(ctx, tx, string(inv.Customer), inv.metaUserID(), h.app.Now())
	if err != nil || userID == "" {
		if err == nil {
			log.Warn("invoice of a customer this service does not know; ignored")
		}
		return err
	}
	const upsert = `INSERT INTO billing_subscriptions AS s (subscription_id, user_id, customer_id, status, price_id,
			current_period_end, cancel_at_period_end, last_event_at, updated_at)
		VALUES ($1, $2, $3, 'active', $4, $5, false, $6, $7)
		ON CONFLICT (subscription_id) DO UPDATE SET
			current_period_end = GREATEST(s.current_period_end, EXCLUDED.current_period_end),
			status = CASE WHEN s.status IN ('incomplete', 'past_due', 'unpaid') THEN 'active' ELSE s.status END,
			last_event_at = GREATEST(s.last_event_at, EXCLUDED.last_event_at),
			updated_at = EXCLUDED.updated_at
		WHERE s.status NOT IN ('canceled', 'incomplete_expired')`
	if _, err = tx.Exec(ctx, upsert, subID, userID, db.NullIfEmpty(string(inv.Customer)), db.NullIfEmpty(inv.priceID()),
		inv.periodEnd(), eventTime(ev), h.app.Now()); err != nil {
		return err
	}
	// The payment record the admin usage figures sum as revenue.
	const payment = `INSERT INTO billing_invoice_payments (invoice_id, user_id, subscription_id, amount_minor, currency, event_id, paid_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (invoice_id) DO NOTHING`
	_, err = tx.Exec(ctx, payment, inv.ID, userID, subID, max(inv.AmountPaid, 0), strings.ToUpper(inv.Currency), ev.ID, eventTime(ev))
	return err
}

func userExists(ctx context.Context, q db.Querier, userID string) (bool, error) {
	var ok bool
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM users WHERE id = $1)`, userID).Scan(&ok)
	return ok, err
}

// linkCustomer remembers the processor's customer of a user, unless either
// is already linked.
func linkCustomer(ctx context.Context, tx pgx.Tx, userID, customerID string, now time.Time) error {
	_, err := tx.Exec(ctx, `INSERT INTO billing_customers (user_id, customer_id, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
		userID, customerID, now)
	return err
}

// resolveUser finds the user of a processor customer: by the customer link
// made at checkout, else by the user id this service wrote in the object's
// metadata (then linking the two). It returns "" for a stranger.
func resolveUser(ctx context.Context, tx pgx.Tx, customerID, metaUser string, now time.Time) (string, error) {
	if customerID != "" {
		var id string
		err := tx.QueryRow(ctx, `SELECT user_id::text FROM billing_customers WHERE customer_id = $1`, customerID).Scan(&id)
		if err == nil {
			return id, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return "", err
		}
	}
	if !db.ValidUUID(metaUser) {
		return "", nil
	}
	exists, err := userExists(ctx, tx, metaUser)
	if err != nil || !exists {
		return "", err
	}
	if customerID != "" {
		if err := linkCustomer(ctx, tx, metaUser, customerID, now); err != nil {
			return "", err
		}
	}
	return metaUser, nil
}

// ref is an expandable reference in an event object: the id as a string, or
// the expanded object carrying it.
type ref string

func (r *ref) UnmarshalJSON(b []byte) error {
	switch {
	case string(b) == "null":
		*r = ""
		return nil
	case len(b) > 0 && b[0] == '"':
		var s string
		err := json.Unmarshal(b, &s)
		*r = ref(s)
		return err
	}
	var o struct {
		ID string `json:"id"`
	}
	err := json.Unmarshal(b, &o)
	*r = ref(o.ID)
	return err
}

// unixTime turns a Unix time in seconds into a timestamp; 0 is none.
func unixTime(s int64) *time.Time {
	if s <= 0 {
		return nil
	}
	t := time.Unix(s, 0).UTC()
	return &t
}

// checkoutSession is the part of a Checkout Session the webhook reads.
type checkoutSession struct {
	ID                string            `json:"id"`
	Mode              string            `json:"mode"`
	PaymentStatus     string            `json:"payment_status"`
	ClientReferenceID string            `json:"client_reference_id"`
	Metadata          map[string]string `json:"metadata"`
	Customer          ref               `json:"customer"`
	AmountTotal       *int64            `json:"amount_total"`
	Currency          string            `json:"currency"`
}

// subscriptionObject is the part of a Subscription the webhook reads, in
// every API version: current_period_end on the subscription (up to
// 2025-02-24) or on each item (since 2025-03-31).
type subscriptionObject struct {
	ID                string            `json:"id"`
	Customer          ref               `json:"customer"`
	Status            string            `json:"status"`
	CancelAtPeriodEnd bool              `json:"cancel_at_period_end"`
	CurrentPeriodEnd  int64             `json:"current_period_end"`
	Metadata          map[string]string `json:"metadata"`
	Items             struct {
		Data []struct {
			CurrentPeriodEnd int64 `json:"current_period_end"`
			Price            struct {
				ID string `json:"id"`
			} `json:"price"`
		} `json:"data"`
	} `json:"items"`
}

func (s subscriptionObject) periodEnd() *time.Time {
	end := s.CurrentPeriodEnd
	for _, it := range s.Items.Data {
		end = max(end, it.CurrentPeriodEnd)
	}
	return unixTime(end)
}

func (s subscriptionObject) priceID() string {
	if len(s.Items.Data) > 0 {
		return s.Items.Data[0].Price.ID
	}
	return ""
}

// invoiceObject is the part of an Invoice the webhook reads, in every API
// version: the subscription at the top (up to 2025-02-24) or under
// parent.subscription_details (since 2025-03-31); a line's price as
// line.price or line.pricing.price_details.price.
type invoiceObject struct {
	ID                  string `json:"id"`
	AmountPaid          int64  `json:"amount_paid"`
	Currency            string `json:"currency"`
	Customer            ref    `json:"customer"`
	Subscription        ref    `json:"subscription"`
	SubscriptionDetails *struct {
		Metadata map[string]string `json:"metadata"`
	} `json:"subscription_details"`
	Parent *struct {
		SubscriptionDetails *struct {
			Subscription ref               `json:"subscription"`
			Metadata     map[string]string `json:"metadata"`
		} `json:"subscription_details"`
	} `json:"parent"`
	Lines struct {
		Data []struct {
			Period struct {
				End int64 `json:"end"`
			} `json:"period"`
			Price *struct {
				ID string `json:"id"`
			} `json:"price"`
			Pricing *struct {
				PriceDetails *struct {
					Price string `json:"price"`
				} `json:"price_details"`
			} `json:"pricing"`
		} `json:"data"`
	} `json:"lines"`
}

func (inv invoiceObject) subscriptionID() string {
	if inv.Subscription != "" {
		return string(inv.Subscription)
	}
	if inv.Parent != nil && inv.Parent.SubscriptionDetails != nil {
		return string(inv.Parent.SubscriptionDetails.Subscription)
	}
	return ""
}

func (inv invoiceObject) metaUserID() string {
	if inv.Parent != nil && inv.Parent.SubscriptionDetails != nil && inv.Parent.SubscriptionDetails.Metadata[metaUserID] != "" {
		return inv.Parent.SubscriptionDetails.Metadata[metaUserID]
	}
	if inv.SubscriptionDetails != nil {
		return inv.SubscriptionDetails.Metadata[metaUserID]
	}
	return ""
}

// periodEnd is the latest end among the invoice's lines: the end of the
// period the payment covers.
func (inv invoiceObject) periodEnd() *time.Time {
	var end int64
	for _, l := range inv.Lines.Data {
		end = max(end, l.Period.End)
	}
	return unixTime(end)
}

func (inv invoiceObject) priceID() string {
	for _, l := range inv.Lines.Data {
		switch {
		case l.Price != nil && l.Price.ID != "":
			return l.Price.ID
		case l.Pricing != nil && l.Pricing.PriceDetails != nil && l.Pricing.PriceDetails.Price != "":
			return l.Pricing.PriceDetails.Price
		}
	}
	return ""
}
