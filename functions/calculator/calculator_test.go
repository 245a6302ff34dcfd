package calculator_test

import (
	"strings"
	"testing"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
)

func TestCalculatorEndpoint(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	anon := srv.Client(t)
	c := srv.Client(t)
	c.Register("calc@example.com", "password1")

	body := map[string]any{"mode": "stock", "direction": "long", "entryPrice": "50", "stopLoss": "48", "targetPrice": "56",
		"balance": "10000", "riskPercent": "1", "feeSchedule": map[string]string{"stockPerShareCommission": "0.005", "stockMinPerFill": "1"}}

	t.Run("Unauthenticated", func(t *testing.T) {
		r := anon.Do("POST", "/api/calculator", body)
		if r.Status != 401 || r.ErrorCode() != "UNAUTHENTICATED" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("PercentBasisWithFees", func(t *testing.T) {
		r := c.Do("POST", "/api/calculator", body)
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		// 1% of 10,000 = 100 risk; 2 per share → 50 shares; cap 10,000/50 = 200.
		want := map[string]any{"positionSize": float64(50), "perUnitRisk": "2.00", "actualDollarRisk": "100.00",
			"totalPositionValue": "2500.00", "perUnitReward": "6.00", "riskRewardRatio": "3.00", "derivedDollarRisk": "100.00",
			"estimatedFees": "2.00"}
		for k, v := range want {
			if r.JSON[k] != v {
				t.Errorf("%s = %v, want %v (%s)", k, r.JSON[k], v, r.Body)
			}
		}
		if _, ok := r.JSON["sizingStatus"]; ok {
			t.Errorf("sizingStatus on a sized answer: %s", r.Body)
		}
	})
	t.Run("NumberInsteadOfStringIsAFieldError", func(t *testing.T) {
		r := c.Do("POST", "/api/calculator", `{"mode":"stock","direction":"long","entryPrice":50,"stopLoss":"48","dollarRisk":"100"}`)
		if r.Status != 400 || r.ErrorCode() != "VALIDATION_ERROR" || !strings.Contains(string(r.Body), `"field":"entryPrice"`) {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	apitest.Run(t, c, []apitest.Case{
		{Name: "BothBases", Method: "POST", Path: "/api/calculator", Body: map[string]any{"mode": "stock", "direction": "long", "entryPrice": "50", "stopLoss": "48", "dollarRisk": "100", "balance": "1000", "riskPercent": "1"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "NeitherBasis", Method: "POST", Path: "/api/calculator", Body: map[string]any{"mode": "stock", "direction": "long", "entryPrice": "50", "stopLoss": "48"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "StructuralPriceError", Method: "POST", Path: "/api/calculator", Body: map[string]any{"mode": "stock", "direction": "long", "entryPrice": "50", "stopLoss": "52", "dollarRisk": "100"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "ZeroOutcomeIs200", Method: "POST", Path: "/api/calculator", Body: map[string]any{"mode": "stock", "direction": "long", "entryPrice": "50", "stopLoss": "48", "balance": "-5", "riskPercent": "1"}, Status: 200},
		{Name: "UnknownField", Method: "POST", Path: "/api/calculator", Body: map[string]any{"mode": "stock", "accountId": "x"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "MalformedJSON", Method: "POST", Path: "/api/calculator", Body: `{"mode":`, Status: 400, Code: "INVALID_JSON"},
	})
}
