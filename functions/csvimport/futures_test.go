package csvimport_test

import (
	"slices"
	"testing"

	"tradejournal/shared/apitest"
	"tradejournal/shared/brokerfile"
)

// TestFuturesImport: a Tradovate file leaves an MYM future (point value
// 0.5) open, a second file closes it (the fill joins the open position,
// read from the journal with its decimal multiplier), the committed figures
// are what journal.Recompute makes of them, and a root without a point
// value is a located error that stages nothing.
func TestFuturesImport(t *testing.T) {
	f := setup(t, nil)
	tradovate := map[string]any{"accountId": f.accountA, "presetId": "tradovate"}
	const head = "orderId,B/S,Contract,filledQty,avgPrice,Fill Time,Status,Commission\n"
	first := head + "1, Buy,MYMH4,2,38000,01/24/2024 09:31:02, Filled,1.04\n"
	r := apitest.Must(t, preview(t, f.a, tradovate, []byte(first)), 200)
	imp := apitest.Object(t, apitest.Must(t, commit(f.a, r.JSON["token"], false), 201), "import")
	id := imp["positionIds"].([]any)[0].(string)
	open := apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/positions/"+id, nil), 200), "position")
	if open["symbol"] != "MYMH24" || open["assetType"] != "future" || open["multiplier"] != 0.5 || open["status"] != "open" ||
		open["contractMonth"] != "2024-03" {
		t.Fatalf("opened %v", open)
	}

	// 10 points x 2 x 0.5 = 10, less 1.04 x 2 in fees.
	second := head + "2, Sell,MYMH4,2,38010,01/24/2024 10:02:44, Filled,1.04\n"
	r = apitest.Must(t, preview(t, f.a, tradovate, []byte(second)), 200)
	pos := r.JSON["positions"].([]any)[0].(map[string]any)
	if pos["existingPositionId"] != id || pos["status"] != "closed" || pos["grossPnl"] != "10.0000" || pos["netPnl"] != "7.9200" {
		t.Fatalf("%s", r.Body)
	}
	apitest.Must(t, commit(f.a, r.JSON["token"], false), 201)
	closed := apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/positions/"+id, nil), 200), "position")
	if closed["status"] != "closed" || closed["netPnl"] != "7.9200" || len(closed["fills"].([]any)) != 2 {
		t.Fatalf("closed %v", closed)
	}
	f.checkLedger(t)

	before := f.counts(t)
	r = apitest.Must(t, preview(t, f.a, tradovate, []byte(head+"3, Buy,XYZH4,1,100,01/24/2024 11:00:00, Filled,1\n")), 200)
	if r.JSON["canCommit"] != false || r.JSON["token"] != nil || !slices.Contains(errorCodes(r), brokerfile.CodeUnknownPointValue) {
		t.Fatalf("unknown root %s", r.Body)
	}
	if f.counts(t) != before {
		t.Fatal("a refused preview wrote something")
	}
}
