package csvimport_test

import (
	"fmt"
	"slices"
	"testing"

	"tradejournal/shared/apitest"
)

// TestScaledPairs: one scaled trade (scale-ins, scale-outs and a
// reversal) imported from Tradovate's Performance report and from its
// Orders report writes the same positions, fills and P&L to the cent; and
// either report imported after the other adds nothing, its fills all in
// the journal already (brokerfile's TestScaledPairs works the figures out
// by hand).
func TestScaledPairs(t *testing.T) {
	f := setup(t, nil)
	reports := map[string]string{"tradovate-performance": "tradovate_performance_scaled.csv", "tradovate": "tradovate_orders_scaled.csv"}
	written := map[string][]string{}
	accounts := map[string]string{}
	for preset, file := range reports {
		accounts[preset] = apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/accounts", map[string]any{"name": preset, "currency": "USD",
			"startingBalance": "25000", "brokerageId": ibFixed}), 201), "account")["id"].(string)
		r := apitest.Must(t, preview(t, f.a, map[string]any{"accountId": accounts[preset], "presetId": preset}, sample(t, file)), 200)
		if r.JSON["canCommit"] != true || warningCodes(r)["DUPLICATE_IN_FILE"] != 0 || warningCodes(r)["REVERSAL"] != 1 {
			t.Fatalf("%s: %s", preset, r.Body)
		}
		imp := apitest.Object(t, apitest.Must(t, commit(f.a, r.JSON["token"], false), 201), "import")
		for _, id := range imp["positionIds"].([]any) {
			p := apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/positions/"+id.(string), nil), 200), "position")
			line := fmt.Sprint(p["symbol"], p["side"], p["status"], p["openedAt"], p["closedAt"], p["grossPnl"], p["fees"], p["netPnl"],
				p["reversalOf"] != nil, len(p["fills"].([]any)))
			for _, fl := range p["fills"].([]any) {
				fl := fl.(map[string]any)
				line += fmt.Sprint(" ", fl["type"], fl["price"], fl["quantity"], fl["fees"], fl["filledAt"])
			}
			written[preset] = append(written[preset], line)
		}
		slices.Sort(written[preset])
		f.checkLedger(t)
	}
	perf, orders := written["tradovate-performance"], written["tradovate"]
	if len(perf) != 4 || !slices.Equal(perf, orders) {
		t.Fatalf("performance:\n%v\norders:\n%v", perf, orders)
	}
	if !f.balance(t, accounts["tradovate"]).Equal(f.balance(t, accounts["tradovate-performance"])) {
		t.Fatalf("balances %s and %s", f.balance(t, accounts["tradovate"]), f.balance(t, accounts["tradovate-performance"]))
	}
	// Each report again, into the account of the other: nothing new.
	for preset, file := range reports {
		other := accounts["tradovate"]
		if preset == "tradovate" {
			other = accounts["tradovate-performance"]
		}
		r := apitest.Must(t, preview(t, f.a, map[string]any{"accountId": other, "presetId": preset}, sample(t, file)), 200)
		if s := apitest.Object(t, r, "summary"); s["positions"] != float64(0) || s["duplicateFills"] != s["fills"] {
			t.Errorf("%s into the other account: %s", preset, r.Body)
		}
	}
}
