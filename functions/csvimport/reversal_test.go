package csvimport_test

import (
	"testing"

	"tradejournal/shared/apitest"
)

// TestImportReversals: a file that sells more than it holds closes the
// long and opens a short, as manual entry does (one reversal no longer
// blocks the file); the preview says so; a file continuing an open position
// of the journal reverses it too; and an edit after the import derives the
// run again.
func TestImportReversals(t *testing.T) {
	f := setup(t, nil)
	file := "Date,Time,Symbol,Side,Quantity,Price,Fees\n" +
		"2025-05-20,09:31:05,AAPL,Buy,25,100,1\n" +
		"2025-05-20,09:40:00,AAPL,Sell,100,102,4\n" + // closes 25 (fees 1), opens a short of 75 (fees 3)
		"2025-05-20,09:50:00,AAPL,Buy,75,101,0\n" +
		"2025-05-21,10:00:00,MSFT,Buy,10,400,0\n"
	r := apitest.Must(t, preview(t, f.a, map[string]any{"accountId": f.accountA, "presetId": "generic-execution"}, []byte(file)), 200)
	if r.JSON["canCommit"] != true || apitest.Object(t, r, "summary")["reversals"] != float64(1) || apitest.Object(t, r, "summary")["newPositions"] != float64(3) {
		t.Fatalf("%s", r.Body)
	}
	warned := false
	for _, w := range r.JSON["warnings"].([]any) {
		if w.(map[string]any)["code"] == "REVERSAL" && w.(map[string]any)["row"] == float64(3) {
			warned = true
		}
	}
	if !warned {
		t.Fatalf("no reversal warning: %s", r.Body)
	}
	ids := apitest.Object(t, apitest.Must(t, commit(f.a, r.JSON["token"], false), 201), "import")["positionIds"].([]any)
	if len(ids) != 3 {
		t.Fatalf("positions %v", ids)
	}
	byPos := map[string]map[string]any{}
	for _, id := range ids {
		p := apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/positions/"+id.(string), nil), 200), "position")
		byPos[p["symbol"].(string)+" "+p["side"].(string)] = p
	}
	long, short := byPos["AAPL long"], byPos["AAPL short"]
	if long["grossPnl"] != "50.0000" || long["fees"] != "2.0000" || long["status"] != "closed" ||
		short["grossPnl"] != "75.0000" || short["fees"] != "3.0000" || short["status"] != "closed" || short["reversalOf"] != long["id"] {
		t.Fatalf("long %v\nshort %v", long, short)
	}
	f.checkLedger(t)

	// The sale was of 20: no reversal; the buy of 75 adds to the long.
	sale := long["fills"].([]any)[1].(map[string]any)["id"].(string)
	r = apitest.Must(t, f.a.Do("PATCH", "/api/positions/"+long["id"].(string)+"/fills/"+sale, map[string]any{"quantity": "20"}), 200)
	if p := apitest.Object(t, r, "position"); p["status"] != "open" || p["openQuantity"] != "80" ||
		len(apitest.Object(t, r, "changes")["removed"].([]any)) != 1 {
		t.Fatalf("%s", r.Body)
	}
	f.checkLedger(t)

	// A file that continues the open long of 80 and sells 100 reverses it.
	more := "Date,Time,Symbol,Side,Quantity,Price,Fees\n2025-05-22,10:00:00,AAPL,Sell,100,105,0\n"
	r = apitest.Must(t, preview(t, f.a, map[string]any{"accountId": f.accountA, "presetId": "generic-execution"}, []byte(more)), 200)
	done := apitest.Object(t, apitest.Must(t, commit(f.a, r.JSON["token"], false), 201), "import")
	if len(done["continuedPositionIds"].([]any)) != 1 || len(done["positionIds"].([]any)) != 1 {
		t.Fatalf("%v", done)
	}
	p := apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/positions/"+done["positionIds"].([]any)[0].(string), nil), 200), "position")
	if p["side"] != "short" || p["openQuantity"] != "20" || p["reversalOf"] != long["id"] {
		t.Fatalf("%v", p)
	}
	f.checkLedger(t)
}

// TestReimportWithReversal: a file whose sale reversed a position, imported
// again, adds nothing (the reversal's fill is stored in two parts, and each
// is the broker's one row); a file overlapping it adds only its new rows,
// which continue the reversal's open short.
func TestReimportWithReversal(t *testing.T) {
	f := setup(t, nil)
	opts := map[string]any{"accountId": f.accountA, "presetId": "generic-execution"}
	const header = "Date,Time,Symbol,Side,Quantity,Price,Fees\n"
	const buy, reversal = "2025-05-20,09:31:05,AAPL,Buy,25,100,1\n", "2025-05-20,09:40:00,AAPL,Sell,100,102,4\n"
	first := header + buy + reversal // closes the long of 25, opens a short of 75
	apitest.Must(t, commit(f.a, apitest.Must(t, preview(t, f.a, opts, []byte(first)), 200).JSON["token"], false), 201)
	before := f.counts(t)

	r := apitest.Must(t, preview(t, f.a, opts, []byte(first)), 200)
	s := apitest.Object(t, r, "summary")
	if s["duplicateFills"] != float64(2) || s["positions"] != float64(0) || warningCodes(r)["DUPLICATE_IN_JOURNAL"] != 2 || warningCodes(r)["REVERSAL"] != 0 {
		t.Fatalf("the same file again: %s", r.Body)
	}
	imp := apitest.Object(t, apitest.Must(t, commit(f.a, r.JSON["token"], false), 201), "import")
	if imp["fillsCreated"] != float64(0) || imp["duplicatesSkipped"] != float64(2) || f.counts(t) != before {
		t.Fatalf("the same file again wrote %v: %+v -> %+v", imp, before, f.counts(t))
	}

	// The reversal's row again, then the buy that covers the short and a
	// new MSFT position.
	overlap := header + reversal + "2025-05-20,09:50:00,AAPL,Buy,75,101,0\n" + "2025-05-21,10:00:00,MSFT,Buy,10,400,0\n"
	r = apitest.Must(t, preview(t, f.a, opts, []byte(overlap)), 200)
	s = apitest.Object(t, r, "summary")
	if s["duplicateFills"] != float64(1) || s["newPositions"] != float64(1) || s["reversals"] != float64(0) {
		t.Fatalf("an overlapping file: %s", r.Body)
	}
	imp = apitest.Object(t, apitest.Must(t, commit(f.a, r.JSON["token"], false), 201), "import")
	if imp["fillsCreated"] != float64(2) || imp["positionsCreated"] != float64(1) || imp["positionsContinued"] != float64(1) {
		t.Fatalf("an overlapping file wrote %v", imp)
	}
	short := apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/positions/"+imp["continuedPositionIds"].([]any)[0].(string), nil), 200), "position")
	if short["side"] != "short" || short["status"] != "closed" || short["grossPnl"] != "75.0000" || len(short["fills"].([]any)) != 2 {
		t.Fatalf("the short: %v", short)
	}
	f.checkLedger(t)
}
