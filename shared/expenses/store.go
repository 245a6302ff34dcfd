package expenses

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
	"tradejournal/shared/fx"
	"tradejournal/shared/journal"
)

// Store reads and writes the user's expenses, their charges and their
// categories.
//
// Lock order, in every write: the user's row (FOR NO KEY UPDATE: the
// user's expense writes take turns, so the caps hold and a category's
// deletion never waits on an expense write in a circle), the account an
// expense names (FOR KEY SHARE), then the expense rows. The job takes only
// expense rows, SKIP LOCKED.
type Store struct {
	pool *pgxpool.Pool
	now  func() time.Time
}

// New returns the store over pool; now is the clock "today" is read from.
func New(pool *pgxpool.Pool, now func() time.Time) *Store {
	return &Store{pool: pool, now: now}
}

// errOutOfRange answers a sum or amount PostgreSQL cannot hold.
var errOutOfRange = apperr.Invalid("amount", "the amounts are too large to record")

// classify is db.Classify plus numeric overflow (22003) as a 400.
func classify(err error) error {
	var pg *pgconn.PgError
	if errors.As(err, &pg) && pg.Code == "22003" {
		return errOutOfRange
	}
	return db.Classify(err)
}

// lockUser takes the user's row for the write and returns the user's
// today: the calendar day of now in the reporting zone (users.timezone).
func (s *Store) lockUser(ctx context.Context, tx pgx.Tx, userID string) (time.Time, error) {
	var zone string
	if err := tx.QueryRow(ctx, `SELECT timezone FROM users WHERE id = $1 FOR NO KEY UPDATE`, userID).Scan(&zone); err != nil {
		return time.Time{}, db.Classify(err)
	}
	return fx.Today(s.now(), zone), nil
}

// checkAccount holds the definition's account to the user's accounts
// (locked FOR KEY SHARE until the write ends) and returns its currency.
func checkAccount(ctx context.Context, tx pgx.Tx, userID, accountID string) (string, error) {
	var currency string
	err := tx.QueryRow(ctx, `SELECT currency::text FROM accounts WHERE id = $1 AND user_id = $2 FOR KEY SHARE`, accountID, userID).Scan(&currency)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", apperr.Invalid("accountId", "is not one of your accounts")
	}
	return currency, db.Classify(err)
}

// checkCategory holds a category id of the user's own to the user's
// categories.
func checkCategory(ctx context.Context, tx pgx.Tx, userID, categoryID string) error {
	var ok bool
	err := tx.QueryRow(ctx, `SELECT true FROM expense_categories WHERE id = $1 AND user_id = $2 FOR KEY SHARE`, categoryID, userID).Scan(&ok)
	if errors.Is(err, pgx.ErrNoRows) {
		return apperr.Invalid("category", "is not one of your categories")
	}
	return db.Classify(err)
}

// Create records an expense and its charges due up to today.
func (s *Store) Create(ctx context.Context, userID string, in Input) (Expense, error) {
	var p journal.Problems
	d := in.apply(Definition{Category: CategoryOther, Schedule: Schedule{Recurrence: RecurNone}}, true, &p)
	if err := p.Err(); err != nil {
		return Expense{}, err
	}
	var out Expense
	err := db.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		today, err := s.lockUser(ctx, tx, userID)
		if err != nil {
			return err
		}
		if d, err = s.resolve(ctx, tx, userID, d, in.Currency == nil); err != nil {
			return err
		}
		if err := checkCount(ctx, tx, userID, 1); err != nil {
			return err
		}
		id, _, err := insert(ctx, tx, userID, d, today, nil)
		if err != nil {
			return err
		}
		out, err = readExpense(ctx, tx, userID, id, nil, nil)
		return err
	})
	return out, err
}

// resolve checks what the definition names (its account, its category)
// against the user's, fills a missing currency (the account's, else the
// display currency) and holds it to the columns' rules.
func (s *Store) resolve(ctx context.Context, tx pgx.Tx, userID string, d Definition, defaultCurrency bool) (Definition, error) {
	var p journal.Problems
	if d.AccountID != nil {
		currency, err := checkAccount(ctx, tx, userID, *d.AccountID)
		if err != nil {
			return d, err
		}
		if defaultCurrency && d.Currency == "" {
			d.Currency = currency
		}
	}
	if defaultCurrency && d.Currency == "" {
		var display *string
		if err := tx.QueryRow(ctx, `SELECT display_currency::text FROM users WHERE id = $1`, userID).Scan(&display); err != nil {
			return d, db.Classify(err)
		}
		if display == nil {
			p.Add("currency", "is required (you have no display currency, and the expense names no account)")
			return d, p.Err()
		}
		d.Currency = *display
	}
	if d.CategoryID != nil {
		if err := checkCategory(ctx, tx, userID, *d.CategoryID); err != nil {
			return d, err
		}
	}
	d.check(&p)
	return d, p.Err()
}

// checkCount refuses adding n expenses past MaxExpenses (the user's row is
// locked, so two writes never both pass).
func checkCount(ctx context.Context, tx pgx.Tx, userID string, n int) error {
	var have int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM expenses WHERE user_id = $1`, userID).Scan(&have); err != nil {
		return db.Classify(err)
	}
	if have+n > MaxExpenses {
		return apperr.New(apperr.Conflict, "you have %d expenses; one user may have at most %d", have, MaxExpenses)
	}
	return nil
}

// insert writes a checked definition and materialises its charges due up
// to today; createdAt nil is now. It returns the new id and the number of
// charges written.
func insert(ctx context.Context, tx pgx.Tx, userID string, d Definition, today time.Time, createdAt *time.Time) (string, int, error) {
	const ins = `INSERT INTO expenses (user_id, account_id, category, category_id, amount, currency, note, start_on, recurrence, end_on,
			created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, coalesce($11, now()), coalesce($11, now())) RETURNING id::text`
	var id string
	if err := tx.QueryRow(ctx, ins, userID, d.AccountID, nullIfEmpty(d.Category), d.CategoryID, d.Amount, d.Currency, d.Note,
		d.Start, d.Recurrence, d.End, createdAt).Scan(&id); err != nil {
		return "", 0, classify(err)
	}
	n, err := materialise(ctx, tx, userID, id, d, d.Start, today)
	return id, n, err
}

func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// materialise writes d's charges from from through today (those already
// there stay: ON CONFLICT DO NOTHING, so a late or second run adds
// nothing twice) and records the next charge date. It returns how many
// it wrote.
func materialise(ctx context.Context, tx pgx.Tx, userID, expenseID string, d Definition, from, today time.Time) (int, error) {
	dates, next := d.Due(from, today)
	n := 0
	if len(dates) > 0 {
		const ins = `INSERT INTO expense_charges (expense_id, user_id, charge_on, amount, currency)
			SELECT $1, $2, day, $4, $5 FROM unnest($3::date[]) AS day ON CONFLICT DO NOTHING`
		tag, err := tx.Exec(ctx, ins, expenseID, userID, dates, d.Amount, d.Currency)
		if err != nil {
			return 0, classify(err)
		}
		n = int(tag.RowsAffected())
	}
	_, err := tx.Exec(ctx, `UPDATE expenses SET next_charge_on = $2 WHERE id = $1`, expenseID, next)
	return n, db.Classify(err)
}

// Update changes the given fields of the user's expense and rewrites its
// charges from the new definition, in one transaction: no total ever sees
// the old charges and the new definition together.
func (s *Store) Update(ctx context.Context, userID, id string, in Input) (Expense, error) {
	if !db.ValidUUID(id) {
		return Expense{}, apperr.ErrNotFound
	}
	var p journal.Problems
	in.apply(Definition{}, false, &p) // the fields' own checks, before any lock
	if err := p.Err(); err != nil {
		return Expense{}, err
	}
	var out Expense
	err := db.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		today, err := s.lockUser(ctx, tx, userID)
		if err != nil {
			return err
		}
		if in.AccountID.Given() {
			if _, err := checkAccount(ctx, tx, userID, in.AccountID.Str); err != nil {
				return err
			}
		}
		base, err := lockDefinition(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		var p journal.Problems
		d := in.apply(base, false, &p)
		if err := p.Err(); err != nil {
			return err
		}
		if d, err = s.resolve(ctx, tx, userID, d, false); err != nil {
			return err
		}
		const upd = `UPDATE expenses SET account_id = $2, category = $3, category_id = $4, amount = $5, currency = $6, note = $7,
			start_on = $8, recurrence = $9, end_on = $10, updated_at = now() WHERE id = $1`
		if _, err := tx.Exec(ctx, upd, id, d.AccountID, nullIfEmpty(d.Category), d.CategoryID, d.Amount, d.Currency, d.Note,
			d.Start, d.Recurrence, d.End); err != nil {
			return classify(err)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM expense_charges WHERE expense_id = $1`, id); err != nil {
			return db.Classify(err)
		}
		if _, err := materialise(ctx, tx, userID, id, d, d.Start, today); err != nil {
			return err
		}
		out, err = readExpense(ctx, tx, userID, id, nil, nil)
		return err
	})
	return out, err
}

const definitionColumns = `category, category_id::text, account_id::text, amount, currency::text, note, start_on, recurrence, end_on`

func definitionScan(d *Definition, category **string) []any {
	return []any{category, &d.CategoryID, &d.AccountID, &d.Amount, &d.Currency, &d.Note, &d.Start, &d.Recurrence, &d.End}
}

// lockDefinition reads the user's expense FOR UPDATE; a missing or
// foreign id is apperr.ErrNotFound.
func lockDefinition(ctx context.Context, tx pgx.Tx, userID, id string) (Definition, error) {
	var (
		d        Definition
		category *string
	)
	err := tx.QueryRow(ctx, `SELECT `+definitionColumns+` FROM expenses WHERE id = $1 AND user_id = $2 FOR UPDATE`, id, userID).
		Scan(definitionScan(&d, &category)...)
	if err != nil {
		return Definition{}, db.Classify(err)
	}
	if category != nil {
		d.Category = *category
	}
	return d, nil
}

// Delete deletes the user's expense with its charges: every total loses
// them at once.
func (s *Store) Delete(ctx context.Context, userID, id string) error {
	if !db.ValidUUID(id) {
		return apperr.ErrNotFound
	}
	return db.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := s.lockUser(ctx, tx, userID); err != nil {
			return err
		}
		return db.DeleteOwned(ctx, tx, "expenses", id, userID)
	})
}

// Expense reads one of the user's expenses with the total of all its
// charges; a malformed, missing or foreign id is apperr.ErrNotFound.
func (s *Store) Expense(ctx context.Context, userID, id string) (Expense, error) {
	if !db.ValidUUID(id) {
		return Expense{}, apperr.ErrNotFound
	}
	return readExpense(ctx, s.pool, userID, id, nil, nil)
}

// expenseColumns are an Expense's, over expenses e and its category k,
// with the sum of its charges from $from through $to (placeholders the
// caller names; NULL: unbounded).
func expenseColumns(from, to string) string {
	return `e.id::text, coalesce(e.category_id::text, e.category), coalesce(k.name, e.category), e.account_id::text, e.amount,
		e.currency::text, e.note, e.start_on, e.recurrence, e.end_on, e.next_charge_on, e.created_at, e.updated_at,
		coalesce((SELECT sum(x.amount) FROM expense_charges x WHERE x.expense_id = e.id
			AND (` + from + `::date IS NULL OR x.charge_on >= ` + from + `::date)
			AND (` + to + `::date IS NULL OR x.charge_on <= ` + to + `::date)), 0)`
}

const expenseFrom = ` FROM expenses e LEFT JOIN expense_categories k ON k.id = e.category_id`

func scanExpense(row pgx.Row) (Expense, error) {
	var (
		e             Expense
		amount, total decimal.Decimal
		start         time.Time
		end, next     *time.Time
	)
	err := row.Scan(&e.ID, &e.Category, &e.CategoryName, &e.AccountID, &amount, &e.Currency, &e.Note, &start, &e.Recurrence, &end, &next,
		&e.CreatedAt, &e.UpdatedAt, &total)
	if err != nil {
		return Expense{}, err
	}
	e.Amount, e.TotalCharged = amount4(amount), amount4(total)
	e.StartDate, e.EndDate, e.NextChargeOn = dateString(start), datePtr(end), datePtr(next)
	return e, nil
}

// readExpense reads one expense, its total over from..to.
func readExpense(ctx context.Context, q db.Querier, userID, id string, from, to *time.Time) (Expense, error) {
	e, err := scanExpense(q.QueryRow(ctx, `SELECT `+expenseColumns("$3", "$4")+expenseFrom+` WHERE e.id = $1 AND e.user_id = $2`,
		id, userID, from, to))
	return e, db.Classify(err)
}
