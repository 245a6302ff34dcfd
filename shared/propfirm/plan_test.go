package propfirm

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"tradejournal/shared/apperr"
)

func fields(t *testing.T, err error) []string {
	t.Helper()
	e, ok := apperr.As(err)
	if !ok || e.Code != apperr.Validation {
		t.Fatalf("error %v is not a validation error", err)
	}
	var out []string
	for _, d := range e.Details {
		out = append(out, d.Field)
	}
	return out
}

func TestValidateNamesTheField(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"Empty", `{}`, []string{"phase", "startingBalance"}},
		{"BadPhase", `{"phase":"trial","startingBalance":"1000"}`, []string{"phase"}},
		{"EvaluationWithoutTarget", `{"phase":"evaluation","startingBalance":"1000"}`, []string{"profitTarget"}},
		{"NumberNotString", `{"phase":"funded","startingBalance":1000}`, []string{"startingBalance"}},
		{"NegativeTarget", `{"phase":"evaluation","startingBalance":"1000","profitTarget":"-5"}`, []string{"profitTarget"}},
		{"Zone", `{"phase":"funded","startingBalance":"1000","timezone":"Mars/Olympus"}`, []string{"timezone"}},
		{"DayStart", `{"phase":"funded","startingBalance":"1000","dayStart":"25:00"}`, []string{"dayStart"}},
		{"DailyAmount", `{"phase":"funded","startingBalance":"1000","dailyLoss":{"basis":"equity"}}`, []string{"dailyLoss.amount"}},
		{"DailyBasis", `{"phase":"funded","startingBalance":"1000","dailyLoss":{"amount":"50","basis":"cash"}}`, []string{"dailyLoss.basis"}},
		{"DrawdownKind", `{"phase":"funded","startingBalance":"1000","maxDrawdown":{"amount":"100"}}`, []string{"maxDrawdown.kind"}},
		{"DrawdownPastBalance", `{"phase":"funded","startingBalance":"1000","maxDrawdown":{"amount":"2000","kind":"static"}}`, []string{"maxDrawdown.amount"}},
		{"LockOnStatic", `{"phase":"funded","startingBalance":"1000","maxDrawdown":{"amount":"100","kind":"static","lockAt":"1000"}}`, []string{"maxDrawdown.lockAt"}},
		{"LockBelowFloor", `{"phase":"funded","startingBalance":"1000","maxDrawdown":{"amount":"100","kind":"trailingEndOfDay","lockAt":"800"}}`, []string{"maxDrawdown.lockAt"}},
		{"Days", `{"phase":"funded","startingBalance":"1000","minTradingDays":-1}`, []string{"minTradingDays"}},
		{"Consistency", `{"phase":"funded","startingBalance":"1000","consistencyPercent":"120"}`, []string{"consistencyPercent"}},
		{"Contracts", `{"phase":"funded","startingBalance":"1000","maxContracts":"0"}`, []string{"maxContracts"}},
		{"Hours", `{"phase":"funded","startingBalance":"1000","allowedHours":{"from":"9:30","to":"16:00"}}`, []string{"allowedHours.from"}},
		{"Weekdays", `{"phase":"funded","startingBalance":"1000","allowedHours":{"from":"09:30","to":"16:00","weekdays":[8]}}`, []string{"allowedHours.weekdays"}},
		{"Warn", `{"phase":"funded","startingBalance":"1000","warnAtPercent":0}`, []string{"warnAtPercent"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.body))
			if got := fields(t, err); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("fields %v, want %v", got, tc.want)
			}
		})
	}
}

func TestValidateDefaults(t *testing.T) {
	p, err := Parse([]byte(`{"phase":"funded","startingBalance":"25000","dailyLoss":{"amount":"500"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.Timezone != "America/New_York" || p.DayStart != "17:00" || p.WarnAtPercent != 80 || p.DailyLoss.Basis != ByBalance {
		t.Errorf("defaults %+v", p)
	}
}

// Every template is a valid plan that survives its own JSON (the web app
// sends it back as a request), and carries its firm's published figures.
func TestTemplates(t *testing.T) {
	for _, tp := range Templates() {
		for _, s := range tp.Sizes {
			raw, err := json.Marshal(s.Plan)
			if err != nil {
				t.Fatal(err)
			}
			back, err := Parse(raw)
			if err != nil {
				t.Fatalf("%s %s: %v", tp.ID, s.Label, err)
			}
			if !reflect.DeepEqual(normal(t, back), normal(t, s.Plan)) {
				t.Errorf("%s %s changed in a round trip:\n%s\n%+v", tp.ID, s.Label, raw, back)
			}
		}
	}
	type figures struct{ target, daily, maxLoss, lock, contracts string }
	for _, tc := range []struct {
		id, label string
		want      figures
	}{
		// Two-step: 10% then 5% of the balance, 5% daily, 10% maximum ($100,000: $10,000, $5,000, $10,000).
		{"two-step-phase-1", "100000", figures{"10000", "5000", "10000", "", ""}},
		{"two-step-phase-1", "10000", figures{"1000", "500", "1000", "", ""}},
		{"two-step-phase-2", "100000", figures{"5000", "5000", "10000", "", ""}},
		// Futures combine: 50K $3,000 target, $1,000 daily, $2,000 trailing, 5 contracts; 150K $9,000, $3,000, $4,500, 15.
		{"futures-combine", "50000", figures{"3000", "1000", "2000", "50000", "5"}},
		{"futures-combine", "150000", figures{"9000", "3000", "4500", "150000", "15"}},
		// Intraday threshold: 50K $3,000 target, $2,500 threshold stopping at $50,100.
		{"intraday-threshold", "50000", figures{"3000", "", "2500", "50100", "10"}},
	} {
		p := template(t, tc.id, tc.label)
		got := figures{target: p.ProfitTarget.String(), maxLoss: p.MaxDrawdown.Amount.String()}
		if p.DailyLoss != nil {
			got.daily = p.DailyLoss.Amount.String()
		}
		if p.MaxDrawdown.LockAt != nil {
			got.lock = p.MaxDrawdown.LockAt.String()
		}
		if p.MaxContracts != nil {
			got.contracts = p.MaxContracts.String()
		}
		if got != tc.want {
			t.Errorf("%s %s: %+v, want %+v", tc.id, tc.label, got, tc.want)
		}
	}
}

// normal is a plan's JSON read back generically: decimals compare by value.
func normal(t *testing.T, p Plan) map[string]any {
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func FuzzValidate(f *testing.F) {
	for _, tp := range Templates() {
		raw, _ := json.Marshal(tp.Sizes[0].Plan)
		f.Add(string(raw))
	}
	f.Add(`{"phase":"funded","startingBalance":"1e5","allowedHours":{"from":"23:59","to":"00:00","weekdays":[7,7,1]}}`)
	f.Add(`{"phase":"evaluation","startingBalance":"0.0001","profitTarget":"99999999999999.9999","maxDrawdown":{"amount":"0.0001","kind":"trailingIntraday","lockAt":"-1"}}`)
	f.Fuzz(func(t *testing.T, raw string) {
		p, err := Parse([]byte(raw))
		if err != nil {
			if e, ok := apperr.As(err); ok && e.Code != apperr.Validation {
				t.Fatalf("code %s", e.Code)
			}
			return
		}
		// A valid plan reads back the same, and evaluates without error.
		out, _ := json.Marshal(p)
		back, err := Parse(out)
		if err != nil || !strings.EqualFold(string(mustJSON(back)), string(out)) {
			t.Fatalf("round trip of %s: %v", out, err)
		}
		if _, err := Evaluate(p, []Trade{closed("a", "2026-04-06T15:00:00Z", "-1")}, at("2026-04-07T00:00:00Z")); err != nil {
			t.Fatal(err)
		}
	})
}

func mustJSON(p Plan) []byte {
	b, _ := json.Marshal(p)
	return b
}

// TestParse: a plan as stored (its JSON) reads back as itself; a plan with
// a field this version does not know, or not an object, is a "plan" error.
func TestParse(t *testing.T) {
	for _, tp := range Templates() {
		for _, s := range tp.Sizes {
			raw, err := json.Marshal(s.Plan)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Parse(raw)
			if err != nil {
				t.Fatalf("%s %s: %v", tp.ID, s.Label, err)
			}
			if again, _ := json.Marshal(got); string(again) != string(raw) {
				t.Errorf("%s %s: %s, want %s", tp.ID, s.Label, again, raw)
			}
		}
	}
	for _, raw := range []string{`{"phase":"funded","startingBalance":"1000","drawdown":"5"}`, `[]`, `{`} {
		_, err := Parse([]byte(raw))
		if e, ok := apperr.As(err); !ok || e.Code != apperr.Validation || len(e.Details) != 1 || e.Details[0].Field != "plan" {
			t.Errorf("%s: %v", raw, err)
		}
	}
}
