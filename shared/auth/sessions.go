package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
	"tradejournal/shared/httpx"
	"tradejournal/shared/ratelimit"
)

// CookieName is the session cookie.
const CookieName = "tj_session"

// SessionTTL is how long a session lives without use; each use (recorded at
// most once a minute) extends it.
const SessionTTL = 30 * 24 * time.Hour

// touchEvery bounds how often a session's activity is written: at most once
// a minute, not on every request.
const touchEvery = time.Minute

// Sessions issues, checks and ends sessions. The token is random (32 bytes)
// and lives only in the client's cookie; the server keeps its SHA-256.
type Sessions struct {
	pool *pgxpool.Pool
	now  func() time.Time
	// splitOrigin makes cookies SameSite=None; Secure for a web app on
	// another origin (CORS_ALLOWED_ORIGINS); otherwise SameSite=Lax.
	splitOrigin bool
	// limiter holds API tokens to their rate limit; nil until
	// AcceptAPITokens (apitokens.go) turns tokens on.
	limiter ratelimit.Limiter

	// deviceKeyBytes is the device-cookie key (devicecookie.go), read
	// once from the database; deviceKeyMu guards it.
	deviceKeyMu    sync.Mutex
	deviceKeyBytes []byte
}

// NewSessions returns the session service.
func NewSessions(pool *pgxpool.Pool, now func() time.Time, splitOrigin bool) *Sessions {
	return &Sessions{pool: pool, now: now, splitOrigin: splitOrigin}
}

func hashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// ErrAccountDisabled answers a sign-in to an account an administrator
// disabled. It comes only after the password was right, so it tells a
// guesser nothing.
var ErrAccountDisabled = apperr.New(apperr.AccountDisabled, "this account is disabled; ask the administrator of this instance")

// Start creates a session for the user inside q (the caller's transaction),
// recording the browser that signed in (devices.go), and sets its cookie on
// w with a new device cookie (devicecookie.go): the browser is trusted for
// this user's sign-ins from now on. The wrong passwords given since the
// user's last sign-in become their notice (signinfailures.go), and the
// sign-in joins their history (signinhistory.go). A disabled user gets ErrAccountDisabled
// and no session.
func (s *Sessions) Start(w http.ResponseWriter, r *http.Request, q db.Querier, userID string) error {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return err
	}
	token := base64.RawURLEncoding.EncodeToString(raw[:])
	now := s.now()
	expires := now.Add(SessionTTL)
	const sql = `WITH s AS (INSERT INTO sessions (token_hash, user_id, created_at, last_seen_at, expires_at, user_agent)
			SELECT $1, id, $3, $3, $4, $5 FROM users WHERE id = $2 AND disabled_at IS NULL RETURNING user_id)
		UPDATE users SET last_active_at = $3 FROM s WHERE users.id = s.user_id`
	tag, err := q.Exec(r.Context(), sql, hashToken(token), userID, now, expires, userAgent(r))
	if err != nil {
		return db.Classify(err)
	}
	if tag.RowsAffected() == 0 {
		return ErrAccountDisabled
	}
	if err := settleFailedSignIns(r.Context(), q, userID); err != nil {
		return err
	}
	if err := recordSignInEvent(r.Context(), q, r, userID, now, true); err != nil {
		return err
	}
	device, err := s.deviceCookie(r, q, userID)
	if err != nil {
		return err
	}
	s.setCookie(w, token, expires)
	http.SetCookie(w, device)
	return nil
}

func (s *Sessions) setCookie(w http.ResponseWriter, token string, expires time.Time) {
	c := &http.Cookie{
		Name: CookieName, Value: token, Path: "/", HttpOnly: true,
		Expires: expires, MaxAge: int(SessionTTL / time.Second),
		SameSite: http.SameSiteLaxMode,
	}
	if token == "" {
		c.MaxAge, c.Expires = -1, time.Unix(0, 0)
	}
	if s.splitOrigin {
		c.SameSite, c.Secure = http.SameSiteNoneMode, true
	}
	http.SetCookie(w, c)
}

// End deletes the caller's session, if any, and clears the cookie.
func (s *Sessions) End(ctx context.Context, w http.ResponseWriter, r *http.Request) error {
	s.setCookie(w, "", time.Time{})
	c, err := r.Cookie(CookieName)
	if err != nil || c.Value == "" {
		return nil
	}
	_, err = s.pool.Exec(ctx, `DELETE FROM sessions WHERE token_hash = $1`, hashToken(c.Value))
	return db.Classify(err)
}

// lookup finds the live session of the request's cookie: one indexed query.
// Activity is written at most once a minute, which also slides the expiry.
func (s *Sessions) lookup(w http.ResponseWriter, r *http.Request) (User, error) {
	c, err := r.Cookie(CookieName)
	if err != nil || c.Value == "" || len(c.Value) > 128 {
		return User{}, errUnauthenticated
	}
	ctx := r.Context()
	now := s.now()
	hash := hashToken(c.Value)
	const sql = `SELECT ` + userColumns + `, s.last_seen_at
		FROM sessions s JOIN users u ON u.id = s.user_id
		WHERE s.token_hash = $1 AND s.expires_at > $2 AND u.disabled_at IS NULL`
	var lastSeen time.Time
	u, err := scanUser(s.pool.QueryRow(ctx, sql, hash, now), &lastSeen)
	if err != nil {
		if err = db.Classify(err); err == apperr.ErrNotFound {
			return User{}, errUnauthenticated
		}
		return User{}, err
	}
	if now.Sub(lastSeen) >= touchEvery {
		expires := now.Add(SessionTTL)
		const touch = `WITH s AS (UPDATE sessions SET last_seen_at = $2, expires_at = $3
				WHERE token_hash = $1 RETURNING user_id)
			UPDATE users SET last_active_at = $2 FROM s WHERE users.id = s.user_id`
		if _, err := s.pool.Exec(ctx, touch, hash, now, expires); err != nil {
			return User{}, db.Classify(err)
		}
		s.setCookie(w, c.Value, expires)
	}
	return u, nil
}

var errUnauthenticated = apperr.New(apperr.Unauthenticated, "sign in to continue")

type userKey struct{}

// CurrentUser returns the user that Require put in the context.
func CurrentUser(ctx context.Context) User {
	u, _ := ctx.Value(userKey{}).(User)
	return u
}

// LimitPerUser answers 429 once the signed-in user (Require runs first)
// has spent the limit's requests, before next reads anything.
func LimitPerUser(l ratelimit.Limiter, lim ratelimit.Limit, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := ratelimit.Check(r.Context(), l, lim, CurrentUser(r.Context()).ID); err != nil {
			httpx.Error(w, r, err)
			return
		}
		next(w, r)
	}
}

// Require answers 401 unless the request carries a live session, and hands
// the user to next through the context.
func (s *Sessions) Require(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		u, err := s.identify(w, r)
		if err != nil {
			httpx.Error(w, r, err)
			return
		}
		next(w, r.WithContext(context.WithValue(r.Context(), userKey{}, u)))
	}
}

// RequireAdmin is Require plus the admin flag (403 ADMIN_REQUIRED). It is a
// group guard: it runs before the admin group's routes are dispatched.
func (s *Sessions) RequireAdmin(next http.Handler) http.Handler {
	return s.Require(func(w http.ResponseWriter, r *http.Request) {
		if !CurrentUser(r.Context()).IsAdmin {
			httpx.Error(w, r, apperr.New(apperr.AdminRequired, "this needs an administrator"))
			return
		}
		next.ServeHTTP(w, r)
	})
}
