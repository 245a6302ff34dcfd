package sizing

import (
	"encoding/json"
	"strings"
	"testing"
)

func cfd(body string) (any, error) {
	var in CFDInput
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return nil, err
	}
	p, err := ValidateCFD(in)
	if err != nil {
		return nil, err
	}
	return CalculateCFD(p), nil
}

// us500 is a long US500 CFD of 1 USD a point in a USD account, 20 points
// of stop, risking 100 USD.
var us500 = map[string]any{"symbol": "US500", "accountCurrency": "USD", "pointValue": "1", "direction": "long",
	"entryPrice": "5400", "stopLoss": "5380", "riskAmount": "100"}

func TestCFDCalculator(t *testing.T) {
	runCases(t, []calcCase{
		// US500 at 1 USD a point: a contract risks (5400 - 5380) x 1 = 20
		// USD; 100 USD buys 5.00 contracts, worth 5 x 5400 x 1 = 27,000 USD.
		// Target 5460: 60 points, 5 x 60 = 300.00 USD, 60 / 20 = 3.00.
		{name: "US500InUSD", body: over(us500, "targetPrice", "5460"),
			want: `{"symbol":"US500","accountCurrency":"USD","pointValue":"1","stopPoints":"20","riskPerContract":"20.00",
				"conversionRate":"1","conversionSource":"quote","contracts":"5.00","positionValue":"27000.00",
				"actualRisk":"100.00","riskBudget":"100.00","rewardPoints":"60","reward":"300.00","riskRewardRatio":"3.00"}`},
		// GER40 at 1 EUR a point in a USD account, 1 EUR = 1.08 USD: a
		// contract risks (18000 - 17950) x 1 x 1.08 = 54.00 USD; a step of
		// 0.01 contracts 0.54 USD, so 200 USD buys floor(370.37) = 370
		// steps = 3.70 contracts, risking 3.70 x 54 = 199.80 USD and worth
		// 3.70 x 18,000 x 1.08 = 71,928.00 USD. Target 18150: 150 points,
		// 3.70 x 150 x 1.08 = 599.40 USD, 150 / 50 = 3.00.
		{name: "GER40InUSD", body: over(us500, "symbol", "GER40", "quoteCurrency", "eur", "entryPrice", "18000", "stopLoss", "17950",
			"targetPrice", "18150", "riskAmount", "200", "conversionRate", "1.08"),
			want: `{"symbol":"GER40","accountCurrency":"USD","quoteCurrency":"EUR","pointValue":"1","stopPoints":"50","riskPerContract":"54.00",
				"conversionRate":"1.08","conversionSource":"given","contracts":"3.70","positionValue":"71928.00",
				"actualRisk":"199.80","riskBudget":"200.00","rewardPoints":"150","reward":"599.40","riskRewardRatio":"3.00"}`},
		// A short UK100 at 10 GBP a point in a GBP account, whole contracts:
		// a contract risks (8215 - 8200) x 10 = 150 GBP; 1% of 50,000 = 500
		// GBP buys 3 (3.33), risking 450.00, worth 3 x 8200 x 10 = 246,000.
		{name: "UK100ShortWholeContracts", body: over(us500, "symbol", "UK100", "accountCurrency", "GBP", "quoteCurrency", "GBP",
			"pointValue", "10", "direction", "short", "entryPrice", "8200", "stopLoss", "8215", "riskAmount", nil,
			"balance", "50000", "riskPercent", "1", "contractStep", "1"),
			want: `{"symbol":"UK100","accountCurrency":"GBP","quoteCurrency":"GBP","pointValue":"10","stopPoints":"15","riskPerContract":"150.00",
				"conversionRate":"1","conversionSource":"quote","contracts":"3","positionValue":"246000.00",
				"actualRisk":"450.00","riskBudget":"500.00"}`},
		// A point value in a currency left unnamed, with its rate: JPN225 at
		// 100 JPY a point, 1 JPY = 0.0062 EUR. A contract risks 200 x 100 x
		// 0.0062 = 124 EUR; 250 EUR buys floor(250 / 1.24) = 201 steps =
		// 2.01 contracts, risking 249.24 EUR, worth 2.01 x 38,000 x 100 x
		// 0.0062 = 47,355.60 EUR.
		{name: "UnnamedCurrencyWithRate", body: over(us500, "symbol", "JPN225", "accountCurrency", "EUR", "pointValue", "100",
			"entryPrice", "38000", "stopLoss", "37800", "riskAmount", "250", "conversionRate", "0.0062"),
			want: `{"symbol":"JPN225","accountCurrency":"EUR","pointValue":"100","stopPoints":"200","riskPerContract":"124.00",
				"conversionRate":"0.0062","conversionSource":"given","contracts":"2.01","positionValue":"47355.60",
				"actualRisk":"249.24","riskBudget":"250.00"}`},
		// A step of 0.01 contracts risks 0.20 USD: 0.19 buys none.
		{name: "RiskBelowOneStep", body: over(us500, "riskAmount", "0.19"),
			want: `{"symbol":"US500","accountCurrency":"USD","pointValue":"1","stopPoints":"20","riskPerContract":"20.00",
				"conversionRate":"1","conversionSource":"quote","contracts":"0.00","positionValue":"0.00",
				"actualRisk":"0.00","riskBudget":"0.19","sizingStatus":"nothing-to-size-against"}`},

		{name: "QuoteCurrencyWithoutRate", body: over(us500, "quoteCurrency", "EUR"), errFields: []string{"conversionRate"},
			errMessage: "is required (the value of 1 EUR in USD, since the point value is in EUR)"},
		{name: "RateForTheAccountCurrency", body: over(us500, "quoteCurrency", "USD", "conversionRate", "1"), errFields: []string{"conversionRate"}},
		{name: "SymbolMissing", body: over(us500, "symbol", "  "), errFields: []string{"symbol"}},
		{name: "SymbolTooLong", body: over(us500, "symbol", strings.Repeat("é", 33)), errFields: []string{"symbol"}},
		{name: "SymbolControlCharacter", body: over(us500, "symbol", "US\x00500"), errFields: []string{"symbol"}},
		{name: "PointValueMissing", body: over(us500, "pointValue", nil), errFields: []string{"pointValue"}},
		{name: "PointValueZero", body: over(us500, "pointValue", "0"), errFields: []string{"pointValue"}},
		{name: "QuoteCurrencyNotISO", body: over(us500, "quoteCurrency", "EURO"), errFields: []string{"quoteCurrency"}},
		{name: "ContractStepTooFine", body: over(us500, "contractStep", "0.000001"), errFields: []string{"contractStep"}},
		{name: "StopAboveEntryForLong", body: over(us500, "stopLoss", "5401"), errFields: []string{"stopLoss"}},
		{name: "BothBases", body: over(us500, "balance", "1000", "riskPercent", "1"), errFields: []string{"riskAmount"}},
	}, cfd)
}

func TestCFDZeroParams(t *testing.T) {
	out := CalculateCFD(CFDParams{})
	if out.Contracts != "0" || out.SizingStatus != NothingToSizeAgainst {
		t.Fatalf("CalculateCFD(CFDParams{}) = %+v", out)
	}
}
