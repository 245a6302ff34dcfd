package billing_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v76"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/config"
	"tradejournal/shared/stripetest"
)

func TestMain(m *testing.M) { os.Exit(stripetest.Main(m)) }

const (
	testSecretKey     = "sk_test_tradejournal"
	testWebhookSecret = "whsec_test_tradejournal"
	testProPrice      = "price_pro_monthly"
)

// recorder sits between stripe-go and stripe-mock and keeps every request
// it passes on, so tests can see what the service asked the processor for
// (stripe-mock itself keeps no state).
type recorder struct {
	mu   sync.Mutex
	reqs []recorded
}

type recorded struct {
	Method, Path string
	Form         url.Values
	Header       http.Header
}

func newRecorder(t *testing.T, target string) (*recorder, string) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	rec := &recorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		form, _ := url.ParseQuery(string(body))
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, recorded{Method: r.Method, Path: r.URL.Path, Form: form, Header: r.Header.Clone()})
		rec.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return rec, srv.URL
}

// to returns the requests sent to path.
func (rec *recorder) to(method, path string) []recorded {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var out []recorded
	for _, r := range rec.reqs {
		if r.Method == method && r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

// billingConfig is a configuration with billing, the webhook and the Pro
// plan on, the processor client pointed at stripe-mock through a recorder.
func billingConfig(t *testing.T) (config.Config, *recorder) {
	t.Helper()
	cfg := apitest.Config(t)
	rec, base := newRecorder(t, stripetest.URL(t))
	cfg.Billing.SecretKey = testSecretKey
	cfg.Billing.WebhookSecret = testWebhookSecret
	cfg.Billing.ProPriceID = testProPrice
	cfg.Billing.APIBaseURL = base
	return cfg, rec
}

var userN atomic.Int64

// signIn registers a new user on srv and returns the client and the user's
// id. Registration allows 5 per address per server.
func signIn(t *testing.T, srv *apitest.Server) (*apitest.Client, string) {
	t.Helper()
	email := fmt.Sprintf("buyer%d@example.com", userN.Add(1))
	c := srv.Client(t)
	r := c.Register(email, "correct horse battery")
	return c, r.JSON["user"].(map[string]any)["id"].(string)
}

func TestUnconfigured(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	c, _ := signIn(t, srv)
	apitest.Run(t, c, []apitest.Case{
		{Name: "Checkout", Method: "POST", Path: "/api/billing/checkout", Body: map[string]any{"packId": "starter"}, Status: 402, Code: "BILLING_NOT_AVAILABLE"},
		{Name: "CheckoutUnknownPack", Method: "POST", Path: "/api/billing/checkout", Body: map[string]any{"packId": "nope"}, Status: 402, Code: "BILLING_NOT_AVAILABLE"},
		{Name: "ProCheckout", Method: "POST", Path: "/api/billing/subscription/checkout", Status: 402, Code: "BILLING_NOT_AVAILABLE"},
		{Name: "Portal", Method: "POST", Path: "/api/billing/subscription/portal", Status: 402, Code: "BILLING_NOT_AVAILABLE"},
		{Name: "Webhook", Method: "POST", Path: "/api/billing/webhook", Body: `{}`, Status: 404},
		{Name: "Packs", Method: "GET", Path: "/api/billing/packs", Status: 200},
		{Name: "Wallet", Method: "GET", Path: "/api/billing/wallet", Status: 200},
		{Name: "Subscription", Method: "GET", Path: "/api/billing/subscription", Status: 200},
	})
	packs := c.Do("GET", "/api/billing/packs", nil)
	if packs.JSON["purchasesAvailable"] != false || len(packs.JSON["packs"].([]any)) != 4 {
		t.Fatalf("packs %s", packs.Body)
	}
	sub := c.Do("GET", "/api/billing/subscription", nil)
	if sub.JSON["proPlanAvailable"] != false || sub.JSON["pro"] != false || sub.JSON["subscription"] != nil {
		t.Fatalf("subscription %s", sub.Body)
	}
	w := c.Do("GET", "/api/billing/wallet", nil)
	if string(w.Body) != `{"balance":0,"reserved":0,"available":0,"transactions":[],"nextCursor":null}`+"\n" {
		t.Fatalf("wallet %s", w.Body)
	}

	// A signed event is still a plain 404 with the webhook off.
	r := postEvent(t, srv, testWebhookSecret, eventJSON(t, "evt_off", "checkout.session.completed", time.Now(), map[string]any{"id": "cs_x"}))
	if r.Status != 404 || r.ErrorCode() != "" {
		t.Fatalf("webhook off: %d %s", r.Status, r.Body)
	}
	if stripe.Key != "" {
		t.Fatal("the package-global stripe.Key was set")
	}
}

func TestUnauthenticated(t *testing.T) {
	cfg, _ := billingConfig(t)
	srv := apitest.Start(t, cfg, functions.All)
	c := srv.Client(t)
	for _, rt := range []struct{ method, path string }{
		{"GET", "/api/billing/packs"}, {"GET", "/api/billing/wallet"}, {"GET", "/api/billing/subscription"},
		{"POST", "/api/billing/checkout"}, {"POST", "/api/billing/subscription/checkout"}, {"POST", "/api/billing/subscription/portal"},
	} {
		if r := c.Do(rt.method, rt.path, nil); r.Status != 401 || r.ErrorCode() != "UNAUTHENTICATED" {
			t.Errorf("%s %s: %d %s", rt.method, rt.path, r.Status, r.Body)
		}
	}
}

func TestWebhookNeedsBothSecrets(t *testing.T) {
	cfg, _ := billingConfig(t)
	cfg.Billing.WebhookSecret = ""
	srv := apitest.Start(t, cfg, functions.All)
	r := postEvent(t, srv, testWebhookSecret, eventJSON(t, "evt_nosecret", "checkout.session.completed", time.Now(), map[string]any{"id": "cs_x"}))
	if r.Status != 404 || r.ErrorCode() != "" {
		t.Fatalf("webhook without its secret: %d %s", r.Status, r.Body)
	}
	// Purchases still work: only the webhook (and so the Pro plan) is off.
	c, _ := signIn(t, srv)
	if r := c.Do("POST", "/api/billing/checkout", map[string]any{"packId": "starter"}); r.Status != 200 {
		t.Fatalf("checkout: %d %s", r.Status, r.Body)
	}
	if r := c.Do("POST", "/api/billing/subscription/checkout", nil); r.Status != 402 || r.ErrorCode() != "BILLING_NOT_AVAILABLE" {
		t.Fatalf("pro checkout without the webhook: %d %s", r.Status, r.Body)
	}
}

func TestCheckout(t *testing.T) {
	cfg, rec := billingConfig(t)
	cfg.Email.WebBaseURL = "https://journal.example.com"
	srv := apitest.Start(t, cfg, functions.All)
	c, userID := signIn(t, srv)

	r := c.Do("POST", "/api/billing/checkout", map[string]any{"packId": "plus"})
	if r.Status != 200 {
		t.Fatalf("checkout: %d %s", r.Status, r.Body)
	}
	if u, _ := r.JSON["url"].(string); !strings.HasPrefix(u, "https://checkout.stripe.com/") || len(r.JSON) != 1 {
		t.Fatalf("answer %s", r.Body)
	}
	sessions := rec.to("POST", "/v1/checkout/sessions")
	if len(sessions) != 1 {
		t.Fatalf("%d checkout sessions created", len(sessions))
	}
	customers := rec.to("POST", "/v1/customers")
	if len(customers) != 1 || customers[0].Form.Get("metadata[userId]") != userID ||
		customers[0].Header.Get("Idempotency-Key") != "tj-customer-"+userID {
		t.Fatalf("customer creation %+v", customers)
	}
	f := sessions[0].Form
	want := map[string]string{
		"mode":                                                 "payment",
		"client_reference_id":                                  userID,
		"metadata[userId]":                                     userID,
		"metadata[packId]":                                     "plus",
		"metadata[kind]":                                       "credit_pack",
		"payment_intent_data[metadata][userId]":                userID,
		"line_items[0][quantity]":                              "1",
		"line_items[0][price_data][currency]":                  "usd",
		"line_items[0][price_data][unit_amount]":               "2500",
		"line_items[0][price_data][product_data][name]":        "Plus",
		"line_items[0][price_data][product_data][description]": "26000000 credits",
		"success_url":                                          "https://journal.example.com/billing?checkout=success&session_id={CHECKOUT_SESSION_ID}",
		"cancel_url":                                           "https://journal.example.com/billing?checkout=cancel",
	}
	for k, v := range want {
		if got := f.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if !strings.HasPrefix(f.Get("customer"), "cus_") {
		t.Errorf("customer = %q", f.Get("customer"))
	}
	if auth := sessions[0].Header.Get("Authorization"); auth != "Bearer "+testSecretKey {
		t.Errorf("Authorization %q: the App's key was not used", auth)
	}
	if stripe.Key != "" {
		t.Error("the package-global stripe.Key was set")
	}

	t.Run("NoWalletWrite", func(t *testing.T) {
		w := c.Do("GET", "/api/billing/wallet", nil)
		if w.JSON["balance"] != 0.0 || len(w.JSON["transactions"].([]any)) != 0 {
			t.Fatalf("wallet after checkout: %s", w.Body)
		}
	})
	t.Run("CustomerReused", func(t *testing.T) {
		if r := c.Do("POST", "/api/billing/checkout", map[string]any{"packId": "starter"}); r.Status != 200 {
			t.Fatalf("second checkout: %d %s", r.Status, r.Body)
		}
		if n := len(rec.to("POST", "/v1/customers")); n != 1 {
			t.Fatalf("%d customers created for one user", n)
		}
		s := rec.to("POST", "/v1/checkout/sessions")
		if len(s) != 2 || s[1].Form.Get("customer") != f.Get("customer") {
			t.Fatalf("second session's customer %q, first %q", s[1].Form.Get("customer"), f.Get("customer"))
		}
	})

	apitest.Run(t, c, []apitest.Case{
		{Name: "UnknownPack", Method: "POST", Path: "/api/billing/checkout", Body: map[string]any{"packId": "platinum"}, Status: 400, Code: "UNKNOWN_PACK"},
		{Name: "EmptyPackID", Method: "POST", Path: "/api/billing/checkout", Body: map[string]any{"packId": ""}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "MissingPackID", Method: "POST", Path: "/api/billing/checkout", Body: map[string]any{}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "WrongType", Method: "POST", Path: "/api/billing/checkout", Body: map[string]any{"packId": 5}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "ClientPrice", Method: "POST", Path: "/api/billing/checkout", Body: map[string]any{"packId": "starter", "priceMinor": 1}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "MalformedJSON", Method: "POST", Path: "/api/billing/checkout", Body: `{"packId":`, Status: 400, Code: "INVALID_JSON"},
	})
}

func TestCheckoutReturnsToOrigin(t *testing.T) {
	cfg, rec := billingConfig(t)
	srv := apitest.Start(t, cfg, functions.All)
	c, _ := signIn(t, srv)
	cases := []struct{ origin, want string }{
		{"http://localhost:5173", "http://localhost:5173/billing?checkout=cancel"},
		{"", srv.URL + "/billing?checkout=cancel"},
		{"null", srv.URL + "/billing?checkout=cancel"},
		{"javascript://x/evil", srv.URL + "/billing?checkout=cancel"},
	}
	for i, tc := range cases {
		req := c.NewRequest("POST", "/api/billing/checkout", `{"packId":"starter"}`)
		req.Header.Set("Content-Type", "application/json")
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		if r := c.Send(req); r.Status != 200 {
			t.Fatalf("origin %q: %d %s", tc.origin, r.Status, r.Body)
		}
		got := rec.to("POST", "/v1/checkout/sessions")[i].Form.Get("cancel_url")
		if got != tc.want {
			t.Errorf("origin %q: cancel_url %q, want %q", tc.origin, got, tc.want)
		}
	}
}

func TestCheckoutRateLimit(t *testing.T) {
	cfg, _ := billingConfig(t)
	srv := apitest.Start(t, cfg, functions.All)
	c, _ := signIn(t, srv)
	for i := range 10 {
		if r := c.Do("POST", "/api/billing/checkout", map[string]any{"packId": "starter"}); r.Status != 200 {
			t.Fatalf("checkout %d: %d %s", i+1, r.Status, r.Body)
		}
	}
	r := c.Do("POST", "/api/billing/checkout", map[string]any{"packId": "starter"})
	if r.Status != 429 || r.ErrorCode() != "RATE_LIMITED" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("11th checkout: %d %s (Retry-After %q)", r.Status, r.Body, r.Header.Get("Retry-After"))
	}
	// The limit is per user.
	other, _ := signIn(t, srv)
	if r := other.Do("POST", "/api/billing/checkout", map[string]any{"packId": "starter"}); r.Status != 200 {
		t.Fatalf("another user's checkout: %d %s", r.Status, r.Body)
	}
}

func TestProcessorFailure(t *testing.T) {
	cfg := apitest.Config(t)
	cfg.Billing.SecretKey = testSecretKey
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":{"type":"invalid_request_error","message":"No such price","code":"resource_missing"}}`)
	}))
	t.Cleanup(failing.Close)
	cfg.Billing.APIBaseURL = failing.URL
	srv := apitest.Start(t, cfg, functions.All)
	c, _ := signIn(t, srv)
	r := c.Do("POST", "/api/billing/checkout", map[string]any{"packId": "starter"})
	if r.Status != 502 || r.ErrorCode() != "" || strings.Contains(string(r.Body), "No such price") {
		t.Fatalf("processor failure: %d %s", r.Status, r.Body)
	}
}

func TestProCheckoutAndPortal(t *testing.T) {
	cfg, rec := billingConfig(t)
	srv := apitest.Start(t, cfg, functions.All)
	c, userID := signIn(t, srv)

	r := c.Do("POST", "/api/billing/subscription/checkout", nil)
	if r.Status != 200 || !strings.HasPrefix(r.JSON["url"].(string), "https://") {
		t.Fatalf("pro checkout: %d %s", r.Status, r.Body)
	}
	s := rec.to("POST", "/v1/checkout/sessions")
	f := s[0].Form
	for k, v := range map[string]string{
		"mode": "subscription", "line_items[0][price]": testProPrice, "line_items[0][quantity]": "1",
		"client_reference_id": userID, "metadata[userId]": userID, "metadata[kind]": "pro",
		"subscription_data[metadata][userId]": userID,
	} {
		if got := f.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}

	r = c.Do("POST", "/api/billing/subscription/portal", nil)
	if r.Status != 200 || r.JSON["url"] == "" {
		t.Fatalf("portal: %d %s", r.Status, r.Body)
	}
	p := rec.to("POST", "/v1/billing_portal/sessions")
	if len(p) != 1 || p[0].Form.Get("customer") != f.Get("customer") || !strings.HasSuffix(p[0].Form.Get("return_url"), "/billing") {
		t.Fatalf("portal request %+v", p)
	}

	// Once Pro, a second subscription is refused.
	deliver(t, srv, "evt_pro_created", "customer.subscription.created", time.Now(), subscription("sub_pro1", f.Get("customer"), "active", userID, time.Now().Add(30*24*time.Hour), false))
	if r := c.Do("POST", "/api/billing/subscription/checkout", nil); r.Status != 409 || r.ErrorCode() != "CONFLICT" {
		t.Fatalf("pro checkout while pro: %d %s", r.Status, r.Body)
	}

	t.Run("NoProPrice", func(t *testing.T) {
		cfg, _ := billingConfig(t)
		cfg.Billing.ProPriceID = ""
		srv := apitest.Start(t, cfg, functions.All)
		c, _ := signIn(t, srv)
		if r := c.Do("POST", "/api/billing/subscription/checkout", nil); r.Status != 402 || r.ErrorCode() != "BILLING_NOT_AVAILABLE" {
			t.Fatalf("pro checkout without a price: %d %s", r.Status, r.Body)
		}
		if sub := c.Do("GET", "/api/billing/subscription", nil); sub.JSON["proPlanAvailable"] != false {
			t.Fatalf("subscription %s", sub.Body)
		}
	})
}

func TestPacks(t *testing.T) {
	cfg, _ := billingConfig(t)
	cfg.Billing.CreditPacks = `[{"id":"tiny","label":"Tiny","priceMinor":100,"currency":"EUR","credits":900000}]`
	srv := apitest.Start(t, cfg, functions.All)
	c, _ := signIn(t, srv)
	r := c.Do("GET", "/api/billing/packs", nil)
	want := `{"purchasesAvailable":true,"packs":[{"id":"tiny","label":"Tiny","priceMinor":100,"currency":"EUR","credits":900000}]}` + "\n"
	if string(r.Body) != want {
		t.Fatalf("packs %s", r.Body)
	}
}

// context helper for tests that query the database directly.
var bg = context.Background()

func count(t *testing.T, srv *apitest.Server, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := srv.App.DB.QueryRow(bg, sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// eventJSON builds an event as the processor sends it.
func eventJSON(t testing.TB, id, typ string, created time.Time, object any) []byte {
	t.Helper()
	raw, err := json.Marshal(map[string]any{
		"id": id, "object": "event", "api_version": stripe.APIVersion, "created": created.Unix(),
		"livemode": false, "pending_webhooks": 1, "type": typ, "data": map[string]any{"object": object},
	})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
