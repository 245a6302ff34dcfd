package sizing

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/benchcpu"
)

// raw marks a request value written as raw JSON rather than a JSON string.
type raw string

// req builds a request body: a stock long at entry 50, stop 49, changed by
// key/value pairs. A string value is sent as a JSON string, a raw value as
// written, and nil removes the key.
func req(kv ...any) string {
	m := map[string]any{"mode": "stock", "direction": "long", "entryPrice": "50", "stopLoss": "49"}
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

// decode reads a body the way shared/httpx does: unknown fields refused.
func decode(t testing.TB, body string) Input {
	t.Helper()
	var in Input
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	return in
}

// jsonObject decodes a JSON object keeping numbers exact, for comparing
// outputs field by field regardless of order.
func jsonObject(t testing.TB, s string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return m
}

func TestCalculator(t *testing.T) {
	cases := []struct {
		name string
		body string
		// want is the whole expected output object (absent keys must be
		// absent), or empty when the request is refused.
		want string
		// errFields are the expected detail fields of the VALIDATION_ERROR,
		// in order.
		errFields []string
	}{
		// Dollar basis.
		{name: "DollarBasis", body: req("dollarRisk", "100"),
			want: `{"positionSize":100,"perUnitRisk":"1.00","actualDollarRisk":"100.00","totalPositionValue":"5000.00"}`},
		{name: "DollarBasisFloors", body: req("stopLoss", "48", "dollarRisk", "150.5"),
			want: `{"positionSize":75,"perUnitRisk":"2.00","actualDollarRisk":"150.00","totalPositionValue":"3750.00"}`},
		{name: "ExactQuotientPenny", body: req("stopLoss", "49.99", "dollarRisk", "100"),
			want: `{"positionSize":10000,"perUnitRisk":"0.01","actualDollarRisk":"100.00","totalPositionValue":"500000.00"}`},
		{name: "ExactQuotientThirds", body: req("entryPrice", "1", "stopLoss", "0.7", "dollarRisk", "0.9"),
			want: `{"positionSize":3,"perUnitRisk":"0.30","actualDollarRisk":"0.90","totalPositionValue":"3.00"}`},
		{name: "Short", body: req("direction", "short", "stopLoss", "52", "dollarRisk", "100"),
			want: `{"positionSize":50,"perUnitRisk":"2.00","actualDollarRisk":"100.00","totalPositionValue":"2500.00"}`},
		{name: "PerUnitRiskRoundsHalfUp", body: req("entryPrice", "10.005", "stopLoss", "10", "dollarRisk", "1"),
			want: `{"positionSize":200,"perUnitRisk":"0.01","actualDollarRisk":"1.00","totalPositionValue":"2001.00"}`},
		{name: "DollarRiskAtMaximum", body: req("dollarRisk", "99999999.99"),
			want: `{"positionSize":99999999,"perUnitRisk":"1.00","actualDollarRisk":"99999999.00","totalPositionValue":"4999999950.00"}`},
		{name: "EntryAtMaximum", body: req("entryPrice", "9999999.99", "stopLoss", "9999998.99", "dollarRisk", "100"),
			want: `{"positionSize":100,"perUnitRisk":"1.00","actualDollarRisk":"100.00","totalPositionValue":"999999999.00"}`},
		{name: "BlankDollarRiskWithPercentBasis", body: req("dollarRisk", " ", "balance", "10000", "riskPercent", "1"),
			want: `{"positionSize":100,"perUnitRisk":"1.00","actualDollarRisk":"100.00","totalPositionValue":"5000.00","derivedDollarRisk":"100.00"}`},
		{name: "NullsAreAbsent", body: req("dollarRisk", "100", "targetPrice", raw(`null`), "balance", raw(`null`), "feeSchedule", raw(`null`), "manualFees", raw(`null`)),
			want: `{"positionSize":100,"perUnitRisk":"1.00","actualDollarRisk":"100.00","totalPositionValue":"5000.00"}`},
		{name: "EscapedString", body: `{"mode":"stock","direction":"long","entryPrice":"\u0035\u0030","stopLoss":"49","dollarRisk":"100"}`,
			want: `{"positionSize":100,"perUnitRisk":"1.00","actualDollarRisk":"100.00","totalPositionValue":"5000.00"}`},

		// Targets.
		{name: "TargetLong", body: req("targetPrice", "53", "dollarRisk", "100"),
			want: `{"positionSize":100,"perUnitRisk":"1.00","actualDollarRisk":"100.00","totalPositionValue":"5000.00","perUnitReward":"3.00","riskRewardRatio":"3.00"}`},
		{name: "TargetShort", body: req("direction", "short", "stopLoss", "51", "targetPrice", "45.5", "dollarRisk", "100"),
			want: `{"positionSize":100,"perUnitRisk":"1.00","actualDollarRisk":"100.00","totalPositionValue":"5000.00","perUnitReward":"4.50","riskRewardRatio":"4.50"}`},
		{name: "RatioRounds", body: req("entryPrice", "10", "stopLoss", "7", "targetPrice", "12", "dollarRisk", "30"),
			want: `{"positionSize":10,"perUnitRisk":"3.00","actualDollarRisk":"30.00","totalPositionValue":"100.00","perUnitReward":"2.00","riskRewardRatio":"0.67"}`},
		{name: "RatioExactHalfRoundsUp", body: req("entryPrice", "100", "stopLoss", "92", "targetPrice", "100.04", "dollarRisk", "80"),
			want: `{"positionSize":10,"perUnitRisk":"8.00","actualDollarRisk":"80.00","totalPositionValue":"1000.00","perUnitReward":"0.04","riskRewardRatio":"0.01"}`},
		{name: "TargetOnZeroSize", body: req("targetPrice", "52", "dollarRisk", "0.5"),
			want: `{"positionSize":0,"perUnitRisk":"1.00","actualDollarRisk":"0.00","totalPositionValue":"0.00","perUnitReward":"2.00","riskRewardRatio":"2.00","sizingStatus":"nothing-to-size-against"}`},

		// Options.
		{name: "Options", body: req("mode", "options", "entryPrice", "2.50", "stopLoss", "2.00", "dollarRisk", "500"),
			want: `{"positionSize":10,"perUnitRisk":"0.50","actualDollarRisk":"500.00","totalPositionValue":"2500.00"}`},
		{name: "OptionsRiskTooSmall", body: req("mode", "options", "entryPrice", "2.50", "stopLoss", "2.00", "dollarRisk", "49.99"),
			want: `{"positionSize":0,"perUnitRisk":"0.50","actualDollarRisk":"0.00","totalPositionValue":"0.00","sizingStatus":"nothing-to-size-against"}`},
		{name: "OptionsBuyingPowerCap", body: req("mode", "options", "entryPrice", "2.50", "stopLoss", "2.00", "dollarRisk", "500", "buyingPower", "2000"),
			want: `{"positionSize":8,"perUnitRisk":"0.50","actualDollarRisk":"400.00","totalPositionValue":"2000.00","buyingPowerLimited":true}`},
		{name: "OptionsPercentBasis", body: req("mode", "options", "entryPrice", "2.50", "stopLoss", "2.00", "balance", "10000", "riskPercent", "2"),
			want: `{"positionSize":4,"perUnitRisk":"0.50","actualDollarRisk":"200.00","totalPositionValue":"1000.00","derivedDollarRisk":"200.00"}`},
		{name: "OptionsBalanceFundsNoContract", body: req("mode", "options", "entryPrice", "2.50", "stopLoss", "2.00", "balance", "249.99", "riskPercent", "100"),
			want: `{"positionSize":0,"perUnitRisk":"0.50","actualDollarRisk":"0.00","totalPositionValue":"0.00","derivedDollarRisk":"249.99","sizingStatus":"buying-power-zero"}`},

		// Percent basis.
		{name: "PercentBasis", body: req("balance", "10000", "riskPercent", "1"),
			want: `{"positionSize":100,"perUnitRisk":"1.00","actualDollarRisk":"100.00","totalPositionValue":"5000.00","derivedDollarRisk":"100.00"}`},
		{name: "PercentBasisBalanceCaps", body: req("balance", "10000", "riskPercent", "10"),
			want: `{"positionSize":200,"perUnitRisk":"1.00","actualDollarRisk":"200.00","totalPositionValue":"10000.00","derivedDollarRisk":"1000.00","buyingPowerLimited":true}`},
		{name: "PercentBasisFullPrecision", body: req("balance", "12345.67", "riskPercent", "0.5"),
			want: `{"positionSize":61,"perUnitRisk":"1.00","actualDollarRisk":"61.00","totalPositionValue":"3050.00","derivedDollarRisk":"61.73"}`},
		{name: "RiskPercent100", body: req("balance", "1000", "riskPercent", "100"),
			want: `{"positionSize":20,"perUnitRisk":"1.00","actualDollarRisk":"20.00","totalPositionValue":"1000.00","derivedDollarRisk":"1000.00","buyingPowerLimited":true}`},
		{name: "RiskPercentTiny", body: req("balance", "10000", "riskPercent", "0.0001"),
			want: `{"positionSize":0,"perUnitRisk":"1.00","actualDollarRisk":"0.00","totalPositionValue":"0.00","derivedDollarRisk":"0.01","sizingStatus":"nothing-to-size-against"}`},
		{name: "BalanceZero", body: req("balance", "0", "riskPercent", "1"),
			want: `{"positionSize":0,"perUnitRisk":"1.00","actualDollarRisk":"0.00","totalPositionValue":"0.00","sizingStatus":"nothing-to-size-against"}`},
		{name: "BalanceNegative", body: req("balance", "-500", "riskPercent", "1"),
			want: `{"positionSize":0,"perUnitRisk":"1.00","actualDollarRisk":"0.00","totalPositionValue":"0.00","sizingStatus":"nothing-to-size-against"}`},
		{name: "BalanceNegativeWithBuyingPower", body: req("balance", "-500", "riskPercent", "1", "buyingPower", "100000"),
			want: `{"positionSize":0,"perUnitRisk":"1.00","actualDollarRisk":"0.00","totalPositionValue":"0.00","sizingStatus":"nothing-to-size-against"}`},
		{name: "BalanceAtNegativeBound", body: req("balance", "-99999999999999.9999", "riskPercent", "1"),
			want: `{"positionSize":0,"perUnitRisk":"1.00","actualDollarRisk":"0.00","totalPositionValue":"0.00","sizingStatus":"nothing-to-size-against"}`},
		{name: "BalanceAtBoundExceedsMaximum", body: req("balance", "99999999999999.9999", "riskPercent", "1"),
			want: `{"positionSize":0,"perUnitRisk":"1.00","actualDollarRisk":"0.00","totalPositionValue":"0.00","derivedDollarRisk":"1000000000000.00","sizingStatus":"exceeds-maximum"}`},
		{name: "DerivedRiskAtMaximum", body: req("balance", "99999999.99", "riskPercent", "100"),
			want: `{"positionSize":1999999,"perUnitRisk":"1.00","actualDollarRisk":"1999999.00","totalPositionValue":"99999950.00","derivedDollarRisk":"99999999.99","buyingPowerLimited":true}`},
		{name: "DerivedRiskJustAboveMaximum", body: req("balance", "99999999.991", "riskPercent", "100"),
			want: `{"positionSize":0,"perUnitRisk":"1.00","actualDollarRisk":"0.00","totalPositionValue":"0.00","derivedDollarRisk":"99999999.99","sizingStatus":"exceeds-maximum"}`},
		{name: "ExceedsMaximumWithBuyingPower", body: req("balance", "1000000000", "riskPercent", "50", "buyingPower", "0"),
			want: `{"positionSize":0,"perUnitRisk":"1.00","actualDollarRisk":"0.00","totalPositionValue":"0.00","derivedDollarRisk":"500000000.00","sizingStatus":"exceeds-maximum"}`},
		{name: "PercentBasisBuyingPowerReplacesBalanceCap", body: req("balance", "10000", "riskPercent", "10", "buyingPower", "100000"),
			want: `{"positionSize":1000,"perUnitRisk":"1.00","actualDollarRisk":"1000.00","totalPositionValue":"50000.00","derivedDollarRisk":"1000.00"}`},
		{name: "PercentBasisBuyingPowerCaps", body: req("balance", "10000", "riskPercent", "1", "buyingPower", "1000"),
			want: `{"positionSize":20,"perUnitRisk":"1.00","actualDollarRisk":"20.00","totalPositionValue":"1000.00","derivedDollarRisk":"100.00","buyingPowerLimited":true}`},
		{name: "PercentBasisBuyingPowerZero", body: req("balance", "10000", "riskPercent", "1", "buyingPower", "0"),
			want: `{"positionSize":0,"perUnitRisk":"1.00","actualDollarRisk":"0.00","totalPositionValue":"0.00","derivedDollarRisk":"100.00","sizingStatus":"buying-power-zero"}`},
		{name: "PercentBasisBuyingPowerNegative", body: req("balance", "10000", "riskPercent", "1", "buyingPower", "-0.01"),
			want: `{"positionSize":0,"perUnitRisk":"1.00","actualDollarRisk":"0.00","totalPositionValue":"0.00","derivedDollarRisk":"100.00","sizingStatus":"buying-power-zero"}`},
		{name: "PercentBasisBalanceFundsNoUnit", body: req("balance", "40", "riskPercent", "100"),
			want: `{"positionSize":0,"perUnitRisk":"1.00","actualDollarRisk":"0.00","totalPositionValue":"0.00","derivedDollarRisk":"40.00","sizingStatus":"buying-power-zero"}`},
		{name: "PercentBasisRiskTooSmallWithBuyingPowerZero", body: req("balance", "10", "riskPercent", "5", "buyingPower", "0"),
			want: `{"positionSize":0,"perUnitRisk":"1.00","actualDollarRisk":"0.00","totalPositionValue":"0.00","derivedDollarRisk":"0.50","sizingStatus":"nothing-to-size-against"}`},

		// Dollar basis with buyingPower.
		{name: "DollarBasisBuyingPowerCaps", body: req("dollarRisk", "100", "buyingPower", "1000"),
			want: `{"positionSize":20,"perUnitRisk":"1.00","actualDollarRisk":"20.00","totalPositionValue":"1000.00","buyingPowerLimited":true}`},
		{name: "DollarBasisCapEqualsRiskSize", body: req("dollarRisk", "100", "buyingPower", "5000"),
			want: `{"positionSize":100,"perUnitRisk":"1.00","actualDollarRisk":"100.00","totalPositionValue":"5000.00"}`},
		{name: "DollarBasisCapOneBelowRiskSize", body: req("dollarRisk", "100", "buyingPower", "4999.99"),
			want: `{"positionSize":99,"perUnitRisk":"1.00","actualDollarRisk":"99.00","totalPositionValue":"4950.00","buyingPowerLimited":true}`},
		{name: "DollarBasisBuyingPowerZero", body: req("dollarRisk", "100", "buyingPower", "0"),
			want: `{"positionSize":0,"perUnitRisk":"1.00","actualDollarRisk":"0.00","totalPositionValue":"0.00","sizingStatus":"buying-power-zero"}`},
		{name: "DollarBasisBuyingPowerNegative", body: req("dollarRisk", "100", "buyingPower", "-1"),
			want: `{"positionSize":0,"perUnitRisk":"1.00","actualDollarRisk":"0.00","totalPositionValue":"0.00","sizingStatus":"buying-power-zero"}`},
		{name: "DollarBasisBuyingPowerBelowOneUnit", body: req("dollarRisk", "100", "buyingPower", "49.99"),
			want: `{"positionSize":0,"perUnitRisk":"1.00","actualDollarRisk":"0.00","totalPositionValue":"0.00","sizingStatus":"buying-power-zero"}`},
		{name: "DollarBasisBuyingPowerBlank", body: req("dollarRisk", "100", "buyingPower", "  "),
			want: `{"positionSize":100,"perUnitRisk":"1.00","actualDollarRisk":"100.00","totalPositionValue":"5000.00"}`},
		{name: "DollarBasisBuyingPowerAtBound", body: req("dollarRisk", "100", "buyingPower", "99999999999999.9999"),
			want: `{"positionSize":100,"perUnitRisk":"1.00","actualDollarRisk":"100.00","totalPositionValue":"5000.00"}`},
		{name: "DollarBasisRiskTooSmall", body: req("dollarRisk", "0.99"),
			want: `{"positionSize":0,"perUnitRisk":"1.00","actualDollarRisk":"0.00","totalPositionValue":"0.00","sizingStatus":"nothing-to-size-against"}`},
		{name: "DollarBasisRiskTooSmallWithBuyingPowerZero", body: req("dollarRisk", "0.5", "buyingPower", "0"),
			want: `{"positionSize":0,"perUnitRisk":"1.00","actualDollarRisk":"0.00","totalPositionValue":"0.00","sizingStatus":"nothing-to-size-against"}`},
		{name: "PositionSizeAboveMaximum", body: req("entryPrice", "1", "stopLoss", "0.99999999999999999999", "dollarRisk", "1"),
			want: `{"positionSize":0,"perUnitRisk":"0.00","actualDollarRisk":"0.00","totalPositionValue":"0.00","sizingStatus":"exceeds-maximum"}`},
		{name: "DollarBasisExceedsMaximumWithBuyingPower", body: req("entryPrice", "0.0001", "stopLoss", "0.0000999999999999", "dollarRisk", "1", "buyingPower", "99999999999999.9999"),
			want: `{"positionSize":0,"perUnitRisk":"0.00","actualDollarRisk":"0.00","totalPositionValue":"0.00","sizingStatus":"exceeds-maximum"}`},
		{name: "HugeRiskSizeCappedBelowMaximum", body: req("entryPrice", "1", "stopLoss", "0.99999999999999999999", "dollarRisk", "1", "buyingPower", "1000"),
			want: `{"positionSize":1000,"perUnitRisk":"0.00","actualDollarRisk":"0.00","totalPositionValue":"1000.00","buyingPowerLimited":true}`},

		// Fees.
		{name: "FeeScheduleMinimum", body: req("dollarRisk", "100", "feeSchedule", raw(`{"stockPerShareCommission":"0.005","stockMinPerFill":"1"}`)),
			want: `{"positionSize":100,"perUnitRisk":"1.00","actualDollarRisk":"100.00","totalPositionValue":"5000.00","estimatedFees":"2.00","feeToRiskPercent":"2.00","adjustedDollarRisk":"102.00","breakeven":"50.02"}`},
		{name: "FeeScheduleMaximumWithTarget", body: req("stopLoss", "49.99", "targetPrice", "51", "dollarRisk", "100", "feeSchedule", raw(`{"stockPerShareCommission":"0.01","stockMaxPerFill":"5"}`)),
			want: `{"positionSize":10000,"perUnitRisk":"0.01","actualDollarRisk":"100.00","totalPositionValue":"500000.00","perUnitReward":"1.00","riskRewardRatio":"100.00","estimatedFees":"10.00","feeToRiskPercent":"10.00","adjustedDollarRisk":"110.00","breakeven":"50.00","adjustedRiskRewardRatio":"90.82"}`},
		{name: "FeeScheduleMaximumBelowMinimum", body: req("dollarRisk", "100", "feeSchedule", raw(`{"stockPerShareCommission":"0.001","stockMinPerFill":"5","stockMaxPerFill":"2"}`)),
			want: `{"positionSize":100,"perUnitRisk":"1.00","actualDollarRisk":"100.00","totalPositionValue":"5000.00","estimatedFees":"4.00","feeToRiskPercent":"4.00","adjustedDollarRisk":"104.00","breakeven":"50.04"}`},
		{name: "FeeScheduleOptions", body: req("mode", "options", "entryPrice", "2.50", "stopLoss", "2.00", "dollarRisk", "500", "feeSchedule", raw(`{"stockPerShareCommission":"9","optionsPerContractCommission":"0.65","optionsPerContractExchangeFee":"0.03"}`)),
			want: `{"positionSize":10,"perUnitRisk":"0.50","actualDollarRisk":"500.00","totalPositionValue":"2500.00","estimatedFees":"13.60","feeToRiskPercent":"2.72","adjustedDollarRisk":"513.60","breakeven":"2.51"}`},
		{name: "FeeScheduleEmpty", body: req("mode", "options", "entryPrice", "2.50", "stopLoss", "2.00", "dollarRisk", "500", "feeSchedule", raw(`{}`)),
			want: `{"positionSize":10,"perUnitRisk":"0.50","actualDollarRisk":"500.00","totalPositionValue":"2500.00","estimatedFees":"0.00","feeToRiskPercent":"0.00","adjustedDollarRisk":"500.00","breakeven":"2.50"}`},
		{name: "ManualFeesShortWithTarget", body: req("direction", "short", "stopLoss", "52", "targetPrice", "45", "dollarRisk", "100", "manualFees", "5"),
			want: `{"positionSize":50,"perUnitRisk":"2.00","actualDollarRisk":"100.00","totalPositionValue":"2500.00","perUnitReward":"5.00","riskRewardRatio":"2.50","estimatedFees":"5.00","feeToRiskPercent":"5.00","adjustedDollarRisk":"105.00","breakeven":"49.90","adjustedRiskRewardRatio":"2.33"}`},
		{name: "ManualFeesZero", body: req("dollarRisk", "100", "manualFees", "0"),
			want: `{"positionSize":100,"perUnitRisk":"1.00","actualDollarRisk":"100.00","totalPositionValue":"5000.00","estimatedFees":"0.00","feeToRiskPercent":"0.00","adjustedDollarRisk":"100.00","breakeven":"50.00"}`},
		{name: "ManualFeesAboveReward", body: req("targetPrice", "50.5", "dollarRisk", "100", "manualFees", "80"),
			want: `{"positionSize":100,"perUnitRisk":"1.00","actualDollarRisk":"100.00","totalPositionValue":"5000.00","perUnitReward":"0.50","riskRewardRatio":"0.50","estimatedFees":"80.00","feeToRiskPercent":"80.00","adjustedDollarRisk":"180.00","breakeven":"50.80","adjustedRiskRewardRatio":"-0.17"}`},
		{name: "ManualFeesAtMaximum", body: req("dollarRisk", "100", "manualFees", "9999999.99"),
			want: `{"positionSize":100,"perUnitRisk":"1.00","actualDollarRisk":"100.00","totalPositionValue":"5000.00","estimatedFees":"9999999.99","feeToRiskPercent":"9999999.99","adjustedDollarRisk":"10000099.99","breakeven":"100050.00"}`},
		{name: "ManualFeesBlankWithFeeSchedule", body: req("dollarRisk", "100", "manualFees", "", "feeSchedule", raw(`{"stockMinPerFill":"1"}`)),
			want: `{"positionSize":100,"perUnitRisk":"1.00","actualDollarRisk":"100.00","totalPositionValue":"5000.00","estimatedFees":"2.00","feeToRiskPercent":"2.00","adjustedDollarRisk":"102.00","breakeven":"50.02"}`},
		{name: "FeesOmittedAtZeroSize", body: req("dollarRisk", "0.5", "manualFees", "5"),
			want: `{"positionSize":0,"perUnitRisk":"1.00","actualDollarRisk":"0.00","totalPositionValue":"0.00","sizingStatus":"nothing-to-size-against"}`},
		{name: "FeesOmittedOnBuyingPowerZero", body: req("balance", "10000", "riskPercent", "1", "buyingPower", "0", "feeSchedule", raw(`{"stockMinPerFill":"1"}`)),
			want: `{"positionSize":0,"perUnitRisk":"1.00","actualDollarRisk":"0.00","totalPositionValue":"0.00","derivedDollarRisk":"100.00","sizingStatus":"buying-power-zero"}`},

		// Field errors.
		{name: "ModeMissing", body: req("mode", nil, "dollarRisk", "100"), errFields: []string{"mode"}},
		{name: "ModeUnknown", body: req("mode", "futures", "dollarRisk", "100"), errFields: []string{"mode"}},
		{name: "DirectionMissing", body: req("direction", nil, "dollarRisk", "100"), errFields: []string{"direction"}},
		{name: "DirectionUnknown", body: req("direction", "LONG", "dollarRisk", "100"), errFields: []string{"direction"}},
		{name: "PricesMissing", body: req("entryPrice", nil, "stopLoss", "", "dollarRisk", "100"), errFields: []string{"entryPrice", "stopLoss"}},
		{name: "EntryAboveMaximum", body: req("entryPrice", "10000000.00", "dollarRisk", "100"), errFields: []string{"entryPrice"}},
		{name: "EntryJustAboveMaximum", body: req("entryPrice", "9999999.991", "dollarRisk", "100"), errFields: []string{"entryPrice"}},
		{name: "EntryNegative", body: req("entryPrice", "-50", "dollarRisk", "100"), errFields: []string{"entryPrice"}},
		{name: "StopZero", body: req("stopLoss", "0", "dollarRisk", "100"), errFields: []string{"stopLoss"}},
		{name: "StopAboveMaximumShort", body: req("direction", "short", "stopLoss", "9999999.991", "dollarRisk", "100"), errFields: []string{"stopLoss"}},
		{name: "TargetAboveMaximum", body: req("targetPrice", "10000000", "dollarRisk", "100"), errFields: []string{"targetPrice"}},
		{name: "TargetZero", body: req("targetPrice", "0", "dollarRisk", "100"), errFields: []string{"targetPrice"}},
		{name: "EntryLeadingSpace", body: req("entryPrice", " 50", "dollarRisk", "100"), errFields: []string{"entryPrice"}},
		{name: "StopTrailingSpace", body: req("stopLoss", "49\n", "dollarRisk", "100"), errFields: []string{"stopLoss"}},
		{name: "EntryExponent", body: req("entryPrice", "5e1", "dollarRisk", "100"), errFields: []string{"entryPrice"}},
		{name: "EntryPlusSign", body: req("entryPrice", "+50", "dollarRisk", "100"), errFields: []string{"entryPrice"}},
		{name: "DollarRiskThousandsSeparator", body: req("dollarRisk", "1,000"), errFields: []string{"dollarRisk"}},
		{name: "DollarRiskNaN", body: req("dollarRisk", "NaN"), errFields: []string{"dollarRisk"}},
		{name: "BalanceInfinity", body: req("balance", "Infinity", "riskPercent", "1"), errFields: []string{"balance"}},
		{name: "EntryJSONNumber", body: req("entryPrice", raw(`50`), "dollarRisk", "100"), errFields: []string{"entryPrice"}},
		{name: "DollarRiskJSONNumber", body: req("dollarRisk", raw(`100`)), errFields: []string{"dollarRisk"}},
		{name: "BalanceJSONBoolean", body: req("balance", raw(`true`), "riskPercent", "1"), errFields: []string{"balance"}},
		{name: "RiskPercentJSONObject", body: req("balance", "1000", "riskPercent", raw(`{"v":"1"}`)), errFields: []string{"riskPercent"}},
		{name: "DollarRiskZero", body: req("dollarRisk", "0"), errFields: []string{"dollarRisk"}},
		{name: "DollarRiskJustAboveMaximum", body: req("dollarRisk", "100000000.00"), errFields: []string{"dollarRisk"}},
		{name: "DollarRiskTooManyDigits", body: req("dollarRisk", "1."+strings.Repeat("0", 21)), errFields: []string{"dollarRisk"}},
		{name: "RiskPercentZero", body: req("balance", "1000", "riskPercent", "0"), errFields: []string{"riskPercent"}},
		{name: "RiskPercentNegative", body: req("balance", "1000", "riskPercent", "-1"), errFields: []string{"riskPercent"}},
		{name: "RiskPercentJustAbove100", body: req("balance", "1000", "riskPercent", "100.0001"), errFields: []string{"riskPercent"}},
		{name: "BalanceJustPastBound", body: req("balance", "100000000000000.0000", "riskPercent", "1"), errFields: []string{"balance"}},
		{name: "BalanceJustPastNegativeBound", body: req("balance", "-100000000000000", "riskPercent", "1"), errFields: []string{"balance"}},
		{name: "BuyingPowerJustPastBound", body: req("dollarRisk", "100", "buyingPower", "99999999999999.99991"), errFields: []string{"buyingPower"}},
		{name: "BuyingPowerJSONNumber", body: req("dollarRisk", "100", "buyingPower", raw(`0`)), errFields: []string{"buyingPower"}},

		// Risk basis.
		{name: "BothBases", body: req("dollarRisk", "100", "balance", "1000", "riskPercent", "1"), errFields: []string{"dollarRisk"}},
		{name: "DollarRiskWithRiskPercent", body: req("dollarRisk", "100", "riskPercent", "1"), errFields: []string{"dollarRisk"}},
		{name: "DollarRiskWithBalance", body: req("dollarRisk", "100", "balance", "1000"), errFields: []string{"dollarRisk"}},
		{name: "NeitherBasis", body: req(), errFields: []string{"dollarRisk"}},
		{name: "NeitherBasisAllBlank", body: req("dollarRisk", "", "balance", " ", "riskPercent", "\t"), errFields: []string{"dollarRisk"}},
		{name: "BalanceWithoutRiskPercent", body: req("balance", "1000"), errFields: []string{"riskPercent"}},
		{name: "RiskPercentWithoutBalance", body: req("riskPercent", "1", "buyingPower", "1000"), errFields: []string{"balance"}},

		// Fees.
		{name: "FeeScheduleWithManualFees", body: req("dollarRisk", "100", "manualFees", "1", "feeSchedule", raw(`{}`)), errFields: []string{"manualFees"}},
		{name: "ManualFeesNegative", body: req("dollarRisk", "100", "manualFees", "-1"), errFields: []string{"manualFees"}},
		{name: "ManualFeesJustAboveMaximum", body: req("dollarRisk", "100", "manualFees", "9999999.991"), errFields: []string{"manualFees"}},
		{name: "FeeScheduleFieldErrors", body: req("dollarRisk", "100", "feeSchedule", raw(`{"stockMinPerFill":"-1","stockMaxPerFill":"10000000","optionsMaxPerFill":5,"optionsMinPerFill":"1e2"}`)),
			errFields: []string{"feeSchedule.stockMinPerFill", "feeSchedule.stockMaxPerFill", "feeSchedule.optionsMinPerFill", "feeSchedule.optionsMaxPerFill"}},

		// Structural price errors.
		{name: "StopEqualsEntry", body: req("stopLoss", "50.00", "dollarRisk", "100"), errFields: []string{"stopLoss"}},
		{name: "LongStopAboveEntry", body: req("stopLoss", "51", "dollarRisk", "100"), errFields: []string{"stopLoss"}},
		{name: "ShortStopBelowEntry", body: req("direction", "short", "dollarRisk", "100"), errFields: []string{"stopLoss"}},
		{name: "TargetEqualsEntry", body: req("targetPrice", "50", "dollarRisk", "100"), errFields: []string{"targetPrice"}},
		{name: "LongTargetBelowEntry", body: req("targetPrice", "49.5", "dollarRisk", "100"), errFields: []string{"targetPrice"}},
		{name: "ShortTargetAboveEntry", body: req("direction", "short", "stopLoss", "51", "targetPrice", "50.01", "dollarRisk", "100"), errFields: []string{"targetPrice"}},
		{name: "StopEqualsEntryWithBadDirection", body: req("direction", "up", "stopLoss", "50", "dollarRisk", "100"), errFields: []string{"direction", "stopLoss"}},

		// Every problem at once.
		{name: "EveryBadFieldReported", body: req("mode", "bonds", "entryPrice", raw(`50`), "stopLoss", "49", "targetPrice", "1e9", "balance", "1000", "riskPercent", "101", "manualFees", "1", "feeSchedule", raw(`{}`)),
			errFields: []string{"mode", "entryPrice", "targetPrice", "riskPercent", "manualFees"}},
	}

	names := map[string]bool{}
	for _, c := range cases {
		if names[c.name] {
			t.Fatalf("duplicate case name %s", c.name)
		}
		names[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			p, err := Validate(decode(t, c.body))
			if c.errFields != nil {
				e, ok := apperr.As(err)
				if !ok || e.Code != apperr.Validation {
					t.Fatalf("Validate(%s) = %v, want VALIDATION_ERROR", c.body, err)
				}
				var fields []string
				for _, d := range e.Details {
					fields = append(fields, d.Field)
					if d.Message == "" {
						t.Errorf("detail %s has no message", d.Field)
					}
				}
				if !slices.Equal(fields, c.errFields) {
					t.Fatalf("Validate(%s) details %v, want fields %v", c.body, e.Details, c.errFields)
				}
				return
			}
			if err != nil {
				t.Fatalf("Validate(%s): %v", c.body, err)
			}
			b, err := json.Marshal(Calculate(p))
			if err != nil {
				t.Fatal(err)
			}
			got, want := jsonObject(t, string(b)), jsonObject(t, c.want)
			if !maps.EqualFunc(got, want, func(a, b any) bool { return reflect.DeepEqual(a, b) }) {
				t.Fatalf("Calculate(%s)\n got %s\nwant %s", c.body, b, c.want)
			}
		})
	}
	if len(cases) < 60 {
		t.Fatalf("only %d cases", len(cases))
	}
}

func TestUnknownFeeFieldRefused(t *testing.T) {
	dec := json.NewDecoder(strings.NewReader(req("dollarRisk", "100", "feeSchedule", raw(`{"stockPerShare":"1"}`))))
	dec.DisallowUnknownFields()
	var in Input
	if err := dec.Decode(&in); err == nil || !strings.Contains(err.Error(), "unknown field") {
		t.Fatalf("decode = %v, want an unknown field error", err)
	}
}

func TestInputRoundTrip(t *testing.T) {
	body := `{"mode":"options","direction":"short","entryPrice":"2.5","stopLoss":"3","targetPrice":"","dollarRisk":100,"feeSchedule":{"optionsMinPerFill":"1"}}`
	b, err := json.Marshal(decode(t, body))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := jsonObject(t, string(b)), jsonObject(t, body); !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip = %s, want %s", b, body)
	}
}

func TestCalculateZeroParams(t *testing.T) {
	out := Calculate(Params{})
	if out.PositionSize != 0 || out.SizingStatus != NothingToSizeAgainst {
		t.Fatalf("Calculate(Params{}) = %+v", out)
	}
}

func TestFillFee(t *testing.T) {
	d := decimal.RequireFromString
	s := FeeSchedule{
		StockPerShareCommission:       d("0.00005"),
		StockMinPerFill:               d("0"),
		OptionsPerContractCommission:  d("0.65"),
		OptionsPerContractExchangeFee: d("0.035"),
		OptionsMinPerFill:             d("1"),
		OptionsMaxPerFill:             d("10"),
	}
	cases := []struct {
		name    string
		options bool
		qty     string
		want    string
	}{
		{"StockRoundsHalfUpTo4Places", false, "1", "0.0001"},
		{"StockNoMaximum", false, "1000000", "50"},
		{"NoFill", false, "0", "0"},
		{"OptionsMinimum", true, "1", "1"},
		{"OptionsPerContract", true, "3", "2.055"},
		{"OptionsMaximum", true, "100", "10"},
		{"OptionsNegativeQty", true, "-3", "0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := s.FillFee(c.options, d(c.qty))
			if !got.Equal(d(c.want)) {
				t.Fatalf("FillFee(%v, %s) = %s, want %s", c.options, c.qty, got, c.want)
			}
		})
	}
}

// seedBodies are request bodies for the fuzz test and the benchmark.
var seedBodies = []string{
	`{"mode":"stock","direction":"long","entryPrice":"50","stopLoss":"49","dollarRisk":"100"}`,
	`{"mode":"options","direction":"short","entryPrice":"2.5","stopLoss":"3","targetPrice":"1","balance":"10000","riskPercent":"2","buyingPower":"500","feeSchedule":{"optionsPerContractCommission":"0.65","optionsMinPerFill":"1","optionsMaxPerFill":"5"}}`,
	`{"mode":"stock","direction":"long","entryPrice":"1","stopLoss":"0.99999999999999999999","dollarRisk":"99999999.99","manualFees":"0"}`,
	`{"mode":"stock","direction":"long","entryPrice":50,"stopLoss":"x","balance":"-99999999999999.9999","riskPercent":"100"}`,
	`{}`,
}

func FuzzValidateCalculate(f *testing.F) {
	for _, s := range seedBodies {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var in Input
		_ = json.Unmarshal(body, &in) // a partial decode is still an input
		p, err := Validate(in)
		if err != nil {
			if e, ok := apperr.As(err); !ok || e.Code != apperr.Validation || len(e.Details) == 0 {
				t.Fatalf("Validate error %v is not a VALIDATION_ERROR with details", err)
			}
			return
		}
		out := Calculate(p)
		if out.PositionSize < 0 || out.PositionSize > MaxPositionSize {
			t.Fatalf("positionSize %d out of range", out.PositionSize)
		}
		if (out.PositionSize == 0) != (out.SizingStatus != "") {
			t.Fatalf("positionSize %d with sizingStatus %q", out.PositionSize, out.SizingStatus)
		}
		if _, err := json.Marshal(out); err != nil {
			t.Fatal(err)
		}
	})
}

func BenchmarkCalculateWithFees(b *testing.B) {
	in := decode(b, `{"mode":"stock","direction":"long","entryPrice":"187.35","stopLoss":"182.10","targetPrice":"201.50",`+
		`"balance":"25000","riskPercent":"1","buyingPower":"50000",`+
		`"feeSchedule":{"stockPerShareCommission":"0.005","stockMinPerFill":"1","stockMaxPerFill":"25"}}`)
	b.ReportAllocs()
	stop := benchcpu.Start(b)
	for b.Loop() {
		p, err := Validate(in)
		if err != nil {
			b.Fatal(err)
		}
		out := Calculate(p)
		if out.PositionSize == 0 {
			b.Fatal("no position")
		}
	}
	stop()
}
