package journalstore

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
	"tradejournal/shared/journal"
	"tradejournal/shared/sizing"
)

// ledgerRow is a ledger row of a computed position: its realised P&L at
// an exit, or a fill's fee.
type ledgerRow struct {
	account, kind, position, fill string
	amount                        decimal.Decimal
	at                            time.Time
}

// ledgerColumns are a ledgerRow's columns (ledgerRow.row). Their ids are
// made here (db.NewUUID), not by the column's default.
var ledgerColumns = []string{"id", "account_id", "kind", "amount", "position_id", "fill_id", "occurred_at"}

func (l ledgerRow) row(dst []any) []any {
	return append(dst, db.NewUUID(), copyUUID(l.account), l.kind, l.amount, copyUUID(l.position), copyUUID(l.fill), l.at)
}

// addLedger appends the rows of one position, whose figures fig are
// journal.Compute(t), to rows, and returns what they add to the account's
// balance.
func addLedger(rows *[]ledgerRow, accountID, positionID string, t journal.Trade, fig journal.Figures) decimal.Decimal {
	var added decimal.Decimal
	for i, fill := range t.Fills {
		if fill.Type == journal.FillExit {
			*rows = append(*rows, ledgerRow{accountID, "realized_pnl", positionID, fill.ID, fig.Realized[i], fill.FilledAt})
			added = added.Add(fig.Realized[i])
		}
		if fee := fig.FillFees[i]; !fee.IsZero() { // a credit (negative) adds
			*rows = append(*rows, ledgerRow{accountID, "fee", positionID, fill.ID, fee.Neg(), fill.FilledAt})
			added = added.Sub(fee)
		}
	}
	return added
}

// deleteLedger queues the deletion of the ledger rows of positions; the
// accounts' balances move back by what the rows added once it is sent.
func (w *writeTx) deleteLedger(b *pgx.Batch, positionIDs []string) {
	if len(positionIDs) == 0 {
		return
	}
	const q = `WITH d AS (DELETE FROM ledger_entries WHERE position_id = ANY($1::uuid[]) RETURNING account_id, amount)
		SELECT account_id::text, sum(amount) FROM d GROUP BY account_id`
	b.Queue(q, positionIDs).Query(func(rows pgx.Rows) error {
		var (
			account string
			sum     decimal.Decimal
		)
		_, err := pgx.ForEachRow(rows, []any{&account, &sum}, func() error {
			w.move(account, sum.Neg())
			return nil
		})
		return err
	})
}

// FeeSchedule returns the fee schedule of the account's brokerage, or nil
// when the account has none (the import's preview estimates with it too). Fills whose fee is not given are charged
// journal.EstimateFee, marked fee_estimated.
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

// LedgerEntry is a deposit or a withdrawal to record.
type LedgerEntry struct {
	Kind   string          // "deposit" or "withdrawal"
	Amount decimal.Decimal // positive; a withdrawal is stored negative
	At     time.Time
	Note   string
}

// AddLedgerEntry records a deposit or a withdrawal on the user's account
// and moves its balance, then runs view with the entry's id in the same
// transaction, once the balance has moved (the caller reads what it
// answers with).
func (s *Store) AddLedgerEntry(ctx context.Context, userID, accountID string, e LedgerEntry, view func(tx pgx.Tx, entryID string) error) error {
	amount := e.Amount
	if e.Kind == "withdrawal" {
		amount = amount.Neg()
	}
	return s.write(ctx, userID, func(w *writeTx) error {
		if err := w.lockAccount(ctx, accountID); err != nil {
			return notFound(err)
		}
		var id string
		const ins = `INSERT INTO ledger_entries (account_id, kind, amount, occurred_at, note)
			VALUES ($1, $2, $3, $4, $5) RETURNING id::text`
		if err := w.QueryRow(ctx, ins, accountID, e.Kind, amount, e.At, e.Note).Scan(&id); err != nil {
			return classify(err)
		}
		w.move(accountID, amount)
		w.then(func(ctx context.Context) error { return view(w.Tx, id) })
		return nil
	})
}

// errReversal and errReversed refuse the deletion of a reversing entry and
// of one already reversed.
var (
	errReversal = apperr.New(apperr.Conflict, "this entry reverses a deleted one and stays in the history; record a new deposit or withdrawal instead")
	errReversed = apperr.New(apperr.Conflict, "this entry is already reversed")
)

// DeleteLedgerEntry deletes a deposit, withdrawal or adjustment of the
// user's account the way a ledger does: it stays, and an entry of the same
// kind and date with the opposite amount (reverses_id naming it) is
// written, so the history shows both and the balance moves back. It then
// runs view with the reversing entry's id in the same transaction once the
// balance has moved. Entries written by fills change only with their
// fills, a reversal is never reversed and an entry only once: 409.
func (s *Store) DeleteLedgerEntry(ctx context.Context, userID, accountID, entryID string, view func(tx pgx.Tx, reversalID string) error) error {
	if !db.ValidUUID(accountID) || !db.ValidUUID(entryID) {
		return apperr.ErrNotFound
	}
	return s.write(ctx, userID, func(w *writeTx) error {
		if err := w.lockAccount(ctx, accountID); err != nil {
			return notFound(err)
		}
		var (
			kind, note         string
			amount             decimal.Decimal
			at                 time.Time
			reversal, reversed bool
		)
		const find = `SELECT kind, amount, occurred_at, reverses_id IS NOT NULL,
				EXISTS (SELECT 1 FROM ledger_entries r WHERE r.reverses_id = e.id)
			FROM ledger_entries e WHERE id = $1 AND account_id = $2 FOR UPDATE`
		err := w.QueryRow(ctx, find, entryID, accountID).Scan(&kind, &amount, &at, &reversal, &reversed)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return apperr.ErrNotFound
		case err != nil:
			return db.Classify(err)
		case kind != "deposit" && kind != "withdrawal" && kind != "adjustment":
			return apperr.New(apperr.Conflict, "this entry belongs to a fill; it changes when the position's fills change")
		case reversal:
			return errReversal
		case reversed:
			return errReversed
		}
		note = "Reverses the " + kind + " of " + at.UTC().Format(time.DateOnly)
		var id string
		const ins = `INSERT INTO ledger_entries (account_id, kind, amount, occurred_at, note, reverses_id)
			VALUES ($1, $2, $3, $4, $5, $6) RETURNING id::text`
		if err := w.QueryRow(ctx, ins, accountID, kind, amount.Neg(), at, note, entryID).Scan(&id); err != nil {
			if db.IsUniqueViolation(err, "ledger_entries_reverses_id_key") {
				return errReversed
			}
			return classify(err)
		}
		w.move(accountID, amount.Neg())
		w.then(func(ctx context.Context) error { return view(w.Tx, id) })
		return nil
	})
}

// Reconcile brings the user's account's balance to target, the broker's,
// with one adjustment entry of the difference dated at, then runs view
// with its id (or "" when the balance was already target, and nothing was
// written) in the same transaction once the balance has moved. The
// account's row is locked while the difference is taken, so two
// reconciles, or a reconcile and a fill, cannot both count from one
// balance.
func (s *Store) Reconcile(ctx context.Context, userID, accountID string, target decimal.Decimal, at time.Time, note string, view func(tx pgx.Tx, entryID string) error) error {
	if !db.ValidUUID(accountID) {
		return apperr.ErrNotFound
	}
	return s.write(ctx, userID, func(w *writeTx) error {
		var balance decimal.Decimal
		err := w.QueryRow(ctx, `SELECT balance FROM accounts WHERE id = $1 AND user_id = $2 FOR UPDATE`, accountID, userID).Scan(&balance)
		if errors.Is(err, pgx.ErrNoRows) {
			return apperr.ErrNotFound
		}
		if err != nil {
			return db.Classify(err)
		}
		diff := target.Sub(balance)
		if diff.IsZero() {
			w.then(func(ctx context.Context) error { return view(w.Tx, "") })
			return nil
		}
		var id string
		const ins = `INSERT INTO ledger_entries (account_id, kind, amount, occurred_at, note)
			VALUES ($1, 'adjustment', $2, $3, $4) RETURNING id::text`
		if err := w.QueryRow(ctx, ins, accountID, diff, at, note).Scan(&id); err != nil {
			return classify(err)
		}
		w.move(accountID, diff)
		w.then(func(ctx context.Context) error { return view(w.Tx, id) })
		return nil
	})
}

// lockAccount queues a key-share lock on the user's account into b, so a
// concurrent account delete waits and then counts what this writes; an
// account that is not theirs is errNotYourAccount, at once for a
// malformed id, else when b is sent (which rolls the write back).
func lockAccount(b *pgx.Batch, userID, accountID string) error {
	if !db.ValidUUID(accountID) {
		return errNotYourAccount
	}
	const sql = `SELECT true FROM accounts WHERE id = $1 AND user_id = $2 FOR KEY SHARE`
	b.Queue(sql, accountID, userID).QueryRow(func(row pgx.Row) error {
		var ok bool
		err := row.Scan(&ok)
		if errors.Is(err, pgx.ErrNoRows) {
			return errNotYourAccount
		}
		return err
	})
	return nil
}

// lockAccount locks the user's account now (the package's lockAccount).
func (w *writeTx) lockAccount(ctx context.Context, accountID string) error {
	b := &pgx.Batch{}
	if err := lockAccount(b, w.userID, accountID); err != nil {
		return err
	}
	return w.send(ctx, b)
}

var errNotYourAccount = apperr.Invalid("accountId", "must be one of your accounts")

// notFound answers a route addressed by its account: another user's
// account is the codeless 404 there.
func notFound(err error) error {
	if err == errNotYourAccount {
		return apperr.ErrNotFound
	}
	return err
}
