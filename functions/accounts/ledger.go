package accounts

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/httpx"
	"tradejournal/shared/journal"
	"tradejournal/shared/journalstore"
	"tradejournal/shared/listquery"
	"tradejournal/shared/money"
)

// LedgerEntry is one change to an account's balance: a deposit or a
// withdrawal typed in by the user, an adjustment a reconcile recorded, or
// the realised P&L (realized_pnl) or fee of a fill, written with the fill.
// Amounts are signed 4-place strings (withdrawals and fees negative). The
// account's balance is its starting balance plus the sum of its entries.
// A deleted entry stays: ReversedBy names the entry that reverses it,
// whose ReversesID names it back.
type LedgerEntry struct {
	ID         string    `json:"id"`
	Kind       string    `json:"kind"`
	Amount     string    `json:"amount"`
	PositionID *string   `json:"positionId"`
	FillID     *string   `json:"fillId"`
	OccurredAt time.Time `json:"occurredAt"`
	Note       string    `json:"note"`
	ReversesID *string   `json:"reversesId"`
	ReversedBy *string   `json:"reversedBy"`
	CreatedAt  time.Time `json:"createdAt"`
}

// ledgerColumns are read FROM ledger_entries unaliased.
const ledgerColumns = `id::text, kind, amount, position_id::text, fill_id::text, occurred_at, note, reverses_id::text,
	(SELECT r.id::text FROM ledger_entries r WHERE r.reverses_id = ledger_entries.id) AS reversed_by, created_at`

func scanLedger(row pgx.Row) (LedgerEntry, error) {
	var (
		e      LedgerEntry
		amount decimal.Decimal
	)
	err := row.Scan(&e.ID, &e.Kind, &amount, &e.PositionID, &e.FillID, &e.OccurredAt, &e.Note, &e.ReversesID, &e.ReversedBy, &e.CreatedAt)
	e.Amount = money.RoundN(amount, 4)
	return e, err
}

// listLedger pages through an account's ledger, newest first, by keyset on
// (occurred_at, id) descending (the index ledger_entries_account_amount_idx).
func (h handler) listLedger(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	var p journal.Problems
	limit, err := listquery.ParseLimit(q.Get("limit"))
	if err != nil {
		p.Add("limit", "must be a whole number")
	}
	cursor, err := listquery.ParseCursor(q.Get("cursor"))
	if err != nil || cursor != nil && cursor.At == nil {
		p.Add("cursor", "is not a cursor from this list; omit it for the first page")
	}
	kind := q.Get("kind")
	switch kind {
	case "", "deposit", "withdrawal", "adjustment", "realized_pnl", "fee":
	default:
		p.Add("kind", "must be deposit, withdrawal, adjustment, realized_pnl or fee")
	}
	userID, accountID := auth.CurrentUser(ctx).ID, r.PathValue("accountId")
	if _, err := accountByID(ctx, h.app.DB, userID, accountID, false); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if err := p.Err(); err != nil {
		httpx.Error(w, r, err)
		return
	}

	args := []any{accountID}
	sql := `SELECT ` + ledgerColumns + ` FROM ledger_entries WHERE account_id = $1`
	if kind != "" {
		args = append(args, kind)
		sql += ` AND kind = $` + strconv.Itoa(len(args))
	}
	if cursor != nil {
		args = append(args, *cursor.At, cursor.ID)
		sql += ` AND (occurred_at, id) < ($` + strconv.Itoa(len(args)-1) + `, $` + strconv.Itoa(len(args)) + `::uuid)`
	}
	args = append(args, limit+1)
	sql += ` ORDER BY occurred_at DESC, id DESC LIMIT $` + strconv.Itoa(len(args))

	rows, err := h.app.DB.Query(ctx, sql, args...)
	if err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	items, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (LedgerEntry, error) { return scanLedger(row) })
	if err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	page := list[LedgerEntry]{Items: items}
	if len(items) > limit {
		page.Items = items[:limit]
		last := page.Items[limit-1]
		next := listquery.Cursor{At: &last.OccurredAt, ID: last.ID}.Encode()
		page.NextCursor = &next
	}
	httpx.JSON(w, http.StatusOK, page)
}

// ledgerRequest is the body of POST /api/accounts/{accountId}/ledger.
type ledgerRequest struct {
	Kind       *string       `json:"kind"`
	Amount     journal.Field `json:"amount,omitzero"`
	OccurredAt *string       `json:"occurredAt"`
	Note       *string       `json:"note"`
}

// ledgerEnvelope answers a ledger write: the entry it wrote (null when a
// reconcile found nothing to adjust) and the account, balance moved.
type ledgerEnvelope struct {
	Entry   *LedgerEntry `json:"entry"`
	Account Account      `json:"account"`
}

// addLedgerEntry records a deposit or a withdrawal (amount positive either
// way; a withdrawal is stored negative) and moves the balance in the same
// transaction. The answer carries the updated account.
func (h handler) addLedgerEntry(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	userID, accountID := auth.CurrentUser(ctx).ID, r.PathValue("accountId")
	if !db.ValidUUID(accountID) {
		httpx.NotFound(w, r)
		return
	}
	var in ledgerRequest
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	var p journal.Problems
	switch {
	case in.Kind == nil:
		p.Add("kind", "is required")
	case *in.Kind != "deposit" && *in.Kind != "withdrawal":
		p.Add("kind", "must be deposit or withdrawal (realised P&L and fees come from fills)")
	}
	amount, _ := p.RequiredDecimal("amount", in.Amount, journal.AmountRule)
	now := h.app.Now()
	at := now.Truncate(time.Microsecond)
	if in.OccurredAt != nil {
		t, err := journal.ParseTime("occurredAt", *in.OccurredAt, now)
		p.Merge(err)
		at = t
	}
	note := ""
	if in.Note != nil {
		p.Merge(journal.Text("note", *in.Note, journal.MaxNoteChars))
		note = *in.Note
	}
	if err := p.Err(); err != nil {
		httpx.Error(w, r, err)
		return
	}
	var out ledgerEnvelope
	entry := journalstore.LedgerEntry{Kind: *in.Kind, Amount: amount, At: at, Note: note}
	err := h.journal.AddLedgerEntry(ctx, userID, accountID, entry, func(tx pgx.Tx, entryID string) error {
		return h.ledgerView(ctx, tx, userID, accountID, entryID, &out)
	})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusCreated, out)
}

// deleteLedgerEntry deletes a deposit, withdrawal or adjustment by
// writing its reversing entry (journalstore.DeleteLedgerEntry): the answer
// is that entry and the account with its balance moved back.
func (h handler) deleteLedgerEntry(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	userID, accountID, entryID := auth.CurrentUser(ctx).ID, r.PathValue("accountId"), r.PathValue("entryId")
	if !db.ValidUUID(accountID) || !db.ValidUUID(entryID) {
		httpx.NotFound(w, r)
		return
	}
	var out ledgerEnvelope
	err := h.journal.DeleteLedgerEntry(ctx, userID, accountID, entryID, func(tx pgx.Tx, reversalID string) error {
		return h.ledgerView(ctx, tx, userID, accountID, reversalID, &out)
	})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, out)
}

// ledgerView reads what a ledger write answers with, inside its
// transaction: the entry (none for "") and the account.
func (h handler) ledgerView(ctx context.Context, tx pgx.Tx, userID, accountID, entryID string, out *ledgerEnvelope) error {
	if entryID != "" {
		e, err := scanLedger(tx.QueryRow(ctx, `SELECT `+ledgerColumns+` FROM ledger_entries WHERE id = $1`, entryID))
		if err != nil {
			return db.Classify(err)
		}
		out.Entry = &e
	}
	var err error
	out.Account, err = accountByID(ctx, tx, userID, accountID, false)
	return err
}

// reconcileRequest is the body of POST /api/accounts/{accountId}/ledger/reconcile.
type reconcileRequest struct {
	Balance    journal.Field `json:"balance,omitzero"`
	OccurredAt *string       `json:"occurredAt"`
	Note       *string       `json:"note"`
}

// reconcileLedger sets the account's balance to the broker's: an
// adjustment entry records the difference (201), or nothing is written
// when the balances already agree (200, entry null).
func (h handler) reconcileLedger(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	userID, accountID := auth.CurrentUser(ctx).ID, r.PathValue("accountId")
	if !db.ValidUUID(accountID) {
		httpx.NotFound(w, r)
		return
	}
	var in reconcileRequest
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	var p journal.Problems
	target, _ := p.RequiredDecimal("balance", in.Balance, journal.BalanceRule)
	now := h.app.Now()
	at := now.Truncate(time.Microsecond)
	if in.OccurredAt != nil {
		t, err := journal.ParseTime("occurredAt", *in.OccurredAt, now)
		p.Merge(err)
		at = t
	}
	note := "Reconciled to the broker's balance of " + target.String()
	if in.Note != nil {
		p.Merge(journal.Text("note", *in.Note, journal.MaxNoteChars))
		note = *in.Note
	}
	if err := p.Err(); err != nil {
		httpx.Error(w, r, err)
		return
	}
	var out ledgerEnvelope
	err := h.journal.Reconcile(ctx, userID, accountID, target, at, note, func(tx pgx.Tx, entryID string) error {
		return h.ledgerView(ctx, tx, userID, accountID, entryID, &out)
	})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	status := http.StatusCreated
	if out.Entry == nil {
		status = http.StatusOK
	}
	httpx.JSON(w, status, out)
}
