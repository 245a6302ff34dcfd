package accounts_test

import (
	"context"
	"strings"
	"testing"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
)

const (
	missingID = "0b9d8f4e-1c2a-4e5f-9a7b-1234567890ab"
	ibFixed   = "00000000-0000-4000-8000-000000000002"
)

func TestAccounts(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	a, b := srv.Client(t), srv.Client(t)
	a.Register("a@example.com", "password1")
	b.Register("b@example.com", "password1")
	ctx := context.Background()

	first := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/accounts", map[string]any{
		"name": "  Main  ", "currency": "eur", "startingBalance": "10000.5", "defaultRiskPercent": "1.5", "brokerageId": ibFixed,
	}), 201), "account")
	want := map[string]any{"name": "Main", "currency": "EUR", "timezone": "America/New_York", "startingBalance": "10000.5000",
		"balance": "10000.5000", "defaultRiskPercent": "1.5", "brokerageId": ibFixed, "archived": false}
	for k, v := range want {
		if first[k] != v {
			t.Errorf("%s = %v, want %v", k, first[k], v)
		}
	}
	id := first["id"].(string)

	t.Run("FirstAccountSetsDisplayCurrency", func(t *testing.T) {
		apitest.Must(t, a.Do("POST", "/api/accounts", map[string]any{"name": "Second", "currency": "GBP", "timezone": "Europe/London"}), 201)
		var cur string
		if err := srv.App.DB.QueryRow(ctx, `SELECT display_currency FROM users WHERE email = 'a@example.com'`).Scan(&cur); err != nil || cur != "EUR" {
			t.Fatalf("display currency %q (%v), want the first account's EUR", cur, err)
		}
	})
	t.Run("List", func(t *testing.T) {
		r := apitest.Must(t, a.Do("GET", "/api/accounts", nil), 200)
		l := apitest.Items(t, r)
		if len(l) != 2 || l[0].(map[string]any)["id"] != id || r.JSON["nextCursor"] != nil {
			t.Fatalf("list %s", r.Body)
		}
		if l := apitest.Items(t, apitest.Must(t, b.Do("GET", "/api/accounts", nil), 200)); len(l) != 0 {
			t.Fatalf("b sees %d accounts", len(l))
		}
	})
	t.Run("StartingBalanceMovesBalance", func(t *testing.T) {
		apitest.Must(t, a.Do("POST", "/api/accounts/"+id+"/ledger", map[string]any{"kind": "deposit", "amount": "500"}), 201)
		acc := apitest.Object(t, apitest.Must(t, a.Do("PATCH", "/api/accounts/"+id, map[string]any{"startingBalance": "-250"}), 200), "account")
		if acc["startingBalance"] != "-250.0000" || acc["balance"] != "250.0000" {
			t.Fatalf("account %v", acc)
		}
		acc = apitest.Object(t, apitest.Must(t, a.Do("PATCH", "/api/accounts/"+id, map[string]any{"defaultRiskPercent": nil, "brokerageId": nil, "archived": true, "name": "Renamed"}), 200), "account")
		if acc["defaultRiskPercent"] != nil || acc["brokerageId"] != nil || acc["archived"] != true || acc["name"] != "Renamed" || acc["balance"] != "250.0000" {
			t.Fatalf("account %v", acc)
		}
	})

	long := strings.Repeat("x", 101)
	apitest.Run(t, a, []apitest.Case{
		{Name: "UnknownCurrency", Method: "POST", Path: "/api/accounts", Body: map[string]any{"name": "X", "currency": "ABC"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "NotACurrency", Method: "POST", Path: "/api/accounts", Body: map[string]any{"name": "X", "currency": "XXX"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "MissingCurrency", Method: "POST", Path: "/api/accounts", Body: map[string]any{"name": "X"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "MissingName", Method: "POST", Path: "/api/accounts", Body: map[string]any{"currency": "USD"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "LongName", Method: "POST", Path: "/api/accounts", Body: map[string]any{"name": long, "currency": "USD"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "BadTimezone", Method: "POST", Path: "/api/accounts", Body: map[string]any{"name": "X", "currency": "USD", "timezone": "Mars/Base"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "BalanceAsNumber", Method: "POST", Path: "/api/accounts", Body: map[string]any{"name": "X", "currency": "USD", "startingBalance": 100}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "BalanceTooManyPlaces", Method: "POST", Path: "/api/accounts", Body: map[string]any{"name": "X", "currency": "USD", "startingBalance": "1.00001"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "BalanceOutOfRange", Method: "POST", Path: "/api/accounts", Body: map[string]any{"name": "X", "currency": "USD", "startingBalance": "100000000000000"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "RiskZero", Method: "POST", Path: "/api/accounts", Body: map[string]any{"name": "X", "currency": "USD", "defaultRiskPercent": "0"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "RiskOver100", Method: "POST", Path: "/api/accounts", Body: map[string]any{"name": "X", "currency": "USD", "defaultRiskPercent": "100.5"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "BrokerageMalformed", Method: "POST", Path: "/api/accounts", Body: map[string]any{"name": "X", "currency": "USD", "brokerageId": "1"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "BrokerageMissing", Method: "POST", Path: "/api/accounts", Body: map[string]any{"name": "X", "currency": "USD", "brokerageId": missingID}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "UnknownField", Method: "POST", Path: "/api/accounts", Body: map[string]any{"name": "X", "currency": "USD", "balance": "5"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "NotJSON", Method: "POST", Path: "/api/accounts", Body: "{", Status: 400, Code: "INVALID_JSON"},
		{Name: "PatchBlankBalance", Method: "PATCH", Path: "/api/accounts/" + id, Body: map[string]any{"startingBalance": ""}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "PatchBadCurrency", Method: "PATCH", Path: "/api/accounts/" + id, Body: map[string]any{"currency": "US"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "DeleteBadConfirm", Method: "DELETE", Path: "/api/accounts/" + id + "?confirm=yes", Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "MalformedID", Method: "GET", Path: "/api/accounts/not-a-uuid", Status: 404},
		{Name: "UppercaseID", Method: "GET", Path: "/api/accounts/" + strings.ToUpper(id), Status: 404},
		{Name: "Missing", Method: "GET", Path: "/api/accounts/" + missingID, Status: 404},
	})
	t.Run("NothingWrittenByBadInput", func(t *testing.T) {
		var n int
		if err := srv.App.DB.QueryRow(ctx, `SELECT count(*) FROM accounts`).Scan(&n); err != nil || n != 2 {
			t.Fatalf("%d accounts (%v)", n, err)
		}
	})
	t.Run("DetailsNameEveryField", func(t *testing.T) {
		r := apitest.Must(t, a.Do("POST", "/api/accounts", map[string]any{"currency": "QQQ", "timezone": "x", "startingBalance": "1e5"}), 400)
		e := apitest.Object(t, r, "error")
		details := e["details"].([]any)
		fields := map[string]bool{}
		for _, d := range details {
			fields[d.(map[string]any)["field"].(string)] = true
		}
		for _, f := range []string{"name", "currency", "timezone", "startingBalance"} {
			if !fields[f] {
				t.Errorf("details lack %s: %s", f, r.Body)
			}
		}
	})

	// Another user's account is a codeless 404 on every route, exactly like a missing one.
	apitest.Run(t, b, []apitest.Case{
		{Name: "OtherGet", Method: "GET", Path: "/api/accounts/" + id, Status: 404},
		{Name: "OtherPatch", Method: "PATCH", Path: "/api/accounts/" + id, Body: map[string]any{"name": "Mine"}, Status: 404},
		{Name: "OtherDelete", Method: "DELETE", Path: "/api/accounts/" + id + "?confirm=true", Status: 404},
		{Name: "OtherLedger", Method: "GET", Path: "/api/accounts/" + id + "/ledger", Status: 404},
		{Name: "OtherDeposit", Method: "POST", Path: "/api/accounts/" + id + "/ledger", Body: map[string]any{"kind": "deposit", "amount": "1"}, Status: 404},
	})
	r := apitest.Must(t, a.Do("GET", "/api/accounts/"+id, nil), 200)
	if acc := apitest.Object(t, r, "account"); acc["name"] != "Renamed" || acc["balance"] != "250.0000" {
		t.Fatalf("another user's requests changed the account: %v", acc)
	}

	t.Run("Unauthenticated", func(t *testing.T) {
		r := srv.Client(t).Do("GET", "/api/accounts", nil)
		if r.Status != 401 || r.ErrorCode() != "UNAUTHENTICATED" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
}

func TestDeleteAccountConfirmation(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	a := srv.Client(t)
	a.Register("a@example.com", "password1")
	ctx := context.Background()

	empty := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/accounts", map[string]any{"name": "Empty", "currency": "USD"}), 201), "account")["id"].(string)
	apitest.Must(t, a.Do("DELETE", "/api/accounts/"+empty, nil), 204)
	apitest.Must(t, a.Do("GET", "/api/accounts/"+empty, nil), 404)

	id := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/accounts", map[string]any{"name": "Busy", "currency": "USD"}), 201), "account")["id"].(string)
	for range 2 {
		apitest.Must(t, a.Do("POST", "/api/positions", map[string]any{"accountId": id, "symbol": "AAPL", "assetType": "stock", "side": "long",
			"fills": []any{map[string]any{"type": "entry", "price": "10", "quantity": "5", "filledAt": "2024-01-02T15:00:00Z"}}}), 201)
	}
	r := a.Do("DELETE", "/api/accounts/"+id, nil)
	if r.Status != 409 || r.ErrorCode() != "CONFLICT" || !strings.Contains(string(r.Body), "2 positions") || !strings.Contains(string(r.Body), "confirm=true") {
		t.Fatalf("unconfirmed delete: %d %s", r.Status, r.Body)
	}
	apitest.Must(t, a.Do("DELETE", "/api/accounts/"+id+"?confirm=false", nil), 409)
	apitest.Must(t, a.Do("GET", "/api/accounts/"+id, nil), 200)

	apitest.Must(t, a.Do("DELETE", "/api/accounts/"+id+"?confirm=true", nil), 204)
	apitest.Must(t, a.Do("GET", "/api/accounts/"+id, nil), 404)
	var n int
	if err := srv.App.DB.QueryRow(ctx, `SELECT (SELECT count(*) FROM positions) + (SELECT count(*) FROM fills) + (SELECT count(*) FROM ledger_entries)`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d rows left behind (%v)", n, err)
	}
}

func TestLedger(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	a := srv.Client(t)
	a.Register("a@example.com", "password1")
	id := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/accounts", map[string]any{"name": "Main", "currency": "USD", "startingBalance": "1000"}), 201), "account")["id"].(string)
	base := "/api/accounts/" + id + "/ledger"

	r := apitest.Must(t, a.Do("POST", base, map[string]any{"kind": "deposit", "amount": "250.25", "occurredAt": "2024-01-02T10:00:00Z", "note": "top-up"}), 201)
	if e, acc := apitest.Object(t, r, "entry"), apitest.Object(t, r, "account"); e["amount"] != "250.2500" || e["kind"] != "deposit" || e["positionId"] != nil || acc["balance"] != "1250.2500" {
		t.Fatalf("deposit: %s", r.Body)
	}
	r = apitest.Must(t, a.Do("POST", base, map[string]any{"kind": "withdrawal", "amount": "50", "occurredAt": "2024-01-03T10:00:00Z"}), 201)
	withdrawal := apitest.Object(t, r, "entry")["id"].(string)
	if apitest.Object(t, r, "entry")["amount"] != "-50.0000" || apitest.Object(t, r, "account")["balance"] != "1200.2500" {
		t.Fatalf("withdrawal: %s", r.Body)
	}
	for i := range 5 {
		apitest.Must(t, a.Do("POST", base, map[string]any{"kind": "deposit", "amount": "1", "occurredAt": "2024-02-0" + string(rune('1'+i)) + "T10:00:00Z"}), 201)
	}
	// A position's fill adds its fee to the same ledger.
	apitest.Must(t, a.Do("POST", "/api/positions", map[string]any{"accountId": id, "symbol": "MSFT", "assetType": "stock", "side": "long",
		"fills": []any{map[string]any{"type": "entry", "price": "10", "quantity": "5", "fees": "0.35", "filledAt": "2024-03-01T15:00:00Z"}}}), 201)

	t.Run("Pages", func(t *testing.T) {
		var seen []string
		cursor := ""
		for page := 0; ; page++ {
			path := base + "?limit=3"
			if cursor != "" {
				path += "&cursor=" + cursor
			}
			r := apitest.Must(t, a.Do("GET", path, nil), 200)
			for _, it := range apitest.Items(t, r) {
				seen = append(seen, it.(map[string]any)["occurredAt"].(string))
			}
			next, _ := r.JSON["nextCursor"].(string)
			if next == "" {
				break
			}
			cursor = next
			if page > 5 {
				t.Fatal("no end")
			}
		}
		if len(seen) != 8 || seen[0] != "2024-03-01T15:00:00Z" || seen[7] != "2024-01-02T10:00:00Z" {
			t.Fatalf("entries %v", seen)
		}
		r := apitest.Must(t, a.Do("GET", base+"?kind=fee", nil), 200)
		if l := apitest.Items(t, r); len(l) != 1 || l[0].(map[string]any)["amount"] != "-0.3500" {
			t.Fatalf("fees %s", r.Body)
		}
	})
	t.Run("DeleteDeposit", func(t *testing.T) {
		r := apitest.Must(t, a.Do("DELETE", base+"/"+withdrawal, nil), 200)
		acc, rev := apitest.Object(t, r, "account"), apitest.Object(t, r, "entry")
		if acc["balance"] != "1254.9000" { // 1000 + 250.25 + 5 - 0.35
			t.Fatalf("balance %v", acc["balance"])
		}
		// The withdrawal stays, reversed by an entry of its kind and date.
		if rev["kind"] != "withdrawal" || rev["amount"] != "50.0000" || rev["reversesId"] != withdrawal ||
			rev["occurredAt"] != "2024-01-03T10:00:00Z" || rev["note"] != "Reverses the withdrawal of 2024-01-03" {
			t.Fatalf("reversal %s", r.Body)
		}
		list := apitest.Items(t, apitest.Must(t, a.Do("GET", base+"?kind=withdrawal", nil), 200))
		if len(list) != 2 {
			t.Fatalf("the list shows %d withdrawals, want the entry and its reversal", len(list))
		}
		for _, it := range list {
			if e := it.(map[string]any); e["id"] == withdrawal && e["reversedBy"] != rev["id"] {
				t.Fatalf("the reversed entry: %v", e)
			}
		}
		for _, again := range []string{withdrawal, rev["id"].(string)} {
			if r := a.Do("DELETE", base+"/"+again, nil); r.Status != 409 || r.ErrorCode() != "CONFLICT" {
				t.Fatalf("deleting %s again: %d %s", again, r.Status, r.Body)
			}
		}
		apitest.Must(t, a.Do("DELETE", base+"/"+missingID, nil), 404)
		fee := apitest.Items(t, apitest.Must(t, a.Do("GET", base+"?kind=fee", nil), 200))[0].(map[string]any)["id"].(string)
		if r := a.Do("DELETE", base+"/"+fee, nil); r.Status != 409 || r.ErrorCode() != "CONFLICT" {
			t.Fatalf("deleting a fill's entry: %d %s", r.Status, r.Body)
		}
	})
	apitest.Run(t, a, []apitest.Case{
		{Name: "KindRealized", Method: "POST", Path: base, Body: map[string]any{"kind": "realized_pnl", "amount": "5"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "NoKind", Method: "POST", Path: base, Body: map[string]any{"amount": "5"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "ZeroAmount", Method: "POST", Path: base, Body: map[string]any{"kind": "deposit", "amount": "0"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "NegativeAmount", Method: "POST", Path: base, Body: map[string]any{"kind": "withdrawal", "amount": "-5"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "BadDate", Method: "POST", Path: base, Body: map[string]any{"kind": "deposit", "amount": "5", "occurredAt": "2024-02-30T00:00:00Z"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "DateOnly", Method: "POST", Path: base, Body: map[string]any{"kind": "deposit", "amount": "5", "occurredAt": "2024-02-01"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "FarFuture", Method: "POST", Path: base, Body: map[string]any{"kind": "deposit", "amount": "5", "occurredAt": "2999-01-01T00:00:00Z"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "LongNote", Method: "POST", Path: base, Body: map[string]any{"kind": "deposit", "amount": "5", "note": strings.Repeat("n", 501)}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "NulNote", Method: "POST", Path: base, Body: map[string]any{"kind": "deposit", "amount": "5", "note": "a\u0000b"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "BadCursor", Method: "GET", Path: base + "?cursor=zzz", Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "BadLimit", Method: "GET", Path: base + "?limit=ten", Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "BadKindFilter", Method: "GET", Path: base + "?kind=bonus", Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "MalformedAccount", Method: "GET", Path: "/api/accounts/x/ledger", Status: 404},
		{Name: "MalformedEntry", Method: "DELETE", Path: base + "/x", Status: 404},
	})
	var bad int
	if err := srv.App.DB.QueryRow(context.Background(), `SELECT count(*) FROM accounts a WHERE balance <> starting_balance
		+ coalesce((SELECT sum(amount) FROM ledger_entries l WHERE l.account_id = a.id), 0)`).Scan(&bad); err != nil || bad != 0 {
		t.Fatalf("balance drifted from the ledger (%d, %v)", bad, err)
	}
}

func TestBrokerages(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	a, b := srv.Client(t), srv.Client(t)
	a.Register("a@example.com", "password1")
	b.Register("b@example.com", "password1")

	l := apitest.Items(t, apitest.Must(t, a.Do("GET", "/api/brokerages", nil), 200))
	if len(l) != 4 || l[1].(map[string]any)["builtIn"] != true || l[1].(map[string]any)["stockPerShareCommission"] != "0.005" {
		t.Fatalf("built-ins %v", l)
	}
	created := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/brokerages", map[string]any{"name": "My broker", "stockPerShareCommission": "0.0035", "stockMinPerFill": "0.35"}), 201), "brokerage")
	id := created["id"].(string)
	if created["builtIn"] != false || created["optionsPerContractCommission"] != "0" || created["stockMinPerFill"] != "0.35" {
		t.Fatalf("created %v", created)
	}
	updated := apitest.Object(t, apitest.Must(t, a.Do("PATCH", "/api/brokerages/"+id, map[string]any{"optionsPerContractCommission": "0.5", "stockMinPerFill": nil}), 200), "brokerage")
	if updated["optionsPerContractCommission"] != "0.5" || updated["stockMinPerFill"] != "0" || updated["stockPerShareCommission"] != "0.0035" {
		t.Fatalf("updated %v", updated)
	}
	apitest.Must(t, a.Do("GET", "/api/brokerages/"+ibFixed, nil), 200)
	if l := apitest.Items(t, apitest.Must(t, b.Do("GET", "/api/brokerages", nil), 200)); len(l) != 4 {
		t.Fatalf("b sees %d brokerages", len(l))
	}

	apitest.Run(t, a, []apitest.Case{
		{Name: "BuiltInPatch", Method: "PATCH", Path: "/api/brokerages/" + ibFixed, Body: map[string]any{"name": "Mine now"}, Status: 404},
		{Name: "BuiltInDelete", Method: "DELETE", Path: "/api/brokerages/" + ibFixed, Status: 404},
		{Name: "NoName", Method: "POST", Path: "/api/brokerages", Body: map[string]any{"stockMinPerFill": "1"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "NegativeFee", Method: "POST", Path: "/api/brokerages", Body: map[string]any{"name": "X", "stockMinPerFill": "-1"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "FeeAsNumber", Method: "POST", Path: "/api/brokerages", Body: map[string]any{"name": "X", "stockMinPerFill": 1}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "FeeTooLarge", Method: "POST", Path: "/api/brokerages", Body: map[string]any{"name": "X", "optionsMaxPerFill": "10000000"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "FeeNinePlaces", Method: "POST", Path: "/api/brokerages", Body: map[string]any{"name": "X", "stockPerShareCommission": "0.000000001"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "Malformed", Method: "GET", Path: "/api/brokerages/abc", Status: 404},
	})
	apitest.Run(t, b, []apitest.Case{
		{Name: "OtherGet", Method: "GET", Path: "/api/brokerages/" + id, Status: 404},
		{Name: "OtherPatch", Method: "PATCH", Path: "/api/brokerages/" + id, Body: map[string]any{"name": "x"}, Status: 404},
		{Name: "OtherDelete", Method: "DELETE", Path: "/api/brokerages/" + id, Status: 404},
		{Name: "OtherUsedByAccount", Method: "POST", Path: "/api/accounts", Body: map[string]any{"name": "X", "currency": "USD", "brokerageId": id}, Status: 400, Code: "VALIDATION_ERROR"},
	})
	acc := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/accounts", map[string]any{"name": "X", "currency": "USD", "brokerageId": id}), 201), "account")["id"].(string)
	apitest.Must(t, a.Do("DELETE", "/api/brokerages/"+id, nil), 204)
	if r := apitest.Object(t, apitest.Must(t, a.Do("GET", "/api/accounts/"+acc, nil), 200), "account"); r["brokerageId"] != nil {
		t.Fatalf("account keeps a deleted brokerage: %v", r)
	}
}

func TestTags(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	a, b := srv.Client(t), srv.Client(t)
	a.Register("a@example.com", "password1")
	b.Register("b@example.com", "password1")

	tag := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/tags", map[string]any{"name": "Breakout", "category": "setup"}), 201), "tag")
	id := tag["id"].(string)
	if g := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/tags", map[string]any{"name": "Misc"}), 201), "tag"); g["category"] != "general" {
		t.Fatalf("default category %v", g)
	}
	if r := a.Do("POST", "/api/tags", map[string]any{"name": "BREAKOUT"}); r.Status != 409 || r.ErrorCode() != "CONFLICT" {
		t.Fatalf("duplicate: %d %s", r.Status, r.Body)
	}
	apitest.Must(t, b.Do("POST", "/api/tags", map[string]any{"name": "Breakout"}), 201) // names are per user
	updated := apitest.Object(t, apitest.Must(t, a.Do("PATCH", "/api/tags/"+id, map[string]any{"category": "mistake", "name": "Chased"}), 200), "tag")
	if updated["category"] != "mistake" || updated["name"] != "Chased" {
		t.Fatalf("updated %v", updated)
	}
	if r := a.Do("PATCH", "/api/tags/"+id, map[string]any{"name": "misc"}); r.Status != 409 {
		t.Fatalf("rename onto another tag: %d %s", r.Status, r.Body)
	}
	if l := apitest.Items(t, apitest.Must(t, a.Do("GET", "/api/tags", nil), 200)); len(l) != 2 {
		t.Fatalf("tags %v", l)
	}
	if got := apitest.Object(t, apitest.Must(t, a.Do("GET", "/api/tags/"+id, nil), 200), "tag"); got["name"] != "Chased" || got["category"] != "mistake" || got["id"] != id {
		t.Fatalf("read one tag: %v", got)
	}
	for _, category := range []string{"setup", "mistake", "emotion", "general"} {
		if got := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/tags", map[string]any{"name": "Every " + category, "category": category}), 201), "tag"); got["category"] != category {
			t.Fatalf("category %s: %v", category, got)
		}
	}
	apitest.Run(t, a, []apitest.Case{
		{Name: "BadCategory", Method: "POST", Path: "/api/tags", Body: map[string]any{"name": "X", "category": "mood"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "BlankName", Method: "POST", Path: "/api/tags", Body: map[string]any{"name": "  "}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "LongName", Method: "POST", Path: "/api/tags", Body: map[string]any{"name": strings.Repeat("t", 51)}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "Malformed", Method: "PATCH", Path: "/api/tags/x", Body: map[string]any{"name": "y"}, Status: 404},
		{Name: "MalformedGet", Method: "GET", Path: "/api/tags/x", Status: 404},
		{Name: "MissingGet", Method: "GET", Path: "/api/tags/" + missingID, Status: 404},
	})
	apitest.Run(t, b, []apitest.Case{
		{Name: "OtherGet", Method: "GET", Path: "/api/tags/" + id, Status: 404},
		{Name: "OtherPatch", Method: "PATCH", Path: "/api/tags/" + id, Body: map[string]any{"name": "x"}, Status: 404},
		{Name: "OtherDelete", Method: "DELETE", Path: "/api/tags/" + id, Status: 404},
	})
	apitest.Must(t, a.Do("DELETE", "/api/tags/"+id, nil), 204)
	apitest.Must(t, a.Do("DELETE", "/api/tags/"+id, nil), 404)
	apitest.Must(t, a.Do("GET", "/api/tags/"+id, nil), 404)
}
