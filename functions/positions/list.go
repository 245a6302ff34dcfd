package positions

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/httpx"
	"tradejournal/shared/journal"
	"tradejournal/shared/journalstore"
	"tradejournal/shared/listquery"
)

// Page is one page of the positions list.
type Page struct {
	Items      []journalstore.Summary `json:"items"`
	NextCursor *string                `json:"nextCursor"`
}

// list answers GET /api/positions: a page of the user's positions in the
// order sort asks (listquery.ParseSort; newest opened first by default),
// by keyset on (the sorted column, id) so that page 400 costs what page 1
// does. Filters are listquery.ParseFilter's (accounts, symbols, status,
// tags in and out, side, asset types, entry weekday and hour, from/to on the
// opened date, or with dateBy=closed the close date, in the account's
// trading-day zone); limit defaults to 50 and is clamped to 1..200.
func (h handler) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var details []apperr.FieldError
	collect := func(err error) {
		if e, ok := apperr.As(err); ok {
			details = append(details, e.Details...)
		}
	}
	f, err := listquery.ParseFilter(q)
	collect(err)
	sort, sortErr := listquery.ParseSort(q.Get("sort"))
	collect(sortErr)
	limit, err := listquery.ParseLimit(q.Get("limit"))
	collect(err)
	var cursor *listquery.SortCursor
	if sortErr == nil { // a cursor is read in its sort's terms
		cursor, err = sort.ParseCursor(q.Get("cursor"))
		collect(err)
	}
	if err := apperr.Fields(details); err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	page, err := ListPositions(ctx, h.app.DB, auth.CurrentUser(ctx).ID, f, sort, cursor, limit, h.app.Now())
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, page)
}

// ListPositions returns one page of the user's positions in order s as of
// now: one indexed query for the page (an index on the sorted column and
// id, or of the filtered column in the same order; a second when the page
// runs on from the positions with the sorted value into those without it)
// and one for the page's tags.
func ListPositions(ctx context.Context, q db.Querier, userID string, f listquery.Filter, s listquery.Sort, after *listquery.SortCursor, limit int, now time.Time) (Page, error) {
	var (
		sum   journalstore.Summary
		key   *string
		items = make([]journalstore.Summary, 0, limit+1)
		keys  = make([]*string, 0, limit+1)
	)
	for i, nulls := range pagePhases(s, after) {
		if i > 0 {
			after = nil // the next run starts at its beginning
		}
		sql, args := listQuery(userID, f, s, nulls, after, limit+1-len(items))
		if len(f.TagIDs)+len(f.ExcludeTagIDs)+len(f.PlaybookIDs) > 0 {
			// How many positions carry a tag (or follow a playbook) varies from
			// one to all of them, and the best plan with it (walk the list
			// index, or start from the tag's few positions): plan each time
			// with the value, never with a cached generic plan that may walk
			// 100,000 rows for a rare tag.
			args = append([]any{pgx.QueryExecModeCacheDescribe}, args...)
		}
		rows, err := q.Query(ctx, sql, args...)
		if err != nil {
			return Page{}, db.Classify(err)
		}
		if _, err := pgx.ForEachRow(rows, journalstore.ScanSummary(&sum, &key), func() error {
			sum.Tags = []journal.Tag{}
			sum.SetAwaitingExpiry(now)
			items, keys = append(items, sum), append(keys, key)
			return nil
		}); err != nil {
			return Page{}, db.Classify(err)
		}
		if len(items) > limit {
			break
		}
	}
	page := Page{Items: items}
	if len(items) > limit {
		page.Items = items[:limit]
		next := s.Encode(listquery.SortCursor{Value: keys[limit-1], ID: items[limit-1].ID})
		page.NextCursor = &next
	}
	if len(page.Items) == 0 {
		return page, nil
	}
	ids := make([]string, len(page.Items))
	for i, s := range page.Items {
		ids[i] = s.ID
	}
	tags, err := journalstore.TagsOf(ctx, q, ids)
	if err != nil {
		return Page{}, err
	}
	for i := range page.Items {
		if t := tags[page.Items[i].ID]; t != nil {
			page.Items[i].Tags = t
		}
	}
	return page, nil
}

// pagePhases are the runs a page reads in order, each one indexed query:
// the positions with the sorted value (false) and, for a nullable column,
// those without it (true), first or last as s places them. A page starts
// in the run its cursor is in.
func pagePhases(s listquery.Sort, after *listquery.SortCursor) []bool {
	if !s.Nullable {
		return []bool{false}
	}
	runs := []bool{false, true}
	if s.NullsFirst {
		runs = []bool{true, false}
	}
	if after != nil && (after.Value == nil) != runs[0] {
		return runs[1:]
	}
	return runs
}

// Time zones are between UTC-12 and UTC+14, so a trading day D in any
// account's zone lies within [D - 14h, D + 1 day + 12h) in UTC.
const (
	maxZoneAhead  = 14 * time.Hour
	maxZoneBehind = 12 * time.Hour
)

// listQuery builds the query of one run of a page (pagePhases): the
// positions with the sorted value, or (nulls) those without it. Both
// order by (column, id) in s's direction, which an index on (user_id,
// column, id) gives read forward or backward, the run without a value
// included (its column is all NULL). Beside the filter's own conditions it
// bounds opened_at in UTC by the widest reading of the date range (any zone
// on earth), which changes no answer but lets the index scan start and stop
// near the range instead of filtering every newer row.
func listQuery(userID string, f listquery.Filter, s listquery.Sort, nulls bool, after *listquery.SortCursor, limit int) (string, []any) {
	args := []any{userID}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	sql := `SELECT ` + journalstore.SummaryColumns + `, ` + s.Key + ` FROM positions p`
	if f.NeedsAccount() {
		sql += ` JOIN accounts a ON a.id = p.account_id`
	}
	dated := "p.opened_at"
	if f.ByClose {
		dated = "p.closed_at"
	}
	sql += ` WHERE p.user_id = $1 AND ` + f.SQL(&args, dated)
	if f.Status == journal.StatusDraft || f.Status == journal.StatusOpen {
		// Implied by the filter; as a literal it lets the planner use the
		// partial index positions_user_unclosed_idx (migrations/0005).
		sql += ` AND p.status <> 'closed'`
	}
	if f.From != nil {
		sql += ` AND ` + dated + ` >= ` + arg(f.From.Add(-maxZoneAhead))
	}
	if f.To != nil {
		sql += ` AND ` + dated + ` < ` + arg(f.To.Add(24*time.Hour+maxZoneBehind))
	}
	dir, before := " ASC", " >"
	if s.Desc {
		dir, before = " DESC", " <"
	}
	switch {
	case nulls:
		sql += ` AND ` + s.Column + ` IS NULL`
	case s.Nullable:
		sql += ` AND ` + s.Column + ` IS NOT NULL`
	}
	if after != nil {
		id := arg(after.ID) + "::uuid"
		if nulls {
			sql += ` AND p.id` + before + ` ` + id
		} else {
			// "column <= v" bounds the index scan; the rest only sorts
			// out the ties at v.
			v := arg(*after.Value) + "::" + s.Type
			sql += ` AND ` + s.Column + before + `= ` + v + ` AND (` + s.Column + before + ` ` + v + ` OR p.id` + before + ` ` + id + `)`
		}
	}
	sql += ` ORDER BY ` + s.Column + dir + `, p.id` + dir + ` LIMIT ` + arg(limit)
	return sql, args
}
