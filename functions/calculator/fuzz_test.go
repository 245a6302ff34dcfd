package calculator

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

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

// fuzzSizing sends arbitrary bytes to a forex or CFD handler: every answer
// is a 200 holding the size field (never negative, and 0 exactly when a
// sizingStatus says why) or a 400 in the error shape. No 500, no panic, no
// other status.
func fuzzSizing(t *testing.T, serve func(http.ResponseWriter, *http.Request), path, sizeField string, body []byte) {
	req := httptest.NewRequest("POST", path, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	serve(rec, req)
	var out map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatalf("answer is not JSON: %s", rec.Body)
	}
	switch rec.Code {
	case http.StatusOK:
		size, _ := out[sizeField].(string)
		d, err := decimal.NewFromString(size)
		if err != nil || d.IsNegative() {
			t.Fatalf("200 without a %s: %s", sizeField, rec.Body)
		}
		if _, status := out["sizingStatus"]; d.IsZero() != status {
			t.Fatalf("%s %s with sizingStatus %v: %s", sizeField, size, out["sizingStatus"], rec.Body)
		}
	case http.StatusBadRequest:
		e, _ := out["error"].(map[string]any)
		if code, _ := e["code"].(string); code == "" {
			t.Fatalf("400 not in the error shape: %s", rec.Body)
		}
		if msg, _ := e["message"].(string); msg == "" {
			t.Fatalf("400 not in the error shape: %s", rec.Body)
		}
	default:
		t.Fatalf("status %d for %q: %s", rec.Code, body, rec.Body)
	}
}

// FuzzForexBody: the forex calculator's body. Seeds below and in
// testdata/fuzz/FuzzForexBody run as tests.
func FuzzForexBody(f *testing.F) {
	f.Add([]byte(`{"pair":"EUR/USD","accountCurrency":"USD","direction":"long","entryPrice":"1.0850","stopLoss":"1.0830","balance":"10000","riskPercent":"1"}`))
	f.Add([]byte(`{"pair":"USDJPY.m","accountCurrency":"usd","direction":"short","entryPrice":"150","stopLoss":"150.35","targetPrice":"149","riskAmount":"100","lotStep":"0.001"}`))
	f.Add([]byte(`{"pair":"EUR_GBP","accountCurrency":"USD","direction":"long","entryPrice":"0.855","stopLoss":"0.853","riskAmount":"100","conversionRate":"1.27"}`))
	f.Add([]byte(`{"pair":"XAUUSD","accountCurrency":"USD","direction":"long","entryPrice":"9999999.99","stopLoss":"0.00000000000000000001","riskAmount":"99999999.99","lotStep":"0.00001"}`))
	f.Add([]byte(`{"pair":"EURUSD","accountCurrency":"USD","direction":"long","entryPrice":"1.0850","stopLoss":"1.08499999999999999999","riskAmount":"99999999.99"}`))
	f.Add([]byte(`{"pair":"GBPJPY","accountCurrency":"EUR","direction":"long","entryPrice":"190","stopLoss":"189","balance":"-99999999999999.9999","riskPercent":"100","conversionRate":"1000000"}`))
	f.Add([]byte(`{"pair":"EUR/GBP","accountCurrency":"USD","direction":"long","entryPrice":"0.855","stopLoss":"0.853","riskAmount":"100"}`))
	f.Add([]byte(`{"pair":1,"accountCurrency":null,"entryPrice":1.08,"lotStep":{}}`))
	f.Add([]byte(`{"pair":"EUR/USD","pair":"USD/JPY"}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzSizing(t, handler{app: &app.App{}}.forex, "/api/calculator/forex", "units", body)
	})
}

// FuzzCFDBody: the CFD calculator's body. Seeds below and in
// testdata/fuzz/FuzzCFDBody run as tests.
func FuzzCFDBody(f *testing.F) {
	f.Add([]byte(`{"symbol":"US500","accountCurrency":"USD","pointValue":"1","direction":"long","entryPrice":"5400","stopLoss":"5380","riskAmount":"100"}`))
	f.Add([]byte(`{"symbol":"GER40","accountCurrency":"USD","quoteCurrency":"EUR","pointValue":"1","direction":"short","entryPrice":"18000","stopLoss":"18050","targetPrice":"17800","balance":"25000","riskPercent":"0.5","conversionRate":"1.08","contractStep":"1"}`))
	f.Add([]byte(`{"symbol":"X","accountCurrency":"USD","pointValue":"0.00000000000000000001","direction":"long","entryPrice":"9999999.99","stopLoss":"0.01","riskAmount":"0.01","contractStep":"100"}`))
	f.Add([]byte(`{"symbol":"X","accountCurrency":"USD","pointValue":"9999999.99","direction":"long","entryPrice":"2","stopLoss":"1.99999999999999999999","riskAmount":"99999999.99","conversionRate":"0.00000000000000000001"}`))
	f.Add([]byte(`{"symbol":"\u0000","accountCurrency":"usd","quoteCurrency":"usd","conversionRate":"1"}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzSizing(t, handler{app: &app.App{}}.cfd, "/api/calculator/cfd", "contracts", body)
	})
}
