package auth

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
)

// A signed-in user's changes to their own credentials: the password and
// the email address, each allowed only with the current password.

// ErrWrongPassword answers a change whose current password is wrong. It is
// a validation error on the form's field, not 401: the caller's session is
// fine, and a client that signs out on any 401 must not sign them out.
var ErrWrongPassword = apperr.Invalid("currentPassword", "is not your current password")

// CheckCurrentPassword reports ErrWrongPassword unless password is the
// user's (it costs a password hash, like a sign-in).
func CheckCurrentPassword(ctx context.Context, q db.Querier, userID, password string) error {
	if password == "" || len(password) > MaxPasswordBytes {
		return ErrWrongPassword
	}
	var hash string
	if err := q.QueryRow(ctx, `SELECT password_hash FROM users WHERE id = $1`, userID).Scan(&hash); err != nil {
		return db.Classify(err)
	}
	ok, err := VerifyPassword(password, hash)
	if err != nil || !ok {
		return ErrWrongPassword
	}
	return nil
}

// PasswordChange is what ChangePassword did beyond setting the password.
type PasswordChange struct {
	EndedSessions int64 `json:"endedSessions"`
	// RevokedTokens is how many API tokens were revoked: 0 unless asked.
	RevokedTokens int64 `json:"revokedTokens"`
}

// ChangePassword sets a new password hash for the user, ends every other
// session of theirs (the request's own stays), voids their mailed reset
// links and, with revokeTokens, revokes every API token of theirs (a
// password changed for fear of a leak may have leaked with a token), in
// one transaction.
func ChangePassword(ctx context.Context, pool db.Beginner, r *http.Request, userID, passwordHash string, revokeTokens bool) (PasswordChange, error) {
	var out PasswordChange
	err := db.InTx(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE users SET password_hash = $2 WHERE id = $1`, userID, passwordHash); err != nil {
			return db.Classify(err)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM email_tokens WHERE user_id = $1 AND purpose = $2`, userID, PurposeReset); err != nil {
			return db.Classify(err)
		}
		if revokeTokens {
			tag, err := tx.Exec(ctx, `DELETE FROM api_tokens WHERE user_id = $1`, userID)
			if err != nil {
				return db.Classify(err)
			}
			out.RevokedTokens = tag.RowsAffected()
		}
		var err error
		out.EndedSessions, err = EndOthers(ctx, tx, r, userID)
		return err
	})
	return out, err
}

// IssueEmailChange replaces any pending change of the user's address with
// one to newEmail and returns the token to mail there; it runs in the
// caller's transaction, with the mail.
func IssueEmailChange(ctx context.Context, q db.Querier, userID, newEmail string, now time.Time) (string, error) {
	if _, err := q.Exec(ctx, `DELETE FROM email_tokens WHERE user_id = $1 AND purpose = $2`, userID, PurposeEmail); err != nil {
		return "", db.Classify(err)
	}
	token, err := IssueToken(ctx, q, userID, PurposeEmail, now)
	if err != nil {
		return "", err
	}
	_, err = q.Exec(ctx, `UPDATE email_tokens SET new_email = $2 WHERE token_hash = $1`, hashToken(token), newEmail)
	return token, db.Classify(err)
}

// ConfirmEmailChange uses up an email-change token and moves its user to
// the token's address, confirmed (the mail reached it). It returns the
// user and the address replaced. Run it in one transaction.
func ConfirmEmailChange(ctx context.Context, q db.Querier, token string, now time.Time) (User, string, error) {
	if token == "" || len(token) > 128 {
		return User{}, "", ErrBadToken
	}
	var addr *string
	err := q.QueryRow(ctx, `SELECT new_email FROM email_tokens WHERE token_hash = $1 AND purpose = $2`, hashToken(token), PurposeEmail).Scan(&addr)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && addr == nil) {
		return User{}, "", ErrBadToken
	} else if err != nil {
		return User{}, "", db.Classify(err)
	}
	userID, err := ConsumeToken(ctx, q, token, PurposeEmail, now)
	if err != nil {
		return User{}, "", err
	}
	return setEmail(ctx, q, userID, *addr, true)
}

// ChangeEmail moves the user to a new address at once, unconfirmed: the
// way without email delivery, where nothing could confirm it. It returns
// the user and the address replaced.
func ChangeEmail(ctx context.Context, q db.Querier, userID, email string) (User, string, error) {
	return setEmail(ctx, q, userID, email, false)
}

// setEmail changes the address; one that another user has is
// ErrEmailTaken (the unique constraint decides). Every mailed link of the
// user ends with the old address: they went to it.
func setEmail(ctx context.Context, q db.Querier, userID, email string, verified bool) (User, string, error) {
	const sql = `UPDATE users u SET email = $2, email_verified = $3 FROM users old
		WHERE u.id = $1 AND old.id = $1 RETURNING ` + userColumns + `, old.email`
	var previous string
	u, err := scanUser(q.QueryRow(ctx, sql, userID, email, verified), &previous)
	if db.IsUniqueViolation(err, "users_email_key") {
		return User{}, "", ErrEmailTaken
	}
	if err != nil {
		return User{}, "", db.Classify(err)
	}
	if _, err := q.Exec(ctx, `DELETE FROM email_tokens WHERE user_id = $1`, userID); err != nil {
		return User{}, "", db.Classify(err)
	}
	return u, previous, nil
}
