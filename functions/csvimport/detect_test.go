package csvimport_test

import (
	"testing"
)

// TestDetection: without presetId or mapping the preview reads the file
// with the preset its header matches and names it; a client's presetId
// overrides, and the detected one is still named. Warnings come grouped by
// code with a count.
func TestDetection(t *testing.T) {
	f := setup(t, nil)
	r := must(t, preview(t, f.a, map[string]any{"accountId": f.accountA}, sample(t, "tradovate_orders.csv")), 200)
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
	r = must(t, preview(t, f.a, map[string]any{"accountId": f.accountA, "presetId": "webull"}, sample(t, "webull_orders.csv")), 200)
	if r.JSON["detectedPresetId"] != "webull" || r.JSON["presetId"] != "webull" {
		t.Fatalf("%s", r.Body)
	}
	// A mapping: no preset read with; the detected one is still named.
	r = must(t, preview(t, f.a, map[string]any{"accountId": f.accountA, "mapping": map[string]any{"columns": map[string]any{
		"date": "Filled Time", "symbol": "Symbol", "side": "Side", "quantity": "Filled", "price": "Avg Price", "status": "Status"}},
		"dateFormat": "us"}, sample(t, "webull_orders.csv")), 200)
	if r.JSON["detectedPresetId"] != "webull" || r.JSON["presetId"] != nil || r.JSON["canCommit"] != true {
		t.Fatalf("%s", r.Body)
	}
}
