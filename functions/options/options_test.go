package options_test

import (
	"net/url"
	"testing"
	"time"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
)

func start(t *testing.T) (*apitest.Server, *apitest.Client) {
	t.Helper()
	at := time.Date(2026, 3, 2, 15, 30, 0, 0, time.UTC)
	srv := apitest.StartAt(t, apitest.Config(t), func() time.Time { return at }, functions.All)
	c := srv.Client(t)
	c.Register("options@example.com", "password1")
	return srv, c
}

func TestOCCParseEncode(t *testing.T) {
	srv, c := start(t)
	t.Run("SignedOut", func(t *testing.T) {
		apitest.Run(t, srv.Client(t), []apitest.Case{
			{Name: "Parse", Method: "GET", Path: "/api/options/occ/parse?symbol=AAPL240119C00190000", Status: 401, Code: "UNAUTHENTICATED"},
			{Name: "Encode", Method: "GET", Path: "/api/options/occ/encode?underlying=AAPL&expiry=2024-01-19&right=call&strike=190", Status: 401, Code: "UNAUTHENTICATED"},
		})
	})
	t.Run("Parse", func(t *testing.T) {
		for _, in := range []string{"AAPL  240119C00190000", "aapl240119c00190000", "AAPL240119C00190000"} {
			r := apitest.Must(t, c.Do("GET", "/api/options/occ/parse?symbol="+url.QueryEscape(in), nil), 200)
			if r.JSON["symbol"] != "AAPL  240119C00190000" || r.JSON["underlying"] != "AAPL" || r.JSON["expiry"] != "2024-01-19" ||
				r.JSON["right"] != "call" || r.JSON["strike"] != "190" {
				t.Fatalf("%q: %s", in, r.Body)
			}
		}
		r := apitest.Must(t, c.Do("GET", "/api/options/occ/parse?symbol="+url.QueryEscape("SPXW  251219P05912500"), nil), 200)
		if r.JSON["right"] != "put" || r.JSON["strike"] != "5912.5" || r.JSON["underlying"] != "SPXW" {
			t.Fatalf("put: %s", r.Body)
		}
	})
	t.Run("Encode", func(t *testing.T) {
		r := apitest.Must(t, c.Do("GET", "/api/options/occ/encode?underlying=spxw&expiry=2025-12-19&right=P&strike=5912.5", nil), 200)
		if r.JSON["symbol"] != "SPXW  251219P05912500" || r.JSON["right"] != "put" {
			t.Fatalf("%s", r.Body)
		}
		back := apitest.Must(t, c.Do("GET", "/api/options/occ/parse?symbol="+url.QueryEscape(r.JSON["symbol"].(string)), nil), 200)
		if back.JSON["strike"] != "5912.5" || back.JSON["expiry"] != "2025-12-19" {
			t.Fatalf("round trip: %s", back.Body)
		}
	})
	t.Run("BadInput", func(t *testing.T) {
		enc := "/api/options/occ/encode?"
		apitest.Run(t, c, []apitest.Case{
			{Name: "ParseMissing", Method: "GET", Path: "/api/options/occ/parse", Status: 400, Code: "VALIDATION_ERROR", Field: "symbol"},
			{Name: "ParseGarbage", Method: "GET", Path: "/api/options/occ/parse?symbol=not-an-option", Status: 400, Code: "VALIDATION_ERROR", Field: "symbol"},
			{Name: "ParseNoDate", Method: "GET", Path: "/api/options/occ/parse?symbol=AAPL240231C00190000", Status: 400, Code: "VALIDATION_ERROR", Field: "symbol"},
			{Name: "ParseOverlong", Method: "GET", Path: "/api/options/occ/parse?symbol=" + url.QueryEscape(string(make([]byte, 5000))), Status: 400, Code: "VALIDATION_ERROR", Field: "symbol"},
			{Name: "EncodeNothing", Method: "GET", Path: enc, Status: 400, Code: "VALIDATION_ERROR", Field: "underlying"},
			{Name: "EncodeLongRoot", Method: "GET", Path: enc + "underlying=ABCDEFG&expiry=2025-12-19&right=call&strike=10", Status: 400, Code: "VALIDATION_ERROR", Field: "underlying"},
			{Name: "EncodeDigitFirst", Method: "GET", Path: enc + "underlying=1ABC&expiry=2025-12-19&right=call&strike=10", Status: 400, Code: "VALIDATION_ERROR", Field: "underlying"},
			{Name: "EncodeBadDate", Method: "GET", Path: enc + "underlying=AAPL&expiry=2025-02-30&right=call&strike=10", Status: 400, Code: "VALIDATION_ERROR", Field: "expiry"},
			{Name: "EncodeYear2100", Method: "GET", Path: enc + "underlying=AAPL&expiry=2100-01-01&right=call&strike=10", Status: 400, Code: "VALIDATION_ERROR", Field: "expiry"},
			{Name: "EncodeRight", Method: "GET", Path: enc + "underlying=AAPL&expiry=2025-12-19&right=straddle&strike=10", Status: 400, Code: "VALIDATION_ERROR", Field: "right"},
			{Name: "EncodeStrikeTooFine", Method: "GET", Path: enc + "underlying=AAPL&expiry=2025-12-19&right=call&strike=10.0001", Status: 400, Code: "VALIDATION_ERROR", Field: "strike"},
			{Name: "EncodeStrikeTooHigh", Method: "GET", Path: enc + "underlying=AAPL&expiry=2025-12-19&right=call&strike=100000", Status: 400, Code: "VALIDATION_ERROR", Field: "strike"},
			{Name: "EncodeStrikeZero", Method: "GET", Path: enc + "underlying=AAPL&expiry=2025-12-19&right=call&strike=0", Status: 400, Code: "VALIDATION_ERROR", Field: "strike"},
			{Name: "EncodeStrikeWords", Method: "GET", Path: enc + "underlying=AAPL&expiry=2025-12-19&right=call&strike=NaN", Status: 400, Code: "VALIDATION_ERROR", Field: "strike"},
		})
	})
}

// TestBlackScholes checks the route against Hull's example 15.6 (S=42,
// K=40, r=10%, sigma=20%, T=0.5: call 4.76, put 0.81).
func TestBlackScholes(t *testing.T) {
	srv, c := start(t)
	const path = "/api/options/black-scholes"
	hull := map[string]any{"underlyingPrice": "42", "strike": "40", "years": "0.5", "volatility": "20", "rate": "10"}
	with := func(extra map[string]any) map[string]any {
		out := map[string]any{}
		for k, v := range hull {
			out[k] = v
		}
		for k, v := range extra {
			if v == nil {
				delete(out, k)
			} else {
				out[k] = v
			}
		}
		return out
	}
	t.Run("SignedOut", func(t *testing.T) {
		apitest.Must(t, srv.Client(t).Do("POST", path, with(map[string]any{"right": "call"})), 401)
	})
	t.Run("Hull", func(t *testing.T) {
		call := apitest.Must(t, c.Do("POST", path, with(map[string]any{"right": "call"})), 200)
		put := apitest.Must(t, c.Do("POST", path, with(map[string]any{"right": "PUT"})), 200)
		if call.JSON["price"] != "4.759422" || put.JSON["price"] != "0.808599" || call.JSON["right"] != "call" || put.JSON["right"] != "put" {
			t.Fatalf("call %s\nput %s", call.Body, put.Body)
		}
		for _, k := range []string{"delta", "gamma", "theta", "vega", "rho", "years"} {
			if _, ok := call.JSON[k].(string); !ok {
				t.Fatalf("%s missing or not a string: %s", k, call.Body)
			}
		}
		if call.JSON["delta"] != "0.779131" || put.JSON["delta"] != "-0.220869" {
			t.Fatalf("deltas: %s %s", call.Body, put.Body)
		}
	})
	t.Run("ExpiryDate", func(t *testing.T) {
		// 2026-03-02 to 2026-08-31 is 182 days.
		r := apitest.Must(t, c.Do("POST", path, with(map[string]any{"years": nil, "expiry": "2026-08-31", "right": "call", "dividendYield": "2"})), 200)
		if r.JSON["years"] != "0.498630" {
			t.Fatalf("%s", r.Body)
		}
	})
	t.Run("BadInput", func(t *testing.T) {
		apitest.Run(t, c, []apitest.Case{
			{Name: "Empty", Method: "POST", Path: path, Body: map[string]any{}, Status: 400, Code: "VALIDATION_ERROR", Field: "underlyingPrice"},
			{Name: "NoRight", Method: "POST", Path: path, Body: hull, Status: 400, Code: "VALIDATION_ERROR", Field: "right"},
			{Name: "NumberNotString", Method: "POST", Path: path, Body: with(map[string]any{"right": "call", "strike": 40}), Status: 400, Code: "VALIDATION_ERROR", Field: "strike"},
			{Name: "NegativePrice", Method: "POST", Path: path, Body: with(map[string]any{"right": "call", "underlyingPrice": "-1"}), Status: 400, Code: "VALIDATION_ERROR", Field: "underlyingPrice"},
			{Name: "ZeroVolatility", Method: "POST", Path: path, Body: with(map[string]any{"right": "call", "volatility": "0"}), Status: 400, Code: "VALIDATION_ERROR", Field: "volatility"},
			{Name: "HugeVolatility", Method: "POST", Path: path, Body: with(map[string]any{"right": "call", "volatility": "501"}), Status: 400, Code: "VALIDATION_ERROR", Field: "volatility"},
			{Name: "RateOutOfRange", Method: "POST", Path: path, Body: with(map[string]any{"right": "call", "rate": "30"}), Status: 400, Code: "VALIDATION_ERROR", Field: "rate"},
			{Name: "NegativeDividend", Method: "POST", Path: path, Body: with(map[string]any{"right": "call", "dividendYield": "-1"}), Status: 400, Code: "VALIDATION_ERROR", Field: "dividendYield"},
			{Name: "ZeroYears", Method: "POST", Path: path, Body: with(map[string]any{"right": "call", "years": "0"}), Status: 400, Code: "VALIDATION_ERROR", Field: "years"},
			{Name: "TooManyYears", Method: "POST", Path: path, Body: with(map[string]any{"right": "call", "years": "31"}), Status: 400, Code: "VALIDATION_ERROR", Field: "years"},
			{Name: "NoTime", Method: "POST", Path: path, Body: with(map[string]any{"right": "call", "years": nil}), Status: 400, Code: "VALIDATION_ERROR", Field: "years"},
			{Name: "YearsAndExpiry", Method: "POST", Path: path, Body: with(map[string]any{"right": "call", "expiry": "2026-08-31"}), Status: 400, Code: "VALIDATION_ERROR", Field: "years"},
			{Name: "ExpiryToday", Method: "POST", Path: path, Body: with(map[string]any{"right": "call", "years": nil, "expiry": "2026-03-02"}), Status: 400, Code: "VALIDATION_ERROR", Field: "expiry"},
			{Name: "ExpiryNotADate", Method: "POST", Path: path, Body: with(map[string]any{"right": "call", "years": nil, "expiry": "soon"}), Status: 400, Code: "VALIDATION_ERROR", Field: "expiry"},
			{Name: "ExpiryFarAway", Method: "POST", Path: path, Body: with(map[string]any{"right": "call", "years": nil, "expiry": "9999-12-31"}), Status: 400, Code: "VALIDATION_ERROR", Field: "expiry"},
			{Name: "UnknownField", Method: "POST", Path: path, Body: with(map[string]any{"right": "call", "sigma": "20"}), Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "Malformed", Method: "POST", Path: path, Body: `{"strike":`, Status: 400, Code: "INVALID_JSON"},
			{Name: "ExtremesStillPriced", Method: "POST", Path: path, Body: map[string]any{"underlyingPrice": "0.00000001", "strike": "99999999", "years": "30", "volatility": "500", "rate": "-5", "dividendYield": "50", "right": "put"}, Status: 200},
		})
	})
}
