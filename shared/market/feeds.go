package market

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/config"
	"tradejournal/shared/instrument"
)

// BarSource is one provider of price bars (docs/market-data.md).
type BarSource interface {
	// Name is the provider's name as a trader knows it: it appears in the
	// error messages they read.
	Name() string
	// Bars returns the bars of symbol, the journal's symbol of an asset of
	// assetType (an option's underlying is asked for as a stock), in w,
	// oldest first. A symbol the provider does not know has no bars: an
	// empty list.
	Bars(ctx context.Context, assetType, symbol string, w Window) ([]Bar, error)
}

// Feeds picks each asset type's bar provider (BARS_PROVIDERS) and, made
// by NewFeeds, caches their answers: a window's bars for TTL, shared by
// every caller.
type Feeds struct {
	flights
	sources map[string]BarSource // by asset type
}

// NewFeeds returns the bar providers of cfg, their answers cached (the
// bars route's: many traders' charts ask for one window). Finnhub's bars
// take the quote key (STOCK_QUOTE_API_KEY).
func NewFeeds(cfg config.Market, client *http.Client, now func() time.Time, log *slog.Logger) *Feeds {
	return newFeeds(cfg, client, now, log)
}

// NewUncachedFeeds is NewFeeds without the cache, each look-up one call
// bounded by Timeout: the excursions job's, whose look-ups (a position
// each, runs minutes apart) never repeat within a TTL.
func NewUncachedFeeds(cfg config.Market, client *http.Client, now func() time.Time, log *slog.Logger) *Feeds {
	f := newFeeds(cfg, client, now, log)
	f.cache = nil
	return f
}

func newFeeds(cfg config.Market, client *http.Client, now func() time.Time, log *slog.Logger) *Feeds {
	b := cfg.Bars
	f := &Feeds{flights: newFlights(now), sources: map[string]BarSource{}}
	for asset, name := range b.Providers {
		switch name {
		case config.BarsFinnhub:
			f.sources[asset] = newFinnhub(cfg, client, log)
		case config.BarsAlpaca:
			h := newHTTPSource("Alpaca", client, log, b.AlpacaKeyID, b.AlpacaSecretKey)
			f.sources[asset] = alpaca{httpSource: h, base: strings.TrimSuffix(b.AlpacaURL, "/"), feed: b.AlpacaFeed}
		case config.BarsTwelveData:
			h := newHTTPSource("Twelve Data", client, log, b.TwelveDataKey)
			h.planForbids = true
			f.sources[asset] = twelveData{httpSource: h, base: strings.TrimSuffix(b.TwelveDataURL, "/")}
		case config.BarsBinance:
			f.sources[asset] = binance{httpSource: newHTTPSource("Binance", client, log), base: strings.TrimSuffix(b.BinanceURL, "/")}
		}
	}
	if _, ok := f.sources[instrument.AssetOption]; !ok && f.sources[instrument.AssetStock] != nil {
		f.sources[instrument.AssetOption] = f.sources[instrument.AssetStock]
	}
	return f
}

// Source is the provider of assetType's bars; ok is false when it has none.
func (f *Feeds) Source(assetType string) (BarSource, bool) {
	s, ok := f.sources[assetType]
	return s, ok
}

// Bars returns assetType's provider's bars of symbol in w, cached (made by
// NewFeeds). Without a provider for assetType it is the codeless 404.
// Errors are *apperr.Error values that name the provider and say what to
// do, also when ctx ends first.
func (f *Feeds) Bars(ctx context.Context, assetType, symbol string, w Window) ([]Bar, error) {
	s, ok := f.sources[assetType]
	if !ok {
		return nil, apperr.ErrNotFound
	}
	key := s.Name() + " " + assetType + " " + symbol + " " + w.Resolution.Code + " " + w.From.Format(time.RFC3339) + " " + w.To.Format(time.RFC3339)
	v, err := f.get(ctx, key, errTimedOut(s.Name()), func(ctx context.Context) (any, error) { return s.Bars(ctx, assetType, symbol, w) })
	bars, _ := v.([]Bar)
	return bars, err
}

// maxPages bounds the calls one window's bars may take.
const maxPages = 5

// interval is a provider's name of w's resolution: names lists them in
// the order of Resolutions.
func interval(w Window, names [7]string) string {
	return names[slices.IndexFunc(Resolutions, func(r Resolution) bool { return r.Step == w.Resolution.Step })]
}

// CheckBars refuses bars that are not whole and in order, and more than
// max of them (a provider's answer: maxBars; a backup's upload:
// MaxUploadRows).
func CheckBars(bars []Bar, max int) error {
	if len(bars) > max {
		return fmt.Errorf("%d bars", len(bars))
	}
	for i, b := range bars {
		switch {
		case !b.Open.IsPositive() || !b.High.IsPositive() || !b.Low.IsPositive() || !b.Close.IsPositive() || b.Volume.IsNegative():
			return fmt.Errorf("bar %d has a price that is not positive", i)
		case b.High.LessThan(b.Low) || b.Open.GreaterThan(b.High) || b.Open.LessThan(b.Low) || b.Close.GreaterThan(b.High) || b.Close.LessThan(b.Low):
			return fmt.Errorf("bar %d has its open or close outside its high and low", i)
		case i > 0 && !b.Time.After(bars[i-1].Time):
			return fmt.Errorf("bar %d is out of order", i)
		}
	}
	return nil
}

// decimalOf reads a JSON number or a JSON string holding one.
func decimalOf(raw json.RawMessage) (decimal.Decimal, error) {
	if n, ok := number(raw); ok {
		return decimal.NewFromString(n.String())
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return decimal.Decimal{}, errors.New("not a number")
	}
	return decimal.NewFromString(s)
}

// alpaca is Alpaca's Market Data API v2 (stocks):
// GET {base}/v2/stocks/{symbol}/bars?timeframe=&start=&end=&limit=&adjustment=raw&feed=&sort=asc[&page_token=]
// with the APCA-API-KEY-ID and APCA-API-SECRET-KEY headers, answering
// {"bars":[{"t":RFC 3339,"o","h","l","c","v",...}]|null,"symbol","next_page_token":string|null};
// pages are followed while next_page_token is set (up to maxPages).
// The free plan serves the IEX feed (feed=iex), 200 calls a minute.
type alpaca struct {
	httpSource
	base, feed string
}

var alpacaFrames = [7]string{"1Min", "5Min", "15Min", "30Min", "1Hour", "1Day", "1Week"}

func (a alpaca) Bars(ctx context.Context, _ string, symbol string, w Window) ([]Bar, error) {
	header := http.Header{"Apca-Api-Key-Id": {a.secrets[0]}, "Apca-Api-Secret-Key": {a.secrets[1]}}
	q := url.Values{"timeframe": {interval(w, alpacaFrames)}, "start": {w.From.UTC().Format(time.RFC3339)},
		"end": {w.To.UTC().Format(time.RFC3339)}, "limit": {"1000"}, "adjustment": {"raw"}, "feed": {a.feed}, "sort": {"asc"}}
	var bars []Bar
	for range maxPages {
		status, body, err := a.get(ctx, a.base+"/v2/stocks/"+url.PathEscape(symbol)+"/bars?"+q.Encode(), header)
		if err != nil {
			return nil, err
		}
		if status == http.StatusNotFound || status == http.StatusBadRequest || status == http.StatusUnprocessableEntity {
			// An unknown or malformed symbol ({"message": "invalid symbol: ..."}).
			a.log.Warn("Alpaca refused the symbol", "symbol", symbol, "status", status)
			return []Bar{}, nil
		}
		if status != http.StatusOK {
			return nil, a.unusable(fmt.Errorf("status %d", status))
		}
		var page struct {
			Bars []struct {
				T time.Time       `json:"t"`
				O json.RawMessage `json:"o"`
				H json.RawMessage `json:"h"`
				L json.RawMessage `json:"l"`
				C json.RawMessage `json:"c"`
				V json.RawMessage `json:"v"`
			} `json:"bars"`
			Next *string `json:"next_page_token"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			return nil, a.unusable(err)
		}
		for _, pb := range page.Bars {
			b := Bar{Time: pb.T.UTC()}
			if err := readOHLCV(&b, pb.O, pb.H, pb.L, pb.C, pb.V); err != nil {
				return nil, a.unusable(err)
			}
			bars = append(bars, b)
		}
		if page.Next == nil || *page.Next == "" || len(bars) > maxBars {
			break
		}
		q.Set("page_token", *page.Next)
	}
	if err := CheckBars(bars, maxBars); err != nil {
		return nil, a.unusable(err)
	}
	return orEmpty(bars), nil
}

// readOHLCV reads a bar's open, high, low, close and volume (numbers or
// strings holding one; no volume is 0, as forex has none) into b.
func readOHLCV(b *Bar, o, h, l, c, v json.RawMessage) error {
	for _, f := range []struct {
		raw json.RawMessage
		dst *decimal.Decimal
	}{{o, &b.Open}, {h, &b.High}, {l, &b.Low}, {c, &b.Close}, {v, &b.Volume}} {
		if len(f.raw) == 0 && f.dst == &b.Volume {
			continue // forex has no volume
		}
		d, err := decimalOf(f.raw)
		if err != nil {
			return fmt.Errorf("a bar of %s has a value that is not a number", b.Time.Format(time.RFC3339))
		}
		*f.dst = d
	}
	return nil
}

func orEmpty(bars []Bar) []Bar {
	if bars == nil {
		return []Bar{}
	}
	return bars
}

// twelveData is Twelve Data's time series (stocks, forex, crypto):
// GET {base}/time_series?symbol=&interval=&start_date=&end_date=&timezone=UTC&order=asc&outputsize=5000
// with "Authorization: apikey KEY", answering
// {"meta":{...},"values":[{"datetime","open","high","low","close","volume"?}],"status":"ok"}
// or {"code":N,"message","status":"error"} (often with HTTP 200): 400 for
// a date range without data, 401 a bad key, 403 a symbol beyond the plan
// (errBeyondPlan: no bars of it here),
// 404 an unknown symbol, 429 the minute's credits used up (the free plan:
// 8 a minute, 800 a day). One call answers at most 5000 bars.
type twelveData struct {
	httpSource
	base string
}

var twelveIntervals = [7]string{"1min", "5min", "15min", "30min", "1h", "1day", "1week"}

// twelveTime is the layout of Twelve Data's dates (date only for days).
const twelveTime = "2006-01-02 15:04:05"

func (t twelveData) Bars(ctx context.Context, _ string, symbol string, w Window) ([]Bar, error) {
	if strings.Contains(symbol, ":") {
		return []Bar{}, nil // a crypto perpetual or dated future: spot pairs only
	}
	q := url.Values{"symbol": {symbol}, "interval": {interval(w, twelveIntervals)}, "start_date": {w.From.UTC().Format(twelveTime)},
		"end_date": {w.To.UTC().Format(twelveTime)}, "timezone": {"UTC"}, "order": {"asc"}, "outputsize": {"5000"}}
	status, body, err := t.get(ctx, t.base+"/time_series?"+q.Encode(), http.Header{"Authorization": {"apikey " + t.secrets[0]}})
	if err != nil {
		return nil, err
	}
	var res struct {
		Status string `json:"status"`
		Code   int    `json:"code"`
		Values []struct {
			Datetime string          `json:"datetime"`
			Open     json.RawMessage `json:"open"`
			High     json.RawMessage `json:"high"`
			Low      json.RawMessage `json:"low"`
			Close    json.RawMessage `json:"close"`
			Volume   json.RawMessage `json:"volume"`
		} `json:"values"`
	}
	if err := json.Unmarshal(body, &res); err != nil {
		return nil, t.unusable(fmt.Errorf("status %d, not the expected JSON object", status))
	}
	if res.Status == "error" || status != http.StatusOK {
		code := res.Code
		if code == 0 {
			code = status
		}
		switch code {
		case http.StatusBadRequest, http.StatusNotFound:
			return []Bar{}, nil // no data in the range, or no such symbol
		case http.StatusForbidden:
			t.log.Warn("bar provider's plan does not cover the symbol", "provider", t.name, "symbol", symbol)
			return nil, errBeyondPlan(t.name)
		case http.StatusUnauthorized:
			t.log.Warn("bar provider refused the key", "provider", t.name, "code", res.Code)
			return nil, errKeyRefused(t.name)
		case http.StatusTooManyRequests:
			t.log.Warn("bar provider's rate limit reached", "provider", t.name)
			return nil, errRateLimited(t.name, 60)
		}
		return nil, t.unusable(fmt.Errorf("status %d, code %d", status, res.Code))
	}
	bars := make([]Bar, 0, len(res.Values))
	for _, v := range res.Values {
		at, err := time.Parse(twelveTime, v.Datetime)
		if err != nil {
			if at, err = time.Parse(time.DateOnly, v.Datetime); err != nil {
				return nil, t.unusable(fmt.Errorf("datetime %q", v.Datetime))
			}
		}
		b := Bar{Time: at.UTC()}
		if err := readOHLCV(&b, v.Open, v.High, v.Low, v.Close, v.Volume); err != nil {
			return nil, t.unusable(err)
		}
		bars = append(bars, b)
	}
	// Twelve Data's end_date is inclusive of its day for daily bars and
	// may add one bar past To; order=asc is asked for, but checked.
	if err := CheckBars(bars, maxBars); err != nil {
		return nil, t.unusable(err)
	}
	return bars, nil
}

// binance is Binance's public spot candles (no key):
// GET {base}/api/v3/klines?symbol=BTCUSDT&interval=&startTime=&endTime=&limit=1000
// (milliseconds), answering [[openTime, "open", "high", "low", "close",
// "volume", closeTime, ...], ...] oldest first, at most limit rows; the
// next page starts a bar after the last row. Errors are
// {"code":-1121,"msg":"Invalid symbol."} with 400; 429 past the weight
// limit (6000 a minute per IP), 418 once banned for ignoring it, both
// with Retry-After. A journal pair BTC/USDT is Binance's BTCUSDT; futures
// and perpetuals are not spot, so have no bars here.
type binance struct {
	httpSource
	base string
}

var binanceIntervals = [7]string{"1m", "5m", "15m", "30m", "1h", "1d", "1w"}

// binanceLimit is the rows a klines call asks for: its maximum.
const binanceLimit = 1000

func (b binance) Bars(ctx context.Context, _ string, symbol string, w Window) ([]Bar, error) {
	base, quote, ok := strings.Cut(symbol, "/")
	if !ok || strings.Contains(quote, ":") {
		return []Bar{}, nil
	}
	q := url.Values{"symbol": {base + quote}, "interval": {interval(w, binanceIntervals)},
		"endTime": {strconv.FormatInt(w.To.UnixMilli(), 10)}, "limit": {strconv.Itoa(binanceLimit)}}
	from := w.From
	var bars []Bar
	for range maxPages {
		q.Set("startTime", strconv.FormatInt(from.UnixMilli(), 10))
		status, body, err := b.get(ctx, b.base+"/api/v3/klines?"+q.Encode(), nil)
		if err != nil {
			return nil, err
		}
		if status == http.StatusBadRequest {
			var e struct {
				Code int `json:"code"`
			}
			if json.Unmarshal(body, &e) == nil && e.Code == -1121 { // Invalid symbol.
				return []Bar{}, nil
			}
		}
		if status != http.StatusOK {
			return nil, b.unusable(fmt.Errorf("status %d", status))
		}
		var rows [][]json.RawMessage
		if err := json.Unmarshal(body, &rows); err != nil {
			return nil, b.unusable(err)
		}
		for _, r := range rows {
			if len(r) < 6 {
				return nil, b.unusable(errors.New("a kline of fewer than 6 fields"))
			}
			ms, err := decimalOf(r[0])
			if err != nil || !ms.IsInteger() || ms.Sign() <= 0 || ms.GreaterThan(decimal.New(1, 15)) {
				return nil, b.unusable(errors.New("an open time that is not a time"))
			}
			bar := Bar{Time: time.UnixMilli(ms.IntPart()).UTC()}
			if err := readOHLCV(&bar, r[1], r[2], r[3], r[4], r[5]); err != nil {
				return nil, b.unusable(err)
			}
			bars = append(bars, bar)
		}
		if len(rows) < binanceLimit || len(bars) > maxBars {
			break
		}
		from = bars[len(bars)-1].Time.Add(w.Resolution.Step)
		if from.After(w.To) {
			break
		}
	}
	if err := CheckBars(bars, maxBars); err != nil {
		return nil, b.unusable(err)
	}
	return orEmpty(bars), nil
}
