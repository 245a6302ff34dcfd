package auth

import (
	"context"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/db"
)

// KeptSignInEvents is how many of a user's latest sign-ins and wrong
// passwords are kept: weeks of daily use, a bounded table whatever a
// guesser does.
const KeptSignInEvents = 50

// SignInEvent is one sign-in (a session started) or one wrong password,
// with the browser that sent it.
type SignInEvent struct {
	At        time.Time `json:"at"`
	Succeeded bool      `json:"succeeded"`
	UserAgent string    `json:"userAgent"`
}

// recordSignInEvent adds an event to the user's history inside q and drops
// what falls past KeptSignInEvents. The delete does not see the row the
// same statement inserts, so it keeps one fewer of the older ones.
func recordSignInEvent(ctx context.Context, q db.Querier, r *http.Request, userID string, at time.Time, succeeded bool) error {
	const sql = `WITH added AS (
			INSERT INTO sign_in_events (user_id, at, succeeded, user_agent) VALUES ($1, $2, $3, $4))
		DELETE FROM sign_in_events WHERE user_id = $1 AND id <= (
			SELECT id FROM sign_in_events WHERE user_id = $1 ORDER BY id DESC OFFSET $5 LIMIT 1)`
	_, err := q.Exec(ctx, sql, userID, at, succeeded, userAgent(r), KeptSignInEvents-1)
	return db.Classify(err)
}

// SignInHistory returns the user's latest sign-in events, newest first.
func SignInHistory(ctx context.Context, q db.Querier, userID string, limit int) ([]SignInEvent, error) {
	rows, err := q.Query(ctx, `SELECT at, succeeded, user_agent FROM sign_in_events
		WHERE user_id = $1 ORDER BY id DESC LIMIT $2`, userID, limit)
	if err != nil {
		return nil, db.Classify(err)
	}
	events, err := pgx.CollectRows(rows, pgx.RowToStructByPos[SignInEvent])
	if err != nil {
		return nil, db.Classify(err)
	}
	if events == nil {
		events = []SignInEvent{}
	}
	return events, nil
}
