package market_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tradejournal/shared/apperr"
	"tradejournal/shared/config"
	"tradejournal/shared/market"
	"tradejournal/shared/market/markettest"
)

const quoteKey = "qk_test_9f8e7d6c5b4a"

// quoteAt answers every lookup with price c at unix time t, after checking
// the request's shape.
func quoteAt(t *testing.T, c string, unix int64) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/quote" || r.Header.Get("X-Finnhub-Token") != quoteKey || strings.Contains(r.URL.RawQuery, quoteKey) {
			t.Errorf("request %s %s token %q", r.Method, r.URL, r.Header.Get("X-Finnhub-Token"))
		}
		fmt.Fprint(w, markettest.QuoteJSON(c, unix))
	}
}

func newQuotes(baseURL string) (*market.Quotes, *logs) {
	log, out := newLogger()
	return market.NewQuotes(config.Market{QuoteAPIKey: quoteKey, QuoteBaseURL: baseURL}, nil, time.Now, log), out
}

func code(err error) apperr.Code {
	if e, ok := apperr.As(err); ok {
		return e.Code
	}
	return ""
}

func TestQuote(t *testing.T) {
	ctx := context.Background()
	t.Run("Success", func(t *testing.T) {
		p := markettest.NewProvider(t, quoteAt(t, "261.74", 1748865600))
		q, _ := newQuotes(p.URL + "/")
		got, err := q.Get(ctx, "AAPL")
		if err != nil {
			t.Fatal(err)
		}
		if got.Symbol != "AAPL" || got.Price.String() != "261.74" || got.Currency != "USD" || !got.Delayed ||
			!got.AsOf.Equal(time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC)) || got.AsOf.Location() != time.UTC {
			t.Fatalf("%+v", got)
		}
	})
	t.Run("PriceNeverFloat", func(t *testing.T) {
		// More digits than a float64 holds survive exactly.
		p := markettest.NewProvider(t, quoteAt(t, "12345678.123456789012", 1748865600))
		q, _ := newQuotes(p.URL)
		got, err := q.Get(ctx, "X")
		if err != nil || got.Price.String() != "12345678.123456789012" {
			t.Fatalf("%v %v", got.Price, err)
		}
	})
	t.Run("SymbolEscaped", func(t *testing.T) {
		var raw string
		p := markettest.NewProvider(t, func(w http.ResponseWriter, r *http.Request) {
			raw = r.URL.Query().Get("symbol")
			fmt.Fprint(w, markettest.QuoteJSON("1", 1))
		})
		q, _ := newQuotes(p.URL)
		if _, err := q.Get(ctx, "BRK.B"); err != nil || raw != "BRK.B" {
			t.Fatalf("%q %v", raw, err)
		}
	})

	for _, tc := range []struct {
		name   string
		handle http.HandlerFunc
		want   apperr.Code
	}{
		{"RateLimited429", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"error":"API limit reached. token `+r.Header.Get("X-Finnhub-Token")+`"}`)
		}, apperr.BadGateway},
		{"Unauthorized401", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, `{"error":"Invalid API key `+r.Header.Get("X-Finnhub-Token")+`"}`, http.StatusUnauthorized)
		}, apperr.BadGateway},
		{"ServerError", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusInternalServerError) }, apperr.BadGateway},
		{"MalformedJSON", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"c":261.74,"t":`) }, apperr.BadGateway},
		{"HTML", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `<html>`+r.Header.Get("X-Finnhub-Token")) }, apperr.BadGateway},
		{"PriceAsString", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"c":"261.74","t":1748865600}`) }, apperr.BadGateway},
		{"MissingPrice", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"t":1748865600}`) }, apperr.BadGateway},
		{"NullPrice", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"c":null,"t":1748865600}`) }, apperr.BadGateway},
		{"NegativePrice", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, markettest.QuoteJSON("-1", 1748865600)) }, apperr.BadGateway},
		{"PriceWithoutTime", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, markettest.QuoteJSON("5", 0)) }, apperr.BadGateway},
		{"FractionalTime", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"c":5,"t":17.5}`) }, apperr.BadGateway},
		{"NoData", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"c":0,"d":null,"dp":null,"h":0,"l":0,"o":0,"pc":0,"t":0}`)
		}, apperr.NotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := markettest.NewProvider(t, tc.handle)
			q, out := newQuotes(p.URL)
			_, err := q.Get(ctx, "AAPL")
			if code(err) != tc.want {
				t.Fatalf("error %v, want %s", err, tc.want)
			}
			if strings.Contains(err.Error(), quoteKey) || strings.Contains(out.String(), quoteKey) {
				t.Fatalf("the key leaked: %v\n%s", err, out)
			}
			if len(out.Lines("ERROR")) != 0 {
				t.Fatalf("logged an error:\n%s", out)
			}
			if tc.want == apperr.BadGateway && len(out.Lines("WARN")) != 1 {
				t.Fatalf("want one warning:\n%s", out)
			}
		})
	}

	t.Run("Unreachable", func(t *testing.T) {
		q, out := newQuotes("http://127.0.0.1:1")
		if _, err := q.Get(ctx, "AAPL"); code(err) != apperr.BadGateway || strings.Contains(out.String(), quoteKey) {
			t.Fatalf("%v\n%s", err, out)
		}
	})
	t.Run("SlowIs504", func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		p := markettest.NewProvider(t, func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		})
		q, _ := newQuotes(p.URL)
		q.Timeout = 200 * time.Millisecond
		start := time.Now()
		_, err := q.Get(ctx, "AAPL")
		if code(err) != apperr.GatewayTimeout {
			t.Fatalf("error %v", err)
		}
		if took := time.Since(start); took < 200*time.Millisecond || took > 2*time.Second {
			t.Fatalf("answered after %v", took)
		}
	})
	t.Run("SlowBodyIs504", func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		p := markettest.NewProvider(t, func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"c":1`)
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-r.Context().Done():
			}
		})
		q, _ := newQuotes(p.URL)
		q.Timeout = 200 * time.Millisecond
		if _, err := q.Get(ctx, "AAPL"); code(err) != apperr.GatewayTimeout {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("CallerDeadline", func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		p := markettest.NewProvider(t, func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		})
		q, _ := newQuotes(p.URL)
		cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		if _, err := q.Get(cctx, "AAPL"); code(err) != apperr.GatewayTimeout {
			t.Fatalf("error %v", err)
		}
	})
}

func TestQuoteDisabledSendsNothing(t *testing.T) {
	p := markettest.NewProvider(t, quoteAt(t, "1", 1))
	q := market.NewQuotes(config.Market{QuoteBaseURL: p.URL}, nil, time.Now, nil)
	if q.Enabled() {
		t.Fatal("enabled without a key")
	}
	for range 3 {
		if _, err := q.Get(context.Background(), "AAPL"); err != apperr.ErrNotFound {
			t.Fatalf("error %v, want the codeless 404", err)
		}
	}
	if p.Calls() != 0 {
		t.Fatalf("%d requests reached the provider", p.Calls())
	}
}

func TestQuoteSingleFlightAndCache(t *testing.T) {
	ctx := context.Background()
	release := make(chan struct{})
	p := markettest.NewProvider(t, func(w http.ResponseWriter, r *http.Request) {
		<-release
		fmt.Fprint(w, markettest.QuoteJSON("100.5", 1748865600))
	})
	var clock atomic.Int64
	clock.Store(time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC).UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()).UTC() }
	log, _ := newLogger()
	q := market.NewQuotes(config.Market{QuoteAPIKey: quoteKey, QuoteBaseURL: p.URL}, nil, now, log)

	var wg sync.WaitGroup
	var failed atomic.Int64
	for range 50 {
		wg.Go(func() {
			got, err := q.Get(ctx, "AAPL")
			if err != nil || got.Price.String() != "100.5" {
				failed.Add(1)
			}
		})
	}
	time.Sleep(100 * time.Millisecond) // let every caller join the flight
	close(release)
	wg.Wait()
	if failed.Load() != 0 || p.Calls() != 1 {
		t.Fatalf("%d failed, %d provider calls; want 0 and 1", failed.Load(), p.Calls())
	}

	// Cached for 60 s; another symbol is its own call.
	clock.Add(int64(59 * time.Second))
	if _, err := q.Get(ctx, "AAPL"); err != nil || p.Calls() != 1 {
		t.Fatalf("within TTL: %v, %d calls", err, p.Calls())
	}
	if _, err := q.Get(ctx, "MSFT"); err != nil || p.Calls() != 2 {
		t.Fatalf("other symbol: %v, %d calls", err, p.Calls())
	}
	clock.Add(int64(time.Second))
	if _, err := q.Get(ctx, "AAPL"); err != nil || p.Calls() != 3 {
		t.Fatalf("after TTL: %v, %d calls", err, p.Calls())
	}
}

func TestQuoteErrorsCachedBriefly(t *testing.T) {
	ctx := context.Background()
	var status atomic.Int64
	status.Store(http.StatusTooManyRequests)
	p := markettest.NewProvider(t, func(w http.ResponseWriter, r *http.Request) {
		if s := int(status.Load()); s != http.StatusOK {
			w.WriteHeader(s)
			return
		}
		fmt.Fprint(w, markettest.QuoteJSON("7", 1748865600))
	})
	var clock atomic.Int64
	clock.Store(time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC).UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()).UTC() }
	log, _ := newLogger()
	q := market.NewQuotes(config.Market{QuoteAPIKey: quoteKey, QuoteBaseURL: p.URL}, nil, now, log)
	for range 5 {
		if _, err := q.Get(ctx, "AAPL"); code(err) != apperr.BadGateway {
			t.Fatalf("error %v", err)
		}
	}
	if p.Calls() != 1 {
		t.Fatalf("%d calls: a failing provider is asked again at once", p.Calls())
	}
	status.Store(http.StatusOK)
	clock.Add(int64(market.DefaultQuoteErrorTTL))
	if got, err := q.Get(ctx, "AAPL"); err != nil || got.Price.String() != "7" || p.Calls() != 2 {
		t.Fatalf("after the error TTL: %v %v, %d calls", got, err, p.Calls())
	}
}

func TestValidSymbol(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"AAPL", "AAPL", true}, {"aapl", "AAPL", true}, {"brk.b", "BRK.B", true}, {"BRK-B", "BRK-B", true},
		{"A", "A", true}, {"1234567890", "1234567890", true},
		{"", "", false}, {"ABCDEFGHIJK", "", false}, {"AB CD", "", false}, {"A/B", "", false},
		{"A_B", "", false}, {"ÄPPL", "", false}, {"A%20", "", false},
	} {
		got, ok := market.ValidSymbol(tc.in)
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("ValidSymbol(%q) = %q %v", tc.in, got, ok)
		}
	}
}
