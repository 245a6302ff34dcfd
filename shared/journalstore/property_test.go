package journalstore_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/db/dbtest"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
	"tradejournal/shared/journalstore"
	"tradejournal/shared/listquery"
	"tradejournal/shared/stats"
)

// TestRandomWritesKeepInvariants drives the store with random fill
// sequences (entries, exits, reversals, edits, deletes, positions created
// closed, reversed or open, with tags) and after every
// write checks, from what is stored, what must always hold:
//   - every position's stored figures are journal.Compute's over its stored
//     fills (so no position crosses zero: Compute refuses that), and
//     entry - exit = open quantity;
//   - a run's positions but its last are closed, and each successor starts
//     on the other side with the opening part of its predecessor's last fill
//     (same price and time);
//   - the ledger holds each position's realised P&L and fees, and every
//     balance is its starting balance plus its ledger;
//   - a refused write changes nothing;
//   - the derived rows (the statistics' closed_trades rows, the
//     strategies' analysis, the balances) are what a rebuild makes, also
//     after a position's playbook or ticks change, a criterion or a
//     playbook is deleted, positions are grouped into a strategy, its
//     planned risk changes or it is ungrouped, a tag on positions is
//     deleted, a deposit or withdrawal comes or goes, and a position is
//     deleted.
//
// It runs twice: on connections of the extended protocol, and as behind a
// transaction pooler (DB_TRANSACTION_POOLER, the functions' default), where
// the simple protocol sends every argument as text.
func TestRandomWritesKeepInvariants(t *testing.T) {
	bothProtocols(t, randomWrites)
}

// bothProtocols runs test on connections of the extended protocol and on
// ones as behind a transaction pooler (DB_TRANSACTION_POOLER).
func bothProtocols(t *testing.T, test func(t *testing.T, pooler bool)) {
	for _, pooler := range []bool{false, true} {
		t.Run(map[bool]string{false: "Direct", true: "TransactionPooler"}[pooler], func(t *testing.T) { test(t, pooler) })
	}
}

// openPools opens a fresh database twice: pool for the test's own checks,
// storePool for the store, as behind a transaction pooler when pooler is
// set.
func openPools(t *testing.T, pooler bool) (pool, storePool *pgxpool.Pool) {
	ctx, u := context.Background(), dbtest.URL(t)
	var err error
	if pool, err = db.Open(ctx, u, db.Options{PoolSize: 4}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if storePool, err = db.Open(ctx, u, db.Options{PoolSize: 4, TransactionPooler: pooler}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(storePool.Close)
	return pool, storePool
}

func randomWrites(t *testing.T, pooler bool) {
	ctx := context.Background()
	pool, storePool := openPools(t, pooler)
	user := newUser(t, pool, "random@example.com")
	var account string
	if err := pool.QueryRow(ctx, `INSERT INTO accounts (user_id, name, currency, starting_balance, balance)
		VALUES ($1, 'Main', 'USD', 1000, 1000) RETURNING id::text`, user).Scan(&account); err != nil {
		t.Fatal(err)
	}
	var tags []string
	for _, name := range []string{"breakout", "fade"} {
		var id string
		if err := pool.QueryRow(ctx, `INSERT INTO tags (user_id, name) VALUES ($1, $2) RETURNING id::text`, user, name).Scan(&id); err != nil {
			t.Fatal(err)
		}
		tags = append(tags, id)
	}
	start := time.Date(2024, 5, 1, 14, 0, 0, 0, time.UTC)
	store := journalstore.New(storePool, nil, func() time.Time { return start.AddDate(1, 0, 0) })
	books := make([]string, 2)
	newBook := func(i int, name string) {
		in := journalstore.PlaybookInput{Name: &name, Criteria: &[]journalstore.CriterionInput{{Text: "trend"}, {Text: "volume"}, {Text: "level"}}}
		b, err := store.CreatePlaybook(ctx, user, in)
		if err != nil {
			t.Fatal(err)
		}
		books[i] = b.ID
	}
	newBook(0, "Breakout")
	newBook(1, "Pullback")
	criteria := func(book string) []string {
		b, err := store.Playbook(ctx, user, book)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, c := range b.Criteria {
			ids = append(ids, c.ID)
		}
		return ids
	}
	var refused, runs, ticked, grouped int
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, 17))
		symbol := fmt.Sprintf("R%d", seed)
		str := func(lo, hi int) *string { s := fmt.Sprint(lo + rng.IntN(hi-lo+1)); return &s }
		at := func() *string {
			s := start.Add(time.Duration(rng.IntN(2000)) * time.Minute).Format(time.RFC3339) // across UTC days
			return &s
		}
		typ := func() *string {
			s := journal.FillEntry
			if rng.IntN(2) == 0 {
				s = journal.FillExit
			}
			return &s
		}
		randomEntry := func(at *string) journal.FillInput {
			return journal.FillInput{Type: ptr(journal.FillEntry), Price: journal.S("100"), Quantity: journal.S("5"), FilledAt: at}
		}
		randomFill := func() journal.FillInput {
			return journal.FillInput{Type: typ(), Price: journal.S(*str(90, 110)), Quantity: journal.S(*str(1, 30)),
				Fees: journal.S(*str(0, 3)), FilledAt: at()}
		}
		side := journal.SideLong
		if seed%2 == 1 {
			side = journal.SideShort
		}
		stock := instrument.AssetStock
		res, err := store.CreatePosition(ctx, user, journalstore.NewPosition{AccountID: &account, Symbol: &symbol, AssetType: &stock,
			Side: &side, StopLoss: journal.S("95"), Fills: []journal.FillInput{{Type: ptr(journal.FillEntry), Price: journal.S("100"),
				Quantity: journal.S("10"), FilledAt: ptr(start.Format(time.RFC3339))}}})
		if err != nil {
			t.Fatal(err)
		}
		root := res.Position.ID
		for step := range 40 {
			ids := runPositions(t, pool, root)
			target := ids[rng.IntN(len(ids))]
			fills := fillIDs(t, pool, target)
			before := snapshot(t, pool)
			var op string
			switch k := rng.IntN(18); {
			case k == 13:
				op = "strategy"
				err = strategyWrite(ctx, store, pool, user, account, target, ids[rng.IntN(len(ids))], rng)
				grouped += len(ids)
			case k == 14:
				op = "tag deleted"
				var tag string
				if err = pool.QueryRow(ctx, `INSERT INTO tags (user_id, name) VALUES ($1, $2) RETURNING id::text`, user,
					fmt.Sprintf("tmp %d-%d", seed, step)).Scan(&tag); err != nil {
					t.Fatal(err)
				}
				if _, err = store.SetTags(ctx, user, target, append(slices.Clone(tags[:rng.IntN(len(tags)+1)]), tag)); err == nil {
					checkInvariants(t, pool, fmt.Sprintf("seed %d step %d (tagged)", seed, step))
					err = store.DeleteTag(ctx, user, tag)
				}
			case k == 15:
				op = "ledger"
				kind := []string{"deposit", "withdrawal"}[rng.IntN(2)]
				var entry string
				err = store.AddLedgerEntry(ctx, user, account, journalstore.LedgerEntry{Kind: kind, Amount: decimal.NewFromInt(int64(1 + rng.IntN(500))),
					At: start}, func(_ pgx.Tx, id string) error { entry = id; return nil })
				if err == nil && rng.IntN(2) == 0 {
					err = store.DeleteLedgerEntry(ctx, user, account, entry, func(pgx.Tx, string) error { return nil })
				}
			case k == 16:
				op = "position deleted"
				stock, other := instrument.AssetStock, "DEL"
				res, cerr := store.CreatePosition(ctx, user, journalstore.NewPosition{AccountID: &account, Symbol: &other, AssetType: &stock,
					Side: &side, Fills: []journal.FillInput{randomEntry(at()), {Type: ptr(journal.FillExit), Price: journal.S("101"),
						Quantity: journal.S("5"), FilledAt: ptr(start.Add(3000 * time.Minute).Format(time.RFC3339))}}})
				if err = cerr; err == nil {
					checkInvariants(t, pool, fmt.Sprintf("seed %d step %d (created)", seed, step))
					_, err = store.DeletePosition(ctx, user, res.Position.ID)
				}
			case k == 17:
				op = "create" // closed, reversed or open, with tags, on the days of the run
				opened := start.Add(time.Duration(rng.IntN(2000)) * time.Minute)
				closed := opened.Add(time.Duration(1+rng.IntN(600)) * time.Minute).Format(time.RFC3339)
				_, err = store.CreatePosition(ctx, user, journalstore.NewPosition{AccountID: &account, Symbol: ptr("C" + symbol),
					AssetType: &stock, Side: &side, StopLoss: journal.S("95"), TagIDs: tags[:rng.IntN(len(tags)+1)],
					Fills: []journal.FillInput{
						{Type: ptr(journal.FillEntry), Price: journal.S(*str(96, 104)), Quantity: journal.S("10"), Fees: journal.S(*str(0, 2)),
							FilledAt: ptr(opened.Format(time.RFC3339))},
						{Type: ptr(journal.FillExit), Price: journal.S(*str(90, 110)), Quantity: journal.S(*str(5, 20)), Fees: journal.S("1"),
							FilledAt: &closed},
					}})
			case k >= 10 && k < 12:
				op = "playbook"
				var in journalstore.PositionPlaybook
				if v := rng.IntN(4); v < 3 {
					b := books[v%2]
					in.PlaybookID = &b
					for _, c := range criteria(b) {
						if rng.IntN(2) == 0 {
							in.CriterionIDs = append(in.CriterionIDs, c)
						}
					}
					if v == 2 { // a criterion of the other playbook: refused
						in.CriterionIDs = append(in.CriterionIDs, criteria(books[1])[0])
					}
				}
				ticked += len(in.CriterionIDs)
				_, err = store.SetPositionPlaybook(ctx, user, target, in)
			case k == 12:
				op = "checklist"
				i := rng.IntN(2)
				if rng.IntN(5) == 0 {
					if err = store.DeletePlaybook(ctx, user, books[i]); err == nil {
						newBook(i, fmt.Sprintf("Book %d-%d", seed, step))
					}
					break
				}
				list := []journalstore.CriterionInput{{Text: fmt.Sprintf("new %d", step)}}
				for _, c := range criteria(books[i]) {
					if rng.IntN(3) > 0 {
						list = append(list, journalstore.CriterionInput{ID: &c, Text: "kept"})
					}
				}
				_, err = store.UpdatePlaybook(ctx, user, books[i], journalstore.PlaybookInput{Criteria: &list})
			case k < 5 || len(fills) == 0:
				op = "add"
				_, err = store.AddFill(ctx, user, target, randomFill())
			case k == 8:
				op = "tags"
				_, err = store.SetTags(ctx, user, target, tags[:rng.IntN(len(tags)+1)])
			case k < 8:
				op = "edit"
				in := journal.FillInput{}
				switch rng.IntN(4) {
				case 0:
					in.Quantity = journal.S(*str(1, 40))
				case 1:
					in.FilledAt = at()
				case 2:
					in.Type = typ()
				default:
					in.Price, in.Fees = journal.S(*str(90, 110)), journal.S(*str(0, 3))
				}
				_, err = store.UpdateFill(ctx, user, target, fills[rng.IntN(len(fills))], in)
			default:
				op = "delete"
				_, err = store.DeleteFill(ctx, user, target, fills[rng.IntN(len(fills))])
			}
			if err != nil {
				if e, ok := apperr.As(err); !ok || e.Code != apperr.Validation {
					t.Fatalf("seed %d step %d %s: %v", seed, step, op, err)
				}
				refused++
				if after := snapshot(t, pool); !maps.Equal(before, after) {
					t.Fatalf("seed %d step %d: a refused %s changed the journal", seed, step, op)
				}
			}
			checkInvariants(t, pool, fmt.Sprintf("seed %d step %d (%s)", seed, step, op))
			runs = max(runs, len(runPositions(t, pool, root)))
		}
		checkStatistics(t, pool, user, fmt.Sprintf("seed %d", seed))
	}
	// The sequences must reach what the test is for: runs of several
	// positions, and refusals.
	if runs < 3 || refused == 0 || ticked == 0 || grouped == 0 {
		t.Fatalf("longest run %d positions, %d refused writes, %d ticks, %d grouped: the random writes missed reversals, refusals, ticks or strategies",
			runs, refused, ticked, grouped)
	}
	t.Logf("longest run %d positions, %d refused writes", runs, refused)
}

func ptr(s string) *string { return &s }

// strategyWrite groups positions into a strategy (target alone, or with
// other, another of its run), or, when target is a leg already, sets its
// strategy's planned risk, regroups it or ungroups it.
func strategyWrite(ctx context.Context, store *journalstore.Store, pool *pgxpool.Pool, user, account, target, other string, rng *rand.Rand) error {
	var strategy *string
	if err := pool.QueryRow(ctx, `SELECT strategy_id::text FROM positions WHERE id = $1`, target).Scan(&strategy); err != nil {
		return err
	}
	legs := []string{target}
	if other != target && rng.IntN(2) == 0 {
		legs = append(legs, other)
	}
	if strategy == nil {
		_, err := store.CreateStrategy(ctx, user, journalstore.StrategyInput{AccountID: &account, PositionIDs: legs,
			PlannedRisk: journal.S(fmt.Sprint(50 + rng.IntN(100)))})
		return err
	}
	var err error
	switch rng.IntN(3) {
	case 0:
		in := journalstore.StrategyInput{PlannedRisk: journal.Field{Set: true, Null: true}}
		if rng.IntN(2) == 0 {
			in.PlannedRisk = journal.S(fmt.Sprint(10 + rng.IntN(200)))
		}
		_, err = store.UpdateStrategy(ctx, user, *strategy, in)
	case 1:
		_, err = store.UpdateStrategy(ctx, user, *strategy, journalstore.StrategyInput{PositionIDs: legs})
	default:
		err = store.DeleteStrategy(ctx, user, *strategy)
	}
	return err
}

// runPositions lists the run of root (which stays its first position: a
// run's first position is never removed) in run order.
func runPositions(t *testing.T, pool *pgxpool.Pool, root string) []string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `WITH RECURSIVE down(id, n) AS (
			SELECT id, 0 FROM positions WHERE id = $1
			UNION ALL SELECT p.id, down.n + 1 FROM positions p JOIN down ON p.reversal_of = down.id)
		SELECT id::text FROM down ORDER BY n`, root)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func fillIDs(t *testing.T, pool *pgxpool.Pool, position string) []string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT id::text FROM fills WHERE position_id = $1 ORDER BY filled_at, id`, position)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// checkInvariants checks what the store must keep after every write.
func checkInvariants(t *testing.T, pool *pgxpool.Pool, at string) {
	t.Helper()
	ctx := context.Background()
	type pos struct {
		id, side, status    string
		reversalOf          *string
		entry, exit, open   decimal.Decimal
		gross, fees, net    decimal.Decimal
		realized, feeLedger decimal.Decimal
		stop                *decimal.Decimal
		fills               []journal.Fill
		splitOf             []*string
	}
	rows, err := pool.Query(ctx, `SELECT p.id::text, p.side, p.status, p.reversal_of::text, p.entry_quantity, p.exit_quantity,
			p.open_quantity, p.gross_pnl, p.fees, p.net_pnl, p.stop_loss,
			coalesce((SELECT sum(amount) FROM ledger_entries l WHERE l.position_id = p.id AND kind = 'realized_pnl'), 0),
			coalesce((SELECT sum(amount) FROM ledger_entries l WHERE l.position_id = p.id AND kind = 'fee'), 0)
		FROM positions p`)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*pos{}
	var p pos
	if _, err := pgx.ForEachRow(rows, []any{&p.id, &p.side, &p.status, &p.reversalOf, &p.entry, &p.exit, &p.open, &p.gross,
		&p.fees, &p.net, &p.stop, &p.realized, &p.feeLedger}, func() error {
		c := p
		byID[c.id] = &c
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	rows, err = pool.Query(ctx, `SELECT position_id::text, id::text, type, price, quantity, fees, filled_at, split_of::text FROM fills`)
	if err != nil {
		t.Fatal(err)
	}
	fillAt := map[string]journal.Fill{}
	var (
		pid   string
		f     journal.Fill
		split *string
	)
	if _, err := pgx.ForEachRow(rows, []any{&pid, &f.ID, &f.Type, &f.Price, &f.Quantity, &f.Fees, &f.FilledAt, &split}, func() error {
		byID[pid].fills = append(byID[pid].fills, f)
		byID[pid].splitOf = append(byID[pid].splitOf, split)
		fillAt[f.ID] = f
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	successor := map[string]string{}
	for _, p := range byID {
		fig, err := journal.Compute(journal.Trade{Side: p.side, Multiplier: decimal.NewFromInt(1), StopLoss: p.stop, Fills: p.fills})
		if err != nil {
			t.Fatalf("%s: position %s does not make a position: %v", at, p.id, err)
		}
		if fig.Status != p.status || !fig.EntryQuantity.Equal(p.entry) || !fig.ExitQuantity.Equal(p.exit) || !fig.OpenQuantity.Equal(p.open) ||
			!fig.GrossPnL.Equal(p.gross) || !fig.Fees.Equal(p.fees) || !fig.NetPnL.Equal(p.net) || !p.entry.Sub(p.exit).Equal(p.open) {
			t.Fatalf("%s: position %s stored %s %s/%s/%s gross %s fees %s, computed %+v", at, p.id, p.status, p.entry, p.exit, p.open, p.gross, p.fees, fig)
		}
		if !p.realized.Equal(p.gross) || !p.feeLedger.Neg().Equal(p.fees) {
			t.Fatalf("%s: position %s ledger %s/%s, figures %s/%s", at, p.id, p.realized, p.feeLedger, p.gross, p.fees)
		}
		if p.reversalOf != nil {
			prev := byID[*p.reversalOf]
			if prev == nil || prev.side == p.side || prev.status != journal.StatusClosed {
				t.Fatalf("%s: position %s continues %v, which is not a closed position of the other side", at, p.id, *p.reversalOf)
			}
			successor[prev.id] = p.id
		}
		for i, s := range p.splitOf {
			if s == nil {
				continue
			}
			closing, ok := fillAt[*s]
			if !ok || p.reversalOf == nil || !slices.ContainsFunc(byID[*p.reversalOf].fills, func(f journal.Fill) bool { return f.ID == *s }) ||
				!closing.Price.Equal(p.fills[i].Price) || !closing.FilledAt.Equal(p.fills[i].FilledAt) || closing.Type != journal.FillExit ||
				p.fills[i].Type != journal.FillEntry {
				t.Fatalf("%s: opening part %s of %s does not match its closing part %v", at, p.fills[i].ID, p.id, *s)
			}
		}
	}
	for id, p := range byID {
		if _, ok := successor[id]; !ok && p.reversalOf == nil && len(p.fills) == 0 && p.status != journal.StatusDraft {
			t.Fatalf("%s: position %s without fills is %s", at, id, p.status)
		}
	}
	checkBalances(t, pool)
	checkClosedTrades(t, pool, at)
}

// checkClosedTrades checks that every user's derived rows (the
// statistics' rows, the strategies' analysis, the balances) are what a
// rebuild from the positions makes.
func checkClosedTrades(t *testing.T, pool *pgxpool.Pool, at string) {
	t.Helper()
	ctx := context.Background()
	rows, err := pool.Query(ctx, `SELECT id::text FROM users`)
	if err != nil {
		t.Fatal(err)
	}
	users, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range users {
		diff, err := journalstore.RebuildDiff(ctx, pool, u)
		if err != nil {
			t.Fatal(err)
		}
		if diff != "" {
			t.Fatalf("%s: %s", at, diff)
		}
	}
}

// checkStatistics holds the statistics of the journal the random writes
// left to a plain recomputation from its positions: the closes in close
// order (a strategy one, at its last leg's close), their count, net P&L,
// wins, losses, largest drawdown and streaks.
func checkStatistics(t *testing.T, pool *pgxpool.Pool, user, at string) {
	t.Helper()
	ctx := context.Background()
	rep, err := stats.Compute(ctx, pool, auth.User{ID: user, Timezone: "UTC"}, listquery.Filter{}, true, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	// A strategy is one trade, at its last leg's close, once every leg with
	// a fill is closed (a draft leg has no part in it).
	rows, err := pool.Query(ctx, `SELECT net FROM (
			SELECT closed_at, id, net_pnl AS net FROM positions WHERE user_id = $1 AND status = 'closed' AND strategy_id IS NULL
			UNION ALL
			SELECT max(closed_at), strategy_id, sum(net_pnl) FILTER (WHERE status = 'closed') FROM positions
			WHERE user_id = $1 AND strategy_id IS NOT NULL
			GROUP BY strategy_id HAVING bool_and(status <> 'open') AND bool_or(status = 'closed')) x
		ORDER BY closed_at, id`, user)
	if err != nil {
		t.Fatal(err)
	}
	nets, err := pgx.CollectRows(rows, pgx.RowTo[decimal.Decimal])
	if err != nil {
		t.Fatal(err)
	}
	var net, cum, peak, drawdown decimal.Decimal
	var wins, losses, run, best, lossRun, lossBest int64
	for _, v := range nets {
		net, cum = net.Add(v), cum.Add(v)
		peak = decimal.Max(peak, cum)
		drawdown = decimal.Max(drawdown, peak.Sub(cum))
		switch v.Sign() {
		case 1:
			wins, run, lossRun = wins+1, run+1, 0
		case -1:
			losses, run, lossRun = losses+1, 0, lossRun+1
		default:
			run, lossRun = 0, 0
		}
		best, lossBest = max(best, run), max(lossBest, lossRun)
	}
	if len(nets) == 0 {
		if len(rep.ByCurrency) != 0 {
			t.Fatalf("%s: statistics of no close: %+v", at, rep.ByCurrency)
		}
		return
	}
	got := rep.ByCurrency[0].Summary
	want := stats.Summary{Trades: int64(len(nets)), Wins: wins, Losses: losses, NetPnl: net.StringFixed(4),
		MaxDrawdown: drawdown.StringFixed(4), LongestWinStreak: best, LongestLossStreak: lossBest}
	if got.Trades != want.Trades || got.Wins != want.Wins || got.Losses != want.Losses || got.NetPnl != want.NetPnl ||
		got.MaxDrawdown != want.MaxDrawdown || got.LongestWinStreak != want.LongestWinStreak || got.LongestLossStreak != want.LongestLossStreak {
		t.Fatalf("%s: statistics %+v, recomputed %+v", at, got, want)
	}
}
