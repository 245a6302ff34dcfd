package rules_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
)

var clock = time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)

const missingID = "0b9d8f4e-1c2a-4e5f-9a7b-1234567890ab"

func start(t *testing.T) *apitest.Server {
	t.Helper()
	return apitest.StartAt(t, apitest.Config(t), func() time.Time { return clock }, functions.All)
}

func account(t *testing.T, c *apitest.Client, currency, zone string) string {
	t.Helper()
	return apitest.Object(t, apitest.Must(t, c.Do("POST", "/api/accounts", map[string]any{
		"name": currency + " " + zone, "currency": currency, "timezone": zone, "startingBalance": "10000"}), 201), "account")["id"].(string)
}

// trade enters qty at 100 at entry and leaves at exit (RFC 3339) at the
// price out; stop "" is none.
func trade(t *testing.T, c *apitest.Client, accountID, symbol, stop, qty, entry, exit, out string) string {
	t.Helper()
	body := map[string]any{"accountId": accountID, "symbol": symbol, "assetType": "stock", "side": "long", "fills": []any{
		map[string]any{"type": "entry", "price": "100", "quantity": qty, "filledAt": entry},
		map[string]any{"type": "exit", "price": out, "quantity": qty, "filledAt": exit}}}
	if stop != "" {
		body["stopLoss"] = stop
	}
	return apitest.Object(t, apitest.Must(t, c.Do("POST", "/api/positions", body), 201), "position")["id"].(string)
}

func TestRules(t *testing.T) {
	srv := start(t)
	a, b := srv.Client(t), srv.Client(t)
	a.Register("a@example.com", "password1")
	b.Register("b@example.com", "password1")
	acc := account(t, a, "USD", "America/New_York")
	bAcc := account(t, b, "USD", "America/New_York")

	var ruleID string
	t.Run("Create", func(t *testing.T) {
		r := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/rules", map[string]any{"type": "maxTradesPerDay", "params": map[string]any{"count": 5}}), 201), "rule")
		if r["type"] != "maxTradesPerDay" || r["enabled"] != true || r["accountId"] != nil || fmt.Sprint(r["params"]) != "map[count:5]" {
			t.Fatalf("rule %v", r)
		}
		ruleID = r["id"].(string)
	})
	t.Run("Invalid", func(t *testing.T) {
		for _, c := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"params": map[string]any{}}, "type"},
			{map[string]any{"type": "beHappy"}, "type"},
			{map[string]any{"type": "maxTradesPerDay", "params": map[string]any{"count": 0}}, "params.count"},
			{map[string]any{"type": "maxDailyLoss", "params": map[string]any{"amount": "abc"}}, "params.amount"},
			{map[string]any{"type": "allowedHours", "params": map[string]any{"from": "10:00", "to": "09:00"}}, "params.to"},
			{map[string]any{"type": "stopRequired", "accountId": bAcc}, "accountId"},
			{map[string]any{"type": "stopRequired", "accountId": "nope"}, "accountId"},
		} {
			r := apitest.Must(t, a.Do("POST", "/api/rules", c.body), 400)
			apitest.CheckErrorShape(t, r)
			if d := r.JSON["error"].(map[string]any)["details"].([]any); d[0].(map[string]any)["field"] != c.field {
				t.Errorf("%v: %s", c.body, r.Body)
			}
		}
		apitest.Must(t, a.Do("PATCH", "/api/rules/"+ruleID, map[string]any{"params": map[string]any{"count": "x"}}), 400)
		apitest.Must(t, a.Do("PATCH", "/api/rules/"+ruleID, map[string]any{"type": "maxDailyLoss"}), 400) // its own params needed
	})
	t.Run("EditAndList", func(t *testing.T) {
		r := apitest.Object(t, apitest.Must(t, a.Do("PATCH", "/api/rules/"+ruleID, map[string]any{"params": map[string]any{"count": 2}, "accountId": acc}), 200), "rule")
		if fmt.Sprint(r["params"]) != "map[count:2]" || r["accountId"] != acc || r["enabled"] != true {
			t.Fatalf("patched %v", r)
		}
		r = apitest.Object(t, apitest.Must(t, a.Do("PATCH", "/api/rules/"+ruleID, map[string]any{"accountId": nil}), 200), "rule")
		if r["accountId"] != nil || fmt.Sprint(r["params"]) != "map[count:2]" {
			t.Fatalf("patched %v", r)
		}
		apitest.Must(t, a.Do("POST", "/api/rules", map[string]any{"type": "stopRequired"}), 201)
		off := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/rules", map[string]any{"type": "noTradingDays", "params": map[string]any{"weekdays": []int{1}}, "enabled": false}), 201), "rule")
		if off["enabled"] != false {
			t.Fatalf("disabled %v", off)
		}
		if l := apitest.Items(t, apitest.Must(t, a.Do("GET", "/api/rules", nil), 200)); len(l) != 3 || l[0].(map[string]any)["id"] != ruleID {
			t.Fatalf("list %v", l)
		}
		if l := apitest.Items(t, apitest.Must(t, b.Do("GET", "/api/rules", nil), 200)); len(l) != 0 {
			t.Fatalf("b sees %v", l)
		}
		apitest.Must(t, a.Do("GET", "/api/rules/"+ruleID, nil), 200)
	})
	t.Run("OtherUsersAndSignedOut", func(t *testing.T) {
		for _, m := range []string{"GET", "PATCH", "DELETE"} {
			for _, id := range []string{ruleID, missingID, "not-an-id"} {
				if r := b.Do(m, "/api/rules/"+id, map[string]any{"enabled": false}); r.Status != 404 {
					t.Errorf("%s %s by b: %d", m, id, r.Status)
				}
			}
		}
		anon := srv.Client(t)
		for _, p := range []string{"/api/rules", "/api/rules/" + ruleID, "/api/rules/compliance?from=2024-03-01&to=2024-03-31"} {
			if r := anon.Do("GET", p, nil); r.Status != 401 {
				t.Errorf("%s signed out: %d", p, r.Status)
			}
		}
	})

	// 2024-03-04: three trades (the third over the limit of 2, the second
	// without a stop), one loss; 2024-03-05: one winner that keeps both.
	p1 := trade(t, a, acc, "AAPL", "99", "10", "2024-03-04T15:00:00Z", "2024-03-04T16:00:00Z", "98")
	p2 := trade(t, a, acc, "MSFT", "", "10", "2024-03-04T16:00:00Z", "2024-03-04T17:00:00Z", "101")
	p3 := trade(t, a, acc, "NVDA", "99", "10", "2024-03-04T17:00:00Z", "2024-03-04T18:00:00Z", "101")
	trade(t, a, acc, "AAPL", "99", "10", "2024-03-05T15:00:00Z", "2024-03-05T16:00:00Z", "103")
	_ = p1

	t.Run("Compliance", func(t *testing.T) {
		r := apitest.Must(t, a.Do("GET", "/api/rules/compliance?from=2024-03-01&to=2024-03-31", nil), 200)
		days := r.JSON["days"].([]any)
		if len(days) != 2 || r.JSON["daysKept"] != 1.0 || r.JSON["daysBroken"] != 1.0 {
			t.Fatalf("days %s", r.Body)
		}
		d := days[0].(map[string]any)
		if d["date"] != "2024-03-04" || d["score"] != 0.0 || d["broken"] != 2.0 {
			t.Fatalf("day %v", d)
		}
		var msgs []string
		for _, v := range d["violations"].([]any) {
			v := v.(map[string]any)
			msgs = append(msgs, fmt.Sprint(v["positionIds"])+" "+v["message"].(string))
		}
		want := []string{"[" + p3 + "] NVDA: 3rd trade of the day; your limit is 2", "[" + p2 + "] MSFT: opened without a stop loss"}
		if strings.Join(msgs, "|") != strings.Join(want, "|") {
			t.Fatalf("violations %q, want %q", msgs, want)
		}
		if d := days[1].(map[string]any); d["date"] != "2024-03-05" || d["score"] != 100.0 || len(d["violations"].([]any)) != 0 {
			t.Fatalf("kept day %v", d)
		}
		bd := r.JSON["breakdown"].(map[string]any)
		tot := bd["total"].(map[string]any)
		kept, broken := tot["kept"].(map[string]any), tot["broken"].(map[string]any)
		// 03-04: -20 + 10 + 10; 03-05: +30.
		if kept["netPnl"] != "30.0000" || kept["days"] != 1.0 || broken["netPnl"] != "0.0000" || broken["trades"] != 3.0 || broken["winRate"] != "66.67" {
			t.Fatalf("breakdown %v", tot)
		}
		byRule := tot["byRule"].([]any)
		if len(byRule) != 2 || byRule[0].(map[string]any)["ruleId"] != ruleID || byRule[0].(map[string]any)["days"] != 1.0 {
			t.Fatalf("by rule %v", byRule)
		}
		// Without the days: their counts and the breakdown.
		r = apitest.Must(t, a.Do("GET", "/api/rules/compliance?from=2024-03-01&to=2024-03-31&days=false", nil), 200)
		if len(r.JSON["days"].([]any)) != 0 || r.JSON["daysBroken"] != 1.0 || r.JSON["breakdown"].(map[string]any)["total"] == nil {
			t.Fatalf("days=false %s", r.Body)
		}
		// Another account's filter: none of a's days.
		other := account(t, a, "USD", "Asia/Tokyo")
		r = apitest.Must(t, a.Do("GET", "/api/rules/compliance?from=2024-03-01&to=2024-03-31&accountId="+other, nil), 200)
		if len(r.JSON["days"].([]any)) != 0 {
			t.Fatalf("filtered %s", r.Body)
		}
		// b has no days.
		if r := apitest.Must(t, b.Do("GET", "/api/rules/compliance?from=2024-03-01&to=2024-03-31", nil), 200); len(r.JSON["days"].([]any)) != 0 {
			t.Fatalf("b %s", r.Body)
		}
	})
	t.Run("RiskPercentOfBalance", func(t *testing.T) {
		// 10 x (100 - 99) = 10 of 10,000: 0.1%.
		rule := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/rules", map[string]any{"type": "maxRiskPerTrade", "params": map[string]any{"percent": "0.05"}, "accountId": acc}), 201), "rule")
		r := apitest.Must(t, a.Do("GET", "/api/rules/compliance?from=2024-03-04&to=2024-03-04", nil), 200)
		var got []string
		for _, v := range r.JSON["days"].([]any)[0].(map[string]any)["violations"].([]any) {
			if v := v.(map[string]any); v["ruleId"] == rule["id"] {
				got = append(got, v["message"].(string))
			}
		}
		// The balance at the start of the day (10,000), whatever the day's own losses.
		want := []string{"AAPL: risked 0.10% of the account balance; your limit is 0.05%", "NVDA: risked 0.10% of the account balance; your limit is 0.05%"}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("%q", got)
		}
		apitest.Must(t, a.Do("DELETE", "/api/rules/"+rule["id"].(string), nil), 204)
		apitest.Must(t, a.Do("DELETE", "/api/rules/"+rule["id"].(string), nil), 404)
	})
	t.Run("BadRange", func(t *testing.T) {
		for q, field := range map[string]string{
			"to=2024-03-31":                              "from",
			"from=2024-03-01":                            "to",
			"from=2024-01-01&to=2025-01-01":              "to",
			"from=2024-03-01&to=2024-03-31&symbol=AAPL":  "symbol",
			"from=2024-03-01&to=2024-03-31&phase=funded": "phase",
			"from=2024-03-31&to=2024-03-01":              "to",
			"from=2024-02-30&to=2024-03-01":              "from",
			"from=2024-03-01&to=2024-03-31&days=no":      "days",
		} {
			r := apitest.Must(t, a.Do("GET", "/api/rules/compliance?"+q, nil), 400)
			if d := r.JSON["error"].(map[string]any)["details"].([]any); d[0].(map[string]any)["field"] != field {
				t.Errorf("%s: %s", q, r.Body)
			}
		}
		apitest.Must(t, a.Do("GET", "/api/rules/compliance?from=2024-01-01&to=2024-12-31", nil), 200)
	})
}

// TestStrategyCompliance: an iron condor recorded with its four legs is one
// trade of its day, its defined max loss its stop; a naked call has no
// defined risk; a violation names the strategy and its legs.
func TestStrategyCompliance(t *testing.T) {
	srv := start(t)
	a := srv.Client(t)
	a.Register("a@example.com", "password1")
	acc := account(t, a, "USD", "America/New_York")
	for _, r := range []map[string]any{
		{"type": "maxTradesPerDay", "params": map[string]any{"count": 1}},
		{"type": "stopRequired", "params": map[string]any{}},
	} {
		apitest.Must(t, a.Do("POST", "/api/rules", r), 201)
	}
	leg := func(symbol, side, price, at string) map[string]any {
		return map[string]any{"symbol": symbol, "assetType": "option", "side": side,
			"fills": []any{map[string]any{"type": "entry", "price": price, "quantity": "1", "filledAt": at}}}
	}
	condor := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/strategies", map[string]any{"accountId": acc, "legs": []any{
		leg("SPY   240621P00480000", "short", "2.00", "2024-03-04T15:00:00Z"), leg("SPY   240621P00470000", "long", "1.00", "2024-03-04T15:00:00Z"),
		leg("SPY   240621C00520000", "short", "2.00", "2024-03-04T15:00:00Z"), leg("SPY   240621C00530000", "long", "1.00", "2024-03-04T15:00:00Z"),
	}}), 201), "strategy")
	day := func(date string) map[string]any {
		t.Helper()
		r := apitest.Must(t, a.Do("GET", "/api/rules/compliance?from="+date+"&to="+date, nil), 200)
		return r.JSON["days"].([]any)[0].(map[string]any)
	}
	if d := day("2024-03-04"); d["broken"] != 0.0 || d["kept"] != 2.0 {
		t.Fatalf("the condor alone: %v", d)
	}
	naked := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/strategies", map[string]any{"accountId": acc, "legs": []any{
		leg("QQQ   240621C00450000", "short", "3.00", "2024-03-04T16:00:00Z")}}), 201), "strategy")
	d := day("2024-03-04")
	var got []string
	for _, v := range d["violations"].([]any) {
		v := v.(map[string]any)
		if v["strategyId"] != naked["id"] || len(v["positionIds"].([]any)) != 1 {
			t.Errorf("violation %v, want the naked call's strategy and its leg", v)
		}
		got = append(got, v["message"].(string))
	}
	want := "QQQ short call: 2nd trade of the day; your limit is 1|QQQ short call: opened with no defined risk (an unlimited max loss) and no planned risk"
	if strings.Join(got, "|") != want {
		t.Fatalf("violations %q (condor %s)", got, condor["id"])
	}
}

// TestStrategyClosesWithItsLastLeg: a strategy's loss counts on the day
// its last leg closes, the legs' sum; a leg closed earlier makes no day.
func TestStrategyClosesWithItsLastLeg(t *testing.T) {
	srv := start(t)
	a := srv.Client(t)
	a.Register("a@example.com", "password1")
	acc := account(t, a, "USD", "America/New_York")
	apitest.Must(t, a.Do("POST", "/api/rules", map[string]any{"type": "maxDailyLoss", "params": map[string]any{"amount": "50"}, "accountId": acc}), 201)
	leg := func(symbol, side, price string) map[string]any {
		return map[string]any{"symbol": symbol, "assetType": "option", "side": side,
			"fills": []any{map[string]any{"type": "entry", "price": price, "quantity": "1", "filledAt": "2024-03-04T15:00:00Z"}}}
	}
	vertical := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/strategies", map[string]any{"accountId": acc, "legs": []any{
		leg("SPY   240621C00520000", "short", "2.00"), leg("SPY   240621C00530000", "long", "1.00"),
	}}), 201), "strategy")
	exit := func(side, price, at string) {
		for _, l := range vertical["legs"].([]any) {
			if l := l.(map[string]any); l["side"] == side {
				apitest.Must(t, a.Do("POST", "/api/positions/"+l["id"].(string)+"/fills", map[string]any{"type": "exit", "price": price, "quantity": "1", "filledAt": at}), 201)
			}
		}
	}
	exit("long", "0.50", "2024-03-05T15:00:00Z")  // -50
	exit("short", "2.40", "2024-03-07T15:00:00Z") // -40: the strategy -90
	r := apitest.Must(t, a.Do("GET", "/api/rules/compliance?from=2024-03-04&to=2024-03-08", nil), 200)
	var dates []string
	for _, d := range r.JSON["days"].([]any) {
		dates = append(dates, d.(map[string]any)["date"].(string))
	}
	if strings.Join(dates, " ") != "2024-03-04 2024-03-07" {
		t.Fatalf("days %v", dates)
	}
	vs := r.JSON["days"].([]any)[1].(map[string]any)["violations"].([]any)
	if len(vs) != 1 {
		t.Fatalf("violations %v", vs)
	}
	v := vs[0].(map[string]any)
	var ids []string
	for _, id := range v["positionIds"].([]any) {
		ids = append(ids, id.(string))
	}
	want := "SPY bear call vertical (credit): this close took the day's loss to 90.00 USD; your limit is 50.00 USD"
	if v["message"] != want || v["strategyId"] != vertical["id"] || len(ids) != 2 {
		t.Fatalf("violation %v, want %q of strategy %s", v, want, vertical["id"])
	}
}

// TestRiskPercentOfBalanceThroughTheRange: the balance a trade's risk is
// a percent of is its account's at the start of its trading day: the
// ledger before the range, and of the range's earlier days, counts; the
// ledger of its own day and after the range does not.
func TestRiskPercentOfBalanceThroughTheRange(t *testing.T) {
	srv := start(t)
	a := srv.Client(t)
	a.Register("a@example.com", "password1")
	acc := account(t, a, "USD", "America/New_York") // 10,000
	ledger := func(kind, amount, at string) {
		apitest.Must(t, a.Do("POST", "/api/accounts/"+acc+"/ledger", map[string]any{"kind": kind, "amount": amount, "occurredAt": at}), 201)
	}
	ledger("deposit", "5000", "2024-03-01T15:00:00Z")    // before the range
	ledger("deposit", "10000", "2024-03-04T14:00:00Z")   // the first trade's day, before it
	ledger("withdrawal", "1000", "2024-03-10T15:00:00Z") // after the range
	apitest.Must(t, a.Do("POST", "/api/rules", map[string]any{"type": "maxRiskPerTrade", "params": map[string]any{"percent": "0.01"}, "accountId": acc}), 201)
	// 10 x (100 - 99) = 10 at risk each; the first makes 10.
	trade(t, a, acc, "AAPL", "99", "10", "2024-03-04T15:00:00Z", "2024-03-04T16:00:00Z", "101")
	trade(t, a, acc, "MSFT", "99", "10", "2024-03-05T15:00:00Z", "2024-03-05T16:00:00Z", "101")
	r := apitest.Must(t, a.Do("GET", "/api/rules/compliance?from=2024-03-04&to=2024-03-05", nil), 200)
	var got []string
	for _, d := range r.JSON["days"].([]any) {
		for _, v := range d.(map[string]any)["violations"].([]any) {
			got = append(got, v.(map[string]any)["message"].(string))
		}
	}
	// 10 of 15,000 (0.0667%), then 10 of 25,010 (0.03998%).
	want := []string{"AAPL: risked 0.07% of the account balance; your limit is 0.01%", "MSFT: risked 0.04% of the account balance; your limit is 0.01%"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("%q, want %q", got, want)
	}
}

// TestWeightsTagsAndTrades: a critical cooldown, a nice-to-have list of
// required fields scoped to a tag and a direction rule, through the API:
// the day's weighted score, each trade's, the position route (a leg's
// trade is its strategy), the trades' kept against broken figures, the
// fields' 400s, and a rule stored before weights existed.
func TestWeightsTagsAndTrades(t *testing.T) {
	srv := start(t)
	a, b := srv.Client(t), srv.Client(t)
	a.Register("a@example.com", "password1")
	b.Register("b@example.com", "password1")
	acc := account(t, a, "USD", "America/New_York")
	tag := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/tags", map[string]any{"name": "scalp"}), 201), "tag")["id"].(string)
	bTag := apitest.Object(t, apitest.Must(t, b.Do("POST", "/api/tags", map[string]any{"name": "scalp"}), 201), "tag")["id"].(string)

	t.Run("Invalid", func(t *testing.T) {
		for _, c := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"type": "stopRequired", "weight": "high"}, "weight"},
			{map[string]any{"type": "stopRequired", "weight": 3}, "weight"},
			{map[string]any{"type": "stopRequired", "tagId": bTag}, "tagId"},
			{map[string]any{"type": "stopRequired", "tagId": "x"}, "tagId"},
			{map[string]any{"type": "cooldownAfterLoss", "params": map[string]any{"minutes": 0}}, "params.minutes"},
			{map[string]any{"type": "requiredFields", "params": map[string]any{"fields": []string{"mood"}}}, "params.fields"},
			{map[string]any{"type": "allowedMarkets", "params": map[string]any{}}, "params.assetTypes"},
			{map[string]any{"type": "allowedDirection", "params": map[string]any{"side": "sideways"}}, "params.side"},
			{map[string]any{"type": "maxOpenExposure", "params": map[string]any{"risk": "-1"}}, "params.risk"},
			{map[string]any{"type": "maxWeeklyLoss", "params": map[string]any{}}, "params.amount"},
		} {
			r := apitest.Must(t, a.Do("POST", "/api/rules", c.body), 400)
			apitest.CheckErrorShape(t, r)
			if d := r.JSON["error"].(map[string]any)["details"].([]any); d[0].(map[string]any)["field"] != c.field {
				t.Errorf("%v: %s", c.body, r.Body)
			}
		}
	})
	t.Run("OldRuleHasTheDefaultWeight", func(t *testing.T) {
		var uid string
		if err := srv.App.DB.QueryRow(context.Background(), `SELECT id::text FROM users WHERE email = 'a@example.com'`).Scan(&uid); err != nil {
			t.Fatal(err)
		}
		var id string
		if err := srv.App.DB.QueryRow(context.Background(), `INSERT INTO trading_rules (user_id, type, params, enabled) VALUES ($1, 'stopRequired', '{}', false) RETURNING id::text`, uid).Scan(&id); err != nil {
			t.Fatal(err)
		}
		r := apitest.Object(t, apitest.Must(t, a.Do("GET", "/api/rules/"+id, nil), 200), "rule")
		if r["weight"] != "important" || r["tagId"] != nil {
			t.Fatalf("old rule %v", r)
		}
		apitest.Must(t, a.Do("DELETE", "/api/rules/"+id, nil), 204)
	})

	cool := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/rules", map[string]any{"type": "cooldownAfterLoss", "params": map[string]any{"minutes": 15}, "weight": "critical"}), 201), "rule")
	req := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/rules", map[string]any{"type": "requiredFields", "params": map[string]any{"fields": []string{"notes", "tag", "screenshot"}}, "weight": "important", "tagId": tag}), 201), "rule")
	dir := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/rules", map[string]any{"type": "allowedDirection", "params": map[string]any{"side": "long"}}), 201), "rule")
	if cool["weight"] != "critical" || req["tagId"] != tag || dir["weight"] != "important" {
		t.Fatalf("rules %v %v %v", cool, req, dir)
	}
	req = apitest.Object(t, apitest.Must(t, a.Do("PATCH", "/api/rules/"+req["id"].(string), map[string]any{"weight": "niceToHave"}), 200), "rule")
	if req["weight"] != "niceToHave" || req["tagId"] != tag {
		t.Fatalf("patched %v", req)
	}

	// 2024-03-04 in New York (UTC-5): a tagged loss with notes and a
	// screenshot closes at 10:30; MSFT enters 5 minutes later; a short at 11:30.
	p1 := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/positions", map[string]any{"accountId": acc, "symbol": "AAPL", "assetType": "stock", "side": "long",
		"notes": "the plan", "tagIds": []string{tag}, "fills": []any{
			map[string]any{"type": "entry", "price": "100", "quantity": "10", "filledAt": "2024-03-04T15:00:00Z"},
			map[string]any{"type": "exit", "price": "98", "quantity": "10", "filledAt": "2024-03-04T15:30:00Z"}}}), 201), "position")["id"].(string)
	if _, err := srv.App.DB.Exec(context.Background(), `INSERT INTO position_images (user_id, position_id, content_type, size_bytes, data)
		SELECT user_id, id, 'image/png', 1, '\x00' FROM positions WHERE id = $1`, p1); err != nil {
		t.Fatal(err)
	}
	p2 := trade(t, a, acc, "MSFT", "99", "10", "2024-03-04T15:35:00Z", "2024-03-04T16:00:00Z", "101")
	p3 := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/positions", map[string]any{"accountId": acc, "symbol": "NVDA", "assetType": "stock", "side": "short", "fills": []any{
		map[string]any{"type": "entry", "price": "100", "quantity": "10", "filledAt": "2024-03-04T16:30:00Z"},
		map[string]any{"type": "exit", "price": "99", "quantity": "10", "filledAt": "2024-03-04T17:00:00Z"}}}), 201), "position")["id"].(string)

	t.Run("DayAndTrades", func(t *testing.T) {
		r := apitest.Must(t, a.Do("GET", "/api/rules/compliance?from=2024-03-04&to=2024-03-04&trades=true", nil), 200)
		d := r.JSON["days"].([]any)[0].(map[string]any)
		// cooldown broken (3), required fields kept (1), direction broken (2): 1 of 6.
		if d["score"] != 16.0 || d["kept"] != 1.0 || d["broken"] != 2.0 {
			t.Fatalf("day %v", d)
		}
		var got []string
		for _, tr := range r.JSON["trades"].([]any) {
			tr := tr.(map[string]any)
			line := fmt.Sprintf("%s %v %v:", tr["symbol"], tr["score"], tr["netPnl"])
			for _, x := range tr["rules"].([]any) {
				x := x.(map[string]any)
				line += " " + x["type"].(string) + "=" + x["status"].(string)
				if m, ok := x["message"]; ok {
					line += "(" + m.(string) + ")"
				}
			}
			got = append(got, line)
		}
		want := []string{
			"AAPL 100 -20.0000: cooldownAfterLoss=kept requiredFields=kept allowedDirection=kept",
			// 2 of 5
			"MSFT 40 10.0000: cooldownAfterLoss=broken(MSFT: entry 5 minutes after a losing close of AAPL; your cooldown is 15 minutes) allowedDirection=kept",
			// 3 of 5
			"NVDA 60 10.0000: cooldownAfterLoss=kept allowedDirection=broken(NVDA: opened short; you trade long only)",
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("trades\n%q\nwant\n%q", got, want)
		}
		tb := r.JSON["tradeBreakdown"].(map[string]any)["byCurrency"].([]any)[0].(map[string]any)
		kept, broken := tb["kept"].(map[string]any), tb["broken"].(map[string]any)
		if tb["currency"] != "USD" || kept["trades"] != 1.0 || kept["netPnl"] != "-20.0000" || kept["winRate"] != "0.00" ||
			broken["trades"] != 2.0 || broken["netPnl"] != "20.0000" || broken["winRate"] != "100.00" {
			t.Fatalf("trade breakdown %v", tb)
		}
		// Without trades=true, no list and no trade breakdown.
		r = apitest.Must(t, a.Do("GET", "/api/rules/compliance?from=2024-03-04&to=2024-03-04", nil), 200)
		if _, ok := r.JSON["trades"]; ok {
			t.Fatalf("trades unasked: %s", r.Body)
		}
		if _, ok := r.JSON["tradeBreakdown"]; ok {
			t.Fatalf("trades unasked: %s", r.Body)
		}
		apitest.Must(t, a.Do("GET", "/api/rules/compliance?from=2024-03-04&to=2024-03-04&trades=yes", nil), 400)
	})
	t.Run("PositionRoute", func(t *testing.T) {
		tr := apitest.Object(t, apitest.Must(t, a.Do("GET", "/api/rules/compliance/positions/"+p2, nil), 200), "trade")
		if tr["id"] != p2 || tr["score"] != 40.0 || tr["date"] != "2024-03-04" || tr["strategyId"] != nil {
			t.Fatalf("trade %v", tr)
		}
		_ = p3
		for _, id := range []string{missingID, "nope", p1} {
			c := b
			if id != p1 {
				c = a
			}
			if r := c.Do("GET", "/api/rules/compliance/positions/"+id, nil); r.Status != 404 {
				t.Errorf("%s: %d", id, r.Status)
			}
		}
		// A leg's trade is its strategy.
		leg := func(symbol, side, price string) map[string]any {
			return map[string]any{"symbol": symbol, "assetType": "option", "side": side,
				"fills": []any{map[string]any{"type": "entry", "price": price, "quantity": "1", "filledAt": "2024-03-05T15:00:00Z"}}}
		}
		s := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/strategies", map[string]any{"accountId": acc, "legs": []any{
			leg("SPY   240621C00520000", "long", "2.00"), leg("SPY   240621C00530000", "short", "1.00")}}), 201), "strategy")
		legID := s["legs"].([]any)[1].(map[string]any)["id"].(string)
		tr = apitest.Object(t, apitest.Must(t, a.Do("GET", "/api/rules/compliance/positions/"+legID, nil), 200), "trade")
		if tr["id"] != s["id"] || tr["strategyId"] != s["id"] || len(tr["positionIds"].([]any)) != 2 || tr["score"] != 100.0 || tr["netPnl"] != nil {
			t.Fatalf("strategy trade %v", tr)
		}
		// A draft has no trade.
		draft := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/positions", map[string]any{"accountId": acc, "symbol": "AMD", "assetType": "stock", "side": "long"}), 201), "position")["id"].(string)
		if r := apitest.Must(t, a.Do("GET", "/api/rules/compliance/positions/"+draft, nil), 200); r.JSON["trade"] != nil {
			t.Fatalf("draft %s", r.Body)
		}
	})
	t.Run("DeletingTheTagDeletesItsRule", func(t *testing.T) {
		apitest.Must(t, a.Do("DELETE", "/api/tags/"+tag, nil), 204)
		apitest.Must(t, a.Do("GET", "/api/rules/"+req["id"].(string), nil), 404)
	})
}

// TestTradeJudgedOnItsCloseDayAfterTheRange: a trade opened in the range
// and closed days after it is judged with every close of its close day:
// AAPL (-30) closes on 03-08 after MSFT (-30), taking the day past the
// limit of 50, whatever range was asked.
func TestTradeJudgedOnItsCloseDayAfterTheRange(t *testing.T) {
	srv := start(t)
	a := srv.Client(t)
	a.Register("a@example.com", "password1")
	acc := account(t, a, "USD", "America/New_York")
	apitest.Must(t, a.Do("POST", "/api/rules", map[string]any{"type": "maxDailyLoss", "params": map[string]any{"amount": "50"}, "accountId": acc}), 201)
	aapl := trade(t, a, acc, "AAPL", "99", "10", "2024-03-04T15:00:00Z", "2024-03-08T16:00:00Z", "97")
	trade(t, a, acc, "MSFT", "99", "10", "2024-03-08T14:40:00Z", "2024-03-08T15:00:00Z", "97")
	for _, rng := range []string{"from=2024-03-04&to=2024-03-04", "from=2024-03-01&to=2024-03-05"} {
		r := apitest.Must(t, a.Do("GET", "/api/rules/compliance?trades=true&"+rng, nil), 200)
		trades := r.JSON["trades"].([]any)
		if len(trades) != 1 {
			t.Fatalf("%s: trades %s", rng, r.Body)
		}
		tr := trades[0].(map[string]any)
		rule := tr["rules"].([]any)[0].(map[string]any)
		want := "AAPL: this close took the day's loss to 60.00 USD; your limit is 50.00 USD"
		if tr["id"] != aapl || tr["score"] != 0.0 || rule["status"] != "broken" || rule["message"] != want {
			t.Errorf("%s: trade %v, want the daily loss broken: %q", rng, tr, want)
		}
		tb := r.JSON["tradeBreakdown"].(map[string]any)["byCurrency"].([]any)[0].(map[string]any)
		if tb["broken"].(map[string]any)["trades"] != 1.0 {
			t.Errorf("%s: trade breakdown %v", rng, tb)
		}
	}
	tr := apitest.Object(t, apitest.Must(t, a.Do("GET", "/api/rules/compliance/positions/"+aapl, nil), 200), "trade")
	if tr["score"] != 0.0 {
		t.Errorf("position route %v", tr)
	}
}
