package calculator_test

import (
	"strings"
	"testing"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
)

func TestForexAndCFDEndpoints(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	anon := srv.Client(t)
	c := srv.Client(t)
	c.Register("fxcalc@example.com", "password1")

	// EUR/GBP in a USD account, 1 GBP = 1.27 USD: a pip of a lot is 0.0001 x
	// 100,000 x 1.27 = 12.70 USD, 20 pips of stop risk 254 USD a lot, and
	// 1% of 10,000 buys 0.39 lots (99.06 USD of risk).
	cross := map[string]any{"pair": "EURGBP", "accountCurrency": "USD", "direction": "long", "entryPrice": "0.8550",
		"stopLoss": "0.8530", "balance": "10000", "riskPercent": "1", "conversionRate": "1.27"}
	// GER40 at 1 EUR a point in a USD account, 1 EUR = 1.08 USD: 50 points
	// risk 54 USD a contract; 200 USD buys 3.70 contracts.
	ger40 := map[string]any{"symbol": "GER40", "accountCurrency": "USD", "quoteCurrency": "EUR", "pointValue": "1",
		"direction": "long", "entryPrice": "18000", "stopLoss": "17950", "riskAmount": "200", "conversionRate": "1.08"}

	t.Run("Unauthenticated", func(t *testing.T) {
		for path, body := range map[string]any{"/api/calculator/forex": cross, "/api/calculator/cfd": ger40} {
			if r := anon.Do("POST", path, body); r.Status != 401 || r.ErrorCode() != "UNAUTHENTICATED" {
				t.Fatalf("%s: %d %s", path, r.Status, r.Body)
			}
		}
	})
	t.Run("ForexCross", func(t *testing.T) {
		r := c.Do("POST", "/api/calculator/forex", cross)
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		want := map[string]any{"pair": "EUR/GBP", "pipSize": "0.0001", "stopPips": "20", "pipValuePerLot": "12.70",
			"units": "39000", "lots": "0.39", "miniLots": "3.9", "microLots": "39", "actualRisk": "99.06",
			"conversionRate": "1.27", "conversionSource": "given"}
		for k, v := range want {
			if r.JSON[k] != v {
				t.Errorf("%s = %v, want %v (%s)", k, r.JSON[k], v, r.Body)
			}
		}
	})
	t.Run("ForexMissingRateNamesIt", func(t *testing.T) {
		body := map[string]any{"pair": "EUR/GBP", "accountCurrency": "USD", "direction": "long", "entryPrice": "0.8550",
			"stopLoss": "0.8530", "riskAmount": "100"}
		r := c.Do("POST", "/api/calculator/forex", body)
		if r.Status != 400 || r.ErrorCode() != "VALIDATION_ERROR" || !strings.Contains(string(r.Body), `"field":"conversionRate"`) ||
			!strings.Contains(string(r.Body), "the value of 1 GBP in USD") {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("CFD", func(t *testing.T) {
		r := c.Do("POST", "/api/calculator/cfd", ger40)
		if r.Status != 200 || r.JSON["contracts"] != "3.70" || r.JSON["actualRisk"] != "199.80" || r.JSON["riskPerContract"] != "54.00" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	apitest.Run(t, c, []apitest.Case{
		{Name: "ForexZeroOutcomeIs200", Method: "POST", Path: "/api/calculator/forex", Body: map[string]any{"pair": "EUR/USD", "accountCurrency": "USD",
			"direction": "long", "entryPrice": "1.0850", "stopLoss": "1.0830", "riskAmount": "1"}, Status: 200},
		{Name: "ForexStopOnTheWrongSide", Method: "POST", Path: "/api/calculator/forex", Body: map[string]any{"pair": "EUR/USD", "accountCurrency": "USD",
			"direction": "short", "entryPrice": "1.0850", "stopLoss": "1.0830", "riskAmount": "100"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "ForexPairAsNumber", Method: "POST", Path: "/api/calculator/forex", Body: `{"pair":1.08,"accountCurrency":"USD"}`, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "ForexModeIsNotAField", Method: "POST", Path: "/api/calculator/forex", Body: map[string]any{"mode": "forex", "pair": "EUR/USD"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "ForexMalformedJSON", Method: "POST", Path: "/api/calculator/forex", Body: `{"pair":`, Status: 400, Code: "INVALID_JSON"},
		{Name: "CFDWithoutPointValue", Method: "POST", Path: "/api/calculator/cfd", Body: map[string]any{"symbol": "US500", "accountCurrency": "USD",
			"direction": "long", "entryPrice": "5400", "stopLoss": "5380", "riskAmount": "100"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "CFDMalformedJSON", Method: "POST", Path: "/api/calculator/cfd", Body: `[]`, Status: 400, Code: "INVALID_JSON"},
		// The stock calculator's mode stays stock or options.
		{Name: "StockCalculatorRefusesForexMode", Method: "POST", Path: "/api/calculator", Body: map[string]any{"mode": "forex", "direction": "long",
			"entryPrice": "50", "stopLoss": "48", "dollarRisk": "100"}, Status: 400, Code: "VALIDATION_ERROR"},
	})
}
