package csvimport_test

import (
	"slices"
	"testing"

	"tradejournal/shared/apitest"
)

// TestImportGroupsByOrderID: brokers' files that name each fill's order
// are grouped by it, in the preview and the commit alike: one order's legs
// filled a second apart are one strategy, and two orders on one underlying
// filled in the same second are not (grouped by the instant, the wrong
// pair would be).
func TestImportGroupsByOrderID(t *testing.T) {
	f := setup(t, nil)
	cases := []struct {
		file      string
		positions int
		// each strategy's kind and its legs' symbols, in the order listed
		// (newest first)
		strategies map[string][]string
	}{
		{file: "ibkr_flex_trades_multileg.csv", positions: 5, strategies: map[string][]string{
			"vertical": {"SPY   270115C00600000", "SPY   270115C00620000"}}},
		{file: "tastytrade_transactions_multileg.csv", positions: 4, strategies: map[string][]string{
			"vertical": {"IWM   270115P00180000", "IWM   270115P00190000"}}},
		{file: "thinkorswim_statement_multileg.csv", positions: 8, strategies: map[string][]string{
			"vertical":    {"SPY   270115C00600000", "SPY   270115C00620000"},
			"iron-condor": {"QQQ   270115C00580000", "QQQ   270115C00600000", "QQQ   270115P00400000", "QQQ   270115P00420000"}}},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			account := apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/accounts", map[string]any{"name": tc.file, "currency": "USD"}), 201), "account")["id"].(string)
			r := apitest.Must(t, preview(t, f.a, map[string]any{"accountId": account}, sample(t, tc.file)), 200)
			if proposed := r.JSON["strategies"].([]any); len(proposed) != len(tc.strategies) {
				t.Fatalf("proposed %v", proposed)
			}
			c := apitest.Object(t, apitest.Must(t, commit(f.a, r.JSON["token"], false), 201), "import")
			if c["strategiesCreated"] != float64(len(tc.strategies)) || c["positionsCreated"] != float64(tc.positions) {
				t.Fatalf("committed %v", c)
			}
			got := map[string][]string{}
			for _, it := range apitest.Items(t, apitest.Must(t, f.a.Do("GET", "/api/strategies", nil), 200)) {
				st := it.(map[string]any)
				if st["accountId"] != account {
					continue
				}
				var legs []string
				for _, l := range st["legs"].([]any) {
					legs = append(legs, l.(map[string]any)["symbol"].(string))
				}
				slices.Sort(legs)
				kind, _ := st["kind"].(string)
				got[kind] = legs
			}
			if len(got) != len(tc.strategies) {
				t.Fatalf("strategies %v, want %v", got, tc.strategies)
			}
			for kind, legs := range tc.strategies {
				if !slices.Equal(got[kind], legs) {
					t.Errorf("%s: legs %q, want %q", kind, got[kind], legs)
				}
			}
		})
	}
}
