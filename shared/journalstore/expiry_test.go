package journalstore_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"tradejournal/shared/db/dbtest"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
	"tradejournal/shared/journalstore"
)

// TestExpireDue: the option-expiry job closes the options of every user
// still open after their expiry day, each by one exit at 0 dated 16:00 New
// York time on the expiry date, with its P&L, ledger, balance and
// statistics' rows; not before the day is over, not an option expiring
// today, a stock or a position with a fill after its expiry, and not twice
// under runs at once. Until it runs, a read says the option awaits it.
func TestExpireDue(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	// Friday 2025-03-21, the day of expiry, at 23:00 in New York.
	now := time.Date(2025, 3, 22, 3, 0, 0, 0, time.UTC)
	store := journalstore.New(pool, nil, func() time.Time { return now })
	type journalOf struct{ user, account string }
	newJournal := func(email string) journalOf {
		t.Helper()
		j := journalOf{user: newUser(t, pool, email)}
		if err := pool.QueryRow(ctx, `INSERT INTO accounts (user_id, name, currency, starting_balance, balance)
			VALUES ($1, 'Options', 'USD', 10000, 10000) RETURNING id::text`, j.user).Scan(&j.account); err != nil {
			t.Fatal(err)
		}
		return j
	}
	a, b := newJournal("expiry-a@example.com"), newJournal("expiry-b@example.com")
	entry := time.Date(2025, 3, 17, 14, 0, 0, 0, time.UTC)
	open := func(j journalOf, asset, symbol, side, price string, exits ...journal.FillInput) string {
		t.Helper()
		typ, when := journal.FillEntry, entry.Format(time.RFC3339)
		fills := append([]journal.FillInput{{Type: &typ, Price: journal.S(price), Quantity: journal.S("2"), Fees: journal.S("1.30"), FilledAt: &when}}, exits...)
		res, err := store.CreatePosition(ctx, j.user, journalstore.NewPosition{AccountID: &j.account, Symbol: &symbol, AssetType: &asset,
			Side: &side, StopLoss: journal.S("1.00"), Fills: fills})
		if err != nil {
			t.Fatal(err)
		}
		return res.Position.ID
	}
	option := instrument.AssetOption
	long := open(a, option, "SPY   250321C00600000", "long", "3.10")
	short := open(a, option, "SPY   250321P00550000", "short", "1.25")
	other := open(b, option, "QQQ   250321C00500000", "long", "2.00")
	today := open(a, option, "SPY   250324C00600000", "long", "2.50") // Monday's, read on Monday
	later := open(a, option, "SPY   250418C00610000", "long", "4.00")
	stock := open(a, instrument.AssetStock, "SPY", "long", "560")
	exitType, afterExpiry := journal.FillExit, "2025-03-22T14:00:00Z"
	// A partial exit recorded after the expiry moment (an assignment the trader entered by hand).
	handled := open(a, option, "SPY   250321C00590000", "long", "9.00", journal.FillInput{Type: &exitType,
		Price: journal.S("10.00"), Quantity: journal.S("1"), FilledAt: &afterExpiry})
	due, kept := []string{long, short, other}, []string{today, later, stock, handled}
	users := map[string]string{other: b.user}

	type state struct {
		status, closedAt, net string
		awaiting              bool
	}
	read := func(id string) state {
		t.Helper()
		user := a.user
		if u, ok := users[id]; ok {
			user = u
		}
		p, err := store.Position(ctx, user, id)
		if err != nil {
			t.Fatal(err)
		}
		s := state{status: p.Status, net: p.NetPnl, awaiting: p.AwaitingExpiry}
		if p.ClosedAt != nil {
			s.closedAt = p.ClosedAt.UTC().Format(time.RFC3339)
		}
		return s
	}
	run := func() int {
		t.Helper()
		n, err := store.ExpireDue(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := balances(t, pool, a.account, b.account)
	if n := run(); n != 0 || read(long).status != "open" || read(long).awaiting {
		t.Fatalf("expired on the evening of its expiry day: %d closed, %+v", n, read(long))
	}

	// Monday morning in New York: Friday's expiries are due, and a read
	// shows them open, awaiting the job, until it runs.
	now = time.Date(2025, 3, 24, 15, 0, 0, 0, time.UTC)
	for _, id := range due {
		if s := read(id); s.status != "open" || !s.awaiting {
			t.Fatalf("%s before the job: %+v", id, s)
		}
	}
	for _, id := range kept {
		if s := read(id); s.status != "open" || s.awaiting {
			t.Fatalf("%s is not the job's to close: %+v", id, s)
		}
	}
	var wg sync.WaitGroup
	closed := make([]int, 4)
	for i := range closed {
		wg.Go(func() { closed[i] = run() })
	}
	wg.Wait()
	if total := closed[0] + closed[1] + closed[2] + closed[3]; total != len(due) {
		t.Fatalf("runs at once closed %v, %d in all, want %d", closed, total, len(due))
	}
	if n := run(); n != 0 {
		t.Fatalf("a second run closed %d", n)
	}
	// A long call bought at 3.10 x 2 x 100 = 620 lost, less 1.30 in fees.
	if s := read(long); s.status != "closed" || s.closedAt != "2025-03-21T20:00:00Z" || s.net != "-621.3000" || s.awaiting {
		t.Fatalf("long: %+v", s)
	}
	// A short put sold at 1.25 x 2 x 100 = 250 kept, less 1.30.
	if s := read(short); s.status != "closed" || s.net != "248.7000" {
		t.Fatalf("short: %+v", s)
	}
	// The other user's, 2.00 x 2 x 100 lost, less 1.30.
	if s := read(other); s.status != "closed" || s.net != "-401.3000" {
		t.Fatalf("another user's: %+v", s)
	}
	for _, id := range kept {
		if s := read(id); s.status != "open" {
			t.Fatalf("%s was closed: %+v", id, s)
		}
	}
	var exits, ledger int
	if err := pool.QueryRow(ctx, `SELECT count(*), (SELECT count(*) FROM ledger_entries l JOIN fills f ON f.id = l.fill_id WHERE f.price = 0)
		FROM fills WHERE price = 0`).Scan(&exits, &ledger); err != nil || exits != len(due) || ledger != len(due) {
		t.Fatalf("%d exits at 0 with %d ledger rows (%v)", exits, ledger, err)
	}
	// The balances move by the exits' realised P&L: -620 + 250, and -400.
	after := balances(t, pool, a.account, b.account)
	for i, want := range []int64{-370, -400} {
		if !after[i].Sub(before[i]).Equal(decimal.NewFromInt(want)) {
			t.Fatalf("balance %d: %s before, %s after", i, before[i], after[i])
		}
	}
	checkBalances(t, pool)
	checkClosedTrades(t, pool, "after expiry")
}

// balances reads the accounts' balances.
func balances(t *testing.T, pool *pgxpool.Pool, accounts ...string) []decimal.Decimal {
	t.Helper()
	out := make([]decimal.Decimal, len(accounts))
	for i, id := range accounts {
		if err := pool.QueryRow(context.Background(), `SELECT balance FROM accounts WHERE id = $1`, id).Scan(&out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}
