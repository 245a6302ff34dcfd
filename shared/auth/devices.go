package auth

import (
	"context"
	"net/http"
	"strings"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
)

// The signed-in devices of a user: the sessions they see in their settings,
// and the ways to end them. Kept apart from sessions.go, which issues and
// checks sessions.

// MaxUserAgentChars is how much of a browser's User-Agent header a session
// keeps: enough to tell devices apart, bounded whatever a client sends.
const MaxUserAgentChars = 200

// userAgent is the request's User-Agent cut to MaxUserAgentChars, valid
// UTF-8 without control characters (PostgreSQL text refuses NUL).
func userAgent(r *http.Request) string {
	ua := strings.ToValidUTF8(r.UserAgent(), "")
	var b strings.Builder
	n := 0
	for _, c := range ua {
		if n == MaxUserAgentChars {
			break
		}
		if unicode.IsControl(c) {
			continue
		}
		b.WriteRune(c)
		n++
	}
	return strings.TrimSpace(b.String())
}

// Device is one live session of a user as their settings show it. The
// token and its hash never leave the server; ID is the session's own.
type Device struct {
	ID         string    `json:"id"`
	CreatedAt  time.Time `json:"createdAt"`
	LastSeenAt time.Time `json:"lastSeenAt"`
	UserAgent  string    `json:"userAgent"`
	// Current is the session of the request that asked.
	Current bool `json:"current"`
}

// cookieHash is the hash of the request's session token, or nil without a
// cookie. Nothing equals nil in SQL, so no session is "current" then.
func cookieHash(r *http.Request) []byte {
	c, err := r.Cookie(CookieName)
	if err != nil || c.Value == "" || len(c.Value) > 128 {
		return nil
	}
	return hashToken(c.Value)
}

// Devices lists the user's live sessions, the most recently used first.
func (s *Sessions) Devices(r *http.Request, userID string) ([]Device, error) {
	const sql = `SELECT id::text, created_at, last_seen_at, user_agent, token_hash = $2 IS TRUE
		FROM sessions WHERE user_id = $1 AND expires_at > $3
		ORDER BY last_seen_at DESC, created_at DESC, id`
	rows, err := s.pool.Query(r.Context(), sql, userID, cookieHash(r), s.now())
	if err != nil {
		return nil, db.Classify(err)
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Device, error) {
		var d Device
		err := row.Scan(&d.ID, &d.CreatedAt, &d.LastSeenAt, &d.UserAgent, &d.Current)
		return d, err
	})
	return list, db.Classify(err)
}

// Revoke ends one session of the user. Another user's session, an unknown
// id and a malformed one are all ErrNotFound. Ending the caller's own
// session signs them out: its cookie is cleared too.
func (s *Sessions) Revoke(w http.ResponseWriter, r *http.Request, userID, sessionID string) error {
	if !db.ValidUUID(sessionID) {
		return apperr.ErrNotFound
	}
	var current bool
	const sql = `DELETE FROM sessions WHERE id = $2 AND user_id = $1 RETURNING token_hash = $3 IS TRUE`
	if err := s.pool.QueryRow(r.Context(), sql, userID, sessionID, cookieHash(r)).Scan(&current); err != nil {
		return db.Classify(err)
	}
	if current {
		s.setCookie(w, "", time.Time{})
	}
	return nil
}

// EndOthers ends every session of the user but the request's own, inside q
// (the caller's transaction when it goes with another change), and says
// how many ended.
func EndOthers(ctx context.Context, q db.Querier, r *http.Request, userID string) (int64, error) {
	tag, err := q.Exec(ctx, `DELETE FROM sessions WHERE user_id = $1 AND token_hash IS DISTINCT FROM $2`, userID, cookieHash(r))
	return tag.RowsAffected(), db.Classify(err)
}

// EndAll ends every session of the user, inside q.
func EndAll(ctx context.Context, q db.Querier, userID string) error {
	_, err := q.Exec(ctx, `DELETE FROM sessions WHERE user_id = $1`, userID)
	return db.Classify(err)
}
