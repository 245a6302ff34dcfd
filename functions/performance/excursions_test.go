package performance_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/apitest"
	"tradejournal/shared/journalstore"
)

// TestExcursionsAndExitAnalysis: a small journal written through the
// journal's routes (and the excursions job's store call), every figure of
// the excursions and the exit analysis worked by hand.
//
// One USD account, stocks (multiplier 1), all closed:
//
//	T1 long AAPL  10 @ 100 -> 106, stop 98, target 110; typed MAE 99, MFE 108.
//	   risk |100-98| x 10 = 20. MAE (99-100) x 10 = -10 (-0.50R); MFE (108-100) x 10 = 80 (4.00R);
//	   gross 60. Not measured: no first hit.
//	T2 short MSFT 20 @ 50 -> 52, stop 53, target 45; measured MAE 53.5, MFE 49, stop first.
//	   risk |50-53| x 20 = 60. MAE (53.5-50) x -1 x 20 = -70 (-1.17R); MFE (49-50) x -1 x 20 = 20 (0.33R);
//	   gross -40; at the stop (53-50) x -1 x 20 = -60.
//	T3 long NVDA  5 @ 200 (fee 1) -> 215, stop 190, target 215; measured MAE 198, MFE 216, target
//	   first; typed MFE 217 wins. risk 10 x 5 = 50. MAE -10 (-0.20R); MFE (217-200) x 5 = 85 (1.70R);
//	   gross 75 (net 74); at the target (215-200) x 5 = 75.
//	T4 long TSLA  10 @ 10 -> 11: nothing recorded, in no figure here.
//	T5 long AMD   1 @ 100 -> 102, no stop; typed MAE 95, MFE 103: MAE -5, MFE 3, no R; gross 2.
//
// MAE: 4 trades, -10 - 70 - 10 - 5 = -95, average -23.75; ascending -70, -10, -10, -5: nearest
// rank p10 (rank 1) -70, p25 (1) -70, p50 (2) -10, p75 (3) -10, p90 (4) -5. R: 3 trades,
// -0.50 - 1.17 - 0.20 = -1.87, average -0.6233; buckets [-2,-1) 1, [-1,0) 2.
// MFE: 4 trades, 80 + 20 + 85 + 3 = 188, average 47; ascending 3, 20, 80, 85: p10 3, p25 3,
// p50 20, p75 80, p90 85. R: 4.00 + 0.33 + 1.70 = 6.03, average 2.01; buckets [0,1) 1, [1,2) 1, 3+ 1.
// MFE kept: gross 60 - 40 + 75 + 2 = 97 of 188: 51.5957...% = 51.60.
// Hold to target: T3, gross 75, at the target 75. Hold to the stop: T2, gross -40, at the stop -60.
func TestExcursionsAndExitAnalysis(t *testing.T) {
	srv := start(t)
	c, uid := signUp(t, srv, "excursions@example.com")
	acc := apitest.Object(t, apitest.Must(t, c.Do("POST", "/api/accounts", map[string]any{
		"name": "Main", "currency": "USD", "timezone": "America/New_York", "startingBalance": "10000"}), 201), "account")["id"].(string)
	fill := func(kind, price, qty, fees, at string) map[string]any {
		return map[string]any{"type": kind, "price": price, "quantity": qty, "fees": fees, "filledAt": at}
	}
	create := func(symbol, side, stop, target string, fills ...map[string]any) string {
		body := map[string]any{"accountId": acc, "symbol": symbol, "assetType": "stock", "side": side, "fills": fills}
		if stop != "" {
			body["stopLoss"], body["targetPrice"] = stop, target
		}
		return apitest.Object(t, apitest.Must(t, c.Do("POST", "/api/positions", body), 201), "position")["id"].(string)
	}
	typed := func(id string, fields map[string]any) {
		apitest.Must(t, c.Do("PATCH", "/api/positions/"+id, fields), 200)
	}
	t1 := create("AAPL", "long", "98", "110", fill("entry", "100", "10", "0", "2024-05-06T14:00:00Z"),
		fill("exit", "106", "10", "0", "2024-05-06T15:00:00Z"))
	typed(t1, map[string]any{"maePrice": "99", "mfePrice": "108"})
	t2 := create("MSFT", "short", "53", "45", fill("entry", "50", "20", "0", "2024-05-07T14:00:00Z"),
		fill("exit", "52", "20", "0", "2024-05-07T15:00:00Z"))
	t3 := create("NVDA", "long", "190", "215", fill("entry", "200", "5", "1", "2024-05-08T14:00:00Z"),
		fill("exit", "215", "5", "0", "2024-05-08T15:00:00Z"))
	typed(t3, map[string]any{"mfePrice": "217"})
	create("TSLA", "long", "", "", fill("entry", "10", "10", "0", "2024-05-09T14:00:00Z"), fill("exit", "11", "10", "0", "2024-05-09T15:00:00Z"))
	t5 := create("AMD", "long", "", "", fill("entry", "100", "1", "0", "2024-05-10T14:00:00Z"), fill("exit", "102", "1", "0", "2024-05-10T15:00:00Z"))
	typed(t5, map[string]any{"maePrice": "95", "mfePrice": "103"})

	store := journalstore.New(srv.App.DB, nil, func() time.Time { return clock })
	d := func(s string) *decimal.Decimal { v := decimal.RequireFromString(s); return &v }
	for _, m := range []struct {
		id, closed string
		measured   journalstore.Measured
	}{
		{t2, "2024-05-07T15:00:00Z", journalstore.Measured{MAE: d("53.5"), MFE: d("49"), FirstHit: "stop", Source: "uploaded"}},
		{t3, "2024-05-08T15:00:00Z", journalstore.Measured{MAE: d("198"), MFE: d("216"), FirstHit: "target", Source: "uploaded"}},
	} {
		at, _ := time.Parse(time.RFC3339, m.closed)
		if ok, err := store.RecordMeasured(context.Background(), uid, m.id, at, m.measured); err != nil || !ok {
			t.Fatalf("measure %s: %v %v", m.id, ok, err)
		}
	}
	if diff, err := journalstore.RebuildDiff(context.Background(), srv.App.DB, uid); err != nil || diff != "" {
		t.Fatalf("the rows differ from a rebuild: %v\n%s", err, diff)
	}

	var rep struct {
		ByCurrency []struct {
			Excursions   json.RawMessage `json:"excursions"`
			ExitAnalysis json.RawMessage `json:"exitAnalysis"`
		} `json:"byCurrency"`
	}
	r := apitest.Must(t, c.Do("GET", "/api/performance", nil), 200)
	if err := json.Unmarshal(r.Body, &rep); err != nil || len(rep.ByCurrency) != 1 {
		t.Fatalf("%v %s", err, r.Body)
	}
	buckets := func(counts ...int) []any {
		out := []any{}
		for i, n := range counts {
			var from, to any
			if i > 0 {
				from = []string{"-3", "-2", "-1", "0", "1", "2", "3"}[i-1]
			}
			if i < 7 {
				to = []string{"-3", "-2", "-1", "0", "1", "2", "3"}[i]
			}
			out = append(out, map[string]any{"from": from, "to": to, "trades": float64(n)})
		}
		return out
	}
	want := map[string]any{
		"mae": map[string]any{"trades": 4.0, "averageMoney": "-23.7500",
			"percentiles": map[string]any{"p10": "-70.0000", "p25": "-70.0000", "p50": "-10.0000", "p75": "-10.0000", "p90": "-5.0000"},
			"rTrades":     3.0, "averageR": "-0.6233", "rDistribution": buckets(0, 0, 1, 2, 0, 0, 0, 0)},
		"mfe": map[string]any{"trades": 4.0, "averageMoney": "47.0000",
			"percentiles": map[string]any{"p10": "3.0000", "p25": "3.0000", "p50": "20.0000", "p75": "80.0000", "p90": "85.0000"},
			"rTrades":     3.0, "averageR": "2.0100", "rDistribution": buckets(0, 0, 0, 0, 1, 1, 0, 1)},
	}
	wantExits := map[string]any{
		"mfeKept":      map[string]any{"trades": 4.0, "grossPnl": "97.0000", "mfe": "188.0000", "share": "51.60"},
		"holdToTarget": map[string]any{"trades": 1.0, "grossPnl": "75.0000", "atLevel": "75.0000"},
		"holdToStop":   map[string]any{"trades": 1.0, "grossPnl": "-40.0000", "atLevel": "-60.0000"},
	}
	for _, x := range []struct {
		name string
		raw  json.RawMessage
		want any
	}{{"excursions", rep.ByCurrency[0].Excursions, want}, {"exitAnalysis", rep.ByCurrency[0].ExitAnalysis, wantExits}} {
		var got, w any
		if err := json.Unmarshal(x.raw, &got); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(x.want)
		_ = json.Unmarshal(b, &w)
		if path, g, ww, ok := firstDifference(x.name, got, w); !ok {
			t.Errorf("%s is %v, by hand %v", path, g, ww)
		}
	}

	// NVDA's target moved: which of stop and target its bars reached
	// first is measured again, and until then it holds to no target.
	apitest.Must(t, c.Do("PATCH", "/api/positions/"+t3, map[string]any{"targetPrice": "220"}), 200)
	var after struct {
		ByCurrency []struct {
			ExitAnalysis struct {
				HoldToTarget struct {
					Trades int `json:"trades"`
				} `json:"holdToTarget"`
			} `json:"exitAnalysis"`
		} `json:"byCurrency"`
	}
	r = apitest.Must(t, c.Do("GET", "/api/performance", nil), 200)
	if err := json.Unmarshal(r.Body, &after); err != nil || after.ByCurrency[0].ExitAnalysis.HoldToTarget.Trades != 0 {
		t.Fatalf("after moving the target: %v %s", err, r.Body)
	}
	if diff, err := journalstore.RebuildDiff(context.Background(), srv.App.DB, uid); err != nil || diff != "" {
		t.Fatalf("the rows differ from a rebuild after the move: %v\n%s", err, diff)
	}
}

// TestQuotedExcursions: a USD/JPY lot in a dollar account has its typed
// MAE in the statistics in dollars, at the first entry's rate (the
// pair's own price: 1 JPY = 1/150 USD), as its initial risk is.
func TestQuotedExcursions(t *testing.T) {
	srv := start(t)
	c, _ := signUp(t, srv, "quoted-excursions@example.com")
	acc := apitest.Object(t, apitest.Must(t, c.Do("POST", "/api/accounts", map[string]any{
		"name": "FX", "currency": "USD", "timezone": "America/New_York", "startingBalance": "10000"}), 201), "account")["id"].(string)
	p := apitest.Object(t, apitest.Must(t, c.Do("POST", "/api/positions", map[string]any{
		"accountId": acc, "symbol": "USD/JPY", "assetType": "forex", "side": "long", "stopLoss": "149",
		"fills": []any{
			map[string]any{"type": "entry", "price": "150.00", "quantity": "100000", "fees": "0", "filledAt": "2024-03-05T08:00:00Z"},
			map[string]any{"type": "exit", "price": "151.00", "quantity": "100000", "fees": "0", "filledAt": "2024-03-05T12:00:00Z"},
		}}), 201), "position")
	apitest.Must(t, c.Do("PATCH", "/api/positions/"+p["id"].(string), map[string]any{"maePrice": "149.5"}), 200)

	var rep struct {
		ByCurrency []struct {
			Currency   string `json:"currency"`
			Excursions struct {
				MAE struct {
					Trades       int    `json:"trades"`
					AverageMoney string `json:"averageMoney"`
					AverageR     string `json:"averageR"`
				} `json:"mae"`
			} `json:"excursions"`
		} `json:"byCurrency"`
	}
	r := apitest.Must(t, c.Do("GET", "/api/performance", nil), 200)
	if err := json.Unmarshal(r.Body, &rep); err != nil || len(rep.ByCurrency) != 1 {
		t.Fatalf("%v %s", err, r.Body)
	}
	// Risk: 1.00 JPY x 100,000 = 100,000 JPY = 666.6667 USD. MAE: -0.50 x
	// 100,000 = -50,000 JPY = -333.3333 USD, -0.5R.
	if m := rep.ByCurrency[0].Excursions.MAE; rep.ByCurrency[0].Currency != "USD" || m.Trades != 1 ||
		m.AverageMoney != "-333.3333" || m.AverageR != "-0.5000" {
		t.Fatalf("MAE %+v", m)
	}
}
