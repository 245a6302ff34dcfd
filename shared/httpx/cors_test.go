package httpx_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/httpx"
)

const (
	webOrigin   = "https://app.example.com"
	otherOrigin = "https://evil.example.com"
	apiHost     = "api.example.com"
)

// corsHandler is the split-origin middleware in front of a handler that
// answers 200 "reached", inside httpx.Serve like in the App.
func corsHandler(t *testing.T, origins ...string) (http.Handler, *string) {
	t.Helper()
	mw, err := httpx.CORS(origins)
	if err != nil {
		t.Fatalf("CORS: %v", err)
	}
	route := new(string)
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "reached")
	})
	return httpx.Serve(mw(next), slog.New(slog.NewTextHandler(io.Discard, nil)),
		func(r *http.Request, rec *httpx.Recorder, start time.Time) { *route = rec.Route }), route
}

type corsCase struct {
	name      string
	method    string
	path      string
	headers   map[string]string
	status    int
	reached   bool
	allowFrom string // expected Access-Control-Allow-Origin; "" means no Access-Control-* header at all
	code      string // expected error code
}

func runCORS(t *testing.T, h http.Handler, route *string, cases []corsCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, "http://"+apiHost+tc.path, strings.NewReader(`{}`))
			for k, v := range tc.headers {
				req.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.status, w.Body)
			}
			if got := w.Body.String() == "reached"; got != tc.reached {
				t.Fatalf("reached the router: %v, want %v", got, tc.reached)
			}
			if tc.allowFrom == "" {
				for k := range w.Header() {
					if strings.HasPrefix(k, "Access-Control-") {
						t.Fatalf("unexpected %s: %q", k, w.Header().Get(k))
					}
				}
			} else {
				if got := w.Header().Get("Access-Control-Allow-Origin"); got != tc.allowFrom {
					t.Fatalf("Allow-Origin %q, want %q", got, tc.allowFrom)
				}
				if got := w.Header().Get("Access-Control-Allow-Credentials"); got != "true" {
					t.Fatalf("Allow-Credentials %q", got)
				}
			}
			if tc.code != "" {
				var body struct {
					Error struct{ Code, Message string }
				}
				if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || body.Error.Code != tc.code || body.Error.Message == "" {
					t.Fatalf("error body %s, want code %s", w.Body, tc.code)
				}
				if *route != "unmatched" {
					t.Fatalf("route label %q, want unmatched", *route)
				}
			}
		})
	}
}

func TestCORSSplitOrigin(t *testing.T) {
	h, route := corsHandler(t, webOrigin, "http://localhost:5173")
	cross := func(origin string) map[string]string {
		return map[string]string{"Origin": origin, "Sec-Fetch-Site": "cross-site", "Content-Type": "application/json"}
	}
	runCORS(t, h, route, []corsCase{
		{name: "listed origin GET", method: "GET", path: "/api/auth/me", headers: cross(webOrigin),
			status: 200, reached: true, allowFrom: webOrigin},
		{name: "listed origin POST", method: "POST", path: "/api/calculator", headers: cross(webOrigin),
			status: 200, reached: true, allowFrom: webOrigin},
		{name: "second listed origin", method: "DELETE", path: "/api/accounts/1", headers: cross("http://localhost:5173"),
			status: 200, reached: true, allowFrom: "http://localhost:5173"},
		{name: "other origin POST", method: "POST", path: "/api/calculator", headers: cross(otherOrigin),
			status: 403, code: "CSRF_REJECTED"},
		{name: "other origin PATCH, browser without Sec-Fetch-Site", method: "PATCH", path: "/api/positions/1",
			headers: map[string]string{"Origin": otherOrigin}, status: 403, code: "CSRF_REJECTED"},
		{name: "other origin GET is safe but gets no CORS headers", method: "GET", path: "/api/auth/me",
			headers: cross(otherOrigin), status: 200, reached: true},
		{name: "same-origin POST", method: "POST", path: "/api/auth/login",
			headers: map[string]string{"Origin": "https://" + apiHost, "Sec-Fetch-Site": "same-origin"}, status: 200, reached: true},
		{name: "same-origin POST from an old browser", method: "POST", path: "/api/auth/login",
			headers: map[string]string{"Origin": "https://" + apiHost}, status: 200, reached: true},
		{name: "no Origin (non-browser client)", method: "POST", path: "/api/auth/login", status: 200, reached: true},
		{name: "payment webhook is exempt", method: "POST", path: "/api/billing/webhook", headers: cross(otherOrigin),
			status: 200, reached: true},
		{name: "webhook path with another method is not exempt", method: "PUT", path: "/api/billing/webhook",
			headers: cross(otherOrigin), status: 403, code: "CSRF_REJECTED"},
		{name: "preflight from listed origin", method: "OPTIONS", path: "/api/positions/1",
			headers: map[string]string{"Origin": webOrigin, "Access-Control-Request-Method": "PATCH",
				"Access-Control-Request-Headers": "content-type,x-request-id"},
			status: 204, allowFrom: webOrigin},
		{name: "preflight from other origin", method: "OPTIONS", path: "/api/positions/1",
			headers: map[string]string{"Origin": otherOrigin, "Access-Control-Request-Method": "PATCH"}, status: 204},
	})

	t.Run("preflight answer", func(t *testing.T) {
		req := httptest.NewRequest("OPTIONS", "http://"+apiHost+"/api/calculator", nil)
		req.Header.Set("Origin", webOrigin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		for k, v := range map[string]string{
			"Access-Control-Allow-Methods": "GET, POST, PUT, PATCH, DELETE",
			"Access-Control-Allow-Headers": "Content-Type, X-Request-Id",
			"Vary":                         "Origin",
		} {
			if got := w.Header().Get(k); got != v {
				t.Errorf("%s %q, want %q", k, got, v)
			}
		}
		if *route != "unmatched" {
			t.Errorf("preflight route label %q, want unmatched", *route)
		}
	})

	t.Run("Vary on every answer", func(t *testing.T) {
		for _, o := range []string{"", webOrigin, otherOrigin} {
			req := httptest.NewRequest("GET", "http://"+apiHost+"/api/health", nil)
			if o != "" {
				req.Header.Set("Origin", o)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if got := w.Header().Values("Vary"); len(got) != 1 || got[0] != "Origin" {
				t.Errorf("origin %q: Vary %q", o, got)
			}
		}
	})

	t.Run("exposes the headers a client acts on", func(t *testing.T) {
		req := httptest.NewRequest("GET", "http://"+apiHost+"/api/health", nil)
		req.Header.Set("Origin", webOrigin)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if got := w.Header().Get("Access-Control-Expose-Headers"); got != "X-Request-Id, Retry-After" {
			t.Errorf("Expose-Headers %q", got)
		}
	})
}

func TestCORSRejectsMalformedOrigin(t *testing.T) {
	if _, err := httpx.CORS([]string{"https://app.example.com/path"}); err == nil {
		t.Fatal("an origin with a path was accepted")
	}
}

// TestSplitOriginModes runs both modes through the real App: unset, no
// Access-Control-* header ever and no anti-CSRF check; set, the documented
// answers.
func TestSplitOriginModes(t *testing.T) {
	requests := func(base string) []*http.Request {
		var out []*http.Request
		for _, o := range []string{"", webOrigin, otherOrigin} {
			for _, m := range []struct{ method, path string }{
				{"GET", "/api/health"}, {"GET", "/api/auth/me"}, {"POST", "/api/auth/login"}, {"OPTIONS", "/api/auth/login"},
				{"GET", "/no/such/path"},
			} {
				req, _ := http.NewRequest(m.method, base+m.path, strings.NewReader(`{"email":"a@example.com","password":"wrong password"}`))
				req.Header.Set("Content-Type", "application/json")
				if o != "" {
					req.Header.Set("Origin", o)
					req.Header.Set("Sec-Fetch-Site", "cross-site")
					req.Header.Set("Access-Control-Request-Method", "POST")
				}
				out = append(out, req)
			}
		}
		return out
	}

	t.Run("unset", func(t *testing.T) {
		s := apitest.Start(t, apitest.Config(t), functions.All)
		c := s.Client(t)
		for _, req := range requests(s.URL) {
			r := c.Send(req)
			for k := range r.Header {
				if strings.HasPrefix(k, "Access-Control-") {
					t.Errorf("%s %s (Origin %q): %s: %q", req.Method, req.URL.Path, req.Header.Get("Origin"), k, r.Header.Get(k))
				}
			}
			if r.ErrorCode() == "CSRF_REJECTED" {
				t.Errorf("%s %s: anti-CSRF check without split-origin mode", req.Method, req.URL.Path)
			}
		}
	})

	t.Run("set", func(t *testing.T) {
		cfg := apitest.Config(t)
		cfg.CORS.AllowedOrigins = []string{webOrigin}
		s := apitest.Start(t, cfg, functions.All)
		c := s.Client(t)
		login := func(origin string) apitest.Response {
			req := c.NewRequest("POST", "/api/auth/login", `{"email":"a@example.com","password":"wrong password"}`)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Origin", origin)
			req.Header.Set("Sec-Fetch-Site", "cross-site")
			return c.Send(req)
		}
		r := login(webOrigin)
		if r.Status != http.StatusUnauthorized || r.Header.Get("Access-Control-Allow-Origin") != webOrigin ||
			r.Header.Get("Access-Control-Allow-Credentials") != "true" {
			t.Fatalf("listed origin: %d %v %s", r.Status, r.Header, r.Body)
		}
		r = login(otherOrigin)
		if r.Status != http.StatusForbidden || r.ErrorCode() != "CSRF_REJECTED" || r.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Fatalf("other origin: %d %v %s", r.Status, r.Header, r.Body)
		}
		apitest.CheckErrorShape(t, r)
	})
}
