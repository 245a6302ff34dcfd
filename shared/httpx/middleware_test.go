package httpx_test

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"regexp"
	"strings"
	"testing"
	"time"

	"tradejournal/shared/httpx"
)

var generatedID = regexp.MustCompile(`^[0-9a-f]{24}$`)

func TestServePanic(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	var observed int
	h := httpx.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		panic("db password is hunter2")
	}), log, func(r *http.Request, rec *httpx.Recorder, start time.Time) { observed = rec.Status })

	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/api/x", nil))

	if w.Code != 500 || observed != 500 {
		t.Fatalf("status %d, observed %d", w.Code, observed)
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Fatalf("content type %q", ct)
	}
	e := errorJSON(t, w)
	if m, _ := e["message"].(string); m == "" {
		t.Fatalf("no message: %s", w.Body)
	}
	for _, leak := range []string{"hunter2", "password", "goroutine", ".go:", "panic"} {
		if strings.Contains(w.Body.String(), leak) {
			t.Fatalf("body leaks %q: %s", leak, w.Body)
		}
	}
	id := w.Header().Get("X-Request-Id")
	if !generatedID.MatchString(id) {
		t.Fatalf("X-Request-Id %q", id)
	}
	if l := logs.String(); !strings.Contains(l, "hunter2") || !strings.Contains(l, "goroutine") || !strings.Contains(l, id) {
		t.Fatalf("panic, stack and request id not logged: %s", l)
	}
}

func TestServePanicAfterHeaders(t *testing.T) {
	h := httpx.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		httpx.JSON(w, 200, map[string]int{"n": 1})
		panic("late")
	}), slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if w.Code != 200 || w.Body.String() != "{\"n\":1}\n" {
		t.Fatalf("a second body was written after a late panic: %d %q", w.Code, w.Body)
	}
}

func TestServeAbortHandlerPropagates(t *testing.T) {
	h := httpx.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		panic(http.ErrAbortHandler)
	}), slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	defer func() {
		if p := recover(); p != http.ErrAbortHandler {
			t.Fatalf("recovered %v, want http.ErrAbortHandler re-panicked", p)
		}
	}()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
}

// statusWriter remembers whether a status was written at all.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func TestServeWritesAStatus(t *testing.T) {
	// The Lambda adapter turns a response without a status into a 504.
	h := httpx.Serve(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}), slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	w := &statusWriter{ResponseWriter: httptest.NewRecorder()}
	h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if w.status != 200 {
		t.Fatalf("status written %d, want 200", w.status)
	}
}

// TestServeTimesHeadersOnlyWhenObserved: the header timestamp exists for
// the metrics observer; without one (metrics off, every Lambda) it is not
// taken.
func TestServeTimesHeadersOnlyWhenObserved(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	var stamped time.Time
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
		stamped = w.(*httpx.Recorder).HeaderAt
	})

	httpx.Serve(handler, log, nil).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	if !stamped.IsZero() {
		t.Fatalf("HeaderAt %v without an observer", stamped)
	}

	var observedAt time.Time
	observe := func(r *http.Request, rec *httpx.Recorder, start time.Time) { observedAt = rec.HeaderAt }
	before := time.Now()
	httpx.Serve(handler, log, observe).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	if stamped.Before(before) || !observedAt.Equal(stamped) {
		t.Fatalf("HeaderAt %v (observer saw %v), want a time after %v", stamped, observedAt, before)
	}
}

func TestServeRequestID(t *testing.T) {
	var seen string
	h := httpx.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = w.Header().Get("X-Request-Id")
		httpx.NoContent(w)
	}), slog.New(slog.NewTextHandler(io.Discard, nil)), nil)

	for _, tc := range []struct {
		name, in string
		echoed   bool
	}{
		{"Valid", "abc-123_DEF", true},
		{"UUID", "0196f3a0-1b2c-7d3e-8f40-a1b2c3d4e5f6", true},
		{"MaxLength", strings.Repeat("a", 64), true},
		{"Absent", "", false},
		{"TooLong", strings.Repeat("a", 65), false},
		{"Spaces", "abc 123", false},
		{"HeaderInjection", "abc\r\nSet-Cookie: x=1", false},
		{"LogInjection", `abc","level":"ERROR`, false},
		{"NonASCII", "äbc", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			if tc.in != "" {
				r.Header["X-Request-Id"] = []string{tc.in}
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			got := w.Header().Get("X-Request-Id")
			if got != seen {
				t.Fatalf("handler saw %q, response carries %q", seen, got)
			}
			if tc.echoed && got != tc.in {
				t.Fatalf("X-Request-Id %q, want %q echoed", got, tc.in)
			}
			if !tc.echoed && !generatedID.MatchString(got) {
				t.Fatalf("X-Request-Id %q, want a fresh id in place of %q", got, tc.in)
			}
		})
	}
	t.Run("FreshIDsDiffer", func(t *testing.T) {
		a, b := httptest.NewRecorder(), httptest.NewRecorder()
		h.ServeHTTP(a, httptest.NewRequest("GET", "/", nil))
		h.ServeHTTP(b, httptest.NewRequest("GET", "/", nil))
		if a.Header().Get("X-Request-Id") == b.Header().Get("X-Request-Id") {
			t.Fatal("two requests got the same id")
		}
	})
}

// Forwarding headers are believed from loopback and the configured
// proxies only: a peer on a private network is not a proxy by being there.
func TestClientIP(t *testing.T) {
	const trusted = "10.1.2.0/24, 172.18.0.5, web"
	for _, tc := range []struct {
		name, remote, realIP, forwarded, want string
	}{
		{"DirectPublicPeer", "203.0.113.5:4444", "", "", "203.0.113.5"},
		{"PublicPeerCannotForge", "203.0.113.5:4444", "198.51.100.1", "", "203.0.113.5"},
		{"PublicPeerCannotForgeForwardedFor", "203.0.113.5:4444", "", "198.51.100.1", "203.0.113.5"},
		{"LoopbackProxy", "127.0.0.1:4444", "198.51.100.1", "", "198.51.100.1"},
		{"IPv6LoopbackProxy", "[::1]:4444", "198.51.100.1", "", "198.51.100.1"},
		{"ConfiguredRange", "10.1.2.3:4444", "198.51.100.1", "", "198.51.100.1"},
		{"ConfiguredAddress", "172.18.0.5:4444", "198.51.100.1", "", "198.51.100.1"},
		{"ConfiguredHostName", "172.18.0.9:4444", "198.51.100.1", "", "198.51.100.1"},
		{"MappedConfiguredProxy", "[::ffff:10.1.2.4]:4444", "198.51.100.1", "", "198.51.100.1"},
		{"UnconfiguredPrivatePeer", "10.9.9.9:4444", "198.51.100.1", "", "10.9.9.9"},
		{"UnconfiguredPrivatePeer172", "172.18.0.6:4444", "198.51.100.1", "", "172.18.0.6"},
		{"UnconfiguredPrivatePeer192", "192.168.1.1:4444", "198.51.100.1", "", "192.168.1.1"},
		{"LoopbackWithoutHeader", "127.0.0.1:4444", "", "", "127.0.0.1"},
		{"LoopbackBadHeader", "127.0.0.1:4444", "not-an-ip", "", "127.0.0.1"},
		{"LoopbackHeaderList", "127.0.0.1:4444", "198.51.100.1, 10.0.0.1", "", "127.0.0.1"},
		{"ForwardedForLastHop", "127.0.0.1:4444", "", "192.0.2.9, 198.51.100.1", "198.51.100.1"},
		{"RealIPBeforeForwardedFor", "127.0.0.1:4444", "198.51.100.2", "198.51.100.1", "198.51.100.2"},
		{"MappedForwardedUnmapped", "127.0.0.1:4444", "::ffff:198.51.100.1", "", "198.51.100.1"},
		{"IPv6Forwarded", "127.0.0.1:4444", "2001:db8::1", "", "2001:db8::1"},
		{"MappedPeerUnmapped", "[::ffff:203.0.113.5]:4444", "", "", "203.0.113.5"},
		{"NoPort", "203.0.113.5", "198.51.100.1", "", "203.0.113.5"},
		{"NoPortLoopback", "127.0.0.1", "198.51.100.1", "", "198.51.100.1"},
		{"Unparseable", "pipe", "198.51.100.1", "", "pipe"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proxies, err := httpx.ParseProxies(trusted)
			if err != nil {
				t.Fatal(err)
			}
			httpx.SetLookup(proxies, func(host string) []netip.Addr {
				if host == "web" {
					return []netip.Addr{netip.MustParseAddr("172.18.0.9")}
				}
				return nil
			})
			var got string
			h := httpx.Serve(httpx.TrustProxies(proxies, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got = httpx.ClientIP(r)
			})), slog.New(slog.DiscardHandler), nil)
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tc.remote
			if tc.realIP != "" {
				r.Header.Set("X-Real-IP", tc.realIP)
			}
			if tc.forwarded != "" {
				r.Header.Set("X-Forwarded-For", tc.forwarded)
			}
			h.ServeHTTP(httptest.NewRecorder(), r)
			if got != tc.want {
				t.Fatalf("ClientIP = %q, want %q", got, tc.want)
			}
		})
	}
	t.Run("WithoutConfigurationOnlyLoopback", func(t *testing.T) {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = "10.1.2.3:4444"
		r.Header.Set("X-Real-IP", "198.51.100.1")
		if got := httpx.ClientIP(r); got != "10.1.2.3" {
			t.Fatalf("ClientIP = %q", got)
		}
	})
	t.Run("BadEntries", func(t *testing.T) {
		for _, bad := range []string{"10.0.0.0/33", "not a host", "-web", "1.2.3.4/x"} {
			if _, err := httpx.ParseProxies(bad); err == nil {
				t.Errorf("ParseProxies(%q) accepted", bad)
			}
		}
	})
}

func FuzzClientIP(f *testing.F) {
	f.Add("127.0.0.1:1", "198.51.100.1", "")
	f.Add("10.1.2.3:1", "", "a, b,198.51.100.1")
	f.Add("[::1]:1", "::ffff:1.2.3.4", "x")
	f.Add("pipe", "", "")
	proxies, _ := httpx.ParseProxies("10.1.2.0/24")
	f.Fuzz(func(t *testing.T, remote, realIP, forwarded string) {
		var got string
		h := httpx.Serve(httpx.TrustProxies(proxies, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got = httpx.ClientIP(r)
		})), slog.New(slog.DiscardHandler), nil)
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = remote
		r.Header["X-Real-Ip"] = []string{realIP}
		r.Header["X-Forwarded-For"] = []string{forwarded}
		h.ServeHTTP(httptest.NewRecorder(), r)
		peer, err := netip.ParseAddrPort(remote)
		if err != nil || peer.Addr().Unmap().IsLoopback() || proxies == nil {
			return
		}
		if !netip.MustParsePrefix("10.1.2.0/24").Contains(peer.Addr().Unmap()) && got != peer.Addr().Unmap().String() {
			t.Fatalf("untrusted peer %s: ClientIP %q", remote, got)
		}
	})
}

func TestLogger(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	h := httpx.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		httpx.Logger(r.Context()).Info("inside")
		httpx.NoContent(w)
	}), log, nil)
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("X-Request-Id", "trace-me")
	h.ServeHTTP(httptest.NewRecorder(), r)
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if !strings.Contains(line, `"request_id":"trace-me"`) {
			t.Fatalf("log line without the request id: %s", line)
		}
	}
	if httpx.Logger(t.Context()) != slog.Default() {
		t.Fatal("outside a request the default logger is used")
	}
}

// A streamed answer goes out event by event through Serve's Recorder:
// http.NewResponseController reaches the server's Flush through Unwrap, the
// client reads the first event while the handler still runs, and the
// observer gets the status and the moment the headers were flushed.
func TestServeStreamsThroughTheRecorder(t *testing.T) {
	release := make(chan struct{})
	observed := make(chan httpx.Recorder, 1)
	var flushedAt time.Time
	h := httpx.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "data: one\n\n")
		flushedAt = time.Now()
		if err := http.NewResponseController(w).Flush(); err != nil {
			t.Errorf("flush through the recorder: %v", err)
		}
		<-release
		io.WriteString(w, "data: two\n\n")
	}), slog.New(slog.NewTextHandler(io.Discard, nil)), func(_ *http.Request, rec *httpx.Recorder, _ time.Time) {
		observed <- *rec
	})
	srv := httptest.NewServer(h)
	defer srv.Close()

	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	first := make([]byte, len("data: one\n\n"))
	if _, err := io.ReadFull(res.Body, first); err != nil || string(first) != "data: one\n\n" {
		t.Fatalf("first event %q, %v (the handler still runs: it was flushed)", first, err)
	}
	close(release)
	rest, _ := io.ReadAll(res.Body)
	if string(rest) != "data: two\n\n" {
		t.Fatalf("rest %q", rest)
	}
	rec := <-observed
	if rec.Status != http.StatusOK || rec.HeaderAt.IsZero() || rec.HeaderAt.After(flushedAt) {
		t.Fatalf("observed status %d, headers at %v (first flush at %v)", rec.Status, rec.HeaderAt, flushedAt)
	}
}

// BenchmarkServe is the cost Serve adds to a request that logs nothing but
// the access line, at warn (the line is dropped) and at info (JSON to a
// discarding writer).
func BenchmarkServe(b *testing.B) {
	for _, level := range []slog.Level{slog.LevelWarn, slog.LevelInfo} {
		b.Run(level.String(), func(b *testing.B) {
			log := slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: level}))
			h := httpx.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { httpx.NoContent(w) }), log, nil)
			r := httptest.NewRequest("GET", "/api/auth/me", nil)
			w := httptest.NewRecorder()
			b.ReportAllocs()
			for b.Loop() {
				h.ServeHTTP(w, r)
			}
		})
	}
}
