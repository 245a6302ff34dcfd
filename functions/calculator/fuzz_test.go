package calculator

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"tradejournal/shared/app"
)

// FuzzCalculatorBody sends arbitrary bytes through the handler as a JSON
// body: every answer is a 200 or a 4xx in the documented shape, never a 500
// or a panic.
func FuzzCalculatorBody(f *testing.F) {
	for _, seed := range []string{
		`{"mode":"stock","direction":"long","entryPrice":"50","stopLoss":"48","dollarRisk":"100"}`,
		`{"mode":"options","direction":"short","entryPrice":"2.5","stopLoss":"3","targetPrice":"1","balance":"-1","riskPercent":"100","buyingPower":"0","manualFees":"1.3"}`,
		`{"mode":"stock","direction":"long","entryPrice":"9999999.99","stopLoss":"0.01","balance":"99999999999999.9999","riskPercent":"0.0001","feeSchedule":{"stockMinPerFill":"1","stockMaxPerFill":"0"}}`,
		`{"entryPrice":1e400}`, `[]`, `null`, `{"dollarRisk":"   "}`, `{"feeSchedule":null,"manualFees":null}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest("POST", "/api/calculator", strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		handler{app: &app.App{}}.calculate(rec, req) // analytics off
		if rec.Code != http.StatusOK && (rec.Code < 400 || rec.Code >= 500) {
			t.Fatalf("status %d for %q: %s", rec.Code, body, rec.Body)
		}
		var out map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatalf("answer is not JSON: %s", rec.Body)
		}
	})
}
