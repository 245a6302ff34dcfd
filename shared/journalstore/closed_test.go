package journalstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"tradejournal/shared/db/dbtest"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
	"tradejournal/shared/journalstore"
)

// TestConcurrentClosesOfOneDay: writers that close positions of two
// accounts on the same day at once each refresh that day's statistics rows;
// none loses another's close. The trades break even, so no balance moves:
// only the store's own lock orders the refreshes.
func TestConcurrentClosesOfOneDay(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	user := newUser(t, pool, "concurrent@example.com")
	var accounts [2]string
	for i := range accounts {
		if err := pool.QueryRow(ctx, `INSERT INTO accounts (user_id, name, currency, starting_balance, balance)
			VALUES ($1, $2, 'USD', 1000, 1000) RETURNING id::text`, user, fmt.Sprint("A", i)).Scan(&accounts[i]); err != nil {
			t.Fatal(err)
		}
	}
	day := time.Date(2024, 6, 3, 14, 0, 0, 0, time.UTC)
	store := journalstore.New(pool, nil, func() time.Time { return day.AddDate(0, 1, 0) })
	const writers = 16
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Go(func() {
			account, symbol, side, stock := accounts[i%2], fmt.Sprintf("S%d", i), journal.SideLong, instrument.AssetStock
			at := func(m int) *string { s := day.Add(time.Duration(i*10+m) * time.Minute).Format(time.RFC3339); return &s }
			entry, exit := journal.FillEntry, journal.FillExit
			_, err := store.CreatePosition(ctx, user, journalstore.NewPosition{AccountID: &account, Symbol: &symbol, AssetType: &stock, Side: &side,
				Fills: []journal.FillInput{
					{Type: &entry, Price: journal.S("100"), Quantity: journal.S("10"), FilledAt: at(0)},
					{Type: &exit, Price: journal.S("100"), Quantity: journal.S("10"), FilledAt: at(5)},
				}})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var packed int
	if err := pool.QueryRow(ctx, `SELECT coalesce(sum(trades), 0) FROM closed_trades WHERE user_id = $1`, user).Scan(&packed); err != nil {
		t.Fatal(err)
	}
	if packed != writers {
		t.Fatalf("closed_trades holds %d closes of %d", packed, writers)
	}
	checkClosedTrades(t, pool, "after concurrent closes")
	checkBalances(t, pool)
}
