package rules_test

import (
	"context"
	"io"
	"net/http"
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
// rule in percent, so the ledger is read too), through the real router.
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
	} {
		apitest.Must(b, c.Do("POST", "/api/rules", r), 201)
	}
	fetch := func() int {
		req, _ := http.NewRequest("GET", srv.URL+"/api/rules/compliance?from=2024-01-01&to=2024-12-31", nil)
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
	b.Logf("answer: %d bytes", fetch())
	b.ResetTimer()
	for range b.N {
		fetch()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
}
