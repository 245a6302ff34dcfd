package plans_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tradejournal/shared/apperr"
	"tradejournal/shared/config"
	"tradejournal/shared/db"
	"tradejournal/shared/db/dbtest"
	"tradejournal/shared/plans"
)

var now = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

func newUser(t *testing.T, pool *pgxpool.Pool, email string) string {
	t.Helper()
	var id string
	if err := pool.QueryRow(context.Background(), `INSERT INTO users (email, password_hash) VALUES ($1, 'x') RETURNING id::text`, email).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

func exec(t *testing.T, q db.Querier, sql string, args ...any) {
	t.Helper()
	if _, err := q.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func plan(limits config.Plans) plans.Plan {
	var cfg config.Config
	cfg.Plans = limits
	return plans.New(cfg, func() time.Time { return now })
}

// check runs Check in a transaction of its own.
func check(t *testing.T, pool *pgxpool.Pool, p plans.Plan, userID string, k plans.Kind, adding int64) error {
	t.Helper()
	return db.InTx(context.Background(), pool, func(tx pgx.Tx) error { return p.Check(context.Background(), tx, userID, k, adding) })
}

func wantRefused(t *testing.T, err error) {
	t.Helper()
	if e, ok := apperr.As(err); !ok || e.Code != apperr.PlanLimitReached {
		t.Fatalf("want PLAN_LIMIT_REACHED, got %v", err)
	}
}

func TestCheckAtTheEdge(t *testing.T) {
	pool := dbtest.New(t)
	user := newUser(t, pool, "a@example.com")
	p := plan(config.Plans{ImportsPerDay: 2, StorageBytes: 1000})

	t.Run("ImportsInTheLast24Hours", func(t *testing.T) {
		exec(t, pool, `INSERT INTO csv_imports (user_id, committed_at) VALUES ($1, $2), ($1, $3)`,
			user, now.Add(-25*time.Hour), now.Add(-23*time.Hour))
		if err := check(t, pool, p, user, plans.ImportsPerDay, 1); err != nil {
			t.Fatalf("one import in 24 hours, a second refused: %v", err)
		}
		exec(t, pool, `INSERT INTO csv_imports (user_id, committed_at) VALUES ($1, $2)`, user, now.Add(-time.Minute))
		err := check(t, pool, p, user, plans.ImportsPerDay, 1)
		wantRefused(t, err)
		if e, _ := apperr.As(err); e.Message != "The free plan allows 2 imports in 24 hours and you have made 2. Import again later, or ask this journal's administrator for a higher limit." {
			t.Fatalf("message %q", e.Message)
		}
	})
	t.Run("StorageExactlyFull", func(t *testing.T) {
		if err := check(t, pool, p, user, plans.StorageBytes, 1000); err != nil {
			t.Fatalf("an image that fills the allowance exactly: %v", err)
		}
		wantRefused(t, check(t, pool, p, user, plans.StorageBytes, 1001))
	})
	t.Run("OffWhenUnset", func(t *testing.T) {
		if err := check(t, pool, p, user, plans.Accounts, 1_000_000); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("ProLifts", func(t *testing.T) {
		exec(t, pool, `INSERT INTO billing_subscriptions (subscription_id, user_id, status, current_period_end, last_event_at, updated_at)
			VALUES ('sub_1', $1, 'trialing', $2, $2, $2)`, user, now.Add(time.Hour))
		if err := check(t, pool, p, user, plans.ImportsPerDay, 1); err != nil {
			t.Fatalf("Pro: %v", err)
		}
		// The period ended: back to the free plan's limits.
		exec(t, pool, `UPDATE billing_subscriptions SET current_period_end = $1`, now.Add(-time.Second))
		wantRefused(t, check(t, pool, p, user, plans.ImportsPerDay, 1))
		v, err := p.Read(context.Background(), pool, user)
		if err != nil || v.Plan != "free" || v.Limits[3].Name != plans.ImportsPerDay || v.Limits[3].Used != 2 || *v.Limits[3].Limit != 2 {
			t.Fatalf("view %+v %v", v, err)
		}
	})
}

// TestCheckSerialises: a second write at the limit waits on the first's
// lock of the user, then counts the first's row and is refused.
func TestCheckSerialises(t *testing.T) {
	pool := dbtest.New(t)
	user := newUser(t, pool, "a@example.com")
	p := plan(config.Plans{Accounts: 1})
	ctx := context.Background()
	insertAndCheck := func(tx pgx.Tx, name string) error {
		exec(t, tx, `INSERT INTO accounts (user_id, name, currency) VALUES ($1, $2, 'USD')`, user, name)
		return p.Check(ctx, tx, user, plans.Accounts, 0)
	}
	first, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Rollback(ctx) //nolint:errcheck
	if err := insertAndCheck(first, "First"); err != nil {
		t.Fatalf("first: %v", err)
	}
	second := make(chan error, 1)
	go func() {
		second <- db.InTx(ctx, pool, func(tx pgx.Tx) error { return insertAndCheck(tx, "Second") })
	}()
	select {
	case err := <-second:
		t.Fatalf("the second write did not wait for the first: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	if err := first.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, <-second)
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM accounts WHERE user_id = $1`, user).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d accounts (%v)", n, err)
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 bytes", 1: "1 byte", 999: "999 bytes", 1000: "1 KB", 1500: "1.5 KB", 20_000_000: "20 MB", 1_250_000_000: "1.2 GB"} {
		if got := plans.Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
