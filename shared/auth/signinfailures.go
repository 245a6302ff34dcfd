package auth

import (
	"context"
	"net/http"
	"time"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
)

// Wrong passwords given for an account, counted so its owner is told of
// them: by mail while they happen (when email is configured) and in the
// security settings after their next sign-in.

// FailureMailThreshold is the count of wrong passwords since the last
// sign-in at which the owner is mailed: more than a person mistypes, fewer
// than a guesser needs; at most one mail per FailureMailEvery.
const FailureMailThreshold = 10

// FailureMailEvery bounds the alert mails of one account.
const FailureMailEvery = 24 * time.Hour

// FailedSignIns is what the owner is shown: Count wrong passwords since
// their last sign-in before this one, the latest at LastFailedAt.
type FailedSignIns struct {
	Count        int       `json:"count"`
	LastFailedAt time.Time `json:"lastFailedAt"`
}

// RecordFailedSignIn counts a wrong password for the user, inside q (the
// caller's transaction, with the mail), and adds it to their sign-in
// history with the browser that sent it (signinhistory.go). It returns the count since the
// user's last sign-in and whether an alert mail is due now, marking it sent
// when it is.
func RecordFailedSignIn(r *http.Request, q db.Querier, userID string, now time.Time) (FailedSignIns, bool, error) {
	ctx := r.Context()
	if err := recordSignInEvent(ctx, q, r, userID, now, false); err != nil {
		return FailedSignIns{}, false, err
	}
	const upsert = `INSERT INTO sign_in_failures AS f (user_id, failed, last_failed_at) VALUES ($1, 1, $2)
		ON CONFLICT (user_id) DO UPDATE SET failed = f.failed + 1, last_failed_at = $2
		RETURNING failed, mailed_at`
	var mailedAt *time.Time
	got := FailedSignIns{LastFailedAt: now}
	if err := q.QueryRow(ctx, upsert, userID, now).Scan(&got.Count, &mailedAt); err != nil {
		return got, false, db.Classify(err)
	}
	if got.Count < FailureMailThreshold || mailedAt != nil && now.Sub(*mailedAt) < FailureMailEvery {
		return got, false, nil
	}
	if _, err := q.Exec(ctx, `UPDATE sign_in_failures SET mailed_at = $2 WHERE user_id = $1`, userID, now); err != nil {
		return got, false, db.Classify(err)
	}
	return got, true, nil
}

// settleFailedSignIns runs with every sign-in: the wrong passwords counted
// since the last one become the notice the settings show (added to one not
// yet dismissed), and the next run of failures may mail again.
func settleFailedSignIns(ctx context.Context, q db.Querier, userID string) error {
	const sql = `UPDATE sign_in_failures SET notice = notice + failed, notice_last_at = last_failed_at, failed = 0, mailed_at = NULL
		WHERE user_id = $1 AND failed > 0`
	_, err := q.Exec(ctx, sql, userID)
	return db.Classify(err)
}

// FailedSignInNotice returns the notice of wrong passwords given before the
// user's latest sign-in, or nil when there is none (or it was dismissed).
func FailedSignInNotice(ctx context.Context, q db.Querier, userID string) (*FailedSignIns, error) {
	var n FailedSignIns
	err := q.QueryRow(ctx, `SELECT notice, notice_last_at FROM sign_in_failures WHERE user_id = $1 AND notice > 0`, userID).
		Scan(&n.Count, &n.LastFailedAt)
	if err = db.Classify(err); err != nil {
		if err == apperr.ErrNotFound {
			return nil, nil
		}
		return nil, err
	}
	return &n, nil
}

// DismissFailedSignIns clears the user's notice.
func DismissFailedSignIns(ctx context.Context, q db.Querier, userID string) error {
	_, err := q.Exec(ctx, `UPDATE sign_in_failures SET notice = 0, notice_last_at = NULL WHERE user_id = $1`, userID)
	return db.Classify(err)
}
