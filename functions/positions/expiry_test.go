package positions_test

import (
	"testing"

	"tradejournal/shared/apitest"
)

// TestExpiredOptionsCloseAtTheNextRead: an option held past its expiry day
// is closed at 0 by the next read of the journal (a position, the list, the
// statistics, the account), for its owner only; an exit at 0 can be typed
// in too, an entry at 0 cannot.
func TestExpiredOptionsCloseAtTheNextRead(t *testing.T) {
	f := setup(t, nil)
	create := func(c *apitest.Client, account, symbol string, fills ...map[string]any) apitest.Response {
		return c.Do("POST", "/api/positions", map[string]any{"accountId": account, "symbol": symbol,
			"assetType": "option", "side": "long", "fills": fills})
	}
	r := create(f.a, f.account, "AAPL  250321C00200000", fill("entry", "0", "1", "", "2025-03-17T14:00:00Z"))
	if got := detailFields(t, apitest.Must(t, r, 400)); len(got) != 1 || got[0] != "fills[0].price" {
		t.Fatalf("an entry at 0: %v", got)
	}
	worthless := apitest.Object(t, apitest.Must(t, create(f.a, f.account, "AAPL  250321C00210000",
		fill("entry", "0.40", "1", "0.65", "2025-03-17T14:00:00Z"), fill("exit", "0", "1", "0", "2025-03-20T15:00:00Z")), 201), "position")
	if worthless["status"] != "closed" || worthless["netPnl"] != "-40.6500" {
		t.Fatalf("an exit typed in at 0: %v %v", worthless["status"], worthless["netPnl"])
	}

	held := apitest.Object(t, apitest.Must(t, create(f.a, f.account, "AAPL  250321C00200000",
		fill("entry", "3.00", "2", "1.30", "2025-03-17T14:00:00Z")), 201), "position")
	if held["status"] != "open" {
		t.Fatalf("created: %v", held["status"])
	}
	bAccount := apitest.Object(t, apitest.Must(t, f.b.Do("POST", "/api/accounts",
		map[string]any{"name": "B", "currency": "USD", "startingBalance": "0"}), 201), "account")["id"].(string)
	other := apitest.Object(t, apitest.Must(t, create(f.b, bAccount, "AAPL  250321C00200000",
		fill("entry", "3.00", "1", "", "2025-03-17T14:00:00Z")), 201), "position")

	// b reads their own journal: a's option is not theirs to expire.
	apitest.Must(t, f.b.Do("GET", "/api/performance", nil), 200)
	var status string
	if err := f.srv.App.DB.QueryRow(t.Context(), `SELECT status FROM positions WHERE id = $1`, held["id"]).Scan(&status); err != nil || status != "open" {
		t.Fatalf("another user's read expired a's option: %s %v", status, err)
	}
	got := apitest.Object(t, apitest.Must(t, f.b.Do("GET", "/api/positions/"+other["id"].(string), nil), 200), "position")
	if got["status"] != "closed" {
		t.Fatalf("b's own option after b's read: %v", got["status"])
	}

	// a's list: closed at 16:00 New York on the expiry date, 3.00 x 2 x 100 lost and the entry's fees.
	before := balance(t, f.a, f.account) // the account read settles it first
	items := apitest.Items(t, apitest.Must(t, f.a.Do("GET", "/api/positions?status=closed", nil), 200))
	if len(items) != 2 {
		t.Fatalf("%d closed positions", len(items))
	}
	got = apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/positions/"+held["id"].(string), nil), 200), "position")
	fills := got["fills"].([]any)
	last := fills[len(fills)-1].(map[string]any)
	if got["status"] != "closed" || got["closedAt"] != "2025-03-21T20:00:00Z" || got["netPnl"] != "-601.3000" ||
		last["price"] != "0" || last["type"] != "exit" || last["fees"] != "0.0000" {
		t.Fatalf("expired: %v %v %v %v", got["status"], got["closedAt"], got["netPnl"], last)
	}
	if after := balance(t, f.a, f.account); after != before {
		t.Fatalf("balance moved on a second read: %s then %s", before, after)
	}
	total := apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/performance", nil), 200), "total")
	if s := total["summary"].(map[string]any); s["trades"] != float64(2) || s["netPnl"] != "-641.9500" {
		t.Fatalf("statistics: %v", s)
	}
	checkLedger(t, f.srv)
}
