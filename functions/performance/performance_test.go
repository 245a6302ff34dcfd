package performance_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/journalstore"
)

var clock = time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)

func start(t *testing.T) *apitest.Server {
	t.Helper()
	return apitest.StartAt(t, apitest.Config(t), func() time.Time { return clock }, functions.All)
}

func signUp(t *testing.T, srv *apitest.Server, email string) (*apitest.Client, string) {
	t.Helper()
	c := srv.Client(t)
	r := c.Register(email, "password1")
	return c, r.JSON["user"].(map[string]any)["id"].(string)
}

func queryRow(t *testing.T, srv *apitest.Server, dst any, sql string, args ...any) {
	t.Helper()
	if err := srv.App.DB.QueryRow(context.Background(), sql, args...).Scan(dst); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// The journal's own routes belong to another group; these tests write the
// rows the schema describes directly: accounts, and positions with their
// derived figures as the journal keeps them.

func account(t *testing.T, srv *apitest.Server, userID, currency, zone string) string {
	t.Helper()
	var id string
	queryRow(t, srv, &id, `INSERT INTO accounts (user_id, name, currency, timezone) VALUES ($1, $2, $3, $4) RETURNING id::text`,
		userID, currency+" "+zone, currency, zone)
	return id
}

type pos struct {
	symbol           string
	net, gross, fees string
	r                any // string or nil
	closedAt         string
	status           string // "" is closed
}

func position(t *testing.T, srv *apitest.Server, userID, accountID string, p pos) string {
	t.Helper()
	status := p.status
	if status == "" {
		status = "closed"
	}
	closed, err := time.Parse(time.RFC3339, p.closedAt)
	if err != nil {
		t.Fatal(err)
	}
	var closedAt any = closed
	if status != "closed" {
		closedAt = nil
	}
	var id string
	queryRow(t, srv, &id, `INSERT INTO positions (user_id, account_id, symbol, asset_type, side, status, opened_at, closed_at,
			entry_quantity, exit_quantity, net_pnl, gross_pnl, fees, r_multiple)
		VALUES ($1, $2, $3, 'stock', 'long', $4, $5::timestamptz - interval '1 hour', $6, 10, 10, $7, $8, $9, $10) RETURNING id::text`,
		userID, accountID, p.symbol, status, closed, closedAt, p.net, p.gross, p.fees, p.r)
	rebuild(t, srv, userID)
	return id
}

// rebuild makes the user's closed_trades rows, as the journal store does
// for its writes: the tests write positions with SQL.
func rebuild(t *testing.T, srv *apitest.Server, userID string) {
	t.Helper()
	if err := journalstore.Rebuild(context.Background(), srv.App.DB, userID); err != nil {
		t.Fatal(err)
	}
}

func tag(t *testing.T, srv *apitest.Server, userID, name, category string, positions ...string) string {
	t.Helper()
	var id string
	queryRow(t, srv, &id, `INSERT INTO tags (user_id, name, category) VALUES ($1, $2, $3) RETURNING id::text`, userID, name, category)
	for _, p := range positions {
		if _, err := srv.App.DB.Exec(context.Background(), `INSERT INTO position_tags (position_id, tag_id) VALUES ($1, $2)`, p, id); err != nil {
			t.Fatal(err)
		}
	}
	rebuild(t, srv, userID)
	return id
}

// report mirrors the response, decoded strictly enough to compare.
type report struct {
	DisplayCurrency *string  `json:"displayCurrency"`
	MissingPairs    []string `json:"missingPairs"`
	ByCurrency      []block  `json:"byCurrency"`
	Total           *block   `json:"total"`
}

type block struct {
	Currency string         `json:"currency"`
	Summary  map[string]any `json:"summary"`
	ByDay    []struct {
		Date   string `json:"date"`
		Trades int    `json:"trades"`
		NetPnl string `json:"netPnl"`
	} `json:"byDay"`
	ByMonth []struct {
		Month  string `json:"month"`
		Trades int    `json:"trades"`
		NetPnl string `json:"netPnl"`
	} `json:"byMonth"`
	BySymbol []struct {
		Symbol  string  `json:"symbol"`
		Trades  int     `json:"trades"`
		Wins    int     `json:"wins"`
		Losses  int     `json:"losses"`
		WinRate *string `json:"winRate"`
		NetPnl  string  `json:"netPnl"`
	} `json:"bySymbol"`
	ByTag []struct {
		TagID    string `json:"tagId"`
		Name     string `json:"name"`
		Category string `json:"category"`
		Trades   int    `json:"trades"`
		NetPnl   string `json:"netPnl"`
	} `json:"byTag"`
	EquityCurve []struct {
		ClosedAt         time.Time `json:"closedAt"`
		Trade            int64     `json:"trade"`
		CumulativeNetPnl string    `json:"cumulativeNetPnl"`
	} `json:"equityCurve"`
}

func (b block) days() []string {
	var out []string
	for _, d := range b.ByDay {
		out = append(out, fmt.Sprintf("%s %d %s", d.Date, d.Trades, d.NetPnl))
	}
	return out
}

func (b block) months() []string {
	var out []string
	for _, d := range b.ByMonth {
		out = append(out, fmt.Sprintf("%s %d %s", d.Month, d.Trades, d.NetPnl))
	}
	return out
}

func (b block) symbols() []string {
	var out []string
	for _, d := range b.BySymbol {
		wr := "null"
		if d.WinRate != nil {
			wr = *d.WinRate
		}
		out = append(out, fmt.Sprintf("%s %d %d/%d %s %s", d.Symbol, d.Trades, d.Wins, d.Losses, wr, d.NetPnl))
	}
	return out
}

func (b block) tags() []string {
	var out []string
	for _, d := range b.ByTag {
		out = append(out, fmt.Sprintf("%s/%s %d %s", d.Name, d.Category, d.Trades, d.NetPnl))
	}
	return out
}

func (b block) curve() []string {
	var out []string
	for _, p := range b.EquityCurve {
		out = append(out, p.ClosedAt.Format("01-02T15:04")+" "+p.CumulativeNetPnl)
	}
	return out
}

func get(t *testing.T, c *apitest.Client, query string) report {
	t.Helper()
	r := c.Do("GET", "/api/performance"+query, nil)
	if r.Status != 200 {
		t.Fatalf("%s: %d %s", query, r.Status, r.Body)
	}
	var rep report
	if err := json.Unmarshal(r.Body, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.MissingPairs == nil || rep.ByCurrency == nil {
		t.Fatalf("arrays must not be null: %s", r.Body)
	}
	return rep
}

// checkSummary compares the named summary fields; want values are strings,
// numbers or nil.
func checkSummary(t *testing.T, what string, got map[string]any, want map[string]any) {
	t.Helper()
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			t.Errorf("%s: summary has no %s", what, k)
			continue
		}
		if fmt.Sprint(g) != fmt.Sprint(w) {
			t.Errorf("%s: %s = %v, want %v", what, k, g, w)
		}
	}
}

func TestPerformance(t *testing.T) {
	srv := start(t)
	c, uid := signUp(t, srv, "perf@example.com")
	usd := account(t, srv, uid, "USD", "America/New_York")
	eur := account(t, srv, uid, "EUR", "Europe/Berlin")
	p := func(acc string, q pos) string { return position(t, srv, uid, acc, q) }
	p1 := p(usd, pos{"AAPL", "100", "102", "2", "1.0", "2024-03-01T15:00:00Z", ""})
	p2 := p(usd, pos{"AAPL", "-50", "-48", "2", "-0.5", "2024-03-01T16:00:00Z", ""})
	p3 := p(usd, pos{"MSFT", "-30", "-29", "1", nil, "2024-03-02T03:00:00Z", ""}) // 1 March in New York
	p(usd, pos{"MSFT", "0", "1", "1", "0", "2024-03-04T15:00:00Z", ""})
	p5 := p(usd, pos{"TSLA", "200", "203", "3", "2", "2024-04-01T15:00:00Z", ""})
	p(usd, pos{"TSLA", "10", "11", "1", "0.1", "2024-04-02T15:00:00Z", ""})
	p(usd, pos{"NVDA", "500", "500", "0", "5", "2024-04-03T15:00:00Z", "open"}) // not closed: never counted
	p(usd, pos{"NVDA", "0", "0", "0", nil, "2024-04-03T15:00:00Z", "draft"})
	p(eur, pos{"SAP", "-40", "-38", "2", nil, "2024-03-01T23:30:00Z", ""}) // 2 March in Berlin
	p8 := p(eur, pos{"SAP", "60", "62", "2", "1.5", "2024-03-05T10:00:00Z", ""})
	breakout := tag(t, srv, uid, "breakout", "setup", p1, p5, p8)
	fomo := tag(t, srv, uid, "fomo", "mistake", p2, p3)
	tag(t, srv, uid, "unused", "general")

	// Another user's positions never count.
	o, ouid := signUp(t, srv, "other@example.com")
	oacc := account(t, srv, ouid, "USD", "UTC")
	position(t, srv, ouid, oacc, pos{"AAPL", "1000", "1000", "0", nil, "2024-03-01T15:00:00Z", ""})

	usdSummary := map[string]any{
		"trades": 6, "wins": 3, "losses": 2, "breakevens": 1,
		"winRate": "50.00", "lossRate": "33.33", "breakevenRate": "16.67",
		"netPnl": "230.0000", "grossPnl": "240.0000", "fees": "10.0000",
		"grossWins": "310.0000", "grossLosses": "-80.0000",
		"averageWin": "103.3333", "averageLoss": "-40.0000", "profitFactor": "3.8750",
		"expectancy": "38.3333", "averageR": "0.5200", "rTrades": 5,
		"largestWin": "200.0000", "largestLoss": "-50.0000", "maxDrawdown": "80.0000",
		"longestWinStreak": 2, "longestLossStreak": 2,
	}
	eurSummary := map[string]any{
		"trades": 2, "wins": 1, "losses": 1, "breakevens": 0, "netPnl": "20.0000", "maxDrawdown": "40.0000",
		"profitFactor": "1.5000", "averageR": "1.5000", "longestWinStreak": 1, "longestLossStreak": 1,
	}

	t.Run("NoDisplayCurrency", func(t *testing.T) {
		rep := get(t, c, "")
		if rep.DisplayCurrency != nil || rep.Total != nil || len(rep.MissingPairs) != 0 || len(rep.ByCurrency) != 2 {
			t.Fatalf("%+v", rep)
		}
		u, e := rep.ByCurrency[1], rep.ByCurrency[0]
		if u.Currency != "USD" || e.Currency != "EUR" {
			t.Fatalf("currencies %s %s", e.Currency, u.Currency)
		}
		checkSummary(t, "USD", u.Summary, usdSummary)
		checkSummary(t, "EUR", e.Summary, eurSummary)
		if want := []string{"2024-03-01 3 20.0000", "2024-03-04 1 0.0000", "2024-04-01 1 200.0000", "2024-04-02 1 10.0000"}; !slices.Equal(u.days(), want) {
			t.Errorf("USD days %v, want %v", u.days(), want)
		}
		if want := []string{"2024-03-02 1 -40.0000", "2024-03-05 1 60.0000"}; !slices.Equal(e.days(), want) {
			t.Errorf("EUR days %v, want %v", e.days(), want)
		}
		if want := []string{"2024-03 4 20.0000", "2024-04 2 210.0000"}; !slices.Equal(u.months(), want) {
			t.Errorf("USD months %v, want %v", u.months(), want)
		}
		if want := []string{"TSLA 2 2/0 100.00 210.0000", "AAPL 2 1/1 50.00 50.0000", "MSFT 2 0/1 0.00 -30.0000"}; !slices.Equal(u.symbols(), want) {
			t.Errorf("USD symbols %v, want %v", u.symbols(), want)
		}
		if want := []string{"breakout/setup 2 300.0000", "fomo/mistake 2 -80.0000"}; !slices.Equal(u.tags(), want) {
			t.Errorf("USD tags %v, want %v", u.tags(), want)
		}
		if u.ByTag[0].TagID != breakout || u.ByTag[1].TagID != fomo {
			t.Errorf("tag ids %+v", u.ByTag)
		}
		want := []string{"03-01T15:00 100.0000", "03-01T16:00 50.0000", "03-02T03:00 20.0000", "03-04T15:00 20.0000", "04-01T15:00 220.0000", "04-02T15:00 230.0000"}
		if !slices.Equal(u.curve(), want) {
			t.Errorf("USD curve %v, want %v", u.curve(), want)
		}
	})

	if r := c.Do("PUT", "/api/users/me/display-currency", map[string]any{"currency": "USD"}); r.Status != 200 {
		t.Fatal(r.Status)
	}
	t.Run("MissingPair", func(t *testing.T) {
		rep := get(t, c, "")
		if *rep.DisplayCurrency != "USD" || rep.Total != nil || !slices.Equal(rep.MissingPairs, []string{"EUR/USD"}) || len(rep.ByCurrency) != 2 {
			t.Fatalf("%+v", rep)
		}
	})
	t.Run("MissingPairNotNeededWhenFilteredOut", func(t *testing.T) {
		rep := get(t, c, "?accountId="+usd)
		if rep.Total == nil || len(rep.MissingPairs) != 0 || len(rep.ByCurrency) != 1 {
			t.Fatalf("%+v", rep)
		}
		checkSummary(t, "total", rep.Total.Summary, usdSummary)
		if !slices.Equal(rep.Total.curve(), rep.ByCurrency[0].curve()) || !slices.Equal(rep.Total.symbols(), rep.ByCurrency[0].symbols()) {
			t.Errorf("a total in the only currency differs from it: %+v", rep.Total)
		}
	})

	rates := []map[string]any{
		{"baseCurrency": "EUR", "quoteCurrency": "USD", "effectiveDate": "2024-01-01", "rate": "1.5"},
		{"baseCurrency": "EUR", "quoteCurrency": "USD", "effectiveDate": "2024-06-02", "rate": "100"}, // tomorrow
	}
	for _, body := range rates {
		if r := c.Do("POST", "/api/exchange-rates", body); r.Status != 201 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	}
	t.Run("Total", func(t *testing.T) {
		rep := get(t, c, "")
		if rep.Total == nil || len(rep.MissingPairs) != 0 {
			t.Fatalf("%+v", rep)
		}
		tot := rep.Total
		if tot.Currency != "USD" {
			t.Fatalf("total currency %s", tot.Currency)
		}
		checkSummary(t, "total", tot.Summary, map[string]any{
			"trades": 8, "wins": 4, "losses": 3, "breakevens": 1, "winRate": "50.00", "lossRate": "37.50",
			"netPnl": "260.0000", "grossPnl": "276.0000", "fees": "16.0000",
			"grossWins": "400.0000", "grossLosses": "-140.0000", "averageWin": "100.0000", "averageLoss": "-46.6667",
			"profitFactor": "2.8571", "expectancy": "32.5000", "averageR": "0.6833", "rTrades": 6,
			"largestWin": "200.0000", "largestLoss": "-60.0000",
			"maxDrawdown": "140.0000", "longestWinStreak": 3, "longestLossStreak": 3,
		})
		if want := []string{"2024-03-01 3 20.0000", "2024-03-02 1 -60.0000", "2024-03-04 1 0.0000", "2024-03-05 1 90.0000", "2024-04-01 1 200.0000", "2024-04-02 1 10.0000"}; !slices.Equal(tot.days(), want) {
			t.Errorf("total days %v, want %v", tot.days(), want)
		}
		if want := []string{"2024-03 6 50.0000", "2024-04 2 210.0000"}; !slices.Equal(tot.months(), want) {
			t.Errorf("total months %v, want %v", tot.months(), want)
		}
		if want := []string{"breakout/setup 3 390.0000", "fomo/mistake 2 -80.0000"}; !slices.Equal(tot.tags(), want) {
			t.Errorf("total tags %v, want %v", tot.tags(), want)
		}
		if want := []string{"TSLA 2 2/0 100.00 210.0000", "AAPL 2 1/1 50.00 50.0000", "SAP 2 1/1 50.00 30.0000", "MSFT 2 0/1 0.00 -30.0000"}; !slices.Equal(tot.symbols(), want) {
			t.Errorf("total symbols %v, want %v", tot.symbols(), want)
		}
		want := []string{"03-01T15:00 100.0000", "03-01T16:00 50.0000", "03-01T23:30 -10.0000", "03-02T03:00 -40.0000",
			"03-04T15:00 -40.0000", "03-05T10:00 50.0000", "04-01T15:00 250.0000", "04-02T15:00 260.0000"}
		if !slices.Equal(tot.curve(), want) {
			t.Errorf("total curve %v, want %v", tot.curve(), want)
		}
		// The per-currency figures stay in their own currency.
		checkSummary(t, "EUR", rep.ByCurrency[0].Summary, eurSummary)
	})
	t.Run("InverseRateIntoEUR", func(t *testing.T) {
		if r := c.Do("PUT", "/api/users/me/display-currency", map[string]any{"currency": "EUR"}); r.Status != 200 {
			t.Fatal(r.Status)
		}
		defer c.Do("PUT", "/api/users/me/display-currency", map[string]any{"currency": "USD"})
		rep := get(t, c, "")
		if rep.Total == nil || rep.Total.Currency != "EUR" {
			t.Fatalf("%+v", rep)
		}
		// 230 USD / 1.5 + 20 EUR
		checkSummary(t, "total", rep.Total.Summary, map[string]any{"netPnl": "173.3333", "largestWin": "133.3333", "largestLoss": "-40.0000"})
	})

	t.Run("Filters", func(t *testing.T) {
		for _, tc := range []struct {
			name, query string
			trades      int    // of the total
			net         string // of the total
			currencies  int
		}{
			{"Account", "?accountId=" + eur, 2, "30.0000", 1},
			{"Symbol", "?symbol=aapl", 2, "50.0000", 1},
			{"SymbolNone", "?symbol=ZZZZ", 0, "0.0000", 0},
			{"Tag", "?tagId=" + fomo, 2, "-80.0000", 1},
			{"TagAcrossCurrencies", "?tagId=" + breakout, 3, "390.0000", 2},
			// Trading days in each account's zone: MSFT closed on 1 March in
			// New York is out; SAP closed on 2 March in Berlin is in.
			{"DateRange", "?from=2024-03-02&to=2024-03-31", 3, "30.0000", 2},
			{"FromOnly", "?from=2024-04-01", 2, "210.0000", 1},
			{"ToOnly", "?to=2024-03-01", 3, "20.0000", 1},
			{"OneDay", "?from=2024-03-01&to=2024-03-01", 3, "20.0000", 1},
			{"StatusClosed", "?status=closed", 8, "260.0000", 2},
			{"StatusOpenCountsNothing", "?status=open", 0, "0.0000", 0},
			{"OtherUsersAccount", "?accountId=" + oacc, 0, "0.0000", 0},
			{"UnknownParameterIgnored", "?foo=bar", 8, "260.0000", 2},
		} {
			t.Run(tc.name, func(t *testing.T) {
				rep := get(t, c, tc.query)
				if rep.Total == nil || len(rep.ByCurrency) != tc.currencies {
					t.Fatalf("%+v", rep)
				}
				checkSummary(t, "total", rep.Total.Summary, map[string]any{"trades": tc.trades, "netPnl": tc.net})
			})
		}
	})
	t.Run("Empty", func(t *testing.T) {
		rep := get(t, c, "?symbol=NONE")
		checkSummary(t, "total", rep.Total.Summary, map[string]any{
			"trades": 0, "winRate": nil, "averageWin": nil, "averageLoss": nil, "profitFactor": nil, "expectancy": nil,
			"averageR": nil, "largestWin": nil, "largestLoss": nil, "maxDrawdown": "0.0000", "longestWinStreak": 0,
		})
		if len(rep.Total.EquityCurve) != 0 || rep.Total.ByDay == nil || rep.Total.EquityCurve == nil {
			t.Fatalf("%+v", rep.Total)
		}
	})
	t.Run("OtherUser", func(t *testing.T) {
		rep := get(t, o, "")
		if len(rep.ByCurrency) != 1 {
			t.Fatalf("%+v", rep)
		}
		checkSummary(t, "USD", rep.ByCurrency[0].Summary, map[string]any{"trades": 1, "netPnl": "1000.0000", "profitFactor": nil})
	})

	apitest.Run(t, c, []apitest.Case{
		{Name: "BadAccountID", Method: "GET", Path: "/api/performance?accountId=42", Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "BadTagID", Method: "GET", Path: "/api/performance?tagId=x", Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "BadFrom", Method: "GET", Path: "/api/performance?from=2024-13-01", Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "BadTo", Method: "GET", Path: "/api/performance?to=yesterday", Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "ToBeforeFrom", Method: "GET", Path: "/api/performance?from=2024-03-02&to=2024-03-01", Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "BadStatus", Method: "GET", Path: "/api/performance?status=won", Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "LongSymbol", Method: "GET", Path: "/api/performance?symbol=ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJ", Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "BadResult", Method: "GET", Path: "/api/performance?result=win,draw", Status: 400, Code: "VALIDATION_ERROR", Field: "result"},
		{Name: "BadFeesResult", Method: "GET", Path: "/api/performance/fees?result=won", Status: 400, Code: "VALIDATION_ERROR", Field: "result"},
		{Name: "PostIsNotARoute", Method: "POST", Path: "/api/performance", Body: map[string]any{}, Status: 404},
	})
	apitest.Run(t, srv.Client(t), []apitest.Case{
		{Name: "SignedOut", Method: "GET", Path: "/api/performance", Status: 401, Code: "UNAUTHENTICATED"},
	})
}

// TestEquityCurveDownsampled: 2,500 positions give a curve of
// ceil(2500/3) = 834 points (every 3rd close and the last), in close order,
// ending at the net P&L; drawdown and streaks still see every position.
func TestEquityCurveDownsampled(t *testing.T) {
	srv := start(t)
	c, uid := signUp(t, srv, "curve@example.com")
	acc := account(t, srv, uid, "USD", "UTC")
	// Position i (1-based) nets +10, except every 7th, which nets -25; the
	// last 12 all lose 1 (the longest losing streak), the 100th wins 1000
	// (its peak is the start of the deepest drawdown).
	_, err := srv.App.DB.Exec(context.Background(), `
		INSERT INTO positions (user_id, account_id, symbol, asset_type, side, status, opened_at, closed_at, net_pnl, gross_pnl, fees)
		SELECT $1, $2, 'SPY', 'stock', 'long', 'closed', ts - interval '1 minute', ts, net, net, 0
		FROM generate_series(1, 2500) i,
			LATERAL (SELECT timestamptz '2024-01-01 00:00Z' + i * interval '1 hour' AS ts,
				CASE WHEN i > 2488 THEN -1 WHEN i = 100 THEN 1000 WHEN i % 7 = 0 THEN -25 ELSE 10 END AS net) v`, uid, acc)
	if err != nil {
		t.Fatal(err)
	}
	rebuild(t, srv, uid)
	var net string
	queryRow(t, srv, &net, `SELECT sum(net_pnl)::numeric(24,4)::text FROM positions`)
	rep := get(t, c, "")
	b := rep.ByCurrency[0]
	if len(b.EquityCurve) != 834 {
		t.Fatalf("%d points", len(b.EquityCurve))
	}
	last := b.EquityCurve[len(b.EquityCurve)-1]
	if last.CumulativeNetPnl != net || b.Summary["netPnl"] != net || !last.ClosedAt.Equal(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(2500*time.Hour)) {
		t.Fatalf("last point %+v, net %s", last, net)
	}
	if !b.EquityCurve[0].ClosedAt.Equal(time.Date(2024, 1, 1, 3, 0, 0, 0, time.UTC)) || b.EquityCurve[0].Trade != 3 || last.Trade != 2500 {
		t.Fatalf("first point %+v, last %+v: want the 3rd close and the 2,500th", b.EquityCurve[0], last)
	}
	for i := 1; i < len(b.EquityCurve); i++ {
		if !b.EquityCurve[i].ClosedAt.After(b.EquityCurve[i-1].ClosedAt) {
			t.Fatalf("points out of order at %d", i)
		}
	}
	// Between two -25s there are six +10s: the longest win streak is 6
	// except around the 1000 (positions 99..104: 99 wins, 100 wins, ...).
	checkSummary(t, "USD", b.Summary, map[string]any{"trades": 2500, "longestLossStreak": 12, "longestWinStreak": 6})
}

// TestConcurrentReportsSmallPool: a report holds one connection while it
// waits for the others; a burst of reports on a small pool must neither
// deadlock nor differ from one computed alone.
func TestConcurrentReportsSmallPool(t *testing.T) {
	for _, size := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("Pool%d", size), func(t *testing.T) {
			cfg := apitest.Config(t)
			cfg.DB.PoolSize = size
			srv := apitest.StartAt(t, cfg, func() time.Time { return clock }, functions.All)
			c, uid := signUp(t, srv, "burst@example.com")
			usd := account(t, srv, uid, "USD", "UTC")
			eur := account(t, srv, uid, "EUR", "UTC")
			for i := range 30 {
				acc := usd
				if i%3 == 0 {
					acc = eur
				}
				position(t, srv, uid, acc, pos{"SPY", fmt.Sprint(i%7 - 3), "0", "0", nil, fmt.Sprintf("2024-03-%02dT15:00:00Z", 1+i%28), ""})
			}
			c.Do("PUT", "/api/users/me/display-currency", map[string]any{"currency": "USD"})
			c.Do("POST", "/api/exchange-rates", map[string]any{"baseCurrency": "EUR", "quoteCurrency": "USD", "effectiveDate": "2024-01-01", "rate": "1.1"})
			want := c.Do("GET", "/api/performance", nil)
			if want.Status != 200 {
				t.Fatalf("%d %s", want.Status, want.Body)
			}
			done := make(chan apitest.Response)
			for range 10 {
				go func() { done <- c.Do("GET", "/api/performance", nil) }()
			}
			timeout := time.After(60 * time.Second)
			for range 10 {
				select {
				case r := <-done:
					if r.Status != 200 || string(r.Body) != string(want.Body) {
						t.Errorf("%d %.200s", r.Status, r.Body)
					}
				case <-timeout:
					t.Fatal("reports still waiting after 60 s: the pool is deadlocked")
				}
			}
		})
	}
}
