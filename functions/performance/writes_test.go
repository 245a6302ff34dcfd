package performance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"sync"
	"testing"

	"tradejournal/shared/apitest"
	"tradejournal/shared/journalstore"
)

// TestReportAfterEveryWritePath builds a varied journal through every
// write path (positions and fills through the API, a CSV import, rows
// written straight into the table, tag changes, account edits and
// deletion, rate and display-currency changes, playbooks followed, their
// criteria ticked and deleted) and after each step checks,
// for every kind of filter, that the report equals the test's own
// recomputation from the positions (oracle_test.go): nothing derived can
// go stale, since nothing derived is kept.
func TestReportAfterEveryWritePath(t *testing.T) {
	srv := start(t)
	c, uid := signUp(t, srv, "writes@example.com")
	ctx := context.Background()
	ok := func(r apitest.Response, status int) apitest.Response {
		t.Helper()
		if r.Status != status {
			t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
		}
		return r
	}
	// done accepts any success: the routes answer 200, 201 or 204.
	done := func(r apitest.Response) {
		t.Helper()
		if r.Status/100 != 2 {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
	}
	id := func(r apitest.Response, key string) string {
		t.Helper()
		return r.JSON[key].(map[string]any)["id"].(string)
	}
	newAccount := func(name, currency, zone string) string {
		return id(ok(c.Do("POST", "/api/accounts", map[string]any{"name": name, "currency": currency, "timezone": zone}), 201), "account")
	}
	usd := newAccount("US", "USD", "America/New_York")
	eur := newAccount("EU", "EUR", "Europe/Berlin")
	gbp := newAccount("UK", "GBP", "Europe/London")
	tokyo := newAccount("JP in USD", "USD", "Asia/Tokyo") // a second USD account in another zone
	accounts := []string{usd, eur, gbp, tokyo}
	newTag := func(name, category string) string {
		return id(ok(c.Do("POST", "/api/tags", map[string]any{"name": name, "category": category}), 201), "tag")
	}
	breakout, fomo, late := newTag("Breakout", "setup"), newTag("FOMO", "emotion"), newTag("Late", "mistake")

	fill := func(typ, price, qty, at string) map[string]any {
		return map[string]any{"type": typ, "price": price, "quantity": qty, "fees": "1", "filledAt": at}
	}
	// trade opens and closes a position in one request: long 10 at 100,
	// out at exit.
	trade := func(account, symbol, exit, in, out string, tags ...string) string {
		return id(ok(c.Do("POST", "/api/positions", map[string]any{
			"accountId": account, "symbol": symbol, "assetType": "stock", "side": "long", "stopLoss": "95",
			"tagIds": tags, "fills": []any{fill("entry", "100", "10", in), fill("exit", exit, "10", out)},
		}), 201), "position")
	}

	var book string // a playbook to filter by, once there is one
	check := func(step string) {
		t.Helper()
		queries := []string{"", "?status=closed", "?from=2024-03-02", "?to=2024-03-31", "?from=2024-03-04&to=2024-03-05",
			"?tagId=" + breakout, "?tagId=" + late, "?symbol=AAPL", "?accountId=" + usd + "&from=2024-03-01&to=2024-03-01"}
		for _, a := range accounts {
			queries = append(queries, "?accountId="+a)
		}
		if book != "" {
			queries = append(queries, "?playbookId="+book, "?playbookId="+book+"&tagId="+breakout)
		}
		t.Run(step, func(t *testing.T) {
			sameAsRebuild(t, srv, uid, step)
			checkReport(t, srv, c, uid, clock, queries...)
		})
	}

	// Positions through the API, closing on days that differ by zone
	// (23:30 UTC is the next day in Berlin and Tokyo), with ties on the
	// close time, winners, losers and a breakeven.
	type spec struct{ account, symbol, exit, in, out string }
	var ids []string
	for i, s := range []spec{
		{usd, "AAPL", "110", "2024-03-01T14:00:00Z", "2024-03-01T15:00:00Z"},
		{usd, "AAPL", "95", "2024-03-01T14:00:00Z", "2024-03-01T15:00:00Z"},
		{eur, "SAP", "120", "2024-03-01T09:00:00Z", "2024-03-01T15:00:00Z"},
		{eur, "SAP", "90", "2024-03-01T09:00:00Z", "2024-03-01T23:30:00Z"},
		{gbp, "VOD", "100.1", "2024-03-01T09:00:00Z", "2024-03-01T23:30:00Z"},
		{tokyo, "AAPL", "101", "2024-03-01T01:00:00Z", "2024-03-01T23:30:00Z"},
		{usd, "MSFT", "99", "2024-03-02T14:00:00Z", "2024-03-04T15:00:00Z"},
		{tokyo, "MSFT", "105", "2024-03-04T01:00:00Z", "2024-03-04T02:00:00Z"},
		{gbp, "VOD", "98", "2024-03-04T09:00:00Z", "2024-03-05T10:00:00Z"},
		{usd, "TSLA", "100.1", "2024-03-05T14:00:00Z", "2024-03-05T15:00:00Z"},
		{eur, "SAP", "104", "2024-03-05T09:00:00Z", "2024-03-05T15:00:00Z"},
		{usd, "AAPL", "130", "2024-04-01T14:00:00Z", "2024-04-01T15:00:00Z"},
	} {
		tags := [][]string{{breakout}, {fomo}, {breakout, late}, nil}[i%4]
		ids = append(ids, trade(s.account, s.symbol, s.exit, s.in, s.out, tags...))
	}
	// An open position: it counts once closed.
	open := id(ok(c.Do("POST", "/api/positions", map[string]any{
		"accountId": usd, "symbol": "NVDA", "assetType": "stock", "side": "short", "tagIds": []string{late},
		"fills": []any{fill("entry", "50", "10", "2024-03-04T14:00:00Z")},
	}), 201), "position")
	// Rows written straight into the table, as a bulk load or a seed does, then
	// their statistics rows rebuilt:
	// 2,400 closes over a month, three at a time on the same instant.
	if _, err := srv.App.DB.Exec(ctx, `
		INSERT INTO positions (user_id, account_id, symbol, asset_type, side, status, opened_at, closed_at, net_pnl, gross_pnl, fees, r_multiple)
		SELECT $1, ($2::uuid[])[1 + i % 4], (ARRAY['AAPL','SPY','QQQ'])[1 + i % 3], 'stock', 'long', 'closed',
			ts - interval '1 hour', ts, net, net + 1, 1, CASE WHEN i % 5 = 0 THEN NULL ELSE net / 50 END
		FROM generate_series(1, 2400) i,
			LATERAL (SELECT timestamptz '2024-02-01 00:00Z' + (i / 3) * interval '1 hour' AS ts,
				((i * 7919) % 41 - 17)::numeric * 3.25 AS net) v`, uid, accounts); err != nil {
		t.Fatal(err)
	}
	rebuild(t, srv, uid) // what the journal store does for its own writes
	check("created without a display currency")

	done(c.Do("PUT", "/api/users/me/display-currency", map[string]any{"currency": "USD"}))
	check("display currency without rates (missing pairs)")
	for _, r := range []map[string]any{
		{"baseCurrency": "EUR", "quoteCurrency": "USD", "effectiveDate": "2024-01-01", "rate": "1.0835"},
		{"baseCurrency": "USD", "quoteCurrency": "GBP", "effectiveDate": "2024-01-01", "rate": "0.7913"},
	} {
		done(c.Do("POST", "/api/exchange-rates", r))
	}
	check("rates")

	pos := func(id string) map[string]any {
		return ok(c.Do("GET", "/api/positions/"+id, nil), 200).JSON["position"].(map[string]any)
	}
	lastFill := func(id string) string {
		fills := pos(id)["fills"].([]any)
		return fills[len(fills)-1].(map[string]any)["id"].(string)
	}
	path := func(id string) string { return "/api/positions/" + id }

	done(c.Do("POST", path(open)+"/fills", fill("exit", "45", "10", "2024-03-05T15:00:00Z")))
	check("a fill closes a position")
	done(c.Do("PATCH", path(ids[0])+"/fills/"+lastFill(ids[0]), map[string]any{"price": "80"}))
	check("a fill's price changes")
	done(c.Do("PATCH", path(ids[1])+"/fills/"+lastFill(ids[1]), map[string]any{"filledAt": "2024-03-05T23:59:00Z"}))
	check("a fill moves to another day")
	done(c.Do("DELETE", path(ids[2])+"/fills/"+lastFill(ids[2]), nil))
	check("a fill's deletion reopens a position")
	done(c.Do("PATCH", path(ids[3]), map[string]any{"accountId": gbp, "symbol": "BARC", "stopLoss": "99"}))
	check("a position moves to another account, symbol and stop")
	done(c.Do("PUT", path(ids[4])+"/tags", map[string]any{"tagIds": []string{fomo, late}}))
	done(c.Do("PUT", path(ids[5])+"/tags", map[string]any{"tagIds": []string{}}))
	check("tags set and cleared")
	done(c.Do("DELETE", "/api/tags/"+fomo, nil))
	check("a tag deleted")
	done(c.Do("DELETE", path(ids[6]), nil))
	check("a position deleted")

	newBook := func(name string, criteria ...string) (string, []string) {
		var list []any
		for _, text := range criteria {
			list = append(list, map[string]any{"text": text})
		}
		b := ok(c.Do("POST", "/api/playbooks", map[string]any{"name": name, "criteria": list}), 201).JSON["playbook"].(map[string]any)
		var ids []string
		for _, c := range b["criteria"].([]any) {
			ids = append(ids, c.(map[string]any)["id"].(string))
		}
		return b["id"].(string), ids
	}
	var crits []string
	book, crits = newBook("Breakout", "Trend", "Volume", "Level")
	fade, _ := newBook("Fade", "Extended")
	follow := func(position, book string, criteria ...string) {
		done(c.Do("PUT", path(position)+"/playbook", map[string]any{"playbookId": book, "criterionIds": criteria}))
	}
	follow(ids[0], book, crits[0])
	follow(ids[4], book, crits[0], crits[1])
	follow(ids[8], book)
	follow(ids[5], fade)
	check("positions follow playbooks and tick criteria")
	done(c.Do("PATCH", "/api/playbooks/"+book, map[string]any{"criteria": []any{
		map[string]any{"id": crits[1], "text": "Volume above average"}, map[string]any{"text": "Catalyst"}}}))
	check("a ticked criterion deleted, one added")
	follow(ids[4], fade)
	check("a position changes playbook")
	done(c.Do("DELETE", "/api/playbooks/"+book, nil))
	check("a playbook deleted")

	// Strategies: positions grouped, a planned risk, legs recorded with
	// their strategy, a roll that opens it again, an option left to expire,
	// a leg deleted, the strategy ungrouped; each a trade once closed.
	strategy := func(method, path string, body map[string]any, status int) string {
		return id(ok(c.Do(method, path, body), status), "strategy")
	}
	rebuild(t, srv, uid)
	grouped := strategy("POST", "/api/strategies", map[string]any{"accountId": usd, "positionIds": []string{ids[0], ids[1]}, "plannedRisk": "100"}, 201)
	check("two positions grouped as a strategy")
	strategy("PATCH", "/api/strategies/"+grouped, map[string]any{"plannedRisk": "40"}, 200)
	check("a strategy's planned risk changed")
	leg := func(symbol, side, price, exit, out string) map[string]any {
		fills := []any{fill("entry", price, "2", "2024-03-04T15:00:00Z")}
		if exit != "" {
			fills = append(fills, fill("exit", exit, "2", out))
		}
		return map[string]any{"symbol": symbol, "assetType": "option", "side": side, "tagIds": []string{late}, "fills": fills}
	}
	vertical := strategy("POST", "/api/strategies", map[string]any{"accountId": eur, "legs": []any{
		leg("SPY   240419C00500000", "long", "6.10", "8.20", "2024-03-12T15:00:00Z"),
		leg("SPY   240419C00510000", "short", "2.40", "3.30", "2024-03-13T15:00:00Z"),
	}}, 201)
	check("a vertical recorded with its legs")
	var legIDs []string
	for _, l := range ok(c.Do("GET", "/api/strategies/"+vertical, nil), 200).JSON["strategy"].(map[string]any)["legs"].([]any) {
		legIDs = append(legIDs, l.(map[string]any)["id"].(string))
	}
	rolled := id(ok(c.Do("POST", "/api/positions", map[string]any{"accountId": eur, "assetType": "option", "side": "short",
		"symbol": "SPY   240621C00520000", "fills": []any{fill("entry", "2.00", "2", "2024-03-13T15:05:00Z")}}), 201), "position")
	strategy("PATCH", "/api/strategies/"+vertical, map[string]any{"positionIds": append(legIDs, rolled)}, 200)
	check("a roll opens the strategy again")
	done(c.Do("POST", path(rolled)+"/fills", fill("exit", "0.40", "2", "2024-05-20T15:00:00Z")))
	check("the rolled leg closed")
	strategy("POST", "/api/strategies", map[string]any{"accountId": gbp, "legs": []any{
		leg("QQQ   240517P00400000", "long", "3.00", "", ""), leg("QQQ   240517P00390000", "short", "1.50", "", "")}}, 201)
	done(c.Do("GET", "/api/positions", nil)) // held past their expiry in May: closed at 0 by this read
	check("a put spread held to expiry")
	done(c.Do("DELETE", path(legIDs[1]), nil))
	check("a leg deleted")
	done(c.Do("DELETE", "/api/strategies/"+vertical, nil))
	check("a strategy ungrouped")

	csvFile := "Date,Time,Symbol,Side,Quantity,Price,Fees\n" +
		"2024-03-04,09:31:05,AAPL,Buy,100,184.25,1.00\n" +
		"2024-03-04,10:02:44,AAPL,Sell,50,185.10,1.00\n" +
		"2024-03-04,10:15:30,AAPL,Sell,50,183.60,1.00\n" +
		"2024-03-05,11:20:00,TSLA,Sell Short,30,212.40,1.00\n" +
		"2024-03-05,15:20:00,TSLA,Buy to Cover,30,210.10,1.00\n"
	token := csvPreview(t, c, eur, csvFile)
	done(c.Do("POST", "/api/csv-import/commit", map[string]any{"token": token, "confirmDuplicates": true}))
	check("a CSV import committed")

	// Concurrent writes to positions closing on the same days.
	var wg sync.WaitGroup
	for i, id := range []string{ids[0], ids[4], ids[5], ids[7], ids[8], ids[9], ids[10], ids[11]} {
		wg.Go(func() {
			r := c.Do("PATCH", path(id)+"/fills/"+lastFill(id), map[string]any{"price": fmt.Sprintf("%d.5", 90+i)})
			if r.Status != 200 {
				t.Errorf("concurrent write: %d %s", r.Status, r.Body)
			}
		})
	}
	wg.Wait()
	check("concurrent fill writes")

	done(c.Do("PATCH", "/api/accounts/"+tokyo, map[string]any{"timezone": "Pacific/Auckland"}))
	check("an account's trading-day zone changed")
	done(c.Do("PATCH", "/api/accounts/"+gbp, map[string]any{"currency": "EUR"}))
	check("an account's currency changed")
	done(c.Do("POST", "/api/exchange-rates", map[string]any{"baseCurrency": "EUR", "quoteCurrency": "USD", "effectiveDate": "2024-05-01", "rate": "1.2"}))
	check("today's rate changed")
	done(c.Do("PUT", "/api/users/me/display-currency", map[string]any{"currency": "EUR"}))
	check("the display currency changed")
	done(c.Do("DELETE", "/api/accounts/"+usd+"?confirm=true", nil))
	accounts = []string{eur, gbp, tokyo}
	check("an account deleted with its positions")

}

// sameAsRebuild checks that the journal's derived rows (the statistics'
// rows, the strategies' analysis, the balances) are what a rebuild makes
// of it.
func sameAsRebuild(t *testing.T, srv *apitest.Server, userID, step string) {
	t.Helper()
	diff, err := journalstore.RebuildDiff(context.Background(), srv.App.DB, userID)
	if err != nil {
		t.Fatal(err)
	}
	if diff != "" {
		t.Fatalf("%s: %s", step, diff)
	}
}

// csvPreview stages a generic-execution file for account and returns the
// commit token.
func csvPreview(t *testing.T, c *apitest.Client, account, file string) string {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	opts, _ := json.Marshal(map[string]any{"accountId": account, "presetId": "generic-execution"})
	if err := w.WriteField("options", string(opts)); err != nil {
		t.Fatal(err)
	}
	fw, err := w.CreateFormFile("file", "trades.csv")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fw.Write([]byte(file))
	_ = w.Close()
	req := c.NewRequest("POST", "/api/csv-import/preview", buf.String())
	req.Header.Set("Content-Type", w.FormDataContentType())
	r := c.Send(req)
	token, ok := r.JSON["token"].(string)
	if r.Status != 200 || !ok {
		t.Fatalf("preview: %d %s", r.Status, r.Body)
	}
	return token
}
