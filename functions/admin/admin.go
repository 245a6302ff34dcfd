// Package admin is the administrators' route group: the user list, a
// user's detail, the actions on a user (promote, demote, disable, enable)
// and the instance's usage figures over a period.
package admin

import (
	"context"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/app"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/httpx"
	"tradejournal/shared/listquery"
	"tradejournal/shared/ratelimit"
)

// listLimit is the spec's admin list limit: 60 requests per 60 s per user.
var listLimit = ratelimit.Limit{Name: "admin-users", N: 60, Per: time.Minute}

// Page sizes of the user list.
const (
	defaultPageSize = 25
	maxPageSize     = 100
)

type handler struct{ app *app.App }

// Group returns the admin route group. Its guard checks the admin flag
// before any route is dispatched.
func Group(a *app.App) httpx.Group {
	h := handler{app: a}
	return httpx.Group{
		Name:   "admin",
		Mounts: []string{"/api/admin/"},
		Guard:  a.Sessions.RequireAdmin,
		Routes: []httpx.Route{
			{Pattern: "GET /api/admin/users", Handler: auth.LimitPerUser(h.app.Limiter, listLimit, h.listUsers)},
			{Pattern: "POST /api/admin/users/{userId}/promote", Handler: auth.LimitPerUser(h.app.Limiter, actionLimit, h.action(promote))},
			{Pattern: "POST /api/admin/users/{userId}/demote", Handler: auth.LimitPerUser(h.app.Limiter, actionLimit, h.action(demote))},
			{Pattern: "POST /api/admin/users/{userId}/disable", Handler: auth.LimitPerUser(h.app.Limiter, actionLimit, h.action(disable))},
			{Pattern: "POST /api/admin/users/{userId}/enable", Handler: auth.LimitPerUser(h.app.Limiter, actionLimit, h.action(enable))},
			{Pattern: "GET /api/admin/usage", Handler: auth.LimitPerUser(h.app.Limiter, actionLimit, h.usage)},
			{Pattern: "GET /api/admin/usage/top-users", Handler: auth.LimitPerUser(h.app.Limiter, actionLimit, h.topUsers)},
			{Pattern: "GET /api/admin/users/{userId}", Handler: auth.LimitPerUser(h.app.Limiter, actionLimit, h.userDetail)},
		},
	}
}

// UserItem is one row of the admin user list. No secret field.
type UserItem struct {
	ID            string     `json:"id"`
	Email         string     `json:"email"`
	CreatedAt     time.Time  `json:"createdAt"`
	IsAdmin       bool       `json:"isAdmin"`
	EmailVerified bool       `json:"emailVerified"`
	LastActiveAt  *time.Time `json:"lastActiveAt"`
	// DisabledAt is when an administrator disabled the account, or nil.
	DisabledAt *time.Time `json:"disabledAt"`
}

type userPage struct {
	Items      []UserItem `json:"items"`
	NextCursor *string    `json:"nextCursor"`
}

func (h handler) listUsers(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	limit, err := listquery.Limit(q.Get("limit"), defaultPageSize, maxPageSize)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	page, err := ListUsers(ctx, h.app.DB, DecodeCursor(q.Get("cursor")), limit)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, page)
}

// Cursor is the position after the last item of a page: the keyset
// (created_at, id), newest first.
type Cursor struct {
	CreatedAt time.Time
	ID        string
}

// EncodeCursor makes the opaque cursor a client passes back.
func EncodeCursor(c Cursor) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.CreatedAt.UnixMicro(), 10) + "." + c.ID))
}

// DecodeCursor reads a cursor; anything that is not one of ours (absent,
// invalid, tampered) means the first page, as the spec says.
func DecodeCursor(s string) *Cursor {
	if s == "" || len(s) > 128 {
		return nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		return nil
	}
	micros, id, ok := strings.Cut(string(raw), ".")
	if !ok || !db.ValidUUID(id) {
		return nil
	}
	us, err := strconv.ParseInt(micros, 10, 64)
	if err != nil || us < 0 || us > 1e17 {
		return nil
	}
	return &Cursor{CreatedAt: time.UnixMicro(us).UTC(), ID: id}
}

// itemColumns is selected wherever a UserItem is scanned, in scanItem's order.
const itemColumns = `u.id::text, u.email, u.created_at, u.is_admin, u.email_verified, u.last_active_at, u.disabled_at`

func scanItem(row pgx.Row) (UserItem, error) {
	var u UserItem
	err := row.Scan(&u.ID, &u.Email, &u.CreatedAt, &u.IsAdmin, &u.EmailVerified, &u.LastActiveAt, &u.DisabledAt)
	return u, err
}

// ListUsers returns one page, newest first, by keyset on (created_at, id)
// so page 400 costs what page 1 does.
func ListUsers(ctx context.Context, q db.Querier, after *Cursor, limit int) (userPage, error) {
	// Qualified names: a bare "id" in ORDER BY would mean the id::text
	// output column, sorting text and leaving the (created_at, id) index.
	const cols = `SELECT ` + itemColumns + ` FROM users u `
	const order = ` ORDER BY u.created_at DESC, u.id DESC LIMIT $1`
	var (
		rows pgx.Rows
		err  error
	)
	if after == nil {
		rows, err = q.Query(ctx, cols+order, limit+1)
	} else {
		rows, err = q.Query(ctx, cols+`WHERE (u.created_at, u.id) < ($2, $3::uuid)`+order, limit+1, after.CreatedAt, after.ID)
	}
	if err != nil {
		return userPage{}, db.Classify(err)
	}
	items, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (UserItem, error) { return scanItem(row) })
	if err != nil {
		return userPage{}, db.Classify(err)
	}
	page := userPage{Items: items}
	if len(items) > limit {
		page.Items = items[:limit]
		last := page.Items[limit-1]
		next := EncodeCursor(Cursor{CreatedAt: last.CreatedAt, ID: last.ID})
		page.NextCursor = &next
	}
	return page, nil
}
