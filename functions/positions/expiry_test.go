package positions_test

import (
	"maps"
	"testing"

	"tradejournal/shared/apitest"
	"tradejournal/shared/jobs"
)

// TestExpiredOptionsAwaitTheJob: an option held past its expiry day stays
// open at every read of the journal (a position, the list, the statistics,
// the account), which says it awaits expiry; the option-expiry job then
// closes it at 0, for every user at once. An exit at 0 can be typed in
// too, an entry at 0 cannot.
func TestExpiredOptionsAwaitTheJob(t *testing.T) {
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
	if worthless["status"] != "closed" || worthless["netPnl"] != "-40.6500" || worthless["awaitingExpiry"] != false {
		t.Fatalf("an exit typed in at 0: %v %v %v", worthless["status"], worthless["netPnl"], worthless["awaitingExpiry"])
	}

	held := apitest.Object(t, apitest.Must(t, create(f.a, f.account, "AAPL  250321C00200000",
		fill("entry", "3.00", "2", "1.30", "2025-03-17T14:00:00Z")), 201), "position")
	if held["status"] != "open" || held["awaitingExpiry"] != true {
		t.Fatalf("created past its expiry: %v %v", held["status"], held["awaitingExpiry"])
	}
	shares := apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/positions", map[string]any{"accountId": f.account,
		"symbol": "AAPL", "assetType": "stock", "side": "long", "fills": []any{fill("entry", "200", "10", "", "2025-03-17T14:00:00Z")}}), 201), "position")
	bAccount := apitest.Object(t, apitest.Must(t, f.b.Do("POST", "/api/accounts",
		map[string]any{"name": "B", "currency": "USD", "startingBalance": "0"}), 201), "account")["id"].(string)
	other := apitest.Object(t, apitest.Must(t, create(f.b, bAccount, "AAPL  250321C00200000",
		fill("entry", "3.00", "1", "", "2025-03-17T14:00:00Z")), 201), "position")

	// The reads show the journal as it is: open, awaiting expiry.
	before := balance(t, f.a, f.account)
	apitest.Must(t, f.b.Do("GET", "/api/performance", nil), 200)
	got := apitest.Object(t, apitest.Must(t, f.b.Do("GET", "/api/positions/"+other["id"].(string), nil), 200), "position")
	if got["status"] != "open" || got["awaitingExpiry"] != true {
		t.Fatalf("b's own option at b's read: %v %v", got["status"], got["awaitingExpiry"])
	}
	awaiting := map[string]any{}
	for _, item := range apitest.Items(t, apitest.Must(t, f.a.Do("GET", "/api/positions", nil), 200)) {
		p := item.(map[string]any)
		awaiting[p["id"].(string)] = p["awaitingExpiry"]
	}
	if want := map[string]any{held["id"].(string): true, worthless["id"].(string): false, shares["id"].(string): false}; !maps.Equal(awaiting, want) {
		t.Fatalf("the list's awaitingExpiry %v, want %v", awaiting, want)
	}
	if items := apitest.Items(t, apitest.Must(t, f.a.Do("GET", "/api/positions?status=closed", nil), 200)); len(items) != 1 {
		t.Fatalf("%d closed positions before the job", len(items))
	}
	if after := balance(t, f.a, f.account); after != before {
		t.Fatalf("balance moved on a read: %s then %s", before, after)
	}

	// The job closes both users' options in one run.
	rep, err := jobs.Run(t.Context(), jobs.List(f.srv.App, nil), jobs.Event{Jobs: []string{jobs.OptionExpiry}}, f.srv.App.Log)
	if err != nil || len(rep.Jobs) != 1 || rep.Jobs[0].Count != 2 {
		t.Fatalf("option-expiry: %+v (%v)", rep, err)
	}
	got = apitest.Object(t, apitest.Must(t, f.b.Do("GET", "/api/positions/"+other["id"].(string), nil), 200), "position")
	if got["status"] != "closed" || got["awaitingExpiry"] != false {
		t.Fatalf("b's option after the job: %v %v", got["status"], got["awaitingExpiry"])
	}

	// a's list: closed at 16:00 New York on the expiry date, 3.00 x 2 x 100 lost and the entry's fees.
	items := apitest.Items(t, apitest.Must(t, f.a.Do("GET", "/api/positions?status=closed", nil), 200))
	if len(items) != 2 {
		t.Fatalf("%d closed positions", len(items))
	}
	got = apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/positions/"+held["id"].(string), nil), 200), "position")
	fills := got["fills"].([]any)
	last := fills[len(fills)-1].(map[string]any)
	if got["status"] != "closed" || got["closedAt"] != "2025-03-21T20:00:00Z" || got["netPnl"] != "-601.3000" ||
		last["price"] != "0" || last["type"] != "exit" || last["fees"] != "0.0000" || got["awaitingExpiry"] != false {
		t.Fatalf("expired: %v %v %v %v %v", got["status"], got["closedAt"], got["netPnl"], got["awaitingExpiry"], last)
	}
	// The balance moves by the expiry's realised P&L, 600 lost (the fees were booked with the entry).
	if after := balance(t, f.a, f.account); before != "9958.0500" || after != "9358.0500" {
		t.Fatalf("balance %s before the job, %s after", before, after)
	}
	total := apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/performance", nil), 200), "total")
	if s := total["summary"].(map[string]any); s["trades"] != float64(2) || s["netPnl"] != "-641.9500" {
		t.Fatalf("statistics: %v", s)
	}
	checkLedger(t, f.srv)
}
