package brokersync

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/apperr"
	"tradejournal/shared/brokerfile"
	"tradejournal/shared/db"
	"tradejournal/shared/journalstore"
)

// execution is one of the broker's executions as a journal fill, with the
// broker's id for it.
type execution struct {
	ID   string
	Fill brokerfile.Fill
}

// request is what a source fetches with.
type request struct {
	Credentials Credentials
	// Since is the newest execution already synced (nil: everything the
	// source gives). Sources ask from a little before it: the executions
	// already synced are skipped by id.
	Since *time.Time
	// Zone is the account's trading-day zone: the zone of a statement's
	// times that carry none (IBKR's).
	Zone string
	Now  time.Time
}

// source is one broker's protocol.
type source interface {
	// fetch answers every execution since req.Since, all pages, or a
	// *Failure (nothing is written from a fetch that failed part way).
	fetch(ctx context.Context, req request) ([]execution, error)
	// check proves the credentials with the broker's cheapest read.
	check(ctx context.Context, c Credentials) error
}

const (
	// syncEvery is how often the schedule syncs a connection: brokers
	// publish a day's executions once it ends, and a day-old journal is
	// what a nightly review needs.
	syncEvery = 6 * time.Hour
	// lease is how long a sync holds its connection: longer than any
	// sync's fetch (IBKR's statement generation waits at most a few
	// minutes), so a crashed sync frees it by itself.
	lease = 10 * time.Minute
	// overlap is how far before the newest synced execution a source asks
	// from: a broker may publish an execution late, and the same instant
	// may hold more.
	overlap = 24 * time.Hour
	// dueBatch bounds the connections one scheduled run syncs.
	dueBatch = 100
)

var errRunning = apperr.New(apperr.Conflict, "a sync of this connection is already running; its result shows when it ends")

// Test checks a connection's credentials against the broker without
// syncing: nil, or the *Failure the broker answered.
func (s *Service) Test(ctx context.Context, userID, id string) (*Failure, error) {
	if !db.ValidUUID(id) {
		return nil, apperr.ErrNotFound
	}
	var broker, sealed string
	err := s.pool.QueryRow(ctx, `SELECT broker, credentials FROM broker_connections WHERE id = $1 AND user_id = $2`, id, userID).Scan(&broker, &sealed)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, apperr.ErrNotFound
	}
	if err != nil {
		return nil, db.Classify(err)
	}
	c, err := s.credentials(sealed)
	if err == nil {
		err = s.sources[broker].check(ctx, c)
	}
	if f, ok := errors.AsType[*Failure](err); ok {
		return f, nil
	}
	return nil, err
}

// SyncNow syncs one of the user's connections at once (paused or not) and
// answers it with the outcome in its status. It is refused while another
// sync of it runs, and while the broker's rate limit asks to wait.
func (s *Service) SyncNow(ctx context.Context, userID, id string) (Connection, error) {
	c, err := s.Get(ctx, userID, id)
	if err != nil {
		return c, err
	}
	if c.Error != nil && c.Error.RetryAt != nil && c.Error.RetryAt.After(s.now()) {
		e := apperr.New(apperr.RateLimited, "the broker asked to wait before the next sync, until %s", c.Error.RetryAt.Format(time.RFC3339))
		e.RetryAfterSeconds = int(math.Ceil(c.Error.RetryAt.Sub(s.now()).Seconds()))
		return c, e
	}
	if err := s.run(ctx, id); err != nil {
		return c, err
	}
	return s.Get(ctx, userID, id)
}

// SyncDue syncs every connection the schedule owes a sync (not paused, not
// synced for syncEvery, not waiting for the broker's rate limit, not
// running) and answers how many it ran. A broker's failure is the
// connection's status, not the job's; only the database's fails the job.
func (s *Service) SyncDue(ctx context.Context) (int, error) {
	now := s.now()
	const q = `SELECT id::text FROM broker_connections
		WHERE NOT paused AND (last_sync_at IS NULL OR last_sync_at <= $2) AND (retry_at IS NULL OR retry_at <= $1)
			AND (running_until IS NULL OR running_until <= $1)
		ORDER BY last_sync_at NULLS FIRST, id LIMIT $3`
	rows, err := s.pool.Query(ctx, q, now, now.Add(-syncEvery), dueBatch)
	if err != nil {
		return 0, db.Classify(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return 0, db.Classify(err)
	}
	n := 0
	for _, id := range ids {
		switch err := s.run(ctx, id); {
		case err == nil:
			n++
		case errors.Is(err, errRunning):
		default:
			return n, err
		}
	}
	return n, nil
}

// claimed is a connection a sync holds.
type claimed struct {
	id, userID, accountID, broker, sealed, zone string
	since                                       *time.Time
}

// run syncs one connection: claim it (errRunning when another sync holds
// it), fetch, and import the new executions with their ids and the new
// sync point in the import's transaction. A broker's failure is recorded
// as the connection's status and is not an error here.
func (s *Service) run(ctx context.Context, id string) error {
	now := s.now()
	const claimQ = `UPDATE broker_connections c SET running_until = $2
		FROM accounts a WHERE c.id = $1 AND a.id = c.account_id AND (c.running_until IS NULL OR c.running_until <= $3)
		RETURNING c.user_id::text, c.account_id::text, c.broker, c.credentials, c.synced_through, a.timezone`
	cl := claimed{id: id}
	err := s.pool.QueryRow(ctx, claimQ, id, now.Add(lease), now).Scan(&cl.userID, &cl.accountID, &cl.broker, &cl.sealed, &cl.since, &cl.zone)
	if errors.Is(err, pgx.ErrNoRows) {
		return errRunning
	}
	if err != nil {
		return db.Classify(err)
	}
	added, err := s.pull(ctx, cl, now)
	if f, ok := errors.AsType[*Failure](err); ok {
		return s.failed(ctx, cl.id, now, f)
	}
	if err != nil {
		// The database's own failure: free the connection for the next run.
		_, _ = s.pool.Exec(context.WithoutCancel(ctx), `UPDATE broker_connections SET running_until = NULL WHERE id = $1`, cl.id)
		return err
	}
	const doneQ = `UPDATE broker_connections SET last_sync_at = $2, last_added = $3, last_success_at = $2,
		error_code = NULL, error_message = NULL, failing_since = NULL, retry_at = NULL, running_until = NULL WHERE id = $1`
	_, err = s.pool.Exec(ctx, doneQ, cl.id, now, added)
	return db.Classify(err)
}

// pull fetches the connection's executions, leaves out those it synced
// before, and imports the rest: the fills it wrote.
func (s *Service) pull(ctx context.Context, cl claimed, now time.Time) (int, error) {
	creds, err := s.credentials(cl.sealed)
	if err != nil {
		return 0, err
	}
	req := request{Credentials: creds, Zone: cl.zone, Now: now}
	if cl.since != nil {
		from := cl.since.Add(-overlap)
		req.Since = &from
	}
	execs, err := s.sources[cl.broker].fetch(ctx, req)
	if err != nil {
		return 0, err
	}
	ids := make([]string, len(execs))
	for i, e := range execs {
		ids[i] = e.ID
	}
	rows, err := s.pool.Query(ctx, `SELECT execution_id FROM broker_sync_executions WHERE connection_id = $1 AND execution_id = ANY($2)`, cl.id, ids)
	if err != nil {
		return 0, db.Classify(err)
	}
	synced, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return 0, db.Classify(err)
	}
	old := make(map[string]bool, len(synced))
	for _, id := range synced {
		old[id] = true
	}
	var (
		fills  []brokerfile.Fill
		newIDs []string
		newest *time.Time
	)
	for _, e := range execs {
		if old[e.ID] {
			continue
		}
		old[e.ID] = true // an id the broker repeats is one execution
		e.Fill.Row = len(fills) + 1
		fills, newIDs = append(fills, e.Fill), append(newIDs, e.ID)
		if newest == nil || e.Fill.FilledAt.After(*newest) {
			newest = &e.Fill.FilledAt
		}
	}
	if len(fills) == 0 {
		return 0, nil
	}
	// The ids and the sync point are written with the fills, so a sync
	// that fails after fetching writes none of them and the next resumes.
	record := func(ctx context.Context, tx pgx.Tx) error {
		const q = `WITH ids AS (INSERT INTO broker_sync_executions (connection_id, execution_id)
				SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING)
			UPDATE broker_connections SET synced_through = greatest(synced_through, $3) WHERE id = $1`
		_, err := tx.Exec(ctx, q, cl.id, newIDs, *newest)
		return err
	}
	out, err := s.store.Import(ctx, cl.userID, cl.accountID, fills, brokerfile.BuildOptions{}, record)
	if pe, ok := errors.AsType[*journalstore.PlanError](err); ok {
		f := &Failure{Code: CodeFillsDoNotFit, Message: "the broker's executions do not fit the journal's positions"}
		if len(pe.Problems) > 0 {
			f.Message += ": " + pe.Problems[0].Message
		}
		return 0, f
	}
	return out.Fills, err
}

// failed records a broker's failure as the connection's status.
func (s *Service) failed(ctx context.Context, id string, now time.Time, f *Failure) error {
	const q = `UPDATE broker_connections SET last_sync_at = $2, last_added = 0, error_code = $3, error_message = $4,
		retry_at = $5, failing_since = coalesce(failing_since, $2), running_until = NULL WHERE id = $1`
	_, err := s.pool.Exec(ctx, q, id, now, f.Code, f.Message, f.RetryAt)
	return db.Classify(err)
}
