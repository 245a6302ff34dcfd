package csvimport_test

import (
	"testing"

	"tradejournal/shared/apitest"
)

// ironCondorFile is a tastytrade transactions export of an iron condor
// opened by one order (four legs at one instant) and a lone put bought a
// minute later.
const ironCondorFile = `Date,Type,Sub Type,Action,Symbol,Instrument Type,Description,Value,Quantity,Average Price,Commissions,Fees,Multiplier,Root Symbol,Underlying Symbol,Expiration Date,Strike Price,Call or Put,Order #,Currency
2025-05-01T10:15:00-0400,Trade,Sell to Open,SELL_TO_OPEN,SPY   270618P00095000,Equity Option,Sold 1 SPY 06/18/27 Put 95.00 @ 2.00,200.00,1,200.00,-1.00,-0.14,100,SPY,SPY,6/18/27,95,PUT,4001,USD
2025-05-01T10:15:00-0400,Trade,Buy to Open,BUY_TO_OPEN,SPY   270618P00090000,Equity Option,Bought 1 SPY 06/18/27 Put 90.00 @ 1.00,-100.00,1,-100.00,-1.00,-0.14,100,SPY,SPY,6/18/27,90,PUT,4001,USD
2025-05-01T10:15:00-0400,Trade,Sell to Open,SELL_TO_OPEN,SPY   270618C00105000,Equity Option,Sold 1 SPY 06/18/27 Call 105.00 @ 2.00,200.00,1,200.00,-1.00,-0.14,100,SPY,SPY,6/18/27,105,CALL,4001,USD
2025-05-01T10:15:00-0400,Trade,Buy to Open,BUY_TO_OPEN,SPY   270618C00110000,Equity Option,Bought 1 SPY 06/18/27 Call 110.00 @ 1.00,-100.00,1,-100.00,-1.00,-0.14,100,SPY,SPY,6/18/27,110,CALL,4001,USD
2025-05-01T10:16:00-0400,Trade,Buy to Open,BUY_TO_OPEN,SPY   270618P00080000,Equity Option,Bought 1 SPY 06/18/27 Put 80.00 @ 0.50,-50.00,1,-50.00,-1.00,-0.14,100,SPY,SPY,6/18/27,80,PUT,4002,USD
`

// TestImportGroupsStrategies: legs a file opened together are proposed as
// one strategy in the preview and made one by the commit, unless asked
// not to; a leg opened apart stays a position of its own.
func TestImportGroupsStrategies(t *testing.T) {
	f := setup(t, nil)
	r := apitest.Must(t, preview(t, f.a, map[string]any{"accountId": f.accountA}, []byte(ironCondorFile)), 200)
	groups := r.JSON["strategies"].([]any)
	if len(groups) != 1 {
		t.Fatalf("proposed %v", groups)
	}
	g := groups[0].(map[string]any)
	if legs := g["positions"].([]any); len(legs) != 4 || g["label"] != "Short iron condor" {
		t.Fatalf("proposed %v", g)
	}
	c := apitest.Object(t, apitest.Must(t, commit(f.a, r.JSON["token"], false), 201), "import")
	if c["strategiesCreated"] != float64(1) || c["positionsCreated"] != float64(5) {
		t.Fatalf("committed %v", c)
	}
	items := apitest.Items(t, apitest.Must(t, f.a.Do("GET", "/api/strategies", nil), 200))
	st := items[0].(map[string]any)
	// A credit of 2 x 2.00 - 2 x 1.00 = 2.00 a share: 200 at most, 500 - 200 at worst.
	if len(items) != 1 || st["kind"] != "iron-condor" || len(st["legs"].([]any)) != 4 || st["maxProfit"] != "200.0000" || st["maxLoss"] != "300.0000" {
		t.Fatalf("strategies %v", items)
	}

	// Another user, the same file, asked not to group.
	bAccount := apitest.Object(t, apitest.Must(t, f.b.Do("POST", "/api/accounts", map[string]any{"name": "C", "currency": "USD"}), 201), "account")["id"].(string)
	r = apitest.Must(t, preview(t, f.b, map[string]any{"accountId": bAccount}, []byte(ironCondorFile)), 200)
	r = f.b.Do("POST", "/api/csv-import/commit", map[string]any{"token": r.JSON["token"], "groupStrategies": false})
	if c := apitest.Object(t, apitest.Must(t, r, 201), "import"); c["strategiesCreated"] != float64(0) {
		t.Fatalf("grouped though asked not to: %v", c)
	}
	if items := apitest.Items(t, apitest.Must(t, f.b.Do("GET", "/api/strategies", nil), 200)); len(items) != 0 {
		t.Fatalf("b's strategies: %v", items)
	}
}
