package admin_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"tradejournal/functions/admin"
	"tradejournal/shared/db"
	"tradejournal/shared/db/dbtest"
)

// benchUserCount is the scale: page 1 and page 400 of the admin list
// over a million users, each under 5 ms.
const benchUserCount = 1_000_000

// BenchmarkListUsers measures admin.ListUsers, the admin list's whole
// database work, for page 1 and page 400 of 25 over 1,000,000 users, and logs
// EXPLAIN ANALYZE of both queries. The million rows are made here, so only a
// run with -bench (10 to 30 s of set-up) pays for them:
//
//	export TEST_DATABASE_URL=$(infra/pg.sh start .data/test-pg --fast | sed 's#/tradejournal?#/postgres?#')
//	go test -v -run '^$' -bench 'BenchmarkListUsers$' -benchtime 2s ./functions/admin/
func BenchmarkListUsers(b *testing.B) {
	// Registrations one every 30 s over about a year; every tenth shares its
	// predecessor's created_at, so the id half of the keyset decides ties.
	pool := benchUsers(b, `timestamptz '2025-01-01 00:00:00Z' + (i - (i % 10 = 0)::int) * interval '30 seconds'`)
	ctx := context.Background()

	// The cursor after page 399 opens page 400: walk there once, as a client would.
	var cursor *admin.Cursor
	for page := 1; page < 400; page++ {
		p, err := admin.ListUsers(ctx, pool, cursor, benchPageSize)
		if err != nil || p.NextCursor == nil {
			b.Fatalf("page %d: %v (next %v)", page, err, p.NextCursor)
		}
		cursor = admin.DecodeCursor(*p.NextCursor)
	}
	benchPage(b, pool, "page1", nil)
	benchPage(b, pool, "page400", cursor)
}

// BenchmarkListUsersSameCreatedAt is the list after a bulk import: users
// inserted in one transaction share created_at (now() is the transaction's
// start), so only the id half of the keyset orders them.
func BenchmarkListUsersSameCreatedAt(b *testing.B) {
	pool := benchUsers(b, `timestamptz '2025-01-01 00:00:00Z'`)
	benchPage(b, pool, "page1", nil)
}

const benchPageSize = 25

// benchUsers returns a pool on a fresh database holding benchUserCount users
// whose created_at is the SQL expression createdAt of i, 1..benchUserCount.
func benchUsers(b *testing.B, createdAt string) *pgxpool.Pool {
	ctx := context.Background()
	pool := dbtest.New(b)
	start := time.Now()
	// One statement, no round trip per row. A fifth of the users have been active.
	seed := `INSERT INTO users (email, password_hash, created_at, last_active_at)
		SELECT 'u' || i || '@example.com', 'x', t, CASE WHEN i % 5 = 0 THEN t + interval '1 day' END
		FROM generate_series(1, $1::int) i, LATERAL (SELECT ` + createdAt + `) AS c(t)`
	if _, err := pool.Exec(ctx, seed, benchUserCount); err != nil {
		b.Fatal(err)
	}
	// VACUUM sets hint bits and the visibility map, ANALYZE the statistics: the
	// state autovacuum leaves a real table in, not the state right after a bulk load.
	if _, err := pool.Exec(ctx, "VACUUM ANALYZE users"); err != nil {
		b.Fatal(err)
	}
	b.Logf("set-up: %d users inserted and analysed in %s", benchUserCount, time.Since(start).Round(time.Millisecond))
	return pool
}

// benchPage logs the plan of the very SQL ListUsers sends for the page after
// the cursor (with its arguments), then benchmarks that page.
func benchPage(b *testing.B, pool *pgxpool.Pool, name string, after *admin.Cursor) {
	ctx := context.Background()
	ex := &explainer{q: pool}
	if p, err := admin.ListUsers(ctx, ex, after, benchPageSize); err != nil || len(p.Items) != benchPageSize {
		b.Fatalf("%s: %v, %d items", name, err, len(p.Items))
	}
	b.Logf("%s: EXPLAIN (ANALYZE, BUFFERS) %s\n%s", name, ex.sql, ex.plan)
	b.Run(name, func(b *testing.B) {
		for b.Loop() {
			if _, err := admin.ListUsers(ctx, pool, after, benchPageSize); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// explainer is a db.Querier that runs EXPLAIN (ANALYZE, BUFFERS) of each
// query, with the same arguments, before running the query itself.
type explainer struct {
	q    db.Querier
	sql  string
	plan string
}

func (e *explainer) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	rows, err := e.q.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) "+sql, args...)
	if err != nil {
		return nil, err
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	e.sql, e.plan = sql, strings.Join(lines, "\n")
	return e.q.Query(ctx, sql, args...)
}

func (e *explainer) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return e.q.Exec(ctx, sql, args...)
}

func (e *explainer) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return e.q.QueryRow(ctx, sql, args...)
}
