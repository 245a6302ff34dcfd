package market_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"tradejournal/shared/apperr"
	"tradejournal/shared/config"
	"tradejournal/shared/market"
	"tradejournal/shared/market/markettest"
)

const (
	alpacaID     = "PKTEST1234"
	alpacaSecret = "alpaca-secret-5678"
	twelveKey    = "td-key-abcdef"
)

// hour are 60 one-minute bars from barsStart: 14:09 down to 9.4, 14:11 up
// to 11.35.
var hour = markettest.Minutes(barsStart, 60, map[int][2]string{9: {"9.4", "10.5"}, 11: {"10", "11.35"}})

// minuteWindow is 14:00 to 15:00 at one-minute bars.
var minuteWindow = market.Window{Resolution: market.Resolutions[0], From: barsStart, To: barsStart.Add(59 * time.Minute)}

// feeds returns Feeds with provider for asset, every provider's base URL
// at url.
func feeds(t *testing.T, asset, provider, url string) (*market.Feeds, *logs) {
	t.Helper()
	log, out := newLogger()
	cfg := config.Market{QuoteAPIKey: quoteKey, QuoteBaseURL: url, Bars: config.Bars{
		Providers:   map[string]string{asset: provider},
		AlpacaKeyID: alpacaID, AlpacaSecretKey: alpacaSecret, AlpacaURL: url, AlpacaFeed: "iex",
		TwelveDataKey: twelveKey, TwelveDataURL: url, BinanceURL: url,
	}}
	return market.NewFeeds(cfg, nil, time.Now, log), out
}

// checkHour holds bars to the hour's 60 minutes, in order.
func checkHour(t *testing.T, bars []market.Bar, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if len(bars) != 60 || !bars[0].Time.Equal(barsStart) || !bars[59].Time.Equal(barsStart.Add(59*time.Minute)) ||
		bars[9].Low.String() != "9.4" || bars[11].High.String() != "11.35" || bars[0].Volume.String() != "100" {
		t.Fatalf("%d bars: first %+v", len(bars), bars[0])
	}
}

func TestProviders(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, asset, provider, symbol string
		handle                        http.HandlerFunc
	}{
		{"Finnhub", "stock", config.BarsFinnhub, "AAPL", markettest.Candles(map[string][]markettest.Candle{"AAPL": hour}, nil)},
		// Pages of 25: three calls, following next_page_token.
		{"Alpaca", "stock", config.BarsAlpaca, "AAPL", markettest.Alpaca(alpacaID, alpacaSecret, map[string][]markettest.Candle{"AAPL": hour}, 25)},
		{"TwelveData", "forex", config.BarsTwelveData, "EUR/USD", markettest.TwelveData(twelveKey, map[string][]markettest.Candle{"EUR/USD": hour})},
		{"Binance", "crypto", config.BarsBinance, "BTC/USDT", markettest.Binance(map[string][]markettest.Candle{"BTCUSDT": hour})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := markettest.NewProvider(t, tc.handle)
			f, _ := feeds(t, tc.asset, tc.provider, p.URL)
			bars, err := f.Bars(ctx, tc.asset, tc.symbol, minuteWindow)
			checkHour(t, bars, err)
			calls := p.Calls()
			if _, err := f.Bars(ctx, tc.asset, tc.symbol, minuteWindow); err != nil || p.Calls() != calls {
				t.Fatalf("not cached: %v, %d calls", err, p.Calls())
			}
			if tc.provider == config.BarsAlpaca && calls != 3 {
				t.Fatalf("%d calls for 60 bars in pages of 25", calls)
			}
			// A symbol the provider does not know has no bars.
			other := map[string]string{"stock": "ZZZZ", "forex": "NOK/SEK", "crypto": "FOO/BAR"}[tc.asset]
			if bars, err := f.Bars(ctx, tc.asset, other, minuteWindow); err != nil || len(bars) != 0 {
				t.Fatalf("unknown symbol: %v %v", bars, err)
			}
			// Daily bars of a span without any: none.
			days := market.Window{Resolution: market.Resolutions[5], From: barsStart.AddDate(-1, 0, 0), To: barsStart.AddDate(0, -6, 0)}
			if bars, err := f.Bars(ctx, tc.asset, tc.symbol, days); err != nil || len(bars) != 0 {
				t.Fatalf("empty span: %v %v", bars, err)
			}
		})
	}
}

// TestBinancePaging: 2500 minutes of bars come in pages of 1000 (the
// limit), each starting a bar after the last one read.
func TestBinancePaging(t *testing.T) {
	long := markettest.Minutes(barsStart, 2500, nil)
	p := markettest.NewProvider(t, markettest.Binance(map[string][]markettest.Candle{"ETHUSDT": long}))
	f, _ := feeds(t, "crypto", config.BarsBinance, p.URL)
	w := market.Window{Resolution: market.Resolutions[0], From: barsStart, To: barsStart.Add(1999 * time.Minute)}
	bars, err := f.Bars(context.Background(), "crypto", "ETH/USDT", w)
	if err != nil || len(bars) != 2000 || p.Calls() != 2 || !bars[1999].Time.Equal(w.To) {
		t.Fatalf("%d bars, %d calls, %v", len(bars), p.Calls(), err)
	}
	// A perpetual is not a spot pair: no bars, no call.
	if bars, err := f.Bars(context.Background(), "crypto", "ETH/USDT:PERP", w); err != nil || len(bars) != 0 || p.Calls() != 2 {
		t.Fatalf("perpetual: %v %v", bars, err)
	}
}

// TestProviderErrors: a refused key and a rate limit are 502s that say
// so in words, name the provider and never carry the key; a rate limit
// passes its Retry-After on.
func TestProviderErrors(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, asset, provider, symbol string
		handle                        http.HandlerFunc
		words                         string
		retry                         int
	}{
		{"AlpacaKey", "stock", config.BarsAlpaca, "AAPL", markettest.Alpaca("other", alpacaSecret, nil, 100), "Alpaca refused this instance's market-data key", 0},
		{"AlpacaLimit", "stock", config.BarsAlpaca, "AAPL", markettest.RateLimited(0, nil), "Alpaca's request limit", 30},
		{"TwelveDataKey", "stock", config.BarsTwelveData, "AAPL", markettest.TwelveData("other", nil), "Twelve Data refused", 0},
		{"TwelveDataCredits", "stock", config.BarsTwelveData, "AAPL", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"code":429,"message":"You have run out of API credits for the current minute.","status":"error"}`)) //nolint:errcheck
		}, "Twelve Data's request limit", 60},
		{"BinanceBan", "crypto", config.BarsBinance, "BTC/USDT", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(http.StatusTeapot)
		}, "Binance's request limit", 120},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := markettest.NewProvider(t, tc.handle)
			f, logs := feeds(t, tc.asset, tc.provider, p.URL)
			_, err := f.Bars(ctx, tc.asset, tc.symbol, minuteWindow)
			e, ok := apperr.As(err)
			if !ok || e.Code != apperr.BadGateway || !strings.Contains(e.Message, tc.words) || !market.Refused(err) {
				t.Fatalf("error %v", err)
			}
			if tc.retry > 0 && e.RetryAfterSeconds < tc.retry {
				t.Fatalf("retry after %d", e.RetryAfterSeconds)
			}
			for _, secret := range []string{alpacaSecret, twelveKey, alpacaID} {
				if strings.Contains(e.Message, secret) || strings.Contains(logs.String(), secret) {
					t.Fatal("a key reached the message or the log")
				}
			}
		})
	}
	t.Run("Unusable", func(t *testing.T) {
		for name, body := range map[string]string{
			"alpacaHighLow": `{"bars":[{"t":"2025-06-02T14:00:00Z","o":1,"h":1,"l":2,"c":1,"v":1}],"next_page_token":null}`,
			"alpacaString":  `{"bars":[{"t":"2025-06-02T14:00:00Z","o":"x","h":1,"l":1,"c":1,"v":1}],"next_page_token":null}`,
			"alpacaOrder":   `{"bars":[{"t":"2025-06-02T14:01:00Z","o":1,"h":1,"l":1,"c":1,"v":1},{"t":"2025-06-02T14:00:00Z","o":1,"h":1,"l":1,"c":1,"v":1}]}`,
			"notJSON":       `<html>`,
		} {
			p := markettest.NewProvider(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(body)) }) //nolint:errcheck
			f, _ := feeds(t, "stock", config.BarsAlpaca, p.URL)
			_, err := f.Bars(ctx, "stock", "AAPL", minuteWindow)
			if e, ok := apperr.As(err); !ok || e.Code != apperr.BadGateway || market.Refused(err) || !strings.Contains(e.Message, "Alpaca did not answer usably") {
				t.Errorf("%s: %v", name, err)
			}
		}
	})
	t.Run("Timeout", func(t *testing.T) {
		release := make(chan struct{})
		p := markettest.NewProvider(t, func(w http.ResponseWriter, r *http.Request) { <-release })
		t.Cleanup(func() { close(release) })
		f, _ := feeds(t, "crypto", config.BarsBinance, p.URL)
		f.Timeout = 100 * time.Millisecond
		if _, err := f.Bars(ctx, "crypto", "BTC/USDT", minuteWindow); code(err) != apperr.GatewayTimeout || !strings.Contains(err.Error(), "Binance") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("CallerDeadline", func(t *testing.T) {
		// The route's own deadline passing answers the provider's words,
		// not the quote provider's.
		release := make(chan struct{})
		p := markettest.NewProvider(t, func(w http.ResponseWriter, r *http.Request) { <-release })
		t.Cleanup(func() { close(release) })
		f, _ := feeds(t, "crypto", config.BarsBinance, p.URL)
		cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		_, err := f.Bars(cctx, "crypto", "BTC/USDT", minuteWindow)
		if code(err) != apperr.GatewayTimeout || !strings.Contains(err.Error(), "Binance did not answer in time") || strings.Contains(err.Error(), "quote") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("NoProvider", func(t *testing.T) {
		f, _ := feeds(t, "crypto", config.BarsBinance, "http://127.0.0.1:1")
		if _, ok := f.Source("future"); ok {
			t.Fatal("a provider for futures")
		}
		if _, err := f.Bars(ctx, "future", "ESZ25", minuteWindow); code(err) != apperr.NotFound {
			t.Fatalf("error %v", err)
		}
	})
}

// TestUncachedFeeds: the excursions job's feeds ask the provider every
// time; the route's ask once a window within the TTL.
func TestUncachedFeeds(t *testing.T) {
	p := markettest.NewProvider(t, markettest.Binance(map[string][]markettest.Candle{"BTCUSDT": hour}))
	cfg := config.Market{Bars: config.Bars{Providers: map[string]string{"crypto": config.BarsBinance}, BinanceURL: p.URL}}
	for _, tc := range []struct {
		name  string
		feeds *market.Feeds
		calls int
	}{
		{"Cached", market.NewFeeds(cfg, nil, time.Now, nil), 1},
		{"Uncached", market.NewUncachedFeeds(cfg, nil, time.Now, nil), 2},
	} {
		before := p.Calls()
		for range 2 {
			bars, err := tc.feeds.Bars(context.Background(), "crypto", "BTC/USDT", minuteWindow)
			checkHour(t, bars, err)
		}
		if got := p.Calls() - before; got != tc.calls {
			t.Errorf("%s: %d calls, want %d", tc.name, got, tc.calls)
		}
	}
}

// TestOptionsUseTheStockProvider: an option's bars are its underlying's,
// from the stock provider unless BARS_PROVIDERS names one for options.
func TestOptionsUseTheStockProvider(t *testing.T) {
	f, _ := feeds(t, "stock", config.BarsAlpaca, "http://127.0.0.1:1")
	if s, ok := f.Source("option"); !ok || s.Name() != "Alpaca" {
		t.Fatalf("option source %v", s)
	}
}

// TestTwelveDataPlan: a symbol beyond the key's plan (403, in the body of
// a 200 or as the status) has no bars from Twelve Data, in words saying
// so; it is not a refusal of every look-up.
func TestTwelveDataPlan(t *testing.T) {
	for name, handle := range map[string]http.HandlerFunc{
		"InBody": func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"code":403,"message":"This symbol is available starting with the Grow plan.","status":"error"}`)) //nolint:errcheck
		},
		"Status": func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusForbidden)
			w.Write([]byte(`{"code":403,"message":"This symbol is available starting with the Grow plan.","status":"error"}`)) //nolint:errcheck
		},
	} {
		t.Run(name, func(t *testing.T) {
			p := markettest.NewProvider(t, handle)
			f, _ := feeds(t, "stock", config.BarsTwelveData, p.URL)
			_, err := f.Bars(context.Background(), "stock", "AAPL", minuteWindow)
			if e, ok := apperr.As(err); !ok || e.Code != apperr.NotFound || market.Refused(err) || !strings.Contains(e.Message, "Twelve Data's plan for this instance does not cover this symbol") {
				t.Fatalf("error %v", err)
			}
		})
	}
}
