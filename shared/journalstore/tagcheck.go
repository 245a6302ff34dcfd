package journalstore

import (
	"context"

	"tradejournal/shared/db"
	"tradejournal/shared/journal"
)

// CheckTagIDs checks a list of tag ids the way a position's tags are
// checked, for the other records that carry the user's tags (a journal
// day's): at most journal.MaxTagsPerItem, each a tag id of the user's,
// a bad one named by its index ("tagIds[2]"). It returns the ids without
// repeats.
func CheckTagIDs(ctx context.Context, q db.Querier, userID string, ids []string) ([]string, error) {
	var p journal.Problems
	out := validTagIDs(&p, ids)
	if err := p.Err(); err != nil {
		return nil, err
	}
	return out, checkTags(ctx, q, userID, ids, out)
}
