package analytics_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"tradejournal/shared/analytics"
	"tradejournal/shared/analytics/analyticstest"
	"tradejournal/shared/config"
	"tradejournal/shared/testbin"
)

const (
	testKey = "phc_backendKey0123456789abcdef"
	userID  = "0b9c6f1e-5a2d-4c3b-9e8f-7a6b5c4d3e2f"
)

func newClient(t *testing.T, host string, secrets ...string) (*analytics.Client, *testbin.SyncBuffer) {
	t.Helper()
	logs := &testbin.SyncBuffer{}
	c := analytics.New(config.Analytics{APIKey: testKey, Host: host, Environment: "staging"}, analytics.Options{
		Secrets: append([]string{testKey}, secrets...),
		Log:     slog.New(slog.NewJSONHandler(logs, nil)),
	})
	if c == nil {
		t.Fatal("New returned nil with a key set")
	}
	t.Cleanup(func() { _ = c.Close() })
	return c, logs
}

func flush(t *testing.T, c *analytics.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Flush(ctx); err != nil {
		t.Fatalf("Flush: %v", err)
	}
}

func TestRedactor(t *testing.T) {
	r := analytics.NewRedactor([]string{"hunter2-db-password", "xyz"})
	masked := []struct{ name, in, gone string }{
		{"configured secret", "connect failed: password hunter2-db-password rejected", "hunter2-db-password"},
		{"short configured secret as a whole value", "xyz", "xyz"},
		{"payment secret key", "key sk_live_51HabcDEF123", "sk_live_51HabcDEF123"},
		{"webhook secret", "whsec_0a1b2c3d4e", "whsec_0a1b2c3d4e"},
		{"analytics key", "phc_AbCdEf123456", "phc_AbCdEf123456"},
		{"AWS access key id", "AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"},
		{"JWT", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig_nature", "eyJhbGciOiJIUzI1NiJ9"},
		{"random key", "token q8Zr2LmP0vXc7Nw4Ty6Ub1Hs9Kd3Jf5G", "q8Zr2LmP0vXc7Nw4Ty6Ub1Hs9Kd3Jf5G"},
		{"bearer token", "Authorization: Bearer abc.def-ghi", "abc.def-ghi"},
		{"assignment", "dsn?password=opensesame&x=1", "opensesame"},
		{"email", "from Trader.Joe+tag@Example.co.uk today", "Trader.Joe+tag@Example.co.uk"},
		{"upload filename", "imported IBKR_trades_2024.csv", "IBKR_trades_2024.csv"},
		{"upload filename with a path", `C:\Users\joe\Desktop\fills.xlsx`, `joe\Desktop\fills.xlsx`},
		{"image filename", "chart-AAPL.png", "chart-AAPL.png"},
	}
	for _, tc := range masked {
		t.Run(tc.name, func(t *testing.T) {
			got := r.String(tc.in)
			if strings.Contains(got, tc.gone) || !strings.Contains(got, analytics.Mask) {
				t.Errorf("String(%q) = %q: %q not masked", tc.in, got, tc.gone)
			}
		})
	}
	kept := []string{"percent", "stock", "xyzzy", "USD", "risk-amount", "2026-11-25T08:00:00Z", "3 positions"}
	for _, s := range kept {
		if got := r.String(s); got != s {
			t.Errorf("String(%q) = %q, want it unchanged", s, got)
		}
	}
	t.Run("nested values", func(t *testing.T) {
		got := r.Props(map[string]any{
			"n": 3, "ok": true, "none": nil,
			"list":   []any{"a@b.io", 4},
			"names":  []string{"x.csv"},
			"nested": map[string]any{"k": "Bearer zzz"},
			"other":  struct{ S string }{"sk_test_abc"},
		})
		out := fmt.Sprint(got)
		for _, gone := range []string{"a@b.io", "x.csv", "zzz", "sk_test_abc"} {
			if strings.Contains(out, gone) {
				t.Errorf("%q survived: %s", gone, out)
			}
		}
		if got["n"] != 3 || got["ok"] != true || got["none"] != nil {
			t.Errorf("plain values changed: %v", got)
		}
	})
}

func FuzzRedactor(f *testing.F) {
	for _, s := range []string{"a@b.io", "Bearer x", "file.csv", "sk_live_1", "plain"} {
		f.Add(s)
	}
	r := analytics.NewRedactor([]string{"topsecretvalue"})
	email := regexp.MustCompile(`(?i)[a-z0-9._%+\-]+@[a-z0-9\-]+(?:\.[a-z0-9\-]+)*\.[a-z]{2,}`)
	f.Fuzz(func(t *testing.T, s string) {
		got := r.String(s + " topsecretvalue " + s)
		if strings.Contains(got, "topsecretvalue") {
			t.Fatalf("configured secret survived: %q", got)
		}
		if email.MatchString(got) {
			t.Fatalf("an email survived: %q", got)
		}
	})
}

func TestOffWithoutKey(t *testing.T) {
	// A listener that counts connections stands where the host would be.
	host := analyticstest.Listen(t)
	c := analytics.New(config.Analytics{Host: host.URL(), Environment: "x"}, analytics.Options{})
	if c != nil {
		t.Fatal("New returned a client without ANALYTICS_API_KEY")
	}
	// A nil client is usable and inert.
	c.Capture(userID, analytics.EventSignedUp, analytics.Props{"a": 1})
	if err := c.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if n := host.Stop(); n != 0 {
		t.Fatalf("%d connection(s) to the analytics host with analytics off", n)
	}
}

func TestBatchesAndStamps(t *testing.T) {
	sink := analyticstest.Start(t)
	c, _ := newClient(t, sink.URL+"/") // a trailing slash is tolerated
	for i := range 250 {
		c.Capture(userID, analytics.EventCalculatorUsed, analytics.Props{"i": i, "mode": "percent"})
	}
	flush(t, c)
	batches := sink.Batches()
	total := 0
	for _, b := range batches {
		if len(b.Batch) > 100 {
			t.Errorf("a batch of %d events, want at most 100", len(b.Batch))
		}
		if b.APIKey != testKey {
			t.Errorf("api_key %q", b.APIKey)
		}
		total += len(b.Batch)
	}
	if total != 250 || len(batches) < 3 {
		t.Fatalf("%d events in %d batches, want 250 in at least 3", total, len(batches))
	}
	e := sink.Events()[0]
	if e.Event != analytics.EventCalculatorUsed || e.Properties["environment"] != "staging" || e.Properties["mode"] != "percent" {
		t.Errorf("event %+v", e)
	}
	if _, err := time.Parse(time.RFC3339Nano, e.Timestamp); err != nil {
		t.Errorf("timestamp %q: %v", e.Timestamp, err)
	}
	if e.DistinctID != c.Surrogate(userID) || !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(e.DistinctID) {
		t.Errorf("distinct_id %q, want the 64-hex surrogate", e.DistinctID)
	}
	if strings.Contains(sink.Raw(), userID) {
		t.Error("the user id reached the analytics host")
	}
}

func TestSurrogate(t *testing.T) {
	a := analytics.New(config.Analytics{APIKey: "key-a", Host: "http://127.0.0.1:1"}, analytics.Options{})
	b := analytics.New(config.Analytics{APIKey: "key-b", Host: "http://127.0.0.1:1"}, analytics.Options{})
	defer a.Close()
	defer b.Close()
	again := analytics.New(config.Analytics{APIKey: "key-a", Host: "http://127.0.0.1:1"}, analytics.Options{})
	defer again.Close()
	if a.Surrogate(userID) != again.Surrogate(userID) {
		t.Error("surrogate not stable across processes with one key")
	}
	if a.Surrogate(userID) == a.Surrogate("another") || a.Surrogate(userID) == b.Surrogate(userID) {
		t.Error("surrogate does not depend on both the id and the key")
	}
}

func TestFullBatchSentWithoutFlush(t *testing.T) {
	sink := analyticstest.Start(t)
	c, _ := newClient(t, sink.URL)
	for range 100 {
		c.Capture(userID, analytics.EventAccountCreated, nil)
	}
	waitFor(t, func() bool { return len(sink.Events()) == 100 })
}

func TestCloseSendsWhatIsQueued(t *testing.T) {
	sink := analyticstest.Start(t)
	c, _ := newClient(t, sink.URL)
	c.Capture(userID, analytics.EventPackPurchased, analytics.Props{"pack": "starter"})
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if got := sink.Named(analytics.EventPackPurchased); len(got) != 1 || got[0].Properties["pack"] != "starter" {
		t.Fatalf("received %+v", got)
	}
	c.Capture(userID, analytics.EventPackPurchased, nil) // after Close: ignored, no panic
}

// hangingHost accepts batches and never answers until release is called
// (at the latest when the test ends).
func hangingHost(t *testing.T) (url string, arrived <-chan struct{}, release func()) {
	t.Helper()
	released := make(chan struct{})
	release = sync.OnceFunc(func() { close(released) })
	got := make(chan struct{}, 100)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- struct{}{}
		select {
		case <-released:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { release(); srv.Close() })
	return srv.URL, got, release
}

func TestCloseBoundedAgainstHangingHost(t *testing.T) {
	url, arrived, _ := hangingHost(t)
	c, logs := newClient(t, url)
	c.Capture(userID, analytics.EventSignedUp, nil)
	done := make(chan error, 1)
	go func() { done <- c.Close() }()
	<-arrived // the last flush is at the host, which will not answer
	// Close returns on its own ShutdownTimeout bound while the host still
	// hangs; without the bound this test would never end.
	if err := <-done; !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close = %v, want context.DeadlineExceeded", err)
	}
	if !strings.Contains(logs.String(), "did not finish in time") {
		t.Errorf("no warning about the cut-off flush: %s", logs)
	}
}

func TestFlushBoundedByItsContext(t *testing.T) {
	url, arrived, release := hangingHost(t)
	c, _ := newClient(t, url)
	defer release()
	c.Capture(userID, analytics.EventSignedUp, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Flush(ctx) }()
	<-arrived
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Flush = %v, want context.Canceled", err)
	}
	// The sender is free again: a second flush with nothing queued returns.
	flush(t, c)
}

func TestFullQueueDropsWithoutBlocking(t *testing.T) {
	url, _, release := hangingHost(t)
	c, logs := newClient(t, url)
	defer release()
	// The sender takes at most one batch (100) before it blocks on the
	// hanging host; the queue holds 1000; the rest must be dropped, and
	// Capture must return every time.
	for range 1300 {
		c.Capture(userID, analytics.EventCalculatorUsed, nil)
	}
	if !strings.Contains(logs.String(), "analytics queue full") {
		t.Fatalf("no warning about dropped events: %s", logs)
	}
}

func TestRedactionEndToEnd(t *testing.T) {
	sink := analyticstest.Start(t)
	c, _ := newClient(t, sink.URL, "s3-secret-access-key-value")
	c.Capture(userID, analytics.EventImportCommitted, analytics.Props{
		"note":      "mail trader@example.com",
		"file":      "my-broker-export.csv",
		"err":       "auth failed for s3-secret-access-key-value",
		"header":    "Bearer tok_123",
		"key":       testKey,
		"fills":     12,
		"duplicate": false,
	})
	flush(t, c)
	raw := sink.Raw()
	for _, gone := range []string{"trader@example.com", "my-broker-export.csv", "s3-secret-access-key-value", "tok_123"} {
		if strings.Contains(raw, gone) {
			t.Errorf("%q reached the analytics host", gone)
		}
	}
	// The key rides once, as api_key, and never inside an event.
	if strings.Count(raw, testKey) != 1 {
		t.Errorf("the key appears %d times in the body, want once (api_key)", strings.Count(raw, testKey))
	}
	e := sink.Events()[0]
	if e.Properties["fills"] != float64(12) || e.Properties["duplicate"] != false {
		t.Errorf("plain values changed: %v", e.Properties)
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// BenchmarkCapture is the cost a request pays for one event: the
// surrogate, the redaction of a few properties and the queue hand-off.
func BenchmarkCapture(b *testing.B) {
	sink := analyticstest.Start(b)
	c := analytics.New(config.Analytics{APIKey: testKey, Host: sink.URL, Environment: "bench"},
		analytics.Options{Secrets: []string{testKey, "s3-secret-access-key-value"}})
	defer c.Close()
	props := analytics.Props{"positionsCreated": 3, "fillsCreated": 12, "duplicatesSkipped": 0, "mode": "stock"}
	b.ReportAllocs()
	for b.Loop() {
		c.Capture(userID, analytics.EventImportCommitted, props)
	}
}
