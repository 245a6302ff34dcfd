package health_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/app"
)

// get sends GET path to base with a 5 s deadline, so a hanging answer
// fails the test instead of stalling it, and returns status and raw JSON.
func get(t *testing.T, method, url string) (int, map[string]json.RawMessage, http.Header) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("body %q is not a JSON object: %v", raw, err)
	}
	return res.StatusCode, body, res.Header
}

func str(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("%s is not a string", raw)
	}
	return s
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestHealth(t *testing.T) {
	for _, tc := range []struct {
		name    string
		set     bool
		version string
		want    string // "" means the key is absent
	}{
		{"DefaultUnknown", false, "", "unknown"},
		{"SetVerbatim", true, "v0.14.0-abc123", "v0.14.0-abc123"},
		{"BlankDropsVersion", true, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := apitest.Config(t)
			if tc.set {
				cfg.AppVersion = tc.version
			}
			srv := apitest.Start(t, cfg, functions.All)
			status, body, h := get(t, "GET", srv.URL+"/api/health")
			if status != 200 {
				t.Fatalf("status %d", status)
			}
			if ct := h.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Fatalf("content type %q", ct)
			}
			if got := str(t, body["status"]); got != "ok" {
				t.Fatalf("status field %q", got)
			}
			if got := str(t, body["database"]); got != "up" {
				t.Fatalf("database %q", got)
			}
			v, present := body["version"]
			switch {
			case tc.want == "" && present:
				t.Fatalf("version present (%s), want the key absent", v)
			case tc.want != "" && (!present || str(t, v) != tc.want):
				t.Fatalf("version %s, want %q", v, tc.want)
			}
			want := []string{"database", "status", "version"}
			if tc.want == "" {
				want = []string{"database", "status"}
			}
			if got := keys(body); !slices.Equal(got, want) {
				t.Fatalf("keys %v, want %v", got, want)
			}
		})
	}
}

// downServer runs the local host on an App whose database is at dbURL.
func downServer(t *testing.T, dbURL string) string {
	t.Helper()
	cfg := apitest.Config(t)
	cfg.DB.URL = dbURL
	a, err := app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), app.SystemClock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	srv := httptest.NewServer(apitest.Handler(a, functions.All))
	t.Cleanup(srv.Close)
	return srv.URL
}

// blackHole accepts TCP connections and never answers: a database that
// hangs rather than refuses.
func blackHole(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
	)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

func TestHealthDatabaseDown(t *testing.T) {
	for _, tc := range []struct{ name, url string }{
		{"Refused", "postgres://x@127.0.0.1:1/x"},
		{"Hangs", "postgres://x@" + blackHole(t) + "/x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := downServer(t, tc.url)
			status, body, _ := get(t, "GET", base+"/api/health")
			if status != 200 {
				t.Fatalf("status %d, want 200 with the database reported down", status)
			}
			if got := str(t, body["database"]); got != "down" {
				t.Fatalf("database %q", got)
			}
			if got := str(t, body["status"]); got == "ok" || got == "" {
				t.Fatalf("status field %q with the database down", got)
			}
			if got := str(t, body["version"]); got != "unknown" {
				t.Fatalf("version %q", got)
			}
		})
	}
}

func TestUnknownRoutes(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	for _, tc := range []struct{ name, method, path string }{
		{"UnknownPath", "GET", "/api/nope"},
		{"UnderHealth", "GET", "/api/health/extra"},
		{"UnderAGroup", "GET", "/api/auth/nope"},
		{"OutsideAPI", "GET", "/nope"},
		{"Root", "GET", "/"},
		{"WrongMethodPOST", "POST", "/api/health"},
		{"WrongMethodDELETE", "DELETE", "/api/health"},
		{"WrongMethodOnAuthRoute", "GET", "/api/auth/login"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body, h := get(t, tc.method, srv.URL+tc.path)
			if status != 404 {
				t.Fatalf("status %d, want 404", status)
			}
			if ct := h.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Fatalf("content type %q", ct)
			}
			if got := keys(body); !slices.Equal(got, []string{"error"}) {
				t.Fatalf("body keys %v", got)
			}
			var e map[string]json.RawMessage
			if err := json.Unmarshal(body["error"], &e); err != nil {
				t.Fatalf("error %s: %v", body["error"], err)
			}
			if got := keys(e); !slices.Equal(got, []string{"message"}) {
				t.Fatalf("error keys %v, want only message (no code on a 404)", got)
			}
			if str(t, e["message"]) == "" {
				t.Fatal("empty message")
			}
		})
	}
}
