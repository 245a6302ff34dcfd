package positions_test

import (
	"testing"

	"tradejournal/shared/apitest"
)

// position reads a position by id.
func position(t *testing.T, c *apitest.Client, id string) map[string]any {
	t.Helper()
	return apitest.Object(t, apitest.Must(t, c.Do("GET", "/api/positions/"+id, nil), 200), "position")
}

// figures checks fields of a position.
func figures(t *testing.T, name string, p map[string]any, want map[string]any) {
	t.Helper()
	for k, v := range want {
		if p[k] != v {
			t.Errorf("%s: %s = %v, want %v", name, k, p[k], v)
		}
	}
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

// TestReversals: an exit larger than the open quantity closes the position
// at that fill and opens the opposite one with the remainder, fees split by
// quantity, whether the fills come in one request, in several, or by an
// edit or a deletion; the two are one run that every later write derives
// again.
func TestReversals(t *testing.T) {
	f := setup(t, nil)
	a := f.a

	t.Run("OneRequestLongToShortAndBack", func(t *testing.T) {
		r := apitest.Must(t, a.Do("POST", "/api/positions", map[string]any{
			"accountId": f.account, "symbol": "NVDA", "assetType": "stock", "side": "long", "stopLoss": "9",
			"fills": []any{
				fill("entry", "10", "25", "1", "2024-03-01T15:00:00Z"),
				fill("exit", "12", "100", "4", "2024-03-01T15:10:00Z"),   // closes 25 (fees 1), opens a short of 75 (fees 3)
				fill("entry", "11", "75", "0", "2024-03-01T15:20:00Z"),   // a buy: covers the short
				fill("entry", "10.5", "10", "0", "2024-03-01T15:30:00Z"), // a buy with nothing open: long again
			},
		}), 201)
		long, changes := apitest.Object(t, r, "position"), apitest.Object(t, r, "changes")
		opened := list(changes["opened"])
		if len(opened) != 2 || len(list(changes["closed"])) != 2 {
			t.Fatalf("changes %v", changes)
		}
		// 25 x (12 - 10) = 50; fees 1 + 1; R over |10 - 9| x 25.
		figures(t, "long", long, map[string]any{"side": "long", "status": "closed", "entryQuantity": "25", "exitQuantity": "25",
			"grossPnl": "50.0000", "fees": "2.0000", "netPnl": "48.0000", "initialRisk": "25.0000", "rMultiple": "1.9200",
			"closedAt": "2024-03-01T15:10:00Z", "reversalOf": nil})
		exit := list(long["fills"])[1].(map[string]any)
		if exit["quantity"] != "25" || exit["fees"] != "1.0000" || exit["reversal"] != "closing" || exit["tradeQuantity"] != "100" ||
			exit["tradeFees"] != "4.0000" {
			t.Fatalf("closing part %v", exit)
		}
		short := position(t, a, opened[0].(string))
		// 75 x (12 - 11) = 75, fees 3; no stop of its own: no R.
		figures(t, "short", short, map[string]any{"side": "short", "status": "closed", "entryQuantity": "75", "exitQuantity": "75",
			"avgEntryPrice": "12", "grossPnl": "75.0000", "fees": "3.0000", "netPnl": "72.0000", "rMultiple": nil,
			"openedAt": "2024-03-01T15:10:00Z", "reversalOf": long["id"]})
		if e := list(short["fills"])[0].(map[string]any); e["reversal"] != "opening" || e["fees"] != "3.0000" {
			t.Fatalf("opening part %v", e)
		}
		// A stop on the short gives it an R of its own: 72 / (|12 - 13| x 75).
		p := apitest.Object(t, apitest.Must(t, a.Do("PATCH", "/api/positions/"+short["id"].(string), map[string]any{"stopLoss": "13"}), 200), "position")
		figures(t, "short with a stop", p, map[string]any{"initialRisk": "75.0000", "rMultiple": "0.9600"})
		third := position(t, a, opened[1].(string))
		figures(t, "long again", third, map[string]any{"side": "long", "status": "open", "openQuantity": "10", "reversalOf": short["id"]})
		checkLedger(t, f.srv)
	})

	t.Run("AcrossRequestsAndByEdit", func(t *testing.T) {
		p := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/positions", map[string]any{
			"accountId": f.account, "symbol": "AMD", "assetType": "stock", "side": "long",
			"fills": []any{fill("entry", "100", "10", "0", "2024-03-04T15:00:00Z")},
		}), 201), "position")
		id := p["id"].(string)
		r := apitest.Must(t, a.Do("POST", "/api/positions/"+id+"/fills", fill("exit", "101", "30", "3", "2024-03-04T15:05:00Z")), 201)
		short := list(apitest.Object(t, r, "changes")["opened"])[0].(string)
		figures(t, "long", apitest.Object(t, r, "position"), map[string]any{"status": "closed", "grossPnl": "10.0000", "fees": "1.0000"})
		// A buy of 40 on the short covers its 20 and goes long 20 again.
		r = apitest.Must(t, a.Do("POST", "/api/positions/"+short+"/fills", fill("exit", "99", "40", "0", "2024-03-04T15:10:00Z")), 201)
		long2 := list(apitest.Object(t, r, "changes")["opened"])[0].(string)
		figures(t, "short", position(t, a, short), map[string]any{"status": "closed", "grossPnl": "40.0000", "fees": "2.0000"})
		figures(t, "long again", position(t, a, long2), map[string]any{"side": "long", "status": "open", "openQuantity": "20",
			"reversalOf": short})

		// The sale was 15, not 30 (an edit of either part is of the whole
		// trade): it still reverses, into a short of 5 that the buy of 40
		// turns into a long of 35. Its fees of 3 split 2 and 1.
		sale := list(position(t, a, id)["fills"])[1].(map[string]any)["id"].(string)
		r = apitest.Must(t, a.Do("PATCH", "/api/positions/"+id+"/fills/"+sale, map[string]any{"quantity": "15"}), 200)
		if removed := list(apitest.Object(t, r, "changes")["removed"]); len(removed) != 0 {
			t.Fatalf("changes %v", apitest.Object(t, r, "changes"))
		}
		figures(t, "short after the edit", position(t, a, short), map[string]any{"entryQuantity": "5", "grossPnl": "10.0000",
			"fees": "1.0000"})
		figures(t, "long after the edit", position(t, a, long2), map[string]any{"openQuantity": "35"})
		// The sale was 8: no reversal; the buy of 40 adds to the long, and
		// the run's other two positions go.
		r = apitest.Must(t, a.Do("PATCH", "/api/positions/"+id+"/fills/"+sale, map[string]any{"quantity": "8"}), 200)
		if removed := list(apitest.Object(t, r, "changes")["removed"]); len(removed) != 2 {
			t.Fatalf("changes %v", apitest.Object(t, r, "changes"))
		}
		figures(t, "one long", apitest.Object(t, r, "position"), map[string]any{"status": "open", "entryQuantity": "50", "exitQuantity": "8",
			"openQuantity": "42", "fees": "3.0000"})
		apitest.Must(t, a.Do("GET", "/api/positions/"+short, nil), 404)
		checkLedger(t, f.srv)
	})

	t.Run("ByDelete", func(t *testing.T) {
		r := apitest.Must(t, a.Do("POST", "/api/positions", map[string]any{
			"accountId": f.account, "symbol": "TSLA", "assetType": "stock", "side": "short",
			"fills": []any{
				fill("entry", "200", "10", "0", "2024-03-05T15:00:00Z"),
				fill("exit", "190", "10", "0", "2024-03-05T15:05:00Z"),
				fill("entry", "195", "5", "0", "2024-03-05T15:10:00Z"), // reopens the short
				fill("exit", "180", "20", "2", "2024-03-05T15:15:00Z"), // covers 5, goes long 15
			},
		}), 201)
		id := apitest.Object(t, r, "position")["id"].(string)
		long := list(apitest.Object(t, r, "changes")["opened"])[0].(string)
		figures(t, "short", apitest.Object(t, r, "position"), map[string]any{"status": "closed", "grossPnl": "175.0000", "fees": "0.5000"})
		// Deleting the short's re-entry leaves the buy of 20 against nothing
		// open after the close: it opens the long with all 20.
		entry := list(position(t, a, id)["fills"])[2].(map[string]any)["id"].(string)
		r = apitest.Must(t, a.Do("DELETE", "/api/positions/"+id+"/fills/"+entry, nil), 200)
		figures(t, "short", apitest.Object(t, r, "position"), map[string]any{"status": "closed", "grossPnl": "100.0000", "fees": "0.0000",
			"closedAt": "2024-03-05T15:05:00Z"})
		figures(t, "long", position(t, a, long), map[string]any{"entryQuantity": "20", "fees": "2.0000", "status": "open"})
		// Deleting the long's only fill (the whole trade) removes it.
		buy := list(position(t, a, long)["fills"])[0].(map[string]any)["id"].(string)
		r = apitest.Must(t, a.Do("DELETE", "/api/positions/"+long+"/fills/"+buy, nil), 200)
		if removed := list(apitest.Object(t, r, "changes")["removed"]); len(removed) != 1 || removed[0] != long {
			t.Fatalf("changes %v", apitest.Object(t, r, "changes"))
		}
		checkLedger(t, f.srv)
	})

	t.Run("FeesSplitByQuantity", func(t *testing.T) {
		r := apitest.Must(t, a.Do("POST", "/api/positions", map[string]any{
			"accountId": f.account, "symbol": "F", "assetType": "stock", "side": "long",
			"fills": []any{fill("entry", "10", "1", "0", "2024-03-06T15:00:00Z"), fill("exit", "11", "3", "1", "2024-03-06T15:01:00Z")},
		}), 201)
		figures(t, "long", apitest.Object(t, r, "position"), map[string]any{"fees": "0.3333"})
		figures(t, "short", position(t, a, list(apitest.Object(t, r, "changes")["opened"])[0].(string)), map[string]any{"fees": "0.6667"})
	})
}
