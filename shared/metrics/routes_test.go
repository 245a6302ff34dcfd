package metrics_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/httpx"
	"tradejournal/shared/metrics"
)

// withMetrics is a default configuration with the metrics armed.
func withMetrics(t *testing.T) apitest.Server {
	t.Helper()
	cfg := apitest.Config(t)
	cfg.Metrics.Enabled = true
	return *apitest.Start(t, cfg, functions.All)
}

// thingsGroup is a tiny route group whose one route answers 404, as a
// route does for a record that does not exist.
var thingsGroup = httpx.Group{
	Name:   "things",
	Mounts: []string{"/api/things/"},
	Routes: []httpx.Route{{Pattern: "GET /api/things/{thingId}", Handler: httpx.NotFound}},
}

// serveWithThings serves every real group plus thingsGroup through the App's
// one middleware chain, as cmd/local does.
func serveWithThings(t *testing.T, s apitest.Server) *apitest.Server {
	t.Helper()
	srv := httptest.NewServer(s.App.Serve(httpx.Mux(append(functions.All(s.App), thingsGroup), nil)))
	t.Cleanup(srv.Close)
	return &apitest.Server{Server: srv, App: s.App, Metrics: s.Metrics}
}

// requestCounts returns service_http_requests_total as "METHOD route status" -> count.
func requestCounts(t *testing.T, m *metrics.Metrics) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, s := range metrics.ParseExposition(t, m.Exposition())["service_http_requests_total"].GetMetric() {
		l := map[string]string{}
		for _, lp := range s.GetLabel() {
			l[lp.GetName()] = lp.GetValue()
		}
		out[l["method"]+" "+l["route"]+" "+l["status"]] = s.GetCounter().GetValue()
	}
	return out
}

func TestMetricsOff(t *testing.T) {
	s := apitest.Start(t, apitest.Config(t), functions.All)
	if s.Metrics != nil {
		t.Fatal("METRICS_ENABLED unset built the metrics")
	}
	r := s.Client(t).Do("GET", "/api/health", nil)
	if r.Status != http.StatusOK {
		t.Fatalf("health %d", r.Status)
	}
}

func TestRouteClasses(t *testing.T) {
	s := serveWithThings(t, withMetrics(t))
	signedIn := s.Client(t)
	signedIn.Register("metrics-routes@example.com", "correct horse battery")
	anon := s.Client(t)

	steps := []struct {
		name   string
		c      *apitest.Client
		method string
		path   string
		status int
	}{
		{"real route", signedIn, "GET", "/api/auth/me", 200},
		{"per-route authentication keeps the pattern", anon, "GET", "/api/auth/me", 401},
		{"matched route answering 404 keeps its pattern", anon, "GET", "/api/things/does-not-exist", 404},
		{"group guard, unauthenticated", anon, "GET", "/api/admin/users", 401},
		{"group guard, not an admin", signedIn, "GET", "/api/admin/users?limit=5", 403},
		{"unknown path", anon, "GET", "/no/such/path", 404},
		{"inside a mount but no route", anon, "GET", "/api/auth/no-such-route", 404},
		{"method not recorded", anon, "HEAD", "/api/health", 200},
	}
	for _, st := range steps {
		if r := st.c.Do(st.method, st.path, nil); r.Status != st.status {
			t.Fatalf("%s: %s %s gave %d, want %d: %s", st.name, st.method, st.path, r.Status, st.status, r.Body)
		}
	}

	got := requestCounts(t, s.Metrics)
	want := map[string]float64{
		"POST /api/auth/register 201":        1,
		"GET /api/auth/me 200":               1,
		"GET /api/auth/me 401":               1,
		"GET /api/things/:thingId 404":       1,
		"GET /api/admin/* 401":               1,
		"GET /api/admin/* 403":               1,
		"GET unmatched 404":                  2,
		"GET /api/admin/users 401":           0, // the guard answered: never the route's own pattern
		"HEAD /api/health 200":               0,
		"GET /api/things/does-not-exist 404": 0,
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s: %v, want %v", k, got[k], n)
		}
	}
	if len(got) != 7 {
		t.Errorf("series %v, want exactly the 7 expected", got)
	}
}

func TestRouteClassSplitOriginRejection(t *testing.T) {
	cfg := apitest.Config(t)
	cfg.Metrics.Enabled = true
	cfg.CORS.AllowedOrigins = []string{"https://app.example.com"}
	s := apitest.Start(t, cfg, functions.All)
	c := s.Client(t)

	for _, fetchSite := range []string{"cross-site", ""} {
		req := c.NewRequest("POST", "/api/auth/register", `{"email":"x@example.com","password":"correct horse battery"}`)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", "https://evil.example.com")
		if fetchSite != "" {
			req.Header.Set("Sec-Fetch-Site", fetchSite)
		}
		r := c.Send(req)
		if r.Status != http.StatusForbidden || r.ErrorCode() != "CSRF_REJECTED" {
			t.Fatalf("cross-origin POST (Sec-Fetch-Site %q): %d %s", fetchSite, r.Status, r.Body)
		}
		apitest.CheckErrorShape(t, r)
	}
	got := requestCounts(t, s.Metrics)
	if got["POST unmatched 403"] != 2 || len(got) != 1 {
		t.Fatalf("series %v, want only POST unmatched 403 = 2", got)
	}
}

// TestSeriesBudget drives 10,000 requests with random paths, ids and
// methods through the real router: the series count stays flat and under
// the 2,000 budget, and no path segment or id reaches a label.
func TestSeriesBudget(t *testing.T) {
	s := withMetrics(t)
	h := s.App.Serve(httpx.Mux(append(functions.All(s.App), thingsGroup), nil))
	rng := rand.New(rand.NewPCG(1, 2))
	methods := []string{"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"}
	token := func() string { return fmt.Sprintf("z%08x", rng.Uint32()) }
	paths := []func() string{
		func() string { return "/api/things/" + token() },
		func() string { return "/api/admin/users/" + token() },
		func() string { return "/api/admin/" + token() },
		func() string { return "/api/auth/" + token() },
		func() string { return "/api/users/" + token() + "/" + token() },
		func() string { return "/api/positions/" + token() },
		func() string { return "/" + token() },
		func() string { return "/api/health?x=" + token() },
		func() string { return "/api/calculator/" + token() },
	}
	var tokens []string
	drive := func(n int) {
		for range n {
			p := paths[rng.IntN(len(paths))]()
			if len(tokens) < 50 {
				tokens = append(tokens, p)
			}
			req := httptest.NewRequest(methods[rng.IntN(len(methods))], p, nil)
			h.ServeHTTP(httptest.NewRecorder(), req)
		}
	}
	count := func() (int, []byte) {
		body := s.Metrics.Exposition()
		return metrics.SeriesCount(metrics.ParseExposition(t, body)), body
	}

	drive(2000)
	after2k, _ := count()
	drive(8000)
	after10k, body := count()
	if after10k != after2k {
		t.Errorf("series grew from %d to %d between 2,000 and 10,000 random requests", after2k, after10k)
	}
	if after10k >= 2000 {
		t.Errorf("%d series, budget is under 2,000", after10k)
	}
	requestSeries := len(metrics.ParseExposition(t, body)["service_http_requests_total"].GetMetric())
	t.Logf("%d series in all, %d request counters", after10k, requestSeries)
	for _, p := range tokens {
		for seg := range strings.SplitSeq(p, "/") {
			if strings.HasPrefix(seg, "z") && strings.Contains(string(body), seg) {
				t.Fatalf("path segment %q reached the exposition", seg)
			}
		}
	}
	// Every route label is one of the three classes: a registered pattern,
	// a mount wildcard, or unmatched.
	known := map[string]bool{"unmatched": true}
	for _, g := range append(functions.All(s.App), thingsGroup) {
		for _, r := range g.Routes {
			known[httpx.RouteLabel(r.Pattern)] = true
		}
		for _, m := range g.Mounts {
			known[httpx.RouteLabel(m)] = true
		}
	}
	for _, s := range metrics.ParseExposition(t, body)["service_http_requests_total"].GetMetric() {
		for _, lp := range s.GetLabel() {
			if lp.GetName() == "route" && !known[lp.GetValue()] {
				t.Errorf("route label %q is not a pattern, a mount wildcard or unmatched", lp.GetValue())
			}
		}
	}
}
