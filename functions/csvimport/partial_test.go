package csvimport_test

import (
	"testing"

	"tradejournal/shared/apitest"
)

// TestPartialImport: a file with rows that cannot be read lists them, and
// stages the rest; the commit writes it only with importPartial (without
// it, a 400 that leaves the preview committable), in one transaction.
func TestPartialImport(t *testing.T) {
	f := setup(t, nil)
	file := "Date,Time,Symbol,Side,Quantity,Price,Fees\n" +
		"2024-01-16,09:31:05,AAPL,Buy,100,184.25,1\n" +
		"2024-01-16,10:02:44,AAPL,Sell,100,185.50,1\n" +
		"2024-01-16,10:05:00,MSFT,Buy,10,abc,1\n" + // unreadable price
		"2024-01-16,10:06:00,MSFT,Sell,10,390,1\n" + // its exit: left out with it
		"2024-13-16,10:07:00,TSLA,Buy,5,200,1\n" // unreadable date
	opts := map[string]any{"accountId": f.accountA, "presetId": "generic-execution"}
	before := f.counts(t)
	r := apitest.Must(t, preview(t, f.a, opts, []byte(file)), 200)
	if r.JSON["canCommit"] != false || r.JSON["canImportPartial"] != true || r.JSON["token"] == nil ||
		r.JSON["partialRowsLeftOut"].(float64) < 2 || len(errorCodes(r)) < 2 {
		t.Fatalf("%s", r.Body)
	}
	positions := r.JSON["positions"].([]any)
	if len(positions) != 1 || positions[0].(map[string]any)["symbol"] != "AAPL" || positions[0].(map[string]any)["netPnl"] != "123.0000" {
		t.Fatalf("positions %v", positions)
	}

	// Without the confirmation: refused, nothing written, still staged.
	c := f.a.Do("POST", "/api/csv-import/commit", map[string]any{"token": r.JSON["token"]})
	if c.Status != 400 || !hasField(c, "importPartial") {
		t.Fatalf("unconfirmed: %d %s", c.Status, c.Body)
	}
	if now := f.counts(t); now.positions != before.positions || now.fills != before.fills || now.staged != before.staged+1 {
		t.Fatalf("counts %+v -> %+v", before, now)
	}
	c = apitest.Must(t, f.a.Do("POST", "/api/csv-import/commit", map[string]any{"token": r.JSON["token"], "importPartial": true}), 201)
	imp := apitest.Object(t, c, "import")
	if imp["positionsCreated"] != 1.0 || imp["fillsCreated"] != 2.0 || imp["rowsLeftOut"].(float64) < 2 {
		t.Fatalf("%s", c.Body)
	}
	if now := f.counts(t); now.positions != before.positions+1 || now.fills != before.fills+2 || now.staged != before.staged {
		t.Fatalf("counts %+v -> %+v", before, now)
	}
	f.checkLedger(t)

	// A file whose every row is bad has nothing to import.
	r = apitest.Must(t, preview(t, f.a, opts, []byte("Date,Time,Symbol,Side,Quantity,Price\n2024-01-16,09:31:05,AAPL,Buy,x,1\n")), 200)
	if r.JSON["canImportPartial"] != false || r.JSON["token"] != nil {
		t.Fatalf("%s", r.Body)
	}
}

// hasField reports a validation error naming field.
func hasField(r apitest.Response, field string) bool {
	e, _ := r.JSON["error"].(map[string]any)
	details, _ := e["details"].([]any)
	return len(details) > 0 && details[0].(map[string]any)["field"] == field
}
