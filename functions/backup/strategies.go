package backup

import (
	"context"
	"errors"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/backup"
	"tradejournal/shared/journalstore"
)

// strategies writes each strategy with the ids of its legs.
func (ex exporter) strategies(ctx context.Context) error {
	const q = `SELECT s.id::text, s.account_id::text, s.name, s.planned_risk,
			coalesce((SELECT array_agg(p.id::text ORDER BY p.id) FROM positions p WHERE p.strategy_id = s.id), '{}'), s.created_at
		FROM strategies s WHERE s.user_id = $1 ORDER BY s.created_at, s.id`
	return lines(ctx, ex, backup.EntryStrategies, q, func(s *backup.Strategy) []any {
		return []any{&s.ID, &s.AccountID, &s.Name, &s.PlannedRisk, &s.PositionIDs, &s.CreatedAt}
	}, nil)
}

// strategies restores the strategies and points their legs at them,
// through the journal store. A leg must be a restored position of the
// strategy's account.
func (rs *restorer) strategies(ctx context.Context, tx pgx.Tx) error {
	if !rs.a.Has(backup.EntryStrategies) {
		return nil
	}
	return backup.Lines(rs.a, backup.EntryStrategies, backup.MaxStrategies, func(s backup.Strategy) error {
		account, err := rs.mapped("account", s.AccountID)
		if err != nil {
			return err
		}
		if utf8.RuneCountInString(s.Name) > 100 || s.PlannedRisk != nil && !s.PlannedRisk.IsPositive() {
			return invalidf("strategy %q has a name or planned risk the app does not take", s.ID)
		}
		legs := make([]string, len(s.PositionIDs))
		for i, p := range s.PositionIDs {
			if legs[i], err = rs.mapped("position", p); err != nil {
				return err
			}
		}
		err = rs.journal.Strategy(ctx, journalstore.RestoredStrategy{AccountID: account, Name: s.Name, PlannedRisk: s.PlannedRisk,
			CreatedAt: s.CreatedAt, Legs: legs})
		if errors.Is(err, journalstore.ErrRestoredLegs) {
			return invalidf("strategy %q has legs in another account, or in another strategy", s.ID)
		}
		return err
	})
}
