package journalstore_test

import (
	"context"
	"testing"
	"time"

	"tradejournal/shared/db"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db/dbtest"
	"tradejournal/shared/journal/journaltest"
	"tradejournal/shared/journalstore"
)

func newUser(t *testing.T, pool *pgxpool.Pool, email string) string {
	t.Helper()
	var id string
	if err := pool.QueryRow(context.Background(), `INSERT INTO users (email, password_hash) VALUES ($1, 'x') RETURNING id::text`, email).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// snapshot is everything Recompute writes, as text, for comparison.
func snapshot(t *testing.T, pool *pgxpool.Pool) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, q := range []string{
		`SELECT id::text, concat_ws('|', account_id, status, opened_at, closed_at, entry_quantity::numeric(30,8), exit_quantity::numeric(30,8),
			open_quantity::numeric(30,8), avg_entry_price::numeric(30,10), avg_exit_price::numeric(30,10), gross_pnl, fees, net_pnl,
			initial_risk, r_multiple, playbook_id) FROM positions`,
		`SELECT concat(position_id, criterion_id), '' FROM position_criteria`,
		`SELECT concat(fill_id, kind), concat_ws('|', account_id, position_id, amount, occurred_at) FROM ledger_entries WHERE position_id IS NOT NULL`,
		`SELECT id::text, concat_ws('|', starting_balance, balance) FROM accounts`,
	} {
		rows, err := pool.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		var k, v string
		if _, err := pgx.ForEachRow(rows, []any{&k, &v}, func() error { out[k] = v; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// checkBalances holds every account to balance = starting_balance + ledger.
func checkBalances(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	var bad int
	const q = `SELECT count(*) FROM accounts a WHERE a.balance <> a.starting_balance
		+ coalesce((SELECT sum(amount) FROM ledger_entries l WHERE l.account_id = a.id), 0)`
	if err := pool.QueryRow(context.Background(), q).Scan(&bad); err != nil || bad != 0 {
		t.Fatalf("%d accounts whose balance is not starting balance + ledger (%v)", bad, err)
	}
}

// TestSeedMatchesRecompute seeds a sample set-wise, then recomputes every
// position in one bulk call: nothing may change, so the seed's SQL
// arithmetic is journal.Compute's, and the bulk form rewrites ledgers and
// balances to the cent.
func TestSeedMatchesRecompute(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	user := newUser(t, pool, "seed@example.com")
	ds, err := journaltest.Seed(ctx, pool, user, journaltest.Options{Positions: 400})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.AccountIDs) != 5 || ds.Fills != 2000 || ds.Currencies[2] != "GBP" {
		t.Fatalf("dataset %+v", ds)
	}
	var counts [4]int
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM positions WHERE status = 'closed'), (SELECT count(*) FROM fills),
		(SELECT count(DISTINCT currency) FROM accounts), (SELECT count(*) FROM positions WHERE asset_type = 'option')`).
		Scan(&counts[0], &counts[1], &counts[2], &counts[3]); err != nil {
		t.Fatal(err)
	}
	if counts != [4]int{400, 2000, 3, 40} {
		t.Fatalf("counts %v", counts)
	}
	var wins, losses, flat int
	if err := pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE gross_pnl > 0), count(*) FILTER (WHERE gross_pnl < 0),
		count(*) FILTER (WHERE gross_pnl = 0) FROM positions`).Scan(&wins, &losses, &flat); err != nil {
		t.Fatal(err)
	}
	if wins == 0 || losses == 0 || flat == 0 {
		t.Fatalf("wins %d losses %d flat %d: the seed should have all three", wins, losses, flat)
	}
	checkBalances(t, pool)

	before := snapshot(t, pool)
	rows, _ := pool.Query(ctx, `SELECT id::text FROM positions`)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if err := db.InTx(ctx, pool, func(tx pgx.Tx) error { return journalstore.Rederive(ctx, tx, ids...) }); err != nil {
		t.Fatal(err)
	}
	after := snapshot(t, pool)
	if len(before) != len(after) {
		t.Fatalf("%d rows before, %d after", len(before), len(after))
	}
	diffs := 0
	for k, v := range before {
		if after[k] != v && diffs < 5 {
			diffs++
			t.Errorf("%s:\n seeded    %s\n recomputed %s", k, v, after[k])
		}
	}
	checkBalances(t, pool)
}

func TestRecomputeLedger(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	user := newUser(t, pool, "ledger@example.com")
	var account, position string
	if err := pool.QueryRow(ctx, `INSERT INTO accounts (user_id, name, currency, starting_balance, balance)
		VALUES ($1, 'Main', 'USD', 1000, 1000) RETURNING id::text`, user).Scan(&account); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `INSERT INTO positions (user_id, account_id, symbol, asset_type, side, stop_loss)
		VALUES ($1, $2, 'AAPL', 'stock', 'long', 9) RETURNING id::text`, user, account).Scan(&position); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2024, 3, 1, 15, 0, 0, 0, time.UTC)
	addFill := func(typ, price, qty, fees string, minutes int) string {
		var id string
		if err := pool.QueryRow(ctx, `INSERT INTO fills (position_id, type, price, quantity, fees, filled_at)
			VALUES ($1, $2, $3, $4, $5, $6) RETURNING id::text`, position, typ, price, qty, fees, at.Add(time.Duration(minutes)*time.Minute)).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	store := journalstore.New(pool, nil, time.Now)
	recompute := func() error {
		return db.InTx(ctx, pool, func(tx pgx.Tx) error { return journalstore.Rederive(ctx, tx, position) })
	}
	balance := func() string {
		var b decimal.Decimal
		if err := pool.QueryRow(ctx, `SELECT balance FROM accounts WHERE id = $1`, account).Scan(&b); err != nil {
			t.Fatal(err)
		}
		return b.StringFixed(4)
	}

	addFill("entry", "10", "100", "1", 0)
	if err := recompute(); err != nil {
		t.Fatal(err)
	}
	if b := balance(); b != "999.0000" {
		t.Fatalf("after entry fee: %s", b)
	}
	exit := addFill("exit", "12", "60", "1", 30)
	if err := recompute(); err != nil {
		t.Fatal(err)
	}
	if b := balance(); b != "1118.0000" { // +120 realised, -1 fee
		t.Fatalf("after partial exit: %s", b)
	}
	// Recomputing again changes nothing: rows are rewritten, not added.
	if err := recompute(); err != nil {
		t.Fatal(err)
	}
	if b := balance(); b != "1118.0000" {
		t.Fatalf("after a second recompute: %s", b)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM ledger_entries WHERE position_id = $1`, position).Scan(&n); err != nil || n != 3 {
		t.Fatalf("%d ledger rows (%v), want 3", n, err)
	}

	t.Run("ExitBeforeEntryRefused", func(t *testing.T) {
		err := db.InTx(ctx, pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `INSERT INTO fills (position_id, type, price, quantity, filled_at) VALUES ($1, 'exit', 13, 1, $2)`,
				position, at.Add(-time.Hour)); err != nil {
				return err
			}
			return journalstore.Rederive(ctx, tx, position)
		})
		if e, ok := apperr.As(err); !ok || e.Code != apperr.Validation {
			t.Fatalf("got %v", err)
		}
		if b := balance(); b != "1118.0000" {
			t.Fatalf("a refused write moved the balance: %s", b)
		}
	})
	t.Run("DeleteFill", func(t *testing.T) {
		if _, err := store.DeleteFill(ctx, user, position, exit); err != nil {
			t.Fatal(err)
		}
		if b := balance(); b != "999.0000" {
			t.Fatalf("after deleting the exit: %s", b)
		}
		if _, err := store.DeleteFill(ctx, user, position, exit); err != apperr.ErrNotFound {
			t.Fatalf("second delete: %v", err)
		}
	})
	t.Run("DeletePosition", func(t *testing.T) {
		addFill("exit", "11", "100", "2", 40)
		if err := recompute(); err != nil {
			t.Fatal(err)
		}
		if b := balance(); b != "1097.0000" { // +100 -1 -2
			t.Fatalf("closed: %s", b)
		}
		other := newUser(t, pool, "other@example.com")
		if _, err := store.DeletePosition(ctx, other, position); err != apperr.ErrNotFound {
			t.Fatalf("another user deleted it: %v", err)
		}
		if _, err := store.DeletePosition(ctx, user, position); err != nil {
			t.Fatal(err)
		}
		if b := balance(); b != "1000.0000" {
			t.Fatalf("after deleting the position: %s", b)
		}
	})
	checkBalances(t, pool)
}

// TestRecomputeMovesAccounts moves a position to another account: its
// ledger rows follow and both balances move.
func TestRecomputeMovesAccounts(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	user := newUser(t, pool, "move@example.com")
	ds, err := journaltest.Seed(ctx, pool, user, journaltest.Options{Positions: 10, Accounts: 2})
	if err != nil {
		t.Fatal(err)
	}
	var position string
	var net decimal.Decimal
	if err := pool.QueryRow(ctx, `SELECT id::text, net_pnl FROM positions WHERE account_id = $1 ORDER BY opened_at LIMIT 1`,
		ds.AccountIDs[0]).Scan(&position, &net); err != nil {
		t.Fatal(err)
	}
	balances := func() (a, b decimal.Decimal) {
		if err := pool.QueryRow(ctx, `SELECT (SELECT balance FROM accounts WHERE id = $1), (SELECT balance FROM accounts WHERE id = $2)`,
			ds.AccountIDs[0], ds.AccountIDs[1]).Scan(&a, &b); err != nil {
			t.Fatal(err)
		}
		return a, b
	}
	a0, b0 := balances()
	err = db.InTx(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE positions SET account_id = $2 WHERE id = $1`, position, ds.AccountIDs[1]); err != nil {
			return err
		}
		return journalstore.Rederive(ctx, tx, position)
	})
	if err != nil {
		t.Fatal(err)
	}
	a1, b1 := balances()
	if !a0.Sub(net).Equal(a1) || !b0.Add(net).Equal(b1) {
		t.Fatalf("balances %s,%s -> %s,%s; net %s", a0, b0, a1, b1, net)
	}
	checkBalances(t, pool)
}
