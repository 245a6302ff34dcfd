package journalstore_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"tradejournal/shared/db"
	"tradejournal/shared/db/dbtest"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
	"tradejournal/shared/journalstore"
	"tradejournal/shared/rules"
)

// ruleJournal is a user with one USD account in New York and the store
// that writes their positions.
type ruleJournal struct {
	pool          *pgxpool.Pool
	store         *journalstore.Store
	user, account string
}

func newRuleJournal(t *testing.T) ruleJournal {
	t.Helper()
	pool := dbtest.New(t)
	j := ruleJournal{pool: pool, user: newUser(t, pool, "rules@example.com")}
	if err := pool.QueryRow(context.Background(), `INSERT INTO accounts (user_id, name, currency, timezone, starting_balance, balance)
		VALUES ($1, 'Main', 'USD', 'America/New_York', 10000, 10000) RETURNING id::text`, j.user).Scan(&j.account); err != nil {
		t.Fatal(err)
	}
	j.store = journalstore.New(pool, nil, func() time.Time { return time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC) })
	return j
}

// position is a new position of 1 at price entered at in and, unless out
// is "", left at 2 then (RFC 3339).
func (j ruleJournal) position(symbol, assetType, side, price, in, out string) journalstore.NewPosition {
	entry, exit := journal.FillEntry, journal.FillExit
	p := journalstore.NewPosition{AccountID: &j.account, Symbol: &symbol, AssetType: &assetType, Side: &side,
		Fills: []journal.FillInput{{Type: &entry, Price: journal.S(price), Quantity: journal.S("1"), FilledAt: &in}}}
	if out != "" {
		p.Fills = append(p.Fills, journal.FillInput{Type: &exit, Price: journal.S("2"), Quantity: journal.S("1"), FilledAt: &out})
	}
	return p
}

func (j ruleJournal) create(t *testing.T, p journalstore.NewPosition) string {
	t.Helper()
	r, err := j.store.CreatePosition(context.Background(), j.user, p)
	if err != nil {
		t.Fatal(err)
	}
	return r.Position.ID
}

// read is RuleTrades of [from, to) in one snapshot, by trade id.
func (j ruleJournal) read(t *testing.T, from, to string, needs journalstore.RuleNeeds) map[string]rules.Position {
	t.Helper()
	f, _ := time.Parse(time.RFC3339, from)
	u, _ := time.Parse(time.RFC3339, to)
	out := map[string]rules.Position{}
	err := db.InSnapshot(context.Background(), j.pool, func(tx pgx.Tx) error {
		ps, err := journalstore.RuleTrades(context.Background(), tx, j.user, nil, f, u, needs)
		for _, p := range ps {
			out[p.ID] = p
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRuleTradesColumnsAsNeeded: a position's and a strategy's direction,
// markets and notes are read when a rule needs them, and left empty
// otherwise; a strategy's are its legs'.
func TestRuleTradesColumnsAsNeeded(t *testing.T) {
	ctx := context.Background()
	j := newRuleJournal(t)
	short := j.position("aapl", instrument.AssetStock, journal.SideShort, "1", "2024-03-04T15:00:00Z", "2024-03-04T16:00:00Z")
	notes := "the plan"
	short.Notes = &notes
	stock := j.create(t, short)
	leg := func(symbol, side, price string) journalstore.NewPosition {
		return j.position(symbol, instrument.AssetOption, side, price, "2024-03-04T15:30:00Z", "")
	}
	// A call vertical opened for a credit: short.
	s, err := j.store.CreateStrategy(ctx, j.user, journalstore.StrategyInput{AccountID: &j.account, Legs: []journalstore.NewPosition{
		leg("SPY   240621C00520000", journal.SideShort, "2"), leg("SPY   240621C00530000", journal.SideLong, "1")}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.pool.Exec(ctx, `UPDATE positions SET notes = 'hedge' WHERE id = $1`, s.Legs[1].ID); err != nil {
		t.Fatal(err)
	}
	const from, to = "2024-03-04T00:00:00Z", "2024-03-06T00:00:00Z"
	none := j.read(t, from, to, journalstore.RuleNeeds{})
	all := j.read(t, from, to, journalstore.RuleNeeds{Markets: true, Direction: true, Notes: true})
	if len(none) != 2 || len(all) != 2 {
		t.Fatalf("trades %v / %v", none, all)
	}
	for id, p := range none {
		if p.Underlying != "" || p.AssetTypes != nil || p.Short || p.HasNotes {
			t.Errorf("%s unasked: underlying %q, asset types %v, short %v, notes %v", id, p.Underlying, p.AssetTypes, p.Short, p.HasNotes)
		}
	}
	if p := all[stock]; p.Symbol != "AAPL" || p.Underlying != "" || !slices.Equal(p.AssetTypes, []string{"stock"}) || !p.Short || !p.HasNotes {
		t.Errorf("position %+v", p)
	}
	p := all[s.ID]
	if p.Underlying != "SPY" || !slices.Equal(p.AssetTypes, []string{"option"}) || !p.Short || !p.HasNotes || len(p.Legs) != 2 {
		t.Errorf("strategy %q: underlying %q, asset types %v, short %v, notes %v, legs %v", p.Symbol, p.Underlying, p.AssetTypes, p.Short, p.HasNotes, p.Legs)
	}
}

// TestRuleTradesOpenAcrossTheStart: with Open, the positions opened
// before the window and open across its start (still open, or closed after
// its end) are read with their entries from before it, and no balance;
// one closed before the window is not; without Open none is.
func TestRuleTradesOpenAcrossTheStart(t *testing.T) {
	j := newRuleJournal(t)
	stock, long := instrument.AssetStock, journal.SideLong
	open := j.create(t, j.position("AAPL", stock, long, "1", "2024-02-01T15:00:00Z", ""))
	after := j.create(t, j.position("MSFT", stock, long, "1", "2024-02-01T15:00:00Z", "2024-03-10T15:00:00Z"))
	j.create(t, j.position("NVDA", stock, long, "1", "2024-02-01T15:00:00Z", "2024-02-02T15:00:00Z"))
	inside := j.create(t, j.position("AMD", stock, long, "1", "2024-03-04T15:00:00Z", "2024-03-04T16:00:00Z"))
	const from, to = "2024-03-04T00:00:00Z", "2024-03-06T00:00:00Z"
	got := j.read(t, from, to, journalstore.RuleNeeds{Open: true, Balances: true})
	if len(got) != 3 {
		t.Fatalf("read %v, want AAPL, MSFT and AMD", got)
	}
	for _, id := range []string{open, after} {
		p := got[id]
		if len(p.Entries) != 1 || !p.Entries[0].At.Equal(time.Date(2024, 2, 1, 15, 0, 0, 0, time.UTC)) || p.Balance.Valid {
			t.Errorf("%s: entries %v, balance %v", p.Symbol, p.Entries, p.Balance)
		}
	}
	if p := got[open]; p.ClosedAt != nil {
		t.Errorf("AAPL closed at %v", p.ClosedAt)
	}
	if p := got[after]; p.ClosedAt == nil || !p.ClosedAt.Equal(time.Date(2024, 3, 10, 15, 0, 0, 0, time.UTC)) {
		t.Errorf("MSFT closed at %v", p.ClosedAt)
	}
	// 10,000 and NVDA's +1 of 02-02: the balance at the start of AMD's day.
	if p := got[inside]; !p.Balance.Valid || !p.Balance.Decimal.Equal(decimal.NewFromInt(10001)) {
		t.Errorf("AMD balance %v, want 10,001", p.Balance)
	}
	if got := j.read(t, from, to, journalstore.RuleNeeds{}); len(got) != 1 || got[inside].Symbol != "AMD" {
		t.Fatalf("without Open: %v", got)
	}
}

// TestRuleTradesDetails: a position's and a strategy's tags (any leg's,
// each once) and screenshots, read when asked for.
func TestRuleTradesDetails(t *testing.T) {
	ctx := context.Background()
	j := newRuleJournal(t)
	var tags [2]string
	for i, name := range []string{"scalp", "plan"} {
		if err := j.pool.QueryRow(ctx, `INSERT INTO tags (user_id, name) VALUES ($1, $2) RETURNING id::text`, j.user, name).Scan(&tags[i]); err != nil {
			t.Fatal(err)
		}
	}
	p := j.position("AAPL", instrument.AssetStock, journal.SideLong, "1", "2024-03-04T15:00:00Z", "")
	p.TagIDs = []string{tags[0]}
	stock := j.create(t, p)
	bare := j.create(t, j.position("MSFT", instrument.AssetStock, journal.SideLong, "1", "2024-03-04T15:00:00Z", ""))
	leg := func(symbol, side, price string, tagIDs ...string) journalstore.NewPosition {
		l := j.position(symbol, instrument.AssetOption, side, price, "2024-03-04T15:30:00Z", "")
		l.TagIDs = tagIDs
		return l
	}
	s, err := j.store.CreateStrategy(ctx, j.user, journalstore.StrategyInput{AccountID: &j.account, Legs: []journalstore.NewPosition{
		leg("SPY   240621C00520000", journal.SideShort, "2", tags[0], tags[1]), leg("SPY   240621C00530000", journal.SideLong, "1", tags[1])}})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{stock, s.Legs[0].ID} {
		if _, err := j.pool.Exec(ctx, `INSERT INTO position_images (user_id, position_id, content_type, size_bytes, data)
			SELECT user_id, id, 'image/png', 1, '\x00' FROM positions WHERE id = $1`, id); err != nil {
			t.Fatal(err)
		}
	}
	const from, to = "2024-03-04T00:00:00Z", "2024-03-06T00:00:00Z"
	got := j.read(t, from, to, journalstore.RuleNeeds{Details: true})
	sorted := func(ids []string) []string { return slices.Sorted(slices.Values(ids)) }
	if p := got[stock]; !p.HasTag || !p.HasScreenshot || !slices.Equal(p.TagIDs, tags[:1]) {
		t.Errorf("AAPL: tag %v %v, screenshot %v", p.HasTag, p.TagIDs, p.HasScreenshot)
	}
	if p := got[bare]; p.HasTag || p.HasScreenshot || p.TagIDs != nil {
		t.Errorf("MSFT: tag %v %v, screenshot %v", p.HasTag, p.TagIDs, p.HasScreenshot)
	}
	if p := got[s.ID]; !p.HasTag || !p.HasScreenshot || !slices.Equal(sorted(p.TagIDs), sorted(tags[:])) {
		t.Errorf("strategy: tag %v %v, screenshot %v", p.HasTag, p.TagIDs, p.HasScreenshot)
	}
	for id, p := range j.read(t, from, to, journalstore.RuleNeeds{}) {
		if p.HasTag || p.HasScreenshot || p.TagIDs != nil {
			t.Errorf("%s unasked: %+v", id, p)
		}
	}
}

// TestRuleTradesExits: with Exits, a position's exit fills before its
// close are read in time order beside its entries (the close takes off
// the rest); without, none.
func TestRuleTradesExits(t *testing.T) {
	ctx := context.Background()
	j := newRuleJournal(t)
	p := j.position("AAPL", instrument.AssetStock, journal.SideLong, "1", "2024-03-04T15:00:00Z", "2024-03-04T17:00:00Z")
	p.Fills[0].Quantity = journal.S("3")
	p.Fills[1].Quantity = journal.S("2")
	id := j.create(t, p)
	exit, at := journal.FillExit, "2024-03-04T16:00:00Z"
	if _, err := j.store.AddFill(ctx, j.user, id, journal.FillInput{Type: &exit, Price: journal.S("2"), Quantity: journal.S("1"), FilledAt: &at}); err != nil {
		t.Fatal(err)
	}
	const from, to = "2024-03-04T00:00:00Z", "2024-03-06T00:00:00Z"
	got := j.read(t, from, to, journalstore.RuleNeeds{Exits: true})[id]
	if len(got.Entries) != 1 || len(got.Exits) != 1 || got.Exits[0].At.Hour() != 16 || !got.Exits[0].Quantity.Equal(decimal.NewFromInt(1)) {
		t.Fatalf("entries %v, exits %v", got.Entries, got.Exits)
	}
	if got := j.read(t, from, to, journalstore.RuleNeeds{})[id]; len(got.Entries) != 1 || got.Exits != nil {
		t.Fatalf("unasked: entries %v, exits %v", got.Entries, got.Exits)
	}
}
