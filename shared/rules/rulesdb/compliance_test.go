package rulesdb_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/db/dbtest"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
	"tradejournal/shared/journalstore"
	"tradejournal/shared/rules/rulesdb"
)

// TestComplianceWithoutHTTP: another route group asks a range's
// compliance of a user directly: the day, its violation in words, the
// trade's score; a range past MaxDays is a validation error.
func TestComplianceWithoutHTTP(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	var u auth.User
	u.Timezone = "UTC"
	if err := pool.QueryRow(ctx, `INSERT INTO users (email, password_hash) VALUES ('a@example.com', 'x') RETURNING id::text`).Scan(&u.ID); err != nil {
		t.Fatal(err)
	}
	var account string
	if err := pool.QueryRow(ctx, `INSERT INTO accounts (user_id, name, currency, timezone, starting_balance, balance)
		VALUES ($1, 'Main', 'USD', 'America/New_York', 10000, 10000) RETURNING id::text`, u.ID).Scan(&account); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO trading_rules (user_id, type, params) VALUES ($1, 'stopRequired', '{}')`, u.ID); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	store := journalstore.New(pool, nil, func() time.Time { return now })
	symbol, stock, long, entry, at := "AAPL", instrument.AssetStock, journal.SideLong, journal.FillEntry, "2024-03-04T15:00:00Z"
	res, err := store.CreatePosition(ctx, u.ID, journalstore.NewPosition{AccountID: &account, Symbol: &symbol, AssetType: &stock, Side: &long,
		Fills: []journal.FillInput{{Type: &entry, Price: journal.S("100"), Quantity: journal.S("1"), FilledAt: &at}}})
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2024, 3, 4, 0, 0, 0, 0, time.UTC)
	r, err := rulesdb.Compliance(ctx, pool, u, rulesdb.Query{From: day, To: day, Days: true, Trades: true}, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Days) != 1 || r.DaysBroken != 1 || len(r.Days[0].Violations) != 1 || r.Days[0].Violations[0].Message != "AAPL: opened without a stop loss" {
		t.Fatalf("days %+v", r.Days)
	}
	if len(r.Trades) != 1 || r.Trades[0].ID != res.Position.ID || *r.Trades[0].Score != 0 || r.TradeBreakdown == nil {
		t.Fatalf("trades %+v", r.Trades)
	}
	tr, err := rulesdb.PositionCompliance(ctx, pool, u, res.Position.ID, now)
	if err != nil || tr == nil || *tr.Score != 0 {
		t.Fatalf("position %+v %v", tr, err)
	}
	_, err = rulesdb.Compliance(ctx, pool, u, rulesdb.Query{From: day, To: day.AddDate(0, 0, rulesdb.MaxDays)}, now)
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Code != apperr.Validation {
		t.Fatalf("a range past MaxDays: %v", err)
	}
}

// TestLongPositionsCompliance: a position open longer than MaxDays is
// judged on the day of its first entry (and of its close), with words
// saying so; it is not null.
func TestLongPositionsCompliance(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	var u auth.User
	u.Timezone = "UTC"
	if err := pool.QueryRow(ctx, `INSERT INTO users (email, password_hash) VALUES ('a@example.com', 'x') RETURNING id::text`).Scan(&u.ID); err != nil {
		t.Fatal(err)
	}
	var account string
	if err := pool.QueryRow(ctx, `INSERT INTO accounts (user_id, name, currency, timezone, starting_balance, balance)
		VALUES ($1, 'Main', 'USD', 'America/New_York', 10000, 10000) RETURNING id::text`, u.ID).Scan(&account); err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{`('stopRequired', '{}')`, `('maxDailyLoss', '{"amount":"50"}')`} {
		if _, err := pool.Exec(ctx, `INSERT INTO trading_rules (user_id, type, params, account_id) SELECT $1, t, p::jsonb, $2 FROM (VALUES `+r+`) v(t, p)`, u.ID, account); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	store := journalstore.New(pool, nil, func() time.Time { return now })
	create := func(symbol string, fills ...journal.FillInput) string {
		stock, long := instrument.AssetStock, journal.SideLong
		res, err := store.CreatePosition(ctx, u.ID, journalstore.NewPosition{AccountID: &account, Symbol: &symbol, AssetType: &stock, Side: &long, Fills: fills})
		if err != nil {
			t.Fatal(err)
		}
		return res.Position.ID
	}
	fill := func(typ, price, at string) journal.FillInput {
		return journal.FillInput{Type: &typ, Price: journal.S(price), Quantity: journal.S("10"), FilledAt: &at}
	}
	// Open since 2023-01-03, no stop.
	open := create("AAPL", fill(journal.FillEntry, "100", "2023-01-03T15:00:00Z"))
	// 2022-12-01 to 2024-03-08 (-30), closing after MSFT's -30 that day: the
	// day's loss 60 past 50.
	long := create("NVDA", fill(journal.FillEntry, "100", "2022-12-01T15:00:00Z"), fill(journal.FillExit, "97", "2024-03-08T16:00:00Z"))
	create("MSFT", fill(journal.FillEntry, "100", "2024-03-08T14:00:00Z"), fill(journal.FillExit, "97", "2024-03-08T15:00:00Z"))

	tr, err := rulesdb.PositionCompliance(ctx, pool, u, open, now)
	if err != nil || tr == nil {
		t.Fatalf("open since 2023: %+v %v", tr, err)
	}
	if tr.Date != "2023-01-03" || tr.Broken != 1 || tr.Note != "Open 515 days: judged on the day of its first entry (2023-01-03) only." {
		t.Fatalf("open since 2023: %+v", tr)
	}
	tr, err = rulesdb.PositionCompliance(ctx, pool, u, long, now)
	if err != nil || tr == nil {
		t.Fatalf("2022 to 2024: %+v %v", tr, err)
	}
	var broken []string
	for _, r := range tr.Rules {
		if r.Status == "broken" {
			broken = append(broken, r.Message)
		}
	}
	want := "NVDA: opened without a stop loss|NVDA: this close took the day's loss to 60.00 USD; your limit is 50.00 USD"
	if strings.Join(broken, "|") != want || tr.Note != "Open 464 days: judged on the day of its first entry (2022-12-01) and the day of its close (2024-03-08), not the days between." {
		t.Fatalf("2022 to 2024: %q, note %q", broken, tr.Note)
	}
}
