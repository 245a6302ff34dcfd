package backup

import (
	"context"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/backup"
	"tradejournal/shared/propfirm"
)

// propFirmPlans writes the accounts' prop-firm plans as stored.
func (ex exporter) propFirmPlans(ctx context.Context) error {
	const q = `SELECT account_id::text, plan, created_at FROM prop_firm_plans WHERE user_id = $1 ORDER BY created_at, account_id`
	return lines(ctx, ex, backup.EntryPropFirm, q, func(p *backup.PropFirmPlan) []any {
		return []any{&p.AccountID, &p.Plan, &p.CreatedAt}
	}, nil)
}

// propFirmPlans restores the plans, each checked as PUT
// /api/accounts/{accountId}/prop-firm checks one, its account mapped to the
// restored one; a second plan for one account is an inconsistency.
func (rs *restorer) propFirmPlans(ctx context.Context, tx pgx.Tx) error {
	return backup.Lines(rs.a, backup.EntryPropFirm, backup.MaxAccounts, func(p backup.PropFirmPlan) error {
		plan, err := propfirm.Parse(p.Plan)
		if err != nil {
			return inconsistent(err)
		}
		account, err := rs.mapped("account", p.AccountID)
		if err != nil {
			return err
		}
		const ins = `INSERT INTO prop_firm_plans (account_id, user_id, phase, plan, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)`
		_, err = tx.Exec(ctx, ins, account, rs.userID, plan.Phase, plan, p.CreatedAt)
		return inconsistent(err)
	})
}
