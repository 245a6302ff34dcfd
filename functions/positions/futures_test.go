package positions_test

import (
	"fmt"
	"slices"
	"testing"

	"tradejournal/shared/apitest"
)

// TestFuturesPositions: a future is created, read, listed and patched
// through the API with its contract's point value as multiplier; P&L,
// initial risk, fees (the schedule's options per-contract fields), the
// ledger and the performance report count it like any position.
func TestFuturesPositions(t *testing.T) {
	f := setup(t, map[string]any{"name": "Futures", "currency": "USD", "startingBalance": "10000", "brokerageId": ibFixed})
	at := func(minute int) string { return fmt.Sprintf("2024-01-24T14:%02d:00Z", minute) }

	// ES, one-digit year read from the first fill: 4.5 points x 2 x 50 =
	// 450; the Interactive Brokers schedule charges 0.65 a contract, at
	// least 1, on each fill of 2 contracts: 1.30 x 2.
	r := apitest.Must(t, f.a.Do("POST", "/api/positions", map[string]any{
		"accountId": f.account, "symbol": "/esh4", "assetType": "future", "side": "long", "stopLoss": "4885",
		"fills": []any{fill("entry", "4890.25", "2", "", at(31)), fill("exit", "4894.75", "2", "", at(44))},
	}), 201)
	es := apitest.Object(t, r, "position")
	want := map[string]any{"symbol": "ESH24", "assetType": "future", "underlying": "ES", "contractMonth": "2024-03",
		"multiplier": 50.0, "optionExpiry": nil, "status": "closed", "grossPnl": "450.0000", "fees": "2.6000",
		"netPnl": "447.4000", "initialRisk": "525.0000", "rMultiple": "0.8522"}
	for k, v := range want {
		if es[k] != v {
			t.Errorf("%s = %v, want %v", k, es[k], v)
		}
	}
	for _, fl := range es["fills"].([]any) {
		if fl := fl.(map[string]any); fl["fees"] != "1.3000" || fl["feeEstimated"] != true {
			t.Errorf("fill fees %v", fl)
		}
	}

	// MYM: a fractional point value. 20 points x 3 x 0.5 = 30, short.
	mym := apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/positions", map[string]any{
		"accountId": f.account, "symbol": "MYMH24", "assetType": "future", "side": "short",
		"fills": []any{fill("entry", "38020", "3", "0", at(32)), fill("exit", "38000", "3", "0", at(40))},
	}), 201), "position")
	if mym["multiplier"] != 0.5 || mym["grossPnl"] != "30.0000" {
		t.Errorf("MYM %v", mym)
	}

	// A root without a built-in point value takes a given multiplier.
	xyz := apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/positions", map[string]any{
		"accountId": f.account, "symbol": "XYZM24", "assetType": "future", "side": "long", "multiplier": "12.5",
		"fills": []any{fill("entry", "100", "1", "0", at(33))},
	}), 201), "position")
	if xyz["multiplier"] != 12.5 || xyz["status"] != "open" {
		t.Errorf("XYZ %v", xyz)
	}
	id := xyz["id"].(string)

	// Its exit: 4 points x 1 x 12.5.
	pos := apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/positions/"+id+"/fills", fill("exit", "104", "1", "0", at(50))), 201), "position")
	if pos["grossPnl"] != "50.0000" {
		t.Errorf("XYZ after its exit %v", pos)
	}
	// A roll to the next contract keeps the given multiplier; a new one
	// replaces it (and the figures with it).
	pos = apitest.Object(t, apitest.Must(t, f.a.Do("PATCH", "/api/positions/"+id, map[string]any{"symbol": "XYZU24"}), 200), "position")
	if pos["symbol"] != "XYZU24" || pos["contractMonth"] != "2024-09" || pos["multiplier"] != 12.5 {
		t.Errorf("rolled %v", pos)
	}
	pos = apitest.Object(t, apitest.Must(t, f.a.Do("PATCH", "/api/positions/"+id, map[string]any{"multiplier": "25"}), 200), "position")
	if pos["multiplier"] != 25.0 || pos["grossPnl"] != "100.0000" {
		t.Errorf("new multiplier %v", pos)
	}
	// To a stock and back: the option and future fields follow.
	pos = apitest.Object(t, apitest.Must(t, f.a.Do("PATCH", "/api/positions/"+id, map[string]any{"assetType": "stock", "symbol": "XYZ"}), 200), "position")
	if pos["multiplier"] != 1.0 || pos["underlying"] != nil || pos["contractMonth"] != nil || pos["grossPnl"] != "4.0000" {
		t.Errorf("as a stock %v", pos)
	}
	pos = apitest.Object(t, apitest.Must(t, f.a.Do("PATCH", "/api/positions/"+id, map[string]any{"assetType": "future", "symbol": "ESZ24"}), 200), "position")
	if pos["multiplier"] != 50.0 || pos["underlying"] != "ES" || pos["grossPnl"] != "200.0000" {
		t.Errorf("as ES %v", pos)
	}

	// The list filters by symbol and shows the multiplier.
	list := apitest.Items(t, apitest.Must(t, f.a.Do("GET", "/api/positions?symbol=MYMH24", nil), 200))
	if len(list) != 1 || list[0].(map[string]any)["multiplier"] != 0.5 {
		t.Errorf("list %v", list)
	}
	checkLedger(t, f.srv)
	// 10000 + 447.4 + 30 + 200.
	if b := balance(t, f.a, f.account); b != "10677.4000" {
		t.Errorf("balance %s", b)
	}
	// The performance report counts the futures like any position.
	perf := apitest.Must(t, f.a.Do("GET", "/api/performance", nil), 200)
	summary, _ := apitest.Object(t, perf, "total")["summary"].(map[string]any)
	if summary["trades"] != 3.0 || summary["netPnl"] != "677.4000" || summary["grossPnl"] != "680.0000" {
		t.Errorf("performance summary %v", summary)
	}
}

// TestFuturesBadInput: every refusal is a 400 naming the field, and
// nothing is written.
func TestFuturesBadInput(t *testing.T) {
	f := setup(t, nil)
	at := "2024-01-24T14:31:00Z"
	base := func(edit map[string]any) map[string]any {
		b := map[string]any{"accountId": f.account, "symbol": "ESH24", "assetType": "future", "side": "long"}
		for k, v := range edit {
			b[k] = v
		}
		return b
	}
	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"UnknownRootNoMultiplier", base(map[string]any{"symbol": "XYZH24"}), "multiplier"},
		{"NotAContract", base(map[string]any{"symbol": "ES"}), "symbol"},
		{"BadMonthCode", base(map[string]any{"symbol": "ESA24"}), "symbol"},
		{"MultiplierOnStock", base(map[string]any{"assetType": "stock", "symbol": "AAPL", "multiplier": "2"}), "multiplier"},
		{"MultiplierOnOption", base(map[string]any{"assetType": "option", "symbol": "AAPL240119C00190000", "multiplier": "10"}), "multiplier"},
		{"ZeroMultiplier", base(map[string]any{"multiplier": "0"}), "multiplier"},
		{"HugeMultiplier", base(map[string]any{"multiplier": "1000000001"}), "multiplier"},
		{"MultiplierPlaces", base(map[string]any{"multiplier": "0.123456789"}), "multiplier"},
		{"MultiplierNumber", base(map[string]any{"multiplier": 50}), "multiplier"},
		{"MultiplierText", base(map[string]any{"multiplier": "fifty"}), "multiplier"},
		{"FractionalContracts", base(map[string]any{"fills": []any{fill("entry", "4890", "1.5", "", at)}}), "fills[0].quantity"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := apitest.Must(t, f.a.Do("POST", "/api/positions", tc.body), 400)
			if r.ErrorCode() != "VALIDATION_ERROR" || !slices.Contains(detailFields(t, r), tc.field) {
				t.Fatalf("%s", r.Body)
			}
		})
	}
	if n := len(apitest.Items(t, apitest.Must(t, f.a.Do("GET", "/api/positions", nil), 200))); n != 0 {
		t.Fatalf("%d positions written", n)
	}

	// PATCH: a stock with fractional shares cannot become a future; an
	// unknown root needs a multiplier; a stock takes none.
	stock := apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/positions", map[string]any{
		"accountId": f.account, "symbol": "AAPL", "assetType": "stock", "side": "long",
		"fills": []any{fill("entry", "190", "1.5", "0", at)},
	}), 201), "position")["id"].(string)
	for _, tc := range []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"Fractional", map[string]any{"assetType": "future", "symbol": "ESH24"}, "assetType"},
		{"UnknownRoot", map[string]any{"assetType": "future", "symbol": "XYZH24"}, "multiplier"},
		{"StockMultiplier", map[string]any{"multiplier": "5"}, "multiplier"},
		{"BadAssetType", map[string]any{"assetType": "bond"}, "assetType"},
	} {
		t.Run("Patch"+tc.name, func(t *testing.T) {
			r := apitest.Must(t, f.a.Do("PATCH", "/api/positions/"+stock, tc.body), 400)
			if r.ErrorCode() != "VALIDATION_ERROR" || !slices.Contains(detailFields(t, r), tc.field) {
				t.Fatalf("%s", r.Body)
			}
		})
	}
	pos := apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/positions/"+stock, nil), 200), "position")
	if pos["assetType"] != "stock" || pos["symbol"] != "AAPL" || pos["multiplier"] != 1.0 {
		t.Fatalf("patched by a refused request: %v", pos)
	}
}
