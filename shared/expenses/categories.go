package expenses

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
	"tradejournal/shared/journal"
)

const categoryNameConstraint = "expense_categories_user_name_key"

var errCategoryTaken = apperr.New(apperr.Conflict, "you already have an expense category with this name")

// checkCategoryName trims a category name and checks it: 1 to 50
// characters, no control characters, not a built-in category's name
// (regardless of case: the import matches names so).
func checkCategoryName(name string) (string, error) {
	n, err := journal.Name("name", name, MaxCategoryNameChars)
	if err != nil {
		return "", err
	}
	if IsBuiltIn(strings.ToLower(n)) {
		return "", apperr.New(apperr.Conflict, "%q is a built-in category", strings.ToLower(n))
	}
	return n, nil
}

// CategoryInput is the body of POST and PATCH /api/expense-categories.
type CategoryInput struct {
	Name *string `json:"name"`
}

// Categories lists the built-in categories, then the user's own by name
// (regardless of case).
func (s *Store) Categories(ctx context.Context, userID string) ([]Category, error) {
	out := make([]Category, 0, len(BuiltIn)+8)
	for _, k := range BuiltIn {
		out = append(out, Category{ID: k, Name: k, BuiltIn: true})
	}
	rows, err := s.pool.Query(ctx, `SELECT id::text, name, created_at, updated_at FROM expense_categories WHERE user_id = $1
		ORDER BY lower(name), id`, userID)
	if err != nil {
		return nil, db.Classify(err)
	}
	own, err := pgx.CollectRows(rows, scanCategory)
	return append(out, own...), db.Classify(err)
}

func scanCategory(row pgx.CollectableRow) (Category, error) {
	var (
		c       Category
		at, upd time.Time
	)
	err := row.Scan(&c.ID, &c.Name, &at, &upd)
	c.CreatedAt, c.UpdatedAt = &at, &upd
	return c, err
}

// CreateCategory creates a category of the user's own; names are unique
// per user regardless of case (409), and a user has at most MaxCategories.
func (s *Store) CreateCategory(ctx context.Context, userID string, in CategoryInput) (Category, error) {
	name, err := in.name()
	if err != nil {
		return Category{}, err
	}
	var out Category
	err = db.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := s.lockUser(ctx, tx, userID); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM expense_categories WHERE user_id = $1`, userID).Scan(&n); err != nil {
			return db.Classify(err)
		}
		if n >= MaxCategories {
			return apperr.New(apperr.Conflict, "you have %d expense categories, the most one user may have; delete one first", n)
		}
		out, err = insertCategory(ctx, tx, userID, name, nil)
		return err
	})
	return out, err
}

// name is the input's checked name, which creating and renaming need.
func (in CategoryInput) name() (string, error) {
	if in.Name == nil {
		return "", apperr.Invalid("name", "is required")
	}
	return checkCategoryName(*in.Name)
}

// insertCategory writes a checked category name; createdAt nil is now.
func insertCategory(ctx context.Context, tx pgx.Tx, userID, name string, createdAt *time.Time) (Category, error) {
	rows, err := tx.Query(ctx, `INSERT INTO expense_categories (user_id, name, created_at, updated_at)
		VALUES ($1, $2, coalesce($3, now()), coalesce($3, now())) RETURNING id::text, name, created_at, updated_at`, userID, name, createdAt)
	if err != nil {
		return Category{}, db.Classify(err)
	}
	c, err := pgx.CollectExactlyOneRow(rows, scanCategory)
	if db.IsUniqueViolation(err, categoryNameConstraint) {
		return Category{}, errCategoryTaken
	}
	return c, db.Classify(err)
}

// RenameCategory renames a category of the user's own (built-in ones are
// not the user's to change: 404, as another user's).
func (s *Store) RenameCategory(ctx context.Context, userID, id string, in CategoryInput) (Category, error) {
	if !db.ValidUUID(id) {
		return Category{}, apperr.ErrNotFound
	}
	name, err := in.name()
	if err != nil {
		return Category{}, err
	}
	var out Category
	err = db.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := s.lockUser(ctx, tx, userID); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `UPDATE expense_categories SET name = $3, updated_at = now() WHERE id = $1 AND user_id = $2
			RETURNING id::text, name, created_at, updated_at`, id, userID, name)
		if err != nil {
			return db.Classify(err)
		}
		out, err = pgx.CollectExactlyOneRow(rows, scanCategory)
		if db.IsUniqueViolation(err, categoryNameConstraint) {
			return errCategoryTaken
		}
		return db.Classify(err)
	})
	return out, err
}

// DeleteCategory deletes a category of the user's own; its expenses move
// to "other" in the same transaction (their charges, which carry no
// category, are unchanged). It returns how many moved.
func (s *Store) DeleteCategory(ctx context.Context, userID, id string) (int, error) {
	if !db.ValidUUID(id) {
		return 0, apperr.ErrNotFound
	}
	var moved int
	err := db.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := s.lockUser(ctx, tx, userID); err != nil {
			return err
		}
		var ok bool
		if err := tx.QueryRow(ctx, `SELECT true FROM expense_categories WHERE id = $1 AND user_id = $2 FOR UPDATE`, id, userID).Scan(&ok); err != nil {
			return db.Classify(err)
		}
		tag, err := tx.Exec(ctx, `UPDATE expenses SET category = $2, category_id = NULL, updated_at = now() WHERE category_id = $1`,
			id, CategoryOther)
		if err != nil {
			return db.Classify(err)
		}
		moved = int(tag.RowsAffected())
		_, err = tx.Exec(ctx, `DELETE FROM expense_categories WHERE id = $1`, id)
		return db.Classify(err)
	})
	return moved, err
}
