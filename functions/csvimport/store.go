package csvimport

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/config"
	"tradejournal/shared/csvimport"
	"tradejournal/shared/db"
	"tradejournal/shared/journal"
)

// account is what an import needs to know about the account it writes to.
type account struct {
	ID       string
	Currency string
	Timezone string
}

var errNotYourAccount = apperr.Invalid("accountId", "must be one of your accounts")

// loadAccount reads the user's account; another user's, a missing and a
// malformed id are all errNotYourAccount.
func loadAccount(ctx context.Context, q db.Querier, userID, accountID string) (account, error) {
	if !journal.ValidUUID(accountID) {
		return account{}, errNotYourAccount
	}
	const sql = `SELECT id::text, currency, timezone FROM accounts WHERE id = $1 AND user_id = $2`
	var a account
	err := q.QueryRow(ctx, sql, accountID, userID).Scan(&a.ID, &a.Currency, &a.Timezone)
	if errors.Is(err, pgx.ErrNoRows) {
		return account{}, errNotYourAccount
	}
	a.Currency = strings.TrimSpace(a.Currency)
	return a, db.Classify(err)
}

// lockAccount is loadAccount inside the commit: a key-share lock, so a
// concurrent account delete waits for the import (and then takes its
// positions with it), as the positions routes do.
func lockAccount(ctx context.Context, tx pgx.Tx, userID, accountID string) error {
	var ok bool
	const sql = `SELECT true FROM accounts WHERE id = $1 AND user_id = $2 FOR KEY SHARE`
	err := tx.QueryRow(ctx, sql, accountID, userID).Scan(&ok)
	if errors.Is(err, pgx.ErrNoRows) {
		return apperr.ErrNotFound
	}
	return db.Classify(err)
}

// readJournal reads what the account holds that the fills meet: its open
// positions in the file's symbols (with their fills), and the keys of its
// fills in the file's time range.
func readJournal(ctx context.Context, q db.Querier, userID, accountID string, fills []csvimport.Fill) (csvimport.Journal, error) {
	j := csvimport.Journal{Has: map[csvimport.Key]bool{}}
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
			j.Seeds = append(j.Seeds, csvimport.Seed{PositionID: id, Symbol: symbol, AssetType: asset, Side: side, Multiplier: mult, StopLoss: stop})
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
		k  csvimport.Key
		at time.Time
	)
	_, err = pgx.ForEachRow(rows, []any{&k.Symbol, &k.AssetType, &k.Side, &at, &k.Price, &k.Quantity}, func() error {
		k.At = at.UnixMicro()
		j.Has[k] = true
		return nil
	})
	return j, db.Classify(err)
}

// newToken makes a preview token (32 random bytes, base64url) and its hash.
func newToken() (string, []byte, error) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", nil, err
	}
	token := base64.RawURLEncoding.EncodeToString(raw[:])
	return token, hashToken(token), nil
}

func hashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// MaxStagedPerUser bounds the previews one user keeps staged at once: a
// new one beyond it replaces the oldest.
const MaxStagedPerUser = 5

// stage stores a preview's payload and drops the user's oldest staged
// previews beyond MaxStagedPerUser.
func stage(ctx context.Context, pool db.Beginner, hash []byte, userID, accountID string, payload []byte, now time.Time) error {
	return journal.InTx(ctx, pool, func(tx pgx.Tx) error {
		const ins = `INSERT INTO csv_import_staging (token_hash, user_id, account_id, created_at, payload, payload_bytes)
			VALUES ($1, $2, $3, $4, $5, $6)`
		if _, err := tx.Exec(ctx, ins, hash, userID, accountID, now, payload, len(payload)); err != nil {
			return db.Classify(err)
		}
		const trim = `DELETE FROM csv_import_staging WHERE token_hash IN (
			SELECT token_hash FROM csv_import_staging WHERE user_id = $1 AND state = 'staged'
			ORDER BY created_at DESC, token_hash OFFSET $2)`
		_, err := tx.Exec(ctx, trim, userID, MaxStagedPerUser)
		return db.Classify(err)
	})
}

// The answers of a commit whose preview cannot be claimed.
var (
	errGone = &apperr.Error{Code: apperr.NotFound, Message: "this preview does not exist: it was committed already, or it expired " +
		"and was cleaned up; upload the file again"}
	errExpired = &apperr.Error{Code: apperr.NotFound, Message: "this preview has expired (previews last CSV_IMPORT_STAGING_TTL_MINUTES); " +
		"upload the file again"}
	errClaimed = apperr.New(apperr.Conflict, "this preview is being committed already (a second commit of the same preview); "+
		"nothing more was written")
)

// claim moves the user's staged preview to committing and returns its
// account and payload. Only one of two racing commits wins: the UPDATE's
// row lock serialises them, and the loser finds the state changed. An
// expired preview is deleted and answered as such.
func claim(ctx context.Context, q db.Querier, hash []byte, userID string, cfg config.CSVImport, now time.Time) (string, []byte, error) {
	const sql = `UPDATE csv_import_staging SET state = 'committing', claimed_at = $3
		WHERE token_hash = $1 AND user_id = $2 AND state = 'staged' AND created_at >= $4
		RETURNING account_id::text, payload`
	var (
		accountID string
		payload   []byte
	)
	err := q.QueryRow(ctx, sql, hash, userID, now, now.Add(-cfg.StagingTTL)).Scan(&accountID, &payload)
	if err == nil {
		return accountID, payload, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return "", nil, db.Classify(err)
	}
	var state string
	err = q.QueryRow(ctx, `SELECT state FROM csv_import_staging WHERE token_hash = $1 AND user_id = $2`, hash, userID).Scan(&state)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return "", nil, errGone
	case err != nil:
		return "", nil, db.Classify(err)
	case state == "committing":
		return "", nil, errClaimed
	}
	// Staged but past its lifetime: expired rows are deleted on sight.
	const del = `DELETE FROM csv_import_staging WHERE token_hash = $1 AND state = 'staged' AND created_at < $2`
	if _, err := q.Exec(ctx, del, hash, now.Add(-cfg.StagingTTL)); err != nil {
		return "", nil, db.Classify(err)
	}
	return "", nil, errExpired
}

// release hands a claimed preview back (state staged) after a commit that
// wrote nothing, so the user may try again while it lives.
func release(ctx context.Context, q db.Querier, hash []byte) error {
	const sql = `UPDATE csv_import_staging SET state = 'staged', claimed_at = NULL WHERE token_hash = $1 AND state = 'committing'`
	_, err := q.Exec(ctx, sql, hash)
	return db.Classify(err)
}

// newID makes the id of a row the import writes, so that rows can name
// each other (a fill its position) within the same COPY batch.
func newID() (pgtype.UUID, string) {
	u := db.NewUUID()
	return u, u.String()
}

// written is what a commit wrote.
type written struct {
	Created   []string // new positions
	Continued []string // open positions that took fills
	Fills     int
}

// write puts the plan into the journal inside tx. New positions are
// written whole, figures included, with their fills and ledger rows (three
// COPY statements); the figures are journal.Compute's over the fills in the
// order journal.Recompute reads them, so a later Recompute finds nothing to
// change. Continued positions take their fills and are brought in line by
// journal.Recompute. The account's balance moves by what was added.
func write(ctx context.Context, tx pgx.Tx, userID, accountID string, fills []csvimport.Fill, plan *csvimport.Plan) (written, error) {
	w, added, err := copyPlan(ctx, tx, userID, accountID, fills, plan)
	if err != nil {
		return w, err
	}
	if err := journal.Recompute(ctx, tx, w.Continued...); err != nil {
		return w, err
	}
	return w, journal.AdjustBalances(ctx, tx, map[string]decimal.Decimal{accountID: added})
}

// copyPlan is write's COPY part: the new positions with their figures,
// every fill, and the new positions' ledger rows. It returns what those
// ledger rows add to the account's balance.
func copyPlan(ctx context.Context, tx pgx.Tx, userID, accountID string, fills []csvimport.Fill, plan *csvimport.Plan) (written, decimal.Decimal, error) {
	var (
		w      written
		ledger journal.Ledger
		added  decimal.Decimal
	)
	posRows := make([][]any, 0, len(plan.Positions))
	fillRows := make([][]any, 0, plan.Summary.ImportFills)
	for k := range plan.Positions {
		p := &plan.Positions[k]
		if p.ExistingID != "" {
			var pid pgtype.UUID
			if err := pid.Scan(p.ExistingID); err != nil {
				return w, added, err
			}
			w.Continued = append(w.Continued, p.ExistingID)
			for n, i := range p.Fills {
				f := &fills[i]
				fid, _ := newID()
				fillRows = append(fillRows, []any{fid, pid, p.Types[n], f.Price, f.Quantity, f.Fees, f.FeeEstimated, f.FilledAt})
			}
			continue
		}
		pid, id := newID()
		w.Created = append(w.Created, id)
		trade := journal.Trade{Side: p.Side, Multiplier: p.Multiplier, Fills: make([]journal.Fill, len(p.Fills))}
		for n, i := range p.Fills {
			f := &fills[i]
			fid, fidText := newID()
			trade.Fills[n] = journal.Fill{ID: fidText, Type: p.Types[n], Price: f.Price, Quantity: f.Quantity, Fees: f.Fees, FilledAt: f.FilledAt}
			fillRows = append(fillRows, []any{fid, pid, p.Types[n], f.Price, f.Quantity, f.Fees, f.FeeEstimated, f.FilledAt})
		}
		// Recompute's order: by time, then by id (uuid order is byte order,
		// which the lowercase hex text keeps).
		slices.SortFunc(trade.Fills, func(a, b journal.Fill) int {
			if c := a.FilledAt.Compare(b.FilledAt); c != 0 {
				return c
			}
			return strings.Compare(a.ID, b.ID)
		})
		fig, err := journal.Compute(trade)
		if err != nil {
			return w, added, err // Build computed these very fills
		}
		added = added.Add(ledger.AddPosition(accountID, id, trade, fig))

		// Parse only makes canonical symbols: this reads their parts back.
		inst, _, msg := journal.ParseInstrument(p.AssetType, p.Symbol, *fig.OpenedAt)
		if msg != "" {
			return w, added, fmt.Errorf("csvimport: staged symbol %q: %s", p.Symbol, msg)
		}
		c := inst.Columns()
		posRows = append(posRows, []any{pid, userID, accountID, p.Symbol, p.AssetType, c.Underlying, c.Expiry, c.Right, c.Strike,
			c.ContractMonth, p.Multiplier, p.Side, fig.Status, fig.OpenedAt, fig.ClosedAt, fig.EntryQuantity, fig.ExitQuantity,
			fig.OpenQuantity, fig.AvgEntryPrice, fig.AvgExitPrice, fig.GrossPnL, fig.Fees, fig.NetPnL})
	}
	w.Fills = len(fillRows)
	if len(posRows) > 0 {
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"positions"},
			[]string{"id", "user_id", "account_id", "symbol", "asset_type", "underlying", "option_expiry", "option_right",
				"option_strike", "contract_month", "multiplier", "side", "status", "opened_at", "closed_at", "entry_quantity", "exit_quantity",
				"open_quantity", "avg_entry_price", "avg_exit_price", "gross_pnl", "fees", "net_pnl"}, pgx.CopyFromRows(posRows))
		if err != nil {
			return w, added, journal.Classify(err)
		}
	}
	if len(fillRows) > 0 {
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"fills"},
			[]string{"id", "position_id", "type", "price", "quantity", "fees", "fee_estimated", "filled_at"}, pgx.CopyFromRows(fillRows))
		if err != nil {
			return w, added, journal.Classify(err)
		}
	}
	return w, added, ledger.Copy(ctx, tx)
}
