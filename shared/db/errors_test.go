package db_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
	"tradejournal/shared/db/dbtest"
)

func TestClassify(t *testing.T) {
	pg := func(code string) error {
		return fmt.Errorf("query: %w", &pgconn.PgError{Code: code, Severity: "ERROR"})
	}
	for _, tc := range []struct {
		name string
		err  error
		want error // nil: passed through
	}{
		{"NoRows", pgx.ErrNoRows, apperr.ErrNotFound},
		{"AdminShutdown57P01", pg("57P01"), db.ErrUnavailable},
		{"CrashShutdown57P02", pg("57P02"), db.ErrUnavailable},
		{"CannotConnectNow57P03", pg("57P03"), db.ErrUnavailable},
		{"ConnectionFailure08006", pg("08006"), db.ErrUnavailable},
		{"TooManyConnections53300", pg("53300"), db.ErrUnavailable},
		{"EOF", fmt.Errorf("failed to receive message: %w", io.ErrUnexpectedEOF), db.ErrUnavailable},
		{"ConnReset", &net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset by peer")}, db.ErrUnavailable},
		{"ConnClosed", errors.New("conn closed"), db.ErrUnavailable},
		{"DatetimeOverflow22008", pg("22008"), db.ErrValueRange},
		{"NumericOverflow22003", pg("22003"), db.ErrValueRange},
		{"InvalidText22P02", pg("22P02"), db.ErrValueRange},
		{"UniqueViolation", pg("23505"), nil},
		{"StatementTimeout57014", pg("57014"), nil},
		{"Other", errors.New("boom"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := db.Classify(tc.err)
			if tc.want == nil {
				tc.want = tc.err
			}
			if got != tc.want {
				t.Fatalf("Classify(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

// warm takes n connections at once from pool and gives them back, so the
// pool holds n idle connections; it returns their backend pids.
func warm(t *testing.T, pool *pgxpool.Pool, n int) []uint32 {
	t.Helper()
	conns := make([]*pgxpool.Conn, n)
	pids := make([]uint32, n)
	for i := range conns {
		c, err := pool.Acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		conns[i], pids[i] = c, c.Conn().PgConn().PID()
	}
	for _, c := range conns {
		c.Release()
	}
	return pids
}

// terminate ends the backends as pg_terminate_backend does (57P01, the
// message of a restart) and waits until they are gone.
func terminate(t *testing.T, url string, pids []uint32) {
	t.Helper()
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	for _, pid := range pids {
		if _, err := admin.Exec(ctx, "SELECT pg_terminate_backend($1::int)", int32(pid)); err != nil {
			t.Fatal(err)
		}
	}
	for range 200 {
		var left int
		if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE pid = ANY($1)", pids).Scan(&left); err != nil {
			t.Fatal(err)
		}
		if left == 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("backends still alive")
}

// deadPool returns a pool of 5 idle connections whose backends were all
// just terminated.
func deadPool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	u := dbtest.URL(t)
	pool, err := db.Open(context.Background(), u, db.Options{PoolSize: 5})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	terminate(t, u, warm(t, pool, 5))
	return pool
}

// A killed backend says so (57P01) on the next statement: that statement
// is a 503, and the pool drops every connection it holds, so the requests
// after it do not each land on another dead one.
func TestTerminatedBackendsAreDroppedTogether(t *testing.T) {
	pool := deadPool(t)
	var one int
	err := pool.QueryRow(context.Background(), "SELECT 1").Scan(&one)
	if !db.Unavailable(err) || db.Classify(err) != db.ErrUnavailable {
		t.Fatalf("first statement on a dead connection: %v, want an unavailability", err)
	}
	for i := range 5 {
		if err := pool.QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil {
			t.Fatalf("statement %d after the first failure: %v", i+2, err)
		}
	}
}

// Under FreshConns every connection is pinged before use, so even the
// first statement after the backends died succeeds.
func TestFreshConnsSkipsDeadConnections(t *testing.T) {
	pool := deadPool(t)
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() {
			var one int
			if err := pool.QueryRow(db.FreshConns(context.Background()), "SELECT 1").Scan(&one); err != nil {
				t.Errorf("fresh read after the backends died: %v", err)
			}
		})
	}
	wg.Wait()
}

// A restart of the server: the pool comes back without a statement lost
// to a dead connection once it is up.
func TestPoolSurvivesARestart(t *testing.T) {
	c := dbtest.StartCluster(t)
	pool, err := db.Open(context.Background(), c.URL, db.Options{PoolSize: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	warm(t, pool, 5)
	c.Restart(t)
	var one int
	if err := pool.QueryRow(db.FreshConns(context.Background()), "SELECT 1").Scan(&one); err != nil {
		t.Fatalf("fresh read after a restart: %v", err)
	}
	for i := range 5 {
		if err := pool.QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil {
			t.Fatalf("read %d after a restart: %v", i, err)
		}
	}
}
