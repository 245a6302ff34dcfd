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
	if n < 60 || open < 2 || reversed != 1 || futures != 4 || options != 6+4 { // six single options, an iron condor
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

// TestDemoJournalFeatures: the demo also shows a day's entry, a playbook
// with criteria that demo trades follow, a trading rule and a multi-leg
// options strategy, the statistics take them in, and the removal takes
// exactly those, leaving the user's own playbook, rule and day entries
// (one of them on the demo's day, which the demo leaves alone) as they were.
func TestDemoJournalFeatures(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	a := srv.Client(t)
	a.Register("a@example.com", "password1")
	ctx := context.Background()
	// The user's own: a playbook, a rule over all accounts and one day entry.
	ownBook := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/playbooks", map[string]any{"name": "My pullback",
		"criteria": []any{map[string]any{"text": "Trend up"}}}), 201), "playbook")["id"].(string)
	ownRule := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/rules", map[string]any{"type": "stopRequired", "params": map[string]any{}}), 201), "rule")["id"].(string)
	ownDay := map[string]any{"plan": "My own plan", "review": "", "notes": "", "tagIds": []any{}}
	apitest.Must(t, a.Do("PUT", "/api/journal/days/2020-03-02", ownDay), 200)

	acc := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/demo-journal", nil), 201), "account")["id"].(string)

	// The playbook, with its criteria, followed by demo trades that ticked them.
	var book string
	for _, b := range apitest.Items(t, apitest.Must(t, a.Do("GET", "/api/playbooks", nil), 200)) {
		if m := b.(map[string]any); m["name"] == "Opening range breakout" {
			book = m["id"].(string)
			if n := len(m["criteria"].([]any)); n != 4 {
				t.Fatalf("demo playbook has %d criteria", n)
			}
		}
	}
	if book == "" {
		t.Fatal("no demo playbook")
	}
	var follows, ticks int // closed follows: what the statistics count
	if err := srv.App.DB.QueryRow(ctx, `SELECT count(*), (SELECT count(*) FROM position_criteria pc JOIN positions q ON q.id = pc.position_id WHERE q.playbook_id = $1)
		FROM positions WHERE playbook_id = $1 AND account_id = $2 AND status = 'closed'`, book, acc).Scan(&follows, &ticks); err != nil || follows < 5 || ticks <= follows {
		t.Fatalf("%d demo positions follow the playbook, %d ticks (%v)", follows, ticks, err)
	}
	// The strategy: an iron condor of four legs, closed with a profit of
	// 200 before the brokerage's estimated fees.
	strategies := apitest.Items(t, apitest.Must(t, a.Do("GET", "/api/strategies", nil), 200))
	if len(strategies) != 1 {
		t.Fatalf("%d strategies", len(strategies))
	}
	st := strategies[0].(map[string]any)
	if st["kind"] != "iron-condor" || len(st["legs"].([]any)) != 4 || st["status"] != "closed" || st["grossPnl"] != "200.0000" {
		t.Fatalf("demo strategy %v %v %v %v", st["kind"], len(st["legs"].([]any)), st["status"], st["grossPnl"])
	}
	// The rule, of the demo account.
	rules := apitest.Items(t, apitest.Must(t, a.Do("GET", "/api/rules", nil), 200))
	if len(rules) != 2 {
		t.Fatalf("%d rules", len(rules))
	}
	// The day entry, on a day of demo trades.
	var entries []string
	for _, d := range apitest.Items(t, apitest.Must(t, a.Do("GET", "/api/journal/days?limit=200", nil), 200)) {
		if m := d.(map[string]any); m["hasEntry"] == true {
			entries = append(entries, m["date"].(string))
			if m["date"] != "2020-03-02" && (m["closedPositions"].(float64) == 0 || m["excerpt"] == "") {
				t.Fatalf("demo day %v", m)
			}
		}
	}
	if len(entries) != 2 {
		t.Fatalf("day entries %v", entries)
	}
	// The statistics take the follows and the strategy in.
	perf := apitest.Object(t, apitest.Must(t, a.Do("GET", "/api/performance", nil), 200), "total")
	found := map[string]float64{}
	for _, b := range perf["byPlaybook"].([]any) {
		if m := b.(map[string]any); m["playbookId"] == book {
			found["playbook"] = m["trades"].(float64)
		}
	}
	for _, b := range perf["byStrategy"].([]any) {
		if m := b.(map[string]any); m["strategy"] == "iron-condor" {
			found["strategy"] = m["trades"].(float64)
		}
	}
	if found["playbook"] != float64(follows) || found["strategy"] != 1 {
		t.Fatalf("statistics: %v trades of the playbook (want %d), of the iron condor (want 1)", found, follows)
	}

	// Written in, the demo's day entry is the user's and stays.
	demoDay := entries[0]
	if demoDay == "2020-03-02" {
		demoDay = entries[1]
	}
	apitest.Must(t, a.Do("DELETE", "/api/demo-journal", nil), 204)
	var left int
	if err := srv.App.DB.QueryRow(ctx, `SELECT (SELECT count(*) FROM playbooks WHERE demo) + (SELECT count(*) FROM journal_days WHERE demo)
		+ (SELECT count(*) FROM strategies) + (SELECT count(*) FROM trading_rules WHERE account_id IS NOT NULL)`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d demo rows left (%v)", left, err)
	}
	apitest.Must(t, a.Do("GET", "/api/playbooks/"+ownBook, nil), 200)
	apitest.Must(t, a.Do("GET", "/api/rules/"+ownRule, nil), 200)
	if d := apitest.Must(t, a.Do("GET", "/api/journal/days/2020-03-02", nil), 200); apitest.Object(t, d, "day")["plan"] != "My own plan" {
		t.Fatalf("own day entry: %s", d.Body)
	}
	if d := apitest.Must(t, a.Do("GET", "/api/journal/days/"+demoDay, nil), 200); apitest.Object(t, d, "day")["updatedAt"] != nil {
		t.Fatalf("the demo's day entry stayed: %s", d.Body)
	}

	t.Run("WrittenInStays", func(t *testing.T) {
		apitest.Must(t, a.Do("POST", "/api/demo-journal", nil), 201)
		mine := map[string]any{"plan": "I kept this one", "review": "", "notes": "", "tagIds": []any{}}
		apitest.Must(t, a.Do("PUT", "/api/journal/days/"+demoDay, mine), 200)
		apitest.Must(t, a.Do("DELETE", "/api/demo-journal", nil), 204)
		if d := apitest.Must(t, a.Do("GET", "/api/journal/days/"+demoDay, nil), 200); apitest.Object(t, d, "day")["plan"] != "I kept this one" {
			t.Fatalf("the day written in went with the demo: %s", d.Body)
		}
		// A load leaves a day the user has written alone.
		apitest.Must(t, a.Do("POST", "/api/demo-journal", nil), 201)
		if d := apitest.Must(t, a.Do("GET", "/api/journal/days/"+demoDay, nil), 200); apitest.Object(t, d, "day")["plan"] != "I kept this one" {
			t.Fatalf("the demo wrote over the user's day: %s", d.Body)
		}
	})
}
