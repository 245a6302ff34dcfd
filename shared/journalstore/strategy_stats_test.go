package journalstore_test

import (
	"context"
	"testing"
	"time"

	"tradejournal/shared/auth"
	"tradejournal/shared/db/dbtest"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
	"tradejournal/shared/journalstore"
	"tradejournal/shared/listquery"
	"tradejournal/shared/stats"
)

// TestStrategyWithDraftLegIsOneClosedTrade: a strategy whose legs with
// fills are closed is one trade in the statistics once they are, its net
// their sum; a leg without a fill (a draft) neither keeps it open nor adds
// to it. Each closed leg alone is no trade of its own.
func TestStrategyWithDraftLegIsOneClosedTrade(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	user := newUser(t, pool, "draft-leg@example.com")
	var account string
	if err := pool.QueryRow(ctx, `INSERT INTO accounts (user_id, name, currency, starting_balance, balance)
		VALUES ($1, 'Options', 'USD', 10000, 10000) RETURNING id::text`, user).Scan(&account); err != nil {
		t.Fatal(err)
	}
	day := time.Date(2024, 6, 3, 14, 0, 0, 0, time.UTC)
	store := journalstore.New(pool, nil, func() time.Time { return day.AddDate(0, 1, 0) })
	at := func(m int) *string { s := day.Add(time.Duration(m) * time.Minute).Format(time.RFC3339); return &s }
	symbol, stock, long := "SPY", instrument.AssetStock, journal.SideLong
	entry, exit := journal.FillEntry, journal.FillExit
	leg := func(in, out string) journalstore.NewPosition {
		p := journalstore.NewPosition{AccountID: &account, Symbol: &symbol, AssetType: &stock, Side: &long}
		if in != "" {
			p.Fills = []journal.FillInput{
				{Type: &entry, Price: journal.S(in), Quantity: journal.S("10"), FilledAt: at(0)},
				{Type: &exit, Price: journal.S(out), Quantity: journal.S("10"), FilledAt: at(30)},
			}
		}
		return p
	}
	if _, err := store.CreateStrategy(ctx, user, journalstore.StrategyInput{AccountID: &account,
		Legs: []journalstore.NewPosition{leg("100", "103"), leg("50", "49"), leg("", "")}}); err != nil {
		t.Fatal(err)
	}
	rep, err := stats.Compute(ctx, pool, auth.User{ID: user, Timezone: "UTC"}, listquery.Filter{}, true, day.AddDate(0, 1, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.ByCurrency) != 1 {
		t.Fatalf("currencies %+v", rep.ByCurrency)
	}
	got := rep.ByCurrency[0].Summary
	if got.Trades != 1 || got.Wins != 1 || got.NetPnl != "20.0000" {
		t.Fatalf("summary %+v, want one winning trade of 20 (30 - 10)", got)
	}
}
