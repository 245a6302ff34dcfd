package market_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tradejournal/shared/config"
	"tradejournal/shared/db/dbtest"
	"tradejournal/shared/market"
	"tradejournal/shared/market/markettest"
)

const userAgent = "Acme Capital ops@acme.test"

func marketConfig(url string) config.Market {
	return config.Market{SECUserAgent: userAgent, SECTickersURL: url}
}

type refreshState struct {
	Generation   int64
	LastModified *string
	CheckedAt    *time.Time
	AttemptedAt  *time.Time
	RowCount     int
	Tickers      int
}

func state(t *testing.T, pool *pgxpool.Pool) refreshState {
	t.Helper()
	var s refreshState
	err := pool.QueryRow(context.Background(), `SELECT generation, last_modified, checked_at, attempted_at, row_count,
		(SELECT count(*) FROM symbols) FROM symbol_refresh`).Scan(&s.Generation, &s.LastModified, &s.CheckedAt, &s.AttemptedAt, &s.RowCount, &s.Tickers)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func names(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT ticker FROM symbols ORDER BY rank`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		_ = rows.Scan(&s)
		out = append(out, s)
	}
	return strings.Join(out, ",")
}

// closedURL is an address on which nothing listens: an offline machine.
func closedURL(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/files/company_tickers_exchange.json"
}

func TestRefreshSymbols(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	log, out := newLogger()
	sec := markettest.NewSEC(t, markettest.TickerFile(markettest.Known[:3]))
	cfg := marketConfig(sec.FileURL())
	day0 := time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC)

	if s := state(t, pool); s.Generation != 0 || s.Tickers != 0 {
		t.Fatalf("fresh state %+v", s)
	}

	t.Run("FirstLoad", func(t *testing.T) {
		if err := market.RefreshSymbols(ctx, pool, nil, cfg, day0, log); err != nil {
			t.Fatal(err)
		}
		req := sec.Last()
		if req == nil || req.Header.Get("User-Agent") != userAgent || req.Header.Get("If-Modified-Since") != "" {
			t.Fatalf("request %v", req)
		}
		s := state(t, pool)
		if s.Generation != 1 || s.RowCount != 3 || s.Tickers != 3 || s.LastModified == nil || *s.LastModified != "Mon, 02 Jun 2025 08:00:00 GMT" {
			t.Fatalf("state %+v", s)
		}
		if got := names(t, pool); got != "NVDA,MSFT,AAPL" {
			t.Fatalf("table %s", got)
		}
	})
	t.Run("AtMostDaily", func(t *testing.T) {
		calls := sec.Calls()
		if err := market.RefreshSymbols(ctx, pool, nil, cfg, day0.Add(23*time.Hour), log); err != nil {
			t.Fatal(err)
		}
		if sec.Calls() != calls {
			t.Fatal("a refresh within a day of the last check reached the SEC")
		}
	})
	t.Run("NotModified", func(t *testing.T) {
		day1 := day0.Add(24 * time.Hour)
		if err := market.RefreshSymbols(ctx, pool, nil, cfg, day1, log); err != nil {
			t.Fatal(err)
		}
		if ims := sec.Last().Header.Get("If-Modified-Since"); ims != "Mon, 02 Jun 2025 08:00:00 GMT" {
			t.Fatalf("If-Modified-Since %q", ims)
		}
		s := state(t, pool)
		if s.Generation != 1 || s.Tickers != 3 || !s.CheckedAt.Equal(day1) {
			t.Fatalf("state after 304 %+v", s)
		}
	})
	t.Run("NewFileReplacesTable", func(t *testing.T) {
		sec.Set(markettest.TickerFile(markettest.Known[2:6]), time.Date(2025, 6, 3, 8, 0, 0, 0, time.UTC))
		if err := market.RefreshSymbols(ctx, pool, nil, cfg, day0.Add(48*time.Hour), log); err != nil {
			t.Fatal(err)
		}
		s := state(t, pool)
		if s.Generation != 2 || s.Tickers != 4 || *s.LastModified != "Tue, 03 Jun 2025 08:00:00 GMT" {
			t.Fatalf("state %+v", s)
		}
		if got := names(t, pool); got != "AAPL,AMZN,GOOGL,GOOG" {
			t.Fatalf("table %s", got)
		}
	})
	if errs := out.Lines("ERROR"); len(errs) != 0 || len(out.Lines("WARN")) != 0 {
		t.Fatalf("a healthy refresh logged warnings or errors:\n%s", out)
	}

	day3 := day0.Add(72 * time.Hour)
	for _, tc := range []struct {
		name  string
		setup func() config.Market
	}{
		{"ServerError", func() config.Market { sec.Fail(http.StatusServiceUnavailable); return cfg }},
		{"Forbidden", func() config.Market { sec.Fail(http.StatusForbidden); return cfg }},
		{"Malformed", func() config.Market {
			sec.Fail(0)
			sec.Set([]byte(`<html>Request Rate Threshold Exceeded</html>`), day3)
			return cfg
		}},
		{"EmptyFile", func() config.Market {
			sec.Set([]byte(`{"fields":["cik","name","ticker","exchange"],"data":[]}`), day3)
			return cfg
		}},
		{"Offline", func() config.Market { return marketConfig(closedURL(t)) }},
	} {
		t.Run("FailureKeepsTable/"+tc.name, func(t *testing.T) {
			c := tc.setup()
			log, out := newLogger()
			// Each case starts a day after the previous one, so it is due.
			day3 = day3.Add(24 * time.Hour)
			err := market.RefreshSymbols(ctx, pool, nil, c, day3, log)
			if err == nil {
				t.Fatal("no error")
			}
			if got := names(t, pool); got != "AAPL,AMZN,GOOGL,GOOG" {
				t.Fatalf("table changed to %s", got)
			}
			s := state(t, pool)
			if s.Generation != 2 || !s.AttemptedAt.Equal(day3) {
				t.Fatalf("state %+v", s)
			}
			if len(out.Lines("ERROR")) != 0 || len(out.Lines("WARN")) != 1 {
				t.Fatalf("want exactly one warning and no error:\n%s", out)
			}
			// A failed attempt is retried after an hour, not before.
			calls := sec.Calls()
			if err := market.RefreshSymbols(ctx, pool, nil, c, day3.Add(59*time.Minute), log); err != nil || sec.Calls() != calls {
				t.Fatalf("retry within the hour: %v, %d calls", err, sec.Calls()-calls)
			}
		})
	}
	t.Run("RetryAfterFailure", func(t *testing.T) {
		sec.Fail(0)
		sec.Set(markettest.TickerFile(markettest.Known), day3)
		if err := market.RefreshSymbols(ctx, pool, nil, cfg, day3.Add(time.Hour), log); err != nil {
			t.Fatal(err)
		}
		if s := state(t, pool); s.Generation != 3 || s.Tickers != len(markettest.Known) {
			t.Fatalf("state %+v", s)
		}
	})
}

func TestRefreshSymbolsRefusesCodeHostUserAgent(t *testing.T) {
	pool := dbtest.New(t)
	sec := markettest.NewSEC(t, markettest.TickerFile(markettest.Known))
	log, out := newLogger()
	cfg := config.Market{SECUserAgent: "TradeJournal jane.doe@acme.test https://github.com/acme/tradejournal", SECTickersURL: sec.FileURL()}
	err := market.RefreshSymbols(context.Background(), pool, nil, cfg, time.Now(), log)
	if !errors.Is(err, market.ErrCodeHostUserAgent) {
		t.Fatalf("error %v", err)
	}
	if sec.Calls() != 0 {
		t.Fatal("a request was sent")
	}
	if s := state(t, pool); s.Tickers != 0 || s.AttemptedAt != nil {
		t.Fatalf("state %+v", s)
	}
	if errs := out.Lines("ERROR"); len(errs) != 1 || !strings.Contains(errs[0]["reason"].(string), "SEC_USER_AGENT") {
		t.Fatalf("want one error line naming SEC_USER_AGENT:\n%s", out)
	}
	if strings.Contains(out.String(), "jane.doe@acme.test") {
		t.Fatalf("the user agent's email address reached the log:\n%s", out)
	}
	// Search over the empty table is an empty list, not an error.
	got, err := market.NewIndex(pool, time.Now).Search(context.Background(), "apple")
	if err != nil || len(got) != 0 {
		t.Fatalf("search: %v %v", got, err)
	}

}

func TestRefreshSymbolsOneInstanceAtATime(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	sec := markettest.NewSEC(t, markettest.TickerFile(markettest.Generate(2000)))
	cfg := marketConfig(sec.FileURL())
	log, out := newLogger()

	t.Run("LockHeldElsewhere", func(t *testing.T) {
		conn, err := pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Release()
		if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(7240815)`); err != nil {
			t.Fatal(err)
		}
		defer conn.Exec(ctx, `SELECT pg_advisory_unlock(7240815)`) //nolint:errcheck
		if err := market.RefreshSymbols(ctx, pool, nil, cfg, time.Now(), log); err != nil {
			t.Fatal(err)
		}
		if sec.Calls() != 0 {
			t.Fatal("refreshed while another process held the lock")
		}
	})
	t.Run("Concurrent", func(t *testing.T) {
		var wg sync.WaitGroup
		now := time.Now()
		for range 8 {
			wg.Go(func() {
				if err := market.RefreshSymbols(ctx, pool, nil, cfg, now, log); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if sec.Calls() != 1 {
			t.Fatalf("%d requests to the SEC, want 1", sec.Calls())
		}
		if s := state(t, pool); s.Generation != 1 || s.Tickers != 2000 {
			t.Fatalf("state %+v", s)
		}
	})
	if len(out.Lines("ERROR"))+len(out.Lines("WARN")) != 0 {
		t.Fatalf("logged:\n%s", out)
	}
}
