package db_test

import (
	"context"
	"testing"

	"tradejournal/shared/db"
	"tradejournal/shared/db/dbtest"
	"tradejournal/shared/journal/journaltest"
	"tradejournal/shared/journalstore"
)

// TestUpgradeKeepsJournalAndHolds upgrades a database written under
// migration 0014 (a seeded journal, a wallet with holds) to the current
// schema: 0015 and 0016 change the keys of these very rows, so every row
// must pass the new keys, stay, and still go with its user.
func TestUpgradeKeepsJournalAndHolds(t *testing.T) {
	ctx := context.Background()
	u := dbtest.Empty(t)
	if _, err := db.MigrateUpTo(ctx, u, 14); err != nil {
		t.Fatal(err)
	}
	pool, err := db.Open(ctx, u, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var user string
	if err := pool.QueryRow(ctx, `INSERT INTO users (email, password_hash) VALUES ('old@example.com', 'x') RETURNING id::text`).Scan(&user); err != nil {
		t.Fatal(err)
	}
	if _, err := journaltest.Seed(ctx, pool, user, journaltest.Options{Positions: 300, Accounts: 2}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO wallets (user_id, balance, reserved) VALUES ($1, 1000, 100)`,
		`INSERT INTO credit_reservations (user_id, amount, created_at, expires_at) VALUES ($1, 100, now(), now() + interval '10 minutes')`,
		`INSERT INTO credit_reservations (user_id, amount, status, created_at, expires_at, closed_at)
			VALUES ($1, 50, 'released', now(), now() + interval '10 minutes', now())`,
	} {
		if _, err := pool.Exec(ctx, q, user); err != nil {
			t.Fatal(err)
		}
	}
	counts := func() [4]int {
		t.Helper()
		var c [4]int
		const q = `SELECT (SELECT count(*) FROM positions), (SELECT count(*) FROM fills),
			(SELECT count(*) FROM ledger_entries), (SELECT count(*) FROM credit_reservations)`
		if err := pool.QueryRow(ctx, q).Scan(&c[0], &c[1], &c[2], &c[3]); err != nil {
			t.Fatal(err)
		}
		return c
	}
	before := counts()
	if before[0] != 300 || before[3] != 2 {
		t.Fatalf("seeded %v", before)
	}

	applied, err := journalstore.Migrate(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	if len(applied) == 0 || applied[0] != "0015_reservations_by_wallet.sql" {
		t.Fatalf("applied %v, want 0015 first", applied)
	}
	if after := counts(); after != before {
		t.Fatalf("rows %v after the upgrade, %v before", after, before)
	}
	// The migrate step built the statistics' rows of the journal written
	// before them (migration 0035 queued it, journalstore.Migrate rebuilt it).
	var packed, closed int
	if err := pool.QueryRow(ctx, `SELECT (SELECT coalesce(sum(trades), 0) FROM closed_trades),
		(SELECT count(*) FROM positions WHERE status = 'closed')`).Scan(&packed, &closed); err != nil {
		t.Fatal(err)
	}
	if packed != closed || closed == 0 {
		t.Fatalf("closed_trades holds %d positions of %d closed", packed, closed)
	}
	if _, err := pool.Exec(ctx, `DELETE FROM users WHERE id = $1`, user); err != nil {
		t.Fatal(err)
	}
	if left := counts(); left != [4]int{} {
		t.Fatalf("rows %v left after their user", left)
	}
}
