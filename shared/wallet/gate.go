package wallet

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/db"
)

// gateTimeout bounds the one statement of a reservation; the statement is
// not cancelled with the caller (see Reserve).
const gateTimeout = 15 * time.Second

// reserveSQL holds min(estimate ($2), available) on the user's wallet when
// the available credits reach the minimum ($3), and records the
// reservation ($5, expiring at $6); it returns the hold, or no row when
// refused. It runs right after lockSQL in the same implicit transaction
// (one pipeline, one round trip), so its snapshot is taken with the wallet
// row locked: it reads the latest balance, which nobody can change before
// it commits, and concurrent reservations in any number of processes never
// hold more than the balance (TestReserveConcurrent, TestConcurrentMix).
const (
	lockSQL    = `SELECT 1 FROM wallets WHERE user_id = $1 FOR UPDATE`
	reserveSQL = `WITH w AS (
		SELECT LEAST($2::bigint, balance - reserved) AS hold FROM wallets
		WHERE user_id = $1 AND balance - reserved >= $3
	), held AS (
		UPDATE wallets SET reserved = reserved + w.hold, updated_at = $4 FROM w
		WHERE user_id = $1 RETURNING w.hold
	)
	INSERT INTO credit_reservations (id, user_id, amount, created_at, expires_at)
	SELECT $5, $1, hold, $4, $6 FROM held RETURNING amount`
)

// Reserve is the pre-stream gate. It holds min(estimate, available) credits
// for the reservation TTL when at least MIN_RESERVATION_CREDITS are
// available, and otherwise refuses with 402: INSUFFICIENT_CREDITS where
// credits can be bought, BILLING_NOT_AVAILABLE where they cannot.
//
// It is one conditional UPDATE on the locked wallet row. Its only caller allows one
// running turn per account, so reservations on one wallet do not queue up
// (a burst of them is abuse, not load): the batching gate that decided
// 100 concurrent callers in one statement is gone with that target.
//
// A caller whose context has ended gets its error. The statement itself
// runs to its end (within gateTimeout) even if the caller gives up
// meanwhile, so that the caller knows whether a hold was made; a hold made
// for a caller that gave up is released at once.
func (s *Service) Reserve(ctx context.Context, userID string, estimate int64) (Reservation, error) {
	if estimate <= 0 {
		return Reservation{}, fmt.Errorf("wallet: reservation estimate must be positive, got %d", estimate)
	}
	if err := ctx.Err(); err != nil {
		return Reservation{}, err
	}
	dbCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), gateTimeout)
	defer cancel()
	now := s.now()
	r := Reservation{ID: db.NewUUID().String(), UserID: userID, ExpiresAt: now.Add(s.ttl)}
	b := &pgx.Batch{}
	if s.min == 0 {
		// With no minimum even a user who never held credits passes.
		b.Queue(`INSERT INTO wallets (user_id) VALUES ($1) ON CONFLICT (user_id) DO NOTHING`, userID)
	}
	b.Queue(lockSQL, userID)
	b.Queue(reserveSQL, userID, estimate, s.min, now, r.ID, r.ExpiresAt).QueryRow(func(row pgx.Row) error {
		return row.Scan(&r.Amount)
	})
	err := s.pool.SendBatch(dbCtx, b).Close()
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return Reservation{}, s.refusal()
	case err != nil:
		return Reservation{}, db.Classify(err)
	case ctx.Err() != nil:
		_ = s.Release(dbCtx, r.ID) // the caller gave up: do not keep its hold
		return Reservation{}, ctx.Err()
	}
	return r, nil
}
