package accounts_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
)

func newAccount(t *testing.T, c *apitest.Client, body map[string]any) string {
	t.Helper()
	return apitest.Object(t, apitest.Must(t, c.Do("POST", "/api/accounts", body), 201), "account")["id"].(string)
}

func TestReconcile(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	a, b := srv.Client(t), srv.Client(t)
	a.Register("a@example.com", "password1")
	b.Register("b@example.com", "password1")
	id := newAccount(t, a, map[string]any{"name": "Main", "currency": "USD", "startingBalance": "1000"})
	base := "/api/accounts/" + id + "/ledger"
	apitest.Must(t, a.Do("POST", base, map[string]any{"kind": "deposit", "amount": "200"}), 201)

	r := apitest.Must(t, a.Do("POST", base+"/reconcile", map[string]any{"balance": "1187.65"}), 201)
	e, acc := apitest.Object(t, r, "entry"), apitest.Object(t, r, "account")
	if e["kind"] != "adjustment" || e["amount"] != "-12.3500" || acc["balance"] != "1187.6500" ||
		e["note"] != "Reconciled to the broker's balance of 1187.65" {
		t.Fatalf("reconcile: %s", r.Body)
	}
	t.Run("AlreadyEqual", func(t *testing.T) {
		r := apitest.Must(t, a.Do("POST", base+"/reconcile", map[string]any{"balance": "1187.6500"}), 200)
		if r.JSON["entry"] != nil || apitest.Object(t, r, "account")["balance"] != "1187.6500" {
			t.Fatalf("%s", r.Body)
		}
	})
	t.Run("NegativeBalanceAndNote", func(t *testing.T) {
		r := apitest.Must(t, a.Do("POST", base+"/reconcile", map[string]any{"balance": "-5", "note": "margin call", "occurredAt": "2024-05-01T00:00:00Z"}), 201)
		if e := apitest.Object(t, r, "entry"); e["amount"] != "-1192.6500" || e["note"] != "margin call" || e["occurredAt"] != "2024-05-01T00:00:00Z" {
			t.Fatalf("%s", r.Body)
		}
	})
	t.Run("AdjustmentReversed", func(t *testing.T) {
		var last string
		for _, it := range apitest.Items(t, apitest.Must(t, a.Do("GET", base+"?kind=adjustment", nil), 200)) {
			if e := it.(map[string]any); e["note"] == "margin call" {
				last = e["id"].(string)
			}
		}
		r := apitest.Must(t, a.Do("DELETE", base+"/"+last, nil), 200)
		if apitest.Object(t, r, "account")["balance"] != "1187.6500" {
			t.Fatalf("%s", r.Body)
		}
	})
	t.Run("Concurrent", func(t *testing.T) {
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() { a.Do("POST", base+"/reconcile", map[string]any{"balance": "5000"}) })
		}
		wg.Wait()
		acc := apitest.Object(t, apitest.Must(t, a.Do("GET", "/api/accounts/"+id, nil), 200), "account")
		if acc["balance"] != "5000.0000" {
			t.Fatalf("balance after concurrent reconciles %v", acc["balance"])
		}
	})
	apitest.Run(t, a, []apitest.Case{
		{Name: "NoBalance", Method: "POST", Path: base + "/reconcile", Body: map[string]any{}, Status: 400, Code: "VALIDATION_ERROR", Field: "balance"},
		{Name: "NumberBalance", Method: "POST", Path: base + "/reconcile", Body: map[string]any{"balance": 5}, Status: 400, Code: "VALIDATION_ERROR", Field: "balance"},
		{Name: "HugeBalance", Method: "POST", Path: base + "/reconcile", Body: map[string]any{"balance": "1e20"}, Status: 400, Code: "VALIDATION_ERROR", Field: "balance"},
		{Name: "TooPrecise", Method: "POST", Path: base + "/reconcile", Body: map[string]any{"balance": "1.00001"}, Status: 400, Code: "VALIDATION_ERROR", Field: "balance"},
		{Name: "BadDate", Method: "POST", Path: base + "/reconcile", Body: map[string]any{"balance": "1", "occurredAt": "yesterday"}, Status: 400, Code: "VALIDATION_ERROR", Field: "occurredAt"},
		{Name: "LongNote", Method: "POST", Path: base + "/reconcile", Body: map[string]any{"balance": "1", "note": strings.Repeat("n", 501)}, Status: 400, Code: "VALIDATION_ERROR", Field: "note"},
		{Name: "Malformed", Method: "POST", Path: base + "/reconcile", Body: `{"balance":`, Status: 400, Code: "INVALID_JSON"},
		{Name: "MalformedAccount", Method: "POST", Path: "/api/accounts/x/ledger/reconcile", Body: map[string]any{"balance": "1"}, Status: 404},
		{Name: "MissingAccount", Method: "POST", Path: "/api/accounts/" + missingID + "/ledger/reconcile", Body: map[string]any{"balance": "1"}, Status: 404},
	})
	apitest.Run(t, b, []apitest.Case{
		{Name: "OthersAccount", Method: "POST", Path: base + "/reconcile", Body: map[string]any{"balance": "1"}, Status: 404},
	})
	var bad int
	if err := srv.App.DB.QueryRow(context.Background(), `SELECT count(*) FROM accounts a WHERE balance <> starting_balance
		+ coalesce((SELECT sum(amount) FROM ledger_entries l WHERE l.account_id = a.id), 0)`).Scan(&bad); err != nil || bad != 0 {
		t.Fatalf("balance drifted from the ledger (%d, %v)", bad, err)
	}
}

func TestDuplicateBrokerage(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	a, b := srv.Client(t), srv.Client(t)
	a.Register("a@example.com", "password1")
	b.Register("b@example.com", "password1")
	dup := func(id string) map[string]any {
		return apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/brokerages/"+id+"/duplicate", nil), 201), "brokerage")
	}
	first := dup(ibFixed)
	if first["name"] != "Interactive Brokers (fixed) (copy)" || first["builtIn"] != false || first["stockPerShareCommission"] != "0.005" ||
		first["optionsPerContractCommission"] != "0.65" || first["id"] == ibFixed {
		t.Fatalf("copy of a built-in: %v", first)
	}
	if second := dup(ibFixed); second["name"] != "Interactive Brokers (fixed) (copy 2)" {
		t.Fatalf("second copy %v", second)
	}
	if own := dup(first["id"].(string)); own["name"] != "Interactive Brokers (fixed) (copy) (copy)" {
		t.Fatalf("copy of a copy %v", own)
	}
	long := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/brokerages", map[string]any{"name": strings.Repeat("x", 100)}), 201), "brokerage")
	if name := dup(long["id"].(string))["name"].(string); len(name) != 100 || !strings.HasSuffix(name, " (copy)") {
		t.Fatalf("copy of a 100-character name: %q", name)
	}
	// The copy is the user's own: it can be edited, and b does not see it.
	apitest.Must(t, a.Do("PATCH", "/api/brokerages/"+first["id"].(string), map[string]any{"stockPerShareCommission": "0.004"}), 200)
	apitest.Run(t, b, []apitest.Case{
		{Name: "OthersCopy", Method: "POST", Path: "/api/brokerages/" + first["id"].(string) + "/duplicate", Status: 404},
		{Name: "Missing", Method: "POST", Path: "/api/brokerages/" + missingID + "/duplicate", Status: 404},
		{Name: "Malformed", Method: "POST", Path: "/api/brokerages/x/duplicate", Status: 404},
	})
	apitest.Run(t, srv.Client(t), []apitest.Case{
		{Name: "SignedOut", Method: "POST", Path: "/api/brokerages/" + ibFixed + "/duplicate", Status: 401, Code: "UNAUTHENTICATED"},
	})
}

func TestPositionCounts(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	a, b := srv.Client(t), srv.Client(t)
	a.Register("a@example.com", "password1")
	b.Register("b@example.com", "password1")
	main := newAccount(t, a, map[string]any{"name": "Main", "currency": "USD", "brokerageId": ibFixed})
	second := newAccount(t, a, map[string]any{"name": "Second", "currency": "USD", "brokerageId": ibFixed})
	empty := newAccount(t, a, map[string]any{"name": "Empty", "currency": "USD"})
	fill := func(typ, qty, at string) map[string]any {
		return map[string]any{"type": typ, "price": "10", "quantity": qty, "filledAt": at}
	}
	for _, p := range []struct {
		account string
		fills   []any
	}{
		{main, []any{fill("entry", "5", "2024-03-01T15:00:00Z")}},
		{main, []any{fill("entry", "5", "2024-03-01T15:00:00Z"), fill("exit", "5", "2024-03-02T15:00:00Z")}},
		{main, nil},
		{second, []any{fill("entry", "1", "2024-03-01T15:00:00Z")}},
	} {
		apitest.Must(t, a.Do("POST", "/api/positions", map[string]any{"accountId": p.account, "symbol": "MSFT", "assetType": "stock", "side": "long", "fills": p.fills}), 201)
	}
	r := apitest.Must(t, a.Do("GET", "/api/accounts/position-counts", nil), 200)
	accounts := r.JSON["accounts"].([]any)
	want := map[string][4]float64{main: {1, 1, 1, 3}, second: {0, 1, 0, 1}, empty: {0, 0, 0, 0}}
	if len(accounts) != 3 {
		t.Fatalf("%s", r.Body)
	}
	for _, it := range accounts {
		c := it.(map[string]any)
		w := want[c["accountId"].(string)]
		if [4]float64{c["draft"].(float64), c["open"].(float64), c["closed"].(float64), c["total"].(float64)} != w {
			t.Fatalf("account counts %v, want %v", c, w)
		}
	}
	brokerages := r.JSON["brokerages"].([]any)
	if len(brokerages) != 2 {
		t.Fatalf("%s", r.Body)
	}
	none, ib := brokerages[0].(map[string]any), brokerages[1].(map[string]any)
	if none["brokerageId"] != nil || none["total"] != float64(0) || ib["brokerageId"] != ibFixed || ib["total"] != float64(4) || ib["open"] != float64(2) {
		t.Fatalf("brokerage counts %s", r.Body)
	}
	other := apitest.Must(t, b.Do("GET", "/api/accounts/position-counts", nil), 200)
	if len(other.JSON["accounts"].([]any)) != 0 || len(other.JSON["brokerages"].([]any)) != 0 {
		t.Fatalf("b: %s", other.Body)
	}
	apitest.Must(t, srv.Client(t).Do("GET", "/api/accounts/position-counts", nil), 401)
}

func TestBuyingPower(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	a := srv.Client(t)
	a.Register("a@example.com", "password1")
	acc := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/accounts", map[string]any{"name": "Margin", "currency": "USD", "buyingPower": "40000.5"}), 201), "account")
	if acc["buyingPower"] != "40000.5000" {
		t.Fatalf("created %v", acc)
	}
	id := acc["id"].(string)
	if acc := apitest.Object(t, apitest.Must(t, a.Do("PATCH", "/api/accounts/"+id, map[string]any{"name": "Renamed"}), 200), "account"); acc["buyingPower"] != "40000.5000" {
		t.Fatalf("kept %v", acc)
	}
	if acc := apitest.Object(t, apitest.Must(t, a.Do("PATCH", "/api/accounts/"+id, map[string]any{"buyingPower": "-10"}), 200), "account"); acc["buyingPower"] != "-10.0000" {
		t.Fatalf("negative (the calculator's buying-power-zero) %v", acc)
	}
	if acc := apitest.Object(t, apitest.Must(t, a.Do("PATCH", "/api/accounts/"+id, map[string]any{"buyingPower": nil}), 200), "account"); acc["buyingPower"] != nil {
		t.Fatalf("cleared %v", acc)
	}
	apitest.Run(t, a, []apitest.Case{
		{Name: "Number", Method: "PATCH", Path: "/api/accounts/" + id, Body: map[string]any{"buyingPower": 5}, Status: 400, Code: "VALIDATION_ERROR", Field: "buyingPower"},
		{Name: "Huge", Method: "PATCH", Path: "/api/accounts/" + id, Body: map[string]any{"buyingPower": "1e20"}, Status: 400, Code: "VALIDATION_ERROR", Field: "buyingPower"},
		{Name: "Words", Method: "POST", Path: "/api/accounts", Body: map[string]any{"name": "X", "currency": "USD", "buyingPower": "lots"}, Status: 400, Code: "VALIDATION_ERROR", Field: "buyingPower"},
	})
}
