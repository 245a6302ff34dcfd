package admin

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
	"tradejournal/shared/httpx"
	"tradejournal/shared/journal"
	"tradejournal/shared/listquery"
)

// defaultPeriodDays is the period of the usage figures when the request
// names none: the last 30 UTC days, today included.
const defaultPeriodDays = 30

// Page sizes of the top users' lists.
const (
	defaultTopSize = 10
	maxTopSize     = 100
)

// Period is a span of whole UTC days, from From to To inclusive.
type Period struct {
	From time.Time
	To   time.Time // the first instant after the period
}

// parsePeriod reads from and to (UTC dates, YYYY-MM-DD, both included);
// one left out is 30 days before the other, or today.
func parsePeriod(q url.Values, now time.Time) (Period, error) {
	var p journal.Problems
	day := func(field string) *time.Time {
		s := q.Get(field)
		if s == "" {
			return nil
		}
		d, err := journal.ParseDate(s)
		if err != nil {
			p.Add(field, "must be a date (YYYY-MM-DD)")
			return nil
		}
		return &d
	}
	from, to := day("from"), day("to")
	if err := p.Err(); err != nil {
		return Period{}, err
	}
	switch {
	case to == nil && from == nil:
		t := now.UTC().Truncate(24 * time.Hour)
		to = &t
	case to == nil:
		t := from.AddDate(0, 0, defaultPeriodDays-1)
		to = &t
	}
	if from == nil {
		f := to.AddDate(0, 0, -(defaultPeriodDays - 1))
		from = &f
	}
	if from.After(*to) {
		return Period{}, apperr.Invalid("from", "must be on or before to")
	}
	return Period{From: *from, To: to.AddDate(0, 0, 1)}, nil
}

// PeriodUsage is the instance's activity over a period.
type PeriodUsage struct {
	From string `json:"from"`
	To   string `json:"to"`
	// ActiveUsers are users who signed in or used a session in the period
	// (from the sessions that still exist and each user's last activity,
	// so a period long past reads low: ended sessions leave no record).
	ActiveUsers int64 `json:"activeUsers"`
	NewUsers    int64 `json:"newUsers"`
	Imports     int64 `json:"imports"`
	// Revenue is what the payment records say was paid in the period, by
	// currency: credit packs (of deleted accounts too) and Pro invoices.
	Revenue       []Revenue `json:"revenue"`
	TopByStorage  TopPage   `json:"topByStorage"`
	TopByActivity TopPage   `json:"topByActivity"`
}

// Revenue is the sum of the payments of one currency, in its minor units.
type Revenue struct {
	Currency    string `json:"currency"`
	AmountMinor int64  `json:"amountMinor"`
	Payments    int64  `json:"payments"`
}

// TopUser is a user with the figure a top list ranks them by: image bytes
// stored now, or positions recorded in the period.
type TopUser struct {
	ID    string `json:"id"`
	Email string `json:"email"`
	Value int64  `json:"value"`
}

// TopPage is one page of a top list.
type TopPage struct {
	Items      []TopUser `json:"items"`
	NextCursor *string   `json:"nextCursor"`
}

// topList is one top list: a subquery of (user_id, v) to rank users by;
// period says it reads the period as $1 and $2.
type topList struct {
	sql    string
	period bool
}

// topLists rank users by the bytes of images they store now (the period
// does not apply), and by the positions they recorded in the period (by
// hand or by import). The keyset is (v, id) descending.
var topLists = map[string]topList{
	"storage":  {sql: `SELECT user_id, sum(size_bytes)::bigint AS v FROM position_images GROUP BY user_id`},
	"activity": {sql: `SELECT user_id, count(*) AS v FROM positions WHERE created_at >= $1 AND created_at < $2 GROUP BY user_id`, period: true},
}

// TopUsers returns a page of the top list by ("storage" or "activity")
// after the cursor's keys (nil: the first page).
func TopUsers(ctx context.Context, q db.Querier, by string, p Period, after []string, limit int) (TopPage, error) {
	list := topLists[by]
	var args []any
	if list.period {
		args = append(args, p.From, p.To)
	}
	arg := func(v any) string { args = append(args, v); return "$" + strconv.Itoa(len(args)) }
	sql := `SELECT u.id::text, u.email, t.v FROM (` + list.sql + `) t JOIN users u ON u.id = t.user_id`
	if after != nil {
		v, err := strconv.ParseInt(after[0], 10, 64)
		if err != nil {
			return TopPage{}, listquery.ErrCursor
		}
		sql += ` WHERE (t.v, u.id) < (` + arg(v) + `, ` + arg(after[1]) + `::uuid)`
	}
	rows, err := q.Query(ctx, sql+` ORDER BY t.v DESC, u.id DESC LIMIT `+arg(limit+1), args...)
	if err != nil {
		return TopPage{}, db.Classify(err)
	}
	items, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (TopUser, error) {
		var t TopUser
		err := row.Scan(&t.ID, &t.Email, &t.Value)
		return t, err
	})
	if err != nil {
		return TopPage{}, db.Classify(err)
	}
	page := TopPage{Items: items}
	if len(items) > limit {
		page.Items = items[:limit]
		last := page.Items[limit-1]
		next := listquery.EncodeKeys(strconv.FormatInt(last.Value, 10), last.ID)
		page.NextCursor = &next
	}
	return page, nil
}

// ReadPeriod counts the period's figures and the first page of each top list.
func ReadPeriod(ctx context.Context, q db.Querier, p Period) (PeriodUsage, error) {
	out := PeriodUsage{From: p.From.Format(time.DateOnly), To: p.To.AddDate(0, 0, -1).Format(time.DateOnly), Revenue: []Revenue{}}
	const counts = `SELECT
			(SELECT count(*) FROM users u WHERE (u.last_active_at >= $1 AND u.last_active_at < $2)
				OR EXISTS (SELECT 1 FROM sessions s WHERE s.user_id = u.id
					AND ((s.created_at >= $1 AND s.created_at < $2) OR (s.last_seen_at >= $1 AND s.last_seen_at < $2)))),
			(SELECT count(*) FROM users WHERE created_at >= $1 AND created_at < $2),
			(SELECT count(*) FROM csv_imports WHERE committed_at >= $1 AND committed_at < $2)`
	if err := q.QueryRow(ctx, counts, p.From, p.To).Scan(&out.ActiveUsers, &out.NewUsers, &out.Imports); err != nil {
		return PeriodUsage{}, db.Classify(err)
	}
	const revenue = `SELECT currency, sum(amount_minor)::bigint, count(*) FROM (
			SELECT currency, amount_minor FROM billing_purchases WHERE created_at >= $1 AND created_at < $2
			UNION ALL
			SELECT currency, amount_minor FROM deleted_account_payments WHERE paid_at >= $1 AND paid_at < $2
			UNION ALL
			SELECT currency, amount_minor FROM billing_invoice_payments WHERE paid_at >= $1 AND paid_at < $2
		) pay WHERE amount_minor IS NOT NULL AND currency IS NOT NULL GROUP BY currency ORDER BY currency`
	rows, err := q.Query(ctx, revenue, p.From, p.To)
	if err != nil {
		return PeriodUsage{}, db.Classify(err)
	}
	var rv Revenue
	if _, err := pgx.ForEachRow(rows, []any{&rv.Currency, &rv.AmountMinor, &rv.Payments}, func() error {
		out.Revenue = append(out.Revenue, rv)
		return nil
	}); err != nil {
		return PeriodUsage{}, db.Classify(err)
	}
	if out.TopByStorage, err = TopUsers(ctx, q, "storage", p, nil, defaultTopSize); err != nil {
		return PeriodUsage{}, err
	}
	out.TopByActivity, err = TopUsers(ctx, q, "activity", p, nil, defaultTopSize)
	return out, err
}

// topUsers answers GET /api/admin/usage/top-users: a further page of a
// top list of the usage figures.
func (h handler) topUsers(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	by := q.Get("by")
	if _, ok := topLists[by]; !ok {
		httpx.Error(w, r, apperr.Invalid("by", "must be storage or activity"))
		return
	}
	p, err := parsePeriod(q, h.app.Now())
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	limit, err := listquery.Limit(q.Get("limit"), defaultTopSize, maxTopSize)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	after, err := listquery.ParseKeys(q.Get("cursor"), 2)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	page, err := TopUsers(ctx, h.app.DB, by, p, after, limit)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, page)
}
