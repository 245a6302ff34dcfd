package calculator_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"testing"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
)

func leg(typ, strike, side, qty, price string) map[string]any {
	return map[string]any{"type": typ, "strike": strike, "expiry": "2024-01-19", "side": side, "quantity": qty, "price": price}
}

func TestStrategyEndpoint(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	anon := srv.Client(t)
	c := srv.Client(t)
	c.Register("strategy@example.com", "password1")
	const path = "/api/calculator/strategy"
	condor := map[string]any{"legs": []any{
		leg("put", "90", "long", "1", "1.00"),
		leg("put", "95", "short", "1", "2.50"),
		leg("call", "105", "short", "1", "2.40"),
		map[string]any{"symbol": "XYZ   240119C00110000", "side": "long", "quantity": "1", "price": "0.90"},
	}}

	t.Run("Unauthenticated", func(t *testing.T) {
		r := anon.Do("POST", path, condor)
		if r.Status != 401 || r.ErrorCode() != "UNAUTHENTICATED" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("IronCondor", func(t *testing.T) {
		r := c.Do("POST", path, condor)
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		// Credit 2.50 + 2.40 - 1.00 - 0.90 = 3.00 a share, 300; wings of 5 lose 500 - 300.
		var out struct {
			Name, Label, NetDebit, MaxProfit, MaxLoss string
			Breakevens                                []string
			Payoff                                    []struct{ Price, Value string }
		}
		if err := json.Unmarshal(r.Body, &out); err != nil {
			t.Fatal(err)
		}
		if out.Name != "iron-condor" || out.Label != "Short iron condor" || out.NetDebit != "-300.00" ||
			out.MaxProfit != "300.00" || out.MaxLoss != "200.00" || strings.Join(out.Breakevens, " ") != "92 108" {
			t.Fatalf("%s", r.Body)
		}
		var pts []string
		for _, p := range out.Payoff {
			pts = append(pts, p.Price+":"+p.Value)
		}
		// 0, the strikes, the breakevens and 110 x 1.5.
		want := "0:-200.00 90:-200.00 92:0.00 95:300.00 105:300.00 108:0.00 110:-200.00 165:-200.00"
		if strings.Join(pts, " ") != want {
			t.Fatalf("payoff %s, want %s", strings.Join(pts, " "), want)
		}
	})
	t.Run("UnlimitedAndShares", func(t *testing.T) {
		// 100 shares at 50 with a 55 call sold at 2: covered call; a naked call: unlimited loss.
		r := c.Do("POST", path, map[string]any{"legs": []any{
			map[string]any{"type": "shares", "side": "long", "quantity": "100", "price": "50"},
			leg("call", "55", "short", "1", "2"),
		}})
		if r.Status != 200 || r.JSON["name"] != "covered-call" || r.JSON["maxProfit"] != "700.00" || r.JSON["maxLoss"] != "4800.00" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		r = c.Do("POST", path, map[string]any{"legs": []any{leg("call", "55", "short", "1", "2")}})
		if _, ok := r.JSON["maxLoss"]; r.Status != 200 || ok || r.JSON["maxProfit"] != "200.00" || r.JSON["label"] != "Short call" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	later := leg("call", "100", "long", "1", "3.50")
	later["expiry"] = "2024-02-16"
	calendar := []any{leg("call", "100", "short", "1", "2"), later}
	t.Run("CalendarAsksForAVolatility", func(t *testing.T) {
		r := c.Do("POST", path, map[string]any{"legs": calendar})
		if r.Status != 200 || r.JSON["name"] != "calendar" || r.JSON["netDebit"] != "150.00" ||
			!strings.Contains(fmt.Sprint(r.JSON["payoffUndefined"]), "give an implied volatility") {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		for _, k := range []string{"maxProfit", "maxLoss", "breakevens", "payoff", "firstExpiry"} {
			if _, ok := r.JSON[k]; ok {
				t.Errorf("%s given without a payoff: %s", k, r.Body)
			}
		}
	})
	t.Run("CalendarAtTheFirstExpiry", func(t *testing.T) {
		// 30% and the default rate, 4%: at the strike the long call, 28 days
		// from expiry, is worth 3.4643 (Black–Scholes, worked out apart from
		// the journal): (3.4643 - 1.50) x 100. At 0 both calls are worthless.
		r := c.Do("POST", path, map[string]any{"legs": calendar, "volatility": "30"})
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		var out struct {
			PayoffUndefined string
			Payoff          []any
			FirstExpiry     struct {
				Date, Volatility, Rate, MaxProfit, MaxLoss string
				Breakevens                                 []string
				Points                                     []struct{ Price, Value string }
			}
		}
		if err := json.Unmarshal(r.Body, &out); err != nil {
			t.Fatal(err)
		}
		fe := out.FirstExpiry
		if out.Payoff != nil || strings.Contains(out.PayoffUndefined, "give") || fe.Date != "2024-01-19" || fe.Volatility != "30" || fe.Rate != "4" ||
			fe.MaxProfit != "196.43" || fe.MaxLoss != "150.00" || len(fe.Breakevens) != 2 {
			t.Fatalf("%s", r.Body)
		}
		values := map[string]string{}
		for _, p := range fe.Points {
			values[p.Price] = p.Value
		}
		if values["0"] != "-150.00" || values["100"] != "196.43" || values[fe.Breakevens[0]] != "0.00" || values[fe.Breakevens[1]] != "0.00" {
			t.Fatalf("points %v", fe.Points)
		}
		// A rate of its own, and the long leg's own volatility over the request's.
		own := maps.Clone(later)
		own["volatility"] = "45.5"
		r = c.Do("POST", path, map[string]any{"legs": []any{calendar[0], own}, "volatility": "20", "rate": "-0.5"})
		// (Black–Scholes at 45.5% and -0.5%: 5.0060 - 1.50) x 100.
		if fe, _ := r.JSON["firstExpiry"].(map[string]any); r.Status != 200 || fe["rate"] != "-0.5" || fe["volatility"] != "20" || fe["maxProfit"] != "350.60" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		// One expiry: the exact payoff, the volatility is not needed.
		r = c.Do("POST", path, map[string]any{"legs": []any{leg("call", "100", "long", "1", "3")}, "volatility": "30"})
		if _, ok := r.JSON["firstExpiry"]; r.Status != 200 || ok || r.JSON["maxLoss"] != "300.00" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("FieldErrors", func(t *testing.T) {
		for _, tc := range []struct {
			name  string
			leg   map[string]any
			field string
		}{
			{"ZeroStrike", leg("call", "0", "long", "1", "1"), "legs[0].strike"},
			{"NegativePrice", leg("call", "100", "long", "1", "-1"), "legs[0].price"},
			{"ZeroQuantity", leg("call", "100", "long", "0", "1"), "legs[0].quantity"},
			{"FractionalContracts", leg("call", "100", "long", "1.5", "1"), "legs[0].quantity"},
			{"NumberPrice", map[string]any{"type": "call", "strike": "100", "expiry": "2024-01-19", "side": "long", "quantity": "1", "price": 1}, "legs[0].price"},
			{"Side", leg("call", "100", "sideways", "1", "1"), "legs[0].side"},
			{"Type", leg("future", "100", "long", "1", "1"), "legs[0].type"},
			{"NoType", map[string]any{"strike": "100", "expiry": "2024-01-19", "side": "long", "quantity": "1", "price": "1"}, "legs[0].type"},
			{"Expiry", map[string]any{"type": "put", "strike": "100", "expiry": "2024-02-30", "side": "long", "quantity": "1", "price": "1"}, "legs[0].expiry"},
			{"NoExpiry", map[string]any{"type": "put", "strike": "100", "side": "long", "quantity": "1", "price": "1"}, "legs[0].expiry"},
			{"Symbol", map[string]any{"symbol": "XYZ", "side": "long", "quantity": "1", "price": "1"}, "legs[0].symbol"},
			{"SymbolAndStrike", map[string]any{"symbol": "XYZ   240119C00110000", "strike": "110", "side": "long", "quantity": "1", "price": "1"}, "legs[0].symbol"},
			{"SymbolDisagreesWithType", map[string]any{"type": "put", "symbol": "XYZ   240119C00110000", "side": "long", "quantity": "1", "price": "1"}, "legs[0].type"},
			{"SharesWithStrike", map[string]any{"type": "shares", "strike": "100", "side": "long", "quantity": "1", "price": "1"}, "legs[0].strike"},
			{"Multiplier", map[string]any{"type": "put", "strike": "100", "expiry": "2024-01-19", "side": "long", "quantity": "1", "price": "1", "multiplier": "0"}, "legs[0].multiplier"},
			{"LegVolatility", map[string]any{"type": "put", "strike": "100", "expiry": "2024-01-19", "side": "long", "quantity": "1", "price": "1", "volatility": "0"}, "legs[0].volatility"},
			{"SharesWithVolatility", map[string]any{"type": "shares", "side": "long", "quantity": "1", "price": "1", "volatility": "30"}, "legs[0].volatility"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := c.Do("POST", path, map[string]any{"legs": []any{tc.leg}})
				if r.Status != 400 || r.ErrorCode() != "VALIDATION_ERROR" || !strings.Contains(string(r.Body), `"field":"`+tc.field+`"`) {
					t.Fatalf("%d %s", r.Status, r.Body)
				}
				apitest.CheckErrorShape(t, r)
			})
		}
	})
	t.Run("TwoUnderlyings", func(t *testing.T) {
		r := c.Do("POST", path, map[string]any{"legs": []any{
			map[string]any{"symbol": "XYZ   240119C00110000", "side": "long", "quantity": "1", "price": "1"},
			map[string]any{"symbol": "ABC   240119C00120000", "side": "short", "quantity": "1", "price": "1"},
		}})
		if r.Status != 400 || !strings.Contains(string(r.Body), `"field":"legs[1].symbol"`) {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("ModelErrors", func(t *testing.T) {
		for _, tc := range []struct {
			name, field string
			value       any
		}{
			{"ZeroVolatility", "volatility", "0"},
			{"NegativeVolatility", "volatility", "-30"},
			{"VolatilityOver500", "volatility", "500.0001"},
			{"VolatilityNumber", "volatility", 30},
			{"VolatilityText", "volatility", "thirty"},
			{"RateBelow", "rate", "-5.01"},
			{"RateAbove", "rate", "25.5"},
			{"RatePlaces", "rate", "4.00001"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := c.Do("POST", path, map[string]any{"legs": calendar, tc.field: tc.value})
				if r.Status != 400 || r.ErrorCode() != "VALIDATION_ERROR" || !strings.Contains(string(r.Body), `"field":"`+tc.field+`"`) {
					t.Fatalf("%d %s", r.Status, r.Body)
				}
				apitest.CheckErrorShape(t, r)
			})
		}
		// The bounds themselves are in.
		for _, body := range []map[string]any{{"volatility": "500", "rate": "25"}, {"volatility": "0.0001", "rate": "-5"}} {
			body["legs"] = calendar
			if r := c.Do("POST", path, body); r.Status != 200 || r.JSON["firstExpiry"] == nil {
				t.Fatalf("%v: %d %s", body, r.Status, r.Body)
			}
		}
	})
	nine := make([]any, 9)
	for i := range nine {
		nine[i] = leg("call", "100", "long", "1", "1")
	}
	apitest.Run(t, c, []apitest.Case{
		{Name: "NoLegs", Method: "POST", Path: path, Body: map[string]any{"legs": []any{}}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "NineLegs", Method: "POST", Path: path, Body: map[string]any{"legs": nine}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "EightLegs", Method: "POST", Path: path, Body: map[string]any{"legs": nine[:8]}, Status: 200},
		{Name: "LegsNotAnArray", Method: "POST", Path: path, Body: map[string]any{"legs": "x"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "UnknownField", Method: "POST", Path: path, Body: map[string]any{"legs": []any{map[string]any{"colour": "red"}}}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "MalformedJSON", Method: "POST", Path: path, Body: `{"legs":`, Status: 400, Code: "INVALID_JSON"},
	})
}
