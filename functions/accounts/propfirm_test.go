package accounts_test

import (
	"context"
	"strings"
	"testing"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
)

// trade opens 5 shares (the combine's most contracts) at entry and closes them at exit on a day of April
// 2026 (14:00 and 19:00 UTC: one trading day on a Chicago or New York
// clock), and sets its review (the MFE) when given.
func trade(t *testing.T, c *apitest.Client, account, day, entry, exit string, review map[string]any) string {
	t.Helper()
	body := map[string]any{"accountId": account, "symbol": "MSFT", "assetType": "stock", "side": "long", "fills": []any{
		map[string]any{"type": "entry", "price": entry, "quantity": "5", "filledAt": "2026-04-" + day + "T14:00:00Z"},
		map[string]any{"type": "exit", "price": exit, "quantity": "5", "filledAt": "2026-04-" + day + "T19:00:00Z"},
	}}
	id := apitest.Object(t, apitest.Must(t, c.Do("POST", "/api/positions", body), 201), "position")["id"].(string)
	if review != nil {
		apitest.Must(t, c.Do("PATCH", "/api/positions/"+id, review), 200)
	}
	return id
}

// sized finds a template's plan of one size in GET /api/prop-firm/templates.
func sized(t *testing.T, c *apitest.Client, id, label string) map[string]any {
	t.Helper()
	r := apitest.Must(t, c.Do("GET", "/api/prop-firm/templates", nil), 200)
	if n, _ := r.JSON["notice"].(string); !strings.Contains(n, "check your firm's current rules") {
		t.Fatalf("templates without the notice: %s", r.Body)
	}
	for _, tp := range apitest.Items(t, r) {
		tp := tp.(map[string]any)
		for _, s := range tp["sizes"].([]any) {
			s := s.(map[string]any)
			if tp["id"] == id && s["label"] == label {
				return s["plan"].(map[string]any)
			}
		}
	}
	t.Fatalf("no template %s %s: %s", id, label, r.Body)
	return nil
}

func TestPropFirm(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	a, b := srv.Client(t), srv.Client(t)
	a.Register("a@example.com", "password1")
	b.Register("b@example.com", "password1")
	acc := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/accounts", map[string]any{"name": "Combine", "currency": "USD", "startingBalance": "50000"}), 201), "account")["id"].(string)
	path := "/api/accounts/" + acc + "/prop-firm"

	if r := apitest.Must(t, a.Do("GET", path, nil), 200); r.JSON["propFirm"] != nil {
		t.Fatalf("a plan before one was set: %s", r.Body)
	}
	apitest.Must(t, a.Do("GET", path+"/status", nil), 404)

	// The combine's 50K from its template, then the published walk-through:
	// +800, +600, -500, -900, -1,450; the end-of-day floor trails to 49,400
	// and the fifth day's close at 48,550 breaks it.
	plan := apitest.Object(t, apitest.Must(t, a.Do("PUT", path, sized(t, a, "futures-combine", "50000")), 200), "propFirm")["plan"].(map[string]any)
	if plan["startingBalance"] != "50000" || plan["maxDrawdown"].(map[string]any)["kind"] != "trailingEndOfDay" {
		t.Fatalf("plan %v", plan)
	}
	trade(t, a, acc, "06", "100", "260", nil)
	trade(t, a, acc, "07", "100", "220", nil)
	trade(t, a, acc, "08", "200", "100", nil)
	trade(t, a, acc, "09", "300", "120", nil)
	fifth := trade(t, a, acc, "10", "400", "110", nil)

	st := apitest.Must(t, a.Do("GET", path+"/status", nil), 200)
	s := st.JSON["status"].(map[string]any)
	breach, _ := s["breach"].(map[string]any)
	if s["result"] != "failed" || breach["positionId"] != fifth || breach["date"] != "2026-04-10" || breach["rule"] != "maxDrawdown" {
		t.Fatalf("status %s", st.Body)
	}
	if s["balance"] != "48550" || s["maxDrawdown"].(map[string]any)["floor"] != "49400" || len(s["days"].([]any)) != 5 {
		t.Fatalf("figures %s", st.Body)
	}
	if st.JSON["phase"] != "evaluation" {
		t.Fatalf("phase %s", st.Body)
	}
	// The phase column is the plan's: the two cannot differ.
	if _, err := srv.App.DB.Exec(context.Background(), `UPDATE prop_firm_plans SET phase = 'funded' WHERE account_id = $1`, acc); err == nil {
		t.Fatal("the phase column differs from the plan's")
	}

	t.Run("IntradayOpenProfit", func(t *testing.T) {
		// Up 2,000 open (MFE 500 on 5 shares from 100), closed at +200:
		// the threshold trails to 49,500.
		other := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/accounts", map[string]any{"name": "Threshold", "currency": "USD"}), 201), "account")["id"].(string)
		apitest.Must(t, a.Do("PUT", "/api/accounts/"+other+"/prop-firm", sized(t, a, "intraday-threshold", "50000")), 200)
		trade(t, a, other, "06", "100", "140", map[string]any{"mfePrice": "500"})
		s := apitest.Must(t, a.Do("GET", "/api/accounts/"+other+"/prop-firm/status", nil), 200).JSON["status"].(map[string]any)
		dd := s["maxDrawdown"].(map[string]any)
		if dd["floor"] != "49500" || dd["distance"] != "700" || s["highWaterMark"] != "52000" {
			t.Fatalf("status %v", s)
		}
		all := apitest.Items(t, apitest.Must(t, a.Do("GET", "/api/prop-firm/status", nil), 200))
		if len(all) != 2 || all[0].(map[string]any)["name"] != "Combine" {
			t.Fatalf("all statuses %v", all)
		}
		// Each account judged on its own trades (one read for both), and
		// only what the banner shows: no plan, no days.
		combine, threshold := all[0].(map[string]any), all[1].(map[string]any)
		if combine["result"] != "failed" || combine["breach"].(map[string]any)["date"] != "2026-04-10" || combine["phase"] != "evaluation" ||
			combine["warnAtPercent"] != 80.0 || combine["dailyLoss"].(map[string]any)["amount"] != "1000" {
			t.Fatalf("the combine at a glance %v", combine)
		}
		if threshold["result"] != "inProgress" || threshold["breach"] != nil || threshold["dailyLoss"] != nil {
			t.Fatalf("the threshold at a glance %v", threshold)
		}
		for _, key := range []string{"status", "plan", "days"} {
			if _, ok := combine[key]; ok {
				t.Errorf("the banner's list carries %s: %v", key, combine)
			}
		}
	})

	t.Run("AnotherUsersAccountIsUnreachable", func(t *testing.T) {
		apitest.Run(t, b, []apitest.Case{
			{Name: "Get", Method: "GET", Path: path, Status: 404},
			{Name: "Put", Method: "PUT", Path: path, Body: sized(t, b, "futures-combine", "50000"), Status: 404},
			{Name: "Delete", Method: "DELETE", Path: path, Status: 404},
			{Name: "Status", Method: "GET", Path: path + "/status", Status: 404},
			{Name: "Malformed", Method: "GET", Path: "/api/accounts/not-an-id/prop-firm/status", Status: 404},
		})
		if items := apitest.Items(t, apitest.Must(t, b.Do("GET", "/api/prop-firm/status", nil), 200)); len(items) != 0 {
			t.Fatalf("b sees %v", items)
		}
	})

	t.Run("BadPlans", func(t *testing.T) {
		funded := func(extra map[string]any) map[string]any {
			m := map[string]any{"phase": "funded", "startingBalance": "50000"}
			for k, v := range extra {
				m[k] = v
			}
			return m
		}
		apitest.Run(t, a, []apitest.Case{
			{Name: "NoTarget", Method: "PUT", Path: path, Body: map[string]any{"phase": "evaluation", "startingBalance": "50000"}, Status: 400, Code: "VALIDATION_ERROR", Field: "profitTarget"},
			{Name: "Kind", Method: "PUT", Path: path, Body: funded(map[string]any{"maxDrawdown": map[string]any{"amount": "2000", "kind": "sometimes"}}), Status: 400, Code: "VALIDATION_ERROR", Field: "maxDrawdown.kind"},
			{Name: "DailyNumber", Method: "PUT", Path: path, Body: funded(map[string]any{"dailyLoss": map[string]any{"amount": 1000}}), Status: 400, Code: "VALIDATION_ERROR", Field: "dailyLoss.amount"},
			{Name: "Zone", Method: "PUT", Path: path, Body: funded(map[string]any{"timezone": "Nowhere/Town"}), Status: 400, Code: "VALIDATION_ERROR", Field: "timezone"},
			{Name: "UnknownField", Method: "PUT", Path: path, Body: funded(map[string]any{"drawdown": "5"}), Status: 400, Code: "VALIDATION_ERROR", Field: "drawdown"},
			{Name: "ObjectAsString", Method: "PUT", Path: path, Body: funded(map[string]any{"dailyLoss": "1000"}), Status: 400, Code: "VALIDATION_ERROR", Field: "dailyLoss"},
			{Name: "MissingAccount", Method: "PUT", Path: "/api/accounts/" + missingID + "/prop-firm", Body: funded(nil), Status: 404},
		})
		// Nothing was written: the plan is the template's still.
		if p := apitest.Object(t, apitest.Must(t, a.Do("GET", path, nil), 200), "propFirm")["plan"].(map[string]any); p["phase"] != "evaluation" {
			t.Fatalf("plan %v", p)
		}
	})

	t.Run("Delete", func(t *testing.T) {
		apitest.Must(t, a.Do("DELETE", path, nil), 204)
		apitest.Must(t, a.Do("DELETE", path, nil), 204)
		apitest.Must(t, a.Do("GET", path+"/status", nil), 404)
	})
}
