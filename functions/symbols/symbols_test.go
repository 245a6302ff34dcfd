package symbols_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tradejournal/functions"
	authgroup "tradejournal/functions/auth"
	"tradejournal/functions/symbols"
	"tradejournal/shared/apitest"
	"tradejournal/shared/benchcpu"
	"tradejournal/shared/config"
	"tradejournal/shared/httpx"
	"tradejournal/shared/market"
	"tradejournal/shared/market/markettest"
)

const quoteKey = "qk_live_5e4d3c2b1a0f"

// fill loads rows into the server's symbols table through the real refresh
// from a local stand-in of the SEC.
func fill(t testing.TB, srv *apitest.Server, rows [][]any) {
	t.Helper()
	sec := markettest.NewSEC(t, markettest.TickerFile(rows))
	cfg := config.Market{SECUserAgent: "Acme Capital ops@acme.test", SECTickersURL: sec.FileURL()}
	if err := market.RefreshSymbols(context.Background(), srv.App.DB, nil, cfg, time.Now(), slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
}

func items(t *testing.T, r apitest.Response) []map[string]any {
	t.Helper()
	raw, ok := r.JSON["items"].([]any)
	if !ok {
		t.Fatalf("no items array: %s", r.Body)
	}
	out := make([]map[string]any, len(raw))
	for i, v := range raw {
		out[i] = v.(map[string]any)
	}
	return out
}

func tickerList(list []map[string]any) string {
	var out []string
	for _, it := range list {
		out = append(out, it["ticker"].(string))
	}
	return strings.Join(out, ",")
}

func TestSearchRoute(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	anon := srv.Client(t)
	c := srv.Client(t)
	c.Register("searcher@example.com", "password1")

	t.Run("EmptyTable", func(t *testing.T) {
		r := c.Do("GET", "/api/symbols/search?q=apple", nil)
		if r.Status != 200 || strings.TrimSpace(string(r.Body)) != `{"items":[]}` {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})

	fill(t, srv, markettest.Generate(10_000))

	apitest.Run(t, anon, []apitest.Case{
		{Name: "Unauthenticated", Method: "GET", Path: "/api/symbols/search?q=apple", Status: 401, Code: "UNAUTHENTICATED"},
	})
	apitest.Run(t, c, []apitest.Case{
		{Name: "Missing", Method: "GET", Path: "/api/symbols/search", Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "Empty", Method: "GET", Path: "/api/symbols/search?q=", Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "Blank", Method: "GET", Path: "/api/symbols/search?q=%20%20", Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "TooLong", Method: "GET", Path: "/api/symbols/search?q=" + strings.Repeat("a", 51), Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "TooLongRunes", Method: "GET", Path: "/api/symbols/search?q=" + strings.Repeat("%C3%A9", 51), Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "InvalidUTF8", Method: "GET", Path: "/api/symbols/search?q=%FF", Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "FiftyIsFine", Method: "GET", Path: "/api/symbols/search?q=" + strings.Repeat("a", 50), Status: 200},
		{Name: "FiftyRunesIsFine", Method: "GET", Path: "/api/symbols/search?q=" + strings.Repeat("%C3%A9", 50), Status: 200},
	})
	t.Run("ValidationNamesQ", func(t *testing.T) {
		r := c.Do("GET", "/api/symbols/search?q=", nil)
		d := r.JSON["error"].(map[string]any)["details"].([]any)
		if d[0].(map[string]any)["field"] != "q" {
			t.Fatalf("%s", r.Body)
		}
	})
	t.Run("ExactThenPrefixThenName", func(t *testing.T) {
		r := c.Do("GET", "/api/symbols/search?q=apple", nil)
		list := items(t, r)
		if r.Status != 200 || len(list) < 2 || tickerList(list[:2]) != "AAPL,APLE" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		first := list[0]
		if first["name"] != "Apple Inc." || first["exchange"] != "Nasdaq" || first["cik"] != float64(320193) || len(first) != 4 {
			t.Fatalf("item %v", first)
		}
		r = c.Do("GET", "/api/symbols/search?q=GOOG", nil)
		if got := tickerList(items(t, r)); !strings.HasPrefix(got, "GOOG,GOOGL") {
			t.Fatalf("GOOG: %s", got)
		}
		r = c.Do("GET", "/api/symbols/search?q=brk.b", nil)
		if got := tickerList(items(t, r)); !strings.HasPrefix(got, "BRK-B") {
			t.Fatalf("brk.b: %s", got)
		}
	})
	t.Run("NullExchange", func(t *testing.T) {
		r := c.Do("GET", "/api/symbols/search?q=NICK", nil)
		list := items(t, r)
		if len(list) == 0 || list[0]["ticker"] != "NICK" || list[0]["exchange"] != nil || !strings.Contains(string(r.Body), `"exchange":null`) {
			t.Fatalf("%s", r.Body)
		}
	})
	t.Run("AtMost20", func(t *testing.T) {
		for _, q := range []string{"a", "s", "golden", "inc"} {
			r := c.Do("GET", "/api/symbols/search?q="+q, nil)
			if n := len(items(t, r)); n != 20 {
				t.Fatalf("q=%s: %d items", q, n)
			}
		}
	})
}

// provider is the quote stand-in: each symbol picks a behaviour.
func provider(t *testing.T) *markettest.Provider {
	return markettest.NewProvider(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Finnhub-Token") != quoteKey {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		switch r.URL.Query().Get("symbol") {
		case "RL":
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprintf(w, `{"error":"API limit reached for %s"}`, quoteKey)
		case "BAD":
			fmt.Fprint(w, `{"c":261.7`)
		case "NONE":
			fmt.Fprint(w, `{"c":0,"d":null,"dp":null,"h":0,"l":0,"o":0,"pc":0,"t":0}`)
		case "SLOW":
			select {
			case <-time.After(5 * time.Second):
			case <-r.Context().Done():
			}
		case "BURST":
			time.Sleep(200 * time.Millisecond) // every request of the burst arrives meanwhile
			fmt.Fprint(w, markettest.QuoteJSON("42.1", 1748865600))
		default:
			fmt.Fprint(w, markettest.QuoteJSON("261.74", 1748865600))
		}
	})
}

func quoteConfig(t *testing.T, p *markettest.Provider) config.Config {
	cfg := apitest.Config(t)
	cfg.Market.QuoteAPIKey = quoteKey
	cfg.Market.QuoteBaseURL = p.URL
	return cfg
}

func TestQuoteRoute(t *testing.T) {
	p := provider(t)
	srv := apitest.Start(t, quoteConfig(t, p), functions.All)
	c := srv.Client(t)
	c.Register("quoter@example.com", "password1")

	t.Run("Success", func(t *testing.T) {
		r := c.Do("GET", "/api/symbols/aapl/quote", nil)
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		want := `{"symbol":"AAPL","price":"261.74","currency":"USD","asOf":"2025-06-02T12:00:00Z","delayed":true}`
		if strings.TrimSpace(string(r.Body)) != want {
			t.Fatalf("body %s\nwant %s", r.Body, want)
		}
	})
	apitest.Run(t, srv.Client(t), []apitest.Case{
		{Name: "Unauthenticated", Method: "GET", Path: "/api/symbols/AAPL/quote", Status: 401, Code: "UNAUTHENTICATED"},
	})
	apitest.Run(t, c, []apitest.Case{
		{Name: "TooLong", Method: "GET", Path: "/api/symbols/ABCDEFGHIJK/quote", Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "BadChar", Method: "GET", Path: "/api/symbols/A_B/quote", Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "Space", Method: "GET", Path: "/api/symbols/A%20B/quote", Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "Slash", Method: "GET", Path: "/api/symbols/A%2FB/quote", Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "ClassShare", Method: "GET", Path: "/api/symbols/brk.b/quote", Status: 200},
		{Name: "ProviderRateLimitIs502", Method: "GET", Path: "/api/symbols/RL/quote", Status: 502},
		{Name: "MalformedIs502", Method: "GET", Path: "/api/symbols/BAD/quote", Status: 502},
		{Name: "NoDataIs404", Method: "GET", Path: "/api/symbols/NONE/quote", Status: 404},
	})
	t.Run("KeyNeverInBody", func(t *testing.T) {
		for _, sym := range []string{"RL", "BAD", "NONE", "AAPL"} {
			if r := c.Do("GET", "/api/symbols/"+sym+"/quote", nil); strings.Contains(string(r.Body), quoteKey) {
				t.Fatalf("%s: %s", sym, r.Body)
			}
		}
	})
	t.Run("SingleFlight", func(t *testing.T) {
		burst := srv.Client(t)
		burst.Register("burst@example.com", "password1")
		before := p.Calls()
		var wg sync.WaitGroup
		statuses := make([]int, 50)
		for i := range 50 {
			wg.Go(func() { statuses[i] = burst.Do("GET", "/api/symbols/BURST/quote", nil).Status })
		}
		wg.Wait()
		for i, s := range statuses {
			if s != 200 {
				t.Fatalf("request %d: %d", i, s)
			}
		}
		if n := p.Calls() - before; n != 1 {
			t.Fatalf("50 concurrent requests cost %d provider calls, want 1", n)
		}
	})
	t.Run("RateLimitPerUser", func(t *testing.T) {
		u := srv.Client(t)
		u.Register("limited@example.com", "password1")
		for i := range 60 {
			if r := u.Do("GET", "/api/symbols/MSFT/quote", nil); r.Status != 200 {
				t.Fatalf("request %d: %d %s", i+1, r.Status, r.Body)
			}
		}
		r := u.Do("GET", "/api/symbols/MSFT/quote", nil)
		if r.Status != 429 || r.ErrorCode() != "RATE_LIMITED" || r.Header.Get("Retry-After") == "" {
			t.Fatalf("61st: %d %s", r.Status, r.Body)
		}
	})
}

// TestQuoteTimeout runs the real router with the symbols group's quote
// client tuned to a 200 ms timeout.
func TestQuoteTimeout(t *testing.T) {
	p := provider(t)
	cfg := quoteConfig(t, p)
	base := apitest.Start(t, cfg, functions.All)
	a := base.App
	quotes := market.NewQuotes(cfg.Market, nil, a.Now, a.Log)
	quotes.Timeout = 200 * time.Millisecond
	router := httpx.Mux([]httpx.Group{authgroup.Group(a), symbols.NewGroup(a, market.NewIndex(a.DB, a.Now), quotes)}, nil)
	hs := httptest.NewServer(a.Serve(router))
	t.Cleanup(hs.Close)
	srv := &apitest.Server{Server: hs, App: a}
	c := srv.Client(t)
	c.Register("slow@example.com", "password1")

	start := time.Now()
	r := c.Do("GET", "/api/symbols/SLOW/quote", nil)
	took := time.Since(start)
	if r.Status != 504 || r.ErrorCode() != "" {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	apitest.CheckErrorShape(t, r)
	if took > 2*time.Second {
		t.Fatalf("answered after %v", took)
	}
}

func TestQuoteWithoutKey(t *testing.T) {
	p := provider(t)
	cfg := apitest.Config(t)
	cfg.Market.QuoteBaseURL = p.URL // a base URL alone turns nothing on
	srv := apitest.Start(t, cfg, functions.All)
	c := srv.Client(t)
	c.Register("nokey@example.com", "password1")
	for _, path := range []string{"/api/symbols/AAPL/quote", "/api/symbols/aapl/quote", "/api/symbols/NOT_VALID/quote"} {
		r := c.Do("GET", path, nil)
		if r.Status != 404 || r.ErrorCode() != "" {
			t.Fatalf("%s: %d %s", path, r.Status, r.Body)
		}
		apitest.CheckErrorShape(t, r)
	}
	// Unauthenticated is still 401: the session check comes first.
	if r := srv.Client(t).Do("GET", "/api/symbols/AAPL/quote", nil); r.Status != 401 {
		t.Fatalf("anonymous: %d", r.Status)
	}
	if r := c.Do("GET", "/api/config", nil); r.Status != 200 || r.JSON["quoteLookup"] != false {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	if p.Calls() != 0 {
		t.Fatalf("%d requests reached the provider without a key", p.Calls())
	}
}

// BenchmarkSearchEndpoint is the server's time for GET /api/symbols/search
// over the full 10,000-row table: the whole handler chain (request id, log,
// session lookup in PostgreSQL, the search, JSON), without the network. It
// reports the p99 of single requests. Run with: make bench, or
//
//	go test -run '^$' -bench SearchEndpoint ./functions/symbols/
func BenchmarkSearchEndpoint(b *testing.B) {
	srv := apitest.Start(b, apitest.Config(b), functions.All)
	fill(b, srv, markettest.Generate(10_000))
	c := srv.Client(b)
	r := c.Register("bench@example.com", "password1")
	cookie := apitest.SessionCookie(r.Header.Values("Set-Cookie"))
	h := srv.Config.Handler
	queries := []string{"a", "ap", "app", "apple", "aapl", "msft", "g", "golden", "golden s", "pacific en", "brk.b", "zzzz", "bank", "t", "energy"}
	reqs := make([]*http.Request, len(queries))
	for i, q := range queries {
		reqs[i] = httptest.NewRequest("GET", "/api/symbols/search?q="+strings.ReplaceAll(q, " ", "%20"), nil)
		reqs[i].Header.Set("Cookie", cookie)
		reqs[i].RemoteAddr = "127.0.0.1:5000"
	}
	warm := httptest.NewRecorder()
	h.ServeHTTP(warm, reqs[0])
	if warm.Code != 200 {
		b.Fatalf("%d %s", warm.Code, warm.Body)
	}
	durations := make([]time.Duration, 0, b.N)
	stop := benchcpu.Start(b) // the api's CPU; PostgreSQL's share of the session check is not counted
	for i := 0; b.Loop(); i++ {
		w := httptest.NewRecorder()
		start := time.Now()
		h.ServeHTTP(w, reqs[i%len(reqs)])
		durations = append(durations, time.Since(start))
		if w.Code != 200 {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
	stop()
	slices.Sort(durations)
	b.ReportMetric(float64(durations[len(durations)*99/100].Nanoseconds())/1e3, "p99-µs")
	b.ReportMetric(float64(durations[len(durations)/2].Nanoseconds())/1e3, "p50-µs")
}
