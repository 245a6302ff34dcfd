package journalstore

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/brokerfile"
	"tradejournal/shared/db"
	"tradejournal/shared/journal"
)

// Imported is what an import wrote.
type Imported struct {
	Created   []string // new positions
	Continued []string // open positions that took fills
	Fills     int      // fill rows written (a reversal's fill is two)
	Plan      *brokerfile.Plan
	Balance   decimal.Decimal // the account's balance after it
}

// PlanError answers an import whose fills no longer fit the journal (it
// changed since the preview, or confirmed duplicates break a position).
type PlanError struct{ Problems []brokerfile.Problem }

func (e *PlanError) Error() string { return "the fills no longer fit the journal" }

// Import writes a CSV import's fills into the user's account in one
// transaction: it locks the account, plans the import against the journal
// as it is now (brokerfile.Build), derives each run of the plan through the
// same code as a fill typed in (journal.Derive, write), and runs finish
// (the caller's last step in the transaction: its staged preview's
// deletion). Open positions the file continues are locked and derived with
// their new fills; new positions are copied whole.
func (s *Store) Import(ctx context.Context, userID, accountID string, fills []brokerfile.Fill, opt brokerfile.BuildOptions,
	finish func(context.Context, pgx.Tx) error) (Imported, error) {
	var out Imported
	err := db.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if err := lockAccount(ctx, tx, userID, accountID); err != nil {
			return err
		}
		held, err := ReadJournal(ctx, tx, userID, accountID, fills)
		if err != nil {
			return err
		}
		plan := brokerfile.Build(fills, held, opt)
		if len(plan.Errors) > 0 {
			return &PlanError{plan.Errors}
		}
		out.Plan = plan
		runs, err := importRuns(ctx, tx, userID, accountID, fills, plan, &out)
		if err != nil {
			return err
		}
		if _, err := write(ctx, tx, runs); err != nil {
			return err
		}
		if err := finish(ctx, tx); err != nil {
			return err
		}
		return classify(tx.QueryRow(ctx, `SELECT balance FROM accounts WHERE id = $1`, accountID).Scan(&out.Balance))
	})
	return out, err
}

// importRuns turns a plan into runs: each chain of plan positions linked
// by reversals is one run of executions (a reversal's fill once), started
// on its first position's side, or added to the stored run of the open
// position it continues.
func importRuns(ctx context.Context, tx pgx.Tx, userID, accountID string, fills []brokerfile.Fill, plan *brokerfile.Plan, out *Imported) ([]*run, error) {
	runOf := make([]*run, len(plan.Positions))
	var runs []*run
	for k := range plan.Positions {
		p := &plan.Positions[k]
		ru := (*run)(nil)
		if p.ReversalOf > 0 {
			ru = runOf[p.ReversalOf-1]
		}
		switch {
		case ru != nil:
		case p.ExistingID != "":
			var err error
			if ru, err = lockRun(ctx, tx, userID, p.ExistingID); err != nil {
				return nil, err
			}
			out.Continued = append(out.Continued, p.ExistingID)
			runs = append(runs, ru)
		default:
			inst, err := journal.ParseInstrument(p.AssetType, p.Symbol, fills[p.Fills[0]].FilledAt)
			if err != nil {
				return nil, err // Parse made these symbols: they parse
			}
			ru = &run{side: p.Side, inst: instrument{userID: userID, accountID: accountID, symbol: p.Symbol,
				assetType: p.AssetType, columns: inst.Columns(), multiplier: p.Multiplier}}
			runs = append(runs, ru)
		}
		runOf[k] = ru
		member := len(ru.members)
		if p.ExistingID != "" {
			for i, m := range ru.members {
				if m.id == p.ExistingID {
					member = i
				}
			}
		}
		for n, i := range p.Fills {
			if p.ReversalOf > 0 && n == 0 {
				continue // the opening part of the reversal: its execution is the previous position's
			}
			f := &fills[i]
			ru.execs = append(ru.execs, &execution{Execution: journal.Execution{Buy: f.Side == brokerfile.Buy, Price: f.Price,
				Quantity: f.Quantity, Fees: f.Fees, FeeEstimated: f.FeeEstimated, FilledAt: f.FilledAt},
				member: member, rank: typeRank(p.Types[n]), req: -1})
		}
	}
	for _, ru := range runs {
		ru.newIDs()
		if err := ru.derive(""); err != nil {
			return nil, err
		}
		for _, p := range ru.placed {
			if p.isNew {
				out.Created = append(out.Created, p.id)
			}
			out.Fills += len(p.legs)
		}
		for _, m := range ru.members {
			out.Fills -= len(m.fills)
		}
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
			f.type, f.price, f.quantity, f.fees, f.filled_at
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
	_, err = pgx.ForEachRow(rows, []any{&id, &symbol, &asset, &side, &mult, &stop, &f.Type, &f.Price, &f.Quantity, &f.Fees, &f.FilledAt}, func() error {
		if n := len(j.Seeds); n == 0 || j.Seeds[n-1].PositionID != id {
			j.Seeds = append(j.Seeds, brokerfile.Seed{PositionID: id, Symbol: symbol, AssetType: asset, Side: side, Multiplier: mult, StopLoss: stop})
		}
		s := &j.Seeds[len(j.Seeds)-1]
		s.Fills = append(s.Fills, f)
		return nil
	})
	if err != nil {
		return j, db.Classify(err)
	}

	// Fills of the account in the file's time range: its positions that
	// overlap the range (an index range on account and opened_at), then
	// their fills by time. Decimals come back as trimmed text, the form
	// Key uses.
	const dupQ = `SELECT p.symbol, p.asset_type,
			CASE WHEN (p.side = 'long') = (f.type = 'entry') THEN 'buy' ELSE 'sell' END,
			f.filled_at, trim_scale(f.price)::text, trim_scale(f.quantity)::text
		FROM positions p JOIN fills f ON f.position_id = p.id
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
