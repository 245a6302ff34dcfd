// Package wallet keeps each user's credits: the balance, the append-only
// ledger of every change to it, and the reservations that hold credits
// before a streamed turn and settle into usage after it.
//
// A credit is one micro-USD of provider cost as charged (raw cost times
// PRICING_MARKUP); balances are whole credits, never negative. Available
// credits are the balance minus what active reservations hold.
//
// The lifecycle of a reservation (the spec leaves it open):
//
//	Reserve ──> active ──Settle──> settled   (charged, usage recorded, rest freed)
//	             │  ▲  ──Release─> released  (nothing charged)
//	             └──┘  ──expiry──> expired   (SweepExpired, or a late Settle)
//	            Extend (the hold grows for a further round of the same turn)
//
// A closed reservation stays closed: settling or releasing it again is
// refused with ErrClosed, settling it after its expiry with ErrExpired, and
// neither charges anything.
//
// Locks are always taken in the same order, reservation row before wallet
// row, so concurrent Settle, Release and SweepExpired calls cannot deadlock.
package wallet

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/config"
	"tradejournal/shared/db"
)

// Pool is what the wallet needs of the database: a pgxpool.Pool.
type Pool interface {
	db.Querier
	db.Beginner
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// Kinds of ledger entry.
const (
	KindPurchase   = "purchase"
	KindUsage      = "usage"
	KindAdjustment = "adjustment"
)

// Defaults for a zero config.Billing (config.Load always fills them).
const (
	DefaultReservationTTL = 600000 * time.Millisecond
	defaultMarkup         = "1.2"
)

// The refusals of Settle and Release. They are client errors (409), so a
// handler may pass them to httpx.Error as they are; compare with errors.Is.
var (
	ErrClosed  = apperr.New(apperr.Conflict, "the credit reservation is already settled or released")
	ErrExpired = apperr.New(apperr.Conflict, "the credit reservation expired before it was settled")
)

// Service is the wallet: the pre-stream gate (Reserve) and the settlement
// of what a turn cost.
type Service struct {
	pool   Pool
	now    func() time.Time
	min    int64
	ttl    time.Duration
	markup decimal.Decimal
	// sells reports whether credits can be bought here; it picks the code
	// of a refusal.
	sells bool
}

// New returns the wallet service for the billing configuration: the gate's
// minimum (MIN_RESERVATION_CREDITS), the hold time (RESERVATION_TTL_MS) and
// the markup (PRICING_MARKUP). A zero TTL or markup takes the default.
func New(pool Pool, now func() time.Time, cfg config.Billing) *Service {
	s := &Service{pool: pool, now: now, min: max(cfg.MinReservationCredits, 0), ttl: cfg.ReservationTTL,
		markup: cfg.PricingMarkup, sells: cfg.Configured()}
	if s.ttl <= 0 {
		s.ttl = DefaultReservationTTL
	}
	if !s.markup.IsPositive() {
		s.markup = decimal.RequireFromString(defaultMarkup)
	}
	return s
}

// Balance is a wallet's state. Available is what a new reservation may hold.
type Balance struct {
	Balance   int64 `json:"balance"`
	Reserved  int64 `json:"reserved"`
	Available int64 `json:"available"`
}

// Get returns the user's balance; a user who never held credits has zeros.
func Get(ctx context.Context, q db.Querier, userID string) (Balance, error) {
	var b Balance
	err := q.QueryRow(ctx, `SELECT balance, reserved FROM wallets WHERE user_id = $1`, userID).Scan(&b.Balance, &b.Reserved)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return Balance{}, db.Classify(err)
	}
	b.Available = b.Balance - b.Reserved
	return b, nil
}

// Reservation is a hold on credits.
type Reservation struct {
	ID     string
	UserID string
	// Amount is what the reservation holds: the estimate, or what was
	// available if that was less (but at least the gate's minimum).
	Amount    int64
	ExpiresAt time.Time
}

func (s *Service) refusal() error {
	if s.RefusalCode() == apperr.InsufficientCredits {
		return apperr.New(apperr.InsufficientCredits, "not enough credits: buy a credit pack to continue")
	}
	return apperr.New(apperr.BillingNotAvailable, "not enough credits, and credits cannot be bought on this instance")
}

// RefusalCode is the code a refusal for want of credits carries here:
// InsufficientCredits where credits can be bought, else
// BillingNotAvailable (a replayed refusal names it as the first one did).
func (s *Service) RefusalCode() apperr.Code {
	if s.sells {
		return apperr.InsufficientCredits
	}
	return apperr.BillingNotAvailable
}

// Settlement is the outcome of Settle.
type Settlement struct {
	// Priced is ceil(raw cost x markup), what the turn cost.
	Priced int64
	// Charged is what was taken from the balance: Priced, or what was
	// available to this reservation (its hold plus the free balance) if that
	// was less.
	Charged int64
	// Released is the part of the hold that was not charged.
	Released int64
	// Balance is the wallet balance afterwards.
	Balance int64
}

// Price is what a raw provider cost (in credits, that is micro-USD) costs
// the user: raw x markup, rounded up to a whole credit.
func Price(raw, markup decimal.Decimal) (int64, error) {
	if raw.IsNegative() {
		return 0, fmt.Errorf("wallet: raw provider cost must not be negative, got %s", raw)
	}
	p := raw.Mul(markup).Ceil()
	if p.GreaterThan(decimal.NewFromInt(math.MaxInt64)) {
		return math.MaxInt64, nil
	}
	return p.IntPart(), nil
}

// Price is what a raw provider cost costs the user at this service's
// markup (the package's Price).
func (s *Service) Price(raw decimal.Decimal) (int64, error) { return Price(raw, s.markup) }

// Extend grows an active reservation's hold to amount (a hold already that
// large is left as it is) when the wallet's free credits cover the
// difference, and otherwise refuses as the gate does (402
// INSUFFICIENT_CREDITS or BILLING_NOT_AVAILABLE) and leaves the hold as it
// was. A turn that runs several provider calls holds what the next one may
// cost before making it, so its settlement never finds the credits gone.
// A reservation already closed is ErrClosed, an expired one ErrExpired
// (and released), an unknown id apperr.ErrNotFound.
func (s *Service) Extend(ctx context.Context, reservationID string, amount int64) (Reservation, error) {
	if !db.ValidUUID(reservationID) {
		return Reservation{}, apperr.ErrNotFound
	}
	now := s.now()
	var (
		out     Reservation
		refused error
	)
	err := db.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		r, err := lockActive(ctx, tx, reservationID)
		if err != nil {
			return err
		}
		if !now.Before(r.ExpiresAt) {
			refused = ErrExpired
			return closeHold(ctx, tx, r, "expired", now)
		}
		out = r
		if amount <= r.Amount {
			return nil
		}
		tag, err := tx.Exec(ctx, `UPDATE wallets SET reserved = reserved + $2, updated_at = $3
			WHERE user_id = $1 AND balance - reserved >= $2`, r.UserID, amount-r.Amount, now)
		if err != nil {
			return db.Classify(err)
		}
		if tag.RowsAffected() == 0 {
			refused = s.refusal()
			return nil
		}
		out.Amount = amount
		_, err = tx.Exec(ctx, `UPDATE credit_reservations SET amount = $2 WHERE id = $1`, r.ID, amount)
		return db.Classify(err)
	})
	if err != nil {
		return Reservation{}, err
	}
	if refused != nil {
		return Reservation{}, refused
	}
	return out, nil
}

// Settle charges what a turn cost against its reservation: the raw
// provider cost times the markup, rounded up, never more than is available
// to the reservation. It records the usage and the ledger entry, and frees
// the hold, in one transaction. A reservation already settled or released
// is refused with ErrClosed, an expired one with ErrExpired (and released);
// an unknown id is apperr.ErrNotFound. None of them charges anything.
func (s *Service) Settle(ctx context.Context, reservationID string, rawProviderCost decimal.Decimal) (Settlement, error) {
	priced, err := Price(rawProviderCost, s.markup)
	if err != nil {
		return Settlement{}, err
	}
	if !db.ValidUUID(reservationID) {
		return Settlement{}, apperr.ErrNotFound
	}
	now := s.now()
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return Settlement{}, db.Classify(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op after Commit

	r, err := lockActive(ctx, tx, reservationID)
	if err != nil {
		return Settlement{}, err
	}
	if !now.Before(r.ExpiresAt) {
		if err := closeHold(ctx, tx, r, "expired", now); err != nil {
			return Settlement{}, err
		}
		if err := tx.Commit(ctx); err != nil {
			return Settlement{}, db.Classify(err)
		}
		return Settlement{}, ErrExpired
	}

	var balance, reserved int64
	if err := tx.QueryRow(ctx, `SELECT balance, reserved FROM wallets WHERE user_id = $1 FOR UPDATE`, r.UserID).Scan(&balance, &reserved); err != nil {
		return Settlement{}, db.Classify(err)
	}
	// What this reservation may spend: its own hold and the free balance.
	out := Settlement{Priced: priced, Charged: min(priced, balance-reserved+r.Amount)}
	out.Released = max(r.Amount-out.Charged, 0)
	out.Balance = balance - out.Charged

	b := &pgx.Batch{}
	b.Queue(`UPDATE wallets SET balance = balance - $2, reserved = reserved - $3, updated_at = $4 WHERE user_id = $1`,
		r.UserID, out.Charged, r.Amount, now)
	b.Queue(`UPDATE credit_reservations SET status = 'settled', closed_at = $2 WHERE id = $1`, r.ID, now)
	b.Queue(`INSERT INTO credit_usage (user_id, reservation_id, raw_cost, markup, priced, charged, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, r.UserID, r.ID, rawProviderCost, s.markup, priced, out.Charged, now)
	if out.Charged > 0 {
		b.Queue(`INSERT INTO wallet_transactions (user_id, kind, amount, balance_after, reference, created_at)
			VALUES ($1, 'usage', $2, $3, $4, $5)`, r.UserID, -out.Charged, out.Balance, r.ID, now)
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return Settlement{}, db.Classify(err)
	}
	if err := tx.Commit(ctx); err != nil {
		return Settlement{}, db.Classify(err)
	}
	return out, nil
}

// Release frees a reservation without charging anything: the turn did not
// happen, or failed before it cost anything. A reservation already settled,
// released or swept is refused with ErrClosed; an unknown id is
// apperr.ErrNotFound.
func (s *Service) Release(ctx context.Context, reservationID string) error {
	if !db.ValidUUID(reservationID) {
		return apperr.ErrNotFound
	}
	// One statement: the reservation row is locked (by its UPDATE) before
	// the wallet row, the order every path keeps.
	const q = `WITH r AS (
			UPDATE credit_reservations SET status = 'released', closed_at = $2
			WHERE id = $1 AND status = 'active'
			RETURNING user_id, amount
		)
		UPDATE wallets w SET reserved = w.reserved - r.amount, updated_at = $2
		FROM r WHERE w.user_id = r.user_id`
	tag, err := s.pool.Exec(ctx, q, reservationID, s.now())
	if err != nil {
		return db.Classify(err)
	}
	if tag.RowsAffected() == 1 {
		return nil
	}
	var exists bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM credit_reservations WHERE id = $1)`, reservationID).Scan(&exists); err != nil {
		return db.Classify(err)
	}
	if !exists {
		return apperr.ErrNotFound
	}
	return ErrClosed
}

// lockActive locks a reservation row and returns it if it is still active.
func lockActive(ctx context.Context, tx pgx.Tx, id string) (Reservation, error) {
	r := Reservation{ID: id}
	var status string
	err := tx.QueryRow(ctx, `SELECT user_id::text, amount, status, expires_at FROM credit_reservations WHERE id = $1 FOR UPDATE`, id).
		Scan(&r.UserID, &r.Amount, &status, &r.ExpiresAt)
	if err != nil {
		return Reservation{}, db.Classify(err)
	}
	if status != "active" {
		return Reservation{}, ErrClosed
	}
	return r, nil
}

// closeHold closes a locked active reservation without a charge and frees
// its hold.
func closeHold(ctx context.Context, tx pgx.Tx, r Reservation, status string, now time.Time) error {
	b := &pgx.Batch{}
	b.Queue(`UPDATE credit_reservations SET status = $2, closed_at = $3 WHERE id = $1`, r.ID, status, now)
	b.Queue(`UPDATE wallets SET reserved = reserved - $2, updated_at = $3 WHERE user_id = $1`, r.UserID, r.Amount, now)
	return db.Classify(tx.SendBatch(ctx, b).Close())
}

// sweepBatch bounds the reservations one sweep transaction closes.
const sweepBatch = 500

// SweepExpired releases every active reservation whose hold ran out by
// now, and returns how many it closed. It is safe to run from several
// processes at once: each batch skips rows another sweeper (or a Settle)
// holds, and locks the wallets it changes in user order.
func SweepExpired(ctx context.Context, pool Pool, now time.Time) (int, error) {
	total := 0
	for {
		n, err := sweepOnce(ctx, pool, now)
		total += n
		if err != nil || n < sweepBatch {
			return total, err
		}
	}
}

func sweepOnce(ctx context.Context, pool Pool, now time.Time) (int, error) {
	swept := 0
	err := db.InTx(ctx, pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT id::text, user_id::text, amount FROM credit_reservations
		WHERE status = 'active' AND expires_at <= $1
		ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED`, now, sweepBatch)
		if err != nil {
			return db.Classify(err)
		}
		var ids []string
		held := map[string]int64{}
		var r Reservation
		_, err = pgx.ForEachRow(rows, []any{&r.ID, &r.UserID, &r.Amount}, func() error {
			ids = append(ids, r.ID)
			held[r.UserID] += r.Amount
			return nil
		})
		if err != nil || len(ids) == 0 {
			return db.Classify(err)
		}
		users := make([]string, 0, len(held))
		amounts := make([]int64, 0, len(held))
		for u, a := range held {
			users = append(users, u)
			amounts = append(amounts, a)
		}
		b := &pgx.Batch{}
		b.Queue(`SELECT 1 FROM wallets WHERE user_id = ANY($1::uuid[]) ORDER BY user_id FOR UPDATE`, users)
		b.Queue(`UPDATE credit_reservations SET status = 'expired', closed_at = $2 WHERE id = ANY($1::uuid[])`, ids, now)
		b.Queue(`UPDATE wallets w SET reserved = w.reserved - v.amount, updated_at = $3
		FROM unnest($1::uuid[], $2::bigint[]) AS v (user_id, amount) WHERE w.user_id = v.user_id`, users, amounts, now)
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return db.Classify(err)
		}
		swept = len(ids)
		return nil
	})
	return swept, err
}

// CreditPurchase adds a pack's credits to the user's wallet and writes the
// ledger entry, inside the caller's transaction (the webhook's, which also
// records the event). It returns the balance afterwards.
func CreditPurchase(ctx context.Context, q db.Querier, userID string, credits int64, packID, reference string, at time.Time) (int64, error) {
	if credits <= 0 {
		return 0, fmt.Errorf("wallet: credit must be positive, got %d", credits)
	}
	const sql = `WITH credited AS (
			INSERT INTO wallets AS w (user_id, balance, updated_at) VALUES ($1, $2, $3)
			ON CONFLICT (user_id) DO UPDATE SET balance = w.balance + EXCLUDED.balance, updated_at = EXCLUDED.updated_at
			RETURNING balance
		)
		INSERT INTO wallet_transactions (user_id, kind, amount, balance_after, pack_id, reference, created_at)
		SELECT $1, 'purchase', $2, balance, $4, $5, $3 FROM credited
		RETURNING balance_after`
	var balance int64
	if err := q.QueryRow(ctx, sql, userID, credits, at, packID, reference).Scan(&balance); err != nil {
		return 0, db.Classify(err)
	}
	return balance, nil
}

// Transaction is one ledger entry as the wallet history shows it.
type Transaction struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	// Amount is signed: purchases add, usage subtracts.
	Amount       int64     `json:"amount"`
	BalanceAfter int64     `json:"balanceAfter"`
	PackID       *string   `json:"packId"`
	CreatedAt    time.Time `json:"createdAt"`
}

// Page is one page of a wallet's history, newest first.
type Page struct {
	Items      []Transaction `json:"items"`
	NextCursor *string       `json:"nextCursor"`
}

// History returns one page of the user's ledger, newest first, by keyset on
// the entry id, so a deep page costs what the first does. cursor is the
// NextCursor of the previous page; an absent or invalid one means the first
// page.
func History(ctx context.Context, q db.Querier, userID, cursor string, limit int) (Page, error) {
	const cols = `SELECT id, kind, amount, balance_after, pack_id, created_at FROM wallet_transactions WHERE user_id = $1 `
	const order = ` ORDER BY id DESC LIMIT $2`
	var (
		rows pgx.Rows
		err  error
	)
	if after, ok := decodeCursor(cursor); ok {
		rows, err = q.Query(ctx, cols+`AND id < $3`+order, userID, limit+1, after)
	} else {
		rows, err = q.Query(ctx, cols+order, userID, limit+1)
	}
	if err != nil {
		return Page{}, db.Classify(err)
	}
	var ids []int64
	items, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Transaction, error) {
		var (
			t  Transaction
			id int64
		)
		err := row.Scan(&id, &t.Kind, &t.Amount, &t.BalanceAfter, &t.PackID, &t.CreatedAt)
		t.ID = strconv.FormatInt(id, 10)
		ids = append(ids, id)
		return t, err
	})
	if err != nil {
		return Page{}, db.Classify(err)
	}
	page := Page{Items: items}
	if len(items) > limit {
		page.Items = items[:limit]
		next := encodeCursor(ids[limit-1])
		page.NextCursor = &next
	}
	return page, nil
}

const cursorPrefix = "wt."

func encodeCursor(id int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + strconv.FormatInt(id, 10)))
}

func decodeCursor(s string) (int64, bool) {
	if s == "" || len(s) > 64 {
		return 0, false
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		return 0, false
	}
	digits, ok := strings.CutPrefix(string(raw), cursorPrefix)
	if !ok {
		return 0, false
	}
	id, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || id <= 0 {
		return 0, false
	}
	return id, true
}
