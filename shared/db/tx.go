package db

import (
	"context"
	"regexp"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/apperr"
)

// InTx runs fn in one transaction on pool and commits when fn returns nil;
// any error rolls everything back, so a change is written all or nothing.
// fn's error comes back as it is; a failure to begin or commit is
// classified (Classify). It is the one transaction idiom of the house.
func InTx(ctx context.Context, pool Beginner, fn func(pgx.Tx) error) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return Classify(err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // a no-op after Commit
	if err := fn(tx); err != nil {
		return err
	}
	return Classify(tx.Commit(ctx))
}

var uuidShape = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// ValidUUID reports whether s is a UUID in the lowercase form PostgreSQL
// and NewUUID write, so a malformed id (in a path, a cursor, a webhook's
// metadata) is refused before it reaches SQL.
func ValidUUID(s string) bool { return uuidShape.MatchString(s) }

// DeleteOwned deletes the row of table whose id is id and whose user_id is
// userID. A malformed id, another user's row or none at all is
// apperr.ErrNotFound, so a route answers all three with the same 404.
// table is a constant of the caller's, never input.
func DeleteOwned(ctx context.Context, q Querier, table, id, userID string) error {
	if !ValidUUID(id) {
		return apperr.ErrNotFound
	}
	tag, err := q.Exec(ctx, `DELETE FROM `+pgx.Identifier{table}.Sanitize()+` WHERE id = $1 AND user_id = $2`, id, userID)
	if err != nil {
		return Classify(err)
	}
	if tag.RowsAffected() == 0 {
		return apperr.ErrNotFound
	}
	return nil
}

// Snapshot is the transaction of a read that must see one consistent state
// across several statements (a report, an export): repeatable read, read
// only.
var Snapshot = pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}

// TxBeginner starts a transaction with options: a pool.
type TxBeginner interface {
	BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error)
}

// InSnapshot runs fn in one Snapshot transaction on pool, rolled back
// afterwards (there is nothing to commit).
func InSnapshot(ctx context.Context, pool TxBeginner, fn func(pgx.Tx) error) error {
	tx, err := pool.BeginTx(ctx, Snapshot)
	if err != nil {
		return Classify(err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // read-only: nothing to undo
	return fn(tx)
}

// NullIfEmpty is s as a nullable text parameter: nil (SQL NULL) for "".
func NullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
