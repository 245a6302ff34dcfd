package billing_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stripe/stripe-go/v76/webhook"

	"tradejournal/functions"
	"tradejournal/functions/billing"
	"tradejournal/shared/apitest"
	"tradejournal/shared/lambdahost"
)

// sign returns the Stripe-Signature header the processor would send,
// made with stripe-go's own test signing helper.
func sign(payload []byte, secret string, at time.Time) string {
	return webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: secret, Timestamp: at}).Header
}

// postEvent delivers payload signed with secret now.
func postEvent(t *testing.T, srv *apitest.Server, secret string, payload []byte) apitest.Response {
	t.Helper()
	return postSigned(t, srv, payload, sign(payload, secret, time.Now()))
}

func postSigned(t *testing.T, srv *apitest.Server, payload []byte, header string) apitest.Response {
	t.Helper()
	c := srv.Client(t)
	req := c.NewRequest("POST", "/api/billing/webhook", string(payload))
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	if header != "" {
		req.Header.Set("Stripe-Signature", header)
	}
	return c.Send(req)
}

// deliver sends a correctly signed event and requires a 200.
func deliver(t *testing.T, srv *apitest.Server, id, typ string, created time.Time, object any) {
	t.Helper()
	if r := postEvent(t, srv, testWebhookSecret, eventJSON(t, id, typ, created, object)); r.Status != 200 || string(r.Body) != "{\"received\":true}\n" {
		t.Fatalf("deliver %s %s: %d %s", typ, id, r.Status, r.Body)
	}
}

// checkoutSession is a completed pack Checkout Session as the processor
// reports it, with the metadata the service wrote at checkout.
func checkoutSession(id, userID, packID, paymentStatus string, amountTotal int64) map[string]any {
	return map[string]any{
		"id": id, "object": "checkout.session", "mode": "payment", "status": "complete",
		"payment_status": paymentStatus, "client_reference_id": userID, "customer": "cus_" + id,
		"amount_total": amountTotal, "currency": "usd",
		"metadata": map[string]any{"kind": "credit_pack", "userId": userID, "packId": packID},
	}
}

// subscription is a Subscription in the current API shape: the period end
// on its item.
func subscription(id, customer, status, userID string, periodEnd time.Time, cancelAtEnd bool) map[string]any {
	meta := map[string]any{}
	if userID != "" {
		meta["userId"] = userID
	}
	return map[string]any{
		"id": id, "object": "subscription", "customer": customer, "status": status,
		"cancel_at_period_end": cancelAtEnd, "metadata": meta,
		"items": map[string]any{"object": "list", "data": []any{map[string]any{
			"id": "si_1", "current_period_end": periodEnd.Unix(), "price": map[string]any{"id": testProPrice},
		}}},
	}
}

func walletOf(t *testing.T, c *apitest.Client) map[string]any {
	t.Helper()
	r := c.Do("GET", "/api/billing/wallet", nil)
	if r.Status != 200 {
		t.Fatalf("wallet: %d %s", r.Status, r.Body)
	}
	return r.JSON
}

func wantCredits(t *testing.T, c *apitest.Client, want float64, entries int) {
	t.Helper()
	w := walletOf(t, c)
	if w["balance"] != want || w["available"] != want || len(w["transactions"].([]any)) != entries {
		t.Fatalf("wallet %v, want balance %.0f with %d entries", w, want, entries)
	}
}

func TestWebhookCreditsPack(t *testing.T) {
	cfg, _ := billingConfig(t)
	srv := apitest.Start(t, cfg, functions.All)
	c, userID := signIn(t, srv)

	payload := eventJSON(t, "evt_paid_1", "checkout.session.completed", time.Now(), checkoutSession("cs_1", userID, "starter", "paid", 500))
	header := sign(payload, testWebhookSecret, time.Now())
	if r := postSigned(t, srv, payload, header); r.Status != 200 {
		t.Fatalf("webhook: %d %s", r.Status, r.Body)
	}
	wantCredits(t, c, 5_000_000, 1)
	tx := walletOf(t, c)["transactions"].([]any)[0].(map[string]any)
	if tx["kind"] != "purchase" || tx["amount"] != 5_000_000.0 || tx["balanceAfter"] != 5_000_000.0 || tx["packId"] != "starter" {
		t.Fatalf("ledger entry %v", tx)
	}

	t.Run("Replay", func(t *testing.T) {
		if r := postSigned(t, srv, payload, header); r.Status != 200 {
			t.Fatalf("replay: %d %s", r.Status, r.Body)
		}
		deliver(t, srv, "evt_paid_1", "checkout.session.completed", time.Now(), checkoutSession("cs_1", userID, "starter", "paid", 500))
		wantCredits(t, c, 5_000_000, 1)
	})
	t.Run("SameSessionAnotherEvent", func(t *testing.T) {
		deliver(t, srv, "evt_async_1", "checkout.session.async_payment_succeeded", time.Now(), checkoutSession("cs_1", userID, "starter", "paid", 500))
		wantCredits(t, c, 5_000_000, 1)
	})
	t.Run("GrantFromCatalogueNotEvent", func(t *testing.T) {
		s := checkoutSession("cs_2", userID, "max", "paid", 1)
		s["metadata"].(map[string]any)["credits"] = "999999999999"
		deliver(t, srv, "evt_paid_2", "checkout.session.completed", time.Now(), s)
		wantCredits(t, c, 5_000_000+53_000_000, 2)
	})
	t.Run("OtherAPIVersion", func(t *testing.T) {
		var ev map[string]any
		_ = json.Unmarshal(eventJSON(t, "evt_paid_3", "checkout.session.completed", time.Now(), checkoutSession("cs_3", userID, "standard", "paid", 1000)), &ev)
		ev["api_version"] = "2025-03-31.basil"
		raw, _ := json.Marshal(ev)
		if r := postEvent(t, srv, testWebhookSecret, raw); r.Status != 200 {
			t.Fatalf("event of another API version: %d %s", r.Status, r.Body)
		}
		wantCredits(t, c, 68_000_000, 3)
	})
	if n := count(t, srv, `SELECT count(*) FROM billing_purchases`); n != 3 {
		t.Fatalf("%d purchases recorded", n)
	}
	if n := count(t, srv, `SELECT count(*) FROM billing_customers WHERE user_id = $1`, userID); n != 1 {
		t.Fatalf("%d customers linked", n)
	}
}

func TestWebhookDelayedPayment(t *testing.T) {
	cfg, _ := billingConfig(t)
	srv := apitest.Start(t, cfg, functions.All)
	c, userID := signIn(t, srv)
	deliver(t, srv, "evt_unpaid", "checkout.session.completed", time.Now(), checkoutSession("cs_late", userID, "starter", "unpaid", 500))
	wantCredits(t, c, 0, 0)
	deliver(t, srv, "evt_failed", "checkout.session.async_payment_failed", time.Now(), checkoutSession("cs_late", userID, "starter", "unpaid", 500))
	wantCredits(t, c, 0, 0)
	deliver(t, srv, "evt_later", "checkout.session.async_payment_succeeded", time.Now(), checkoutSession("cs_late", userID, "starter", "paid", 500))
	wantCredits(t, c, 5_000_000, 1)
}

func TestWebhookRefusals(t *testing.T) {
	cfg, _ := billingConfig(t)
	srv := apitest.Start(t, cfg, functions.All)
	c, userID := signIn(t, srv)
	payload := eventJSON(t, "evt_refused", "checkout.session.completed", time.Now(), checkoutSession("cs_r", userID, "starter", "paid", 500))
	now := time.Now()
	good := sign(payload, testWebhookSecret, now)
	cases := []struct {
		name    string
		payload []byte
		header  string
		code    string
	}{
		{"NoSignature", payload, "", "VALIDATION_ERROR"},
		{"WrongSecret", payload, sign(payload, "whsec_other", now), "VALIDATION_ERROR"},
		{"Stale", payload, sign(payload, testWebhookSecret, now.Add(-6*time.Minute)), "VALIDATION_ERROR"},
		{"TamperedBody", []byte(strings.Replace(string(payload), "starter", "max", 1)), good, "VALIDATION_ERROR"},
		{"GarbageHeader", payload, "t=abc,v1=zz", "VALIDATION_ERROR"},
		{"TimestampOnly", payload, good[:strings.Index(good, ",")], "VALIDATION_ERROR"},
		{"SignedNotJSON", []byte("not json"), sign([]byte("not json"), testWebhookSecret, now), "INVALID_JSON"},
		{"SignedWrongObject", eventJSON(t, "evt_bad_obj", "checkout.session.completed", now, []any{1}), "", "INVALID_JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			header := tc.header
			if tc.name == "SignedWrongObject" {
				header = sign(tc.payload, testWebhookSecret, now)
			}
			r := postSigned(t, srv, tc.payload, header)
			if r.Status != 400 || r.ErrorCode() != tc.code {
				t.Fatalf("%d %s, want 400 %s", r.Status, r.Body, tc.code)
			}
			apitest.CheckErrorShape(t, r)
		})
	}
	if n := count(t, srv, `SELECT count(*) FROM billing_webhook_events`); n != 0 {
		t.Fatalf("%d events recorded by refused deliveries", n)
	}
	wantCredits(t, c, 0, 0)
}

func TestWebhookIgnores(t *testing.T) {
	cfg, _ := billingConfig(t)
	srv := apitest.Start(t, cfg, functions.All)
	c, userID := signIn(t, srv)

	t.Run("UnknownTypes", func(t *testing.T) {
		for i, typ := range []string{"customer.created", "payment_intent.succeeded", "charge.refunded", "invoice.created", "made.up.type"} {
			deliver(t, srv, "evt_unknown_"+string(rune('a'+i)), typ, time.Now(), map[string]any{"id": "obj_1", "metadata": map[string]any{"userId": userID}})
		}
		if n := count(t, srv, `SELECT count(*) FROM billing_webhook_events`); n != 0 {
			t.Fatalf("%d unknown events recorded", n)
		}
	})
	t.Run("StrangerUser", func(t *testing.T) {
		deliver(t, srv, "evt_stranger", "checkout.session.completed", time.Now(), checkoutSession("cs_s", "6f1b8a4e-0000-4000-8000-000000000000", "starter", "paid", 500))
		deliver(t, srv, "evt_not_uuid", "checkout.session.completed", time.Now(), checkoutSession("cs_s2", "'; DROP TABLE wallets; --", "starter", "paid", 500))
	})
	t.Run("MismatchedReference", func(t *testing.T) {
		s := checkoutSession("cs_m", userID, "starter", "paid", 500)
		s["client_reference_id"] = "6f1b8a4e-0000-4000-8000-000000000000"
		deliver(t, srv, "evt_mismatch", "checkout.session.completed", time.Now(), s)
	})
	t.Run("NotOurCheckout", func(t *testing.T) {
		s := checkoutSession("cs_n", userID, "starter", "paid", 500)
		delete(s, "metadata")
		deliver(t, srv, "evt_foreign", "checkout.session.completed", time.Now(), s)
	})
	wantCredits(t, c, 0, 0)

	t.Run("UnknownPackIsRetried", func(t *testing.T) {
		r := postEvent(t, srv, testWebhookSecret, eventJSON(t, "evt_gone", "checkout.session.completed", time.Now(), checkoutSession("cs_g", userID, "discontinued", "paid", 500)))
		if r.Status != 500 {
			t.Fatalf("unknown pack: %d %s, want 500 so the processor retries", r.Status, r.Body)
		}
		if n := count(t, srv, `SELECT count(*) FROM billing_webhook_events WHERE event_id = 'evt_gone'`); n != 0 {
			t.Fatal("a failed event was recorded, so its retry would be skipped")
		}
	})
	wantCredits(t, c, 0, 0)
}

// TestWebhookConcurrentDuplicates delivers the same event 50 times at once:
// every delivery answers 200 and the pack is credited once.
func TestWebhookConcurrentDuplicates(t *testing.T) {
	cfg, _ := billingConfig(t)
	srv := apitest.Start(t, cfg, functions.All)
	c, userID := signIn(t, srv)
	payload := eventJSON(t, "evt_dup", "checkout.session.completed", time.Now(), checkoutSession("cs_dup", userID, "standard", "paid", 1000))
	header := sign(payload, testWebhookSecret, time.Now())

	var wg sync.WaitGroup
	statuses := make(chan int, 50)
	start := make(chan struct{})
	for range 50 {
		wg.Go(func() {
			<-start
			req, _ := http.NewRequest("POST", srv.URL+"/api/billing/webhook", strings.NewReader(string(payload)))
			req.Header.Set("Stripe-Signature", header)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			res.Body.Close()
			statuses <- res.StatusCode
		})
	}
	close(start)
	wg.Wait()
	close(statuses)
	for s := range statuses {
		if s != 200 {
			t.Fatalf("a duplicate delivery answered %d", s)
		}
	}
	wantCredits(t, c, 10_000_000, 1)
	if n := count(t, srv, `SELECT count(*) FROM billing_webhook_events`); n != 1 {
		t.Fatalf("%d events recorded", n)
	}
}

// TestWebhookThroughLambda drives the webhook through the Lambda adapter,
// which splits the comma-separated Stripe-Signature header into several
// values: the handler must join them back.
func TestWebhookThroughLambda(t *testing.T) {
	cfg, _ := billingConfig(t)
	srv := apitest.Start(t, cfg, functions.All)
	c, userID := signIn(t, srv)
	invoke := lambdahost.Handler(srv.App.Serve(billing.Group(srv.App).Handler()))

	lambdaEvent := func(payload []byte, header string) events.APIGatewayV2HTTPRequest {
		return events.APIGatewayV2HTTPRequest{
			Version: "2.0", RouteKey: "$default", RawPath: "/api/billing/webhook",
			Headers: map[string]string{"content-type": "application/json; charset=utf-8", "stripe-signature": header, "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)"},
			Body:    string(payload),
			RequestContext: events.APIGatewayV2HTTPRequestContext{
				DomainName: "api.example.com", Stage: "$default",
				HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: "POST", Path: "/api/billing/webhook", Protocol: "HTTP/1.1", SourceIP: "203.0.113.7"},
			},
		}
	}

	t.Run("AdapterSplitsTheHeader", func(t *testing.T) {
		var values []string
		probe := lambdahost.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			values = r.Header.Values("Stripe-Signature")
			w.WriteHeader(204)
		}))
		if _, err := probe(context.Background(), lambdaEvent([]byte("{}"), "t=1,v1=ab,v1=cd")); err != nil {
			t.Fatal(err)
		}
		if len(values) != 3 {
			t.Fatalf("the adapter passed Stripe-Signature as %q; this test no longer exercises the split", values)
		}
	})

	payload := eventJSON(t, "evt_lambda", "checkout.session.completed", time.Now(), checkoutSession("cs_lambda", userID, "starter", "paid", 500))
	// A rolled secret: the header carries two v1 signatures, as the
	// processor sends while an old secret is still valid.
	header := sign(payload, testWebhookSecret, time.Now())
	header += ",v1=" + strings.Repeat("0", 64)
	res, err := invoke(context.Background(), lambdaEvent(payload, header))
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("through the adapter: %d %s (%v)", res.StatusCode, res.Body, err)
	}
	wantCredits(t, c, 5_000_000, 1)

	res, err = invoke(context.Background(), lambdaEvent(payload, sign(payload, "whsec_wrong", time.Now())))
	if err != nil || res.StatusCode != 400 {
		t.Fatalf("bad signature through the adapter: %d %s (%v)", res.StatusCode, res.Body, err)
	}
	res, err = invoke(context.Background(), lambdaEvent(payload, header))
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("replay through the adapter: %d %s (%v)", res.StatusCode, res.Body, err)
	}
	wantCredits(t, c, 5_000_000, 1)
}

func subscriptionOf(t *testing.T, c *apitest.Client) map[string]any {
	t.Helper()
	r := c.Do("GET", "/api/billing/subscription", nil)
	if r.Status != 200 {
		t.Fatalf("subscription: %d %s", r.Status, r.Body)
	}
	return r.JSON
}

func wantPro(t *testing.T, c *apitest.Client, pro bool, status string, periodEnd time.Time, cancelAtEnd bool) {
	t.Helper()
	v := subscriptionOf(t, c)
	sub, _ := v["subscription"].(map[string]any)
	if v["pro"] != pro || sub == nil || sub["status"] != status || sub["cancelAtPeriodEnd"] != cancelAtEnd {
		t.Fatalf("subscription %v, want pro %v status %s cancelAtPeriodEnd %v", v, pro, status, cancelAtEnd)
	}
	got, err := time.Parse(time.RFC3339, sub["currentPeriodEnd"].(string))
	if err != nil || !got.Equal(periodEnd.Truncate(time.Second)) {
		t.Fatalf("currentPeriodEnd %v, want %v", sub["currentPeriodEnd"], periodEnd.UTC().Truncate(time.Second))
	}
}

func TestSubscriptionEvents(t *testing.T) {
	cfg, _ := billingConfig(t)
	srv := apitest.Start(t, cfg, functions.All)
	c, userID := signIn(t, srv)
	t0 := time.Now().Add(-time.Hour).Truncate(time.Second)
	p1 := t0.Add(30 * 24 * time.Hour)
	p2 := p1.Add(30 * 24 * time.Hour)

	if v := subscriptionOf(t, c); v["pro"] != false || v["subscription"] != nil || v["proPlanAvailable"] != true {
		t.Fatalf("before: %v", v)
	}
	// Created: the user is found by the metadata written at checkout, and
	// the customer is linked for later events.
	deliver(t, srv, "evt_s1", "customer.subscription.created", t0, subscription("sub_1", "cus_pro", "active", userID, p1, false))
	wantPro(t, c, true, "active", p1, false)

	// An older event that arrives late changes nothing.
	deliver(t, srv, "evt_s0", "customer.subscription.updated", t0.Add(-10*time.Second), subscription("sub_1", "cus_pro", "past_due", "", p1, false))
	wantPro(t, c, true, "active", p1, false)

	// invoice.paid (current shape) extends the period; found by customer.
	deliver(t, srv, "evt_i1", "invoice.paid", t0.Add(10*time.Second), map[string]any{
		"id": "in_1", "object": "invoice", "customer": "cus_pro", "status": "paid",
		"parent": map[string]any{"type": "subscription_details", "subscription_details": map[string]any{"subscription": "sub_1", "metadata": map[string]any{}}},
		"lines":  map[string]any{"data": []any{map[string]any{"period": map[string]any{"start": p1.Unix(), "end": p2.Unix()}, "pricing": map[string]any{"price_details": map[string]any{"price": testProPrice}}}}},
	})
	wantPro(t, c, true, "active", p2, false)

	// An older invoice (2023-10-16 shape) never moves the period back.
	deliver(t, srv, "evt_i0", "invoice.paid", t0.Add(5*time.Second), map[string]any{
		"id": "in_0", "object": "invoice", "customer": "cus_pro", "subscription": "sub_1",
		"lines": map[string]any{"data": []any{map[string]any{"period": map[string]any{"end": p1.Unix()}, "price": map[string]any{"id": testProPrice}}}},
	})
	wantPro(t, c, true, "active", p2, false)

	// Cancellation at period end (2023-10-16 shape: period end on the subscription).
	old := map[string]any{"id": "sub_1", "object": "subscription", "customer": "cus_pro", "status": "active",
		"cancel_at_period_end": true, "current_period_end": p2.Unix(), "metadata": map[string]any{},
		"items": map[string]any{"data": []any{map[string]any{"price": map[string]any{"id": testProPrice}}}}}
	deliver(t, srv, "evt_s2", "customer.subscription.updated", t0.Add(20*time.Second), old)
	wantPro(t, c, true, "active", p2, true)

	deliver(t, srv, "evt_s3", "customer.subscription.deleted", t0.Add(30*time.Second), subscription("sub_1", "cus_pro", "canceled", "", p2, false))
	wantPro(t, c, false, "canceled", p2, false)

	// Canceled is final: neither a later update nor a payment revives it.
	deliver(t, srv, "evt_s4", "customer.subscription.updated", t0.Add(40*time.Second), subscription("sub_1", "cus_pro", "active", "", p2, false))
	deliver(t, srv, "evt_i2", "invoice.paid", t0.Add(50*time.Second), map[string]any{
		"id": "in_2", "customer": "cus_pro", "subscription": "sub_1",
		"lines": map[string]any{"data": []any{map[string]any{"period": map[string]any{"end": p2.Add(time.Hour).Unix()}}}},
	})
	wantPro(t, c, false, "canceled", p2, false)

	// A replayed event id is not applied twice.
	deliver(t, srv, "evt_s1", "customer.subscription.created", t0.Add(time.Hour), subscription("sub_1", "cus_pro", "active", userID, p1, false))
	wantPro(t, c, false, "canceled", p2, false)

	t.Run("StrangerCustomer", func(t *testing.T) {
		deliver(t, srv, "evt_x1", "customer.subscription.created", t0, subscription("sub_x", "cus_unknown", "active", "", p1, false))
		if n := count(t, srv, `SELECT count(*) FROM billing_subscriptions WHERE subscription_id = 'sub_x'`); n != 0 {
			t.Fatal("a stranger's subscription was kept")
		}
	})
	t.Run("PeriodOver", func(t *testing.T) {
		c, userID := signIn(t, srv)
		deliver(t, srv, "evt_o1", "customer.subscription.updated", t0, subscription("sub_o", "cus_o", "active", userID, t0, false))
		wantPro(t, c, false, "active", t0, false)
	})
	t.Run("PastDue", func(t *testing.T) {
		c, userID := signIn(t, srv)
		deliver(t, srv, "evt_pd", "customer.subscription.updated", t0, subscription("sub_pd", "cus_pd", "past_due", userID, p1, false))
		wantPro(t, c, false, "past_due", p1, false)
		// Paying the overdue invoice makes it active again.
		deliver(t, srv, "evt_pd_paid", "invoice.paid", t0.Add(time.Second), map[string]any{
			"id": "in_pd", "customer": "cus_pd", "subscription": "sub_pd",
			"lines": map[string]any{"data": []any{map[string]any{"period": map[string]any{"end": p1.Unix()}}}},
		})
		wantPro(t, c, true, "active", p1, false)
	})
	// The configured price is what new checkouts sell; a subscription on an
	// earlier price keeps its Pro status and its own price.
	t.Run("EarlierPriceStaysPro", func(t *testing.T) {
		c, userID := signIn(t, srv)
		sub := subscription("sub_2024", "cus_2024", "active", userID, p1, false)
		sub["items"].(map[string]any)["data"].([]any)[0].(map[string]any)["price"] = map[string]any{"id": "price_pro_2024"}
		deliver(t, srv, "evt_2024", "customer.subscription.created", t0, sub)
		wantPro(t, c, true, "active", p1, false)
		if n := count(t, srv, `SELECT count(*) FROM billing_subscriptions WHERE subscription_id = 'sub_2024' AND price_id = 'price_pro_2024'`); n != 1 {
			t.Fatal("the subscription's own price was not kept")
		}
	})
	t.Run("InvoiceBeforeSubscription", func(t *testing.T) {
		c, userID := signIn(t, srv)
		deliver(t, srv, "evt_ib1", "invoice.paid", t0.Add(2*time.Second), map[string]any{
			"id": "in_ib", "customer": "cus_ib",
			"parent": map[string]any{"subscription_details": map[string]any{"subscription": "sub_ib", "metadata": map[string]any{"userId": userID}}},
			"lines":  map[string]any{"data": []any{map[string]any{"period": map[string]any{"end": p1.Unix()}}}},
		})
		wantPro(t, c, true, "active", p1, false)
		// The creation event (incomplete, older) arrives afterwards.
		deliver(t, srv, "evt_ib0", "customer.subscription.created", t0, subscription("sub_ib", "cus_ib", "incomplete", userID, p1, false))
		wantPro(t, c, true, "active", p1, false)
	})
}

// TestWalletPages walks GET /api/billing/wallet's transactions by keyset:
// newest first, each once, and a bad cursor or limit answered as the admin
// list answers them.
func TestWalletPages(t *testing.T) {
	cfg, _ := billingConfig(t)
	srv := apitest.Start(t, cfg, functions.All)
	c, userID := signIn(t, srv)
	packs := []string{"starter", "standard", "plus", "max", "starter"}
	for i, pack := range packs {
		deliver(t, srv, fmt.Sprintf("evt_page_%d", i), "checkout.session.completed", time.Now(),
			checkoutSession(fmt.Sprintf("cs_page_%d", i), userID, pack, "paid", 1))
	}
	var seen []string
	cursor := ""
	for page := 0; ; page++ {
		path := "/api/billing/wallet?limit=2"
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		r := c.Do("GET", path, nil)
		if r.Status != 200 {
			t.Fatalf("page %d: %d %s", page, r.Status, r.Body)
		}
		items := r.JSON["transactions"].([]any)
		for _, it := range items {
			seen = append(seen, it.(map[string]any)["packId"].(string))
		}
		next, _ := r.JSON["nextCursor"].(string)
		if next == "" {
			if len(items) == 0 || page != 2 {
				t.Fatalf("last page %d has %d items", page, len(items))
			}
			break
		}
		if len(items) != 2 {
			t.Fatalf("page %d has %d items and a next cursor", page, len(items))
		}
		cursor = next
	}
	if want := []string{"starter", "max", "plus", "standard", "starter"}; !slices.Equal(seen, want) {
		t.Fatalf("walked %v, want newest first %v", seen, want)
	}
	apitest.Run(t, c, []apitest.Case{
		{Name: "NonNumericLimit", Method: "GET", Path: "/api/billing/wallet?limit=ten", Status: 400, Code: "VALIDATION_ERROR"},
	})
	if r := c.Do("GET", "/api/billing/wallet?limit=2&cursor=bm90LWEtY3Vyc29y", nil); r.Status != 200 ||
		len(r.JSON["transactions"].([]any)) != 2 || r.JSON["transactions"].([]any)[0].(map[string]any)["packId"] != "starter" {
		t.Fatalf("invalid cursor: %d %s, want the first page", r.Status, r.Body)
	}
}
