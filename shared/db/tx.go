package db

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// InTx runs fn in one transaction on pool and commits when fn returns nil;
// any error rolls everything back, so a request writes all or nothing.
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
