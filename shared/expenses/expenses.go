// Package expenses is what trading costs besides the fills' fees: data
// feeds, platforms, education, hardware, subscriptions, and categories of
// the user's own. An expense is a definition, one-off or recurring monthly
// or yearly until it ends; its charges are materialised as rows
// (expense_charges, migration 0037) so that a period's total is one
// indexed sum.
//
// The Store owns every read and write of those tables, the way
// shared/dayjournal owns the daily journal: functions/expenses serves it,
// functions/backup carries it in the archive and back, shared/stats nets
// the statistics of it (GET /api/performance?netOfExpenses=true), and the
// expense-charges job (shared/jobs) materialises the periods that fall due
// as time passes. A write materialises the charges due up to today in the
// user's reporting zone in its own transaction, and an edit rewrites them;
// reads never write.
package expenses

import (
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
	"tradejournal/shared/journal"
	"tradejournal/shared/money"
)

// The built-in categories: every user has them, and their ids are these
// keys (a category of the user's own has a UUID).
const (
	CategoryData          = "data"
	CategoryPlatform      = "platform"
	CategoryEducation     = "education"
	CategoryHardware      = "hardware"
	CategorySubscriptions = "subscriptions"
	CategoryOther         = "other" // where a deleted category's expenses go
)

// BuiltIn lists the built-in categories in the order the API lists them.
var BuiltIn = []string{CategoryData, CategoryPlatform, CategoryEducation, CategoryHardware, CategorySubscriptions, CategoryOther}

// Limits of the expenses of one user.
const (
	MaxCategoryNameChars = 50
	MaxCategories        = 100 // of the user's own
	MaxNoteChars         = journal.MaxNoteChars
	MaxExpenses          = 5000
)

// The dates an expense takes (the columns' CHECKs): wide enough for any
// trading history, narrow enough that no date arithmetic on them leaves
// PostgreSQL's or Go's range.
var (
	FirstDay = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)
	LastDay  = time.Date(2199, 12, 31, 0, 0, 0, 0, time.UTC)
)

// dateRule is the message of a date out of FirstDay..LastDay.
const dateRule = "must be a date YYYY-MM-DD from 1900-01-01 to 2199-12-31"

// ParseDate reads an expense date, YYYY-MM-DD from FirstDay to LastDay
// (midnight UTC carrying the date); anything else is a VALIDATION_ERROR
// naming field.
func ParseDate(field, s string) (time.Time, error) {
	t, err := journal.ParseDate(s)
	if err != nil || t.Before(FirstDay) || t.After(LastDay) {
		return time.Time{}, apperr.Invalid(field, dateRule)
	}
	return t, nil
}

// ParseCurrency upper-cases code and checks it is an ISO 4217 code.
func ParseCurrency(field, code string) (string, error) {
	c := strings.ToUpper(strings.TrimSpace(code))
	if !money.ValidCurrency(c) {
		return "", apperr.Invalid(field, "must be an ISO 4217 currency code such as USD")
	}
	return c, nil
}

// IsBuiltIn reports whether id is a built-in category.
func IsBuiltIn(id string) bool { return slices.Contains(BuiltIn, id) }

// Definition is an expense as stored, checked: what a write writes and a
// schedule is made of. Exactly one of Category (a built-in) and
// CategoryID (the user's own) is set.
type Definition struct {
	Category   string
	CategoryID *string
	AccountID  *string
	Amount     decimal.Decimal
	Currency   string
	Note       string
	Schedule
}

// CategoryKey is the definition's category id as the API shows it.
func (d Definition) CategoryKey() string {
	if d.CategoryID != nil {
		return *d.CategoryID
	}
	return d.Category
}

// check holds a definition to the columns' rules (the edge's validation
// gives the field names; this is the last word for every path in,
// the import and the restore included).
func (d Definition) check(p *journal.Problems) {
	if d.CategoryID == nil && !IsBuiltIn(d.Category) {
		p.Add("category", "must be a category id from GET /api/expense-categories")
	}
	if !d.Amount.IsPositive() || d.Amount.GreaterThan(maxAmount) || !d.Amount.Equal(d.Amount.Truncate(4)) {
		if !p.Has("amount") {
			p.Add("amount", journal.AmountRule.Message+", with at most 4 decimal places")
		}
	}
	if !money.ValidCurrency(d.Currency) && !p.Has("currency") {
		p.Add("currency", "must be an ISO 4217 currency code such as USD")
	}
	if !slices.Contains(Recurrences, d.Recurrence) && !p.Has("recurrence") {
		p.Add("recurrence", "must be none, monthly or yearly")
	}
	if (d.Start.Before(FirstDay) || d.Start.After(LastDay)) && !p.Has("startDate") {
		p.Add("startDate", dateRule)
	}
	if d.End != nil && !p.Has("endDate") {
		switch {
		case d.End.Before(FirstDay) || d.End.After(LastDay):
			p.Add("endDate", dateRule)
		case d.End.Before(d.Start):
			p.Add("endDate", "must not be before startDate")
		}
	}
	if err := journal.Text("note", d.Note, MaxNoteChars); err != nil && !p.Has("note") {
		p.Merge(err)
	}
}

// maxAmount is the largest amount numeric(18,4) holds.
var maxAmount = decimal.RequireFromString("99999999999999.9999")

// Input is the body of POST and PATCH /api/expenses: an absent field is
// unchanged (a create requires amount and startDate; currency defaults to
// the account's, else the display currency; category to other; recurrence
// to none). accountId and endDate may be null (none).
type Input struct {
	Category   *string       `json:"category"`
	AccountID  journal.Field `json:"accountId,omitzero"`
	Amount     journal.Field `json:"amount,omitzero"`
	Currency   *string       `json:"currency"`
	Note       *string       `json:"note"`
	StartDate  *string       `json:"startDate"`
	Recurrence *string       `json:"recurrence"`
	EndDate    journal.Field `json:"endDate,omitzero"`
}

// apply returns base with in's fields applied, checking each field given
// on its own; what needs the database (the account and category being the
// user's, a default currency) and the fields together are resolve's.
func (in Input) apply(base Definition, create bool, p *journal.Problems) Definition {
	d := base
	if in.Category != nil {
		switch c := strings.TrimSpace(*in.Category); {
		case IsBuiltIn(c):
			d.Category, d.CategoryID = c, nil
		case db.ValidUUID(c):
			d.Category, d.CategoryID = "", &c
		default:
			p.Add("category", "must be a category id from GET /api/expense-categories")
		}
	}
	switch {
	case in.AccountID.Null:
		d.AccountID = nil
	case in.AccountID.NotString:
		p.Add("accountId", "must be an account id or null")
	case in.AccountID.Set:
		id := in.AccountID.Str
		if !db.ValidUUID(id) {
			p.Add("accountId", "must be one of your accounts")
		}
		d.AccountID = &id
	}
	if create {
		d.Amount, _ = p.RequiredDecimal("amount", in.Amount, journal.AmountRule)
	} else if in.Amount.Set {
		if in.Amount.Blank() {
			p.Add("amount", "is required")
		} else if v, ok := p.Decimal("amount", in.Amount, journal.AmountRule); ok {
			d.Amount = v
		}
	}
	if in.Currency != nil {
		c, err := ParseCurrency("currency", *in.Currency)
		p.Merge(err)
		d.Currency = c
	}
	if in.Note != nil {
		d.Note = *in.Note
		p.Merge(journal.Text("note", d.Note, MaxNoteChars))
	}
	switch {
	case in.StartDate != nil:
		t, err := ParseDate("startDate", *in.StartDate)
		p.Merge(err)
		d.Start = t
	case create:
		p.Add("startDate", "is required")
	}
	if in.Recurrence != nil {
		if !slices.Contains(Recurrences, *in.Recurrence) {
			p.Add("recurrence", "must be none, monthly or yearly")
		}
		d.Recurrence = *in.Recurrence
	}
	switch {
	case in.EndDate.Null:
		d.End = nil
	case in.EndDate.NotString:
		p.Add("endDate", dateRule+", or null")
	case in.EndDate.Set:
		t, err := ParseDate("endDate", in.EndDate.Str)
		p.Merge(err)
		d.End = &t
	}
	return d
}

// Expense is an expense as the API shows it. Category is its category's
// id (a built-in key or a UUID) and CategoryName its name; NextChargeOn
// is the first charge not recorded yet (null: none left); TotalCharged is
// the sum of its charges (those in the list's date range when it has
// one), in its currency.
type Expense struct {
	ID           string    `json:"id"`
	Category     string    `json:"category"`
	CategoryName string    `json:"categoryName"`
	AccountID    *string   `json:"accountId"`
	Amount       string    `json:"amount"`
	Currency     string    `json:"currency"`
	Note         string    `json:"note"`
	StartDate    string    `json:"startDate"`
	Recurrence   string    `json:"recurrence"`
	EndDate      *string   `json:"endDate"`
	NextChargeOn *string   `json:"nextChargeOn"`
	TotalCharged string    `json:"totalCharged"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
}

// Category is an expense category: a built-in one (BuiltIn: true, its id
// its key, no times) or one of the user's own.
type Category struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	BuiltIn   bool       `json:"builtIn"`
	CreatedAt *time.Time `json:"createdAt"`
	UpdatedAt *time.Time `json:"updatedAt"`
}

// Charge is one materialised charge.
type Charge struct {
	ExpenseID    string  `json:"expenseId"`
	Date         string  `json:"date"`
	Amount       string  `json:"amount"`
	Currency     string  `json:"currency"`
	Category     string  `json:"category"`
	CategoryName string  `json:"categoryName"`
	AccountID    *string `json:"accountId"`
	Note         string  `json:"note"`
}

func dateString(t time.Time) string { return t.Format(time.DateOnly) }

func datePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := dateString(*t)
	return &s
}

// amount4 formats a stored amount with its 4 places.
func amount4(d decimal.Decimal) string { return money.RoundN(d, 4) }
