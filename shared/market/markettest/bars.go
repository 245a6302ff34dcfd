package markettest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// The stand-ins below answer as the bar providers document their APIs
// (shared/market/feeds.go names each), over bars given as Candles, so the
// client's paging, limits and errors meet a server that behaves the same.

// inRange returns the bars of bars with from <= T <= to.
func inRange(bars []Candle, from, to int64) []Candle {
	var out []Candle
	for _, b := range bars {
		if b.T >= from && b.T <= to {
			out = append(out, b)
		}
	}
	return out
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Alpaca answers GET /v2/stocks/{symbol}/bars as Alpaca's Market Data API
// v2: the key pair in APCA-API-KEY-ID and APCA-API-SECRET-KEY (403
// {"message":"forbidden."} otherwise), timeframe, start and end (RFC
// 3339), limit (1 to 10000, default 1000), feed (iex or sip), and
// page_token; at most pageSize bars a page (the limit when smaller), with
// next_page_token set while more remain. A malformed parameter is 400
// {"message": ...}; a symbol without bars answers "bars": null.
func Alpaca(keyID, secret string, bars map[string][]Candle, pageSize int) http.HandlerFunc {
	frames := []string{"1Min", "5Min", "15Min", "30Min", "1Hour", "1Day", "1Week"}
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("APCA-API-KEY-ID") != keyID || r.Header.Get("APCA-API-SECRET-KEY") != secret {
			writeJSON(w, http.StatusForbidden, map[string]string{"message": "forbidden."})
			return
		}
		rest, ok := strings.CutPrefix(r.URL.Path, "/v2/stocks/")
		symbol, ok2 := strings.CutSuffix(rest, "/bars")
		if !ok || !ok2 || r.Method != http.MethodGet {
			writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
			return
		}
		q := r.URL.Query()
		start, err1 := time.Parse(time.RFC3339, q.Get("start"))
		end, err2 := time.Parse(time.RFC3339, q.Get("end"))
		limit := 1000
		if s := q.Get("limit"); s != "" {
			limit, _ = strconv.Atoi(s)
		}
		switch {
		case !slices.Contains(frames, q.Get("timeframe")):
			writeJSON(w, http.StatusBadRequest, map[string]string{"message": "invalid timeframe"})
			return
		case err1 != nil || err2 != nil || end.Before(start):
			writeJSON(w, http.StatusBadRequest, map[string]string{"message": "invalid start or end"})
			return
		case limit < 1 || limit > 10000:
			writeJSON(w, http.StatusBadRequest, map[string]string{"message": "invalid limit: must be between 1 and 10000"})
			return
		case q.Get("feed") != "iex" && q.Get("feed") != "sip":
			writeJSON(w, http.StatusBadRequest, map[string]string{"message": "invalid feed"})
			return
		}
		all := inRange(bars[symbol], start.Unix(), end.Unix())
		offset := 0
		if tok := q.Get("page_token"); tok != "" {
			n, err := strconv.Atoi(strings.TrimPrefix(tok, "page-"))
			if err != nil || n <= 0 || n > len(all) {
				writeJSON(w, http.StatusBadRequest, map[string]string{"message": "invalid page_token"})
				return
			}
			offset = n
		}
		size := min(limit, pageSize)
		page := all[offset:min(len(all), offset+size)]
		var out []map[string]any
		for _, b := range page {
			out = append(out, map[string]any{"t": time.Unix(b.T, 0).UTC().Format(time.RFC3339), "o": json.Number(b.O),
				"h": json.Number(b.H), "l": json.Number(b.L), "c": json.Number(b.C), "v": b.V, "n": 12, "vw": json.Number(b.C)})
		}
		var next *string
		if offset+size < len(all) {
			s := fmt.Sprintf("page-%d", offset+size)
			next = &s
		}
		writeJSON(w, http.StatusOK, map[string]any{"bars": out, "symbol": symbol, "next_page_token": next})
	}
}

// TwelveData answers GET /time_series as Twelve Data: the key as
// "Authorization: apikey KEY", symbol, interval, start_date and end_date
// ("2006-01-02 15:04:05" in timezone UTC), order (asc or desc, the
// default), outputsize (1 to 5000). Its errors come with HTTP 200 and
// {"code", "message", "status":"error"}: 401 a bad key, 400 a bad
// parameter or a range without data, 404 an unknown symbol.
func TwelveData(key string, bars map[string][]Candle) http.HandlerFunc {
	intervals := []string{"1min", "5min", "15min", "30min", "45min", "1h", "2h", "4h", "1day", "1week", "1month"}
	fail := func(w http.ResponseWriter, code int, msg string) {
		writeJSON(w, http.StatusOK, map[string]any{"code": code, "message": msg, "status": "error"})
	}
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "apikey "+key {
			fail(w, 401, "**apikey** parameter is incorrect or not specified.")
			return
		}
		if r.URL.Path != "/time_series" {
			fail(w, 404, "not found")
			return
		}
		q := r.URL.Query()
		const layout = "2006-01-02 15:04:05"
		start, err1 := time.Parse(layout, q.Get("start_date"))
		end, err2 := time.Parse(layout, q.Get("end_date"))
		size, err3 := strconv.Atoi(q.Get("outputsize"))
		switch {
		case !slices.Contains(intervals, q.Get("interval")):
			fail(w, 400, "**interval** is not valid")
			return
		case err1 != nil || err2 != nil || q.Get("timezone") != "UTC":
			fail(w, 400, "**start_date** or **end_date** is not valid")
			return
		case err3 != nil || size < 1 || size > 5000:
			fail(w, 400, "**outputsize** must be between 1 and 5000")
			return
		}
		series, ok := bars[q.Get("symbol")]
		if !ok {
			fail(w, 404, "**symbol** not found: "+q.Get("symbol")+". Please specify it correctly according to API Documentation.")
			return
		}
		in := inRange(series, start.Unix(), end.Unix())
		if len(in) == 0 {
			fail(w, 400, "No data is available on the specified dates. Try setting different start/end dates.")
			return
		}
		if len(in) > size {
			in = in[len(in)-size:]
		}
		values := []map[string]string{}
		for _, b := range in {
			values = append(values, map[string]string{"datetime": time.Unix(b.T, 0).UTC().Format(layout),
				"open": b.O, "high": b.H, "low": b.L, "close": b.C, "volume": strconv.FormatInt(b.V, 10)})
		}
		if q.Get("order") != "asc" {
			slices.Reverse(values)
		}
		writeJSON(w, http.StatusOK, map[string]any{"meta": map[string]string{"symbol": q.Get("symbol"), "interval": q.Get("interval")},
			"values": values, "status": "ok"})
	}
}

// Binance answers GET /api/v3/klines as Binance's spot API: symbol,
// interval, startTime and endTime (milliseconds), limit (1 to 1000,
// default 500); rows oldest first, at most limit, open times from
// startTime. An unknown symbol is 400 {"code":-1121,"msg":"Invalid
// symbol."}, a bad parameter 400 with code -1100 or -1120.
func Binance(bars map[string][]Candle) http.HandlerFunc {
	intervals := []string{"1m", "3m", "5m", "15m", "30m", "1h", "2h", "4h", "6h", "8h", "12h", "1d", "3d", "1w", "1M"}
	fail := func(w http.ResponseWriter, code int, msg string) {
		writeJSON(w, http.StatusBadRequest, map[string]any{"code": code, "msg": msg})
	}
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v3/klines" {
			writeJSON(w, http.StatusNotFound, map[string]any{})
			return
		}
		q := r.URL.Query()
		start, err1 := strconv.ParseInt(q.Get("startTime"), 10, 64)
		end, err2 := strconv.ParseInt(q.Get("endTime"), 10, 64)
		limit := 500
		var err3 error
		if s := q.Get("limit"); s != "" {
			limit, err3 = strconv.Atoi(s)
		}
		switch {
		case !slices.Contains(intervals, q.Get("interval")):
			fail(w, -1120, "Invalid interval.")
			return
		case err1 != nil || err2 != nil || err3 != nil || limit < 1 || limit > 1000:
			fail(w, -1100, "Illegal characters found in a parameter.")
			return
		}
		series, ok := bars[q.Get("symbol")]
		if !ok {
			fail(w, -1121, "Invalid symbol.")
			return
		}
		in := inRange(series, (start+999)/1000, end/1000)
		if len(in) > limit {
			in = in[:limit]
		}
		rows := [][]any{}
		for _, b := range in {
			rows = append(rows, []any{b.T * 1000, b.O, b.H, b.L, b.C, strconv.FormatInt(b.V, 10), b.T*1000 + 59999, "0", 10, "0", "0", "0"})
		}
		writeJSON(w, http.StatusOK, rows)
	}
}

// RateLimited answers 429 with Retry-After (as Alpaca, Binance and Twelve
// Data do past their limits) once next has answered n requests.
func RateLimited(n int, next http.HandlerFunc) http.HandlerFunc {
	var served atomic.Int64
	return func(w http.ResponseWriter, r *http.Request) {
		if served.Add(1) > int64(n) {
			w.Header().Set("Retry-After", "30")
			writeJSON(w, http.StatusTooManyRequests, map[string]any{"code": 429, "message": "too many requests"})
			return
		}
		next(w, r)
	}
}

// Minutes returns n one-minute bars from start, each 10 to 10.5 (open
// 10.2, close 10.3) unless lowHigh sets a minute's low and high.
func Minutes(start time.Time, n int, lowHigh map[int][2]string) []Candle {
	out := make([]Candle, n)
	for i := range out {
		low, high := "10", "10.5"
		if lh, ok := lowHigh[i]; ok {
			low, high = lh[0], lh[1]
		}
		out[i] = Candle{T: start.Add(time.Duration(i) * time.Minute).Unix(), O: "10.2", H: high, L: low, C: "10.3", V: 100}
	}
	return out
}
