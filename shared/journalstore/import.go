package journalstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/brokerfile"
	"tradejournal/shared/db"
	"tradejournal/shared/fx"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
)

// Imported is what an import wrote.
type Imported struct {
	// orders holds the broker's order id of each new position's first
	// fill (by position id), for groupImported: the staged fills carry
	// the ids, the positions table does not.
	orders map[string]string

	Created   []string // new positions
	Continued []string // open positions that took fills
	Fills     int      // the file's fills written (a reversal's once, though stored in two parts)
	// Strategies counts the strategies made of positions opened together.
	Strategies int
	Plan       *brokerfile.Plan
	Balance    decimal.Decimal // the account's balance after it
	// Positions are the ids of the plan's positions, in its order (the
	// preview's): a continued position's own, a new one's as written.
	Positions []string
}

// PlanError answers an import whose fills no longer fit the journal (it
// changed since the preview, or confirmed duplicates break a position).
type PlanError struct{ Problems []brokerfile.Problem }

func (e *PlanError) Error() string { return "the fills no longer fit the journal" }

// Import writes a CSV import's fills into the user's account in one
// transaction: ImportAccounts with one part.
func (s *Store) Import(ctx context.Context, userID, accountID string, fills []brokerfile.Fill, opt brokerfile.BuildOptions,
	finish func(context.Context, pgx.Tx) error) (Imported, error) {
	out, err := s.ImportAccounts(ctx, userID, []ImportPart{{AccountID: accountID, Fills: fills}}, opt, finish)
	if err != nil {
		return Imported{}, err
	}
	return out[0], nil
}

// ImportPart is the fills of an import that go to one of the user's
// accounts (a broker file of several accounts is split across them).
type ImportPart struct {
	AccountID string
	Fills     []brokerfile.Fill
	// GroupStrategies makes strategies of the new positions opened
	// together (brokerfile.GroupStrategies), as the preview proposed.
	GroupStrategies bool
	// Strategies, when not nil, are the trader's own groups instead: each
	// a strategy of the new positions that open with these fills (indexes
	// into Fills), checked by the caller to be two or more of one
	// underlying and not futures.
	Strategies [][]int
}

// ImportAccounts writes an import's parts, each into its account, in one
// transaction: it locks the accounts (in id order, so that two imports
// never wait on each other), plans each part against its account's journal
// as it is now (brokerfile.Build), derives each run of the plans through
// the same code as a fill typed in (journal.Derive), writes them all
// through one write, and runs finish (the caller's last step in the
// transaction: its staged preview's deletion). Open positions a part
// continues are locked and derived with their new fills; new positions are
// copied whole. A part whose account is not the user's, or whose fills no
// longer fit, rolls back every part. The answer is per part, in order.
func (s *Store) ImportAccounts(ctx context.Context, userID string, parts []ImportPart, opt brokerfile.BuildOptions,
	finish func(context.Context, pgx.Tx) error) ([]Imported, error) {
	order := make([]int, len(parts))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(parts[a].AccountID, parts[b].AccountID) })
	for k := 1; k < len(order); k++ {
		if parts[order[k]].AccountID == parts[order[k-1]].AccountID {
			return nil, fmt.Errorf("journalstore: account %s in two parts of an import", parts[order[k]].AccountID)
		}
	}
	out := make([]Imported, len(parts))
	opt.SummaryOnly = true // each run is derived again below
	err := s.write(ctx, userID, func(w *writeTx) error {
		for _, i := range order {
			if err := w.lockAccount(ctx, parts[i].AccountID); err != nil {
				return err
			}
		}
		var runs []*run
		partRuns := make([][]*run, len(parts))
		for i, pt := range parts {
			held, err := ReadJournal(ctx, w, userID, pt.AccountID, pt.Fills)
			if err != nil {
				return err
			}
			plan := brokerfile.Build(pt.Fills, held, opt)
			if len(plan.Errors) > 0 {
				return &PlanError{plan.Errors}
			}
			out[i].Plan = plan
			rs, err := importRuns(ctx, w, pt.AccountID, pt.Fills, plan, &out[i])
			if err != nil {
				return err
			}
			runs, partRuns[i] = append(runs, rs...), rs
		}
		b := w.batch()
		if _, err := w.writeRuns(ctx, b, runs); err != nil {
			return err
		}
		if err := b.flush(ctx); err != nil {
			return err
		}
		for i, pt := range parts {
			var err error
			switch {
			case pt.Strategies != nil:
				err = groupChosen(ctx, w, pt.AccountID, &out[i], pt.Strategies)
			case pt.GroupStrategies:
				out[i].Strategies, err = groupImported(ctx, w, pt.AccountID, partRuns[i], out[i].orders)
			}
			if err != nil {
				return err
			}
		}
		if err := finish(ctx, w.Tx); err != nil {
			return err
		}
		w.then(func(ctx context.Context) error {
			for i, pt := range parts {
				if err := classify(w.QueryRow(ctx, `SELECT balance FROM accounts WHERE id = $1`, pt.AccountID).Scan(&out[i].Balance)); err != nil {
					return err
				}
			}
			return nil
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// importRuns turns a plan into runs: each chain of plan positions linked
// by reversals is one run of executions (a reversal's fill once), started
// on its first position's side, or added to the stored run of the open
// position it continues.
func importRuns(ctx context.Context, w *writeTx, accountID string, fills []brokerfile.Fill, plan *brokerfile.Plan, out *Imported) ([]*run, error) {
	runOf := make([]*run, len(plan.Positions))
	// slot is each plan position's place in its run's derived positions.
	slot := make([]int, len(plan.Positions))
	var runs []*run
	orderOf := map[*run]string{} // a new run's first position's order id
	for k := range plan.Positions {
		p := &plan.Positions[k]
		ru := (*run)(nil)
		if p.ReversalOf > 0 {
			ru = runOf[p.ReversalOf-1]
			slot[k] = slot[p.ReversalOf-1] + 1
		}
		switch {
		case ru != nil:
		case p.ExistingID != "":
			var err error
			if ru, err = lockRun(ctx, w, w.userID, p.ExistingID); err != nil {
				return nil, err
			}
			out.Continued = append(out.Continued, p.ExistingID)
			runs = append(runs, ru)
		default:
			inst, err := instrument.Parse(p.AssetType, p.Symbol, fills[p.Fills[0]].FilledAt)
			if err != nil {
				return nil, err // Parse made these symbols: they parse
			}
			inst.Multiplier = p.Multiplier
			if q := fills[p.Fills[0]].Quote; q != "" {
				if err := inst.SettleQuote(&q); err != nil {
					return nil, err
				}
			}
			ru = &run{side: p.Side, inst: newRunInstrument(w.userID, accountID, inst)}
			runs = append(runs, ru)
			orderOf[ru] = fills[p.Fills[0]].OrderID
		}
		runOf[k] = ru
		member := len(ru.members)
		if p.ExistingID != "" {
			for i, m := range ru.members {
				if m.id == p.ExistingID {
					member, slot[k] = i, i
				}
			}
		}
		for n, i := range p.Fills {
			if p.ReversalOf > 0 && n == 0 {
				continue // the opening part of the reversal: its execution is the previous position's
			}
			f := &fills[i]
			out.Fills++
			ru.execs = append(ru.execs, &execution{Execution: journal.Execution{Buy: f.Side == brokerfile.Buy, Price: f.Price,
				Quantity: f.Quantity, Fees: f.Fees, FeeEstimated: f.FeeEstimated, FilledAt: f.FilledAt, Rate: f.Rate, FeeAsset: f.FeeAsset},
				member: member, rank: typeRank(p.Types[n]), req: -1, rateGiven: f.Rate != nil})
		}
	}
	for _, ru := range runs {
		ru.newIDs()
		if err := ru.derive(""); err != nil {
			return nil, err
		}
		if id := orderOf[ru]; id != "" && len(ru.placed) > 0 {
			// The run's first position is the plan's, opened by its first fill.
			if out.orders == nil {
				out.orders = map[string]string{}
			}
			out.orders[ru.placed[0].id] = id
		}
		for _, p := range ru.placed {
			if p.isNew {
				out.Created = append(out.Created, p.id)
			}
		}
	}
	out.Positions = make([]string, len(plan.Positions))
	for k, ru := range runOf {
		if slot[k] >= len(ru.placed) {
			return nil, fmt.Errorf("journalstore: import plan position %d is not among its run's %d positions", k, len(ru.placed))
		}
		out.Positions[k] = ru.placed[slot[k]].id
	}
	return runs, nil
}

// ReadJournal reads what the account holds that the fills meet: its open
// positions in the file's symbols (with their fills), and the keys of its
// fills in the file's time range.
func ReadJournal(ctx context.Context, q db.Querier, userID, accountID string, fills []brokerfile.Fill) (brokerfile.Journal, error) {
	j := brokerfile.Journal{Has: map[brokerfile.Key]bool{}}
	if len(fills) == 0 {
		return j, nil
	}
	symbols := map[string]bool{}
	from, to := fills[0].FilledAt, fills[0].FilledAt
	for i := range fills {
		symbols[fills[i].Symbol] = true
		if fills[i].FilledAt.Before(from) {
			from = fills[i].FilledAt
		}
		if fills[i].FilledAt.After(to) {
			to = fills[i].FilledAt
		}
	}
	list := make([]string, 0, len(symbols))
	for s := range symbols {
		list = append(list, s)
	}

	const seedsQ = `SELECT p.id::text, p.symbol, p.asset_type, p.side, p.multiplier, p.stop_loss,
			f.type, f.price, f.quantity, f.fees, f.filled_at, f.rate, coalesce(f.fee_asset, ''), f.fee_rate
		FROM positions p JOIN fills f ON f.position_id = p.id
		WHERE p.account_id = $1 AND p.user_id = $2 AND p.status = 'open' AND p.symbol = ANY($3::text[])
		ORDER BY p.id, f.filled_at, f.id`
	rows, err := q.Query(ctx, seedsQ, accountID, userID, list)
	if err != nil {
		return j, db.Classify(err)
	}
	var (
		id, symbol, asset, side string
		mult                    decimal.Decimal
		stop                    *decimal.Decimal
		f                       journal.Fill
	)
	_, err = pgx.ForEachRow(rows, []any{&id, &symbol, &asset, &side, &mult, &stop, &f.Type, &f.Price, &f.Quantity, &f.Fees, &f.FilledAt, &f.Rate,
		&f.FeeAsset, &f.FeeRate}, func() error {
		if n := len(j.Seeds); n == 0 || j.Seeds[n-1].PositionID != id {
			j.Seeds = append(j.Seeds, brokerfile.Seed{PositionID: id, Symbol: symbol, AssetType: asset, Side: side, Multiplier: mult, StopLoss: stop})
		}
		s := &j.Seeds[len(j.Seeds)-1]
		s.Fills = append(s.Fills, f)
		f.Rate, f.FeeRate = nil, nil // scanned afresh into the next fill
		return nil
	})
	if err != nil {
		return j, db.Classify(err)
	}
	if slices.ContainsFunc(fills, func(f brokerfile.Fill) bool { return instrument.QuotedApart(f.AssetType) }) {
		if j.Currency, j.Rates, err = accountRates(ctx, q, userID, accountID); err != nil {
			return j, err
		}
	}

	// Fills of the account in the file's time range: its positions that
	// overlap the range (an index range on account and opened_at), then
	// their fills by time. Decimals come back as trimmed text, the form
	// Key uses. A reversal's fill is stored in two parts (the closing one
	// in the reversed position, the opening one, split_of it, in its
	// successor): each part's key is the whole fill's, the row the broker
	// wrote, so a re-import finds it.
	const dupQ = `SELECT p.symbol, p.asset_type,
			CASE WHEN (p.side = 'long') = (f.type = 'entry') THEN 'buy' ELSE 'sell' END,
			f.filled_at, trim_scale(f.price)::text,
			trim_scale(f.quantity + coalesce(opening.quantity, closing.quantity, 0))::text
		FROM positions p JOIN fills f ON f.position_id = p.id
			LEFT JOIN fills closing ON closing.id = f.split_of
			LEFT JOIN fills opening ON opening.split_of = f.id
		WHERE p.account_id = $1 AND p.user_id = $2 AND p.opened_at <= $4
			AND (p.closed_at IS NULL OR p.closed_at >= $3)
			AND f.filled_at BETWEEN $3 AND $4`
	rows, err = q.Query(ctx, dupQ, accountID, userID, from, to)
	if err != nil {
		return j, db.Classify(err)
	}
	var (
		k  brokerfile.Key
		at time.Time
	)
	_, err = pgx.ForEachRow(rows, []any{&k.Symbol, &k.AssetType, &k.Side, &at, &k.Price, &k.Quantity}, func() error {
		k.At = at.UnixMicro()
		j.Has[k] = true
		return nil
	})
	return j, db.Classify(err)
}

// accountRates reads an account's currency and its user's exchange rates:
// what a forex, crypto or CFD fill's rate and a coin fee's conversion are
// worked out from (brokerfile.Journal.Currency).
func accountRates(ctx context.Context, q db.Querier, userID, accountID string) (string, []fx.Rate, error) {
	const rq = `SELECT a.currency::text, NULL::text, NULL::date, NULL::numeric FROM accounts a WHERE a.id = $2 AND a.user_id = $1
		UNION ALL
		SELECT base_currency::text, quote_currency::text, effective_date, rate FROM exchange_rates WHERE user_id = $1`
	rows, err := q.Query(ctx, rq, userID, accountID)
	if err != nil {
		return "", nil, db.Classify(err)
	}
	var (
		currency string
		rates    []fx.Rate
		a        string
		b        *string
		date     *time.Time
		value    decimal.NullDecimal
	)
	_, err = pgx.ForEachRow(rows, []any{&a, &b, &date, &value}, func() error {
		if b == nil {
			currency = a
			return nil
		}
		rates = append(rates, fx.Rate{Base: a, Quote: *b, Date: *date, Value: value.Decimal})
		return nil
	})
	return currency, rates, db.Classify(err)
}

// groupImported makes strategies of an import's new positions opened
// together (brokerfile.GroupStrategies over what runs wrote, with each
// position's order id from orders: the rule the preview showed) and
// answers how many.
func groupImported(ctx context.Context, w *writeTx, accountID string, runs []*run, orders map[string]string) (int, error) {
	type leg struct {
		id string
		brokerfile.GroupLeg
	}
	var legs []leg
	for _, ru := range runs {
		for _, p := range ru.placed {
			if p.isNew && p.reversalOf == nil && p.figures.OpenedAt != nil {
				legs = append(legs, leg{p.id, brokerfile.GroupLeg{Underlying: ru.inst.underlying(), AssetType: ru.inst.assetType,
					OpenedAt: *p.figures.OpenedAt, OrderID: orders[p.id]}})
			}
		}
	}
	slices.SortFunc(legs, func(a, b leg) int { return cmp.Or(a.OpenedAt.Compare(b.OpenedAt), strings.Compare(a.id, b.id)) })
	group := make([]brokerfile.GroupLeg, len(legs))
	for i := range legs {
		group[i] = legs[i].GroupLeg
	}
	groups := brokerfile.GroupStrategies(group)
	members := make([][]string, len(groups))
	for g, in := range groups {
		for _, i := range in {
			members[g] = append(members[g], legs[i].id)
		}
	}
	return len(groups), makeStrategies(ctx, w, accountID, members)
}

// groupChosen makes the trader's groups strategies: each group's fills
// name the new positions that open with them (not by a reversal). A fill
// that opens no such position now (the journal changed since the preview)
// is a conflict: nothing is written.
func groupChosen(ctx context.Context, w *writeTx, accountID string, out *Imported, groups [][]int) error {
	opens := map[int]int{}
	for k, p := range out.Plan.Positions {
		if p.ExistingID == "" && p.ReversalOf == 0 && len(p.Fills) > 0 {
			opens[p.Fills[0]] = k
		}
	}
	members := make([][]string, len(groups))
	for g, group := range groups {
		for _, f := range group {
			k, ok := opens[f]
			if !ok {
				return apperr.New(apperr.Conflict, "a position of the strategies you chose is no longer a new one (the journal changed since the preview); preview the file again")
			}
			members[g] = append(members[g], out.Positions[k])
		}
	}
	out.Strategies = len(groups)
	return makeStrategies(ctx, w, accountID, members)
}

// makeStrategies makes a strategy of each group of the account's new
// positions (touched again: writeRuns recorded them in none), in one
// round trip.
func makeStrategies(ctx context.Context, w *writeTx, accountID string, groups [][]string) error {
	if len(groups) == 0 {
		return nil
	}
	b := &pgx.Batch{}
	for _, ids := range groups {
		b.Queue(`WITH s AS (INSERT INTO strategies (user_id, account_id) VALUES ($1, $2) RETURNING id)
			UPDATE positions SET strategy_id = (SELECT id FROM s) WHERE id = ANY($3::uuid[])`, w.userID, accountID, ids)
		w.touch(ids...)
	}
	return w.send(ctx, b)
}
