package journalstore

import (
	"context"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/db"
	"tradejournal/shared/journal"
)

// batcher sends statements in one round trip: a pool or a transaction.
type batcher interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// CheckTagIDs checks a list of tag ids the way a position's tags are
// checked, for the other records that carry the user's tags (a journal
// day's): at most journal.MaxTagsPerItem, each a tag id of the user's,
// a bad one named by its index ("tagIds[2]"). It returns the ids without
// repeats.
func CheckTagIDs(ctx context.Context, q batcher, userID string, ids []string) ([]string, error) {
	var p journal.Problems
	out := validTagIDs(&p, ids)
	if err := p.Err(); err != nil {
		return nil, err
	}
	b := &pgx.Batch{}
	checkTags(b, userID, ids, out)
	return out, db.Classify(q.SendBatch(ctx, b).Close())
}
