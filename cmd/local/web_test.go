package main

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"tradejournal/shared/config"
	"tradejournal/shared/httpx"
)

func testSPA(t *testing.T, p publicWebConfig) http.Handler {
	t.Helper()
	files := fstest.MapFS{
		"index.html":           {Data: []byte("<!doctype html><title>Trade Journal</title>")},
		"favicon.svg":          {Data: []byte("<svg/>")},
		"assets/index-abc1.js": {Data: []byte("console.log(1)")},
	}
	// Behind the mux, as serve mounts it: routes first, the SPA as fallback.
	api := httpx.Group{Name: "probe", Mounts: []string{"/api/probe"}, Routes: []httpx.Route{{
		Pattern: "GET /api/probe",
		Handler: func(w http.ResponseWriter, _ *http.Request) {
			httpx.JSON(w, http.StatusOK, map[string]bool{"ok": true})
		},
	}}}
	return httpx.Mux([]httpx.Group{api}, newSPA(files, p, time.Unix(1700000000, 0)))
}

func do(t *testing.T, h http.Handler, method, target string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, target, nil))
	return rec
}

func TestSPAServesFilesWithFallback(t *testing.T) {
	h := testSPA(t, publicWebConfig{Version: "unknown", AnalyticsHost: "https://us.i.posthog.com"})
	cases := []struct {
		target, wantBody, wantCache string
		status                      int
	}{
		{"/", "<!doctype html>", "no-cache", 200},
		{"/positions/0b9d8f4e-1c2a-4e5f-9a7b-1234567890ab", "<!doctype html>", "no-cache", 200},
		{"/index.html", "<!doctype html>", "no-cache", 200},
		{"/favicon.svg", "<svg/>", "no-cache", 200},
		{"/assets/index-abc1.js", "console.log(1)", "public, max-age=31536000, immutable", 200},
		{"/assets/index-gone.js", "404", "", 404},
		{"/etc/passwd", "<!doctype html>", "no-cache", 200},
	}
	for _, c := range cases {
		rec := do(t, h, http.MethodGet, c.target)
		if rec.Code != c.status || !strings.Contains(rec.Body.String(), c.wantBody) || rec.Header().Get("Cache-Control") != c.wantCache {
			t.Errorf("GET %s: %d %q cache %q", c.target, rec.Code, rec.Body.String(), rec.Header().Get("Cache-Control"))
		}
	}
	// A path climbing out of the directory stays inside it.
	spaOnly := newSPA(fstest.MapFS{"index.html": {Data: []byte("<!doctype html>")}}, publicWebConfig{}, time.Now())
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.URL.Path = "/../../web_test.go"
	climb := httptest.NewRecorder()
	spaOnly.ServeHTTP(climb, req)
	if !strings.Contains(climb.Body.String(), "<!doctype html>") {
		t.Errorf("climbing path: %q", climb.Body)
	}
	rec := do(t, h, http.MethodGet, "/settings")
	for header, want := range map[string]string{
		"X-Content-Type-Options": "nosniff",
		"X-Frame-Options":        "DENY",
		"Referrer-Policy":        "same-origin",
	} {
		if got := rec.Header().Get(header); got != want {
			t.Errorf("%s = %q, want %q", header, got, want)
		}
	}
	csp := rec.Header().Get("Content-Security-Policy")
	if !strings.Contains(csp, "script-src 'self';") || !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "connect-src 'self';") {
		t.Errorf("CSP %q", csp)
	}
}

func TestSPALeavesTheAPIAlone(t *testing.T) {
	h := testSPA(t, publicWebConfig{Version: "unknown"})
	if rec := do(t, h, http.MethodGet, "/api/probe"); rec.Code != 200 || !strings.Contains(rec.Body.String(), `"ok":true`) {
		t.Errorf("api route: %d %s", rec.Code, rec.Body)
	}
	for _, target := range []string{"/api/nope", "/api", "/metrics"} {
		rec := do(t, h, http.MethodGet, target)
		if rec.Code != 404 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") || strings.Contains(rec.Body.String(), "doctype") {
			t.Errorf("GET %s: %d %q %s", target, rec.Code, rec.Header().Get("Content-Type"), rec.Body)
		}
	}
	if rec := do(t, h, http.MethodPost, "/settings"); rec.Code != 404 {
		t.Errorf("POST /settings: %d", rec.Code)
	}
	if rec := do(t, h, http.MethodHead, "/"); rec.Code != 200 || rec.Body.Len() != 0 {
		t.Errorf("HEAD /: %d %q", rec.Code, rec.Body)
	}
}

func TestConfigJSHasPublicValuesOnly(t *testing.T) {
	t.Setenv("PAYMENT_SECRET_KEY", "sk_test_secretvalue123")
	t.Setenv("ANALYTICS_API_KEY", "phx_backend_secret")
	t.Setenv("OBJECT_STORAGE_ENDPOINT", "http://127.0.0.1:1")
	t.Setenv("OBJECT_STORAGE_BUCKET", "bucket-name")
	t.Setenv("OBJECT_STORAGE_ACCESS_KEY_ID", "AKIDstorage123")
	t.Setenv("OBJECT_STORAGE_SECRET_ACCESS_KEY", "storage-secret-456")
	t.Setenv("ANALYTICS_PUBLIC_KEY", "phc_public")
	t.Setenv("ANALYTICS_HOST", "https://eu.i.posthog.com")
	t.Setenv("ANALYTICS_PUBLIC_FEEDBACK_SURVEY", "s1:q1:q2")
	t.Setenv("NEWSLETTER_URL", "https://news.example.com/join?a=1&b=</script>")
	t.Setenv("APP_VERSION", "v0.14.0-abc123")
	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
	h := testSPA(t, publicConfigOf(cfg))
	rec := do(t, h, http.MethodGet, "/config.js")
	body := rec.Body.String()
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/javascript" || rec.Header().Get("Cache-Control") != "no-cache" {
		t.Fatalf("config.js: %d %v", rec.Code, rec.Header())
	}
	for _, want := range []string{
		`window.__TRADEJOURNAL_CONFIG__ = Object.freeze({`,
		`"newsletterUrl":"https://news.example.com/join?a=1\u0026b=\u003c/script\u003e"`,
		`"analyticsPublicKey":"phc_public"`, `"analyticsHost":"https://eu.i.posthog.com"`,
		`"analyticsFeedbackSurvey":"s1:q1:q2"`, `"version":"v0.14.0-abc123"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("config.js lacks %s:\n%s", want, body)
		}
	}
	for _, secret := range append(cfg.Secrets(), "DATABASE_URL", "postgres://", "bucket-name") {
		if strings.Contains(body, secret) {
			t.Errorf("config.js leaks %q:\n%s", secret, body)
		}
	}
	// The analytics host is reachable only with the public key set.
	if csp := do(t, h, http.MethodGet, "/").Header().Get("Content-Security-Policy"); !strings.Contains(csp, "connect-src 'self' https://eu.i.posthog.com;") {
		t.Errorf("CSP %q", csp)
	}
}

func TestWebDistDir(t *testing.T) {
	dir := t.TempDir()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if _, err := webDistDir(env(map[string]string{"WEB_DIST_DIR": dir})); err == nil || !strings.Contains(err.Error(), "WEB_DIST_DIR") {
		t.Fatalf("a dir without index.html: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := webDistDir(env(map[string]string{"WEB_DIST_DIR": dir})); err != nil || got != dir {
		t.Fatalf("got %q, %v", got, err)
	}
	// The tests run in cmd/local, where ./web/dist does not exist: api only.
	if got, err := webDistDir(env(nil)); err != nil || got != "" {
		t.Fatalf("default: %q, %v", got, err)
	}
	h, err := webHandler(config.Config{}, env(nil), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil || h != nil {
		t.Fatalf("no dist: %v %v", h, err)
	}
}
