package accounts

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"tradejournal/shared/journal"
)

// boundedPage is the keyset page of a list whose length a per-user cap
// bounds (accounts, brokerages, tags). Without a limit the list comes back
// whole after the cursor, as the web reads it; with one, a page of that
// many (journal.ParseLimit) and a nextCursor when more follow.
type boundedPage struct {
	limit int      // 0: no limit
	after []string // the sort keys of the last item seen, its id last; nil: from the start
}

// sortKey is one column a bounded list sorts on, ascending, the id last:
// how the cursor's key for it is checked and bound.
type sortKey struct {
	column string            // SQL of the column: "created_at", "lower(name)"
	param  string            // SQL of the cursor's key around its placeholder: "%s::timestamptz"
	valid  func(string) bool // nil: any text
}

var (
	idKey   = sortKey{column: "id", param: "%s::uuid"} // journal.ParseKeys checks it
	timeKey = func(column string) sortKey {
		return sortKey{column: column, param: "%s::timestamptz", valid: func(s string) bool {
			_, err := time.Parse(time.RFC3339Nano, s)
			return err == nil
		}}
	}
)

// parseBoundedPage reads limit and cursor; keys are the list's sort
// columns, the cursor's keys are checked against them: PostgreSQL would
// read a time key "yesterday" as a day, not refuse it.
func parseBoundedPage(q url.Values, keys []sortKey) (boundedPage, error) {
	var (
		p    journal.Problems
		page boundedPage
		err  error
	)
	if v := q.Get("limit"); v != "" {
		if page.limit, err = journal.ParseLimit(v); err != nil {
			p.Add("limit", "must be a whole number")
		}
	}
	page.after, err = journal.ParseKeys(q.Get("cursor"), len(keys))
	for i, k := range page.after {
		if keys[i].valid != nil && !keys[i].valid(k) {
			err = journal.ErrCursor
		}
	}
	if err != nil {
		p.Add("cursor", "is not a cursor from this list; omit it for the first page")
	}
	return page, p.Err()
}

// query completes sql (a SELECT whose WHERE binds args) with the keyset
// condition, the order of keys and the limit.
func (page boundedPage) query(sql string, args []any, keys []sortKey) (string, []any) {
	columns := make([]string, len(keys))
	for i, k := range keys {
		columns[i] = k.column
	}
	if page.after != nil {
		placeholders := make([]string, len(keys))
		for i, k := range keys {
			args = append(args, page.after[i])
			placeholders[i] = fmt.Sprintf(k.param, "$"+strconv.Itoa(len(args)))
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

// pageOf cuts the rows read by query (one more than the limit when more
// follow) to the page, with the cursor of its last item.
func pageOf[T any](rows []T, page boundedPage, keys func(T) []string) list[T] {
	out := list[T]{Items: rows}
	if page.limit > 0 && len(rows) > page.limit {
		out.Items = rows[:page.limit]
		next := journal.EncodeKeys(keys(out.Items[page.limit-1])...)
		out.NextCursor = &next
	}
	return out
}
