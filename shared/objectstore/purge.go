package objectstore

import (
	"context"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/db"
)

// purgeBatch is how many queued objects one PurgeQueued run deletes.
const purgeBatch = 500

// PurgeQueued deletes up to purgeBatch objects waiting in object_deletions
// (images whose position, account or user was deleted, or whose delete
// could not reach the store) and returns how many it deleted. It is the
// image-object-purge job of shared/jobs; it does nothing without object
// storage (c nil).
func PurgeQueued(ctx context.Context, q db.Querier, c *Client) (int, error) {
	if c == nil {
		return 0, nil
	}
	rows, err := q.Query(ctx, `SELECT storage_key FROM object_deletions ORDER BY queued_at LIMIT $1`, purgeBatch)
	if err != nil {
		return 0, err
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return 0, err
	}
	return Purge(ctx, q, c, keys)
}

// Purge deletes each object of keys and unqueues it from object_deletions;
// it stops at the first failure (the store is likely down) and returns how
// many it deleted. Without object storage (c nil) the keys stay queued
// until it is configured again.
func Purge(ctx context.Context, q db.Querier, c *Client, keys []string) (int, error) {
	if c == nil {
		return 0, nil
	}
	for i, key := range keys {
		if err := c.Delete(ctx, key); err != nil {
			return i, err
		}
		if _, err := q.Exec(ctx, `DELETE FROM object_deletions WHERE storage_key = $1`, key); err != nil {
			return i, err
		}
	}
	return len(keys), nil
}
