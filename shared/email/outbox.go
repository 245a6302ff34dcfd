package email

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tradejournal/shared/db"
)

// Enqueue stores msg in the outbox inside q, normally the transaction that
// made the token the message carries: both exist, or neither.
func Enqueue(ctx context.Context, q db.Querier, msg Message) error {
	_, err := q.Exec(ctx, `INSERT INTO email_outbox (to_address, subject, body) VALUES ($1, $2, $3)`, msg.To, msg.Subject, msg.Body)
	return db.Classify(err)
}

// maxAttempts bounds retries; with the backoff below a message is given up
// on about an hour after its first failure.
const maxAttempts = 8

// retryAfter is the backoff after the n-th failed attempt: 30 s doubling.
func retryAfter(n int) time.Duration { return 30 * time.Second << (n - 1) }

// Outbox delivers queued messages.
type Outbox struct {
	pool   *pgxpool.Pool
	mailer *Mailer
	now    func() time.Time
	log    *slog.Logger
	nudge  chan struct{}
}

// NewOutbox returns the outbox of pool, sending through mailer.
func NewOutbox(pool *pgxpool.Pool, mailer *Mailer, now func() time.Time, log *slog.Logger) *Outbox {
	return &Outbox{pool: pool, mailer: mailer, now: now, log: log, nudge: make(chan struct{}, 1)}
}

// Nudge asks the running outbox job to deliver now rather than at its next
// tick.
func (o *Outbox) Nudge() {
	select {
	case o.nudge <- struct{}{}:
	default:
	}
}

// Nudged is the channel a Nudge signals: the outbox job of shared/jobs
// wakes on it.
func (o *Outbox) Nudged() <-chan struct{} { return o.nudge }

// DeliverDue sends every due message once: each is claimed with SKIP
// LOCKED, so concurrent workers never send the same message twice; a sent
// message is deleted, a failed one is retried later with backoff.
func (o *Outbox) DeliverDue(ctx context.Context) (sent int, err error) {
	for {
		done, err := o.deliverOne(ctx)
		if err != nil || !done {
			return sent, err
		}
		sent++
	}
}

// deliverOne sends the oldest due message; done is false when none is due.
func (o *Outbox) deliverOne(ctx context.Context) (done bool, err error) {
	tx, err := o.pool.Begin(ctx)
	if err != nil {
		return false, err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit it is a no-op

	const claim = `SELECT id, to_address, subject, body, attempts FROM email_outbox
		WHERE next_attempt_at <= $1 ORDER BY next_attempt_at, created_at LIMIT 1 FOR UPDATE SKIP LOCKED`
	var (
		id       string
		msg      Message
		attempts int
	)
	now := o.now()
	if err := tx.QueryRow(ctx, claim, now).Scan(&id, &msg.To, &msg.Subject, &msg.Body, &attempts); err != nil {
		if err == pgx.ErrNoRows {
			return false, nil
		}
		return false, err
	}
	if sendErr := o.mailer.Send(ctx, msg); sendErr != nil {
		attempts++
		if attempts >= maxAttempts {
			o.log.Warn("email given up after retries", "attempts", attempts, "cause", Describe(sendErr))
			_, err = tx.Exec(ctx, `DELETE FROM email_outbox WHERE id = $1`, id)
		} else {
			o.log.Warn("email delivery failed; will retry", "attempts", attempts, "cause", Describe(sendErr))
			_, err = tx.Exec(ctx, `UPDATE email_outbox SET attempts = $2, next_attempt_at = $3 WHERE id = $1`,
				id, attempts, now.Add(retryAfter(attempts)))
		}
		if err != nil {
			return false, err
		}
		// Commit the backoff, and stop this round: the server is failing.
		return false, tx.Commit(ctx)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM email_outbox WHERE id = $1`, id); err != nil {
		return false, err
	}
	return true, tx.Commit(ctx)
}
