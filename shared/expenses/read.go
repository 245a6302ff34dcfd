package expenses

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/fx"
	"tradejournal/shared/fx/fxdb"
	"tradejournal/shared/journal"
	"tradejournal/shared/listquery"
	"tradejournal/shared/money"
)

// Filter narrows the expense lists: From and To bound the charge dates
// (inclusive; nil: unbounded), Category is a category id (a built-in key
// or a UUID; "": any), AccountID an account id ("": any).
type Filter struct {
	From, To  *time.Time
	Category  string
	AccountID string
}

// Query is a list's filter and page.
type Query struct {
	Filter
	After *listquery.Cursor
	Limit int
}

// ParseFilter reads from, to, category and accountId.
func ParseFilter(q url.Values, p *journal.Problems) Filter {
	var f Filter
	for _, d := range []struct {
		name string
		dst  **time.Time
	}{{"from", &f.From}, {"to", &f.To}} {
		if v := q.Get(d.name); v != "" {
			t, err := ParseDate(d.name, v)
			if err != nil {
				p.Merge(err)
				continue
			}
			*d.dst = &t
		}
	}
	if f.From != nil && f.To != nil && f.To.Before(*f.From) {
		p.Add("to", "must not be before from")
	}
	if v := q.Get("category"); v != "" {
		if !IsBuiltIn(v) && !db.ValidUUID(v) {
			p.Add("category", "must be a category id from GET /api/expense-categories")
		}
		f.Category = v
	}
	if v := q.Get("accountId"); v != "" {
		if !db.ValidUUID(v) {
			p.Add("accountId", "must be an account id")
		}
		f.AccountID = v
	}
	return f
}

// ParseQuery reads a list's filter, limit and cursor (listquery's).
func ParseQuery(q url.Values) (Query, error) {
	var p journal.Problems
	out := Query{Filter: ParseFilter(q, &p)}
	var err error
	if out.Limit, err = listquery.ParseLimit(q.Get("limit")); err != nil {
		p.Add("limit", "must be a whole number")
	}
	if out.After, err = listquery.ParseCursor(q.Get("cursor")); err != nil || out.After != nil &&
		(out.After.At == nil || out.After.At.Before(FirstDay) || out.After.At.After(LastDay)) {
		p.Add("cursor", "is not a cursor from this list; omit it for the first page")
	}
	return out, p.Err()
}

// conditions is f's WHERE fragment over expenses e, appending to args.
func (f Filter) conditions(args *[]any) string {
	arg := func(v any) string {
		*args = append(*args, v)
		return "$" + strconv.Itoa(len(*args))
	}
	var conds []string
	switch {
	case f.Category == "":
	case IsBuiltIn(f.Category):
		conds = append(conds, "e.category = "+arg(f.Category))
	default:
		conds = append(conds, "e.category_id = "+arg(f.Category)+"::uuid")
	}
	if f.AccountID != "" {
		conds = append(conds, "e.account_id = "+arg(f.AccountID)+"::uuid")
	}
	if len(conds) == 0 {
		return "TRUE"
	}
	return strings.Join(conds, " AND ")
}

// Page is one page of a list; NextCursor is null on the last.
type Page[T any] struct {
	Items      []T     `json:"items"`
	NextCursor *string `json:"nextCursor"`
}

// List pages through the user's expenses, newest start date first (then
// id), by keyset. With a date range it lists the expenses with a charge in
// it, each with the total of those charges.
func (s *Store) List(ctx context.Context, userID string, q Query) (Page[Expense], error) {
	args := []any{userID, q.From, q.To}
	sql := `SELECT ` + expenseColumns("$2", "$3") + expenseFrom + ` WHERE e.user_id = $1 AND ` + q.conditions(&args)
	if q.From != nil || q.To != nil {
		sql += ` AND EXISTS (SELECT 1 FROM expense_charges x WHERE x.expense_id = e.id
			AND ($2::date IS NULL OR x.charge_on >= $2::date) AND ($3::date IS NULL OR x.charge_on <= $3::date))`
	}
	if q.After != nil {
		args = append(args, *q.After.At, q.After.ID)
		sql += ` AND (e.start_on, e.id) < ($` + strconv.Itoa(len(args)-1) + `::date, $` + strconv.Itoa(len(args)) + `::uuid)`
	}
	args = append(args, q.Limit+1)
	sql += ` ORDER BY e.start_on DESC, e.id DESC LIMIT $` + strconv.Itoa(len(args))
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return Page[Expense]{}, db.Classify(err)
	}
	items, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Expense, error) { return scanExpense(r) })
	if err != nil {
		return Page[Expense]{}, db.Classify(err)
	}
	return pageOf(items, q.Limit, func(e Expense) listquery.Cursor {
		at, _ := time.Parse(time.DateOnly, e.StartDate)
		return listquery.Cursor{At: &at, ID: e.ID}
	}), nil
}

func pageOf[T any](items []T, limit int, cursor func(T) listquery.Cursor) Page[T] {
	page := Page[T]{Items: items}
	if page.Items == nil {
		page.Items = []T{}
	}
	if len(items) > limit {
		page.Items = items[:limit]
		next := cursor(page.Items[limit-1]).Encode()
		page.NextCursor = &next
	}
	return page
}

// Charges pages through the user's materialised charges, newest first
// (then by expense id), by keyset.
func (s *Store) Charges(ctx context.Context, userID string, q Query) (Page[Charge], error) {
	args := []any{userID, q.From, q.To}
	sql := `SELECT c.expense_id::text, c.charge_on, c.amount, c.currency::text, coalesce(e.category_id::text, e.category),
			coalesce(k.name, e.category), e.account_id::text, e.note
		FROM expense_charges c JOIN expenses e ON e.id = c.expense_id LEFT JOIN expense_categories k ON k.id = e.category_id
		WHERE c.user_id = $1 AND ($2::date IS NULL OR c.charge_on >= $2::date) AND ($3::date IS NULL OR c.charge_on <= $3::date)
			AND ` + q.conditions(&args)
	if q.After != nil {
		args = append(args, *q.After.At, q.After.ID)
		sql += ` AND (c.charge_on, c.expense_id) < ($` + strconv.Itoa(len(args)-1) + `::date, $` + strconv.Itoa(len(args)) + `::uuid)`
	}
	args = append(args, q.Limit+1)
	sql += ` ORDER BY c.charge_on DESC, c.expense_id DESC LIMIT $` + strconv.Itoa(len(args))
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return Page[Charge]{}, db.Classify(err)
	}
	items, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Charge, error) {
		var (
			c      Charge
			day    time.Time
			amount decimal.Decimal
		)
		err := r.Scan(&c.ExpenseID, &day, &amount, &c.Currency, &c.Category, &c.CategoryName, &c.AccountID, &c.Note)
		c.Date, c.Amount = dateString(day), amount4(amount)
		return c, err
	})
	if err != nil {
		return Page[Charge]{}, db.Classify(err)
	}
	return pageOf(items, q.Limit, func(c Charge) listquery.Cursor {
		at, _ := time.Parse(time.DateOnly, c.Date)
		return listquery.Cursor{At: &at, ID: c.ExpenseID}
	}), nil
}

// MonthSum is the charges of one month in one currency (and, for the
// summary, one category).
type MonthSum struct {
	Month    string // "2024-05"
	Category string // its id; "" when not asked for
	Currency string
	Amount   decimal.Decimal
}

// Sums is the user's charges from from through to (nil: unbounded) by
// month and currency (and category, when byCategory), in one indexed sum.
// accountIDs, when given, keeps the charges of expenses of those accounts;
// without them an expense of no account counts too (it is the trader's
// overall cost, which no one account carries).
func Sums(ctx context.Context, q db.Querier, userID string, from, to *time.Time, accountIDs []string, byCategory bool) ([]MonthSum, error) {
	category := `''`
	if byCategory {
		category = `coalesce(e.category_id::text, e.category)`
	}
	sql := `SELECT to_char(c.charge_on, 'YYYY-MM'), ` + category + `, c.currency::text, sum(c.amount)
		FROM expense_charges c JOIN expenses e ON e.id = c.expense_id
		WHERE c.user_id = $1 AND ($2::date IS NULL OR c.charge_on >= $2::date) AND ($3::date IS NULL OR c.charge_on <= $3::date)
			AND ($4::uuid[] IS NULL OR e.account_id = ANY($4::uuid[]))
		GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`
	var accounts any
	if len(accountIDs) > 0 {
		accounts = accountIDs
	}
	rows, err := q.Query(ctx, sql, userID, from, to, accounts)
	if err != nil {
		return nil, db.Classify(err)
	}
	var (
		m   MonthSum
		out []MonthSum
	)
	_, err = pgx.ForEachRow(rows, []any{&m.Month, &m.Category, &m.Currency, &m.Amount}, func() error {
		out = append(out, m)
		return nil
	})
	return out, classify(err)
}

// Amount is a sum in one currency.
type Amount struct {
	Currency string `json:"currency"`
	Amount   string `json:"amount"`
}

// Converted is sums in their own currencies and their total in the
// display currency (null without a display currency, or when one of its
// currencies has no rate in force).
type Converted struct {
	Amounts   []Amount `json:"amounts"`
	Converted *string  `json:"converted"`
}

// SummaryCategory is one category's charges.
type SummaryCategory struct {
	Category string `json:"category"`
	Name     string `json:"name"`
	Converted
}

// SummaryMonth is one month's charges.
type SummaryMonth struct {
	Month string `json:"month"`
	Converted
}

// MissingRate names a pair without a rate in force on a day.
type MissingRate struct {
	Pair string `json:"pair"`
	Day  string `json:"day"`
}

// Summary is the body of GET /api/expenses/summary.
type Summary struct {
	From            *string           `json:"from"`
	To              *string           `json:"to"`
	DisplayCurrency *string           `json:"displayCurrency"`
	RateDay         string            `json:"rateDay"`
	Total           Converted         `json:"total"`
	ByCategory      []SummaryCategory `json:"byCategory"`
	ByMonth         []SummaryMonth    `json:"byMonth"`
	Missing         []MissingRate     `json:"missing"`
}

// Summary totals the user's charges from from through to by category and
// by month, each in its own currencies and converted into the display
// currency with the spot rates of today in the user's reporting zone (the
// rates of GET /api/dashboard/totals and of the statistics, so the
// expenses net against the P&L at one rate). A pair without a rate is
// named in Missing with the day it was looked for, and every total that
// needs it is null, never a silent zero.
func (s *Store) Summary(ctx context.Context, u auth.User, from, to *time.Time) (Summary, error) {
	out := Summary{From: datePtr(from), To: datePtr(to), DisplayCurrency: u.DisplayCurrency,
		ByCategory: []SummaryCategory{}, ByMonth: []SummaryMonth{}, Missing: []MissingRate{}}
	day := fx.Today(s.now(), u.Timezone)
	out.RateDay = dateString(day)
	display := ""
	if u.DisplayCurrency != nil {
		display = *u.DisplayCurrency
	}
	var (
		sums  []MonthSum
		names = map[string]string{}
		snap  fxdb.Snapshot
	)
	err := pgx.BeginTxFunc(ctx, s.pool, db.Snapshot, func(tx pgx.Tx) error {
		var err error
		if sums, err = Sums(ctx, tx, u.ID, from, to, nil, true); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT id::text, name FROM expense_categories WHERE user_id = $1`, u.ID)
		if err != nil {
			return db.Classify(err)
		}
		var id, name string
		if _, err := pgx.ForEachRow(rows, []any{&id, &name}, func() error { names[id] = name; return nil }); err != nil {
			return db.Classify(err)
		}
		if display != "" {
			snap, err = fxdb.Load(ctx, tx, fxdb.Query{UserID: u.ID, Display: display, Day: day, Keep: 1})
		}
		return err
	})
	if err != nil {
		return Summary{}, err
	}
	convert := func(amounts []fx.Amount) Converted {
		c := Converted{Amounts: make([]Amount, len(amounts))}
		for i, a := range amounts {
			c.Amounts[i] = Amount{Currency: a.Currency, Amount: amount4(a.Value)}
		}
		if display == "" {
			return c
		}
		total, missing, ok := fx.Total(amounts, snap.Rates, display, day)
		if ok {
			v := money.RoundN(total, fx.Places)
			c.Converted = &v
		}
		for _, pair := range missing {
			if !slices.ContainsFunc(out.Missing, func(m MissingRate) bool { return m.Pair == pair }) {
				out.Missing = append(out.Missing, MissingRate{Pair: pair, Day: out.RateDay})
			}
		}
		return c
	}
	var all []fx.Amount
	byCategory, byMonth := map[string][]fx.Amount{}, map[string][]fx.Amount{}
	var categories, months []string
	for _, m := range sums {
		all = addAmount(all, m.Currency, m.Amount)
		if _, ok := byCategory[m.Category]; !ok {
			categories = append(categories, m.Category)
		}
		if _, ok := byMonth[m.Month]; !ok {
			months = append(months, m.Month)
		}
		byCategory[m.Category] = addAmount(byCategory[m.Category], m.Currency, m.Amount)
		byMonth[m.Month] = addAmount(byMonth[m.Month], m.Currency, m.Amount)
	}
	out.Total = convert(all)
	slices.Sort(categories)
	for _, c := range categories {
		name := c
		if n, ok := names[c]; ok {
			name = n
		}
		out.ByCategory = append(out.ByCategory, SummaryCategory{Category: c, Name: name, Converted: convert(byCategory[c])})
	}
	for _, m := range months { // Sums orders by month
		out.ByMonth = append(out.ByMonth, SummaryMonth{Month: m, Converted: convert(byMonth[m])})
	}
	slices.SortFunc(out.Missing, func(a, b MissingRate) int { return strings.Compare(a.Pair, b.Pair) })
	return out, nil
}

// addAmount adds v in currency to list (one entry per currency, in
// alphabetical order).
func addAmount(list []fx.Amount, currency string, v decimal.Decimal) []fx.Amount {
	i, found := slices.BinarySearchFunc(list, currency, func(a fx.Amount, c string) int { return strings.Compare(a.Currency, c) })
	if found {
		list[i].Value = list[i].Value.Add(v)
		return list
	}
	return slices.Insert(list, i, fx.Amount{Currency: currency, Value: v})
}

// AddAmount is addAmount for the statistics' sums (shared/stats).
func AddAmount(list []fx.Amount, currency string, v decimal.Decimal) []fx.Amount {
	return addAmount(list, currency, v)
}
