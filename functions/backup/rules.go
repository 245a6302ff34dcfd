package backup

import (
	"context"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/backup"
	"tradejournal/shared/rules"
)

// tradingRules writes the user's trading rules, their params as stored.
func (ex exporter) tradingRules(ctx context.Context) error {
	const q = `SELECT type, params, enabled, account_id::text, weight, tag_id::text, created_at FROM trading_rules WHERE user_id = $1 ORDER BY created_at, id`
	return lines(ctx, ex, backup.EntryRules, q, func(r *backup.TradingRule) []any {
		return []any{&r.Type, &r.Params, &r.Enabled, &r.AccountID, &r.Weight, &r.TagID, &r.CreatedAt}
	}, nil)
}

// tradingRules restores the rules, each checked as the rules routes check
// one, its account and tag mapped to the restored ones; a rule without a
// weight (an archive made before weights) is important.
func (rs *restorer) tradingRules(ctx context.Context, tx pgx.Tx) error {
	return backup.Lines(rs.a, backup.EntryRules, backup.MaxRules, func(r backup.TradingRule) error {
		params, err := rules.ParseParams(rules.Type(r.Type), r.Params)
		if err != nil {
			return inconsistent(err)
		}
		var account *string
		if r.AccountID != nil {
			id, err := rs.mapped("account", *r.AccountID)
			if err != nil {
				return err
			}
			account = &id
		}
		var tag *string
		if r.TagID != nil {
			id, err := rs.mapped("tag", *r.TagID)
			if err != nil {
				return err
			}
			tag = &id
		}
		if r.Weight == 0 {
			r.Weight = rules.DefaultWeight
		}
		const ins = `INSERT INTO trading_rules (user_id, type, params, enabled, account_id, weight, tag_id, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)`
		_, err = tx.Exec(ctx, ins, rs.userID, r.Type, params, r.Enabled, account, int(r.Weight), tag, r.CreatedAt)
		return err
	})
}
