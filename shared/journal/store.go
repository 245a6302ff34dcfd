package journal

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
	"tradejournal/shared/sizing"
)

// The store functions below keep three things consistent inside the
// transaction that changes fills: a position's derived columns, its rows in
// ledger_entries, and accounts.balance (= starting_balance + the sum of the
// account's ledger). Lock order, everywhere: positions (by id) before
// accounts (by id), so two writers never wait on each other in a circle.
//
// Balances move by deltas (balance = balance + x), never by re-summing the
// ledger: under READ COMMITTED an UPDATE that waited for a row lock sees the
// row's newest version but not rows other transactions inserted meanwhile,
// so a re-sum could lose a concurrent write, while a delta cannot.

// ErrOutOfRange answers a write whose figures do not fit their columns
// (absurd prices times quantities, or a balance past 14 digits).
var ErrOutOfRange = apperr.Invalid("amount", "the amounts are too large to record (a figure or the account balance would exceed its range)")

// Classify is db.Classify plus PostgreSQL's numeric overflow (22003) as
// ErrOutOfRange, for every statement that writes money.
func Classify(err error) error { return classify(err) }

func classify(err error) error {
	var pg *pgconn.PgError
	if errors.As(err, &pg) && pg.Code == "22003" {
		return ErrOutOfRange
	}
	return db.Classify(err)
}

// Header is what a write needs to know about a locked position.
type Header struct {
	ID         string
	AccountID  string
	AssetType  string
	Multiplier decimal.Decimal
	Side       string
}

// LockPosition locks the user's position for the rest of tx (SELECT ... FOR
// UPDATE) and returns its header; a position that does not exist or is not
// the user's is apperr.ErrNotFound. Every write to a position's fills,
// tags or images takes this lock first, so concurrent writes to one position
// run one after the other.
func LockPosition(ctx context.Context, tx pgx.Tx, userID, positionID string) (Header, error) {
	if !ValidUUID(positionID) {
		return Header{}, apperr.ErrNotFound
	}
	const q = `SELECT id::text, account_id::text, asset_type, multiplier, side FROM positions
		WHERE id = $1 AND user_id = $2 FOR UPDATE`
	var h Header
	err := tx.QueryRow(ctx, q, positionID, userID).Scan(&h.ID, &h.AccountID, &h.AssetType, &h.Multiplier, &h.Side)
	return h, db.Classify(err)
}

// Recompute brings positions in line with their fills: it locks them (FOR
// UPDATE, in id order), reads all their fills, runs Compute, writes the
// derived columns, rewrites their ledger rows (one realized_pnl row per exit
// fill, one fee row per fill with a fee) and moves each account's balance by
// the difference. Run it in the transaction that changed the fills, after the
// change; it sees the transaction's own writes and every committed one.
//
// It is bulk-friendly: any number of positions cost a fixed number of
// statements (the CSV importer recomputes a whole import at once). Ids that
// name no position are skipped; ownership is the caller's business.
//
// Fills that do not make a position give a *FillError (with PositionID set)
// and change nothing; the caller rolls the transaction back.
func Recompute(ctx context.Context, tx pgx.Tx, positionIDs ...string) error {
	ids := slices.Clone(positionIDs)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if len(ids) == 0 {
		return nil
	}

	type position struct {
		id, accountID string
		trade         Trade
	}
	const lockQ = `SELECT id::text, account_id::text, side, multiplier, stop_loss FROM positions
		WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`
	rows, err := tx.Query(ctx, lockQ, ids)
	if err != nil {
		return classify(err)
	}
	positions, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*position, error) {
		p := &position{}
		err := row.Scan(&p.id, &p.accountID, &p.trade.Side, &p.trade.Multiplier, &p.trade.StopLoss)
		return p, err
	})
	if err != nil {
		return classify(err)
	}
	if len(positions) == 0 {
		return nil
	}
	byID := make(map[string]*position, len(positions))
	for _, p := range positions {
		byID[p.id] = p
	}

	const fillsQ = `SELECT id::text, position_id::text, type, price, quantity, fees, filled_at FROM fills
		WHERE position_id = ANY($1::uuid[]) ORDER BY position_id, filled_at, id`
	rows, err = tx.Query(ctx, fillsQ, ids)
	if err != nil {
		return classify(err)
	}
	var (
		f   Fill
		pid string
	)
	_, err = pgx.ForEachRow(rows, []any{&f.ID, &pid, &f.Type, &f.Price, &f.Quantity, &f.Fees, &f.FilledAt}, func() error {
		if p := byID[pid]; p != nil {
			p.trade.Fills = append(p.trade.Fills, f)
		}
		return nil
	})
	if err != nil {
		return classify(err)
	}

	var (
		upd    figureColumns
		ledger Ledger
		added  = map[string]decimal.Decimal{}
	)
	for _, p := range positions {
		fig, err := Compute(p.trade)
		if err != nil {
			var fe *FillError
			if errors.As(err, &fe) {
				fe.PositionID = p.id
			}
			return err
		}
		upd.add(p.id, fig)
		added[p.accountID] = added[p.accountID].Add(ledger.AddPosition(p.accountID, p.id, p.trade, fig))
	}

	const updateQ = `UPDATE positions p SET status = u.status, opened_at = u.opened_at, closed_at = u.closed_at,
			entry_quantity = u.entry_quantity, exit_quantity = u.exit_quantity, open_quantity = u.open_quantity,
			avg_entry_price = u.avg_entry_price, avg_exit_price = u.avg_exit_price,
			gross_pnl = u.gross_pnl, fees = u.fees, net_pnl = u.net_pnl,
			initial_risk = u.initial_risk, r_multiple = u.r_multiple, updated_at = now()
		FROM unnest($1::uuid[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::numeric[], $6::numeric[],
			$7::numeric[], $8::numeric[], $9::numeric[], $10::numeric[], $11::numeric[], $12::numeric[],
			$13::numeric[], $14::numeric[])
			AS u(id, status, opened_at, closed_at, entry_quantity, exit_quantity, open_quantity,
			     avg_entry_price, avg_exit_price, gross_pnl, fees, net_pnl, initial_risk, r_multiple)
		WHERE p.id = u.id`
	if _, err := tx.Exec(ctx, updateQ, upd.id, upd.status, upd.openedAt, upd.closedAt, upd.entryQty, upd.exitQty,
		upd.openQty, upd.avgEntry, upd.avgExit, upd.gross, upd.fees, upd.net, upd.risk, upd.r); err != nil {
		return classify(err)
	}

	// The old rows out (remembering what they added to each account), the
	// new rows in, then each account moves by new - old.
	const deleteQ = `WITH d AS (DELETE FROM ledger_entries WHERE position_id = ANY($1::uuid[]) RETURNING account_id, amount)
		SELECT account_id::text, sum(amount) FROM d GROUP BY account_id`
	rows, err = tx.Query(ctx, deleteQ, ids)
	if err != nil {
		return classify(err)
	}
	var (
		account string
		sum     decimal.Decimal
	)
	_, err = pgx.ForEachRow(rows, []any{&account, &sum}, func() error {
		added[account] = added[account].Sub(sum)
		return nil
	})
	if err != nil {
		return classify(err)
	}
	if err := ledger.insert(ctx, tx); err != nil {
		return err
	}
	return AdjustBalances(ctx, tx, added)
}

// AdjustBalances moves each account's balance by its delta, in account id
// order, skipping zeros. Every ledger write calls it in the same
// transaction, with the sum of the amounts it added (negative for removed).
func AdjustBalances(ctx context.Context, tx pgx.Tx, deltas map[string]decimal.Decimal) error {
	accounts := make([]string, 0, len(deltas))
	for a, d := range deltas {
		if !d.IsZero() {
			accounts = append(accounts, a)
		}
	}
	slices.Sort(accounts)
	for _, a := range accounts {
		if _, err := tx.Exec(ctx, `UPDATE accounts SET balance = balance + $2 WHERE id = $1`, a, deltas[a]); err != nil {
			return classify(err)
		}
	}
	return nil
}

// DeletePosition deletes the user's position with its fills, tags, images
// and ledger rows, and takes its ledger's sum off the account's balance.
// A missing or foreign position is apperr.ErrNotFound.
func DeletePosition(ctx context.Context, tx pgx.Tx, userID, positionID string) error {
	h, err := LockPosition(ctx, tx, userID, positionID)
	if err != nil {
		return err
	}
	var sum decimal.Decimal
	const sumQ = `SELECT coalesce(sum(amount), 0) FROM ledger_entries WHERE position_id = $1`
	if err := tx.QueryRow(ctx, sumQ, h.ID).Scan(&sum); err != nil {
		return classify(err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM positions WHERE id = $1`, h.ID); err != nil {
		return classify(err)
	}
	return AdjustBalances(ctx, tx, map[string]decimal.Decimal{h.AccountID: sum.Neg()})
}

// FeeSchedule returns the fee schedule of the account's brokerage, or nil
// when the account has none. Fills whose fee is not given are charged
// schedule.FillFee(option, quantity), marked fee_estimated.
func FeeSchedule(ctx context.Context, q db.Querier, accountID string) (*sizing.FeeSchedule, error) {
	const sql = `SELECT b.stock_per_share_commission, b.stock_min_per_fill, b.stock_max_per_fill,
			b.options_per_contract_commission, b.options_per_contract_exchange_fee,
			b.options_min_per_fill, b.options_max_per_fill
		FROM accounts a JOIN brokerages b ON b.id = a.brokerage_id WHERE a.id = $1`
	var s sizing.FeeSchedule
	err := q.QueryRow(ctx, sql, accountID).Scan(&s.StockPerShareCommission, &s.StockMinPerFill, &s.StockMaxPerFill,
		&s.OptionsPerContractCommission, &s.OptionsPerContractExchangeFee, &s.OptionsMinPerFill, &s.OptionsMaxPerFill)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, db.Classify(err)
	}
	return &s, nil
}

// EstimateFee is the fee of a fill whose fee was not given: the schedule's
// FillFee, or 0 without a schedule. estimated reports whether a schedule
// set it. perContract (Contracts: options and futures) takes the options
// per-contract fields, otherwise the stock fields.
func EstimateFee(s *sizing.FeeSchedule, perContract bool, qty decimal.Decimal) (fee decimal.Decimal, estimated bool) {
	if s == nil {
		return decimal.Zero, false
	}
	return s.FillFee(perContract, qty), true
}

// figureColumns are Figures as column arrays for one UPDATE ... FROM unnest.
type figureColumns struct {
	id, status                 []string
	openedAt, closedAt         []*time.Time
	entryQty, exitQty, openQty []decimal.Decimal
	avgEntry, avgExit          []*decimal.Decimal
	gross, fees, net           []decimal.Decimal
	risk, r                    []*decimal.Decimal
}

func (c *figureColumns) add(id string, f Figures) {
	c.id = append(c.id, id)
	c.status = append(c.status, f.Status)
	c.openedAt = append(c.openedAt, f.OpenedAt)
	c.closedAt = append(c.closedAt, f.ClosedAt)
	c.entryQty = append(c.entryQty, f.EntryQuantity)
	c.exitQty = append(c.exitQty, f.ExitQuantity)
	c.openQty = append(c.openQty, f.OpenQuantity)
	c.avgEntry = append(c.avgEntry, f.AvgEntryPrice)
	c.avgExit = append(c.avgExit, f.AvgExitPrice)
	c.gross = append(c.gross, f.GrossPnL)
	c.fees = append(c.fees, f.Fees)
	c.net = append(c.net, f.NetPnL)
	c.risk = append(c.risk, f.InitialRisk)
	c.r = append(c.r, f.RMultiple)
}

// Ledger is the ledger rows of computed positions, in column form: a
// realised P&L row per exit and a fee row per charged fill. Recompute
// inserts them with insert; a bulk writer of new positions (the CSV import)
// copies them with Copy.
type Ledger struct {
	account, kind, position, fill []string
	amount                        []decimal.Decimal
	at                            []time.Time
}

// AddPosition appends the rows of one position, whose figures fig are
// Compute(t), and returns what they add to the account's balance.
func (l *Ledger) AddPosition(accountID, positionID string, t Trade, fig Figures) decimal.Decimal {
	var added decimal.Decimal
	for i, fill := range t.Fills {
		if fill.Type == FillExit {
			l.add(accountID, "realized_pnl", fig.Realized[i], positionID, fill.ID, fill.FilledAt)
			added = added.Add(fig.Realized[i])
		}
		if fill.Fees.IsPositive() {
			l.add(accountID, "fee", fill.Fees.Neg(), positionID, fill.ID, fill.FilledAt)
			added = added.Sub(fill.Fees)
		}
	}
	return added
}

func (l *Ledger) add(account, kind string, amount decimal.Decimal, position, fill string, at time.Time) {
	l.account = append(l.account, account)
	l.kind = append(l.kind, kind)
	l.amount = append(l.amount, amount)
	l.position = append(l.position, position)
	l.fill = append(l.fill, fill)
	l.at = append(l.at, at)
}

// insert writes the rows with one statement (a plan cached per connection:
// cheapest for the few rows of an edit).
func (l *Ledger) insert(ctx context.Context, tx pgx.Tx) error {
	if len(l.account) == 0 {
		return nil
	}
	const q = `INSERT INTO ledger_entries (account_id, kind, amount, position_id, fill_id, occurred_at)
		SELECT * FROM unnest($1::uuid[], $2::text[], $3::numeric[], $4::uuid[], $5::uuid[], $6::timestamptz[])`
	_, err := tx.Exec(ctx, q, l.account, l.kind, l.amount, l.position, l.fill, l.at)
	return classify(err)
}

// Copy writes the rows with COPY: cheapest for thousands of rows. Their ids
// are made here (db.NewUUID), not by the column's default.
func (l *Ledger) Copy(ctx context.Context, tx pgx.Tx) error {
	if len(l.account) == 0 {
		return nil
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"ledger_entries"},
		[]string{"id", "account_id", "kind", "amount", "position_id", "fill_id", "occurred_at"},
		pgx.CopyFromSlice(len(l.account), func(i int) ([]any, error) {
			return []any{db.NewUUID(), l.account[i], l.kind[i], l.amount[i], l.position[i], l.fill[i], l.at[i]}, nil
		}))
	return classify(err)
}

// Tag is a tag as every journal route shows it.
type Tag struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Category string `json:"category"`
}

// TagCategories are the categories a tag may have.
var TagCategories = []string{"setup", "mistake", "emotion", "general"}

// InTx runs fn in one transaction on pool and commits when fn returns nil;
// any error rolls everything back, so a request writes all or nothing.
func InTx(ctx context.Context, pool db.Beginner, fn func(pgx.Tx) error) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return db.Classify(err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // a no-op after Commit
	if err := fn(tx); err != nil {
		return err
	}
	return classify(tx.Commit(ctx))
}

// DeleteFill deletes one fill of a locked position together with its ledger
// rows, moving the balance back by what they held. The caller then runs
// Recompute for the position (the remaining fills may no longer make a
// position: an exit left without its entry). A fill that is not the
// position's is apperr.ErrNotFound.
func DeleteFill(ctx context.Context, tx pgx.Tx, positionID, fillID string) error {
	if !ValidUUID(fillID) {
		return apperr.ErrNotFound
	}
	// The ledger rows would go with the fill (ON DELETE CASCADE) without
	// telling anyone what they added to the balance: take them out first.
	const ledgerQ = `WITH d AS (DELETE FROM ledger_entries WHERE position_id = $1 AND fill_id = $2
			RETURNING account_id, amount)
		SELECT account_id::text, sum(amount) FROM d GROUP BY account_id`
	rows, err := tx.Query(ctx, ledgerQ, positionID, fillID)
	if err != nil {
		return classify(err)
	}
	deltas := map[string]decimal.Decimal{}
	var (
		account string
		sum     decimal.Decimal
	)
	if _, err := pgx.ForEachRow(rows, []any{&account, &sum}, func() error {
		deltas[account] = sum.Neg()
		return nil
	}); err != nil {
		return classify(err)
	}
	tag, err := tx.Exec(ctx, `DELETE FROM fills WHERE id = $1 AND position_id = $2`, fillID, positionID)
	if err != nil {
		return classify(err)
	}
	if tag.RowsAffected() == 0 {
		return apperr.ErrNotFound
	}
	return AdjustBalances(ctx, tx, deltas)
}
