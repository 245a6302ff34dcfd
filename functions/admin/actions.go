package admin

import (
	"context"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/httpx"
	"tradejournal/shared/ratelimit"
)

// actionLimit bounds the actions and the usage figures like the list: 60
// requests per 60 s per administrator.
var actionLimit = ratelimit.Limit{Name: "admin-actions", N: 60, Per: time.Minute}

var (
	errLastAdmin = apperr.New(apperr.Conflict, "this is the last administrator; promote another user first")
	errSelf      = apperr.New(apperr.Conflict, "you cannot disable your own account")
)

// actionFunc changes one user inside tx on behalf of the administrator
// actorID and returns the user as they are now.
type actionFunc func(ctx context.Context, tx pgx.Tx, actorID, userID string, now time.Time) (UserItem, error)

type userItemEnvelope struct {
	User UserItem `json:"user"`
}

// action is the handler of one action on the user named in the path: an
// unknown or malformed id is the codeless 404.
func (h handler) action(do actionFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		actor := auth.CurrentUser(ctx)
		userID := r.PathValue("userId")
		if !db.ValidUUID(userID) {
			httpx.Error(w, r, apperr.ErrNotFound)
			return
		}
		var u UserItem
		err := db.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
			var err error
			u, err = do(ctx, tx, actor.ID, userID, h.app.Now())
			return err
		})
		if err != nil {
			httpx.Error(w, r, err)
			return
		}
		httpx.JSON(w, http.StatusOK, userItemEnvelope{User: u})
	}
}

// update sets one thing on the user and returns them; set is a SQL
// assignment over $1 (the user's id) and $2.
func update(ctx context.Context, tx pgx.Tx, userID, set string, arg any) (UserItem, error) {
	u, err := scanItem(tx.QueryRow(ctx, `UPDATE users u SET `+set+` WHERE u.id = $1 RETURNING `+itemColumns, userID, arg))
	return u, db.Classify(err)
}

// keepAnAdmin refuses a change that would leave the instance without an
// administrator who can sign in: userID is the only one left. It locks
// every such row first, so two administrators demoting each other at once
// cannot both succeed.
func keepAnAdmin(ctx context.Context, tx pgx.Tx, userID string) error {
	rows, err := tx.Query(ctx, `SELECT id::text FROM users WHERE is_admin AND disabled_at IS NULL ORDER BY id FOR UPDATE`)
	if err != nil {
		return db.Classify(err)
	}
	admins, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return db.Classify(err)
	}
	if len(admins) == 1 && admins[0] == userID {
		return errLastAdmin
	}
	return nil
}

func promote(ctx context.Context, tx pgx.Tx, _, userID string, _ time.Time) (UserItem, error) {
	return update(ctx, tx, userID, `is_admin = $2`, true)
}

// demote takes the admin flag; the last administrator keeps it, whoever asks.
func demote(ctx context.Context, tx pgx.Tx, _, userID string, _ time.Time) (UserItem, error) {
	if err := keepAnAdmin(ctx, tx, userID); err != nil {
		return UserItem{}, err
	}
	return update(ctx, tx, userID, `is_admin = $2`, false)
}

// disable stops the user signing in and ends every session of theirs at
// once. An administrator cannot disable themselves, nor the last
// administrator.
func disable(ctx context.Context, tx pgx.Tx, actorID, userID string, now time.Time) (UserItem, error) {
	if userID == actorID {
		return UserItem{}, errSelf
	}
	if err := keepAnAdmin(ctx, tx, userID); err != nil {
		return UserItem{}, err
	}
	u, err := update(ctx, tx, userID, `disabled_at = coalesce(u.disabled_at, $2)`, now)
	if err != nil {
		return UserItem{}, err
	}
	return u, auth.EndAll(ctx, tx, userID)
}

func enable(ctx context.Context, tx pgx.Tx, _, userID string, _ time.Time) (UserItem, error) {
	return update(ctx, tx, userID, `disabled_at = $2`, nil)
}

// Usage is the instance's figures for its administrators. Activity is the
// users' last recorded session use (a sign-in or a request, written at
// most once a minute).
type Usage struct {
	Users             int64 `json:"users"`
	Admins            int64 `json:"admins"`
	DisabledUsers     int64 `json:"disabledUsers"`
	ActiveUsers7Days  int64 `json:"activeUsers7Days"`
	ActiveUsers30Days int64 `json:"activeUsers30Days"`
	Positions         int64 `json:"positions"`
	// Imports counts committed CSV imports.
	Imports int64 `json:"imports"`
	Images  int64 `json:"images"`
	// StorageBytes is the size of every stored image, inline or in object storage.
	StorageBytes int64 `json:"storageBytes"`
	// Period is the activity over the period asked for (from, to).
	Period PeriodUsage `json:"period"`
}

func (h handler) usage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p, err := parsePeriod(r.URL.Query(), h.app.Now())
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	u, err := ReadUsage(ctx, h.app.DB, h.app.Now())
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	if u.Period, err = ReadPeriod(ctx, h.app.DB, p); err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, u)
}

// ReadUsage counts the instance's figures at now, in one statement.
func ReadUsage(ctx context.Context, q db.Querier, now time.Time) (Usage, error) {
	const sql = `SELECT u.users, u.admins, u.disabled, u.active7, u.active30,
			(SELECT count(*) FROM positions), (SELECT count(*) FROM csv_imports), i.images, i.bytes
		FROM (SELECT count(*) AS users, count(*) FILTER (WHERE is_admin) AS admins,
				count(*) FILTER (WHERE disabled_at IS NOT NULL) AS disabled,
				count(*) FILTER (WHERE last_active_at >= $1) AS active7,
				count(*) FILTER (WHERE last_active_at >= $2) AS active30
			FROM users) u,
			(SELECT count(*) AS images, coalesce(sum(size_bytes), 0)::bigint AS bytes FROM position_images) i`
	var u Usage
	err := q.QueryRow(ctx, sql, now.Add(-7*24*time.Hour), now.Add(-30*24*time.Hour)).Scan(
		&u.Users, &u.Admins, &u.DisabledUsers, &u.ActiveUsers7Days, &u.ActiveUsers30Days,
		&u.Positions, &u.Imports, &u.Images, &u.StorageBytes)
	return u, db.Classify(err)
}
