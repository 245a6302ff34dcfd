package functions_test

import (
	"context"
	"testing"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
)

// TestReadsNeverWrite: every read of the journal answers from what is
// stored and changes nothing, even with an option past its expiry day that
// the option-expiry job has not closed yet (shown open, awaiting expiry) and
// a strategy of it. The reads are the routes that closed due options first
// until the job did it.
func TestReadsNeverWrite(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	c := srv.Client(t)
	c.Register("reader@example.com", "password1")
	account := apitest.Object(t, apitest.Must(t, c.Do("POST", "/api/accounts",
		map[string]any{"name": "Main", "currency": "USD", "startingBalance": "10000"}), 201), "account")["id"].(string)
	entry := map[string]any{"type": "entry", "price": "3.00", "quantity": "2", "fees": "1.30", "filledAt": "2025-03-17T14:00:00Z"}
	option := apitest.Object(t, apitest.Must(t, c.Do("POST", "/api/positions", map[string]any{"accountId": account,
		"symbol": "AAPL  250321C00200000", "assetType": "option", "side": "long", "fills": []any{entry}}), 201), "position")["id"].(string)
	strategy := apitest.Object(t, apitest.Must(t, c.Do("POST", "/api/strategies",
		map[string]any{"accountId": account, "positionIds": []any{option}}), 201), "strategy")["id"].(string)
	apitest.Must(t, c.Do("POST", "/api/rules", map[string]any{"type": "maxTradesPerDay", "params": map[string]any{"count": 1}}), 201)
	apitest.Must(t, c.Do("PUT", "/api/journal/days/2025-03-17", map[string]any{"plan": "", "review": "held the call", "notes": "", "tagIds": []string{}}), 200)
	// A monthly expense started long ago: its charges recorded when it was
	// written, the next ones due since wait for the expense-charges job.
	expense := apitest.Object(t, apitest.Must(t, c.Do("POST", "/api/expenses", map[string]any{"amount": "10", "startDate": "2025-01-31",
		"recurrence": "monthly", "accountId": account}), 201), "expense")["id"].(string)
	if _, err := srv.App.DB.Exec(context.Background(), `DELETE FROM expense_charges WHERE charge_on > '2025-02-01';
		UPDATE expenses SET next_charge_on = '2025-02-28'`); err != nil {
		t.Fatal(err)
	}

	// written fingerprints the journal's tables: their row counts and the
	// newest transaction that wrote a row of each (xmin), which any insert
	// or update moves; and positions' newest updated_at.
	written := func() string {
		t.Helper()
		var s string
		const q = `SELECT concat_ws(' ',
			(SELECT count(*) || '/' || coalesce(max(xmin::text::bigint), 0) || '/' || coalesce(max(updated_at)::text, '') FROM positions),
			(SELECT count(*) || '/' || coalesce(max(xmin::text::bigint), 0) FROM fills),
			(SELECT count(*) || '/' || coalesce(max(xmin::text::bigint), 0) FROM ledger_entries),
			(SELECT count(*) || '/' || coalesce(max(xmin::text::bigint), 0) FROM accounts),
			(SELECT count(*) || '/' || coalesce(max(xmin::text::bigint), 0) FROM strategies),
			(SELECT count(*) || '/' || coalesce(max(xmin::text::bigint), 0) FROM closed_trades),
			(SELECT count(*) || '/' || coalesce(max(xmin::text::bigint), 0) FROM expenses),
			(SELECT count(*) || '/' || coalesce(max(xmin::text::bigint), 0) FROM expense_charges))`
		if err := srv.App.DB.QueryRow(context.Background(), q).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := written()
	for _, path := range []string{
		"/api/positions",
		"/api/positions/" + option,
		"/api/accounts",
		"/api/accounts/" + account,
		"/api/accounts/" + account + "/ledger",
		"/api/performance",
		"/api/strategies",
		"/api/strategies/" + strategy,
		"/api/rules/compliance?from=2025-03-01&to=2025-03-31",
		"/api/journal/days",
		"/api/journal/days/2025-03-17",
		"/api/expenses",
		"/api/expenses/" + expense,
		"/api/expenses/charges",
		"/api/expenses/summary",
		"/api/expenses/export",
		"/api/performance?netOfExpenses=true",
	} {
		apitest.Must(t, c.Do("GET", path, nil), 200)
		if after := written(); after != before {
			t.Fatalf("GET %s wrote to the journal: %s before, %s after", path, before, after)
		}
	}
	p := apitest.Object(t, apitest.Must(t, c.Do("GET", "/api/positions/"+option, nil), 200), "position")
	if p["status"] != "open" || p["awaitingExpiry"] != true {
		t.Fatalf("the expired option as read: %v, awaitingExpiry %v", p["status"], p["awaitingExpiry"])
	}
}
