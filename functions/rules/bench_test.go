package rules_test

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/journal/journaltest"
)

// BenchmarkCompliance: GET /api/rules/compliance for a year (2024: about
// 21,000 positions, 105,000 fills of journaltest's 100,000-position
// journal in 3 currencies) with a rule of every type enabled (the risk
// rule in percent, so the ledger is read too; required fields listing
// all five, so tags and screenshots are read; open exposure, so the
// positions open across the range's start are), through the real router
// over loopback HTTP: Days is the whole answer, NoDays the dashboard's
// (days=false). Each reports the p50 and the CPU a request of this
// process (server and client) and of the PostgreSQL backends.
//
//	go test -run '^$' -bench Compliance -benchtime 10x ./functions/rules/
func BenchmarkCompliance(b *testing.B) {
	srv := apitest.Start(b, apitest.Config(b), functions.All)
	c := srv.Client(b)
	reg := c.Register("speed@example.com", "password1")
	uid := reg.JSON["user"].(map[string]any)["id"].(string)
	var cookies []string
	for _, ck := range (&http.Response{Header: reg.Header}).Cookies() {
		cookies = append(cookies, ck.Name+"="+ck.Value)
	}
	ctx := context.Background()
	start := time.Now()
	data, err := journaltest.Seed(ctx, srv.App.DB, uid, journaltest.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := srv.App.DB.Exec(ctx, `VACUUM ANALYZE positions, fills, accounts, ledger_entries`); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded %d positions, %d fills in %s", data.Positions, data.Fills, time.Since(start).Round(time.Second))
	for _, r := range []map[string]any{
		{"type": "maxTradesPerDay", "params": map[string]any{"count": 10}},
		{"type": "maxDailyLoss", "params": map[string]any{"amount": "500"}},
		{"type": "maxRiskPerTrade", "params": map[string]any{"amount": "300", "percent": "1"}},
		{"type": "stopRequired"},
		{"type": "maxConsecutiveLosses", "params": map[string]any{"count": 3}},
		{"type": "allowedHours", "params": map[string]any{"from": "09:30", "to": "16:00"}, "accountId": data.AccountIDs[0]},
		{"type": "maxPositionSize", "params": map[string]any{"quantity": "90", "notional": "20000"}},
		{"type": "noTradingDays", "params": map[string]any{"weekdays": []int{5}}},
		{"type": "minPlannedRR", "params": map[string]any{"ratio": "2"}},
		{"type": "maxWeeklyLoss", "params": map[string]any{"amount": "2000"}},
		{"type": "maxOpenExposure", "params": map[string]any{"notional": "500000", "risk": "5000"}},
		{"type": "requiredFields", "params": map[string]any{"fields": []string{"stop", "target", "notes", "tag", "screenshot"}}},
		{"type": "allowedMarkets", "params": map[string]any{"assetTypes": []string{"stock", "option"}, "symbols": []string{"AAPL", "MSFT", "NVDA", "SPY", "QQQ"}}},
		{"type": "allowedDirection", "params": map[string]any{"side": "long"}},
		{"type": "cooldownAfterLoss", "params": map[string]any{"minutes": 15}},
	} {
		apitest.Must(b, c.Do("POST", "/api/rules", r), 201)
	}
	fetch := func(b *testing.B, path string) int {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("Cookie", strings.Join(cookies, "; "))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer res.Body.Close()
		n, _ := io.Copy(io.Discard, res.Body)
		if res.StatusCode != 200 {
			b.Fatalf("status %d", res.StatusCode)
		}
		return int(n)
	}
	const year = "/api/rules/compliance?from=2024-01-01&to=2024-12-31"
	cpu := apitest.NewCPUMeter(b, srv.App.DB)
	for _, bc := range []struct{ name, path string }{
		{"Days", year},
		{"NoDays", year + "&days=false"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.Logf("answer: %d bytes", fetch(b, bc.path)) // and a warm pool
			m := cpu.Mark()
			var took []time.Duration
			for b.Loop() {
				t0 := time.Now()
				fetch(b, bc.path)
				took = append(took, time.Since(t0))
			}
			slices.Sort(took)
			proc, backends := cpu.Since(m)
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(proc.Microseconds())/1000/float64(b.N), "go-cpu-ms/op")
			b.ReportMetric(float64(backends.Microseconds())/1000/float64(b.N), "pg-cpu-ms/op")
		})
	}
}
