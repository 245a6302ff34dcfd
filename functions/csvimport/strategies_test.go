package csvimport_test

import (
	"slices"
	"strings"
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

// at finds a preview's position by symbol (and side, when not ""): its
// index, the number the commit's strategies use.
func at(t *testing.T, r apitest.Response, symbol, side string) int {
	t.Helper()
	for i, p := range r.JSON["positions"].([]any) {
		p := p.(map[string]any)
		if p["symbol"] == symbol && (side == "" || p["side"] == side) {
			return i
		}
	}
	t.Fatalf("no %s %s in %s", side, symbol, r.Body)
	return -1
}

// groupsOf are an account's strategies as their legs' symbols, sorted.
func groupsOf(t *testing.T, c *apitest.Client, account string) [][]string {
	t.Helper()
	var out [][]string
	for _, s := range apitest.Items(t, apitest.Must(t, c.Do("GET", "/api/strategies", nil), 200)) {
		s := s.(map[string]any)
		if s["accountId"] != account {
			continue
		}
		var legs []string
		for _, l := range s["legs"].([]any) {
			legs = append(legs, l.(map[string]any)["symbol"].(string))
		}
		slices.Sort(legs)
		out = append(out, legs)
	}
	slices.SortFunc(out, func(a, b []string) int { return strings.Compare(strings.Join(a, ","), strings.Join(b, ",")) })
	return out
}

// TestImportChosenStrategies: the commit's strategies replace the
// proposal with the trader's grouping, by the preview's position numbers:
// the condor split in two spreads, the condor and the lone put merged in
// one, none at all.
func TestImportChosenStrategies(t *testing.T) {
	f := setup(t, nil)
	const (
		p95, p90   = "SPY   270618P00095000", "SPY   270618P00090000"
		c105, c110 = "SPY   270618C00105000", "SPY   270618C00110000"
		p80        = "SPY   270618P00080000"
	)
	for _, tc := range []struct {
		name   string
		groups func(r apitest.Response) [][]int
		want   [][]string
	}{
		{"Split", func(r apitest.Response) [][]int {
			return [][]int{{at(t, r, c110, ""), at(t, r, c105, "")}, {at(t, r, p95, ""), at(t, r, p90, "")}}
		}, [][]string{{c105, c110}, {p90, p95}}},
		{"Merge", func(r apitest.Response) [][]int {
			return [][]int{{at(t, r, p80, ""), at(t, r, p95, ""), at(t, r, p90, ""), at(t, r, c105, ""), at(t, r, c110, "")}}
		}, [][]string{{c105, c110, p80, p90, p95}}},
		{"None", func(apitest.Response) [][]int { return [][]int{} }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			account := apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/accounts", map[string]any{"name": tc.name, "currency": "USD"}), 201), "account")["id"].(string)
			r := apitest.Must(t, preview(t, f.a, map[string]any{"accountId": account}, []byte(ironCondorFile)), 200)
			body := map[string]any{"token": r.JSON["token"], "strategies": tc.groups(r), "groupStrategies": true}
			c := apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/csv-import/commit", body), 201), "import")
			if c["strategiesCreated"] != float64(len(tc.want)) || c["positionsCreated"] != float64(5) {
				t.Fatalf("committed %v", c)
			}
			if got := groupsOf(t, f.a, account); !slices.EqualFunc(got, tc.want, slices.Equal) {
				t.Fatalf("strategies %v, want %v", got, tc.want)
			}
		})
	}
	f.checkLedger(t)
}

// refusalsFile opens a put spread on SPY and a QQQ put at one instant,
// AAPL long then reversed short, and adds to an open MSFT position.
const refusalsFile = "Date,Time,Symbol,Side,Quantity,Price,Fees\n" +
	"2025-05-20,10:00:00,SPY   270618P00095000,Sell to Open,1,2.00,1\n" +
	"2025-05-20,10:00:00,SPY   270618P00090000,Buy to Open,1,1.00,1\n" +
	"2025-05-20,10:00:00,QQQ   270618P00400000,Buy to Open,1,3.00,1\n" +
	"2025-05-20,10:05:00,AAPL,Buy,100,180,1\n" +
	"2025-05-20,10:10:00,AAPL,Sell,200,185,1\n" +
	"2025-05-20,10:20:00,MSFT,Buy,10,410,1\n"

// TestImportChosenStrategiesRefused: a grouping that is not two or more
// new positions of one account and underlying, each in one group, is a
// 400 naming the group or leg (strategies[1][0]); nothing is written and
// the preview stays staged for a good one. Futures do not group; a
// position that is no longer new at the commit (the journal changed) is a
// 409; another user's preview is a 404, and no session a 401.
func TestImportChosenStrategiesRefused(t *testing.T) {
	f := setup(t, nil)
	apitest.Must(t, f.a.Do("POST", "/api/positions", map[string]any{"accountId": f.accountA, "symbol": "MSFT", "assetType": "stock",
		"side": "long", "fills": []any{map[string]any{"type": "entry", "price": "400", "quantity": "10", "filledAt": "2025-05-01T14:00:00Z"}}}), 201)
	r := apitest.Must(t, preview(t, f.a, map[string]any{"accountId": f.accountA}, []byte(refusalsFile)), 200)
	token := r.JSON["token"]
	p95, p90, qqq := at(t, r, "SPY   270618P00095000", ""), at(t, r, "SPY   270618P00090000", ""), at(t, r, "QQQ   270618P00400000", "")
	long, short, msft := at(t, r, "AAPL", "long"), at(t, r, "AAPL", "short"), at(t, r, "MSFT", "")
	positions := r.JSON["positions"].([]any)
	n := len(positions)
	// The preview says which position a reversal opens.
	if positions[short].(map[string]any)["reversalOf"] != float64(long) || positions[long].(map[string]any)["reversalOf"] != nil {
		t.Fatalf("reversalOf: %s", r.Body)
	}
	before := f.counts(t)
	refuse := func(c *apitest.Client, groups any, status int, field, says string) {
		t.Helper()
		res := c.Do("POST", "/api/csv-import/commit", map[string]any{"token": token, "strategies": groups})
		apitest.CheckErrorShape(t, res)
		if res.Status != status {
			t.Fatalf("%v: %d %s", groups, res.Status, res.Body)
		}
		if field != "" {
			e := apitest.Object(t, res, "error")
			details, _ := e["details"].([]any)
			if e["code"] != "VALIDATION_ERROR" || len(details) != 1 || details[0].(map[string]any)["field"] != field ||
				!strings.Contains(details[0].(map[string]any)["message"].(string), says) {
				t.Fatalf("%v: %s, want %s %q", groups, res.Body, field, says)
			}
		}
		if after := f.counts(t); after != before {
			t.Fatalf("%v wrote %+v -> %+v", groups, before, after)
		}
	}
	refuse(f.a, [][]int{{p95, n}}, 400, "strategies[0][1]", "not a position of the preview")
	refuse(f.a, [][]int{{p95, -1}}, 400, "strategies[0][1]", "not a position of the preview")
	refuse(f.a, [][]int{{p95, p90}, {p90, long}}, 400, "strategies[1][0]", "in strategies[0][1] already")
	refuse(f.a, [][]int{{p95, p90}, {qqq}}, 400, "strategies[1]", "2 to 24 positions")
	refuse(f.a, [][]int{{long, msft}}, 400, "strategies[0][1]", "continues a position your journal holds")
	refuse(f.a, [][]int{{short, long}}, 400, "strategies[0][0]", "reversal")
	refuse(f.a, [][]int{{p95, p90, qqq}}, 400, "strategies[0][2]", "is on QQQ, not SPY")
	refuse(f.a, []any{nil}, 400, "strategies[0]", "2 to 24 positions")
	refuse(f.a, "two", 400, "", "")
	refuse(f.a, [][]float64{{0.5, 1}}, 400, "", "")
	refuse(f.b, [][]int{{p95, p90}}, 404, "", "")
	refuse(f.srv.Client(t), [][]int{{p95, p90}}, 401, "", "")

	// The preview is still staged: a good grouping commits, those legs only.
	res := f.a.Do("POST", "/api/csv-import/commit", map[string]any{"token": token, "strategies": [][]int{{p90, p95}}})
	if c := apitest.Object(t, apitest.Must(t, res, 201), "import"); c["strategiesCreated"] != float64(1) {
		t.Fatalf("committed %v", c)
	}
	want := [][]string{{"SPY   270618P00090000", "SPY   270618P00095000"}}
	if got := groupsOf(t, f.a, f.accountA); !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("strategies %v", got)
	}
	f.checkLedger(t)
}

// TestImportChosenStrategiesAcrossAccountsAndFutures: legs the file sends
// to two journal accounts, and futures, are not a strategy.
func TestImportChosenStrategiesAcrossAccountsAndFutures(t *testing.T) {
	f := setup(t, nil)
	second := apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/accounts", map[string]any{"name": "Second", "currency": "USD"}), 201), "account")["id"].(string)
	split := map[string]any{"1LD00417": f.accountA, "1LD00988": second, "1LD00555": f.accountA}
	r := apitest.Must(t, preview(t, f.a, map[string]any{"accountId": f.accountA, "presetId": "lightspeed", "accountMap": split},
		[]byte(lightspeedAccounts)), 200)
	before := f.counts(t)
	groups := [][]int{{at(t, r, "TSLA", ""), at(t, r, "NIO", "")}}
	res := apitest.Must(t, f.a.Do("POST", "/api/csv-import/commit", map[string]any{"token": r.JSON["token"], "strategies": groups}), 400)
	if !strings.Contains(string(res.Body), `"field":"strategies[0][1]"`) || !strings.Contains(string(res.Body), "another account") {
		t.Fatalf("%s", res.Body)
	}

	const tradovate = "orderId,B/S,Contract,filledQty,avgPrice,Fill Time,Status,Commission\n" +
		"1, Buy,MYMH4,1,38000,01/24/2024 09:31:02, Filled,1.04\n" +
		"2, Sell,MESH4,1,4800,01/24/2024 09:31:02, Filled,1.04\n"
	if after := f.counts(t); after != before {
		t.Fatalf("refusal wrote %+v -> %+v", before, after)
	}
	r = apitest.Must(t, preview(t, f.a, map[string]any{"accountId": f.accountA, "presetId": "tradovate"}, []byte(tradovate)), 200)
	before = f.counts(t)
	res = apitest.Must(t, f.a.Do("POST", "/api/csv-import/commit", map[string]any{"token": r.JSON["token"], "strategies": [][]int{{0, 1}}}), 400)
	if !strings.Contains(string(res.Body), `"field":"strategies[0][0]"`) || !strings.Contains(string(res.Body), "is a future") {
		t.Fatalf("%s", res.Body)
	}
	if after := f.counts(t); after != before {
		t.Fatalf("refusals wrote %+v -> %+v", before, after)
	}
}

// TestImportChosenStrategiesJournalChanged: a chosen position that is no
// longer new at the commit (a position the trader opened since the
// preview now takes its fill) is a 409, and nothing is written.
func TestImportChosenStrategiesJournalChanged(t *testing.T) {
	f := setup(t, nil)
	file := "Date,Time,Symbol,Side,Quantity,Price,Fees\n" +
		"2025-05-20,10:00:00,AAPL,Buy,100,180,1\n" +
		"2025-05-20,10:00:00,AAPL  270618C00200000,Sell to Open,1,5.00,1\n"
	r := apitest.Must(t, preview(t, f.a, map[string]any{"accountId": f.accountA}, []byte(file)), 200)
	apitest.Must(t, f.a.Do("POST", "/api/positions", map[string]any{"accountId": f.accountA, "symbol": "AAPL", "assetType": "stock",
		"side": "long", "fills": []any{map[string]any{"type": "entry", "price": "170", "quantity": "100", "filledAt": "2025-05-19T14:00:00Z"}}}), 201)
	before := f.counts(t)
	res := f.a.Do("POST", "/api/csv-import/commit", map[string]any{"token": r.JSON["token"], "strategies": [][]int{{0, 1}}})
	if res.Status != 409 || res.ErrorCode() != "CONFLICT" || !strings.Contains(string(res.Body), "preview the file again") {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	if after := f.counts(t); after != before {
		t.Fatalf("a conflict wrote %+v -> %+v", before, after)
	}
	// Without the trader's grouping the same commit goes through.
	apitest.Must(t, commit(f.a, r.JSON["token"], false), 201)
}
