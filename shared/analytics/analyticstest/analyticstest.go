// Package analyticstest is a local stand-in for the analytics ingestion host:
// a real HTTP server on loopback that accepts POST /batch/ and keeps what it
// received, for tests that point ANALYTICS_HOST at it.
package analyticstest

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"tradejournal/shared/config"
)

// TestKey is the backend key Enable sets.
const TestKey = "phc_analyticstestKey0123456789"

// Event is one received event.
type Event struct {
	Event      string         `json:"event"`
	DistinctID string         `json:"distinct_id"`
	Properties map[string]any `json:"properties"`
	Timestamp  string         `json:"timestamp"`
}

// Batch is one received request.
type Batch struct {
	APIKey string  `json:"api_key"`
	Batch  []Event `json:"batch"`
	Raw    string  `json:"-"` // the body as sent, to grep for what must not be there
}

// Sink is the fake ingestion host.
type Sink struct {
	*httptest.Server
	mu      sync.Mutex
	batches []Batch
}

// Start runs a sink until the test ends.
func Start(tb testing.TB) *Sink {
	tb.Helper()
	s := &Sink{}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	tb.Cleanup(s.Close)
	return s
}

func (s *Sink) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/batch/" || r.Header.Get("Content-Type") != "application/json" {
		http.Error(w, "want POST /batch/ with a JSON body", http.StatusBadRequest)
		return
	}
	raw, err := io.ReadAll(r.Body)
	var b Batch
	if err == nil {
		err = json.Unmarshal(raw, &b)
	}
	if err != nil || b.APIKey == "" || len(b.Batch) == 0 {
		http.Error(w, "want {api_key, batch: [...]}", http.StatusBadRequest)
		return
	}
	b.Raw = string(raw)
	s.mu.Lock()
	s.batches = append(s.batches, b)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"status":"Ok"}`))
}

// Enable turns backend analytics on in cfg, pointed at a new sink, with
// the environment label "test".
func Enable(tb testing.TB, cfg *config.Config) *Sink {
	tb.Helper()
	s := Start(tb)
	cfg.Analytics.APIKey = TestKey
	cfg.Analytics.Host = s.URL
	cfg.Analytics.Environment = "test"
	return s
}

// Batches returns the requests received so far.
func (s *Sink) Batches() []Batch {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Batch(nil), s.batches...)
}

// Events returns every event received so far, in order.
func (s *Sink) Events() []Event {
	var out []Event
	for _, b := range s.Batches() {
		out = append(out, b.Batch...)
	}
	return out
}

// Named returns the received events called name.
func (s *Sink) Named(name string) []Event {
	var out []Event
	for _, e := range s.Events() {
		if e.Event == name {
			out = append(out, e)
		}
	}
	return out
}

// Raw returns every body received, joined, to grep for what must not be
// there.
func (s *Sink) Raw() string {
	var out string
	for _, b := range s.Batches() {
		out += b.Raw + "\n"
	}
	return out
}

// Counter stands where the analytics host would be when analytics is off:
// it accepts and drops connections, counting them, so a test can show that
// none was made.
type Counter struct {
	ln       net.Listener
	accepted atomic.Int32
}

// Listen runs a Counter on loopback until Stop or the end of the test.
func Listen(tb testing.TB) *Counter {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	c := &Counter{ln: ln}
	tb.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			c.accepted.Add(1)
			_ = conn.Close()
		}
	}()
	return c
}

// URL is the address to configure as ANALYTICS_HOST.
func (c *Counter) URL() string { return "http://" + c.ln.Addr().String() }

// Stop closes the listener and returns how many connections it accepted.
func (c *Counter) Stop() int32 {
	_ = c.ln.Close()
	return c.accepted.Load()
}
