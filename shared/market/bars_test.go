package market_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"tradejournal/shared/apperr"
	"tradejournal/shared/config"
	"tradejournal/shared/market"
	"tradejournal/shared/market/markettest"
)

var barsStart = time.Date(2025, 6, 2, 14, 0, 0, 0, time.UTC)

// fiveMinute returns bars of 5 minutes from barsStart: each (low, high).
func fiveMinute(lowHigh ...[2]string) []markettest.Candle {
	var out []markettest.Candle
	for i, lh := range lowHigh {
		out = append(out, markettest.Candle{T: barsStart.Add(time.Duration(i) * 5 * time.Minute).Unix(), O: lh[0], H: lh[1], L: lh[0], C: lh[1], V: 100})
	}
	return out
}

// finnhubFeeds is Feeds with Finnhub (the quote provider) for stocks.
func finnhubFeeds(t *testing.T, url string) *market.Feeds {
	f, _ := feeds(t, "stock", config.BarsFinnhub, url)
	return f
}

func TestBars(t *testing.T) {
	ctx := context.Background()
	bars := fiveMinute([2]string{"10", "11"}, [2]string{"9.5", "10.5"}, [2]string{"10.25", "12.75"}, [2]string{"8", "9"})
	p := markettest.NewProvider(t, nil)
	var last *http.Request
	handle := markettest.Candles(map[string][]markettest.Candle{"AAPL": bars}, nil)
	p.Handle = func(w http.ResponseWriter, r *http.Request) { last = r; handle(w, r) }
	f := finnhubFeeds(t, p.URL)
	w := market.Window{Resolution: market.Resolutions[1], From: barsStart, To: barsStart.Add(time.Hour)}

	got, err := f.Bars(ctx, "stock", "AAPL", w)
	if err != nil || len(got) != 4 || got[2].High.String() != "12.75" || !got[3].Time.Equal(barsStart.Add(15*time.Minute)) {
		t.Fatalf("bars %v %v", got, err)
	}
	qs := last.URL.Query()
	if last.URL.Path != "/stock/candle" || qs.Get("symbol") != "AAPL" || qs.Get("resolution") != "5" ||
		qs.Get("from") != fmt.Sprint(barsStart.Unix()) || last.Header.Get("X-Finnhub-Token") != quoteKey || qs.Has("token") {
		t.Fatalf("request %s %v", last.URL, last.Header)
	}
	if _, err := f.Bars(ctx, "stock", "AAPL", w); err != nil || p.Calls() != 1 {
		t.Fatalf("cached: %v, %d calls", err, p.Calls())
	}
	if got, err := f.Bars(ctx, "stock", "NONE", w); err != nil || len(got) != 0 {
		t.Fatalf("no data: %v %v", got, err)
	}
}

func TestBarsUnusable(t *testing.T) {
	w := market.Window{Resolution: market.Resolutions[0], From: barsStart, To: barsStart.Add(time.Hour)}
	for name, body := range map[string]string{
		"status":    `{"s":"error"}`,
		"unequal":   `{"s":"ok","t":[1748872800],"o":[1],"h":[1],"l":[1],"c":[]," v":[]}`,
		"notNumber": `{"s":"ok","t":[1748872800],"o":["x"],"h":[1],"l":[1],"c":[1],"v":[1]}`,
		"openAbove": `{"s":"ok","t":[1748872800],"o":[3],"h":[2],"l":[1],"c":[1],"v":[1]}`,
		"negative":  `{"s":"ok","t":[1748872800],"o":[-1],"h":[1],"l":[1],"c":[1],"v":[1]}`,
		"highLow":   `{"s":"ok","t":[1748872800],"o":[1],"h":[1],"l":[2],"c":[1],"v":[1]}`,
		"order":     `{"s":"ok","t":[1748872800,1748872800],"o":[1,1],"h":[1,1],"l":[1,1],"c":[1,1],"v":[1,1]}`,
		"notObject": `[]`,
	} {
		t.Run(name, func(t *testing.T) {
			p := markettest.NewProvider(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, body) })
			if _, err := finnhubFeeds(t, p.URL).Bars(context.Background(), "stock", "AAPL", w); code(err) != apperr.BadGateway ||
				!strings.Contains(err.Error(), "Finnhub did not answer usably") {
				t.Fatalf("error %v", err)
			}
		})
	}
	t.Run("Timeout", func(t *testing.T) {
		release := make(chan struct{})
		p := markettest.NewProvider(t, func(w http.ResponseWriter, r *http.Request) { <-release })
		t.Cleanup(func() { close(release) })
		f := finnhubFeeds(t, p.URL)
		f.Timeout = 100 * time.Millisecond
		if _, err := f.Bars(context.Background(), "stock", "AAPL", w); code(err) != apperr.GatewayTimeout {
			t.Fatalf("error %v", err)
		}
	})
}

func TestWindowFor(t *testing.T) {
	for _, tc := range []struct {
		hold     time.Duration
		code     string
		from, to time.Duration // from barsStart
	}{
		// 40 minutes: 1-minute bars, 20 bars of margin each side.
		{40 * time.Minute, "1", -20 * time.Minute, 60 * time.Minute},
		// 6 hours: 5-minute bars (72), 3 hours of margin.
		{6 * time.Hour, "5", -3 * time.Hour, 9 * time.Hour},
		// 30 days: daily bars, 20 days of margin, ends on whole days.
		{30 * 24 * time.Hour, "D", -(20*24 + 14) * time.Hour, (50*24 + 10) * time.Hour},
	} {
		w := market.WindowFor(barsStart, barsStart.Add(tc.hold))
		if w.Resolution.Code != tc.code || !w.From.Equal(barsStart.Add(tc.from)) || !w.To.Equal(barsStart.Add(tc.to)) {
			t.Errorf("hold %v: %s %v %v", tc.hold, w.Resolution.Code, w.From, w.To)
		}
	}
	// An end inside a bar rounds up to the bar's end.
	w := market.WindowFor(barsStart, barsStart.Add(40*time.Minute+10*time.Second))
	if !w.To.Equal(barsStart.Add(61 * time.Minute)) {
		t.Errorf("to %v", w.To)
	}
}
