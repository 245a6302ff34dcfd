package functions_test

import (
	"bytes"
	"context"
	"encoding/json"
	"mime/multipart"
	"net/textproto"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v76"
	"github.com/stripe/stripe-go/v76/webhook"

	"tradejournal/functions"
	"tradejournal/shared/analytics"
	"tradejournal/shared/analytics/analyticstest"
	"tradejournal/shared/apitest"
	"tradejournal/shared/config"
)

const (
	journeyEmail    = "Trader.Person@example.com"
	journeyCSVName  = "my-ibkr-export-2024.csv"
	journeyWHSecret = "whsec_journey0123"
)

// journey drives a user through the five analysed actions: sign up, create
// an account, use the calculator, import a CSV, and buy a credit pack (the
// webhook credit). It returns the user's id.
func journey(t *testing.T, srv *apitest.Server) string {
	t.Helper()
	c := srv.Client(t)
	userID := c.Register(journeyEmail, "password1").JSON["user"].(map[string]any)["id"].(string)
	acc := c.Do("POST", "/api/accounts", map[string]any{"name": "Secret Stash", "currency": "USD", "startingBalance": "25000"})
	if acc.Status != 201 {
		t.Fatalf("account: %d %s", acc.Status, acc.Body)
	}
	accountID := acc.JSON["account"].(map[string]any)["id"].(string)
	if r := c.Do("POST", "/api/calculator", map[string]any{"mode": "stock", "direction": "long",
		"entryPrice": "184.25", "stopLoss": "180.5", "dollarRisk": "375"}); r.Status != 200 {
		t.Fatalf("calculator: %d %s", r.Status, r.Body)
	}

	csvData, err := os.ReadFile("../shared/brokerfile/testdata/generic_execution.csv")
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	opts, _ := json.Marshal(map[string]any{"accountId": accountID, "presetId": "generic-execution"})
	pw, _ := mw.CreatePart(textproto.MIMEHeader{"Content-Disposition": {`form-data; name="options"`}, "Content-Type": {"application/json"}})
	_, _ = pw.Write(opts)
	pw, _ = mw.CreatePart(textproto.MIMEHeader{"Content-Disposition": {`form-data; name="file"; filename="` + journeyCSVName + `"`}, "Content-Type": {"text/csv"}})
	_, _ = pw.Write(csvData)
	_ = mw.Close()
	req := c.NewRequest("POST", "/api/csv-import/preview", body.String())
	req.Header.Set("Content-Type", mw.FormDataContentType())
	pr := c.Send(req)
	token, _ := pr.JSON["token"].(string)
	if pr.Status != 200 || token == "" {
		t.Fatalf("preview: %d %s", pr.Status, pr.Body)
	}
	if r := c.Do("POST", "/api/csv-import/commit", map[string]any{"token": token}); r.Status != 201 {
		t.Fatalf("commit: %d %s", r.Status, r.Body)
	}

	session := map[string]any{
		"id": "cs_journey", "object": "checkout.session", "mode": "payment", "status": "complete",
		"payment_status": "paid", "client_reference_id": userID, "amount_total": 500, "currency": "usd",
		"metadata": map[string]any{"kind": "credit_pack", "userId": userID, "packId": "starter"},
	}
	payload, _ := json.Marshal(map[string]any{"id": "evt_journey", "object": "event", "api_version": stripe.APIVersion,
		"created": time.Now().Unix(), "type": "checkout.session.completed", "data": map[string]any{"object": session}})
	signed := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: journeyWHSecret, Timestamp: time.Now()})
	req = c.NewRequest("POST", "/api/billing/webhook", string(payload))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Stripe-Signature", signed.Header)
	if r := c.Send(req); r.Status != 200 {
		t.Fatalf("webhook: %d %s", r.Status, r.Body)
	}
	return userID
}

func billingOn(cfg *config.Config) {
	cfg.Billing.SecretKey = "sk_test_journey0123"
	cfg.Billing.WebhookSecret = journeyWHSecret
}

// TestAnalyticsEvents: each analysed action sends its one event, keyed by
// the surrogate, with environment stamped, and nothing personal or
// financial reaches the ingestion host.
func TestAnalyticsEvents(t *testing.T) {
	cfg := apitest.Config(t)
	billingOn(&cfg)
	sink := analyticstest.Enable(t, &cfg)
	srv := apitest.Start(t, cfg, functions.All)
	userID := journey(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.App.Analytics.Flush(ctx); err != nil {
		t.Fatal(err)
	}

	want := map[string]map[string]any{
		analytics.EventSignedUp:        {"emailVerificationSent": false},
		analytics.EventAccountCreated:  {"withBrokerage": false},
		analytics.EventCalculatorUsed:  {"mode": "stock"},
		analytics.EventImportCommitted: {"fillsCreated": float64(8)},
		analytics.EventPackPurchased:   {"pack": "starter"},
	}
	if n := len(sink.Events()); n != len(want) {
		t.Errorf("%d events, want %d: %+v", n, len(want), sink.Events())
	}
	surrogate := srv.App.Analytics.Surrogate(userID)
	for name, props := range want {
		got := sink.Named(name)
		if len(got) != 1 {
			t.Errorf("%q sent %d times, want once", name, len(got))
			continue
		}
		e := got[0]
		if e.DistinctID != surrogate || e.Properties["environment"] != "test" {
			t.Errorf("%q: distinct_id %q environment %v", name, e.DistinctID, e.Properties["environment"])
		}
		for k, v := range props {
			if e.Properties[k] != v {
				t.Errorf("%q: %s = %v, want %v", name, k, e.Properties[k], v)
			}
		}
	}
	raw := sink.Raw()
	for _, gone := range append([]string{userID, journeyEmail, strings.ToLower(journeyEmail), journeyCSVName,
		"Secret Stash", "AAPL", "TSLA", "cs_journey"}, cfg.Secrets()...) {
		if gone == analyticstest.TestKey {
			continue // rides once as api_key, checked below
		}
		if strings.Contains(raw, gone) {
			t.Errorf("%q reached the analytics host", gone)
		}
	}
	// The journey's amounts, as JSON values (number or string): as
	// substrings they also turn up inside random ids and timestamps.
	for _, amount := range []string{"184.25", "25000", "375"} {
		if regexp.MustCompile(`[:\[,]\s*"?` + regexp.QuoteMeta(amount) + `"?\s*[,\]}]`).MatchString(raw) {
			t.Errorf("the amount %s reached the analytics host", amount)
		}
	}
	if n := strings.Count(raw, analyticstest.TestKey); n != len(sink.Batches()) {
		t.Errorf("the key appears %d times in %d batches: only as api_key", n, len(sink.Batches()))
	}
}

// TestAnalyticsOffMakesNoConnection: without ANALYTICS_API_KEY, the same
// journey with ANALYTICS_HOST pointing at a listener opens no connection
// to it, and the app has no client (so no sender goroutine).
func TestAnalyticsOffMakesNoConnection(t *testing.T) {
	host := analyticstest.Listen(t)
	cfg := apitest.Config(t)
	billingOn(&cfg)
	cfg.Analytics.Host = host.URL()
	cfg.Analytics.Environment = "test"
	srv := apitest.Start(t, cfg, functions.All)
	if srv.App.Analytics != nil {
		t.Fatal("an analytics client exists without ANALYTICS_API_KEY")
	}
	journey(t, srv)
	srv.Close()
	srv.App.Close()
	if n := host.Stop(); n != 0 {
		t.Fatalf("%d connection(s) to the analytics host with analytics off", n)
	}
}
