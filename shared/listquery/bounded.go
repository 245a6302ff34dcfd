package listquery

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
	"tradejournal/shared/journal"
)

// BoundedPage is the keyset page of a list whose length a cap bounds
// (accounts, brokerages, tags, a position's images). Without a limit the
// list comes back whole after the cursor, as the web reads it; with one, a
// page of that many (ParseLimit) and a nextCursor when more follow.
type BoundedPage struct {
	limit int      // 0: no limit
	after []string // the sort keys of the last item seen, its id last; nil: from the start
}

// SortKey is one column a bounded list sorts on, ascending, the id last:
// how the cursor's key for it is checked and bound.
type SortKey struct {
	Column string            // SQL of the column: "created_at", "lower(name)"
	Param  string            // SQL of the cursor's key around its placeholder: "%s::timestamptz"
	Valid  func(string) bool // nil: any text
}

// IDKey is the last sort key of every bounded list (ParseKeys checks it).
var IDKey = SortKey{Column: "id", Param: "%s::uuid"}

// TimeKey sorts on a timestamptz column; its cursor key is RFC 3339,
// within the range PostgreSQL reads (journal.InDatabaseRange).
func TimeKey(column string) SortKey {
	return SortKey{Column: column, Param: "%s::timestamptz", Valid: func(s string) bool {
		t, err := time.Parse(time.RFC3339Nano, s)
		return err == nil && journal.InDatabaseRange(t)
	}}
}

// TimeKeyOf is the cursor key of a TimeKey column's value.
func TimeKeyOf(t time.Time) string { return t.Format(time.RFC3339Nano) }

// ParseBoundedPage reads limit and cursor; keys are the list's sort
// columns, the cursor's keys are checked against them: PostgreSQL would
// read a time key "yesterday" as a day, not refuse it.
func ParseBoundedPage(q url.Values, keys []SortKey) (BoundedPage, error) {
	var (
		p    journal.Problems
		page BoundedPage
		err  error
	)
	if v := q.Get("limit"); v != "" {
		if page.limit, err = ParseLimit(v); err != nil {
			p.Add("limit", "must be a whole number")
		}
	}
	page.after, err = ParseKeys(q.Get("cursor"), len(keys))
	for i, k := range page.after {
		if keys[i].Valid != nil && !keys[i].Valid(k) {
			err = ErrCursor
		}
	}
	if err != nil {
		p.Add("cursor", "is not a cursor from this list; omit it for the first page")
	}
	return page, p.Err()
}

// Query completes sql (a SELECT whose WHERE binds args) with the keyset
// condition, the order of keys and the limit.
func (page BoundedPage) Query(sql string, args []any, keys []SortKey) (string, []any) {
	columns := make([]string, len(keys))
	for i, k := range keys {
		columns[i] = k.Column
	}
	if page.after != nil {
		placeholders := make([]string, len(keys))
		for i, k := range keys {
			args = append(args, page.after[i])
			placeholders[i] = fmt.Sprintf(k.Param, "$"+strconv.Itoa(len(args)))
		}
		sql += ` AND (` + strings.Join(columns, ", ") + `) > (` + strings.Join(placeholders, ", ") + `)`
	}
	sql += ` ORDER BY ` + strings.Join(columns, ", ")
	if page.limit > 0 {
		args = append(args, page.limit+1)
		sql += ` LIMIT $` + strconv.Itoa(len(args))
	}
	return sql, args
}

// PageOf cuts the rows read by Query (one more than the limit when more
// follow) to the page, with the cursor of its last item (nil on the last
// page).
func PageOf[T any](rows []T, page BoundedPage, keys func(T) []string) ([]T, *string) {
	if page.limit == 0 || len(rows) <= page.limit {
		return rows, nil
	}
	rows = rows[:page.limit]
	next := EncodeKeys(keys(rows[page.limit-1])...)
	return rows, &next
}
