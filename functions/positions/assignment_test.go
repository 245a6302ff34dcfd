package positions_test

import (
	"testing"

	"tradejournal/shared/apitest"
	"tradejournal/shared/journalstore"
)

// TestAssignment: exercise and assignment close the option at 0 and move
// the shares at the strike through the account's position of the
// underlying; an option the journal expired at 0 can still be marked
// assigned; anything else is refused without a write.
func TestAssignment(t *testing.T) {
	f := setup(t, nil)
	position := func(c *apitest.Client, body map[string]any) map[string]any {
		t.Helper()
		body["accountId"] = f.account
		return apitest.Object(t, apitest.Must(t, c.Do("POST", "/api/positions", body), 201), "position")
	}
	option := func(symbol, side string, fills ...map[string]any) string {
		return position(f.a, map[string]any{"symbol": symbol, "assetType": "option", "side": side, "fills": fills})["id"].(string)
	}
	assign := func(id string, body map[string]any) apitest.Response {
		return f.a.Do("POST", "/api/positions/"+id+"/assignment", body)
	}
	assigned := func(id string, body map[string]any) (option, underlying map[string]any) {
		t.Helper()
		r := apitest.Must(t, assign(id, body), 200)
		return apitest.Object(t, r, "position"), apitest.Object(t, r, "underlying")
	}

	// A covered call: 100 shares bought at 180, one call sold at 2.50 and assigned at 190.
	shares := position(f.a, map[string]any{"symbol": "AAPL", "assetType": "stock", "side": "long",
		"fills": []any{fill("entry", "180", "100", "0", "2025-03-03T15:00:00Z")}})["id"].(string)
	call := option("AAPL  250321C00190000", "short", fill("entry", "2.50", "1", "0.65", "2025-03-04T15:00:00Z"))
	opt, und := assigned(call, map[string]any{})
	// The premium is the option's: 2.50 x 100 less 0.65; the shares made (190 - 180) x 100.
	if opt["status"] != "closed" || opt["netPnl"] != "249.3500" || opt["closedAt"] != "2025-03-21T20:00:00Z" {
		t.Fatalf("the call: %v %v %v", opt["status"], opt["netPnl"], opt["closedAt"])
	}
	if und["id"] != shares || und["status"] != "closed" || und["netPnl"] != "1000.0000" || und["avgExitPrice"] != "190" {
		t.Fatalf("the shares called away: %v", und)
	}

	// A long put exercised early, 1 of 2 contracts: 100 shares sold short at 150 (nothing held).
	put := option("TSLA  270618P00150000", "long", fill("entry", "4.00", "2", "0", "2025-03-05T15:00:00Z"))
	opt, und = assigned(put, map[string]any{"quantity": "1", "filledAt": "2025-03-10T15:00:00Z"})
	if opt["status"] != "open" || opt["openQuantity"] != "1" || und["symbol"] != "TSLA" || und["side"] != "short" ||
		und["openQuantity"] != "100" || und["avgEntryPrice"] != "150" {
		t.Fatalf("the put: %v / %v", opt, und)
	}

	// A short put the option-expiry job closed at 0, though it was assigned: 200 shares bought at 100.
	short := option("MSFT  250321P00100000", "short", fill("entry", "1.20", "2", "0", "2025-03-03T15:00:00Z"))
	if n, err := journalstore.New(f.srv.App.DB, f.srv.App.Keyring, f.srv.App.Now).ExpireDue(t.Context()); err != nil || n != 1 {
		t.Fatalf("the option-expiry job closed %d (%v)", n, err)
	}
	if got := apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/positions/"+short, nil), 200), "position"); got["status"] != "closed" {
		t.Fatalf("not expired by the job: %v", got["status"])
	}
	opt, und = assigned(short, map[string]any{})
	if fills := opt["fills"].([]any); opt["status"] != "closed" || len(fills) != 2 || opt["netPnl"] != "240.0000" {
		t.Fatalf("the expired put: %v", opt)
	}
	if und["symbol"] != "MSFT" || und["side"] != "long" || und["openQuantity"] != "200" || und["avgEntryPrice"] != "100" {
		t.Fatalf("the assigned shares: %v", und)
	}

	// Refusals, with nothing written.
	for name, c := range map[string]struct {
		id     string
		body   map[string]any
		status int
	}{
		"closed option":    {call, map[string]any{}, 409},
		"stock":            {shares, map[string]any{}, 409},
		"too many":         {put, map[string]any{"quantity": "2"}, 400},
		"half a contract":  {put, map[string]any{"quantity": "0.5"}, 400},
		"before the entry": {put, map[string]any{"filledAt": "2025-03-01T15:00:00Z"}, 400},
		"missing":          {missingID, map[string]any{}, 404},
		"not an id":        {"x", map[string]any{}, 404},
	} {
		if r := assign(c.id, c.body); r.Status != c.status {
			t.Errorf("%s: %d %s", name, r.Status, r.Body)
		}
	}
	if r := f.b.Do("POST", "/api/positions/"+put+"/assignment", map[string]any{}); r.Status != 404 {
		t.Errorf("another user's option: %d", r.Status)
	}
	if got := apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/positions/"+put, nil), 200), "position"); got["openQuantity"] != "1" {
		t.Fatalf("a refusal wrote: %v", got["openQuantity"])
	}
	checkLedger(t, f.srv)
}
