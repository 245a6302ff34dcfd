// Package rulesdb reads a user's trading rules as stored and judges their
// compliance over a range (Compliance) or for one position's trade
// (PositionCompliance): the reads of the journal (journalstore.RuleTrades),
// the conversion into the display currency and the statistics' figures of
// the days, around the pure judging of shared/rules. The route group
// functions/rules answers it over HTTP; any other group (the assistant)
// asks the same question here.
package rulesdb

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/db"
	"tradejournal/shared/rules"
)

// Rule is one stored rule.
type Rule struct {
	ID        string       `json:"id"`
	Type      rules.Type   `json:"type"`
	Params    rules.Params `json:"params"`
	Enabled   bool         `json:"enabled"`
	AccountID *string      `json:"accountId"`
	// Weight is critical, important (the default) or niceToHave.
	Weight rules.Weight `json:"weight"`
	// TagID limits the rule to the positions with that tag; null: all.
	TagID     *string   `json:"tagId"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// Columns are a stored rule's, as Scan reads them.
const Columns = `id::text, type, params, enabled, account_id::text, weight, tag_id::text, created_at, updated_at`

// Scan reads a stored rule; its params were validated when written, and
// are read back through the same parser so a rule of a type this version
// no longer knows is an error, not a silent default.
func Scan(row pgx.Row) (Rule, error) {
	var (
		r   Rule
		raw []byte
	)
	if err := row.Scan(&r.ID, &r.Type, &raw, &r.Enabled, &r.AccountID, &r.Weight, &r.TagID, &r.CreatedAt, &r.UpdatedAt); err != nil {
		return Rule{}, db.Classify(err)
	}
	p, err := rules.ParseParams(r.Type, raw)
	if err != nil {
		return Rule{}, err
	}
	r.Params = p
	return r, nil
}

// Read reads the user's rules, oldest first; enabledOnly leaves out
// the disabled ones.
func Read(ctx context.Context, q db.Querier, userID string, enabledOnly bool) ([]Rule, error) {
	rows, err := q.Query(ctx, `SELECT `+Columns+` FROM trading_rules WHERE user_id = $1 AND (enabled OR NOT $2) ORDER BY created_at, id`, userID, enabledOnly)
	if err != nil {
		return nil, db.Classify(err)
	}
	items, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Rule, error) { return Scan(row) })
	if err != nil {
		return nil, err
	}
	if items == nil {
		items = []Rule{}
	}
	return items, nil
}
