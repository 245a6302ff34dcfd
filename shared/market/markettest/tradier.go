package markettest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"
)

// OptionContract is one contract a Tradier stand-in lists. Prices and
// greeks are JSON numbers as text; "" is null (no bid, no greeks).
type OptionContract struct {
	Underlying   string
	Expiration   string // YYYY-MM-DD
	Type         string // call or put
	Strike       string
	Bid, Ask     string
	Last         string
	Volume       int
	OpenInterest int
	Delta, MidIV string
}

// occ is the contract's OCC symbol: root, YYMMDD, C or P, strike x 1000 in
// eight digits.
func (c OptionContract) occ() string {
	exp, _ := time.Parse(time.DateOnly, c.Expiration)
	strike := decimal.RequireFromString(c.Strike).Shift(3).IntPart()
	return fmt.Sprintf("%s%s%s%08d", c.Underlying, exp.Format("060102"), strings.ToUpper(c.Type[:1]), strike)
}

// Tradier answers as Tradier's market data API documents it
// (documentation.tradier.com, brokerage-api/markets):
//
//   - the token as "Authorization: Bearer TOKEN", else 401 with the text
//     "Invalid Access Token";
//   - JSON only with "Accept: application/json"; XML (the default) otherwise;
//   - perMinute calls in a minute that starts with the first call (0: no
//     limit); past it, 429 until the minute is over;
//   - GET /v1/markets/options/expirations?symbol=: {"expirations": {"date":
//     [...]}}, sorted; {"expirations": null} for an underlying without
//     options;
//   - GET /v1/markets/options/chains?symbol=&expiration=[&greeks=true]:
//     {"options": {"option": [...]}}, each contract with its quote and, with
//     greeks=true, a greeks object (null without); {"options": null} for no
//     contract;
//   - a list of one element as the element itself (the API's XML rendered
//     as JSON);
//   - a missing symbol or expiration: 400.
func Tradier(token string, contracts []OptionContract, perMinute int) http.HandlerFunc {
	var (
		mu          sync.Mutex
		windowStart time.Time
		calls       int
	)
	limited := func() bool {
		mu.Lock()
		defer mu.Unlock()
		if now := time.Now(); windowStart.IsZero() || now.Sub(windowStart) >= time.Minute {
			windowStart, calls = now, 0
		}
		calls++
		return perMinute > 0 && calls > perMinute
	}
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, "Invalid Access Token")
			return
		}
		if limited() {
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, "Too Many Requests")
			return
		}
		if r.Header.Get("Accept") != "application/json" {
			w.Header().Set("Content-Type", "application/xml")
			io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><expirations/>`)
			return
		}
		q := r.URL.Query()
		symbol := q.Get("symbol")
		if r.Method != http.MethodGet || symbol == "" {
			http.Error(w, "symbol is required", http.StatusBadRequest)
			return
		}
		switch r.URL.Path {
		case "/v1/markets/options/expirations":
			var dates []string
			for _, c := range contracts {
				if c.Underlying == symbol && !slices.Contains(dates, c.Expiration) {
					dates = append(dates, c.Expiration)
				}
			}
			slices.Sort(dates)
			if len(dates) == 0 {
				writeJSON(w, http.StatusOK, map[string]any{"expirations": nil})
				return
			}
			writeJSON(w, http.StatusOK, map[string]any{"expirations": map[string]any{"date": oneOrList(dates)}})
		case "/v1/markets/options/chains":
			expiration := q.Get("expiration")
			if expiration == "" {
				http.Error(w, "expiration is required", http.StatusBadRequest)
				return
			}
			var out []map[string]any
			for _, c := range contracts {
				if c.Underlying == symbol && c.Expiration == expiration {
					out = append(out, c.json(q.Get("greeks") == "true"))
				}
			}
			if len(out) == 0 {
				writeJSON(w, http.StatusOK, map[string]any{"options": nil})
				return
			}
			writeJSON(w, http.StatusOK, map[string]any{"options": map[string]any{"option": oneOrList(out)}})
		default:
			http.NotFound(w, r)
		}
	}
}

// oneOrList is list, or its one element alone.
func oneOrList[T any](list []T) any {
	if len(list) == 1 {
		return list[0]
	}
	return list
}

// json is the contract as the chains answer carries it.
func (c OptionContract) json(greeks bool) map[string]any {
	num := func(s string) any {
		if s == "" {
			return nil
		}
		return json.Number(s)
	}
	m := map[string]any{
		"symbol": c.occ(), "description": c.Underlying + " option", "exch": "Z", "type": "option",
		"last": num(c.Last), "bid": num(c.Bid), "ask": num(c.Ask), "volume": c.Volume, "open_interest": c.OpenInterest,
		"underlying": c.Underlying, "strike": json.Number(c.Strike), "contract_size": 100,
		"expiration_date": c.Expiration, "expiration_type": "standard", "option_type": c.Type, "root_symbol": c.Underlying,
		"greeks": nil,
	}
	if greeks && c.Delta != "" {
		m["greeks"] = map[string]any{"delta": num(c.Delta), "gamma": json.Number("0.02"), "theta": json.Number("-0.05"),
			"vega": json.Number("0.1"), "rho": json.Number("0.01"), "phi": json.Number("-0.01"),
			"bid_iv": num(c.MidIV), "mid_iv": num(c.MidIV), "ask_iv": num(c.MidIV), "smv_vol": num(c.MidIV),
			"updated_at": "2024-06-14 14:00:00"}
	}
	return m
}
