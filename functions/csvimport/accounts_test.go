package csvimport_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"tradejournal/shared/apitest"
)

// lightspeedAccounts is a Lightspeed blotter of three accounts: AMD in
// 1LD00417, NIO (short) in 1LD00988, and a TSLA fill in 1LD00555.
const lightspeedAccounts = `Account,Trade Date,Settlement Date,Currency,Security Type,Side,Symbol,CUSIP,Qty,Price,Execution Time,Commission Amount,FeeSEC,FeeTAF,FeeMF,FeeStamp,Fee1,Fee2,Fee3,Fee4,Principal Amount,NET Amount,Trade Number,Sequence Number
1LD00417,03/04/2025,03/05/2025,USD,Equity,B,AMD,007903107,200,101.15,09:32:07,1.00,0.00,0.00,0.00,0.00,0.00,0.00,0.00,0.00,-20230.00,-20231.00,5512,1
1LD00988,03/04/2025,03/05/2025,USD,Equity,S,NIO,62914V106,-1000,4.52,11:10:00,1.00,0.00,0.00,0.00,0.00,0.00,0.00,0.00,0.00,4520.00,4519.00,5571,3
1LD00417,03/04/2025,03/05/2025,USD,Equity,S,AMD,007903107,-200,101.90,10:05:44,1.00,0.00,0.00,0.00,0.00,0.00,0.00,0.00,0.00,20380.00,20379.00,5540,2
1LD00555,03/04/2025,03/05/2025,USD,Equity,B,TSLA,88160R101,10,240.00,12:00:00,1.00,0.00,0.00,0.00,0.00,0.00,0.00,0.00,0.00,-2400.00,-2401.00,5601,5
1LD00988,03/04/2025,03/05/2025,USD,Equity,B,NIO,62914V106,1000,4.47,11:48:31,1.00,0.00,0.00,0.00,0.00,0.00,0.00,0.00,0.00,-4470.00,-4471.00,5602,4
`

// TestSplitAcrossAccounts: a file of several accounts goes, in one commit,
// to the journal accounts the user maps its accounts to (one skipped);
// each account gets its positions and its balance moves by their P&L. An
// account of another user, one in another currency, or a file account
// left out of the map are refused before anything is staged; an account
// gone between the preview and the commit rolls back every part.
func TestSplitAcrossAccounts(t *testing.T) {
	f := setup(t, nil)
	second := apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/accounts", map[string]any{"name": "Second", "currency": "USD",
		"startingBalance": "10000"}), 201), "account")["id"].(string)
	euro := apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/accounts", map[string]any{"name": "Euro", "currency": "EUR"}), 201), "account")["id"].(string)
	file := []byte(lightspeedAccounts)
	split := map[string]any{"1LD00417": f.accountA, "1LD00988": second, "1LD00555": ""}

	// Refused whole, naming the file's account: another user's account,
	// and an account in another currency; nothing is staged.
	before := f.counts(t)
	for _, tc := range []struct {
		target any
		says   string
	}{{f.accountB, "one of your accounts"}, {"not-an-id", "one of your accounts"}, {euro, "EUR"}} {
		m := map[string]any{"1LD00417": f.accountA, "1LD00988": tc.target, "1LD00555": ""}
		r := apitest.Must(t, preview(t, f.a, map[string]any{"accountId": f.accountA, "presetId": "lightspeed", "accountMap": m}, file), 400)
		if !strings.Contains(string(r.Body), `"field":"accountMap.1LD00988"`) || !strings.Contains(string(r.Body), tc.says) {
			t.Fatalf("%v: %s", tc.target, r.Body)
		}
	}
	// A file account the map does not name: the preview says which.
	r := apitest.Must(t, preview(t, f.a, map[string]any{"accountId": f.accountA, "presetId": "lightspeed",
		"accountMap": map[string]any{"1LD00417": f.accountA}}, file), 200)
	if r.JSON["canCommit"] != false || !slices.Equal(errorCodes(r), []string{"MULTIPLE_ACCOUNTS"}) ||
		!strings.Contains(string(r.Body), "1LD00555, 1LD00988") {
		t.Fatalf("unmapped: %s", r.Body)
	}
	if after := f.counts(t); after != before {
		t.Fatalf("refused previews wrote %+v -> %+v", before, after)
	}

	// The split: the preview lists the file's accounts and each position's
	// journal account; the TSLA row is skipped.
	r = apitest.Must(t, preview(t, f.a, map[string]any{"accountId": f.accountA, "presetId": "lightspeed", "accountMap": split}, file), 200)
	if r.JSON["canCommit"] != true || len(r.JSON["fileAccounts"].([]any)) != 3 {
		t.Fatalf("preview %s", r.Body)
	}
	sum := apitest.Object(t, r, "summary")
	// AMD 0.75 x 200 less 2; NIO short 0.05 x 1000 less 2.
	if sum["positions"] != float64(2) || sum["skippedRows"] != float64(1) || sum["netPnl"] != "196.0000" {
		t.Fatalf("summary %v", sum)
	}
	at := map[string]string{}
	for _, p := range r.JSON["positions"].([]any) {
		p := p.(map[string]any)
		at[p["symbol"].(string)] = p["accountId"].(string)
	}
	if at["AMD"] != f.accountA || at["NIO"] != second || len(at) != 2 {
		t.Fatalf("positions' accounts %v", at)
	}
	balanceA, balance2 := f.balance(t, f.accountA), f.balance(t, second)
	c := apitest.Object(t, apitest.Must(t, commit(f.a, r.JSON["token"], false), 201), "import")
	if c["positionsCreated"] != float64(2) || c["fillsCreated"] != float64(4) || len(c["accounts"].([]any)) != 2 {
		t.Fatalf("commit %v", c)
	}
	for _, tc := range []struct {
		account, symbol, net string
		balance              decimal.Decimal
	}{{f.accountA, "AMD", "148.0000", balanceA}, {second, "NIO", "48.0000", balance2}} {
		list := apitest.Items(t, apitest.Must(t, f.a.Do("GET", "/api/positions?accountId="+tc.account, nil), 200))
		if len(list) != 1 || list[0].(map[string]any)["symbol"] != tc.symbol || list[0].(map[string]any)["netPnl"] != tc.net {
			t.Fatalf("account %s: %v", tc.symbol, list)
		}
		if got := f.balance(t, tc.account); !got.Equal(tc.balance.Add(decimal.RequireFromString(tc.net))) {
			t.Fatalf("%s balance %s from %s", tc.symbol, got, tc.balance)
		}
		// The account's statistics count its trade, and only it.
		total := apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/performance?accountId="+tc.account, nil), 200), "total")
		if sum := total["summary"].(map[string]any); sum["netPnl"] != tc.net {
			t.Fatalf("%s statistics %v", tc.symbol, sum)
		}
	}
	f.checkLedger(t)

	// An account deleted between the preview and the commit: nothing is
	// written to the other one either.
	third := apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/accounts", map[string]any{"name": "Third", "currency": "USD"}), 201), "account")["id"].(string)
	fourth := apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/accounts", map[string]any{"name": "Fourth", "currency": "USD"}), 201), "account")["id"].(string)
	r = apitest.Must(t, preview(t, f.a, map[string]any{"accountId": third, "presetId": "lightspeed",
		"accountMap": map[string]any{"1LD00417": third, "1LD00988": fourth, "1LD00555": ""}}, file), 200)
	apitest.Must(t, f.a.Do("DELETE", "/api/accounts/"+fourth, nil), 204)
	before = f.counts(t)
	apitest.Must(t, commit(f.a, r.JSON["token"], false), 409)
	if after := f.counts(t); after.positions != before.positions || after.fills != before.fills || after.ledger != before.ledger {
		t.Fatalf("a failed commit wrote %+v -> %+v", before, after)
	}
}

// TestSplitPartial: a row that cannot be read in one account's part
// leaves out that instrument's rows of that part only; the commit, once
// confirmed, writes the other account whole.
func TestSplitPartial(t *testing.T) {
	f := setup(t, nil)
	second := apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/accounts", map[string]any{"name": "Second", "currency": "USD"}), 201), "account")["id"].(string)
	// The NIO exit's price is unreadable: NIO (2 rows) is left out of
	// 1LD00988's part; AMD goes to the main account, and the TSLA row of
	// 1LD00555 to the second with what is left of 1LD00988.
	file := strings.Replace(lightspeedAccounts, "1000,4.47,", "1000,four,", 1)
	r := apitest.Must(t, preview(t, f.a, map[string]any{"accountId": f.accountA, "presetId": "lightspeed",
		"accountMap": map[string]any{"1LD00417": f.accountA, "1LD00988": second, "1LD00555": second}}, []byte(file)), 200)
	if r.JSON["canCommit"] != false || r.JSON["canImportPartial"] != true || r.JSON["partialRowsLeftOut"] != float64(2) ||
		!slices.Equal(errorCodes(r), []string{"INVALID_NUMBER"}) {
		t.Fatalf("preview %s", r.Body)
	}
	if e := r.JSON["errors"].([]any)[0].(map[string]any); e["account"] != "1LD00988" {
		t.Fatalf("the error's account: %v", e)
	}
	c := apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/csv-import/commit", map[string]any{"token": r.JSON["token"], "importPartial": true}), 201), "import")
	// AMD to the main account; the TSLA buy (open) to the second.
	if c["positionsCreated"] != float64(2) || c["rowsLeftOut"] != float64(2) {
		t.Fatalf("commit %v", c)
	}
	for account, want := range map[string]string{f.accountA: "AMD", second: "TSLA"} {
		list := apitest.Items(t, apitest.Must(t, f.a.Do("GET", "/api/positions?accountId="+account, nil), 200))
		if len(list) != 1 || list[0].(map[string]any)["symbol"] != want {
			t.Fatalf("%s: %v", want, list)
		}
	}
}

// TestDetectedDateless: a DAS Trader log uploaded without a preset is
// detected; the preview then asks for its trading day (400 on tradeDate),
// and with the day reads it.
func TestDetectedDateless(t *testing.T) {
	f := setup(t, nil)
	r := apitest.Must(t, preview(t, f.a, map[string]any{"accountId": f.accountA}, sample(t, "das_trades.csv")), 400)
	if !hasField(r, "tradeDate") {
		t.Fatalf("%s", r.Body)
	}
	r = apitest.Must(t, preview(t, f.a, map[string]any{"accountId": f.accountA, "tradeDate": "2025-03-04"}, sample(t, "das_trades.csv")), 200)
	if r.JSON["detectedPresetId"] != "das-trader" || r.JSON["canCommit"] != true || apitest.Object(t, r, "summary")["netPnl"] != "179.5000" {
		t.Fatalf("%s", r.Body)
	}
	// The day where the file has dates is refused, naming it.
	r = apitest.Must(t, preview(t, f.a, map[string]any{"accountId": f.accountA, "presetId": "tradovate", "tradeDate": "2025-03-04"}, sample(t, "tradovate_orders.csv")), 400)
	if !hasField(r, "tradeDate") {
		t.Fatalf("%s", r.Body)
	}
}
