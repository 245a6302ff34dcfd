package journalstore_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"tradejournal/shared/db/dbtest"
)

// TestJournalKeys holds the composite keys of migration 0016 to what the
// separate keys they replaced guarded, and to the agreement they add: a
// position's account is its user's, a fill's ledger rows name the fill's
// own position, and deleting a position, an account or a user takes the
// rows below it.
func TestJournalKeys(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	exec := func(sql string, args ...any) error {
		_, err := pool.Exec(ctx, sql, args...)
		return err
	}
	id := func(sql string, args ...any) string {
		t.Helper()
		var s string
		if err := pool.QueryRow(ctx, sql+` RETURNING id::text`, args...).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	refused := func(name, code string, err error) {
		t.Helper()
		if sqlState(err) != code {
			t.Errorf("%s: %v, want SQLSTATE %s", name, err, code)
		}
	}
	count := func(table, where string, args ...any) int {
		t.Helper()
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM `+table+` WHERE `+where, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	alice, bob := newUser(t, pool, "alice@example.com"), newUser(t, pool, "bob@example.com")
	account := id(`INSERT INTO accounts (user_id, name, currency) VALUES ($1, 'Main', 'USD')`, alice)
	position := `INSERT INTO positions (user_id, account_id, symbol, asset_type, side) VALUES ($1, $2, 'AAPL', 'stock', 'long')`
	refused("a position in another user's account", "23503", exec(position, bob, account))
	p1, p2 := id(position, alice, account), id(position, alice, account)
	fill := `INSERT INTO fills (position_id, type, price, quantity, fees, filled_at) VALUES ($1, 'entry', 10, 1, 1, now())`
	f1, f2 := id(fill, p1), id(fill, p2)

	ledger := `INSERT INTO ledger_entries (account_id, kind, amount, position_id, fill_id, occurred_at) VALUES ($1, $2, -1, $3, $4, now())`
	refused("a fee row naming another position's fill", "23503", exec(ledger, account, "fee", p1, f2))
	refused("a fee row naming a fill without its position", "23514", exec(ledger, account, "fee", nil, f1))
	refused("a fee row naming a position without a fill", "23514", exec(ledger, account, "fee", p1, nil))
	refused("a fee row naming no fill", "23514", exec(ledger, account, "fee", nil, nil))
	for _, pf := range [][2]string{{p1, f1}, {p2, f2}} {
		if err := exec(ledger, account, "fee", pf[0], pf[1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := exec(`INSERT INTO ledger_entries (account_id, kind, amount, occurred_at) VALUES ($1, 'deposit', 100, now())`, account); err != nil {
		t.Fatalf("a deposit: %v", err)
	}

	if err := exec(`DELETE FROM fills WHERE id = $1`, f1); err != nil {
		t.Fatal(err)
	}
	if n := count("ledger_entries", "fill_id = $1", f1); n != 0 {
		t.Errorf("%d ledger rows left after their fill", n)
	}
	if err := exec(`DELETE FROM positions WHERE id = $1`, p2); err != nil {
		t.Fatal(err)
	}
	if n, m := count("fills", "position_id = $1", p2), count("ledger_entries", "position_id = $1", p2); n != 0 || m != 0 {
		t.Errorf("%d fills and %d ledger rows left after their position", n, m)
	}
	if err := exec(`UPDATE accounts SET user_id = $2 WHERE id = $1`, account, bob); err == nil {
		t.Error("an account with positions moved to another user")
	}
	if err := exec(`DELETE FROM users WHERE id = $1`, alice); err != nil {
		t.Fatal(err)
	}
	if n := count("positions", "account_id = $1", account); n != 0 {
		t.Errorf("%d positions left after their user", n)
	}
}

// sqlState is the SQLSTATE of a PostgreSQL error, or "" for any other.
func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}
