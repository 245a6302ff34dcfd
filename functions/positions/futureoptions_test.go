package positions_test

import (
	"slices"
	"strings"
	"testing"

	"tradejournal/shared/apitest"
	"tradejournal/shared/jobs"
)

// TestFutureOptionPositions: futures options through the positions API,
// with P&L worked by hand: the future's point value is the multiplier.
func TestFutureOptionPositions(t *testing.T) {
	f := setup(t, map[string]any{"name": "Futures options", "currency": "USD", "startingBalance": "10000"})
	create := func(symbol, side string, fills ...map[string]any) map[string]any {
		return apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/positions", map[string]any{
			"accountId": f.account, "symbol": symbol, "assetType": "future_option", "side": side, "fills": fills,
		}), 201), "position")
	}

	// An ES call bought at 50.25 and sold at 62.50: 12.25 x 50 = 612.50
	// a contract; two contracts, 1.25 of fees a fill.
	es := create("/ESZ4 C5000", "long", fill("entry", "50.25", "2", "1.25", "2024-11-04T15:00:00Z"),
		fill("exit", "62.50", "2", "1.25", "2024-11-11T15:00:00Z"))
	want := map[string]any{"symbol": "./ESZ24 241220C5000", "assetType": "future_option", "underlying": "ES",
		"contractMonth": "2024-12", "optionExpiry": "2024-12-20", "optionRight": "C", "optionStrike": "5000",
		"multiplier": 50.0, "status": "closed", "grossPnl": "1225.0000", "fees": "2.5000", "netPnl": "1222.5000"}
	for k, v := range want {
		if es[k] != v {
			t.Errorf("ES call: %s = %v, want %v", k, es[k], v)
		}
	}

	// A short CL put (tastytrade's form): sold at 1.25, bought back at
	// 0.40, 0.85 x 1000 = 850.
	cl := create("./CLF5 LOF5 241216P65", "short", fill("entry", "1.25", "1", "0", "2024-11-04T15:00:00Z"),
		fill("exit", "0.40", "1", "0", "2024-11-20T15:00:00Z"))
	if cl["symbol"] != "./CLF25 241216P65" || cl["multiplier"] != 1000.0 || cl["grossPnl"] != "850.0000" {
		t.Errorf("short CL put %v", cl)
	}

	// Two MES calls (a weekly, by thinkorswim's series code) held to
	// expiry: the option-expiry job closes them at 0, 8.75 x 2 x 5 lost.
	mes := create("./EX4X24C6000", "long", fill("entry", "8.75", "2", "0", "2024-11-18T15:00:00Z"))
	if mes["symbol"] != "./MESZ24 241122C6000" || mes["status"] != "open" || mes["awaitingExpiry"] != true {
		t.Fatalf("MES call %v %v %v", mes["symbol"], mes["status"], mes["awaitingExpiry"])
	}
	rep, err := jobs.Run(t.Context(), jobs.List(f.srv.App, nil), jobs.Event{Jobs: []string{jobs.OptionExpiry}}, f.srv.App.Log)
	if err != nil || len(rep.Jobs) != 1 || rep.Jobs[0].Count != 1 {
		t.Fatalf("option-expiry: %+v (%v)", rep, err)
	}
	mes = apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/positions/"+mes["id"].(string), nil), 200), "position")
	if mes["status"] != "closed" || mes["netPnl"] != "-87.5000" || mes["awaitingExpiry"] != false {
		t.Errorf("MES call after the job: %v %v", mes["status"], mes["netPnl"])
	}

	// The filters and the statistics know the asset type.
	list := apitest.Items(t, apitest.Must(t, f.a.Do("GET", "/api/positions?assetType=future_option", nil), 200))
	if len(list) != 3 {
		t.Errorf("%d futures options listed", len(list))
	}
	perf := apitest.Must(t, f.a.Do("GET", "/api/performance?assetType=future_option", nil), 200)
	summary, _ := apitest.Object(t, perf, "total")["summary"].(map[string]any)
	// 1222.50 + 850 - 87.50.
	if summary["trades"] != 3.0 || summary["netPnl"] != "1985.0000" {
		t.Errorf("performance summary %v", summary)
	}
	checkLedger(t, f.srv)
	if b := balance(t, f.a, f.account); b != "11985.0000" {
		t.Errorf("balance %s", b)
	}

	// A vertical of two ES options is a strategy like an equity one.
	long := create("./ESZ24 241220C5000", "long", fill("entry", "60", "1", "0", "2024-11-04T15:00:00Z"))
	short := create("./ESZ24 241220C5100", "short", fill("entry", "20", "1", "0", "2024-11-04T15:00:00Z"))
	st := apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/strategies", map[string]any{
		"accountId": f.account, "positionIds": []string{long["id"].(string), short["id"].(string)},
	}), 201), "strategy")
	// A debit of 40 points on a 100-point spread: at most 40 x 50 = 2000
	// lost, 60 x 50 = 3000 won.
	if st["kind"] != "vertical" || st["maxLoss"] != "2000.0000" || st["maxProfit"] != "3000.0000" || st["underlying"] != "ES" {
		t.Errorf("strategy %v %v %v %v", st["kind"], st["maxLoss"], st["maxProfit"], st["underlying"])
	}
}

// TestFutureOptionBadInput: a contract that cannot be placed is a 400
// naming the field and the forms read; nothing is written.
func TestFutureOptionBadInput(t *testing.T) {
	f := setup(t, nil)
	for _, tc := range []struct {
		name, symbol, field, says string
	}{
		{"NotAnOption", "ESZ24", "symbol", "./ESZ24 241220C5000"},
		{"NoExpiryRule", "./CLF25C70", "symbol", "names no expiry"},
		{"ExpiryAfterTheFuture", "./ESZ24 250117C5000", "symbol", "after the contract month"},
		{"UnknownRoot", "./QQQZ24 241220C100", "multiplier", "root QQQ"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := apitest.Must(t, f.a.Do("POST", "/api/positions", map[string]any{"accountId": f.account, "symbol": tc.symbol,
				"assetType": "future_option", "side": "long", "fills": []any{fill("entry", "10", "1", "0", "2024-11-04T15:00:00Z")}}), 400)
			if r.ErrorCode() != "VALIDATION_ERROR" || !slices.Contains(detailFields(t, r), tc.field) || !strings.Contains(string(r.Body), tc.says) {
				t.Fatalf("%s", r.Body)
			}
		})
	}
	apitest.Must(t, f.a.Do("GET", "/api/positions?assetType=futures_option", nil), 400)
	if n := len(apitest.Items(t, apitest.Must(t, f.a.Do("GET", "/api/positions", nil), 200))); n != 0 {
		t.Fatalf("%d positions written", n)
	}
}

// TestFutureOptionExercise: a long ES call exercised goes into one long
// ES future at the strike; selling the future 100 points higher makes
// 100 x 50 = 5,000 on it, the call's premium (60 x 50 = 3,000) staying the
// call's loss.
func TestFutureOptionExercise(t *testing.T) {
	f := setup(t, map[string]any{"name": "Futures", "currency": "USD", "startingBalance": "50000"})
	call := apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/positions", map[string]any{
		"accountId": f.account, "symbol": "./ESZ24 241220C5000", "assetType": "future_option", "side": "long",
		"fills": []any{fill("entry", "60", "1", "0", "2024-11-04T15:00:00Z")},
	}), 201), "position")
	got := apitest.Must(t, f.a.Do("POST", "/api/positions/"+call["id"].(string)+"/assignment",
		map[string]any{"filledAt": "2024-12-20T21:00:00Z"}), 200)
	opt, fut := apitest.Object(t, got, "position"), apitest.Object(t, got, "underlying")
	if opt["status"] != "closed" || opt["netPnl"] != "-3000.0000" {
		t.Errorf("call after exercise: %v %v", opt["status"], opt["netPnl"])
	}
	if fut["symbol"] != "ESZ24" || fut["assetType"] != "future" || fut["side"] != "long" || fut["openQuantity"] != "1" ||
		fut["avgEntryPrice"] != "5000" || fut["multiplier"] != 50.0 {
		t.Fatalf("the future %v", fut)
	}
	closed := apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/positions/"+fut["id"].(string)+"/fills",
		fill("exit", "5100", "1", "0", "2024-12-20T22:00:00Z")), 201), "position")
	if closed["netPnl"] != "5000.0000" {
		t.Errorf("the future closed: %v", closed["netPnl"])
	}
	checkLedger(t, f.srv)
	if b := balance(t, f.a, f.account); b != "52000.0000" {
		t.Errorf("balance %s", b)
	}
}
