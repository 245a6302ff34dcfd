package market_test

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tradejournal/shared/apperr"
	"tradejournal/shared/benchcpu"
	"tradejournal/shared/db"
	"tradejournal/shared/db/dbtest"
	"tradejournal/shared/market"
	"tradejournal/shared/market/markettest"
)

// loadTable fills a fresh database's symbols table with rows through the
// real refresh, from a local stand-in of the SEC.
func loadTable(tb testing.TB, rows [][]any) *pgxpool.Pool {
	tb.Helper()
	pool := dbtest.New(tb)
	sec := markettest.NewSEC(tb, markettest.TickerFile(rows))
	if err := market.RefreshSymbols(context.Background(), pool, nil, marketConfig(sec.FileURL()), time.Now(), slog.New(slog.DiscardHandler)); err != nil {
		tb.Fatal(err)
	}
	return pool
}

func tickers(items []market.Symbol) string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = s.Ticker
	}
	return strings.Join(out, ",")
}

func TestSearch(t *testing.T) {
	pool := loadTable(t, markettest.Known)
	idx := market.NewIndex(pool, time.Now)
	for _, tc := range []struct{ q, want string }{
		{"AAPL", "AAPL"},
		{"aapl", "AAPL"},
		{"  aapl ", "AAPL"},
		// Exact ticker, then ticker prefixes by the file's order, then names.
		{"GOOG", "GOOG,GOOGL"},
		{"goo", "GOOGL,GOOG"},
		{"a", "A,AAPL,AMZN,AMD,AMAT,AAL,ABT,ABBV,APLE,GOOGL,GOOG,T"},
		{"am", "AMZN,AMD,AMAT,AAL"},
		{"app", "AAPL,AMAT,APLE"},
		{"apple", "AAPL,APLE"},
		{"Apple Inc", "AAPL"},
		{"apple h", "APLE"},
		{"materials", "AMAT"},
		{"platforms", "META"},
		{"t", "T,TSLA,A"}, // A by a word of AGILENT TECHNOLOGIES
		// '.' and '-' are one character in tickers.
		{"brk.b", "BRK-B"},
		{"BRK-B", "BRK-B"},
		{"brk", "BRK-B,BRK-A"},
		{"berkshire", "BRK-B,BRK-A"},
		// Punctuation separates words; apostrophes are dropped.
		{"at&t", "T"},
		{"at t", "T"},
		{"mcdonalds", "MCD"},
		{"mcdonald's", "MCD"},
		{"coca-cola", "KO"},
		{"cola", "KO"},
		{"pple", ""},
		{"zzzz", ""},
		{"-", ""},
		{"&", ""},
	} {
		t.Run(tc.q, func(t *testing.T) {
			got, err := idx.Search(context.Background(), tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if tickers(got) != tc.want {
				t.Fatalf("Search(%q) = %s, want %s", tc.q, tickers(got), tc.want)
			}
			if got == nil {
				t.Fatal("nil slice: the API must answer [] not null")
			}
		})
	}
	t.Run("Fields", func(t *testing.T) {
		got, _ := idx.Search(context.Background(), "nick")
		if len(got) != 1 || got[0].Name != "NICHOLAS FINANCIAL INC" || got[0].CIK != 1000045 || got[0].Exchange != nil {
			t.Fatalf("%+v", got)
		}
		got, _ = idx.Search(context.Background(), "aapl")
		if got[0].Name != "Apple Inc." || got[0].CIK != 320193 || *got[0].Exchange != "Nasdaq" {
			t.Fatalf("%+v", got[0])
		}
	})
}

func TestSearchFullTable(t *testing.T) {
	rows := markettest.Generate(10_000)
	pool := loadTable(t, rows)
	idx := market.NewIndex(pool, time.Now)
	if n, err := idx.Len(context.Background()); err != nil || n != 10_000 {
		t.Fatalf("len %d %v", n, err)
	}
	// Against a brute-force reading of the rule, for many queries.
	norm := func(s string) string {
		s = strings.ToLower(strings.NewReplacer("'", "", "’", "").Replace(s))
		return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
		}), " ")
	}
	type row struct{ ticker, key, name string }
	all := make([]row, len(rows))
	for i, r := range rows {
		all[i] = row{r[2].(string), strings.ReplaceAll(r[2].(string), ".", "-"), norm(r[1].(string))}
	}
	brute := func(q string) string {
		tq := strings.ReplaceAll(strings.ToUpper(strings.TrimSpace(q)), ".", "-")
		nq := norm(q)
		var out []string
		seen := map[string]bool{}
		add := func(match func(row) bool) {
			for _, r := range all {
				if len(out) < market.MaxResults && !seen[r.ticker] && match(r) {
					seen[r.ticker] = true
					out = append(out, r.ticker)
				}
			}
		}
		add(func(r row) bool { return tq != "" && r.key == tq })
		add(func(r row) bool { return tq != "" && strings.HasPrefix(r.key, tq) })
		add(func(r row) bool {
			return nq != "" && (strings.HasPrefix(r.name, nq) || strings.Contains(r.name, " "+nq))
		})
		return strings.Join(out, ",")
	}
	for _, q := range searchQueries {
		got, err := idx.Search(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) > market.MaxResults {
			t.Fatalf("%q: %d results", q, len(got))
		}
		if want := brute(q); tickers(got) != want {
			t.Errorf("Search(%q)\n got %s\nwant %s", q, tickers(got), want)
		}
	}
}

func TestIndexReloadsAfterRefresh(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	sec := markettest.NewSEC(t, markettest.TickerFile(markettest.Known[:3]))
	var clock atomic.Int64
	clock.Store(time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC).Unix())
	now := func() time.Time { return time.Unix(clock.Load(), 0).UTC() }
	idx := market.NewIndex(pool, now)
	idx.CheckEvery = time.Minute
	discard := slog.New(slog.DiscardHandler)

	// Empty before any refresh: an empty list, not an error; an empty
	// table is re-checked on every search, so the first refresh shows at once.
	if got, err := idx.Search(ctx, "apple"); err != nil || len(got) != 0 {
		t.Fatalf("%v %v", got, err)
	}
	if err := market.RefreshSymbols(ctx, pool, nil, marketConfig(sec.FileURL()), now(), discard); err != nil {
		t.Fatal(err)
	}
	if got, _ := idx.Search(ctx, "apple"); tickers(got) != "AAPL" {
		t.Fatalf("after the first refresh: %s", tickers(got))
	}

	// A later refresh (by this process or another: a new generation) shows
	// once CheckEvery has passed, not before.
	sec.Set(markettest.TickerFile(markettest.Known[3:5]), now().Add(24*time.Hour))
	if err := market.RefreshSymbols(ctx, pool, nil, marketConfig(sec.FileURL()), now().Add(24*time.Hour), discard); err != nil {
		t.Fatal(err)
	}
	if got, _ := idx.Search(ctx, "a"); tickers(got) != "AAPL" {
		t.Fatalf("reloaded before CheckEvery passed: %s", tickers(got))
	}
	clock.Add(60)
	if got, _ := idx.Search(ctx, "a"); tickers(got) != "AMZN,GOOGL" {
		t.Fatalf("after CheckEvery: %s", tickers(got))
	}

	t.Run("DatabaseGoneKeepsAnswering", func(t *testing.T) {
		pool.Close()
		clock.Add(3600)
		if got, err := idx.Search(ctx, "amzn"); err != nil || tickers(got) != "AMZN" {
			t.Fatalf("%v %v", got, err)
		}
	})
	t.Run("NeverLoadedAndUnreachable", func(t *testing.T) {
		dead, err := db.Open(ctx, "postgres://x@127.0.0.1:1/x?connect_timeout=2", db.Options{PoolSize: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer dead.Close()
		_, err = market.NewIndex(dead, time.Now).Search(ctx, "a")
		if e, ok := apperr.As(err); !ok || e.Code != apperr.ServiceUnavailable {
			t.Fatalf("error %v, want 503", err)
		}
	})
}

func TestIndexConcurrentFirstLoad(t *testing.T) {
	pool := loadTable(t, markettest.Generate(3000))
	idx := market.NewIndex(pool, time.Now)
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			got, err := idx.Search(context.Background(), "golden")
			if err != nil || len(got) == 0 {
				t.Errorf("%v %v", got, err)
			}
		})
	}
	wg.Wait()
}

// searchQueries is a typing session: prefixes of tickers and names, both
// cases, hits and misses.
var searchQueries = []string{
	"a", "aa", "aap", "aapl", "AAPL", "m", "ms", "msf", "msft", "g", "go", "goo", "goog", "googl",
	"ap", "app", "appl", "apple", "apple i", "b", "ba", "ban", "bank", "bancorp", "golden", "golden s",
	"pacific", "pacific en", "energy", "tech", "t", "at&t", "brk.b", "brk", "berk", "x", "xy", "zzzz",
	"q", "qu", "quantum", "global", "global h", "first", "first nat", "inc", "corp", "holdings", "1", "s.a",
}

// BenchmarkSearch: the in-memory index over a 10,000-row table, one search
// of searchQueries per op. The p99 of single searches is reported as
// p99-µs. Run with: make bench, or
//
//	go test -run '^$' -bench 'Search' -benchmem ./shared/market/
func BenchmarkSearch(b *testing.B) {
	pool := loadTable(b, markettest.Generate(10_000))
	idx := market.NewIndex(pool, time.Now)
	ctx := context.Background()
	if _, err := idx.Search(ctx, "a"); err != nil {
		b.Fatal(err)
	}
	durations := make([]time.Duration, 0, b.N)
	stop := benchcpu.Start(b)
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		if _, err := idx.Search(ctx, searchQueries[i%len(searchQueries)]); err != nil {
			b.Fatal(err)
		}
		durations = append(durations, time.Since(start))
	}
	stop()
	reportP99(b, durations)
}

// BenchmarkSearchSQL is the alternative that was measured and not chosen:
// the same three tiers asked of PostgreSQL on every keystroke, with a
// text_pattern_ops index on the ticker and a table of name-word suffixes
// with a text_pattern_ops index (no extension needed).
func BenchmarkSearchSQL(b *testing.B) {
	rows := markettest.Generate(10_000)
	pool := loadTable(b, rows)
	ctx := context.Background()
	setup := []string{
		`CREATE INDEX bench_symbols_ticker ON symbols (ticker text_pattern_ops)`,
		`CREATE TABLE bench_words (suffix text NOT NULL, ticker text NOT NULL, rank integer NOT NULL)`,
		`INSERT INTO bench_words
			SELECT substr(n, p.pos), s.ticker, s.rank
			FROM symbols s,
			     LATERAL (SELECT trim(regexp_replace(lower(replace(s.name, '''', '')), '[^a-z0-9]+', ' ', 'g')) AS n) k,
			     LATERAL (SELECT 1 AS pos UNION ALL
			              SELECT m.i + 1 FROM generate_series(1, length(k.n)) m(i) WHERE substr(k.n, m.i, 1) = ' ') p`,
		`CREATE INDEX bench_words_suffix ON bench_words (suffix text_pattern_ops, rank)`,
		`ANALYZE symbols`, `ANALYZE bench_words`,
	}
	for _, s := range setup {
		if _, err := pool.Exec(ctx, s); err != nil {
			b.Fatalf("%s: %v", s, err)
		}
	}
	const q = `
		WITH hits AS (
			SELECT ticker, 0 AS tier, rank FROM symbols WHERE ticker = $1
			UNION ALL
			(SELECT ticker, 1, rank FROM symbols WHERE ticker LIKE $2 AND ticker <> $1 ORDER BY rank LIMIT 20)
			UNION ALL
			(SELECT ticker, 2, min(rank) FROM bench_words WHERE $3 <> '' AND suffix LIKE $4 GROUP BY ticker ORDER BY min(rank) LIMIT 40)
		), best AS (
			SELECT DISTINCT ON (ticker) ticker, tier, rank FROM hits ORDER BY ticker, tier
		)
		SELECT s.ticker, s.name, s.exchange, s.cik FROM best JOIN symbols s USING (ticker)
		ORDER BY best.tier, best.rank LIMIT 20`
	search := func(text string) ([]market.Symbol, error) {
		tq := strings.ToUpper(strings.TrimSpace(text))
		nq := strings.Join(strings.Fields(strings.ToLower(text)), " ")
		rows, err := pool.Query(ctx, q, tq, likePrefix(tq), nq, likePrefix(nq))
		if err != nil {
			return nil, err
		}
		return pgx.CollectRows(rows, func(r pgx.CollectableRow) (market.Symbol, error) {
			var s market.Symbol
			return s, r.Scan(&s.Ticker, &s.Name, &s.Exchange, &s.CIK)
		})
	}
	if got, err := search("apple"); err != nil || len(got) == 0 {
		b.Fatalf("%v %v", got, err)
	}
	durations := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		if _, err := search(searchQueries[i%len(searchQueries)]); err != nil {
			b.Fatal(err)
		}
		durations = append(durations, time.Since(start))
	}
	reportP99(b, durations)
}

func likePrefix(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s) + "%"
}

func reportP99(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)*99/100].Nanoseconds())/1e3, "p99-µs")
	b.ReportMetric(float64(d[len(d)-1].Nanoseconds())/1e3, "max-µs")
}
