package admin

import (
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/httpx"
	"tradejournal/shared/plans"
)

// detailListSize is how many of a user's recent sessions and imports the
// detail page shows.
const detailListSize = 20

// UserDetail is what an administrator sees of one user. No secret: no
// password hash, no session token (nor its hash), no two-factor key, no
// journal content.
type UserDetail struct {
	User UserItem `json:"user"`
	// Plan is the user's plan with each free-plan limit and its usage.
	Plan plans.View `json:"plan"`
	// Subscription is the user's most relevant Pro subscription, or nil.
	Subscription *Subscription `json:"subscription"`
	Usage        UserUsage     `json:"usage"`
	SignIns      SignIns       `json:"signIns"`
	// Sessions are the live sessions, the most recently used first.
	Sessions []Session `json:"sessions"`
	// Imports are the latest committed CSV imports, newest first.
	Imports []Import `json:"imports"`
}

// Subscription is a Pro subscription as the processor last reported it.
type Subscription struct {
	Status            string     `json:"status"`
	CurrentPeriodEnd  *time.Time `json:"currentPeriodEnd"`
	CancelAtPeriodEnd bool       `json:"cancelAtPeriodEnd"`
}

// UserUsage is what the user's journal holds.
type UserUsage struct {
	Accounts         int64 `json:"accounts"`
	ArchivedAccounts int64 `json:"archivedAccounts"`
	Positions        int64 `json:"positions"`
	Fills            int64 `json:"fills"`
	Images           int64 `json:"images"`
	// StorageBytes is the size of the user's images, inline or in object storage.
	StorageBytes int64 `json:"storageBytes"`
	// Imports counts every committed CSV import (from the version that
	// started counting them).
	Imports int64 `json:"imports"`
}

// SignIns is the user's sign-in record: the latest session that still
// exists, the wrong passwords counted since the last sign-in and those
// before it the user has not yet dismissed, and the history of both
// (sign_in_events, the latest auth.KeptSignInEvents).
type SignIns struct {
	LastSignInAt *time.Time `json:"lastSignInAt"`
	// FailedSinceLastSignIn counts wrong passwords since the last sign-in.
	FailedSinceLastSignIn int        `json:"failedSinceLastSignIn"`
	LastFailedAt          *time.Time `json:"lastFailedAt"`
	// FailedBeforeLastSignIn is the notice the user is shown and has not
	// dismissed: wrong passwords before their latest sign-in.
	FailedBeforeLastSignIn int `json:"failedBeforeLastSignIn"`
	// Recent are the latest sign-ins and wrong passwords, newest first.
	Recent []auth.SignInEvent `json:"recent"`
}

// Session is one live session: when it began and was last used, and the
// browser; never its token.
type Session struct {
	ID         string    `json:"id"`
	CreatedAt  time.Time `json:"createdAt"`
	LastSeenAt time.Time `json:"lastSeenAt"`
	ExpiresAt  time.Time `json:"expiresAt"`
	UserAgent  string    `json:"userAgent"`
}

// Import is one committed CSV import.
type Import struct {
	CommittedAt time.Time `json:"committedAt"`
}

type detailEnvelope struct {
	User UserDetail `json:"user"`
}

// userDetail answers GET /api/admin/users/{userId}; an unknown or
// malformed id is the codeless 404.
func (h handler) userDetail(w http.ResponseWriter, r *http.Request) {
	userID := r.PathValue("userId")
	if !db.ValidUUID(userID) {
		httpx.Error(w, r, apperr.ErrNotFound)
		return
	}
	d, err := h.readDetail(r, userID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, detailEnvelope{User: d})
}

// readDetail reads the user's detail in one round trip of reads.
func (h handler) readDetail(r *http.Request, userID string) (UserDetail, error) {
	ctx := r.Context()
	now := h.app.Now()
	var (
		d       = UserDetail{Sessions: []Session{}, Imports: []Import{}}
		sub     Subscription
		hasSub  bool
		failure struct {
			failed, notice int
			last           *time.Time
		}
	)
	b := &pgx.Batch{}
	b.Queue(`SELECT `+itemColumns+` FROM users u WHERE u.id = $1`, userID).
		QueryRow(func(row pgx.Row) error {
			u, err := scanItem(row)
			d.User = u
			return err
		})
	const usage = `SELECT
			(SELECT count(*) FROM accounts WHERE user_id = $1 AND NOT archived),
			(SELECT count(*) FROM accounts WHERE user_id = $1 AND archived),
			(SELECT count(*) FROM positions WHERE user_id = $1),
			(SELECT count(*) FROM fills f JOIN positions p ON p.id = f.position_id WHERE p.user_id = $1),
			(SELECT count(*) FROM position_images WHERE user_id = $1),
			(SELECT coalesce(sum(size_bytes), 0)::bigint FROM position_images WHERE user_id = $1),
			(SELECT count(*) FROM csv_imports WHERE user_id = $1),
			(SELECT max(created_at) FROM sessions WHERE user_id = $1)`
	u := &d.Usage
	b.Queue(usage, userID).QueryRow(func(row pgx.Row) error {
		return row.Scan(&u.Accounts, &u.ArchivedAccounts, &u.Positions, &u.Fills, &u.Images, &u.StorageBytes, &u.Imports, &d.SignIns.LastSignInAt)
	})
	b.Queue(`SELECT failed, last_failed_at, notice FROM sign_in_failures WHERE user_id = $1`, userID).
		Query(func(rows pgx.Rows) error {
			_, err := pgx.ForEachRow(rows, []any{&failure.failed, &failure.last, &failure.notice}, func() error { return nil })
			return err
		})
	b.Queue(`SELECT status, current_period_end, cancel_at_period_end FROM billing_subscriptions
			WHERE user_id = $1 `+plans.SubscriptionOrder+` LIMIT 1`, userID).
		Query(func(rows pgx.Rows) error {
			_, err := pgx.ForEachRow(rows, []any{&sub.Status, &sub.CurrentPeriodEnd, &sub.CancelAtPeriodEnd}, func() error {
				hasSub = true
				return nil
			})
			return err
		})
	b.Queue(`SELECT id::text, created_at, last_seen_at, expires_at, user_agent FROM sessions
			WHERE user_id = $1 AND expires_at > $2 ORDER BY last_seen_at DESC, id LIMIT $3`, userID, now, detailListSize).
		Query(func(rows pgx.Rows) error {
			var s Session
			_, err := pgx.ForEachRow(rows, []any{&s.ID, &s.CreatedAt, &s.LastSeenAt, &s.ExpiresAt, &s.UserAgent}, func() error {
				d.Sessions = append(d.Sessions, s)
				return nil
			})
			return err
		})
	b.Queue(`SELECT committed_at FROM csv_imports WHERE user_id = $1 ORDER BY committed_at DESC LIMIT $2`, userID, detailListSize).
		Query(func(rows pgx.Rows) error {
			var i Import
			_, err := pgx.ForEachRow(rows, []any{&i.CommittedAt}, func() error {
				d.Imports = append(d.Imports, i)
				return nil
			})
			return err
		})
	if err := h.app.DB.SendBatch(ctx, b).Close(); err != nil {
		return UserDetail{}, db.Classify(err)
	}
	d.SignIns.FailedSinceLastSignIn, d.SignIns.LastFailedAt, d.SignIns.FailedBeforeLastSignIn = failure.failed, failure.last, failure.notice
	if hasSub {
		d.Subscription = &sub
	}
	recent, err := auth.SignInHistory(ctx, h.app.DB, userID, detailListSize)
	if err != nil {
		return UserDetail{}, err
	}
	d.SignIns.Recent = recent
	plan, err := plans.New(h.app.Config, h.app.Now).Read(ctx, h.app.DB, userID)
	if err != nil {
		return UserDetail{}, err
	}
	d.Plan = plan
	return d, nil
}
