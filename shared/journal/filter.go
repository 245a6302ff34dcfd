// Package journal holds the trading journal's shared rules: the list filter
// every journal route accepts, position arithmetic from fills, and the store
// functions that keep positions, fills and the account ledger consistent.
package journal

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
)

// Filter narrows positions the same way on every journal route: the
// positions list, performance and the dashboard. Dates are trading days in
// each position's account's time zone, inclusive.
type Filter struct {
	AccountID string
	Symbol    string
	Status    string
	TagID     string
	From      *time.Time // a date (midnight UTC carrying Y-M-D)
	To        *time.Time
}

// ParseFilter reads accountId, symbol, status, tagId, from and to
// (YYYY-MM-DD) from a query string.
func ParseFilter(q url.Values) (Filter, error) {
	var f Filter
	var problems []apperr.FieldError
	bad := func(field, msg string) { problems = append(problems, apperr.FieldError{Field: field, Message: msg}) }

	if v := q.Get("accountId"); v != "" {
		if !db.ValidUUID(v) {
			bad("accountId", "must be an account id")
		}
		f.AccountID = v
	}
	if v := strings.TrimSpace(q.Get("symbol")); v != "" {
		switch {
		case len(v) > 32:
			bad("symbol", "must be at most 32 characters")
		case !utf8.ValidString(v) || strings.ContainsRune(v, 0):
			bad("symbol", "must be text")
		}
		f.Symbol = strings.ToUpper(v)
	}
	if v := q.Get("status"); v != "" {
		if v != "draft" && v != "open" && v != "closed" {
			bad("status", "must be draft, open or closed")
		}
		f.Status = v
	}
	if v := q.Get("tagId"); v != "" {
		if !db.ValidUUID(v) {
			bad("tagId", "must be a tag id")
		}
		f.TagID = v
	}
	for _, d := range []struct {
		name string
		dst  **time.Time
	}{{"from", &f.From}, {"to", &f.To}} {
		if v := q.Get(d.name); v != "" {
			t, err := ParseDate(v)
			if err != nil {
				bad(d.name, "must be a date YYYY-MM-DD")
				continue
			}
			*d.dst = &t
		}
	}
	if f.From != nil && f.To != nil && f.To.Before(*f.From) {
		bad("to", "must not be before from")
	}
	return f, apperr.Fields(problems)
}

// ParseDate reads a calendar date YYYY-MM-DD of year 1 to 9999: Go reads
// year 0000, PostgreSQL refuses it (there is no year 0).
func ParseDate(s string) (time.Time, error) {
	if len(s) != 10 {
		return time.Time{}, errors.New("not a date")
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil || !InDatabaseRange(t) {
		return time.Time{}, errors.New("not a date")
	}
	return t, nil
}

// InDatabaseRange reports whether PostgreSQL reads t written as text the
// way Go does: a year from 1 to 9999 (Go reads 0000, PostgreSQL has no
// year 0) and a UTC offset within PostgreSQL's +-15:59 (Go reads up to
// +-23:59).
func InDatabaseRange(t time.Time) bool {
	_, offset := t.Zone()
	return t.Year() >= 1 && t.Year() <= 9999 && offset > -16*3600 && offset < 16*3600
}

// SQL returns the filter as a WHERE fragment over positions aliased p and
// their accounts aliased a (the caller joins them), appending its arguments
// to args. dateColumn is the position time the date range applies to
// ("p.opened_at" for lists, "p.closed_at" for performance); the range is
// read in the account's trading-day zone.
func (f Filter) SQL(args *[]any, dateColumn string) string {
	var conds []string
	arg := func(v any) string {
		*args = append(*args, v)
		return "$" + strconv.Itoa(len(*args))
	}
	if f.AccountID != "" {
		conds = append(conds, "p.account_id = "+arg(f.AccountID))
	}
	if f.Symbol != "" {
		conds = append(conds, "p.symbol = "+arg(f.Symbol))
	}
	if f.Status != "" {
		conds = append(conds, "p.status = "+arg(f.Status))
	}
	if f.TagID != "" {
		conds = append(conds, "EXISTS (SELECT 1 FROM position_tags pt WHERE pt.position_id = p.id AND pt.tag_id = "+arg(f.TagID)+")")
	}
	if f.From != nil {
		conds = append(conds, "("+dateColumn+" AT TIME ZONE a.timezone)::date >= "+arg(f.From.Format(time.DateOnly))+"::date")
	}
	if f.To != nil {
		conds = append(conds, "("+dateColumn+" AT TIME ZONE a.timezone)::date <= "+arg(f.To.Format(time.DateOnly))+"::date")
	}
	if len(conds) == 0 {
		return "TRUE"
	}
	return strings.Join(conds, " AND ")
}
