package backup

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/apperr"
	"tradejournal/shared/backup"
	"tradejournal/shared/expenses"
)

// expenses writes the user's expense categories and definitions (their
// charges are derived from the definitions again on a restore).
func (ex exporter) expenses(ctx context.Context) error {
	w, err := ex.zw.Create(backup.EntryExpenseCategories, true)
	if err != nil {
		return err
	}
	lw := backup.NewLineWriter(w)
	if err := expenses.EachCategory(ctx, ex.tx, ex.userID, func(c expenses.Category) error {
		return lw.Write(backup.ExpenseCategory{ID: c.ID, Name: c.Name, CreatedAt: c.CreatedAt.UTC()})
	}); err != nil {
		return err
	}
	if w, err = ex.zw.Create(backup.EntryExpenses, true); err != nil {
		return err
	}
	lw = backup.NewLineWriter(w)
	return expenses.Each(ctx, ex.tx, ex.userID, func(d expenses.Definition, createdAt time.Time) error {
		e := backup.Expense{Category: d.CategoryKey(), AccountID: d.AccountID, Amount: d.Amount, Currency: d.Currency, Note: d.Note,
			StartDate: d.Start.Format(time.DateOnly), Recurrence: d.Recurrence, CreatedAt: createdAt.UTC()}
		if d.End != nil {
			end := d.End.Format(time.DateOnly)
			e.EndDate = &end
		}
		return lw.Write(e)
	})
}

// expenses restores the categories, then each expense through the
// expense store's checks, its category and account mapped to the restored
// ones; the store records its charges up to today.
func (rs *restorer) expenses(ctx context.Context, tx pgx.Tx) error {
	store := expenses.New(rs.h.app.DB, rs.h.app.Now)
	err := backup.Lines(rs.a, backup.EntryExpenseCategories, backup.MaxExpenseCategories, func(c backup.ExpenseCategory) error {
		if _, dup := rs.ids["expense-category:"+c.ID]; dup || c.ID == "" {
			return invalidf("two expense categories share the id %q", c.ID)
		}
		id, err := store.RestoreCategory(ctx, tx, rs.userID, c.Name, c.CreatedAt)
		if e, ok := apperr.As(err); ok && e.Code == apperr.Conflict {
			return invalidf("expense category %q: %s", c.Name, e.Message) // a built-in's name, or a name twice
		}
		if err != nil {
			return err
		}
		rs.ids["expense-category:"+c.ID] = id
		rs.count.ExpenseCategories++
		return nil
	})
	if err != nil {
		return err
	}
	return backup.Lines(rs.a, backup.EntryExpenses, backup.MaxExpenses, func(e backup.Expense) error {
		d := expenses.Definition{Amount: e.Amount, Currency: e.Currency, Note: e.Note,
			Schedule: expenses.Schedule{Recurrence: e.Recurrence}}
		if expenses.IsBuiltIn(e.Category) {
			d.Category = e.Category
		} else {
			id, err := rs.mapped("expense-category", e.Category)
			if err != nil {
				return err
			}
			d.CategoryID = &id
		}
		if e.AccountID != nil {
			id, err := rs.mapped("account", *e.AccountID)
			if err != nil {
				return err
			}
			d.AccountID = &id
		}
		var err error
		if d.Start, err = expenses.ParseDate("startDate", e.StartDate); err != nil {
			return err
		}
		if e.EndDate != nil {
			end, err := expenses.ParseDate("endDate", *e.EndDate)
			if err != nil {
				return err
			}
			d.End = &end
		}
		n, err := store.RestoreExpense(ctx, tx, rs.userID, d, e.CreatedAt)
		if err != nil {
			return err
		}
		rs.count.Expenses++
		rs.count.ExpenseCharges += n
		return nil
	})
}
