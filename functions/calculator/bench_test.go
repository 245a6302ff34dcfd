package calculator_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/benchcpu"
)

const benchBody = `{"mode":"stock","direction":"long","entryPrice":"50.25","stopLoss":"48.10","targetPrice":"56.00",` +
	`"balance":"25000","riskPercent":"1","buyingPower":"50000",` +
	`"feeSchedule":{"stockPerShareCommission":"0.005","stockMinPerFill":"1","stockMaxPerFill":"0"}}`

// BenchmarkEndpoints runs GET /api/auth/me and POST /api/calculator through
// the whole handler chain in process (session lookup in PostgreSQL
// included, no network): the calculator's extra cost over /me is its
// decode, sizing and encode. The load test over HTTP is
// infra/bench/calculator.sh.
func BenchmarkEndpoints(b *testing.B) {
	srv := apitest.Start(b, apitest.Config(b), functions.All)
	c := srv.Client(b)
	r := c.Register("bench@example.com", "password1")
	cookie := apitest.SessionCookie(r.Header.Values("Set-Cookie"))
	h := srv.Config.Handler
	for _, c := range []struct{ name, method, path, body string }{
		{"me", "GET", "/api/auth/me", ""},
		{"calculator", "POST", "/api/calculator", benchBody},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			stop := benchcpu.Start(b) // the api's CPU; PostgreSQL's share of the session check is not counted
			for b.Loop() {
				req := httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
				req.Header.Set("Cookie", cookie)
				req.Header.Set("Content-Type", "application/json")
				req.RemoteAddr = "127.0.0.1:5000"
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
			stop()
		})
	}
}
