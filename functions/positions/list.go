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

// list answers GET /api/positions: the user's positions newest first, by
// keyset on (opened_at DESC NULLS FIRST, id DESC) so that drafts (no fills,
// no opened_at) come first and page 400 costs what page 1 does. Filters are
// listquery.ParseFilter's (accounts, symbols, status, tags in and out, side,
// asset types, entry weekday and hour, from/to on the opened date, or with
// dateBy=closed the close date, in the account's trading-day zone); limit defaults to 50 and
// is clamped to 1..200.
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
	limit, err := listquery.ParseLimit(q.Get("limit"))
	collect(err)
	cursor, err := listquery.ParseCursor(q.Get("cursor"))
	collect(err)
	if err := apperr.Fields(details); err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	page, err := ListPositions(ctx, h.app.DB, auth.CurrentUser(ctx).ID, f, cursor, limit, h.app.Now())
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, page)
}

// ListPositions returns one page of the user's positions as of now: one
// indexed query for the page (positions_user_opened_idx, or an index of the
// filtered column in the same order) and one for the page's tags.
func ListPositions(ctx context.Context, q db.Querier, userID string, f listquery.Filter, after *listquery.Cursor, limit int, now time.Time) (Page, error) {
	sql, args := listQuery(userID, f, after, limit)
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
	var s journalstore.Summary
	items := make([]journalstore.Summary, 0, limit+1)
	if _, err := pgx.ForEachRow(rows, journalstore.ScanSummary(&s), func() error {
		s.Tags = []journal.Tag{}
		s.SetAwaitingExpiry(now)
		items = append(items, s)
		return nil
	}); err != nil {
		return Page{}, db.Classify(err)
	}
	page := Page{Items: items}
	if len(items) > limit {
		page.Items = items[:limit]
		last := page.Items[limit-1]
		next := listquery.Cursor{At: last.OpenedAt, ID: last.ID}.Encode()
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

// Time zones are between UTC-12 and UTC+14, so a trading day D in any
// account's zone lies within [D - 14h, D + 1 day + 12h) in UTC.
const (
	maxZoneAhead  = 14 * time.Hour
	maxZoneBehind = 12 * time.Hour
)

// listQuery builds the page query. Beside the filter's own conditions it
// bounds opened_at in UTC by the widest reading of the date range (any zone
// on earth), which changes no answer but lets the index scan start and stop
// near the range instead of filtering every newer row.
func listQuery(userID string, f listquery.Filter, after *listquery.Cursor, limit int) (string, []any) {
	args := []any{userID}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	sql := `SELECT ` + journalstore.SummaryColumns + ` FROM positions p`
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
	if after != nil {
		id := arg(after.ID) + "::uuid"
		if after.At == nil {
			// Still among the drafts (NULL opened_at, first): the rest of
			// them, then every dated position.
			sql += ` AND (p.opened_at IS NOT NULL OR p.id < ` + id + `)`
		} else {
			// "opened_at <= t" bounds the index scan; the rest only sorts
			// out the ties at t.
			at := arg(*after.At)
			sql += ` AND p.opened_at <= ` + at + ` AND (p.opened_at < ` + at + ` OR p.id < ` + id + `)`
		}
	}
	sql += ` ORDER BY p.opened_at DESC NULLS FIRST, p.id DESC LIMIT ` + arg(limit+1)
	return sql, args
}
