package journalstore_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/db/dbtest"
	"tradejournal/shared/journal"
	"tradejournal/shared/journalstore"
)

// TestExpireOptions: an option still open after its expiry day leaves the
// journal by an exit at 0 dated 16:00 New York time on the expiry date,
// with its P&L, ledger, balance and statistics' rows; not before the day
// is over, not twice under two readers at once, and not when the trader
// recorded something after the expiry.
func TestExpireOptions(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	user := newUser(t, pool, "expiry@example.com")
	var account string
	if err := pool.QueryRow(ctx, `INSERT INTO accounts (user_id, name, currency, starting_balance, balance)
		VALUES ($1, 'Options', 'USD', 10000, 10000) RETURNING id::text`, user).Scan(&account); err != nil {
		t.Fatal(err)
	}
	// Friday 2025-03-21, the day of expiry, at 23:00 in New York.
	now := time.Date(2025, 3, 22, 3, 0, 0, 0, time.UTC)
	store := journalstore.New(pool, nil, func() time.Time { return now })
	open := func(symbol, side, price string, at time.Time, exits ...journal.FillInput) string {
		t.Helper()
		typ, stock, when := journal.FillEntry, journal.AssetOption, at.Format(time.RFC3339)
		fills := append([]journal.FillInput{{Type: &typ, Price: journal.S(price), Quantity: journal.S("2"), Fees: journal.S("1.30"), FilledAt: &when}}, exits...)
		res, err := store.CreatePosition(ctx, user, journalstore.NewPosition{AccountID: &account, Symbol: &symbol, AssetType: &stock,
			Side: &side, StopLoss: journal.S("1.00"), Fills: fills})
		if err != nil {
			t.Fatal(err)
		}
		return res.Position.ID
	}
	entry := time.Date(2025, 3, 17, 14, 0, 0, 0, time.UTC)
	long := open("SPY   250321C00600000", "long", "3.10", entry)
	short := open("SPY   250321P00550000", "short", "1.25", entry)
	later := open("SPY   250418C00610000", "long", "4.00", entry)
	exitType, afterExpiry := journal.FillExit, "2025-03-22T14:00:00Z"
	// A partial exit recorded after the expiry moment (an assignment the trader entered by hand).
	handled := open("SPY   250321C00590000", "long", "9.00", entry, journal.FillInput{Type: &exitType,
		Price: journal.S("10.00"), Quantity: journal.S("1"), FilledAt: &afterExpiry})
	balance := func() string {
		t.Helper()
		var b string
		if err := pool.QueryRow(ctx, `SELECT balance::text FROM accounts WHERE id = $1`, account).Scan(&b); err != nil {
			t.Fatal(err)
		}
		return b
	}
	before := balance()
	if err := store.ExpireOptions(ctx, user); err != nil {
		t.Fatal(err)
	}
	status := func(id string) (string, string, string) {
		t.Helper()
		p, err := store.Position(ctx, user, id)
		if err != nil {
			t.Fatal(err)
		}
		closed := ""
		if p.ClosedAt != nil {
			closed = p.ClosedAt.UTC().Format(time.RFC3339)
		}
		return p.Status, closed, p.NetPnl
	}
	if s, _, _ := status(long); s != "open" {
		t.Fatalf("expired on the evening of its expiry day: %s", s)
	}

	// Saturday in New York: the Friday expiries go, each by one exit at 0.
	now = time.Date(2025, 3, 22, 15, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = store.ExpireOptions(ctx, user) }()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// A long call bought at 3.10 x 2 x 100 = 620 lost, less 1.30 in fees.
	if s, at, net := status(long); s != "closed" || at != "2025-03-21T20:00:00Z" || net != "-621.3000" {
		t.Fatalf("long: %s %s %s", s, at, net)
	}
	// A short put sold at 1.25 x 2 x 100 = 250 kept, less 1.30.
	if s, _, net := status(short); s != "closed" || net != "248.7000" {
		t.Fatalf("short: %s %s", s, net)
	}
	if s, _, _ := status(later); s != "open" {
		t.Fatalf("an April option expired in March: %s", s)
	}
	if s, _, _ := status(handled); s != "open" {
		t.Fatalf("a position with a fill after its expiry was expired: %s", s)
	}
	var exits int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM fills WHERE price = 0`).Scan(&exits); err != nil || exits != 2 {
		t.Fatalf("%d exits at 0 (%v)", exits, err)
	}
	// The balance moves by the two exits' realised P&L: -620 + 250.
	if b, a := decimal.RequireFromString(before), decimal.RequireFromString(balance()); !a.Sub(b).Equal(decimal.NewFromInt(-370)) {
		t.Fatalf("balance %s before, %s after", b, a)
	}
	checkBalances(t, pool)
	checkClosedTrades(t, pool, "after expiry")
}
