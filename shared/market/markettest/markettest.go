// Package markettest stands in for the public services shared/market calls
// (the SEC ticker file, the quote provider) with real local HTTP servers,
// and generates a realistic ticker file of any size.
package markettest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Known are real rows of company_tickers_exchange.json, in the SEC's order
// (largest first), that tests search for by name.
var Known = [][]any{
	{1045810, "NVIDIA CORP", "NVDA", "Nasdaq"},
	{789019, "MICROSOFT CORP", "MSFT", "Nasdaq"},
	{320193, "Apple Inc.", "AAPL", "Nasdaq"},
	{1018724, "AMAZON COM INC", "AMZN", "Nasdaq"},
	{1652044, "Alphabet Inc.", "GOOGL", "Nasdaq"},
	{1652044, "Alphabet Inc.", "GOOG", "Nasdaq"},
	{1326801, "Meta Platforms, Inc.", "META", "Nasdaq"},
	{1067983, "BERKSHIRE HATHAWAY INC", "BRK-B", "NYSE"},
	{1067983, "BERKSHIRE HATHAWAY INC", "BRK-A", "NYSE"},
	{2488, "ADVANCED MICRO DEVICES INC", "AMD", "Nasdaq"},
	{6951, "APPLIED MATERIALS INC /DE", "AMAT", "Nasdaq"},
	{732717, "AT&T INC.", "T", "NYSE"},
	{63908, "MCDONALD'S CORP", "MCD", "NYSE"},
	{21344, "COCA COLA CO", "KO", "NYSE"},
	{1090872, "AGILENT TECHNOLOGIES, INC.", "A", "NYSE"},
	{6201, "American Airlines Group Inc.", "AAL", "Nasdaq"},
	{1800, "ABBOTT LABORATORIES", "ABT", "NYSE"},
	{1551152, "AbbVie Inc.", "ABBV", "NYSE"},
	{1467858, "General Motors Co", "GM", "NYSE"},
	{1318605, "Tesla, Inc.", "TSLA", "Nasdaq"},
	{1742924, "Apple Hospitality REIT, Inc.", "APLE", "NYSE"},
	{1000045, "NICHOLAS FINANCIAL INC", "NICK", nil},
}

var (
	firstWords = strings.Fields(`Global American First United National Pacific Atlantic Northern Southern
		Western Eastern Central Summit Pioneer Liberty Heritage Frontier Horizon Apex Vertex Quantum Silver
		Golden Blue Green Red Iron Steel Granite Cedar Oak Maple River Lake Harbor Coastal Mountain Prairie
		Sun Star Bright Clear Nova Alpha Beta Delta Omega Sigma Titan Atlas Orion Phoenix Eagle Falcon Hawk
		Applied Advanced Integrated Digital Precision Dynamic Strategic Capital Royal Imperial Crown Sterling`)
	secondWords = strings.Fields(`Bancorp Financial Holdings Energy Resources Therapeutics Biosciences
		Pharmaceuticals Technologies Systems Software Semiconductor Networks Communications Media Entertainment
		Realty Properties Industries Manufacturing Materials Chemicals Minerals Mining Oil Gas Pipeline
		Utilities Power Airlines Logistics Transport Motors Automotive Foods Beverages Brands Retail Stores
		Healthcare Medical Devices Diagnostics Insurance Capital Investment Trust Partners Ventures Acquisition`)
	suffixes  = []string{"Inc.", "Inc", "Corp", "Corporation", "Co", "Ltd", "PLC", "LP", "Group, Inc.", "Holdings Corp", "N.V.", "S.A.", "& Co.", "Trust"}
	exchanges = []any{"Nasdaq", "Nasdaq", "Nasdaq", "NYSE", "NYSE", "NYSE", "OTC", "OTC", "CBOE", nil}
)

// Generate returns n rows shaped like the SEC file: Known first, then
// generated companies with unique tickers of 1 to 5 letters (some with a
// share-class suffix such as -A or a warrant W), names of two to four
// words, a CIK and an exchange (sometimes null), from a fixed seed.
func Generate(n int) [][]any {
	rng := rand.New(rand.NewPCG(20240101, uint64(n)))
	rows := make([][]any, 0, n)
	seen := map[string]bool{}
	for _, k := range Known {
		if len(rows) == n {
			return rows
		}
		rows = append(rows, k)
		seen[k[2].(string)] = true
	}
	for len(rows) < n {
		l := 1 + rng.IntN(5)
		if l == 1 && rng.IntN(4) > 0 {
			l = 3 // one-letter tickers are rare
		}
		var b strings.Builder
		for range l {
			b.WriteByte(byte('A' + rng.IntN(26)))
		}
		switch r := rng.IntN(40); {
		case r == 0:
			b.WriteString("-A")
		case r == 1:
			b.WriteString("-B")
		case r == 2:
			b.WriteString("W")
		}
		ticker := b.String()
		if seen[ticker] {
			continue
		}
		seen[ticker] = true
		name := firstWords[rng.IntN(len(firstWords))] + " " + secondWords[rng.IntN(len(secondWords))]
		if rng.IntN(3) == 0 {
			name = firstWords[rng.IntN(len(firstWords))] + " " + name
		}
		name += " " + suffixes[rng.IntN(len(suffixes))]
		if rng.IntN(2) == 0 {
			name = strings.ToUpper(name)
		}
		rows = append(rows, []any{1_000_000 + rng.IntN(1_000_000), name, ticker, exchanges[rng.IntN(len(exchanges))]})
	}
	return rows
}

// TickerFile encodes rows as company_tickers_exchange.json.
func TickerFile(rows [][]any) []byte {
	b, err := json.Marshal(map[string]any{"fields": []string{"cik", "name", "ticker", "exchange"}, "data": rows})
	if err != nil {
		panic(err)
	}
	return b
}

// SEC is a local stand-in for the SEC's file server. It serves Body with
// LastModified and answers 304 to a matching If-Modified-Since, like the
// real one; Status, when set, replaces every answer.
type SEC struct {
	*httptest.Server

	mu           sync.Mutex
	body         []byte
	lastModified string
	status       int
	requests     []*http.Request
	calls        atomic.Int64
}

// NewSEC starts a stand-in serving body, stopped when the test ends.
func NewSEC(tb testing.TB, body []byte) *SEC {
	s := &SEC{body: body, lastModified: time.Date(2025, 6, 2, 8, 0, 0, 0, time.UTC).Format(http.TimeFormat)}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	tb.Cleanup(s.Close)
	return s
}

// URL of the ticker file.
func (s *SEC) FileURL() string { return s.URL + "/files/company_tickers_exchange.json" }

// Set replaces the served file and its Last-Modified.
func (s *SEC) Set(body []byte, lastModified time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.body, s.lastModified = body, lastModified.UTC().Format(http.TimeFormat)
}

// Fail makes every answer status (0 restores normal answers).
func (s *SEC) Fail(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status = status
}

// Calls is the number of requests received.
func (s *SEC) Calls() int { return int(s.calls.Load()) }

// Last returns the last request received, or nil.
func (s *SEC) Last() *http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.requests) == 0 {
		return nil
	}
	return s.requests[len(s.requests)-1]
}

func (s *SEC) serve(w http.ResponseWriter, r *http.Request) {
	s.calls.Add(1)
	s.mu.Lock()
	s.requests = append(s.requests, r)
	body, lm, status := s.body, s.lastModified, s.status
	s.mu.Unlock()
	if status != 0 {
		http.Error(w, "failure", status)
		return
	}
	if r.URL.Path != "/files/company_tickers_exchange.json" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Last-Modified", lm)
	if ims := r.Header.Get("If-Modified-Since"); ims != "" {
		if t, err := http.ParseTime(ims); err == nil {
			if m, _ := http.ParseTime(lm); !m.After(t) {
				w.WriteHeader(http.StatusNotModified)
				return
			}
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

// Provider is a local stand-in for the quote provider. Handle decides each
// answer; Calls counts the requests that reached it.
type Provider struct {
	*httptest.Server
	calls atomic.Int64
	// Handle answers a request; the default answers a fixed quote.
	Handle http.HandlerFunc
}

// NewProvider starts a stand-in, stopped when the test ends.
func NewProvider(tb testing.TB, handle http.HandlerFunc) *Provider {
	p := &Provider{Handle: handle}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.calls.Add(1)
		p.Handle(w, r)
	}))
	tb.Cleanup(p.Close)
	return p
}

// Calls is the number of requests received.
func (p *Provider) Calls() int { return int(p.calls.Load()) }

// QuoteJSON is a provider answer with last price c at unix time t.
func QuoteJSON(c string, t int64) string {
	return fmt.Sprintf(`{"c":%s,"d":1.25,"dp":0.5,"h":262.1,"l":258.3,"o":259,"pc":260.49,"t":%d}`, c, t)
}

// Candle is one bar of a stand-in's candle answer: T in unix seconds,
// prices as JSON numbers.
type Candle struct {
	T          int64
	O, H, L, C string
	V          int64
}

// CandleJSON is the provider's candle answer of bars: {"s":"ok",...}, or
// {"s":"no_data"} when there are none.
func CandleJSON(bars []Candle) string {
	if len(bars) == 0 {
		return `{"s":"no_data"}`
	}
	var t, o, h, l, c, v []string
	for _, b := range bars {
		t = append(t, fmt.Sprint(b.T))
		o, h, l, c = append(o, b.O), append(h, b.H), append(l, b.L), append(c, b.C)
		v = append(v, fmt.Sprint(b.V))
	}
	j := func(xs []string) string { return "[" + strings.Join(xs, ",") + "]" }
	return fmt.Sprintf(`{"c":%s,"h":%s,"l":%s,"o":%s,"s":"ok","t":%s,"v":%s}`, j(c), j(h), j(l), j(o), j(t), j(v))
}

// Candles answers /stock/candle with the bars of bars[symbol] inside the
// request's from and to (no_data for an unknown symbol), and /quote with
// quotes[symbol] at unix time 1748865600 (no data for an unknown symbol),
// as the provider does.
func Candles(bars map[string][]Candle, quotes map[string]string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		sym := q.Get("symbol")
		switch r.URL.Path {
		case "/quote":
			c, ok := quotes[sym]
			if !ok {
				fmt.Fprint(w, QuoteJSON("0", 0))
				return
			}
			fmt.Fprint(w, QuoteJSON(c, 1748865600))
		case "/stock/candle":
			var from, to int64
			if _, err := fmt.Sscan(q.Get("from"), &from); err != nil {
				http.Error(w, `{"error":"from"}`, http.StatusUnprocessableEntity)
				return
			}
			if _, err := fmt.Sscan(q.Get("to"), &to); err != nil {
				http.Error(w, `{"error":"to"}`, http.StatusUnprocessableEntity)
				return
			}
			var in []Candle
			for _, b := range bars[sym] {
				if b.T >= from && b.T <= to {
					in = append(in, b)
				}
			}
			fmt.Fprint(w, CandleJSON(in))
		default:
			http.NotFound(w, r)
		}
	}
}
