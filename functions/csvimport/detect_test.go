package csvimport_test

import (
	"strings"
	"testing"

	"tradejournal/shared/apitest"
)

// TestDetection: without presetId or mapping the preview reads the file
// with the preset its header matches and names it; a client's presetId
// overrides, and the detected one is still named. Warnings come grouped by
// code with a count.
func TestDetection(t *testing.T) {
	f := setup(t, nil)
	r := apitest.Must(t, preview(t, f.a, map[string]any{"accountId": f.accountA}, sample(t, "tradovate_orders.csv")), 200)
	if r.JSON["detectedPresetId"] != "tradovate" || r.JSON["presetId"] != "tradovate" || r.JSON["canCommit"] != true {
		t.Fatalf("%s", r.Body)
	}
	groups := r.JSON["warningGroups"].([]any)
	total := 0
	for _, g := range groups {
		g := g.(map[string]any)
		total += int(g["count"].(float64))
		if len(g["first"].([]any)) == 0 || len(g["first"].([]any)) > 3 {
			t.Fatalf("group %v", g)
		}
	}
	if total != int(r.JSON["warningCount"].(float64)) || len(groups) == 0 {
		t.Fatalf("groups %v for %v warnings", groups, r.JSON["warningCount"])
	}

	// The override: the generic preset cannot read Tradovate's file.
	r = preview(t, f.a, map[string]any{"accountId": f.accountA, "presetId": "generic-execution"}, sample(t, "tradovate_orders.csv"))
	if r.Status != 200 || r.JSON["presetId"] != "generic-execution" || r.JSON["detectedPresetId"] != "tradovate" || r.JSON["canCommit"] != false {
		t.Fatalf("override: %d %s", r.Status, r.Body)
	}
	r = apitest.Must(t, preview(t, f.a, map[string]any{"accountId": f.accountA, "presetId": "webull"}, sample(t, "webull_orders.csv")), 200)
	if r.JSON["detectedPresetId"] != "webull" || r.JSON["presetId"] != "webull" {
		t.Fatalf("%s", r.Body)
	}
	// A mapping: no preset read with; the detected one is still named.
	r = apitest.Must(t, preview(t, f.a, map[string]any{"accountId": f.accountA, "mapping": map[string]any{"columns": map[string]any{
		"date": "Filled Time", "symbol": "Symbol", "side": "Side", "quantity": "Filled", "price": "Avg Price", "status": "Status"}},
		"dateFormat": "us"}, sample(t, "webull_orders.csv")), 200)
	if r.JSON["detectedPresetId"] != "webull" || r.JSON["presetId"] != nil || r.JSON["canCommit"] != true {
		t.Fatalf("%s", r.Body)
	}
}

// TestUndetected: a file no preset fits, previewed without a preset or a
// mapping, is refused on presetId with the presets it came closest to and
// the columns each lacks, and what to do next.
func TestUndetected(t *testing.T) {
	f := setup(t, nil)
	file := "When,Symbol,Side,Qty,Price\n2025-05-20 09:31,AAPL,Buy,10,100\n"
	r := preview(t, f.a, map[string]any{"accountId": f.accountA}, []byte(file))
	msg := r.DetailMessage("presetId")
	if r.Status != 400 || !strings.Contains(msg, "the closest are Generic: one fill per row (it has no Date column)") ||
		!strings.HasSuffix(msg, "choose the preset of your broker's export, or map the columns yourself") {
		t.Fatalf("%q", msg)
	}
	// A file of no header at all says so.
	r = preview(t, f.a, map[string]any{"accountId": f.accountA}, []byte("1,2,3\n4,5,6\n"))
	if msg := r.DetailMessage("presetId"); r.Status != 400 || !strings.HasPrefix(msg, "no preset recognises this file's first line as a header") {
		t.Fatalf("%d %q", r.Status, msg)
	}
}

// TestFileAccounts: a file of two accounts lists them and is refused
// until fileAccount picks one; each account then imports on its own.
func TestFileAccounts(t *testing.T) {
	f := setup(t, nil)
	file := []byte("Instrument,Action,Quantity,Price,Time,E/X,Commission,Account\n" +
		"MES 03-25,Buy,1,6000,2/3/2025 9:31:05 AM,Entry,$0.62,Sim101\n" +
		"MES 03-25,Sell,1,6004,2/3/2025 9:41:05 AM,Exit,$0.62,Sim101\n" +
		"MES 03-25,Sell,2,6010,2/3/2025 9:45:00 AM,Entry,$1.24,APEX-22\n" +
		"MES 03-25,Buy,2,6001,2/3/2025 9:55:00 AM,Exit,$1.24,APEX-22\n")
	r := apitest.Must(t, preview(t, f.a, map[string]any{"accountId": f.accountA}, file), 200)
	accounts := r.JSON["fileAccounts"].([]any)
	if r.JSON["canCommit"] != false || r.JSON["canImportPartial"] != false || len(accounts) != 2 ||
		accounts[0].(map[string]any)["account"] != "APEX-22" || accounts[0].(map[string]any)["rows"] != 2.0 {
		t.Fatalf("%s", r.Body)
	}
	if codes := errorCodes(r); len(codes) != 1 || codes[0] != "MULTIPLE_ACCOUNTS" {
		t.Fatalf("errors %v", codes)
	}
	for _, a := range []string{"Sim101", "APEX-22"} {
		r = apitest.Must(t, preview(t, f.a, map[string]any{"accountId": f.accountA, "fileAccount": a}, file), 200)
		if r.JSON["canCommit"] != true || r.JSON["summary"].(map[string]any)["skippedRows"] != 2.0 {
			t.Fatalf("%s: %s", a, r.Body)
		}
		apitest.Must(t, commit(f.a, r.JSON["token"], false), 201)
	}
	f.checkLedger(t)
}
