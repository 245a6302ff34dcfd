package accounts_test

import (
	"context"
	"testing"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
)

// TestDemoJournal: one click loads a demo account with its positions (every
// figure the journal's own), a second load is refused, and one click
// removes it all, leaving the user's own tags and positions alone.
func TestDemoJournal(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	a, b := srv.Client(t), srv.Client(t)
	a.Register("a@example.com", "password1")
	b.Register("b@example.com", "password1")
	db := srv.App.DB
	own := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/tags", map[string]any{"name": "breakout", "category": "setup"}), 201), "tag")["id"].(string)

	r := apitest.Must(t, a.Do("POST", "/api/demo-journal", nil), 201)
	acc := apitest.Object(t, r, "account")
	if acc["demo"] != true || acc["name"] != "Demo account" || r.JSON["positions"].(float64) < 60 {
		t.Fatalf("%s", r.Body)
	}
	// The dashboard has a currency to show the demo in.
	if total := apitest.Must(t, a.Do("GET", "/api/dashboard/totals", nil), 200); total.JSON["displayCurrency"] != "USD" || total.JSON["total"] == nil {
		t.Fatalf("%s", total.Body)
	}
	var n, open, reversed, futures, options int
	if err := db.QueryRow(context.Background(), `SELECT count(*), count(*) FILTER (WHERE status = 'open'),
			count(*) FILTER (WHERE reversal_of IS NOT NULL), count(*) FILTER (WHERE asset_type = 'future'),
			count(*) FILTER (WHERE asset_type = 'option')
		FROM positions WHERE account_id = $1`, acc["id"]).Scan(&n, &open, &reversed, &futures, &options); err != nil {
		t.Fatal(err)
	}
	if n < 60 || open < 2 || reversed != 1 || futures != 4 || options != 6 {
		t.Fatalf("%d positions, %d open, %d reversed, %d futures, %d options", n, open, reversed, futures, options)
	}
	// The user's own "breakout" tag is reused, not doubled.
	var tags int
	if err := db.QueryRow(context.Background(), `SELECT count(*) FROM tags WHERE lower(name) = 'breakout'`).Scan(&tags); err != nil || tags != 1 {
		t.Fatalf("%d breakout tags (%v)", tags, err)
	}
	// The balance is the starting balance plus the ledger, which holds
	// every closed position's net P&L.
	var off int
	if err := db.QueryRow(context.Background(), `SELECT count(*) FROM accounts a WHERE a.demo AND a.balance <> a.starting_balance
		+ (SELECT coalesce(sum(amount), 0) FROM ledger_entries l WHERE l.account_id = a.id)`).Scan(&off); err != nil || off != 0 {
		t.Fatalf("balance off (%v)", err)
	}
	if r := a.Do("POST", "/api/demo-journal", nil); r.Status != 409 || r.ErrorCode() != "CONFLICT" {
		t.Fatalf("second load: %d %s", r.Status, r.Body)
	}
	// Another user sees none of it.
	if r := b.Do("DELETE", "/api/demo-journal", nil); r.Status != 404 {
		t.Fatalf("another user removed it: %d", r.Status)
	}

	apitest.Must(t, a.Do("DELETE", "/api/demo-journal", nil), 204)
	if err := db.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM accounts WHERE demo) + (SELECT count(*) FROM tags WHERE demo)
		+ (SELECT count(*) FROM positions p JOIN accounts a ON a.id = p.account_id WHERE a.demo)`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d demo rows left (%v)", n, err)
	}
	apitest.Must(t, a.Do("GET", "/api/tags/"+own, nil), 200)
	apitest.Must(t, a.Do("DELETE", "/api/demo-journal", nil), 404)
	// And it loads again after a removal.
	apitest.Must(t, a.Do("POST", "/api/demo-journal", nil), 201)
}
