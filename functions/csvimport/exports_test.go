package csvimport_test

import (
	"testing"

	"tradejournal/shared/apitest"
)

// TestExportForms: the forms of real exports that failed once reach the
// journal: a file wrapped line by line in quotes, a ticker with a leading
// dot, times with UTC+02 and a trailing GMT-04 column.
func TestExportForms(t *testing.T) {
	f := setup(t, nil)
	file := "\"Date,Symbol,Side,Qty,Price\"\n" +
		"\"2025-03-03 09:30:00 UTC+02,.FTG,Buy,100,7.10\"\n" +
		"\"2025-03-03 09:30:00,.FTG,Sell,100,7.35,GMT-04\"\n"
	r := apitest.Must(t, preview(t, f.a, map[string]any{"accountId": f.accountA, "presetId": "generic-execution", "timezone": "UTC"}, []byte(file)), 200)
	if r.JSON["canCommit"] != true || len(errorCodes(r)) != 0 {
		t.Fatalf("preview %s", r.Body)
	}
	imp := apitest.Object(t, apitest.Must(t, commit(f.a, r.JSON["token"], false), 201), "import")
	ids := imp["positionIds"].([]any)
	if len(ids) != 1 {
		t.Fatalf("import %v", imp)
	}
	p := apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/positions/"+ids[0].(string), nil), 200), "position")
	fills := p["fills"].([]any)
	if p["symbol"] != ".FTG" || p["assetType"] != "stock" || p["grossPnl"] != "25.0000" || len(fills) != 2 ||
		fills[0].(map[string]any)["filledAt"] != "2025-03-03T07:30:00Z" || fills[1].(map[string]any)["filledAt"] != "2025-03-03T13:30:00Z" {
		t.Fatalf("position %v", p)
	}
	f.checkLedger(t)
}
