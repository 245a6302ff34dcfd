package metrics

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"tradejournal/shared/benchcpu"
	"tradejournal/shared/db"
	"tradejournal/shared/db/dbtest"
	"tradejournal/shared/httpx"
	"tradejournal/shared/testbin"
)

// newMetrics builds Metrics on pool with a JSON log captured in the
// returned buffer.
func newMetrics(tb testing.TB, pool *pgxpool.Pool) (*Metrics, *testbin.SyncBuffer) {
	tb.Helper()
	logs := &testbin.SyncBuffer{}
	m, err := New(Options{Pool: pool, AppVersion: "v9.9.9-abc123", PoolMax: 7,
		Log: slog.New(slog.NewJSONHandler(logs, nil))})
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	return m, logs
}

// deadPool is a pool whose server is not running: a port that was just
// free, so connecting is refused at once.
func deadPool(tb testing.TB) *pgxpool.Pool {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	pool, err := db.Open(context.Background(), "postgres://nobody@"+addr+"/nothing?sslmode=disable&connect_timeout=2", db.Options{PoolSize: 2})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(pool.Close)
	return pool
}

// parse reads a text exposition the way a scraper does.
func parse(tb testing.TB, body []byte) map[string]*dto.MetricFamily {
	tb.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		tb.Fatalf("parse exposition: %v\n%s", err, body)
	}
	return fams
}

// ParseExposition is parse for the external tests of this directory.
func ParseExposition(tb testing.TB, body []byte) map[string]*dto.MetricFamily { return parse(tb, body) }

// SeriesCount counts time series as Prometheus stores them: one per counter
// or gauge sample; a histogram's buckets (with +Inf), _sum and _count; a
// summary's quantiles, _sum and _count.
func SeriesCount(fams map[string]*dto.MetricFamily) int {
	n := 0
	for _, f := range fams {
		for _, m := range f.GetMetric() {
			switch f.GetType() {
			case dto.MetricType_HISTOGRAM:
				b := m.GetHistogram().GetBucket()
				n += len(b) + 2
				if len(b) == 0 || !math.IsInf(b[len(b)-1].GetUpperBound(), 1) {
					n++
				}
			case dto.MetricType_SUMMARY:
				n += len(m.GetSummary().GetQuantile()) + 2
			default:
				n++
			}
		}
	}
	return n
}

// scrape GETs url and returns the response with its body read.
func scrape(tb testing.TB, url string) (*http.Response, []byte) {
	tb.Helper()
	res, err := http.Get(url)
	if err != nil {
		tb.Fatalf("GET %s: %v", url, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return res, body
}

func labels(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, lp := range m.GetLabel() {
		out[lp.GetName()] = lp.GetValue()
	}
	return out
}

// find returns the metric of family name whose labels are exactly want.
func find(fams map[string]*dto.MetricFamily, name string, want map[string]string) *dto.Metric {
	for _, m := range fams[name].GetMetric() {
		got := labels(m)
		if len(got) != len(want) {
			continue
		}
		match := true
		for k, v := range want {
			if got[k] != v {
				match = false
			}
		}
		if match {
			return m
		}
	}
	return nil
}

func gaugeValue(t *testing.T, fams map[string]*dto.MetricFamily, name string) float64 {
	t.Helper()
	f := fams[name]
	if f == nil || f.GetType() != dto.MetricType_GAUGE || len(f.GetMetric()) != 1 {
		t.Fatalf("%s: want one gauge sample, got %v", name, f)
	}
	return f.GetMetric()[0].GetGauge().GetValue()
}

// request runs one request through httpx.Serve with m's observer.
func request(m *Metrics, method, route string, status int, delay time.Duration) {
	h := httpx.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.(*httpx.Recorder).Route = route
		time.Sleep(delay)
		w.WriteHeader(status)
	}), slog.New(slog.NewTextHandler(io.Discard, nil)), m.Observe)
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(method, "/anything", nil))
}

func TestExposition(t *testing.T) {
	m, logs := newMetrics(t, dbtest.New(t))
	request(m, "GET", "/api/positions/:positionId", 200, 0)
	request(m, "GET", "/api/positions/:positionId", 200, 0)
	request(m, "GET", "/api/positions/:positionId", 404, 0)
	request(m, "POST", "/api/auth/register", 201, 30*time.Millisecond)
	request(m, "DELETE", "unmatched", 404, 0)
	httpx.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.(*httpx.Recorder).Route = "/api/users/me/timezone"
		w.WriteHeader(http.StatusOK)
		time.Sleep(60 * time.Millisecond) // after the headers: not latency
	}), slog.New(slog.NewTextHandler(io.Discard, nil)), m.Observe).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("PUT", "/x", nil))
	request(m, "HEAD", "/api/health", 200, 0)   // not a recorded method
	request(m, "OPTIONS", "unmatched", 204, 0)  // not a recorded method
	request(m, "PROPFIND", "unmatched", 404, 0) // not a recorded method

	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	res, body := scrape(t, srv.URL+"/metrics")
	if res.StatusCode != 200 {
		t.Fatalf("status %d", res.StatusCode)
	}
	fams := parse(t, body)

	t.Run("types", func(t *testing.T) {
		want := map[string]dto.MetricType{
			"service_build_info":                    dto.MetricType_GAUGE,
			"service_http_requests_total":           dto.MetricType_COUNTER,
			"service_http_request_duration_seconds": dto.MetricType_HISTOGRAM,
			"service_db_up":                         dto.MetricType_GAUGE,
			"service_db_probe_duration_seconds":     dto.MetricType_GAUGE,
			"service_db_connections":                dto.MetricType_GAUGE,
			"service_db_pool_max":                   dto.MetricType_GAUGE,
			"process_cpu_seconds_total":             dto.MetricType_COUNTER,
			"process_resident_memory_bytes":         dto.MetricType_GAUGE,
			"process_open_fds":                      dto.MetricType_GAUGE,
			"process_start_time_seconds":            dto.MetricType_GAUGE,
			"go_goroutines":                         dto.MetricType_GAUGE,
			"go_gc_duration_seconds":                dto.MetricType_SUMMARY,
			"go_memstats_heap_alloc_bytes":          dto.MetricType_GAUGE,
			"go_info":                               dto.MetricType_GAUGE,
		}
		for name, typ := range want {
			if f := fams[name]; f == nil || f.GetType() != typ {
				t.Errorf("%s: want a %v family, got %v", name, typ, f)
			}
		}
		for name := range fams {
			if !strings.HasPrefix(name, "service_") && !strings.HasPrefix(name, "process_") && !strings.HasPrefix(name, "go_") {
				t.Errorf("unexpected family %s", name)
			}
		}
	})

	t.Run("build info", func(t *testing.T) {
		if f := find(fams, "service_build_info", map[string]string{"version": "v9.9.9-abc123", "commit": "abc123"}); f == nil || f.GetGauge().GetValue() != 1 {
			t.Fatalf("service_build_info: %v", fams["service_build_info"])
		}
		if v := gaugeValue(t, fams, "service_db_pool_max"); v != 7 {
			t.Fatalf("service_db_pool_max %v, want 7", v)
		}
	})

	t.Run("requests", func(t *testing.T) {
		want := []struct {
			method, route, status string
			n                     float64
		}{
			{"GET", "/api/positions/:positionId", "200", 2},
			{"GET", "/api/positions/:positionId", "404", 1},
			{"POST", "/api/auth/register", "201", 1},
			{"DELETE", "unmatched", "404", 1},
			{"PUT", "/api/users/me/timezone", "200", 1},
		}
		if got := len(fams["service_http_requests_total"].GetMetric()); got != len(want) {
			t.Errorf("%d request series, want %d (HEAD, OPTIONS and PROPFIND are not recorded)", got, len(want))
		}
		for _, w := range want {
			c := find(fams, "service_http_requests_total", map[string]string{"method": w.method, "route": w.route, "status": w.status})
			if c == nil || c.GetCounter().GetValue() != w.n {
				t.Errorf("%s %s %s: %v, want %v", w.method, w.route, w.status, c, w.n)
			}
		}
	})

	t.Run("duration histogram", func(t *testing.T) {
		f := fams["service_http_request_duration_seconds"]
		if n := len(f.GetMetric()); n != len(methods) {
			t.Errorf("%d histogram series, want one per recorded method (%d)", n, len(methods))
		}
		for _, method := range methods {
			h := find(fams, "service_http_request_duration_seconds", map[string]string{"method": method})
			if h == nil {
				t.Fatalf("no histogram for %s", method)
			}
			var bounds []float64
			for _, b := range h.GetHistogram().GetBucket() {
				bounds = append(bounds, b.GetUpperBound())
			}
			want := append(slices.Clone(DurationBuckets), math.Inf(1))
			if !slices.Equal(bounds, want) {
				t.Errorf("%s buckets %v, want %v", method, bounds, want)
			}
		}
		get := find(fams, "service_http_request_duration_seconds", map[string]string{"method": "GET"}).GetHistogram()
		if get.GetSampleCount() != 3 {
			t.Errorf("GET count %d, want 3", get.GetSampleCount())
		}
		post := find(fams, "service_http_request_duration_seconds", map[string]string{"method": "POST"}).GetHistogram()
		if post.GetSampleCount() != 1 || post.GetSampleSum() < 0.03 {
			t.Errorf("POST count %d sum %v, want 1 sample of at least 30 ms", post.GetSampleCount(), post.GetSampleSum())
		}
		// The 30 ms request lies above every bound up to 25 ms, and (with
		// any slack a loaded machine adds) within the 10 s one.
		for _, b := range post.GetBucket() {
			switch le := b.GetUpperBound(); {
			case le <= 0.025 && b.GetCumulativeCount() != 0:
				t.Errorf("POST bucket le=%v holds %d, want 0", le, b.GetCumulativeCount())
			case le >= 10 && b.GetCumulativeCount() != 1:
				t.Errorf("POST bucket le=%v holds %d, want 1", le, b.GetCumulativeCount())
			}
		}
		// Latency ends when the headers went out, not when the handler
		// returned: PUT wrote its headers, then worked 60 ms more.
		put := find(fams, "service_http_request_duration_seconds", map[string]string{"method": "PUT"}).GetHistogram()
		if put.GetSampleCount() != 1 || put.GetSampleSum() >= 0.05 {
			t.Errorf("PUT count %d sum %v, want 1 sample under 50 ms", put.GetSampleCount(), put.GetSampleSum())
		}
	})

	t.Run("database", func(t *testing.T) {
		if v := gaugeValue(t, fams, "service_db_up"); v != 1 {
			t.Fatalf("service_db_up %v, want 1; logs: %s", v, logs)
		}
		if v := gaugeValue(t, fams, "service_db_probe_duration_seconds"); v <= 0 || v > 5 {
			t.Fatalf("service_db_probe_duration_seconds %v", v)
		}
		conns := fams["service_db_connections"]
		var states []string
		for _, c := range conns.GetMetric() {
			states = append(states, labels(c)["state"])
		}
		slices.Sort(states)
		if !slices.Equal(states, []string{"active", "idle", "idle_in_transaction"}) {
			t.Fatalf("states %v", states)
		}
		// The probe's own backend is active while it reads the view.
		if a := find(fams, "service_db_connections", map[string]string{"state": "active"}); a.GetGauge().GetValue() < 1 {
			t.Fatalf("active connections %v, want at least the probe's", a.GetGauge().GetValue())
		}
	})
}

func TestStateMapping(t *testing.T) {
	s := func(v string) *string { return &v }
	tests := []struct {
		in   *string
		want int
	}{
		{s("active"), 0},
		{s("idle"), 1},
		{s("idle in transaction"), 2},
		{s("idle in transaction (aborted)"), 2},
		{s("fastpath function call"), -1},
		{s("disabled"), -1},
		{s("starting"), -1},
		{nil, -1},
	}
	for _, tt := range tests {
		if got := stateIndex(tt.in); got != tt.want {
			t.Errorf("stateIndex(%v) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestListener(t *testing.T) {
	m, _ := newMetrics(t, deadPool(t))
	l := m.Listen("127.0.0.1:0")
	if l == nil {
		t.Fatal("Listen failed on a free port")
	}
	base := "http://" + l.Addr().String()

	t.Run("content type byte for byte", func(t *testing.T) {
		res, body := scrape(t, base+"/metrics")
		if res.StatusCode != 200 {
			t.Fatalf("status %d", res.StatusCode)
		}
		if got := res.Header.Values("Content-Type"); len(got) != 1 || got[0] != "text/plain; version=0.0.4; charset=utf-8" {
			t.Fatalf("Content-Type %q", got)
		}
		parse(t, body)
	})

	t.Run("OpenMetrics is never negotiated", func(t *testing.T) {
		req, _ := http.NewRequest("GET", base+"/metrics", nil)
		req.Header.Set("Accept", "application/openmetrics-text; version=1.0.0; charset=utf-8,text/plain;q=0.5")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if got := res.Header.Get("Content-Type"); got != ContentType {
			t.Fatalf("Content-Type %q", got)
		}
	})

	t.Run("everything else is 404", func(t *testing.T) {
		for _, tc := range []struct{ method, path string }{
			{"GET", "/"}, {"GET", "/metrics/"}, {"GET", "/metricsx"}, {"GET", "/api/health"},
			{"GET", "/api/auth/me"}, {"POST", "/api/auth/register"}, {"POST", "/metrics"},
			{"PUT", "/metrics"}, {"DELETE", "/metrics"}, {"PATCH", "/metrics"}, {"HEAD", "/metrics"},
			{"OPTIONS", "/metrics"},
		} {
			req, _ := http.NewRequest(tc.method, base+tc.path, nil)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != 404 {
				t.Errorf("%s %s: %d, want 404", tc.method, tc.path, res.StatusCode)
			}
		}
	})

	t.Run("shutdown closes it", func(t *testing.T) {
		if err := l.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		if c, err := net.DialTimeout("tcp", l.Addr().String(), time.Second); err == nil {
			c.Close()
			t.Fatal("still accepting after Shutdown")
		}
	})
}

func TestListenPortInUse(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	m, logs := newMetrics(t, deadPool(t))
	if l := m.Listen(busy.Addr().String()); l != nil {
		t.Fatal("Listen succeeded on a port in use")
	}
	if !strings.Contains(logs.String(), `"level":"ERROR"`) || !strings.Contains(logs.String(), busy.Addr().String()) {
		t.Fatalf("want an error log naming the address, got: %s", logs)
	}
	var nilListener *Listener
	if err := nilListener.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown of a listener that never opened: %v", err)
	}
}

// checkFailedProbe asserts what a failed probe publishes: db_up 0, a
// duration, no connection series, and still a 200.
func checkFailedProbe(t *testing.T, m *Metrics) float64 {
	t.Helper()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	res, body := scrape(t, srv.URL+"/metrics")
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != ContentType {
		t.Fatalf("status %d, content type %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
	fams := parse(t, body)
	if v := gaugeValue(t, fams, "service_db_up"); v != 0 {
		t.Fatalf("service_db_up %v, want 0", v)
	}
	if _, ok := fams["service_db_connections"]; ok {
		t.Fatalf("a failed probe published connection series: %v", fams["service_db_connections"])
	}
	if fams["service_build_info"] == nil || fams["go_goroutines"] == nil {
		t.Fatal("a failed probe took other families with it")
	}
	return gaugeValue(t, fams, "service_db_probe_duration_seconds")
}

func TestProbeDatabaseStopped(t *testing.T) {
	m, logs := newMetrics(t, deadPool(t))
	if d := checkFailedProbe(t, m); d <= 0 || d > 5 {
		t.Fatalf("probe duration %v", d)
	}
	if !strings.Contains(logs.String(), "database probe failed") {
		t.Fatalf("probe failure not logged: %s", logs)
	}
}

func TestProbeStatementTimeout(t *testing.T) {
	m, _ := newMetrics(t, dbtest.New(t))
	m.db.ping = "SELECT 1 FROM pg_sleep(2)" // outlasts the 1 s statement timeout
	d := checkFailedProbe(t, m)
	if d < 1 || d >= 2 {
		t.Fatalf("probe duration %v s: want the 1 s server timeout to cut the 2 s query", d)
	}
}

// TestProbeClientDeadline: a database that accepts the connection and never
// answers (a hung server, a black-holed network) is cut off by the client
// deadline, and the scrape still answers.
func TestProbeClientDeadline(t *testing.T) {
	hung, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer hung.Close()
	go func() {
		var held []net.Conn // read nothing, answer nothing, until the listener closes
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := hung.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	// No connect_timeout: only the probe's own deadline can end the wait.
	pool, err := db.Open(context.Background(), "postgres://nobody@"+hung.Addr().String()+"/nothing?sslmode=disable", db.Options{PoolSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	m, _ := newMetrics(t, pool)
	m.db.deadline = 300 * time.Millisecond

	done := make(chan float64, 1)
	go func() { done <- checkFailedProbe(t, m) }()
	select {
	case d := <-done:
		if d < 0.3 || d > 2 {
			t.Fatalf("probe duration %v s, want about the 0.3 s deadline", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the scrape hung on an unanswering database")
	}
}

func TestConcurrentScrapesShareOneProbe(t *testing.T) {
	pool := dbtest.New(t)
	m, _ := newMetrics(t, pool)
	// Long enough to count from outside, well inside the 1 s timeout.
	m.db.ping = "SELECT 1 FROM pg_sleep(0.8)"
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()

	monitor, err := pgx.Connect(context.Background(), pool.Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer monitor.Close(context.Background())

	const scrapes = 10
	var (
		wg     sync.WaitGroup
		ready  sync.WaitGroup
		start  = make(chan struct{})
		bodies = make([][]byte, scrapes)
	)
	ready.Add(scrapes)
	for i := range scrapes {
		wg.Go(func() {
			ready.Done()
			<-start
			res, err := http.Get(srv.URL + "/metrics")
			if err != nil {
				t.Errorf("scrape %d: %v", i, err)
				return
			}
			defer res.Body.Close()
			if res.StatusCode != 200 {
				t.Errorf("scrape %d: status %d", i, res.StatusCode)
			}
			bodies[i], _ = io.ReadAll(res.Body)
		})
	}
	ready.Wait()
	close(start)
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()

	maxSeen, polls := 0, 0
	const count = `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`
poll:
	for {
		select {
		case <-finished:
			break poll
		default:
		}
		var n int
		if err := monitor.QueryRow(context.Background(), count, ProbeApplicationName).Scan(&n); err != nil {
			t.Fatal(err)
		}
		maxSeen = max(maxSeen, n)
		polls++
		time.Sleep(10 * time.Millisecond)
	}
	if t.Failed() {
		return
	}
	if maxSeen != 1 {
		t.Fatalf("saw at most %d probe connections over %d polls, want exactly 1", maxSeen, polls)
	}

	// Every scrape published the one probe's measurements.
	var durations []float64
	for _, b := range bodies {
		fams := parse(t, b)
		if v := gaugeValue(t, fams, "service_db_up"); v != 1 {
			t.Fatalf("service_db_up %v", v)
		}
		durations = append(durations, gaugeValue(t, fams, "service_db_probe_duration_seconds"))
	}
	for _, d := range durations {
		if d != durations[0] || d < 0.8 {
			t.Fatalf("probe durations differ or are short: %v", durations)
		}
	}
}

// failingCollector makes Gather fail.
type failingCollector struct{ desc *prometheus.Desc }

func (c failingCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }
func (c failingCollector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.NewInvalidMetric(c.desc, errors.New("broken collector"))
}

func TestSerialisationFailure(t *testing.T) {
	check := func(t *testing.T, m *Metrics, logs *testbin.SyncBuffer) {
		t.Helper()
		srv := httptest.NewServer(m.Handler())
		defer srv.Close()
		res, body := scrape(t, srv.URL+"/metrics")
		if res.StatusCode != 200 || len(body) != 0 || res.Header.Get("Content-Type") != ContentType {
			t.Fatalf("status %d, content type %q, body %d bytes; want 200, %q, empty",
				res.StatusCode, res.Header.Get("Content-Type"), len(body), ContentType)
		}
		if !strings.Contains(logs.String(), `"level":"ERROR"`) {
			t.Fatalf("not logged at error: %s", logs)
		}
	}
	t.Run("encoding", func(t *testing.T) {
		m, logs := newMetrics(t, deadPool(t))
		m.encode = func(w io.Writer, mf *dto.MetricFamily) (int, error) {
			if mf.GetName() == "service_db_up" {
				return 0, errors.New("disk full")
			}
			return expfmt.MetricFamilyToText(w, mf)
		}
		check(t, m, logs)
	})
	t.Run("gathering", func(t *testing.T) {
		m, logs := newMetrics(t, deadPool(t))
		m.reg.MustRegister(failingCollector{prometheus.NewDesc("service_broken", "broken", nil, nil)})
		check(t, m, logs)
	})
}

func TestObserverFailureCostsOneSample(t *testing.T) {
	m, logs := newMetrics(t, deadPool(t))
	h := httpx.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.(*httpx.Recorder).Route = "bad\xff" // not valid UTF-8: the label is refused
		w.Header().Set("X-Kept", "yes")
		httpx.JSON(w, http.StatusTeapot, map[string]string{"ok": "kept"})
	}), slog.New(slog.NewJSONHandler(logs, nil)), m.Observe)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/x", nil))
	if w.Code != http.StatusTeapot || w.Header().Get("X-Kept") != "yes" || !strings.Contains(w.Body.String(), `"kept"`) {
		t.Fatalf("response changed: %d %v %s", w.Code, w.Header(), w.Body)
	}
	if !strings.Contains(logs.String(), `"level":"WARN"`) || !strings.Contains(logs.String(), "sample dropped") {
		t.Fatalf("no warning: %s", logs)
	}
	if n := requestSeries(t, m); n != 0 {
		t.Fatalf("a refused label made %d series", n)
	}

	// A panic inside the observer is contained the same way.
	m.Observe(httptest.NewRequest("GET", "/x", nil), nil, time.Now())
	if n := strings.Count(logs.String(), "sample dropped"); n != 2 {
		t.Fatalf("%d warnings, want 2: %s", n, logs)
	}

	// The next good request is recorded.
	request(m, "GET", "/ok", 200, 0)
	if n := requestSeries(t, m); n != 1 {
		t.Fatalf("the observer stopped recording: %d series", n)
	}
}

// requestSeries is how many service_http_requests_total series m holds.
func requestSeries(t *testing.T, m *Metrics) int {
	t.Helper()
	families, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == "service_http_requests_total" {
			return len(f.GetMetric())
		}
	}
	return 0
}

// BenchmarkObserve is the per-request cost of the metrics middleware on a
// warm series: target under 1 µs and 0 allocs/op.
func BenchmarkObserve(b *testing.B) {
	m, _ := newMetrics(b, deadPool(b))
	r := httptest.NewRequest("GET", "/api/positions/123", nil)
	start := time.Now()
	rec := &httpx.Recorder{Status: 200, Route: "/api/positions/:positionId", HeaderAt: start.Add(3 * time.Millisecond)}
	m.Observe(r, rec, start)
	b.ReportAllocs()
	stop := benchcpu.Start(b)
	for b.Loop() {
		m.Observe(r, rec, start)
	}
	stop()
}

// BenchmarkMiddleware is the whole outer middleware (httpx.Serve) around a
// handler that only sets its route and status, without metrics (off: what
// every request pays anyway) and with them (on). The metrics' cost per
// request is on minus off; its allocations are on's minus off's.
//
//	go test -run '^$' -bench 'Middleware|Observe' -benchmem ./shared/metrics/
func BenchmarkMiddleware(b *testing.B) {
	m, _ := newMetrics(b, deadPool(b))
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.(*httpx.Recorder).Route = "/api/positions/:positionId"
		w.WriteHeader(http.StatusOK)
	})
	log := slog.New(slog.DiscardHandler)
	for _, c := range []struct {
		name    string
		observe httpx.Observer
	}{{"off", nil}, {"on", m.Observe}} {
		b.Run(c.name, func(b *testing.B) {
			h := httpx.Serve(handler, log, c.observe)
			r := httptest.NewRequest("GET", "/api/positions/123", nil)
			r.Header.Set("X-Request-Id", "bench-request-id")
			w := &discardWriter{h: http.Header{}}
			h.ServeHTTP(w, r)
			b.ReportAllocs()
			stop := benchcpu.Start(b)
			for b.Loop() {
				clear(w.h)
				h.ServeHTTP(w, r)
			}
			stop()
		})
	}
}

// discardWriter is a ResponseWriter that keeps nothing, so the benchmark
// measures the middleware rather than httptest.ResponseRecorder.
type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *discardWriter) WriteHeader(int)             {}

// BenchmarkObserveParallel is the same under contention from every CPU.
func BenchmarkObserveParallel(b *testing.B) {
	m, _ := newMetrics(b, deadPool(b))
	start := time.Now()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		r := httptest.NewRequest("POST", "/api/calculator", nil)
		rec := &httpx.Recorder{Status: 200, Route: "/api/calculator", HeaderAt: start.Add(time.Millisecond)}
		for pb.Next() {
			m.Observe(r, rec, start)
		}
	})
}

// withRequestSeries records one request on each of n request series
// (n/4 routes with 4 statuses each).
func withRequestSeries(m *Metrics, n int) {
	r := httptest.NewRequest("GET", "/x", nil)
	start := time.Now()
	rec := &httpx.Recorder{HeaderAt: start.Add(time.Millisecond)}
	for i := range n {
		rec.Route, rec.Status = fmt.Sprintf("/api/bench/route%d", i/4), 200+i%4
		m.Observe(r, rec, start)
	}
}

// BenchmarkScrape is one whole scrape (probe against the real database,
// gather, encode, HTTP) with 1,000 request series: target under 5 ms.
func BenchmarkScrape(b *testing.B) {
	m, _ := newMetrics(b, dbtest.New(b))
	withRequestSeries(m, 1000)
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	_, body := scrape(b, srv.URL+"/metrics")
	series := SeriesCount(parse(b, body))
	stop := benchcpu.Start(b) // the test server's and the client's CPU; PostgreSQL's is not counted
	for b.Loop() {
		res, err := http.Get(srv.URL + "/metrics")
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			b.Fatal(res.StatusCode)
		}
	}
	stop()
	b.ReportMetric(float64(series), "series")
}

// BenchmarkSerialise is the text encoding alone of the families one scrape
// gathered, 1,000 request series among them.
func BenchmarkSerialise(b *testing.B) {
	m, _ := newMetrics(b, dbtest.New(b))
	withRequestSeries(m, 1000)
	families, err := m.reg.Gather()
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	for _, mf := range families {
		if _, err := m.encode(&buf, mf); err != nil {
			b.Fatal(err)
		}
	}
	series := SeriesCount(parse(b, buf.Bytes()))
	b.ReportAllocs()
	stop := benchcpu.Start(b)
	for b.Loop() {
		buf.Reset()
		for _, mf := range families {
			if _, err := m.encode(&buf, mf); err != nil {
				b.Fatal(err)
			}
		}
	}
	stop()
	b.ReportMetric(float64(series), "series")
}
