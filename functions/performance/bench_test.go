package performance_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tradejournal/functions"
	perf "tradejournal/functions/performance"
	"tradejournal/shared/apitest"
	"tradejournal/shared/fx"
	"tradejournal/shared/fx/fxdb"
	"tradejournal/shared/journal"
	"tradejournal/shared/journal/journaltest"
)

// The speed targets of issue 4, with 100,000 closed positions (500,000
// fills) across 5 accounts in 3 currencies (USD, EUR, GBP) for one user,
// seeded by journaltest.Seed:
//
//	GET /api/performance (unfiltered)   < 150 ms
//	GET /api/dashboard/totals           <  10 ms
//	POST /api/exchange-rates/preview    <  20 ms
//
// Run: make bench, or
//
//	go test -run '^$' -bench 'Speed' -benchtime 50x ./functions/performance/
//
// Each figure is a whole request through the real router over loopback
// HTTP: session lookup, the queries, JSON encoding.

// seededRates writes 5 years of daily rates, as a user who records them
// every day would have: EUR/USD direct and USD/GBP (so GBP converts
// through the inverse of the reverse pair), plus a pair the display
// currency has no part in. 3 x ~1,900 rows.
const seededRates = `
INSERT INTO exchange_rates (user_id, base_currency, quote_currency, effective_date, rate)
SELECT $1, b, q, d, r + (extract(doy FROM d)::numeric / 10000)
FROM generate_series(date '2021-01-01', current_date + 30, interval '1 day') AS d,
	(VALUES ('EUR', 'USD', 1.08), ('USD', 'GBP', 0.79), ('EUR', 'GBP', 0.85)) AS p(b, q, r)`

type speedFixture struct {
	srv    *apitest.Server
	client *apitest.Client
	cookie string // the client's session, for requests that skip decoding
	data   journaltest.Dataset
	rateID string // the EUR/USD rate in force today
	// fromPositions serves GET /api/performance without the rollups.
	fromPositions *httptest.Server
}

// fetch sends a GET with the client's session and reads the body without
// decoding it: the report is megabytes of JSON, and decoding it into maps
// is the test client's work, not the server's.
func (f speedFixture) fetch(tb testing.TB, path string) int {
	return f.fetchFrom(tb, f.srv.URL, path)
}

// fetchFrom is fetch against the server at base.
func (f speedFixture) fetchFrom(tb testing.TB, base, path string) int {
	req, err := http.NewRequest("GET", base+path, nil)
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
	data, err := journaltest.Seed(ctx, srv.App.DB, uid, journaltest.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := srv.App.DB.Exec(ctx, seededRates, uid); err != nil {
		tb.Fatal(err)
	}
	if _, err := srv.App.DB.Exec(ctx, `VACUUM ANALYZE positions, accounts, exchange_rates, position_tags, tags,
		perf_days, perf_symbols, perf_tags, perf_series`); err != nil {
		tb.Fatal(err)
	}
	var rateID string
	err = srv.App.DB.QueryRow(ctx, `SELECT id::text FROM exchange_rates WHERE user_id = $1 AND base_currency = 'EUR'
		AND quote_currency = 'USD' AND effective_date <= current_date ORDER BY effective_date DESC LIMIT 1`, uid).Scan(&rateID)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Logf("seeded %d positions, %d fills, %d accounts in %s", data.Positions, data.Fills, len(data.AccountIDs), time.Since(start).Round(time.Second))
	fromPositions := httptest.NewServer(perf.RouteFromPositions(srv.App))
	tb.Cleanup(fromPositions.Close)
	return speedFixture{srv: srv, client: c, cookie: strings.Join(cookies, "; "), data: data, rateID: rateID, fromPositions: fromPositions}
}

func BenchmarkSpeed(b *testing.B) {
	f := seedSpeed(b)
	c := f.client
	// Warm the pool and the caches as a running server is; the first
	// report also computes the total's rollup with today's factors.
	for range 3 {
		f.fetch(b, "/api/performance")
	}
	cpu := newCPUMeter(b, f.srv.App.DB)
	report := func(b *testing.B, m cpuMark) {
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
		proc, backends := cpu.since(m)
		b.ReportMetric(float64(proc.Microseconds())/1000/float64(b.N), "go-cpu-ms/op")
		b.ReportMetric(float64(backends.Microseconds())/1000/float64(b.N), "pg-cpu-ms/op")
	}
	performance := []struct{ name, path string }{
		{"Unfiltered", "/api/performance"},
		{"OneAccount", "/api/performance?accountId=" + f.data.AccountIDs[1]},
		{"OneYear", "/api/performance?from=2023-01-01&to=2023-12-31"},
		{"Tag", "/api/performance?tagId=" + f.data.TagIDs[0]},
		{"Symbol", "/api/performance?symbol=AAPL"},
	}
	// Each report from the rollups where its filter allows, then the same
	// report from the positions alone, as before the rollups.
	for _, mode := range []struct {
		name    string
		rollups bool
	}{{"Performance", true}, {"PerformanceFromPositions", false}} {
		for _, bc := range performance {
			b.Run(mode.name+"/"+bc.name, func(b *testing.B) {
				base := f.srv.URL
				if !mode.rollups {
					base = f.fromPositions.URL
				}
				m := cpu.mark()
				for b.Loop() {
					if status := f.fetchFrom(b, base, bc.path); status != 200 {
						b.Fatalf("%s: %d", bc.path, status)
					}
				}
				report(b, m)
			})
		}
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
	} {
		b.Run(bc.name, func(b *testing.B) {
			m := cpu.mark()
			for b.Loop() {
				if r := c.Do(bc.method, bc.path, bc.body); r.Status != 200 {
					b.Fatalf("%d %s", r.Status, r.Body)
				}
			}
			report(b, m)
		})
	}
}

// BenchmarkWrite times what the rollups cost the write path: a fill's
// price changed through the API (the journal recomputes the position, its
// ledger and balance; the triggers move the rollups), with the rollup
// triggers and then with them disabled, as before migration 0011.
//
//	go test -run '^$' -bench 'Write' -benchtime 30x ./functions/performance/
func BenchmarkWrite(b *testing.B) {
	f := seedSpeed(b)
	ctx := context.Background()
	var position, fill string
	err := f.srv.App.DB.QueryRow(ctx, `SELECT p.id::text, fl.id::text FROM positions p
		JOIN fills fl ON fl.position_id = p.id AND fl.type = 'exit'
		WHERE p.user_id = $1 ORDER BY p.closed_at DESC, fl.filled_at DESC LIMIT 1`, f.data.UserID).Scan(&position, &fill)
	if err != nil {
		b.Fatal(err)
	}
	path := "/api/positions/" + position + "/fills/" + fill
	cpu := newCPUMeter(b, f.srv.App.DB)
	for _, mode := range []struct {
		name, alter string
	}{
		{"FillPrice", "ENABLE"},
		{"FillPriceWithoutRollupTriggers", "DISABLE"},
	} {
		b.Run(mode.name, func(b *testing.B) {
			for _, table := range []string{"positions", "position_tags"} {
				if _, err := f.srv.App.DB.Exec(ctx, "ALTER TABLE "+table+" "+mode.alter+" TRIGGER USER"); err != nil {
					b.Fatal(err)
				}
			}
			i := 0
			m := cpu.mark()
			for b.Loop() {
				i++
				if r := f.client.Do("PATCH", path, map[string]any{"price": fmt.Sprintf("%d.%02d", 50+i%7, i%100)}); r.Status != 200 {
					b.Fatalf("%d %s", r.Status, r.Body)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
			proc, backends := cpu.since(m)
			b.ReportMetric(float64(proc.Microseconds())/1000/float64(b.N), "go-cpu-ms/op")
			b.ReportMetric(float64(backends.Microseconds())/1000/float64(b.N), "pg-cpu-ms/op")
		})
	}
}

// cpuMeter reads the CPU time of this process (the server's handlers and
// the benchmark's client) and of the PostgreSQL backends serving the
// benchmark's database: the load-independent measure on a shared machine.
type cpuMeter struct {
	tb   testing.TB
	pool *pgxpool.Pool
}

type cpuMark struct{ proc, backends time.Duration }

func newCPUMeter(tb testing.TB, pool *pgxpool.Pool) cpuMeter { return cpuMeter{tb, pool} }

func (c cpuMeter) mark() cpuMark {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		c.tb.Fatal(err)
	}
	proc := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	rows, err := c.pool.Query(context.Background(), `SELECT pid FROM pg_stat_activity WHERE datname = current_database()`)
	if err != nil {
		c.tb.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		c.tb.Fatal(err)
	}
	var backends time.Duration
	for _, pid := range pids {
		backends += backendCPU(int(pid))
	}
	return cpuMark{proc, backends}
}

// since is the CPU time spent since m (backends that closed meanwhile are
// not counted: the warmed pool keeps its connections).
func (c cpuMeter) since(m cpuMark) (proc, backends time.Duration) {
	now := c.mark()
	return now.proc - m.proc, now.backends - m.backends
}

// TestExplainAnalyze prints, for every statement behind the three timed
// routes on the speed dataset, its median time over 5 runs (wall, and the
// backend's CPU time where /proc shows it: the machine may be busy with
// other work) and EXPLAIN (ANALYZE, BUFFERS, TIMING OFF): per-node timing
// costs more than the work on a virtual machine with a slow clock, so the
// plan shows rows and buffers and the median shows time. It seeds 100,000
// positions, so it runs only when asked:
//
//	EXPLAIN_ANALYZE=1 go test -run TestExplainAnalyze -v ./functions/performance/
func TestExplainAnalyze(t *testing.T) {
	if os.Getenv("EXPLAIN_ANALYZE") == "" {
		t.Skip("set EXPLAIN_ANALYZE=1 to seed the speed dataset and print the plans")
	}
	f := seedSpeed(t)
	ctx := context.Background()
	day := fx.Today(time.Now(), "UTC")
	snap, err := fxdb.Load(ctx, f.srv.App.DB, fxdb.Query{UserID: f.data.UserID, Display: "USD", Day: day, Keep: 1})
	if err != nil {
		t.Fatal(err)
	}
	factors, missing := fx.Factors(snap.Balances, snap.Rates, "USD", day)
	if len(missing) > 0 {
		t.Fatalf("missing %v", missing)
	}
	explain := func(name, sql string, args []any) {
		t.Helper()
		tx, err := f.srv.App.DB.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx) //nolint:errcheck
		if _, err := tx.Exec(ctx, perf.WorkMem); err != nil {
			t.Fatal(err)
		}
		var pid int
		if err := tx.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
			t.Fatal(err)
		}
		var walls, cpus []time.Duration
		for range 6 {
			c0, t0 := backendCPU(pid), time.Now()
			rows, err := tx.Query(ctx, sql, args...)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for rows.Next() {
			}
			if rows.Err() != nil {
				t.Fatalf("%s: %v", name, rows.Err())
			}
			walls, cpus = append(walls, time.Since(t0)), append(cpus, backendCPU(pid)-c0)
		}
		walls, cpus = walls[1:], cpus[1:] // the first run warms the caches
		slices.Sort(walls)
		slices.Sort(cpus)
		rows, err := tx.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, COSTS OFF) "+sql, args...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Logf("\n-- %s: median %.1f ms wall, %.0f ms backend CPU\n%s\n", name,
			float64(walls[2].Microseconds())/1000, float64(cpus[2].Microseconds())/1000, strings.Join(lines, "\n"))
	}
	currencies := make([]string, 0, len(snap.Balances))
	for _, b := range snap.Balances {
		currencies = append(currencies, b.Currency)
	}
	// The per-position statements (what a filter the rollups do not cover
	// runs), then the rollup reads of the unfiltered report, once a report
	// has brought the total's basis up to today's factors.
	for _, st := range perf.Statements(f.data.UserID, journal.Filter{}, currencies, factors, true, false) {
		explain("performance: "+st.Name, st.SQL, st.Args)
	}
	if r := f.client.Do("GET", "/api/performance", nil); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	for _, st := range perf.Statements(f.data.UserID, journal.Filter{}, currencies, factors, true, true) {
		explain("performance: "+st.Name, st.SQL, st.Args)
	}
	tx, err := f.srv.App.DB.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	points, err := perf.PointsStatement(ctx, tx, f.data.UserID, append(currencies, "*"))
	_ = tx.Rollback(ctx)
	if err != nil {
		t.Fatal(err)
	}
	explain("performance: "+points.Name, points.SQL, points.Args)
	sql, a := fxdb.Statement(fxdb.Query{UserID: f.data.UserID, Display: "USD", Day: day, Keep: 1})
	explain("dashboard totals and performance rates (fxdb, keep 1)", sql, a)
	sql, a = fxdb.Statement(fxdb.Query{UserID: f.data.UserID, Display: "USD", Day: day, Keep: 2, RateID: f.rateID})
	explain("preview (fxdb, keep 2, rate to delete)", sql, a)
}

// backendCPU is the user+system CPU time of a process from /proc (in clock
// ticks of 10 ms), or 0 where /proc does not show it.
func backendCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 > len(s) {
		return 0
	}
	f := strings.Fields(s[i+2:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.Atoi(f[11])
	k, _ := strconv.Atoi(f[12])
	return time.Duration(u+k) * 10 * time.Millisecond
}
