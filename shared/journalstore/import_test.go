package journalstore_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/brokerfile"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
	"tradejournal/shared/journalstore"
)

// TestImportPositionsInPlanOrder: an import answers its positions' ids in
// the plan's order (the preview's numbering), though it writes them run by
// run: a reversal's position right after the one it reverses, a continued
// one under its stored id. The trader's strategy groups, named by the
// fills that open them, become strategies of exactly those positions; a
// fill that opens no new position of its own is a conflict and nothing is
// written. The statistics' rows are a rebuild's (the closed legs' records
// are their strategy's, not their own).
//
// It runs on both protocols: an import's statements are its own.
func TestImportPositionsInPlanOrder(t *testing.T) {
	bothProtocols(t, importInPlanOrder)
}

func importInPlanOrder(t *testing.T, pooler bool) {
	ctx := context.Background()
	pool, storePool := openPools(t, pooler)
	user := newUser(t, pool, "import-order@example.com")
	var account string
	if err := pool.QueryRow(ctx, `INSERT INTO accounts (user_id, name, currency, starting_balance, balance)
		VALUES ($1, 'Main', 'USD', 10000, 10000) RETURNING id::text`, user).Scan(&account); err != nil {
		t.Fatal(err)
	}
	store := journalstore.New(storePool, nil, func() time.Time { return time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC) })
	// An open MSFT position the file continues.
	symbol, stock, long, entry, at := "MSFT", instrument.AssetStock, "long", journal.FillEntry, "2025-05-01T14:00:00Z"
	held, err := store.CreatePosition(ctx, user, journalstore.NewPosition{AccountID: &account, Symbol: &symbol, AssetType: &stock, Side: &long,
		Fills: []journal.FillInput{{Type: &entry, Price: journal.S("400"), Quantity: journal.S("10"), FilledAt: &at}}})
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2025, 5, 2, 14, 0, 0, 0, time.UTC)
	fill := func(row int, symbol, side, qty, price string, minute int) brokerfile.Fill {
		f := brokerfile.Fill{Row: row, Symbol: symbol, AssetType: brokerfile.AssetStock, Multiplier: decimal.NewFromInt(1), Side: side,
			Price: decimal.RequireFromString(price), Quantity: decimal.RequireFromString(qty), FeesGiven: true,
			FilledAt: day.Add(time.Duration(minute) * time.Minute)}
		if len(symbol) > 6 {
			f.AssetType, f.Multiplier = brokerfile.AssetOption, decimal.NewFromInt(instrument.OptionMultiplier)
		}
		return f
	}
	fills := []brokerfile.Fill{
		fill(2, "AAPL", brokerfile.Buy, "100", "180", 0),
		fill(3, "MSFT", brokerfile.Buy, "10", "410", 0),
		fill(4, "SPY   270618P00095000", brokerfile.Sell, "1", "2", 1),
		fill(5, "SPY   270618P00090000", brokerfile.Buy, "1", "1", 1),
		fill(6, "AAPL", brokerfile.Sell, "200", "185", 2), // reverses AAPL
		fill(7, "MSFT", brokerfile.Sell, "30", "420", 3),  // closes MSFT and reverses it
		fill(8, "SPY   270618C00105000", brokerfile.Sell, "1", "2", 4),
		fill(9, "SPY   270618P00095000", brokerfile.Buy, "1", "1", 5), // the put spread closed: its legs' records
		fill(10, "SPY   270618P00090000", brokerfile.Sell, "1", "0.5", 5),
	}
	noop := func(context.Context, pgx.Tx) error { return nil }
	count := func() (n int) {
		t.Helper()
		if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM positions) + (SELECT count(*) FROM strategies)`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := count()

	// The reversal fill 4 opens no position of its own: refused whole.
	_, err = store.ImportAccounts(ctx, user, []journalstore.ImportPart{{AccountID: account, Fills: fills, Strategies: [][]int{{2, 3}, {0, 4}}}},
		brokerfile.BuildOptions{}, noop)
	if e, ok := apperr.As(err); !ok || e.Code != apperr.Conflict || count() != before {
		t.Fatalf("a reversal's fill chosen: %v, %d rows -> %d", err, before, count())
	}

	// The put spread and the call: one strategy, the trader's.
	out, err := store.ImportAccounts(ctx, user, []journalstore.ImportPart{{AccountID: account, Fills: fills, Strategies: [][]int{{2, 3, 6}}}},
		brokerfile.BuildOptions{}, noop)
	if err != nil {
		t.Fatal(err)
	}
	got, plan := out[0], out[0].Plan
	if len(got.Positions) != len(plan.Positions) || got.Strategies != 1 {
		t.Fatalf("%d ids for %d positions, %d strategies", len(got.Positions), len(plan.Positions), got.Strategies)
	}
	reversals := 0
	for k, p := range plan.Positions {
		var sym, side string
		var strategy, reversalOf *string
		if err := pool.QueryRow(ctx, `SELECT symbol, side, strategy_id::text, reversal_of::text FROM positions WHERE id = $1`,
			got.Positions[k]).Scan(&sym, &side, &strategy, &reversalOf); err != nil {
			t.Fatalf("position %d: %v", k, err)
		}
		if sym != p.Symbol || side != p.Side || (p.ExistingID != "" && got.Positions[k] != p.ExistingID) {
			t.Fatalf("position %d is %s %s (%s), the plan's %s %s (%s)", k, side, sym, got.Positions[k], p.Side, p.Symbol, p.ExistingID)
		}
		if p.ReversalOf > 0 {
			reversals++
			if reversalOf == nil || *reversalOf != got.Positions[p.ReversalOf-1] {
				t.Fatalf("position %d reverses %v, the plan's %d", k, reversalOf, p.ReversalOf-1)
			}
		}
		if grouped := p.ExistingID == "" && p.ReversalOf == 0 && p.AssetType == brokerfile.AssetOption; grouped != (strategy != nil) {
			t.Fatalf("position %d (%s) in strategy %v", k, p.Symbol, strategy)
		}
	}
	// The file must keep the plan's order apart from the write's.
	var fresh []string
	for k, p := range plan.Positions {
		if p.ExistingID == "" {
			fresh = append(fresh, got.Positions[k])
		}
	}
	continued := slices.IndexFunc(plan.Positions, func(p brokerfile.Position) bool { return p.ExistingID == held.Position.ID })
	if reversals != 2 || continued < 0 || slices.Equal(fresh, got.Created) {
		t.Fatalf("the file no longer tests the order: plan %+v", plan.Positions)
	}
	var legs int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM positions WHERE strategy_id IS NOT NULL`).Scan(&legs); err != nil || legs != 3 {
		t.Fatalf("%d legs (%v)", legs, err)
	}
	checkBalances(t, pool)
	checkClosedTrades(t, pool, "an import of strategies")
}
