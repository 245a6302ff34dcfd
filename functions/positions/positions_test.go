package positions_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/apitest"
	"tradejournal/shared/journal"
)

func TestPositionLifecycle(t *testing.T) {
	f := setup(t, map[string]any{"name": "IB", "currency": "USD", "startingBalance": "10000", "brokerageId": ibFixed})
	a := f.a

	r := apitest.Must(t, a.Do("POST", "/api/positions", map[string]any{
		"accountId": f.account, "symbol": "aapl", "assetType": "stock", "side": "long",
		"stopLoss": "9", "targetPrice": "15", "notes": "Opening range breakout",
		"fills": []any{
			fill("exit", "12", "40", "0.5", "2024-01-02T15:00:00Z"), // given out of order
			fill("entry", "10", "100", "", "2024-01-02T14:35:00Z"),  // fee estimated: IB 100 x 0.005 -> min 1
		},
	}), 201)
	p := apitest.Object(t, r, "position")
	id := p["id"].(string)
	want := map[string]any{"symbol": "AAPL", "assetType": "stock", "multiplier": float64(1), "side": "long", "status": "open",
		"stopLoss": "9", "targetPrice": "15", "notes": "Opening range breakout", "openedAt": "2024-01-02T14:35:00Z", "closedAt": nil,
		"entryQuantity": "100", "exitQuantity": "40", "openQuantity": "60", "avgEntryPrice": "10", "avgExitPrice": "12",
		"grossPnl": "80.0000", "fees": "1.5000", "netPnl": "78.5000", "initialRisk": "100.0000", "rMultiple": nil,
		"underlying": nil, "optionExpiry": nil, "imageCount": float64(0)}
	for k, v := range want {
		if p[k] != v {
			t.Errorf("%s = %v, want %v", k, p[k], v)
		}
	}
	fills := p["fills"].([]any)
	entry, exit := fills[0].(map[string]any), fills[1].(map[string]any)
	if entry["type"] != "entry" || entry["fees"] != "1.0000" || entry["feeEstimated"] != true || entry["realizedPnl"] != nil ||
		exit["fees"] != "0.5000" || exit["feeEstimated"] != false || exit["realizedPnl"] != "80.0000" {
		t.Fatalf("fills %v", fills)
	}
	if b := balance(t, a, f.account); b != "10078.5000" {
		t.Fatalf("balance %s", b)
	}
	path := "/api/positions/" + id

	t.Run("ScaleInThenClose", func(t *testing.T) {
		apitest.Must(t, a.Do("POST", path+"/fills", fill("entry", "14", "50", "", "2024-01-03T15:00:00Z")), 201)
		p := apitest.Object(t, apitest.Must(t, a.Do("POST", path+"/fills", fill("exit", "15", "110", "1", "2024-01-04T15:00:00Z")), 201), "position")
		// 60 left at 10 plus 50 at 14: 1300 for 110; the close at 15 realises 350.
		for k, v := range map[string]any{"status": "closed", "closedAt": "2024-01-04T15:00:00Z", "openQuantity": "0",
			"grossPnl": "430.0000", "fees": "3.5000", "netPnl": "426.5000", "initialRisk": "350.0000", "rMultiple": "1.2186",
			"avgEntryPrice": "11.3333333333", "avgExitPrice": "14.2"} {
			if p[k] != v {
				t.Errorf("%s = %v, want %v", k, p[k], v)
			}
		}
		if b := balance(t, a, f.account); b != "10426.5000" {
			t.Fatalf("balance %s", b)
		}
	})
	t.Run("EntryAfterCloseReopens", func(t *testing.T) {
		r := apitest.Must(t, a.Do("POST", path+"/fills", fill("entry", "15", "1", "0", "2024-01-05T15:00:00Z")), 201)
		p, changes := apitest.Object(t, r, "position"), apitest.Object(t, r, "changes")
		if p["status"] != "open" || p["openQuantity"] != "1" || p["closedAt"] != nil || p["grossPnl"] != "430.0000" ||
			len(changes["reopened"].([]any)) != 1 || changes["reopened"].([]any)[0] != id {
			t.Fatalf("%s", r.Body)
		}
		fills := p["fills"].([]any)
		added := fills[len(fills)-1].(map[string]any)["id"].(string)
		p = apitest.Object(t, apitest.Must(t, a.Do("DELETE", path+"/fills/"+added, nil), 200), "position")
		if p["status"] != "closed" || p["closedAt"] != "2024-01-04T15:00:00Z" {
			t.Fatalf("%v", p)
		}
	})
	before := apitest.Must(t, a.Do("GET", path, nil), 200)
	var lastExit, firstEntry string
	for _, fl := range apitest.Object(t, before, "position")["fills"].([]any) {
		m := fl.(map[string]any)
		if m["type"] == "exit" {
			lastExit = m["id"].(string)
		} else if firstEntry == "" {
			firstEntry = m["id"].(string)
		}
	}
	t.Run("EditedEntryReversesAndBack", func(t *testing.T) {
		// 20 bought, then 40 sold: the sale closes the long at 20 and opens
		// a short of 20, and every later fill is read from there.
		r := apitest.Must(t, a.Do("PATCH", path+"/fills/"+firstEntry, map[string]any{"quantity": "20"}), 200)
		p, changes := apitest.Object(t, r, "position"), apitest.Object(t, r, "changes")
		if p["id"] != id || p["status"] != "closed" || p["entryQuantity"] != "20" || p["exitQuantity"] != "20" ||
			len(changes["opened"].([]any)) == 0 {
			t.Fatalf("%s", r.Body)
		}
		checkLedger(t, f.srv)
		// Back to 100: one long position again, the runs' other positions gone.
		r = apitest.Must(t, a.Do("PATCH", path+"/fills/"+firstEntry, map[string]any{"quantity": "100"}), 200)
		if removed := apitest.Object(t, r, "changes")["removed"].([]any); len(removed) != len(changes["opened"].([]any)) {
			t.Fatalf("%s", r.Body)
		}
		after := apitest.Object(t, apitest.Must(t, a.Do("GET", path, nil), 200), "position")
		was := apitest.Object(t, before, "position")
		delete(after, "updatedAt")
		delete(was, "updatedAt")
		if fmt.Sprint(after) != fmt.Sprint(was) {
			t.Fatalf("not restored:\n%v\n%v", was, after)
		}
		r = apitest.Must(t, a.Do("DELETE", path+"/fills/"+firstEntry, nil), 400)
		if !strings.Contains(string(r.Body), "before the position's first entry") {
			t.Fatalf("%s", r.Body)
		}
		checkLedger(t, f.srv)
	})
	t.Run("EditExitReopens", func(t *testing.T) {
		p := apitest.Object(t, apitest.Must(t, a.Do("PATCH", path+"/fills/"+lastExit, map[string]any{"quantity": "100", "price": "15.5"}), 200), "position")
		if p["status"] != "open" || p["openQuantity"] != "10" || p["closedAt"] != nil || p["rMultiple"] != nil {
			t.Fatalf("position %v", p)
		}
		last := p["fills"].([]any)[3].(map[string]any)
		if last["fees"] != "1.0000" || last["feeEstimated"] != false || last["realizedPnl"] != "368.1818" {
			t.Fatalf("edited fill %v", last)
		}
	})
	t.Run("FeeNullReestimates", func(t *testing.T) {
		p := apitest.Object(t, apitest.Must(t, a.Do("PATCH", path+"/fills/"+lastExit, map[string]any{"fees": nil}), 200), "position")
		last := p["fills"].([]any)[3].(map[string]any)
		if last["fees"] != "1.0000" || last["feeEstimated"] != true {
			t.Fatalf("re-estimated fill %v", last)
		}
	})
	t.Run("DeleteFill", func(t *testing.T) {
		p := apitest.Object(t, apitest.Must(t, a.Do("DELETE", path+"/fills/"+lastExit, nil), 200), "position")
		if p["openQuantity"] != "110" || len(p["fills"].([]any)) != 3 {
			t.Fatalf("position %v", p)
		}
		apitest.Must(t, a.Do("DELETE", path+"/fills/"+lastExit, nil), 404)
	})
	t.Run("PatchPosition", func(t *testing.T) {
		p := apitest.Object(t, apitest.Must(t, a.Do("PATCH", path, map[string]any{"stopLoss": nil, "notes": "", "side": "short", "symbol": "msft"}), 200), "position")
		// Short now: the exit at 12 after entries averaging 10 loses.
		if p["stopLoss"] != nil || p["initialRisk"] != nil || p["notes"] != "" || p["symbol"] != "MSFT" || p["grossPnl"] != "-80.0000" {
			t.Fatalf("position %v", p)
		}
		checkLedger(t, f.srv)
	})
	t.Run("MoveToAnotherAccount", func(t *testing.T) {
		other := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/accounts", map[string]any{"name": "Other", "currency": "USD"}), 201), "account")["id"].(string)
		p := apitest.Object(t, apitest.Must(t, a.Do("PATCH", path, map[string]any{"accountId": other}), 200), "position")
		if p["accountId"] != other {
			t.Fatalf("position %v", p)
		}
		if b := balance(t, a, f.account); b != "10000.0000" {
			t.Fatalf("old account balance %s", b)
		}
		if b := balance(t, a, other); b != apitest.Object(t, apitest.Must(t, a.Do("GET", path, nil), 200), "position")["netPnl"] {
			t.Fatalf("new account balance %s", b)
		}
		checkLedger(t, f.srv)
	})
	t.Run("Delete", func(t *testing.T) {
		apitest.Must(t, a.Do("DELETE", path, nil), 204)
		apitest.Must(t, a.Do("GET", path, nil), 404)
		apitest.Must(t, a.Do("DELETE", path, nil), 404)
		checkLedger(t, f.srv)
	})
}

func TestOptionPosition(t *testing.T) {
	f := setup(t, map[string]any{"name": "IB", "currency": "USD", "brokerageId": ibFixed})
	p := apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/positions", map[string]any{
		"accountId": f.account, "symbol": "aapl240119c00190000", "assetType": "option", "side": "long", "stopLoss": "1",
		"fills": []any{fill("entry", "1.50", "2", "", "2024-01-10T15:00:00Z"), fill("exit", "2.25", "2", "", "2024-01-12T15:00:00Z")},
	}), 201), "position")
	// IB options: 0.65 per contract, minimum 1 per fill: 1.30 each.
	for k, v := range map[string]any{"symbol": "AAPL  240119C00190000", "underlying": "AAPL", "optionExpiry": "2024-01-19",
		"optionRight": "C", "optionStrike": "190", "multiplier": float64(100), "grossPnl": "150.0000", "fees": "2.6000",
		"netPnl": "147.4000", "initialRisk": "100.0000", "rMultiple": "1.4740", "status": "closed"} {
		if p[k] != v {
			t.Errorf("%s = %v, want %v", k, p[k], v)
		}
	}
	id := p["id"].(string)
	apitest.Run(t, f.a, []apitest.Case{
		{Name: "FractionalContracts", Method: "POST", Path: "/api/positions", Body: map[string]any{"accountId": f.account, "symbol": "AAPL  240119P00190000",
			"assetType": "option", "side": "long", "fills": []any{fill("entry", "1", "1.5", "", "2024-01-10T15:00:00Z")}}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "NotOCC", Method: "POST", Path: "/api/positions", Body: map[string]any{"accountId": f.account, "symbol": "AAPL", "assetType": "option", "side": "long"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "BadExpiry", Method: "POST", Path: "/api/positions", Body: map[string]any{"accountId": f.account, "symbol": "AAPL  241331C00190000", "assetType": "option", "side": "long"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "PatchToStockKeepsOCC", Method: "PATCH", Path: "/api/positions/" + id, Body: map[string]any{"assetType": "stock"}, Status: 400, Code: "VALIDATION_ERROR"},
	})
	// A stock position with fractional shares cannot become an option.
	s := apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/positions", map[string]any{"accountId": f.account, "symbol": "SPY", "assetType": "stock", "side": "long",
		"fills": []any{fill("entry", "400", "0.5", "0", "2024-01-10T15:00:00Z")}}), 201), "position")["id"].(string)
	r := apitest.Must(t, f.a.Do("PATCH", "/api/positions/"+s, map[string]any{"assetType": "option", "symbol": "SPY240119C00400000"}), 400)
	if fs := detailFields(t, r); !slices.Equal(fs, []string{"assetType"}) {
		t.Fatalf("%v", fs)
	}
	// Stock to option with whole shares: the multiplier follows.
	apitest.Must(t, f.a.Do("PATCH", "/api/positions/"+s+"/fills/"+apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/positions/"+s, nil), 200), "position")["fills"].([]any)[0].(map[string]any)["id"].(string),
		map[string]any{"quantity": "1"}), 200)
	p = apitest.Object(t, apitest.Must(t, f.a.Do("PATCH", "/api/positions/"+s, map[string]any{"assetType": "option", "symbol": "SPY240119C00400000", "stopLoss": "390"}), 200), "position")
	if p["multiplier"] != float64(100) || p["initialRisk"] != "1000.0000" || p["symbol"] != "SPY   240119C00400000" {
		t.Fatalf("position %v", p)
	}
}

func TestPositionBadInput(t *testing.T) {
	f := setup(t, nil)
	a := f.a
	otherAccount := apitest.Object(t, apitest.Must(t, f.b.Do("POST", "/api/accounts", map[string]any{"name": "B", "currency": "USD"}), 201), "account")["id"].(string)
	otherTag := apitest.Object(t, apitest.Must(t, f.b.Do("POST", "/api/tags", map[string]any{"name": "B's"}), 201), "tag")["id"].(string)

	base := func(extra map[string]any) map[string]any {
		m := map[string]any{"accountId": f.account, "symbol": "AAPL", "assetType": "stock", "side": "long"}
		for k, v := range extra {
			if v == nil {
				delete(m, k)
			} else {
				m[k] = v
			}
		}
		return m
	}
	withFills := func(fills ...any) map[string]any { return base(map[string]any{"fills": fills}) }
	at := "2024-01-02T15:00:00Z"
	later := "2024-01-02T16:00:00Z"
	many := make([]any, journal.MaxFills+1)
	for i := range many {
		many[i] = fill("entry", "1", "1", "0", at)
	}
	cases := []struct {
		name  string
		body  any
		field string
	}{
		{"MissingAccount", base(map[string]any{"accountId": nil}), "accountId"},
		{"MalformedAccount", base(map[string]any{"accountId": "1"}), "accountId"},
		{"MissingAccountRow", base(map[string]any{"accountId": missingID}), "accountId"},
		{"OtherUsersAccount", base(map[string]any{"accountId": otherAccount}), "accountId"},
		{"MissingSymbol", base(map[string]any{"symbol": nil}), "symbol"},
		{"BadSymbol", base(map[string]any{"symbol": "AA PL"}), "symbol"},
		{"LongSymbol", base(map[string]any{"symbol": strings.Repeat("A", 33)}), "symbol"},
		{"MissingAssetType", base(map[string]any{"assetType": nil}), "assetType"},
		{"BadAssetType", base(map[string]any{"assetType": "bond"}), "assetType"},
		{"OptionWithoutOCC", base(map[string]any{"assetType": "option"}), "symbol"},
		{"MissingSide", base(map[string]any{"side": nil}), "side"},
		{"BadSide", base(map[string]any{"side": "buy"}), "side"},
		{"ZeroStop", base(map[string]any{"stopLoss": "0"}), "stopLoss"},
		{"NegativeStop", base(map[string]any{"stopLoss": "-5"}), "stopLoss"},
		{"StopAsNumber", base(map[string]any{"stopLoss": 5}), "stopLoss"},
		{"StopNinePlaces", base(map[string]any{"stopLoss": "1.000000001"}), "stopLoss"},
		{"StopExponent", base(map[string]any{"stopLoss": "1e2"}), "stopLoss"},
		{"BadTarget", base(map[string]any{"targetPrice": "ten"}), "targetPrice"},
		{"NotesTooLong", base(map[string]any{"notes": strings.Repeat("n", journal.MaxNotesChars+1)}), "notes"},
		{"NotesNUL", base(map[string]any{"notes": "a\u0000b"}), "notes"},
		{"ZeroPrice", withFills(fill("entry", "0", "1", "0", at)), "fills[0].price"},
		{"NegativePrice", withFills(fill("entry", "-1", "1", "0", at)), "fills[0].price"},
		{"ZeroQuantity", withFills(fill("entry", "1", "0", "0", at)), "fills[0].quantity"},
		{"NegativeQuantity", withFills(fill("entry", "1", "-3", "0", at)), "fills[0].quantity"},
		{"HugeQuantity", withFills(fill("entry", "1", "1000000001", "0", at)), "fills[0].quantity"},
		{"NegativeFees", withFills(fill("entry", "1", "1", "-1", at)), "fills[0].fees"},
		{"FeesFivePlaces", withFills(fill("entry", "1", "1", "0.00001", at)), "fills[0].fees"},
		{"MissingType", withFills(map[string]any{"price": "1", "quantity": "1", "filledAt": at}), "fills[0].type"},
		{"BadType", withFills(fill("buy", "1", "1", "0", at)), "fills[0].type"},
		{"MissingDate", withFills(map[string]any{"type": "entry", "price": "1", "quantity": "1"}), "fills[0].filledAt"},
		{"BadDate", withFills(fill("entry", "1", "1", "0", "2024-02-30T15:00:00Z")), "fills[0].filledAt"},
		{"DateWithoutZone", withFills(fill("entry", "1", "1", "0", "2024-01-02T15:00:00")), "fills[0].filledAt"},
		{"DateInTheFuture", withFills(fill("entry", "1", "1", "0", "2999-01-01T00:00:00Z")), "fills[0].filledAt"},
		{"ExitBeforeEntry", withFills(fill("entry", "10", "5", "0", later), fill("exit", "11", "5", "0", at)), "fills[1].filledAt"},
		{"ExitBeforeEntryOfReversal", withFills(fill("exit", "11", "6", "0", at), fill("entry", "10", "5", "0", later)), "fills[0].filledAt"},
		{"TooManyFills", withFills(many...), "fills"},
		{"MalformedTag", base(map[string]any{"tagIds": []any{"x"}}), "tagIds[0]"},
		{"OtherUsersTag", base(map[string]any{"tagIds": []any{otherTag}}), "tagIds[0]"},
		{"UnknownField", base(map[string]any{"status": "closed"}), "status"},
		{"FillUnknownField", withFills(map[string]any{"type": "entry", "price": "1", "quantity": "1", "filledAt": at, "side": "buy"}), "side"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := apitest.Must(t, a.Do("POST", "/api/positions", tc.body), 400)
			apitest.CheckErrorShape(t, r)
			if r.ErrorCode() != "VALIDATION_ERROR" {
				t.Fatalf("code %s", r.ErrorCode())
			}
			if fs := detailFields(t, r); !slices.Contains(fs, tc.field) {
				t.Fatalf("details %v lack %s: %s", fs, tc.field, r.Body)
			}
		})
	}
	t.Run("InvalidJSON", func(t *testing.T) {
		if r := a.Do("POST", "/api/positions", "{"); r.Status != 400 || r.ErrorCode() != "INVALID_JSON" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("NothingWritten", func(t *testing.T) {
		var n int
		if err := f.srv.App.DB.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM positions) + (SELECT count(*) FROM fills) + (SELECT count(*) FROM ledger_entries)`).Scan(&n); err != nil || n != 0 {
			t.Fatalf("%d rows written by bad requests (%v)", n, err)
		}
	})

	// The same rules on the position's own routes.
	id := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/positions", withFills(fill("entry", "10", "5", "0", at))), 201), "position")["id"].(string)
	fillID := apitest.Object(t, apitest.Must(t, a.Do("GET", "/api/positions/"+id, nil), 200), "position")["fills"].([]any)[0].(map[string]any)["id"].(string)
	p := "/api/positions/" + id
	apitest.Run(t, a, []apitest.Case{
		{Name: "PatchBadSide", Method: "PATCH", Path: p, Body: map[string]any{"side": "flat"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "PatchBadStop", Method: "PATCH", Path: p, Body: map[string]any{"stopLoss": "abc"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "PatchNotes", Method: "PATCH", Path: p, Body: map[string]any{"notes": strings.Repeat("é", journal.MaxNotesChars+1)}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "PatchOtherAccount", Method: "PATCH", Path: p, Body: map[string]any{"accountId": otherAccount}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "PatchBadSymbol", Method: "PATCH", Path: p, Body: map[string]any{"symbol": "$$$"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "PatchOptionWithStockSymbol", Method: "PATCH", Path: p, Body: map[string]any{"assetType": "option"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "AddFillBadPrice", Method: "POST", Path: p + "/fills", Body: fill("entry", "0", "1", "0", later), Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "AddFillMissingFields", Method: "POST", Path: p + "/fills", Body: map[string]any{}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "AddFillExitBeforeEntry", Method: "POST", Path: p + "/fills", Body: fill("exit", "11", "1", "0", "2024-01-01T15:00:00Z"), Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "PatchFillBadQuantity", Method: "PATCH", Path: p + "/fills/" + fillID, Body: map[string]any{"quantity": "-1"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "PatchFillBadDate", Method: "PATCH", Path: p + "/fills/" + fillID, Body: map[string]any{"filledAt": "soon"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "PatchFillMissing", Method: "PATCH", Path: p + "/fills/" + missingID, Body: map[string]any{"quantity": "1"}, Status: 404},
		{Name: "PatchFillMalformed", Method: "PATCH", Path: p + "/fills/x", Body: map[string]any{"quantity": "1"}, Status: 404},
		{Name: "DeleteFillMissing", Method: "DELETE", Path: p + "/fills/" + missingID, Status: 404},
		{Name: "TagsMissingList", Method: "PUT", Path: p + "/tags", Body: map[string]any{}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "TagsOtherUsers", Method: "PUT", Path: p + "/tags", Body: map[string]any{"tagIds": []any{otherTag}}, Status: 400, Code: "VALIDATION_ERROR"},
	})
	r := apitest.Must(t, a.Do("POST", p+"/fills", fill("exit", "11", "1", "0", "2024-01-01T15:00:00Z")), 400)
	if fs := detailFields(t, r); !slices.Equal(fs, []string{"filledAt"}) || !strings.Contains(string(r.Body), "before the position's first entry") {
		t.Fatalf("%v %s", fs, r.Body)
	}
	t.Run("AmountsOutOfRange", func(t *testing.T) {
		// Each value is in range; the loss they book is past what the
		// balance column holds (14 integer digits): 400, nothing written.
		r := apitest.Must(t, a.Do("POST", "/api/positions", withFills(fill("entry", "99999999", "1000000000", "0", at), fill("exit", "1", "1000000000", "0", later))), 400)
		if r.ErrorCode() != "VALIDATION_ERROR" || !slices.Equal(detailFields(t, r), []string{"amount"}) {
			t.Fatalf("%s", r.Body)
		}
	})
	var fills int
	if err := f.srv.App.DB.QueryRow(context.Background(), `SELECT count(*) FROM fills`).Scan(&fills); err != nil || fills != 1 {
		t.Fatalf("%d fills after refused writes (%v)", fills, err)
	}
}

func TestPositionOwnership(t *testing.T) {
	f := setup(t, nil)
	pos := apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/positions", map[string]any{"accountId": f.account, "symbol": "AAPL", "assetType": "stock", "side": "long",
		"fills": []any{fill("entry", "10", "5", "0", "2024-01-02T15:00:00Z")}}), 201), "position")
	id := pos["id"].(string)
	fillID := pos["fills"].([]any)[0].(map[string]any)["id"].(string)
	p := "/api/positions/" + id
	// b's own position, to try a's fill id through it.
	bAccount := apitest.Object(t, apitest.Must(t, f.b.Do("POST", "/api/accounts", map[string]any{"name": "B", "currency": "USD"}), 201), "account")["id"].(string)
	bPos := apitest.Object(t, apitest.Must(t, f.b.Do("POST", "/api/positions", map[string]any{"accountId": bAccount, "symbol": "MSFT", "assetType": "stock", "side": "long"}), 201), "position")["id"].(string)

	apitest.Run(t, f.b, []apitest.Case{
		{Name: "Get", Method: "GET", Path: p, Status: 404},
		{Name: "Patch", Method: "PATCH", Path: p, Body: map[string]any{"notes": "mine"}, Status: 404},
		{Name: "Delete", Method: "DELETE", Path: p, Status: 404},
		{Name: "AddFill", Method: "POST", Path: p + "/fills", Body: fill("entry", "1", "1", "0", "2024-01-02T15:00:00Z"), Status: 404},
		{Name: "PatchFill", Method: "PATCH", Path: p + "/fills/" + fillID, Body: map[string]any{"quantity": "1"}, Status: 404},
		{Name: "DeleteFill", Method: "DELETE", Path: p + "/fills/" + fillID, Status: 404},
		{Name: "ForeignFillThroughOwnPosition", Method: "DELETE", Path: "/api/positions/" + bPos + "/fills/" + fillID, Status: 404},
		{Name: "Tags", Method: "PUT", Path: p + "/tags", Body: map[string]any{"tagIds": []any{}}, Status: 404},
		{Name: "Images", Method: "GET", Path: p + "/images", Status: 404},
		{Name: "Malformed", Method: "GET", Path: "/api/positions/123", Status: 404},
		{Name: "MalformedPatch", Method: "PATCH", Path: "/api/positions/123", Body: map[string]any{}, Status: 404},
		{Name: "MalformedFill", Method: "POST", Path: "/api/positions/123/fills", Body: map[string]any{}, Status: 404},
		{Name: "Missing", Method: "GET", Path: "/api/positions/" + missingID, Status: 404},
	})
	r := apitest.Must(t, f.b.Do("GET", p, nil), 404)
	if e := apitest.Object(t, r, "error"); e["code"] != nil {
		t.Fatalf("404 with a code: %s", r.Body)
	}
	if l := apitest.Items(t, apitest.Must(t, f.b.Do("GET", "/api/positions", nil), 200)); len(l) != 1 {
		t.Fatalf("b lists %d positions", len(l))
	}
	if l := apitest.Items(t, apitest.Must(t, f.b.Do("GET", "/api/positions?accountId="+f.account, nil), 200)); len(l) != 0 {
		t.Fatalf("b lists a's account's positions: %v", l)
	}
	if got := apitest.Must(t, f.a.Do("GET", p, nil), 200); apitest.Object(t, got, "position")["notes"] != "" || len(apitest.Object(t, got, "position")["fills"].([]any)) != 1 {
		t.Fatalf("b changed a's position: %s", got.Body)
	}
}

func TestPositionTags(t *testing.T) {
	f := setup(t, nil)
	a := f.a
	t1 := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/tags", map[string]any{"name": "Breakout", "category": "setup"}), 201), "tag")["id"].(string)
	t2 := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/tags", map[string]any{"name": "FOMO", "category": "emotion"}), 201), "tag")["id"].(string)
	id := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/positions", map[string]any{"accountId": f.account, "symbol": "AAPL", "assetType": "stock", "side": "long",
		"tagIds": []any{t2}}), 201), "position")["id"].(string)
	p := apitest.Object(t, apitest.Must(t, a.Do("PUT", "/api/positions/"+id+"/tags", map[string]any{"tagIds": []any{t2, t1, t2}}), 200), "position")
	tags := p["tags"].([]any)
	if len(tags) != 2 || tags[0].(map[string]any)["name"] != "Breakout" || tags[1].(map[string]any)["category"] != "emotion" {
		t.Fatalf("tags %v", tags)
	}
	if l := apitest.Items(t, apitest.Must(t, a.Do("GET", "/api/positions?tagId="+t1, nil), 200)); len(l) != 1 || len(l[0].(map[string]any)["tags"].([]any)) != 2 {
		t.Fatalf("list by tag %v", l)
	}
	apitest.Must(t, a.Do("DELETE", "/api/tags/"+t1, nil), 204)
	if tags := apitest.Object(t, apitest.Must(t, a.Do("GET", "/api/positions/"+id, nil), 200), "position")["tags"].([]any); len(tags) != 1 {
		t.Fatalf("deleted tag still on the position: %v", tags)
	}
	if tags := apitest.Object(t, apitest.Must(t, a.Do("PUT", "/api/positions/"+id+"/tags", map[string]any{"tagIds": []any{}}), 200), "position")["tags"].([]any); len(tags) != 0 {
		t.Fatalf("cleared tags %v", tags)
	}
}

// TestConcurrentFills sends 20 fills to one position and 10 to another
// position of the same account at once. Every request must succeed, and
// the figures, the ledger and the balance must be exactly those of the
// fills in time order, whatever order the requests ran in.
func TestConcurrentFills(t *testing.T) {
	f := setup(t, map[string]any{"name": "Main", "currency": "USD", "startingBalance": "5000", "brokerageId": ibFixed})
	start := time.Date(2024, 1, 2, 15, 0, 0, 0, time.UTC)
	newPosition := func(side string) string {
		return apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/positions", map[string]any{"accountId": f.account, "symbol": "AAPL", "assetType": "stock", "side": side,
			"fills": []any{fill("entry", "100", "1000", "2.50", start.Format(time.RFC3339))}}), 201), "position")["id"].(string)
	}
	p1, p2 := newPosition("long"), newPosition("short")

	type req struct {
		position string
		body     map[string]any
	}
	var reqs []req
	for i := range 20 {
		at := start.Add(time.Duration(i+1) * time.Minute).Format(time.RFC3339)
		price := decimal.NewFromInt(100).Add(decimal.New(int64(i*7%13)-6, -2)).String()
		if i%3 == 0 {
			reqs = append(reqs, req{p1, fill("entry", price, "10", "", at)}) // fee estimated: 1.00
		} else {
			reqs = append(reqs, req{p1, fill("exit", price, "25", "0.13", at)})
		}
	}
	for i := range 10 {
		at := start.Add(time.Duration(i+1) * time.Minute).Format(time.RFC3339)
		reqs = append(reqs, req{p2, fill("exit", decimal.New(9950+int64(i*3), -2).String(), "50", "", at)})
	}

	var wg sync.WaitGroup
	statuses := make([]int, len(reqs))
	bodies := make([]string, len(reqs))
	for i, rq := range reqs {
		wg.Go(func() {
			r := f.a.Do("POST", "/api/positions/"+rq.position+"/fills", rq.body)
			statuses[i], bodies[i] = r.Status, string(r.Body)
		})
	}
	wg.Wait()
	for i, s := range statuses {
		if s != http.StatusCreated {
			t.Fatalf("request %d: %d %s", i, s, bodies[i])
		}
	}

	// The expected figures: the same fills through journal.Compute.
	expected := func(id, side string) journal.Figures {
		trade := journal.Trade{Side: side, Multiplier: decimal.NewFromInt(1), Fills: []journal.Fill{{Type: "entry", Price: decimal.NewFromInt(100),
			Quantity: decimal.NewFromInt(1000), Fees: decimal.RequireFromString("2.5"), FilledAt: start}}}
		for _, rq := range reqs {
			if rq.position != id {
				continue
			}
			at, _ := time.Parse(time.RFC3339, rq.body["filledAt"].(string))
			fees := decimal.NewFromInt(1) // IB stock: 0.005 x qty, at least 1
			if s, ok := rq.body["fees"].(string); ok {
				fees = decimal.RequireFromString(s)
			}
			trade.Fills = append(trade.Fills, journal.Fill{Type: rq.body["type"].(string), Price: decimal.RequireFromString(rq.body["price"].(string)),
				Quantity: decimal.RequireFromString(rq.body["quantity"].(string)), Fees: fees, FilledAt: at})
		}
		fig, err := journal.Compute(trade)
		if err != nil {
			t.Fatal(err)
		}
		return fig
	}
	total := decimal.RequireFromString("5000")
	for _, c := range []struct{ id, side string }{{p1, "long"}, {p2, "short"}} {
		want := expected(c.id, c.side)
		p := apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/positions/"+c.id, nil), 200), "position")
		if p["grossPnl"] != want.GrossPnL.StringFixed(4) || p["fees"] != want.Fees.StringFixed(4) || p["netPnl"] != want.NetPnL.StringFixed(4) ||
			p["openQuantity"] != want.OpenQuantity.String() {
			t.Fatalf("position %s: gross %v fees %v net %v open %v; want %s %s %s %s", c.side, p["grossPnl"], p["fees"], p["netPnl"], p["openQuantity"],
				want.GrossPnL, want.Fees, want.NetPnL, want.OpenQuantity)
		}
		total = total.Add(want.NetPnL)
	}
	if b := balance(t, f.a, f.account); b != total.StringFixed(4) {
		t.Fatalf("balance %s, want %s", b, total.StringFixed(4))
	}
	var rows int
	if err := f.srv.App.DB.QueryRow(context.Background(), `SELECT count(*) FROM ledger_entries`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	// p1: 13 exits and 21 fees; p2: 10 exits and 11 fees.
	if rows != 13+21+10+11 {
		t.Fatalf("%d ledger rows", rows)
	}
	checkLedger(t, f.srv)
}
