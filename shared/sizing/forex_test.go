package sizing

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"tradejournal/shared/apperr"
)

// over returns base changed by key/value pairs, as JSON: a string value is
// a JSON string, a raw value is written as is, nil removes the key.
func over(base map[string]any, kv ...any) string {
	m := maps.Clone(base)
	for i := 0; i < len(kv); i += 2 {
		k := kv[i].(string)
		switch v := kv[i+1].(type) {
		case nil:
			delete(m, k)
		case raw:
			m[k] = json.RawMessage(v)
		default:
			m[k] = v
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// decodeAs reads a body into T the way shared/httpx does.
func decodeAs[T any](t testing.TB, body string) T {
	t.Helper()
	var in T
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	return in
}

// calcCase is one request of a table: want is the whole answer (absent keys
// must be absent), or errFields the detail fields of the VALIDATION_ERROR in
// order; errMessage, when set, must be the first detail's message.
type calcCase struct {
	name       string
	body       string
	want       string
	errFields  []string
	errMessage string
}

// runCases runs a table through a validate-and-calculate function.
func runCases(t *testing.T, cases []calcCase, calc func(body string) (any, error)) {
	t.Helper()
	names := map[string]bool{}
	for _, c := range cases {
		if names[c.name] {
			t.Fatalf("duplicate case name %s", c.name)
		}
		names[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			out, err := calc(c.body)
			if c.errFields != nil {
				e, ok := apperr.As(err)
				if !ok || e.Code != apperr.Validation {
					t.Fatalf("%s: %v, want VALIDATION_ERROR", c.body, err)
				}
				var fields []string
				for _, d := range e.Details {
					fields = append(fields, d.Field)
					if d.Message == "" {
						t.Errorf("detail %s has no message", d.Field)
					}
				}
				if !slices.Equal(fields, c.errFields) {
					t.Fatalf("%s: details %v, want fields %v", c.body, e.Details, c.errFields)
				}
				if c.errMessage != "" && e.Details[0].Message != c.errMessage {
					t.Fatalf("message %q, want %q", e.Details[0].Message, c.errMessage)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", c.body, err)
			}
			b, err := json.Marshal(out)
			if err != nil {
				t.Fatal(err)
			}
			got, want := jsonObject(t, string(b)), jsonObject(t, c.want)
			if !maps.EqualFunc(got, want, func(a, b any) bool { return reflect.DeepEqual(a, b) }) {
				t.Fatalf("%s\n got %s\nwant %s", c.body, b, c.want)
			}
		})
	}
}

func forex(body string) (any, error) {
	var in ForexInput
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return nil, err
	}
	p, err := ValidateForex(in)
	if err != nil {
		return nil, err
	}
	return CalculateForex(p), nil
}

// eurusd is a long EUR/USD in a USD account, 20 pips of stop, risking 1% of
// 10,000.
var eurusd = map[string]any{"pair": "EUR/USD", "accountCurrency": "USD", "direction": "long",
	"entryPrice": "1.0850", "stopLoss": "1.0830", "balance": "10000", "riskPercent": "1"}

func TestForexCalculator(t *testing.T) {
	runCases(t, []calcCase{
		// EUR/USD in USD, the quote: rate 1. Pip value per lot = 0.0001 x
		// 100,000 x 1 = 10.00 USD. Stop 1.0850 - 1.0830 = 0.0020 = 20 pips,
		// so one lot risks 20 x 10 = 200 USD. Budget 1% of 10,000 = 100 USD
		// → 100 / 200 = 0.50 lots = 50,000 units (5 mini, 50 micro), risking
		// 50,000 x 0.0020 = 100.00. At entry it is worth 50,000 x 1.0850 =
		// 54,250.00 USD.
		{name: "EURUSDInUSD", body: over(eurusd),
			want: `{"pair":"EUR/USD","quoteCurrency":"USD","accountCurrency":"USD","pipSize":"0.0001","lotUnits":"100000",
				"stopPips":"20","pipValuePerLot":"10.00","conversionRate":"1","conversionSource":"quote",
				"units":"50000","lots":"0.50","miniLots":"5","microLots":"50","positionValue":"54250.00",
				"actualRisk":"100.00","riskBudget":"100.00"}`},
		// With a target 1.0890: 40 pips, 50,000 x 0.0040 = 200.00 USD, 40 / 20 = 2.00.
		{name: "EURUSDWithTarget", body: over(eurusd, "targetPrice", "1.0890"),
			want: `{"pair":"EUR/USD","quoteCurrency":"USD","accountCurrency":"USD","pipSize":"0.0001","lotUnits":"100000",
				"stopPips":"20","pipValuePerLot":"10.00","conversionRate":"1","conversionSource":"quote",
				"units":"50000","lots":"0.50","miniLots":"5","microLots":"50","positionValue":"54250.00",
				"actualRisk":"100.00","riskBudget":"100.00","rewardPips":"40","reward":"200.00","riskRewardRatio":"2.00"}`},
		// Any form ParseForex reads; a short: stop 1.0875 is 25 pips above
		// 1.0850, one lot risks 250 USD, 50 USD buys 0.20 lots.
		{name: "ShortAsMetaTraderWrites", body: over(eurusd, "pair", "eurusd.m", "direction", "short", "stopLoss", "1.0875",
			"balance", nil, "riskPercent", nil, "riskAmount", "50"),
			want: `{"pair":"EUR/USD","quoteCurrency":"USD","accountCurrency":"USD","pipSize":"0.0001","lotUnits":"100000",
				"stopPips":"25","pipValuePerLot":"10.00","conversionRate":"1","conversionSource":"quote",
				"units":"20000","lots":"0.20","miniLots":"2","microLots":"20","positionValue":"21700.00",
				"actualRisk":"50.00","riskBudget":"50.00"}`},
		// Fractional pips are exact: 1.08505 - 1.08302 = 0.00203 = 20.3
		// pips, 203 USD a lot; 100 / 203 = 0.4926 → 0.49 lots, risking
		// 49,000 x 0.00203 = 99.47.
		{name: "FractionalPips", body: over(eurusd, "entryPrice", "1.08505", "stopLoss", "1.08302"),
			want: `{"pair":"EUR/USD","quoteCurrency":"USD","accountCurrency":"USD","pipSize":"0.0001","lotUnits":"100000",
				"stopPips":"20.3","pipValuePerLot":"10.00","conversionRate":"1","conversionSource":"quote",
				"units":"49000","lots":"0.49","miniLots":"4.9","microLots":"49","positionValue":"53167.45",
				"actualRisk":"99.47","riskBudget":"100.00"}`},
		// A broker that trades 0.001 lots: 101 / 200 = 0.505 lots exactly.
		{name: "LotStepThousandth", body: over(eurusd, "riskPercent", "1.01", "lotStep", "0.001"),
			want: `{"pair":"EUR/USD","quoteCurrency":"USD","accountCurrency":"USD","pipSize":"0.0001","lotUnits":"100000",
				"stopPips":"20","pipValuePerLot":"10.00","conversionRate":"1","conversionSource":"quote",
				"units":"50500","lots":"0.505","miniLots":"5.05","microLots":"50.5","positionValue":"54792.50",
				"actualRisk":"101.00","riskBudget":"101.00"}`},
		// Whole lots only: 1,000 / 200 = 5 lots; 990 / 200 = 4.95 → 4 lots.
		{name: "LotStepWhole", body: over(eurusd, "riskPercent", "9.9", "lotStep", "1"),
			want: `{"pair":"EUR/USD","quoteCurrency":"USD","accountCurrency":"USD","pipSize":"0.0001","lotUnits":"100000",
				"stopPips":"20","pipValuePerLot":"10.00","conversionRate":"1","conversionSource":"quote",
				"units":"400000","lots":"4.00","miniLots":"40","microLots":"400","positionValue":"434000.00",
				"actualRisk":"800.00","riskBudget":"990.00"}`},

		// USD/JPY in USD, the base: the rate of 1 JPY is 1 / 150.00. Pip
		// value per lot = 0.01 x 100,000 JPY = 1,000 JPY = 1,000 / 150 =
		// 6.666... → 6.67 USD. Stop 150.00 - 149.65 = 0.35 = 35 pips; a step
		// of 0.01 lots (1,000 USD) risks 1,000 x 0.35 / 150 = 2.3333 USD, so
		// 100 USD buys floor(42.857) = 42 steps = 0.42 lots = 42,000 USD,
		// risking 42,000 x 0.35 / 150 = 14,700 / 150 = 98.00 USD. Its value
		// at entry is 42,000 x 150 / 150 = 42,000.00 USD.
		{name: "USDJPYInUSD", body: over(eurusd, "pair", "USD/JPY", "entryPrice", "150.00", "stopLoss", "149.65",
			"balance", nil, "riskPercent", nil, "riskAmount", "100"),
			want: `{"pair":"USD/JPY","quoteCurrency":"JPY","accountCurrency":"USD","pipSize":"0.01","lotUnits":"100000",
				"stopPips":"35","pipValuePerLot":"6.67","conversionRate":"0.0066666667","conversionSource":"base",
				"units":"42000","lots":"0.42","miniLots":"4.2","microLots":"42","positionValue":"42000.00",
				"actualRisk":"98.00","riskBudget":"100.00"}`},
		// EUR/USD in EUR, the base too: pip value 10 USD / 1.0850 = 9.2166
		// → 9.22 EUR. A step of 1,000 EUR risks 1,000 x 0.0020 / 1.0850 =
		// 1.8433 EUR; 100 EUR buys floor(54.25) = 54 steps = 0.54 lots,
		// risking 54,000 x 0.0020 / 1.0850 = 108 / 1.085 = 99.539 → 99.54.
		{name: "EURUSDInEUR", body: over(eurusd, "accountCurrency", "eur"),
			want: `{"pair":"EUR/USD","quoteCurrency":"USD","accountCurrency":"EUR","pipSize":"0.0001","lotUnits":"100000",
				"stopPips":"20","pipValuePerLot":"9.22","conversionRate":"0.9216589862","conversionSource":"base",
				"units":"54000","lots":"0.54","miniLots":"5.4","microLots":"54","positionValue":"54000.00",
				"actualRisk":"99.54","riskBudget":"100.00"}`},

		// EUR/GBP in USD, a cross: the rate of 1 GBP in USD, 1.27, is given.
		// Pip value per lot = 0.0001 x 100,000 GBP x 1.27 = 12.70 USD. Stop
		// 0.8550 - 0.8530 = 20 pips = 254 USD a lot; 100 / 254 = 0.3937 →
		// 0.39 lots (0.40 would risk 101.60), risking 39,000 x 0.0020 x 1.27
		// = 99.06 USD. Value: 39,000 x 0.8550 x 1.27 = 42,348.15 USD.
		{name: "EURGBPInUSD", body: over(eurusd, "pair", "EUR/GBP", "entryPrice", "0.8550", "stopLoss", "0.8530", "conversionRate", "1.27"),
			want: `{"pair":"EUR/GBP","quoteCurrency":"GBP","accountCurrency":"USD","pipSize":"0.0001","lotUnits":"100000",
				"stopPips":"20","pipValuePerLot":"12.70","conversionRate":"1.27","conversionSource":"given",
				"units":"39000","lots":"0.39","miniLots":"3.9","microLots":"39","positionValue":"42348.15",
				"actualRisk":"99.06","riskBudget":"100.00"}`},
		// GBP/JPY in EUR with 1 JPY = 0.0062 EUR: pip value per lot = 0.01 x
		// 100,000 JPY x 0.0062 = 6.20 EUR. Stop 190.00 - 189.00 = 100 pips =
		// 620 EUR a lot; 2% of 5,000 = 100 EUR → 100 / 620 = 0.1613 → 0.16
		// lots, risking 16,000 x 1.00 x 0.0062 = 99.20 EUR. Target 192.50:
		// 250 pips, 16,000 x 2.50 x 0.0062 = 248.00 EUR, 250 / 100 = 2.50.
		// Value: 16,000 x 190 x 0.0062 = 18,848.00 EUR.
		{name: "GBPJPYInEUR", body: over(eurusd, "pair", "GBPJPY", "accountCurrency", "EUR", "entryPrice", "190.00", "stopLoss", "189.00",
			"targetPrice", "192.50", "balance", "5000", "riskPercent", "2", "conversionRate", "0.0062"),
			want: `{"pair":"GBP/JPY","quoteCurrency":"JPY","accountCurrency":"EUR","pipSize":"0.01","lotUnits":"100000",
				"stopPips":"100","pipValuePerLot":"6.20","conversionRate":"0.0062","conversionSource":"given",
				"units":"16000","lots":"0.16","miniLots":"1.6","microLots":"16","positionValue":"18848.00",
				"actualRisk":"99.20","riskBudget":"100.00","rewardPips":"250","reward":"248.00","riskRewardRatio":"2.50"}`},
		// XAU/USD in USD: a pip is 0.01, a lot 100 oz, so a pip of a lot is
		// 1.00 USD. Stop 2380.00 - 2370.00 = 10.00 = 1,000 pips = 1,000 USD
		// a lot; 100 USD buys 0.10 lots = 10 oz, worth 23,800.00.
		{name: "XAUUSDInUSD", body: over(eurusd, "pair", "XAUUSD", "entryPrice", "2380.00", "stopLoss", "2370.00"),
			want: `{"pair":"XAU/USD","quoteCurrency":"USD","accountCurrency":"USD","pipSize":"0.01","lotUnits":"100",
				"stopPips":"1000","pipValuePerLot":"1.00","conversionRate":"1","conversionSource":"quote",
				"units":"10","lots":"0.10","miniLots":"1","microLots":"10","positionValue":"23800.00",
				"actualRisk":"100.00","riskBudget":"100.00"}`},
		// XAG/USD: a pip is 0.001, a lot 5,000 oz: 5.00 USD a pip. Stop
		// 28.500 - 28.300 = 200 pips = 1,000 USD a lot; 75 USD buys 0.07
		// lots = 350 oz, risking 350 x 0.2 = 70.00.
		{name: "XAGUSDInUSD", body: over(eurusd, "pair", "XAG/USD", "entryPrice", "28.500", "stopLoss", "28.300", "riskPercent", "0.75"),
			want: `{"pair":"XAG/USD","quoteCurrency":"USD","accountCurrency":"USD","pipSize":"0.001","lotUnits":"5000",
				"stopPips":"200","pipValuePerLot":"5.00","conversionRate":"1","conversionSource":"quote",
				"units":"350","lots":"0.07","miniLots":"0.7","microLots":"7","positionValue":"9975.00",
				"actualRisk":"70.00","riskBudget":"75.00"}`},

		// Zero-size outcomes are answers, not errors. A step (0.01 lots)
		// risks 2 USD over 20 pips: 1.99 USD buys none.
		{name: "RiskBelowOneStep", body: over(eurusd, "balance", nil, "riskPercent", nil, "riskAmount", "1.99", "targetPrice", "1.0900"),
			want: `{"pair":"EUR/USD","quoteCurrency":"USD","accountCurrency":"USD","pipSize":"0.0001","lotUnits":"100000",
				"stopPips":"20","pipValuePerLot":"10.00","conversionRate":"1","conversionSource":"quote",
				"units":"0","lots":"0.00","miniLots":"0","microLots":"0","positionValue":"0.00",
				"actualRisk":"0.00","riskBudget":"1.99","rewardPips":"50","reward":"0.00","riskRewardRatio":"2.50",
				"sizingStatus":"nothing-to-size-against"}`},
		{name: "NegativeBalance", body: over(eurusd, "balance", "-500"),
			want: `{"pair":"EUR/USD","quoteCurrency":"USD","accountCurrency":"USD","pipSize":"0.0001","lotUnits":"100000",
				"stopPips":"20","pipValuePerLot":"10.00","conversionRate":"1","conversionSource":"quote",
				"units":"0","lots":"0.00","miniLots":"0","microLots":"0","positionValue":"0.00",
				"actualRisk":"0.00","sizingStatus":"nothing-to-size-against"}`},
		{name: "DerivedBudgetAboveCeiling", body: over(eurusd, "balance", "99999999999999", "riskPercent", "100"),
			want: `{"pair":"EUR/USD","quoteCurrency":"USD","accountCurrency":"USD","pipSize":"0.0001","lotUnits":"100000",
				"stopPips":"20","pipValuePerLot":"10.00","conversionRate":"1","conversionSource":"quote",
				"units":"0","lots":"0.00","miniLots":"0","microLots":"0","positionValue":"0.00",
				"actualRisk":"0.00","riskBudget":"99999999999999.00","sizingStatus":"exceeds-maximum"}`},
		// A stop a millionth of a pip away: 99,999,999.99 USD over 10^-10 a
		// unit is 10^18 units, beyond MaxLots.
		{name: "MoreThanMaxLots", body: over(eurusd, "stopLoss", "1.0849999999", "balance", nil, "riskPercent", nil, "riskAmount", "99999999.99"),
			want: `{"pair":"EUR/USD","quoteCurrency":"USD","accountCurrency":"USD","pipSize":"0.0001","lotUnits":"100000",
				"stopPips":"0.000001","pipValuePerLot":"10.00","conversionRate":"1","conversionSource":"quote",
				"units":"0","lots":"0.00","miniLots":"0","microLots":"0","positionValue":"0.00",
				"actualRisk":"0.00","riskBudget":"99999999.99","sizingStatus":"exceeds-maximum"}`},

		// Refusals, each naming its field.
		{name: "StopAboveEntryForLong", body: over(eurusd, "stopLoss", "1.0870"), errFields: []string{"stopLoss"},
			errMessage: "must be below entryPrice for a long"},
		{name: "StopBelowEntryForShort", body: over(eurusd, "direction", "short"), errFields: []string{"stopLoss"},
			errMessage: "must be above entryPrice for a short"},
		{name: "StopEqualsEntry", body: over(eurusd, "stopLoss", "1.085"), errFields: []string{"stopLoss"},
			errMessage: "must differ from entryPrice"},
		{name: "TargetOnTheStopSide", body: over(eurusd, "targetPrice", "1.08"), errFields: []string{"targetPrice"}},
		{name: "CrossWithoutRate", body: over(eurusd, "pair", "EUR/GBP", "entryPrice", "0.8550", "stopLoss", "0.8530"),
			errFields:  []string{"conversionRate"},
			errMessage: "is required (the value of 1 GBP in USD, since the account currency is neither of the pair's)"},
		{name: "CrossWithBlankRate", body: over(eurusd, "pair", "GBP/JPY", "accountCurrency", "EUR", "entryPrice", "190", "stopLoss", "189", "conversionRate", " "),
			errFields:  []string{"conversionRate"},
			errMessage: "is required (the value of 1 JPY in EUR, since the account currency is neither of the pair's)"},
		{name: "RateWhenAccountIsQuote", body: over(eurusd, "conversionRate", "1"), errFields: []string{"conversionRate"}},
		{name: "RateWhenAccountIsBase", body: over(eurusd, "accountCurrency", "EUR", "conversionRate", "0.92"), errFields: []string{"conversionRate"}},
		{name: "RateZero", body: over(eurusd, "pair", "EUR/GBP", "conversionRate", "0"), errFields: []string{"conversionRate"}},
		{name: "RateAsNumber", body: over(eurusd, "pair", "EUR/GBP", "conversionRate", raw(`1.27`)), errFields: []string{"conversionRate"}},
		{name: "PairMissing", body: over(eurusd, "pair", nil), errFields: []string{"pair"}, errMessage: "is required"},
		{name: "PairUnreadable", body: over(eurusd, "pair", "BTCUSD"), errFields: []string{"pair"}},
		{name: "AccountCurrencyMissing", body: over(eurusd, "accountCurrency", " "), errFields: []string{"accountCurrency"}},
		{name: "AccountCurrencyNotISO", body: over(eurusd, "accountCurrency", "XAU"), errFields: []string{"accountCurrency"}},
		{name: "BothBases", body: over(eurusd, "riskAmount", "100"), errFields: []string{"riskAmount"}},
		{name: "NeitherBasis", body: over(eurusd, "balance", nil, "riskPercent", nil), errFields: []string{"riskAmount"}},
		{name: "RiskPercentAbove100", body: over(eurusd, "riskPercent", "100.01"), errFields: []string{"riskPercent"}},
		{name: "LotStepZero", body: over(eurusd, "lotStep", "0"), errFields: []string{"lotStep"}},
		{name: "LotStepTooFine", body: over(eurusd, "lotStep", "0.000001"), errFields: []string{"lotStep"}},
		{name: "LotStepTooLarge", body: over(eurusd, "lotStep", "100.5"), errFields: []string{"lotStep"}},
		{name: "EveryBadFieldReported", body: over(eurusd, "pair", "EURO", "accountCurrency", "usd1", "direction", "up",
			"entryPrice", raw(`1.08`), "stopLoss", "", "lotStep", "-1"),
			errFields: []string{"pair", "accountCurrency", "direction", "entryPrice", "stopLoss", "lotStep"}},
	}, forex)
}

// The stock calculator's field ruling on a blank string holds here too:
// "", null and absent are the same (an emptied form input).
func TestForexBlankIsAbsent(t *testing.T) {
	a, errA := forex(over(eurusd, "targetPrice", "", "lotStep", raw(`null`), "riskAmount", " "))
	b, errB := forex(over(eurusd))
	if errA != nil || errB != nil || !reflect.DeepEqual(a, b) {
		t.Fatalf("%v %v / %v %v", a, errA, b, errB)
	}
}

func TestForexZeroParams(t *testing.T) {
	out := CalculateForex(ForexParams{})
	if out.Units != "0" || out.SizingStatus != NothingToSizeAgainst {
		t.Fatalf("CalculateForex(ForexParams{}) = %+v", out)
	}
}

func TestForexInputRoundTrip(t *testing.T) {
	body := `{"pair":"EURUSD","accountCurrency":"usd","direction":"long","entryPrice":"1.1","stopLoss":1,"targetPrice":"","riskAmount":"5","conversionRate":null}`
	in := decodeAs[ForexInput](t, body)
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	// null comes back as absent: the same request.
	want := strings.Replace(body, `,"conversionRate":null`, "", 1)
	if got, want := jsonObject(t, string(b)), jsonObject(t, want); !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip = %s, want %s", b, body)
	}
}
