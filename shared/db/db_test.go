package db_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/db"
	"tradejournal/shared/db/dbtest"
)

func TestMigrateConcurrentStartsApplyEachFileOnce(t *testing.T) {
	u := dbtest.Empty(t)
	var wg sync.WaitGroup
	results := make([][]string, 4)
	errs := make([]error, 4)
	for i := range 4 {
		wg.Go(func() { results[i], errs[i] = db.Migrate(context.Background(), u) })
	}
	wg.Wait()
	total := 0
	for i, err := range errs {
		if err != nil {
			t.Fatalf("migrate %d: %v", i, err)
		}
		total += len(results[i])
	}
	conn, err := pgx.Connect(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var recorded int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM schema_migrations`).Scan(&recorded); err != nil {
		t.Fatal(err)
	}
	if total != recorded || recorded == 0 {
		t.Fatalf("%d files applied across processes, %d recorded", total, recorded)
	}
	again, err := db.Migrate(context.Background(), u)
	if err != nil || len(again) != 0 {
		t.Fatalf("second run applied %v (%v)", again, err)
	}
}

func TestOpenNeverEchoesTheURL(t *testing.T) {
	_, err := db.Open(context.Background(), "postgres://user:s3cret-pw@host:notaport/db", db.Options{})
	if err == nil {
		t.Fatal("bad URL accepted")
	}
	if got := err.Error(); got == "" || strings.Contains(got, "s3cret-pw") {
		t.Fatalf("error %q", got)
	}
}

func TestTransactionPoolerUsesNoPreparedStatements(t *testing.T) {
	ctx := context.Background()
	pool, err := db.Open(ctx, dbtest.URL(t), db.Options{PoolSize: 1, TransactionPooler: true})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var n int
	for range 3 {
		if err := pool.QueryRow(ctx, "SELECT $1::int", 7).Scan(&n); err != nil {
			t.Fatal(err)
		}
	}
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM pg_prepared_statements").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("%d prepared statements on the connection", n)
	}
}

func TestPoolSize(t *testing.T) {
	pool, err := db.Open(context.Background(), "postgres://x@127.0.0.1:1/x", db.Options{PoolSize: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if got := pool.Config().MaxConns; got != 7 {
		t.Fatalf("MaxConns %d", got)
	}
}

// TestDecimals: NUMERIC scans into decimal.Decimal and *decimal.Decimal
// exactly (through the numeric codec, decimalCodec, in binary, or in text
// without prepared statements), NULL into a nil pointer, and a NULL or NaN
// into a decimal.Decimal is an error.
func TestDecimals(t *testing.T) {
	ctx := context.Background()
	u := dbtest.URL(t)
	for _, pooler := range []bool{false, true} {
		pool, err := db.Open(ctx, u, db.Options{TransactionPooler: pooler})
		if err != nil {
			t.Fatal(err)
		}
		defer pool.Close()
		for _, v := range []string{"0", "1.5000", "-0.0001", "123456789012345.6789", "1e-20", "98765432109876543210.0123456789"} {
			var d decimal.Decimal
			var p *decimal.Decimal
			if err := pool.QueryRow(ctx, "SELECT $1::numeric, $1::numeric", v).Scan(&d, &p); err != nil {
				t.Fatal(err)
			}
			if want := decimal.RequireFromString(v); !d.Equal(want) || p == nil || !p.Equal(want) {
				t.Errorf("pooler %v, %s: scanned %s and %v", pooler, v, d, p)
			}
		}
		var p *decimal.Decimal
		if err := pool.QueryRow(ctx, "SELECT NULL::numeric").Scan(&p); err != nil || p != nil {
			t.Errorf("pooler %v, NULL: %v, %v", pooler, p, err)
		}
		var d decimal.Decimal
		for _, q := range []string{"SELECT NULL::numeric", "SELECT 'NaN'::numeric"} {
			if err := pool.QueryRow(ctx, q).Scan(&d); err == nil {
				t.Errorf("pooler %v, %s: no error", pooler, q)
			}
		}
	}
}
