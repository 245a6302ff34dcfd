package performance_test

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/journal/journaltest"
	"tradejournal/shared/journalstore"
)

// The speed targets of issues 4 and 17, with 100,000 closed positions
// (500,000 fills) across 5 accounts in 3 currencies (USD, EUR, GBP), 40
// symbols (options among them) and 15 tags for one user, seeded by
// journaltest.Seed:
//
//	GET /api/performance, p50, unfiltered and for each filter   <= 60 ms
//	GET /api/dashboard/totals                                    <  10 ms
//	POST /api/exchange-rates/preview                             <  20 ms
//
// Run: make bench, or
//
//	go test -run '^$' -bench 'Speed' -benchtime 30x ./functions/performance/
//
// Each figure is a whole request through the real router over loopback
// HTTP: session lookup, the queries, the fold, JSON encoding.

// seededRates writes 5 years of daily rates, as a user who records them
// every day would have: EUR/USD direct and USD/GBP (so GBP converts
// through the inverse of the reverse pair), plus a pair the display
// currency has no part in. 3 x ~1,900 rows.
const seededRates = `
INSERT INTO exchange_rates (user_id, base_currency, quote_currency, effective_date, rate)
SELECT $1, b, q, d, r + (extract(doy FROM d)::numeric / 10000)
FROM generate_series(date '2021-01-01', current_date + 30, interval '1 day') AS d,
	(VALUES ('EUR', 'USD', 1.08), ('USD', 'GBP', 0.79), ('EUR', 'GBP', 0.85)) AS p(b, q, r)`

// pairOptions groups the user's option positions not in a strategy two by
// two, in opening order within an account and underlying, as strategies.
const pairOptions = `
WITH legs AS (
	SELECT id, account_id, (row_number() OVER (PARTITION BY account_id, underlying ORDER BY opened_at, id) + 1) / 2 AS pair, underlying
	FROM positions WHERE user_id = $1 AND asset_type = 'option' AND strategy_id IS NULL
), pairs AS (
	SELECT gen_random_uuid() AS sid, account_id, array_agg(id) AS ids FROM legs GROUP BY account_id, underlying, pair HAVING count(*) = 2
), made AS (
	INSERT INTO strategies (id, user_id, account_id) SELECT sid, $1, account_id FROM pairs
)
UPDATE positions p SET strategy_id = pairs.sid FROM pairs WHERE p.id = ANY(pairs.ids)`

// withExcursions gives every closed position of user $1 an MAE 2% and an
// MFE 3% from its average entry (typed on two in three, measured on the
// rest), a stop and a target there, and the target hit first on a third.
const withExcursions = `
UPDATE positions p SET
	stop_loss = round(p.avg_entry_price * CASE WHEN p.side = 'long' THEN 0.98 ELSE 1.02 END, 4),
	target_price = round(p.avg_entry_price * CASE WHEN p.side = 'long' THEN 1.03 ELSE 0.97 END, 4),
	mae_price = CASE WHEN get_byte(uuid_send(p.id), 15) % 3 > 0 THEN round(p.avg_entry_price * CASE WHEN p.side = 'long' THEN 0.98 ELSE 1.02 END, 4) END,
	mfe_price = CASE WHEN get_byte(uuid_send(p.id), 15) % 3 > 0 THEN round(p.avg_entry_price * CASE WHEN p.side = 'long' THEN 1.03 ELSE 0.97 END, 4) END,
	bars_mae_price = round(p.avg_entry_price * CASE WHEN p.side = 'long' THEN 0.98 ELSE 1.02 END, 4),
	bars_mfe_price = round(p.avg_entry_price * CASE WHEN p.side = 'long' THEN 1.03 ELSE 0.97 END, 4),
	bars_first_hit = CASE WHEN get_byte(uuid_send(p.id), 14) % 3 = 0 THEN 'target' ELSE 'none' END,
	bars_source = 'uploaded', bars_measured_at = now(), bars_closed_at = p.closed_at
WHERE p.user_id = $1 AND p.status = 'closed' AND p.avg_entry_price > 0`

type speedFixture struct {
	srv    *apitest.Server
	client *apitest.Client
	cookie string // the client's session, for requests that skip decoding
	data   journaltest.Dataset
	rateID string // the EUR/USD rate in force today
}

// fetch sends a GET with the client's session and reads the body without
// decoding it: the report is megabytes of JSON, and decoding it into maps
// is the test client's work, not the server's.
func (f speedFixture) fetch(tb testing.TB, path string) int {
	req, err := http.NewRequest("GET", f.srv.URL+path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Cookie", f.cookie)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer res.Body.Close()
	if _, err := io.Copy(io.Discard, res.Body); err != nil {
		tb.Fatal(err)
	}
	return res.StatusCode
}

func seedSpeed(tb testing.TB) speedFixture {
	tb.Helper()
	srv := apitest.Start(tb, apitest.Config(tb), functions.All)
	c := srv.Client(tb)
	reg := c.Register("speed@example.com", "password1")
	uid := reg.JSON["user"].(map[string]any)["id"].(string)
	var cookies []string
	for _, ck := range (&http.Response{Header: reg.Header}).Cookies() {
		cookies = append(cookies, ck.Name+"="+ck.Value)
	}
	ctx := context.Background()
	start := time.Now()
	data, err := journaltest.Seed(ctx, srv.App.DB, uid, journaltest.Options{Tags: 15})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := srv.App.DB.Exec(ctx, seededRates, uid); err != nil {
		tb.Fatal(err)
	}
	if _, err := srv.App.DB.Exec(ctx, `VACUUM ANALYZE positions, accounts, exchange_rates, position_tags, tags`); err != nil {
		tb.Fatal(err)
	}
	var rateID string
	err = srv.App.DB.QueryRow(ctx, `SELECT id::text FROM exchange_rates WHERE user_id = $1 AND base_currency = 'EUR'
		AND quote_currency = 'USD' AND effective_date <= current_date ORDER BY effective_date DESC LIMIT 1`, uid).Scan(&rateID)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Logf("seeded %d positions, %d fills, %d accounts, %d tags in %s", data.Positions, data.Fills, len(data.AccountIDs), len(data.TagIDs),
		time.Since(start).Round(time.Second))
	return speedFixture{srv: srv, client: c, cookie: strings.Join(cookies, "; "), data: data, rateID: rateID}
}

func BenchmarkSpeed(b *testing.B) {
	f := seedSpeed(b)
	c := f.client
	// Warm the pool and the caches as a running server is.
	for range 3 {
		f.fetch(b, "/api/performance")
	}
	cpu := apitest.NewCPUMeter(b, f.srv.App.DB)
	report := func(b *testing.B, m apitest.CPUMark, took []time.Duration) {
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
		if len(took) > 0 {
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
		}
		proc, backends := cpu.Since(m)
		b.ReportMetric(float64(proc.Microseconds())/1000/float64(b.N), "go-cpu-ms/op")
		b.ReportMetric(float64(backends.Microseconds())/1000/float64(b.N), "pg-cpu-ms/op")
	}
	// The dashboard's requests (bySymbol=false: no row per option
	// contract), and the full report beside them.
	year := "&from=2023-01-01&to=2023-12-31"
	const dash = "/api/performance?bySymbol=false"
	for _, bc := range []struct{ name, path string }{
		{"Unfiltered", dash},
		{"Account", dash + "&accountId=" + f.data.AccountIDs[1]},
		{"Year", dash + year},
		{"Tag", dash + "&tagId=" + f.data.TagIDs[0]},
		{"Symbol", dash + "&symbol=MSFT"}, // 2,500 stock positions (AAPL is only ever an option)
		{"AccountYearTag", dash + "&accountId=" + f.data.AccountIDs[1] + year + "&tagId=" + f.data.TagIDs[0]},
		{"SideWeekdaysNoTag", dash + "&side=short&weekday=1,2,3&excludeTagId=" + f.data.TagIDs[1]},
		{"UnfilteredBySymbol", "/api/performance"},
	} {
		b.Run("Performance/"+bc.name, func(b *testing.B) {
			m := cpu.Mark()
			var took []time.Duration
			for b.Loop() {
				t0 := time.Now()
				if status := f.fetch(b, bc.path); status != 200 {
					b.Fatalf("%s: %d", bc.path, status)
				}
				took = append(took, time.Since(t0))
			}
			report(b, m, took)
		})
	}
	// Journals of one shape each, the seeded one rewritten by a statement
	// and its derived rows rebuilt as the journal store keeps them.
	for _, shape := range []struct{ name, sql string }{
		// Every trade with its excursions (typed on two in three, measured
		// on the rest) and a third with a first hit: each record carries
		// them.
		{"Performance/UnfilteredExcursions", withExcursions},
		// An options trader's journal: the 10,000 option positions paired
		// into 5,000 two-leg strategies (same account and underlying), each
		// one trade whose legs the statistics read whole.
		{"Performance/UnfilteredStrategies", pairOptions},
	} {
		b.Run(shape.name, func(b *testing.B) {
			ctx := context.Background()
			if _, err := f.srv.App.DB.Exec(ctx, shape.sql, f.data.UserID); err != nil {
				b.Fatal(err)
			}
			if err := journalstore.Rebuild(ctx, f.srv.App.DB, f.data.UserID); err != nil {
				b.Fatal(err)
			}
			m := cpu.Mark()
			var took []time.Duration
			for b.Loop() {
				t0 := time.Now()
				if status := f.fetch(b, dash); status != 200 {
					b.Fatalf("%s: %d", dash, status)
				}
				took = append(took, time.Since(t0))
			}
			report(b, m, took)
		})
	}
	tomorrow := time.Now().AddDate(0, 0, 1).Format(time.DateOnly)
	today := time.Now().Format(time.DateOnly)
	for _, bc := range []struct {
		name, method, path string
		body               any
	}{
		{"DashboardTotals", "GET", "/api/dashboard/totals", nil},
		{"Preview/Upsert", "POST", "/api/exchange-rates/preview", map[string]any{"intent": "upsert",
			"rate": map[string]any{"baseCurrency": "EUR", "quoteCurrency": "USD", "effectiveDate": today, "rate": "1.2"}}},
		{"Preview/UpsertFuture", "POST", "/api/exchange-rates/preview", map[string]any{"intent": "upsert",
			"rate": map[string]any{"baseCurrency": "GBP", "quoteCurrency": "USD", "effectiveDate": tomorrow, "rate": "1.2"}}},
		{"Preview/Delete", "POST", "/api/exchange-rates/preview", map[string]any{"intent": "delete", "rateId": f.rateID}},
		{"ExchangeRates/List", "GET", "/api/exchange-rates?limit=100", nil},
		{"FeeRollup", "GET", "/api/performance/fees", nil},
		{"FeeRollup/Days", "GET", "/api/performance/fees?period=day", nil},
		{"TaxReport/US", "GET", "/api/tax/report?jurisdiction=us&year=" + strconv.Itoa(time.Now().Year()-1), nil},
	} {
		b.Run(bc.name, func(b *testing.B) {
			m := cpu.Mark()
			for b.Loop() {
				if r := c.Do(bc.method, bc.path, bc.body); r.Status != 200 {
					b.Fatalf("%d %s", r.Status, r.Body)
				}
			}
			report(b, m, nil)
		})
	}
}
