package rules

import (
	"encoding/json"
	"testing"

	"tradejournal/shared/apperr"
)

func TestParseParams(t *testing.T) {
	bad := []struct {
		typ    Type
		params string
		field  string
	}{
		{"nope", `{}`, "type"},
		{MaxTradesPerDay, `{}`, "params.count"},
		{MaxTradesPerDay, `{"count":0}`, "params.count"},
		{MaxTradesPerDay, `{"count":1.5}`, "params.count"},
		{MaxTradesPerDay, `{"count":"3"}`, "params.count"},
		{MaxTradesPerDay, `{"count":3,"amount":"1"}`, "params.amount"},
		{MaxDailyLoss, `{"amount":500}`, "params.amount"},
		{MaxDailyLoss, `{"amount":"-5"}`, "params.amount"},
		{MaxDailyLoss, `{"amount":"1.00001"}`, "params.amount"},
		{MaxRiskPerTrade, `{}`, "params.amount"},
		{MaxRiskPerTrade, `{"percent":"101"}`, "params.percent"},
		{AllowedHours, `{"from":"9:30","to":"16:00"}`, "params.from"},
		{AllowedHours, `{"from":"16:00","to":"09:30"}`, "params.to"},
		{AllowedHours, `{"from":"09:30","to":"24:00"}`, "params.to"},
		{MaxPositionSize, `{}`, "params.quantity"},
		{NoTradingDays, `{"weekdays":[]}`, "params.weekdays"},
		{NoTradingDays, `{"weekdays":[0]}`, "params.weekdays"},
		{NoTradingDays, `{"weekdays":"6"}`, "params.weekdays"},
		{MinPlannedRR, `{"ratio":"0"}`, "params.ratio"},
		{StopRequired, `[1]`, "params"},
		{MaxWeeklyLoss, `{}`, "params.amount"},
		{MaxWeeklyLoss, `{"amount":"0"}`, "params.amount"},
		{MaxOpenExposure, `{}`, "params.notional"},
		{MaxOpenExposure, `{"risk":"x"}`, "params.risk"},
		{RequiredFields, `{}`, "params.fields"},
		{RequiredFields, `{"fields":[]}`, "params.fields"},
		{RequiredFields, `{"fields":["stop","mood"]}`, "params.fields"},
		{AllowedMarkets, `{}`, "params.assetTypes"},
		{AllowedMarkets, `{"assetTypes":["bonds"]}`, "params.assetTypes"},
		{AllowedMarkets, `{"symbols":["AAPL","$$"]}`, "params.symbols"},
		{AllowedMarkets, `{"symbols":"AAPL"}`, "params.symbols"},
		{AllowedDirection, `{"side":"up"}`, "params.side"},
		{AllowedDirection, `{}`, "params.side"},
		{CooldownAfterLoss, `{"minutes":0}`, "params.minutes"},
		{CooldownAfterLoss, `{"minutes":1441}`, "params.minutes"},
		{CooldownAfterLoss, `{"minutes":"5"}`, "params.minutes"},
	}
	for _, c := range bad {
		_, err := ParseParams(c.typ, json.RawMessage(c.params))
		e, ok := apperr.As(err)
		if !ok || e.Code != apperr.Validation || e.Details[0].Field != c.field {
			t.Errorf("%s %s: %v, want a problem with %s", c.typ, c.params, err, c.field)
		}
	}
	good := []struct {
		typ    Type
		params string
		want   string
	}{
		{StopRequired, ``, `{}`},
		{StopRequired, `null`, `{}`},
		{MaxTradesPerDay, `{"count":3}`, `{"count":3}`},
		{MaxRiskPerTrade, `{"amount":"100","percent":null}`, `{"amount":"100"}`},
		{NoTradingDays, `{"weekdays":[7,6,6]}`, `{"weekdays":[6,7]}`},
		{AllowedHours, `{"from":"09:30","to":"16:00"}`, `{"from":"09:30","to":"16:00"}`},
		{MaxOpenExposure, `{"risk":"500"}`, `{"risk":"500"}`},
		{RequiredFields, `{"fields":["tag","stop","tag"]}`, `{"fields":["tag","stop"]}`},
		{AllowedMarkets, `{"symbols":["spy","AAPL","SPY"],"assetTypes":["option"]}`, `{"assetTypes":["option"],"symbols":["AAPL","SPY"]}`},
		{AllowedDirection, `{"side":"short"}`, `{"side":"short"}`},
		{CooldownAfterLoss, `{"minutes":1440}`, `{"minutes":1440}`},
	}
	for _, c := range good {
		p, err := ParseParams(c.typ, json.RawMessage(c.params))
		if err != nil {
			t.Fatalf("%s %s: %v", c.typ, c.params, err)
		}
		if b, _ := json.Marshal(p); string(b) != c.want {
			t.Errorf("%s %s: %s, want %s", c.typ, c.params, b, c.want)
		}
	}
}

// FuzzParseParams: any body is parameters that survive a round trip, or
// a validation error; never a panic.
func FuzzParseParams(f *testing.F) {
	for _, s := range []string{`{"count":3}`, `{"amount":"1.5","percent":"2"}`, `{"from":"09:30","to":"16:00"}`,
		`{"weekdays":[1,7]}`, `{"ratio":"2"}`, `{"quantity":"1e3"}`, `null`, `[]`, `{"count":1e400}`,
		`{"fields":["stop","notes"]}`, `{"symbols":["aapl"],"assetTypes":["stock"]}`, `{"side":"long"}`, `{"minutes":15}`, `{"risk":"100"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, typ := range Types {
			p, err := ParseParams(typ, json.RawMessage(s))
			if err != nil {
				if e, ok := apperr.As(err); !ok || e.Code != apperr.Validation {
					t.Fatalf("%s %q: %v", typ, s, err)
				}
				continue
			}
			b, _ := json.Marshal(p)
			if _, err := ParseParams(typ, b); err != nil {
				t.Fatalf("%s %q: round trip %s: %v", typ, s, b, err)
			}
		}
	})
}
