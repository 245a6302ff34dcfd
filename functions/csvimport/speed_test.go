package csvimport_test

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/db"
)

// speedRows is the speed file: 10,000 execution rows, 5,000 round
// trips (so 5,000 positions) over 250 symbols, one option in ten, with fees.
const speedRows = 10_000

// speedStart is when the speed file's first trip opens.
var speedStart = time.Date(2024, 3, 4, 14, 30, 0, 0, time.UTC)

// speedFile writes the speed file: trip i buys at minute i and sells 40
// seconds later, at a price 1 to 3 ticks away (winners and losers).
func speedFile(rows int) []byte {
	start := speedStart
	var b bytes.Buffer
	b.Grow(rows * 64)
	b.WriteString("Date,Time,Symbol,Side,Quantity,Price,Fees\n")
	for i := range rows / 2 {
		at := start.Add(time.Duration(i) * time.Minute)
		sym := fmt.Sprintf("S%03d", i%250)
		qty, price := 10+i%90, 20+float64(i%400)/4
		if i%10 == 9 {
			sym = fmt.Sprintf("S%03d  %sC%08d", i%250, at.AddDate(0, 0, 30).Format("060102"), (50+i%50)*1000)
			qty, price = 1+i%9, 1+float64(i%80)/20
		}
		exit := price + float64(i%7-3)*0.05
		if exit <= 0 {
			exit = 0.05
		}
		fmt.Fprintf(&b, "%s,%s,%s,Buy,%d,%.2f,1.00\n", at.Format("2006-01-02"), at.Format("15:04:05"), sym, qty, price)
		at = at.Add(40 * time.Second)
		fmt.Fprintf(&b, "%s,%s,%s,Sell,%d,%.2f,1.00\n", at.Format("2006-01-02"), at.Format("15:04:05"), sym, qty, exit)
	}
	return b.Bytes()
}

// speedSet is a running API with one signed-in user, and the speed file
// that user imports.
type speedSet struct {
	srv  *apitest.Server
	c    *apitest.Client
	file []byte
}

func newSpeedSet(tb testing.TB) *speedSet {
	srv := apitest.Start(tb, apitest.Config(tb), functions.All)
	c := srv.Client(tb)
	c.Register("speed@example.com", "password1")
	return &speedSet{srv: srv, c: c, file: speedFile(speedRows)}
}

// account makes a fresh account (so each import starts from an empty
// journal and finds no duplicates).
func (s *speedSet) account(tb testing.TB) string {
	tb.Helper()
	r := s.c.Do("POST", "/api/accounts", map[string]any{"name": fmt.Sprintf("Speed %d", time.Now().UnixNano()), "currency": "USD",
		"startingBalance": "100000", "brokerageId": ibFixed})
	return apitest.Object(tb, apitest.Must(tb, r, 201), "account")["id"].(string)
}

func (s *speedSet) preview(tb testing.TB, account string) (string, time.Duration) {
	tb.Helper()
	start := time.Now()
	r := preview(tb, s.c, map[string]any{"accountId": account, "presetId": "generic-execution"}, s.file)
	d := time.Since(start)
	apitest.Must(tb, r, 200)
	token, ok := r.JSON["token"].(string)
	if !ok || apitest.Object(tb, r, "summary")["positions"].(float64) != speedRows/2 {
		tb.Fatalf("preview: %.500s", r.Body)
	}
	return token, d
}

func (s *speedSet) commit(tb testing.TB, token string) time.Duration {
	tb.Helper()
	start := time.Now()
	r := commit(s.c, token, false)
	d := time.Since(start)
	if imp := apitest.Object(tb, apitest.Must(tb, r, 201), "import"); imp["fillsCreated"].(float64) != speedRows {
		tb.Fatalf("commit: %v", imp)
	}
	return d
}

// bareCopy is the yardstick of the commit: the rows a commit wrote to the
// account from (its positions, fills and ledger rows, read back) written
// again by three plain COPY statements in one transaction, with new ids, to
// the fresh account to. The same rows into the same tables, without the
// commit's claim, journal read, plan, figures or balance update. Only the
// COPY statements and the transaction's commit are timed; rows is how many
// rows they wrote.
func (s *speedSet) bareCopy(tb testing.TB, from, to string) (d time.Duration, rows int) {
	tb.Helper()
	ctx := context.Background()
	type table struct {
		name, where string
		cols        []string
		rows        [][]any
	}
	tables := []*table{
		{name: "positions", where: "account_id = $1"},
		{name: "fills", where: "position_id IN (SELECT id FROM positions WHERE account_id = $1)"},
		{name: "ledger_entries", where: "account_id = $1 AND position_id IS NOT NULL"},
	}
	newIDs := map[[16]byte][16]byte{} // old position and fill ids to new ones
	renew := func(v any) any {
		old, ok := v.([16]byte)
		if !ok {
			return v // a NULL fill_id
		}
		id, ok := newIDs[old]
		if !ok {
			id = db.NewUUID().Bytes
			newIDs[old] = id
		}
		return id
	}
	var toID [16]byte
	if err := s.srv.App.DB.QueryRow(ctx, `SELECT $1::uuid`, to).Scan(&toID); err != nil {
		tb.Fatal(err)
	}
	for _, t := range tables {
		rs, err := s.srv.App.DB.Query(ctx, "SELECT * FROM "+t.name+" WHERE "+t.where, from)
		if err != nil {
			tb.Fatal(err)
		}
		for _, fd := range rs.FieldDescriptions() {
			t.cols = append(t.cols, fd.Name)
		}
		for rs.Next() {
			vals, err := rs.Values()
			if err != nil {
				tb.Fatal(err)
			}
			for i, col := range t.cols {
				switch col {
				case "id", "position_id", "fill_id":
					vals[i] = renew(vals[i])
				case "account_id":
					vals[i] = toID
				}
			}
			t.rows = append(t.rows, vals)
		}
		if err := rs.Err(); err != nil {
			tb.Fatal(err)
		}
		rows += len(t.rows)
	}
	tx, err := s.srv.App.DB.Begin(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	t0 := time.Now()
	for _, t := range tables {
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{t.name}, t.cols, pgx.CopyFromRows(t.rows)); err != nil {
			tb.Fatal(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		tb.Fatal(err)
	}
	return time.Since(t0), rows
}

// peakHeap samples the live heap every 200 µs while fn runs and returns
// the peak, the heap before, and the bytes allocated meanwhile.
func peakHeap(fn func()) (peak, before, allocated uint64) {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(sample)
	before, allocStart := sample[0].Value.Uint64(), sample[1].Value.Uint64()
	var max atomic.Uint64
	max.Store(before)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for {
			select {
			case <-stop:
				return
			default:
			}
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > max.Load() {
				max.Store(v)
			}
			time.Sleep(200 * time.Microsecond)
		}
	}()
	fn()
	close(stop)
	<-done
	metrics.Read(sample)
	return max.Load(), before, sample[1].Value.Uint64() - allocStart
}

// heap imports the speed file once into a fresh account and logs the peak
// live heap of its preview and of its commit; either over 64 MiB fails.
func (s *speedSet) heap(t *testing.T) {
	account := s.account(t)
	var token string
	for _, step := range []struct {
		name string
		run  func()
	}{
		{"preview", func() { token, _ = s.preview(t, account) }},
		{"commit", func() { s.commit(t, token) }},
	} {
		peak, before, alloc := peakHeap(step.run)
		t.Logf("heap, %s: peak %.1f MiB (%.1f MiB before), %.1f MiB allocated", step.name, mib(peak), mib(before), mib(alloc))
		if peak > 64<<20 {
			t.Errorf("%s: peak heap %.1f MiB is over 64 MiB", step.name, mib(peak))
		}
	}
}

// TestImportHeap: a 10,000-row import (the speed file) peaks under 64 MiB
// of live heap in its preview and in its commit. Unlike times, the heap
// does not depend on neighbours, so this runs with every test run.
func TestImportHeap(t *testing.T) {
	newSpeedSet(t).heap(t)
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// BenchmarkPreview is one preview of the speed file over HTTP.
func BenchmarkPreview(b *testing.B) {
	s := newSpeedSet(b)
	account := s.account(b)
	b.ResetTimer()
	for b.Loop() {
		s.preview(b, account)
	}
}

// BenchmarkCommit is one commit of the speed file over HTTP (each on a
// fresh account, previewed outside the timer).
func BenchmarkCommit(b *testing.B) {
	s := newSpeedSet(b)
	for b.Loop() {
		b.StopTimer()
		token, _ := s.preview(b, s.account(b))
		b.StartTimer()
		s.commit(b, token)
	}
}

// BenchmarkBareCopy is the rows of one commit written again by three plain
// COPY statements (bareCopy); the reported figure is the COPY's time.
func BenchmarkBareCopy(b *testing.B) {
	s := newSpeedSet(b)
	from := s.account(b)
	token, _ := s.preview(b, from)
	s.commit(b, token)
	var total time.Duration
	for b.Loop() {
		d, _ := s.bareCopy(b, from, s.account(b))
		total += d
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "copy-ms/op")
}
