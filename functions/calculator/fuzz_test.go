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
// body: every answer is a 200 with a positionSize, or a 4xx in the
// documented error shape (an error object with a code and a message),
// never a 500 or a panic. The handler is called without an App: it reads
// no database. Seeds are in testdata/fuzz/FuzzCalculatorBody.
func FuzzCalculatorBody(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest("POST", "/api/calculator", strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		handler{app: &app.App{}}.calculate(rec, req) // analytics off
		var out struct {
			PositionSize *int64 `json:"positionSize"`
			Error        *struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatalf("answer is not JSON: %s", rec.Body)
		}
		switch {
		case rec.Code == http.StatusOK:
			if out.PositionSize == nil || *out.PositionSize < 0 || out.Error != nil {
				t.Fatalf("200 without a positionSize: %s", rec.Body)
			}
		case rec.Code >= 400 && rec.Code < 500:
			if out.Error == nil || out.Error.Code == "" || out.Error.Message == "" {
				t.Fatalf("%d not in the error shape: %s", rec.Code, rec.Body)
			}
		default:
			t.Fatalf("status %d for %q: %s", rec.Code, body, rec.Body)
		}
	})
}

// FuzzStrategyBody sends arbitrary bytes to the strategy builder: every
// answer is a 200 with a name and a net debit, or a 4xx in the error shape,
// never a 500 or a panic. Seeds are in testdata/fuzz/FuzzStrategyBody and
// below.
func FuzzStrategyBody(f *testing.F) {
	f.Add([]byte(`{"legs":[{"type":"call","strike":"100","expiry":"2024-01-19","side":"long","quantity":"1","price":"3"}]}`))
	f.Add([]byte(`{"legs":[{"symbol":"XYZ   240119C00110000","side":"short","quantity":"2","price":"0.5","multiplier":"10"},{"type":"shares","side":"long","quantity":"20","price":"100"}]}`))
	f.Add([]byte(`{"legs":[{"type":"put","strike":"99999999","expiry":"9999-12-31","side":"long","quantity":"1000000000","price":"99999999"}]}`))
	f.Add([]byte(`{"legs":[{"type":"put","strike":"1","expiry":"2024-01-19","side":"short","quantity":"3","price":"0.00000001"},{"type":"call","strike":"2","expiry":"2024-01-19","side":"long","quantity":"7","price":"1"}]}`))
	f.Add([]byte(`{"legs":null}`))
	f.Add([]byte(`{"legs":[{"type":"call","strike":"100","expiry":"2024-01-19","side":"short","quantity":"1","price":"2"},{"type":"call","strike":"100","expiry":"2024-02-16","side":"long","quantity":"1","price":"3.5","volatility":"45"}],"volatility":"30","rate":"4"}`))
	f.Add([]byte(`{"legs":[{"type":"put","strike":"99999999","expiry":"0001-01-01","side":"short","quantity":"1000000000","price":"99999999","multiplier":"1000000000"},{"type":"put","strike":"0.00000001","expiry":"9999-12-31","side":"long","quantity":"1","price":"0.00000001"}],"volatility":"500","rate":"-5"}`))
	f.Add([]byte(`{"legs":[{"type":"call","strike":"1","expiry":"2024-01-19","side":"long","quantity":"1","price":"1"}],"volatility":30,"rate":"26"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest("POST", "/api/calculator/strategy", strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		handler{app: &app.App{}}.strategy(rec, req)
		var out struct {
			Name     string `json:"name"`
			NetDebit string `json:"netDebit"`
			Error    *struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatalf("answer is not JSON: %s", rec.Body)
		}
		switch {
		case rec.Code == http.StatusOK:
			if out.Name == "" || out.NetDebit == "" || out.Error != nil {
				t.Fatalf("200 without a name: %s", rec.Body)
			}
		case rec.Code >= 400 && rec.Code < 500:
			if out.Error == nil || out.Error.Code == "" || out.Error.Message == "" {
				t.Fatalf("%d not in the error shape: %s", rec.Code, rec.Body)
			}
		default:
			t.Fatalf("status %d for %q: %s", rec.Code, body, rec.Body)
		}
	})
}
