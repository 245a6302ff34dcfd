package appconfig_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"testing"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/app"
	"tradejournal/shared/auth"
	"tradejournal/shared/config"
	"tradejournal/shared/packs"
)

func load(t *testing.T, vars map[string]string) config.Config {
	t.Helper()
	cfg, err := config.LoadFrom(func(k string) (string, bool) { v, ok := vars[k]; return v, ok })
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	return cfg
}

func keys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

func TestConfigDefaults(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	want := `{"quoteLookup":false,"billing":false,"proPlan":false,"email":false,"imageStorage":false,"assistant":false,"registrationOpen":true}`
	c := srv.Client(t)
	// The configuration endpoint is authenticated (the spec); a signed-out
	// page reads the two switches it needs from the public one.
	apitest.Run(t, c, []apitest.Case{
		{Name: "Unauthenticated", Method: "GET", Path: "/api/config", Status: 401, Code: "UNAUTHENTICATED"},
	})
	if r := c.Do("GET", "/api/config/public", nil); r.Status != 200 || strings.TrimSpace(string(r.Body)) != `{"registrationOpen":true,"email":false}` {
		t.Fatalf("signed out: %d %s", r.Status, r.Body)
	}
	c.Register("cfg@example.com", "password1")
	r := c.Do("GET", "/api/config", nil)
	if r.Status != 200 || strings.TrimSpace(string(r.Body)) != want {
		t.Fatalf("%d %s\nwant %s", r.Status, r.Body, want)
	}
	if r := c.Do("POST", "/api/config", "{}"); r.Status != 404 && r.Status != 405 {
		t.Fatalf("POST: %d", r.Status)
	}
}

func TestConfigEverythingOnAndNoSecret(t *testing.T) {
	key := make([]byte, 32)
	prev := make([]byte, 32)
	_, _ = rand.Read(key)
	_, _ = rand.Read(prev)
	cfg := load(t, map[string]string{
		"DB_PASSWORD":                      "dbpw-7f3a9c",
		"DATABASE_URL":                     "postgres://app:urlpw-5d1e@db:5432/journal",
		"DIRECT_DATABASE_URL":              "postgres://app:directpw-2b8c@db:5432/journal",
		"PAYMENT_SECRET_KEY":               "sk_test_51Hsecret",
		"PAYMENT_WEBHOOK_SECRET":           "whsec_secret0a1b",
		"PAYMENT_PUBLISHABLE_KEY":          "pk_test_public",
		"PAYMENT_PRO_PRICE_ID":             "price_pro_1",
		"CREDIT_PACKS":                     `[{"id":"small","label":"Small","priceMinor":900,"currency":"EUR","credits":8000000}]`,
		"SMTP_HOST":                        "smtp.example.com",
		"EMAIL_FROM":                       "noreply@example.com",
		"WEB_BASE_URL":                     "https://journal.example.com",
		"SMTP_USER":                        "mailer",
		"SMTP_PASS":                        "smtppw-9e8d",
		"STORE_URL":                        "redis://:storepw-4c3b@127.0.0.1:1/0",
		"OBJECT_STORAGE_ENDPOINT":          "http://127.0.0.1:1",
		"OBJECT_STORAGE_BUCKET":            "images",
		"OBJECT_STORAGE_ACCESS_KEY_ID":     "AKIDSECRET42",
		"OBJECT_STORAGE_SECRET_ACCESS_KEY": "sak-secret-77",
		"ANALYTICS_API_KEY":                "phc_backend_secret",
		"STOCK_QUOTE_API_KEY":              "quote-secret-31",
		"ASSISTANT_API_KEY":                "sk-assistant-secret-19",
		"ASSISTANT_MODEL":                  "model-detail",
		"ASSISTANT_BASE_URL":               "http://127.0.0.1:1/v1",
		"ASSISTANT_INPUT_PRICE_PER_MTOK":   "150000",
		"ASSISTANT_OUTPUT_PRICE_PER_MTOK":  "600000",
		"STOCK_QUOTE_BASE_URL":             "http://127.0.0.1:1",
		"SEC_TICKERS_URL":                  "http://127.0.0.1:1/t.json",
		"ENCRYPTION_KEY":                   base64.StdEncoding.EncodeToString(key),
		"ENCRYPTION_KEY_PREVIOUS":          base64.StdEncoding.EncodeToString(prev),
	})
	secrets := cfg.Secrets()
	if len(secrets) < 15 {
		t.Fatalf("only %d secrets: the configuration above does not set them all: %q", len(secrets), secrets)
	}
	srv := apitest.Start(t, cfg, functions.All)
	c := srv.Client(t)
	c.Register("all@example.com", "password1")
	r := c.Do("GET", "/api/config", nil)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	for _, f := range []string{"quoteLookup", "billing", "proPlan", "email", "imageStorage", "assistant", "registrationOpen"} {
		if r.JSON[f] != true {
			t.Errorf("%s = %v, want true", f, r.JSON[f])
		}
	}
	if got := keys(r.JSON); !slices.Equal(got, []string{"assistant", "billing", "creditPacks", "email", "imageStorage", "proPlan", "quoteLookup", "registrationOpen"}) {
		t.Fatalf("fields %v", got)
	}
	list, _ := r.JSON["creditPacks"].([]any)
	if len(list) != 1 {
		t.Fatalf("creditPacks %v", r.JSON["creditPacks"])
	}
	pack := list[0].(map[string]any)
	if pack["id"] != "small" || pack["label"] != "Small" || pack["priceMinor"] != float64(900) || pack["currency"] != "EUR" || pack["credits"] != float64(8000000) || len(pack) != 5 {
		t.Fatalf("pack %v", pack)
	}
	body := string(r.Body)
	for _, s := range secrets {
		if strings.Contains(body, s) {
			t.Errorf("the body carries the secret %q", s)
		}
	}
	for _, s := range []string{"pk_test_public", "price_pro_1", "smtp.example.com", "127.0.0.1", "mailer", "images", "model-detail", "150000"} {
		if strings.Contains(body, s) {
			t.Errorf("the body carries configuration detail %q", s)
		}
	}
}

func TestConfigBillingDefaultsAndSwitches(t *testing.T) {
	// Billing on, CREDIT_PACKS unset: the default catalogue; registration
	// closed; a partial object storage stays off.
	cfg := load(t, map[string]string{
		"PAYMENT_SECRET_KEY":           "sk_test_x",
		"DISABLE_REGISTRATION":         "true",
		"OBJECT_STORAGE_ENDPOINT":      "http://127.0.0.1:1",
		"OBJECT_STORAGE_ACCESS_KEY_ID": "AKID",
	})
	srv := apitest.Start(t, cfg, functions.All)
	// Registration is closed, so the user is made directly, as an operator
	// would; then signs in.
	c := srv.Client(t)
	signIn(t, srv, c)
	r := c.Do("GET", "/api/config", nil)
	if r.JSON["billing"] != true || r.JSON["proPlan"] != false || r.JSON["registrationOpen"] != false || r.JSON["imageStorage"] != false {
		t.Fatalf("%s", r.Body)
	}
	list, _ := r.JSON["creditPacks"].([]any)
	if len(list) != len(packs.Default()) || list[0].(map[string]any)["id"] != packs.Default()[0].ID {
		t.Fatalf("creditPacks %v", r.JSON["creditPacks"])
	}
}

func TestBadCreditPacksStopTheStart(t *testing.T) {
	cfg := load(t, map[string]string{"CREDIT_PACKS": `[{"id":"a","label":"A","priceMinor":0,"currency":"USD","credits":1}]`})
	_, err := startErr(cfg)
	if err == nil || !strings.Contains(err.Error(), "CREDIT_PACKS") || !strings.Contains(err.Error(), "priceMinor") {
		t.Fatalf("error %v", err)
	}
}

// signIn creates a user directly (registration may be closed) and signs c in.
func signIn(t *testing.T, srv *apitest.Server, c *apitest.Client) {
	t.Helper()
	hash, err := auth.HashPassword("password1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := auth.CreateUser(context.Background(), srv.App.DB, "operator@example.com", hash, "UTC"); err != nil {
		t.Fatal(err)
	}
	if r := c.Do("POST", "/api/auth/login", map[string]string{"email": "operator@example.com", "password": "password1"}); r.Status != 200 {
		t.Fatalf("login: %d %s", r.Status, r.Body)
	}
}

// startErr builds the App as both hosts do and returns its error.
func startErr(cfg config.Config) (*app.App, error) {
	cfg.DB.URL = "postgres://x@127.0.0.1:1/x"
	a, err := app.New(context.Background(), cfg, slog.New(slog.DiscardHandler), app.SystemClock)
	if a != nil {
		a.Close()
	}
	return a, err
}
