package strategies_test

import (
	"reflect"
	"testing"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
)

type fixture struct {
	a, b     *apitest.Client
	account  string
	other    string // a's second account
	bAccount string
}

func setup(t *testing.T) fixture {
	t.Helper()
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	f := fixture{a: srv.Client(t), b: srv.Client(t)}
	f.a.Register("a@example.com", "password1")
	f.b.Register("b@example.com", "password1")
	account := func(c *apitest.Client, name string) string {
		return apitest.Object(t, apitest.Must(t, c.Do("POST", "/api/accounts", map[string]any{"name": name, "currency": "USD", "startingBalance": "10000"}), 201), "account")["id"].(string)
	}
	f.account, f.other, f.bAccount = account(f.a, "Options"), account(f.a, "Other"), account(f.b, "B")
	return f
}

// leg records a position with one entry fill and answers its id.
func leg(t *testing.T, c *apitest.Client, account, symbol, asset, side, price, qty string) string {
	t.Helper()
	body := map[string]any{"accountId": account, "symbol": symbol, "assetType": asset, "side": side,
		"fills": []any{map[string]any{"type": "entry", "price": price, "quantity": qty, "fees": "0", "filledAt": "2026-06-01T14:00:00Z"}}}
	if asset == "future" {
		body["multiplier"] = "50"
	}
	return apitest.Object(t, apitest.Must(t, c.Do("POST", "/api/positions", body), 201), "position")["id"].(string)
}

func exit(t *testing.T, c *apitest.Client, id, price, qty string) {
	t.Helper()
	apitest.Must(t, c.Do("POST", "/api/positions/"+id+"/fills", map[string]any{"type": "exit", "price": price, "quantity": qty,
		"fees": "0", "filledAt": "2026-06-10T15:00:00Z"}), 201)
}

// TestIronCondor groups four legs, reads the engine's figures worked out
// by hand, closes the legs and checks the P&L is theirs and R its risk's.
func TestIronCondor(t *testing.T) {
	f := setup(t)
	// SPY June 2027: short 95 put at 2.00, long 90 put at 1.00, short 105 call at 2.00, long 110 call at 1.00.
	sp := leg(t, f.a, f.account, "SPY   270618P00095000", "option", "short", "2.00", "1")
	lp := leg(t, f.a, f.account, "SPY   270618P00090000", "option", "long", "1.00", "1")
	sc := leg(t, f.a, f.account, "SPY   270618C00105000", "option", "short", "2.00", "1")
	lc := leg(t, f.a, f.account, "SPY   270618C00110000", "option", "long", "1.00", "1")
	r := f.a.Do("POST", "/api/strategies", map[string]any{"accountId": f.account, "positionIds": []string{sp, lp, sc, lc}})
	st := apitest.Object(t, apitest.Must(t, r, 201), "strategy")
	// Credit (2 + 2 - 1 - 1) x 100 = 200: the max profit; a wing of 5 x 100 less 200 = 300 the max loss;
	// breakevens 95 - 2 and 105 + 2.
	if st["kind"] != "iron-condor" || st["status"] != "open" || st["netDebit"] != "-200.0000" || st["maxProfit"] != "200.0000" ||
		st["maxLoss"] != "300.0000" || st["underlying"] != "SPY" || len(st["legs"].([]any)) != 4 {
		t.Fatalf("strategy: %v", st)
	}
	if be := st["breakevens"].([]any); len(be) != 2 || be[0] != "93" || be[1] != "107" {
		t.Fatalf("breakevens %v", be)
	}
	if st["rMultiple"] != nil {
		t.Fatalf("R while open: %v", st["rMultiple"])
	}
	// Closed: shorts bought back at 0.50, longs sold at 0.10: (1.50 + 1.50 - 0.90 - 0.90) x 100 = 120, over the 300 at risk.
	exit(t, f.a, sp, "0.50", "1")
	exit(t, f.a, sc, "0.50", "1")
	exit(t, f.a, lp, "0.10", "1")
	exit(t, f.a, lc, "0.10", "1")
	st = apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/strategies/"+st["id"].(string), nil), 200), "strategy")
	if st["status"] != "closed" || st["netPnl"] != "120.0000" || st["rMultiple"] != "0.4000" || st["kind"] != "iron-condor" ||
		st["closedAt"] != "2026-06-10T15:00:00Z" {
		t.Fatalf("closed: %v", st)
	}
	// A planned risk of 240 makes it half an R.
	st = apitest.Object(t, apitest.Must(t, f.a.Do("PATCH", "/api/strategies/"+st["id"].(string), map[string]any{"plannedRisk": "240", "name": "June fly-by"}), 200), "strategy")
	if st["rMultiple"] != "0.5000" || st["name"] != "June fly-by" || st["plannedRisk"] != "240.0000" {
		t.Fatalf("planned risk: %v", st)
	}
	// The statistics count it once: one winning trade of 120 at half an R,
	// short (a credit), an iron condor, on SPY, on the day of its last close;
	// a share position of the account stays a trade of its own.
	shares := leg(t, f.a, f.account, "SPY", "stock", "long", "500", "10")
	exit(t, f.a, shares, "490", "10")
	r = apitest.Must(t, f.a.Do("GET", "/api/performance?accountId="+f.account, nil), 200)
	block := r.JSON["byCurrency"].([]any)[0].(map[string]any)
	sum := block["summary"].(map[string]any)
	if sum["trades"] != 2.0 || sum["wins"] != 1.0 || sum["losses"] != 1.0 || sum["netPnl"] != "20.0000" || sum["averageR"] != "0.5000" {
		t.Fatalf("summary: %v", sum)
	}
	want := []any{
		map[string]any{"strategy": "iron-condor", "trades": 1.0, "wins": 1.0, "losses": 0.0, "winRate": "100.00", "netPnl": "120.0000",
			"averageR": "0.5000", "rTrades": 1.0, "profitFactor": nil},
		map[string]any{"strategy": nil, "trades": 1.0, "wins": 0.0, "losses": 1.0, "winRate": "0.00", "netPnl": "-100.0000",
			"averageR": nil, "rTrades": 0.0, "profitFactor": "0.0000"},
	}
	if got := block["byStrategy"]; !reflect.DeepEqual(got, want) {
		t.Fatalf("byStrategy: %v", got)
	}
	if side := block["bySide"].([]any); len(side) != 2 || side[1].(map[string]any)["side"] != "short" || side[1].(map[string]any)["netPnl"] != "120.0000" {
		t.Fatalf("bySide: %v", side)
	}
	if u := block["byUnderlying"].([]any); len(u) != 1 || u[0].(map[string]any)["symbol"] != "SPY" || u[0].(map[string]any)["trades"] != 2.0 {
		t.Fatalf("byUnderlying: %v", u)
	}
	if d := block["byDay"].([]any); len(d) != 1 || d[0].(map[string]any)["date"] != "2026-06-10" || d[0].(map[string]any)["trades"] != 2.0 {
		t.Fatalf("byDay: %v", d)
	}
	// The strategy filter: the statistics take the strategy, the list its legs.
	for query, want := range map[string][2]float64{"strategy=iron-condor": {1, 4}, "strategy=none": {1, 1}, "strategy=vertical": {0, 0},
		"strategy=iron-condor,none": {2, 5}} {
		r := apitest.Must(t, f.a.Do("GET", "/api/performance?accountId="+f.account+"&"+query, nil), 200)
		trades := 0.0
		if blocks := r.JSON["byCurrency"].([]any); len(blocks) > 0 {
			trades = blocks[0].(map[string]any)["summary"].(map[string]any)["trades"].(float64)
		}
		legs := apitest.Items(t, apitest.Must(t, f.a.Do("GET", "/api/positions?accountId="+f.account+"&"+query, nil), 200))
		if trades != want[0] || float64(len(legs)) != want[1] {
			t.Errorf("%s: %v trades, %d positions; want %v", query, trades, len(legs), want)
		}
	}
	e := apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/performance?strategy=condor", nil), 400), "error")
	if d := e["details"].([]any); d[0].(map[string]any)["field"] != "strategy" {
		t.Fatalf("an unknown kind: %v", e)
	}
}

// TestRollAndRefusals: a roll replaces a leg and keeps one strategy; legs
// must be the user's positions of the account on one underlying, in no
// other strategy, and no futures; another user sees a 404.
func TestRollAndRefusals(t *testing.T) {
	f := setup(t)
	long := leg(t, f.a, f.account, "AAPL  270115C00200000", "option", "long", "10.00", "2")
	short := leg(t, f.a, f.account, "AAPL  270115C00220000", "option", "short", "4.00", "2")
	st := apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/strategies", map[string]any{"accountId": f.account,
		"positionIds": []string{long, short}}), 201), "strategy")
	id := st["id"].(string)
	// A debit of (10 - 4) x 2 x 100 = 1200 on a 20-wide vertical: 2800 at most, 1200 at worst, breakeven 206.
	if st["kind"] != "vertical" || st["netDebit"] != "1200.0000" || st["maxProfit"] != "2800.0000" || st["maxLoss"] != "1200.0000" {
		t.Fatalf("vertical: %v", st)
	}
	// Roll the short call up: close it, sell the 230, and put that leg in.
	exit(t, f.a, short, "6.00", "2")
	rolled := leg(t, f.a, f.account, "AAPL  270115C00230000", "option", "short", "3.00", "2")
	st = apitest.Object(t, apitest.Must(t, f.a.Do("PATCH", "/api/strategies/"+id, map[string]any{"positionIds": []string{long, short, rolled}}), 200), "strategy")
	// Open now: the 200/230 vertical at 10 - 3; the closed leg lost (4 - 6) x 200 = -400.
	if st["status"] != "open" || st["kind"] != "vertical" || st["netDebit"] != "1400.0000" || st["netPnl"] != "-400.0000" || len(st["legs"].([]any)) != 3 {
		t.Fatalf("rolled: %v", st)
	}

	other := leg(t, f.a, f.other, "AAPL  270115C00200000", "option", "long", "10.00", "1")
	msft := leg(t, f.a, f.account, "MSFT  270115C00400000", "option", "long", "10.00", "1")
	future := leg(t, f.a, f.account, "ESZ26", "future", "long", "6000", "1")
	theirs := leg(t, f.b, f.bAccount, "AAPL  270115C00200000", "option", "long", "10.00", "1")
	spare := leg(t, f.a, f.account, "AAPL  270115P00180000", "option", "long", "5.00", "1")
	for name, c := range map[string]struct {
		body  map[string]any
		field string
	}{
		"another account":    {map[string]any{"accountId": f.account, "positionIds": []string{spare, other}}, "positionIds[1]"},
		"another underlying": {map[string]any{"accountId": f.account, "positionIds": []string{spare, msft}}, "positionIds[1]"},
		"a future":           {map[string]any{"accountId": f.account, "positionIds": []string{future}}, "positionIds[0]"},
		"another strategy":   {map[string]any{"accountId": f.account, "positionIds": []string{spare, long}}, "positionIds[1]"},
		"another user's":     {map[string]any{"accountId": f.account, "positionIds": []string{theirs}}, "positionIds[0]"},
		"twice":              {map[string]any{"accountId": f.account, "positionIds": []string{spare, spare}}, "positionIds[1]"},
		"none":               {map[string]any{"accountId": f.account, "positionIds": []string{}}, "positionIds"},
		"no account":         {map[string]any{"positionIds": []string{spare}}, "accountId"},
		"their account":      {map[string]any{"accountId": f.bAccount, "positionIds": []string{spare}}, "accountId"},
		"a negative risk":    {map[string]any{"accountId": f.account, "positionIds": []string{spare}, "plannedRisk": "-5"}, "plannedRisk"},
	} {
		r := f.a.Do("POST", "/api/strategies", c.body)
		e := apitest.Object(t, apitest.Must(t, r, 400), "error")
		if d := e["details"].([]any); len(d) == 0 || d[0].(map[string]any)["field"] != c.field {
			t.Errorf("%s: %v", name, e)
		}
	}
	if r := f.a.Do("PATCH", "/api/strategies/"+id, map[string]any{"accountId": f.other}); r.Status != 400 {
		t.Errorf("moving accounts: %d", r.Status)
	}
	// A leg keeps to its strategy's account and underlying while it is one.
	for field, patch := range map[string]map[string]any{
		"accountId": {"accountId": f.other},
		"symbol":    {"symbol": "MSFT  270115C00200000"},
	} {
		e := apitest.Object(t, apitest.Must(t, f.a.Do("PATCH", "/api/positions/"+long, patch), 400), "error")
		if d := e["details"].([]any); d[0].(map[string]any)["field"] != field {
			t.Errorf("a leg's %s changed: %v", field, e)
		}
	}
	apitest.Must(t, f.a.Do("PATCH", "/api/positions/"+long, map[string]any{"symbol": "AAPL  270115C00210000"}), 200) // same underlying
	apitest.Must(t, f.a.Do("PATCH", "/api/positions/"+long, map[string]any{"symbol": "AAPL  270115C00200000"}), 200)
	for _, r := range []apitest.Response{f.b.Do("GET", "/api/strategies/"+id, nil), f.b.Do("PATCH", "/api/strategies/"+id, map[string]any{"name": "x"}),
		f.b.Do("DELETE", "/api/strategies/"+id, nil), f.a.Do("GET", "/api/strategies/not-an-id", nil)} {
		if r.Status != 404 {
			t.Errorf("another user's or a malformed id: %d %s", r.Status, r.Body)
		}
	}
	if items := apitest.Items(t, apitest.Must(t, f.b.Do("GET", "/api/strategies", nil), 200)); len(items) != 0 {
		t.Fatalf("b lists a's strategies: %v", items)
	}

	// Ungrouped, the legs stay and can join another strategy.
	apitest.Must(t, f.a.Do("DELETE", "/api/strategies/"+id, nil), 204)
	apitest.Must(t, f.a.Do("GET", "/api/positions/"+long, nil), 200)
	apitest.Must(t, f.a.Do("POST", "/api/strategies", map[string]any{"accountId": f.account, "positionIds": []string{long, spare}}), 201)
}

// TestStrategyPages: newest first, a cursor to the next page.
func TestStrategyPages(t *testing.T) {
	f := setup(t)
	var ids []string
	for _, strike := range []string{"100", "110", "120"} {
		p := leg(t, f.a, f.account, "QQQ   270115C00"+strike+"000", "option", "long", "1.00", "1")
		ids = append(ids, apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/strategies", map[string]any{"accountId": f.account,
			"positionIds": []string{p}}), 201), "strategy")["id"].(string))
	}
	r := apitest.Must(t, f.a.Do("GET", "/api/strategies?limit=2", nil), 200)
	first := apitest.Items(t, r)
	next, _ := r.JSON["nextCursor"].(string)
	if len(first) != 2 || first[0].(map[string]any)["id"] != ids[2] || next == "" {
		t.Fatalf("page 1: %d %v", len(first), next)
	}
	r = apitest.Must(t, f.a.Do("GET", "/api/strategies?limit=2&cursor="+next, nil), 200)
	if second := apitest.Items(t, r); len(second) != 1 || second[0].(map[string]any)["id"] != ids[0] || r.JSON["nextCursor"] != nil {
		t.Fatalf("page 2: %v %v", second, r.JSON["nextCursor"])
	}
	if r := f.a.Do("GET", "/api/strategies?cursor=zzz", nil); r.Status != 400 {
		t.Fatalf("a bad cursor: %d", r.Status)
	}
	if r := f.a.Do("GET", "/api/strategies", nil); len(apitest.Items(t, r)) != 3 || apitest.Items(t, r)[0].(map[string]any)["kind"] != "single-leg" {
		t.Fatalf("list: %s", r.Body)
	}
}

// TestRecordLegs: the builder records a strategy's legs as new positions
// with the strategy, in one transaction: a bad leg writes nothing.
func TestRecordLegs(t *testing.T) {
	f := setup(t)
	leg := func(symbol, side, price string) map[string]any {
		return map[string]any{"symbol": symbol, "assetType": "option", "side": side,
			"fills": []any{map[string]any{"type": "entry", "price": price, "quantity": "2", "fees": "1.30", "filledAt": "2026-06-01T14:00:00Z"}}}
	}
	bad := f.a.Do("POST", "/api/strategies", map[string]any{"accountId": f.account, "legs": []any{
		leg("AAPL  270115P00180000", "long", "4.00"), leg("AAPL  270115X00170000", "short", "2.50")}})
	e := apitest.Object(t, apitest.Must(t, bad, 400), "error")
	if d := e["details"].([]any)[0].(map[string]any); d["field"] != "legs[1].symbol" {
		t.Fatalf("bad leg: %v", e)
	}
	if items := apitest.Items(t, apitest.Must(t, f.a.Do("GET", "/api/positions", nil), 200)); len(items) != 0 {
		t.Fatalf("a refused strategy wrote %d positions", len(items))
	}
	r := f.a.Do("POST", "/api/strategies", map[string]any{"accountId": f.account, "legs": []any{
		leg("AAPL  270115P00180000", "long", "4.00"), leg("AAPL  270115P00170000", "short", "2.50")}})
	st := apitest.Object(t, apitest.Must(t, r, 201), "strategy")
	// A bear put vertical for (4.00 - 2.50) x 2 x 100 = 300 and 2.60 in fees: 10 wide, so 2000 - 300 at most.
	if st["kind"] != "vertical" || st["netDebit"] != "300.0000" || st["maxProfit"] != "1700.0000" || st["fees"] != "2.6000" || len(st["legs"].([]any)) != 2 {
		t.Fatalf("recorded: %v", st)
	}
	if r := f.a.Do("PATCH", "/api/strategies/"+st["id"].(string), map[string]any{"legs": []any{leg("AAPL  270115P00160000", "short", "1.00")}}); r.Status != 400 {
		t.Fatalf("legs on a PATCH: %d", r.Status)
	}
}
