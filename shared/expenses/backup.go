package expenses

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/db"
	"tradejournal/shared/journal"
)

// The backup archive's side of the store (functions/backup): every
// category and definition of a user, read in the archive's snapshot, and
// written back in the restore's transaction, whose charges are
// materialised again up to today, as any write's are.

// EachCategory calls fn with each of the user's own categories, oldest
// first.
func EachCategory(ctx context.Context, q db.Querier, userID string, fn func(Category) error) error {
	rows, err := q.Query(ctx, `SELECT id::text, name, created_at, updated_at FROM expense_categories WHERE user_id = $1
		ORDER BY created_at, id`, userID)
	if err != nil {
		return db.Classify(err)
	}
	list, err := pgx.CollectRows(rows, scanCategory)
	if err != nil {
		return db.Classify(err)
	}
	for _, c := range list {
		if err := fn(c); err != nil {
			return err
		}
	}
	return nil
}

// Each calls fn with each of the user's expenses, oldest start first.
func Each(ctx context.Context, q db.Querier, userID string, fn func(d Definition, createdAt time.Time) error) error {
	rows, err := q.Query(ctx, `SELECT `+definitionColumns+`, created_at FROM expenses WHERE user_id = $1
		ORDER BY start_on, created_at, id`, userID)
	if err != nil {
		return db.Classify(err)
	}
	var (
		d        Definition
		category *string
		at       time.Time
	)
	_, err = pgx.ForEachRow(rows, append(definitionScan(&d, &category), &at), func() error {
		d.Category = ""
		if category != nil {
			d.Category = *category
		}
		return fn(d, at)
	})
	return err
}

// RestoreCategory writes a category of a restored archive and returns its
// new id; its name is held to a new one's rules.
func (s *Store) RestoreCategory(ctx context.Context, tx pgx.Tx, userID, name string, createdAt time.Time) (string, error) {
	n, err := checkCategoryName(name)
	if err != nil {
		return "", err
	}
	c, err := insertCategory(ctx, tx, userID, n, &createdAt)
	return c.ID, err
}

// RestoreExpense writes an expense of a restored archive (its account and
// category ids already the restored ones) with its charges due up to
// today in the user's (restored) zone, and returns how many charges it
// wrote.
func (s *Store) RestoreExpense(ctx context.Context, tx pgx.Tx, userID string, d Definition, createdAt time.Time) (int, error) {
	today, err := s.lockUser(ctx, tx, userID)
	if err != nil {
		return 0, err
	}
	var p journal.Problems
	if d.Currency, err = ParseCurrency("currency", d.Currency); err != nil {
		p.Merge(err)
	}
	if err := p.Err(); err != nil {
		return 0, err
	}
	if d, err = s.resolve(ctx, tx, userID, d, false); err != nil {
		return 0, err
	}
	_, n, err := insert(ctx, tx, userID, d, today, &createdAt)
	return n, err
}
