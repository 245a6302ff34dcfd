package wallet

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"tradejournal/shared/db"
)

// maxBatch bounds the reservations one statement decides.
const maxBatch = 256

// gateTimeout bounds the database work of one decision; each caller's own
// context bounds its wait.
const gateTimeout = 15 * time.Second

// Reserve is the pre-stream gate. It holds min(estimate, available) credits
// for the reservation TTL when at least MIN_RESERVATION_CREDITS are
// available, and otherwise refuses with 402: INSUFFICIENT_CREDITS where
// credits can be bought, BILLING_NOT_AVAILABLE where they cannot.
//
// Correctness comes from the database: every decision is made on the
// locked wallet row, so callers in any number of processes never hold more
// than the balance. Speed comes from deciding together: reservations for
// one wallet that arrive while a decision for it is under way wait for the
// next one, and each decision admits a whole queue (up to 256, in arrival
// order) in one round trip. A burst of 100 callers on one wallet therefore
// costs two statements, not 100 statements in single file behind one row
// lock, and other wallets are never held up.
//
// A caller whose context ends first gets its error, and a hold made for it
// regardless is released at once.
func (s *Service) Reserve(ctx context.Context, userID string, estimate int64) (Reservation, error) {
	if estimate <= 0 {
		return Reservation{}, fmt.Errorf("wallet: reservation estimate must be positive, got %d", estimate)
	}
	req := &reserveReq{ctx: ctx, estimate: estimate, done: make(chan reserveResult, 1)}
	s.mu.Lock()
	queue, draining := s.queues[userID]
	s.queues[userID] = append(queue, req)
	s.mu.Unlock()
	if !draining {
		go s.drain(userID)
	}
	select {
	case res := <-req.done:
		return res.r, res.err
	case <-ctx.Done():
		if req.state.CompareAndSwap(waiting, abandoned) {
			return Reservation{}, ctx.Err()
		}
		res := <-req.done // the answer is being delivered
		return res.r, res.err
	}
}

// States of a queued reservation, so that exactly one of the caller (giving
// up) and the drainer (answering) settles it.
const (
	waiting int32 = iota
	answered
	abandoned
)

type reserveReq struct {
	ctx      context.Context
	estimate int64
	state    atomic.Int32
	done     chan reserveResult // buffered: answering never blocks
}

type reserveResult struct {
	r   Reservation
	err error
}

// drain decides the user's queued reservations, a batch at a time (each
// gathered first), until none are left.
func (s *Service) drain(userID string) {
	for {
		s.gather(userID)
		s.mu.Lock()
		queue := s.queues[userID]
		if len(queue) == 0 {
			delete(s.queues, userID)
			s.mu.Unlock()
			return
		}
		n := min(len(queue), maxBatch)
		batch := queue[:n:n]
		s.queues[userID] = queue[n:]
		s.mu.Unlock()
		s.decide(userID, batch)
	}
}

// A decision starts once the queue has not grown for gatherQuiet, and at
// the latest gatherMax after the drainer began to wait (callers that keep
// trickling in must not hold up the first).
const (
	gatherQuiet = 20 * time.Microsecond
	gatherMax   = 250 * time.Microsecond
)

// gather lets callers arriving together queue up before a decision, so a
// burst (or, under load, the callers the last decision answered, coming
// back at once) is decided in one statement rather than one plus the rest.
// A lone caller costs one yield; when others are arriving too, it waits
// until the queue has stopped growing (gatherQuiet, gatherMax).
func (s *Service) gather(userID string) {
	queued := func() int {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.queues[userID])
	}
	runtime.Gosched()
	n := queued()
	start := time.Now()
	for last := start; n > 1 && n < maxBatch && time.Since(last) < gatherQuiet && time.Since(start) < gatherMax; {
		runtime.Gosched()
		if m := queued(); m != n {
			n, last = m, time.Now()
		}
	}
}

// reserveSQL admits a queue of estimates ($2, in arrival order, each with
// the id ($6) it would be held under) against the wallet the same pipeline
// has locked: each request may hold what the ones before it left,
// min(estimate, remaining), if the remaining credits reach the minimum ($3).
// It records the admitted reservations, adds their holds to reserved, and
// returns (position, hold) for each.
//
// Its snapshot is taken after the lock is granted, so it reads the latest
// committed balance, which nobody can change before this commits.
const reserveSQL = `WITH req AS (
		SELECT ord, e, id FROM unnest($2::bigint[], $6::uuid[]) WITH ORDINALITY AS r (e, id, ord)
	), plan AS (
		SELECT req.ord, req.e, req.id, GREATEST(w.balance - w.reserved -
			COALESCE(sum(req.e::numeric) OVER (ORDER BY req.ord ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0), 0) AS remaining
		FROM req CROSS JOIN wallets w WHERE w.user_id = $1
	), granted AS MATERIALIZED (
		SELECT id, ord, LEAST(e, remaining)::bigint AS hold FROM plan WHERE remaining >= $3
	), held AS (
		UPDATE wallets SET reserved = reserved + (SELECT sum(hold) FROM granted), updated_at = $4
		WHERE user_id = $1 AND EXISTS (SELECT 1 FROM granted)
	), made AS (
		INSERT INTO credit_reservations (id, user_id, amount, created_at, expires_at)
		SELECT id, $1, hold, $4, $5 FROM granted
	)
	SELECT ord, hold FROM granted`

// decide runs one decision for a batch and answers every caller in it.
func (s *Service) decide(userID string, batch []*reserveReq) {
	live := batch[:0]
	for _, r := range batch {
		if r.ctx.Err() == nil {
			live = append(live, r)
		}
	}
	if len(live) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), gateTimeout)
	defer cancel()
	now := s.now()
	expires := now.Add(s.ttl)
	estimates := make([]int64, len(live))
	for i, r := range live {
		estimates[i] = r.estimate
	}
	ids := make([]pgtype.UUID, len(live))
	for i := range ids {
		ids[i] = db.NewUUID() // not gen_random_uuid(), which PostgreSQL runs row by row
	}
	grants := make([]*Reservation, len(live))
	b := &pgx.Batch{}
	if s.min == 0 {
		// With no minimum even a user who never held credits passes.
		b.Queue(`INSERT INTO wallets (user_id) VALUES ($1) ON CONFLICT (user_id) DO NOTHING`, userID)
	}
	b.Queue(`SELECT 1 FROM wallets WHERE user_id = $1 FOR UPDATE`, userID)
	b.Queue(reserveSQL, userID, estimates, s.min, now, expires, ids).Query(func(rows pgx.Rows) error {
		var (
			ord  int
			hold int64
		)
		_, err := pgx.ForEachRow(rows, []any{&ord, &hold}, func() error {
			if ord < 1 || ord > len(grants) {
				return fmt.Errorf("wallet: reservation decision returned position %d of %d", ord, len(grants))
			}
			grants[ord-1] = &Reservation{ID: ids[ord-1].String(), UserID: userID, Amount: hold, ExpiresAt: expires}
			return nil
		})
		return err
	})
	err := db.Classify(s.pool.SendBatch(ctx, b).Close())

	for i, r := range live {
		res := reserveResult{err: err}
		if err == nil {
			if g := grants[i]; g != nil {
				res.r = *g
			} else {
				res.err = s.refusal()
			}
		}
		if r.state.CompareAndSwap(waiting, answered) {
			r.done <- res
		} else if res.err == nil {
			_ = s.Release(ctx, res.r.ID) // the caller gave up: do not keep its hold
		}
	}
}
