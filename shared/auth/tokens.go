package auth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"time"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
)

// Purposes of mailed tokens, and how long each lives.
const (
	PurposeVerify = "verify"
	PurposeReset  = "reset"
	// PurposeEmail confirms a change of address (account.go); the token's
	// row carries the new address.
	PurposeEmail = "email"
)

var tokenTTL = map[string]time.Duration{PurposeVerify: 24 * time.Hour, PurposeReset: time.Hour, PurposeEmail: 24 * time.Hour}

// ErrBadToken answers a token that is unknown, used, expired or of another
// purpose, all alike.
var ErrBadToken = apperr.Invalid("token", "is invalid or has expired")

// IssueToken makes a single-use token for the user, stored as its SHA-256.
func IssueToken(ctx context.Context, q db.Querier, userID, purpose string, now time.Time) (string, error) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	token := base64.RawURLEncoding.EncodeToString(raw[:])
	_, err := q.Exec(ctx, `INSERT INTO email_tokens (token_hash, user_id, purpose, expires_at) VALUES ($1, $2, $3, $4)`,
		hashToken(token), userID, purpose, now.Add(tokenTTL[purpose]))
	return token, db.Classify(err)
}

// CheckToken reports ErrBadToken unless token is a live token of purpose,
// without using it up: the cheap check a route makes before costly work
// (a password hash). ConsumeToken decides, in the change's transaction.
func CheckToken(ctx context.Context, q db.Querier, token, purpose string, now time.Time) error {
	if token == "" || len(token) > 128 {
		return ErrBadToken
	}
	var live bool
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM email_tokens WHERE token_hash = $1 AND purpose = $2 AND expires_at > $3)`,
		hashToken(token), purpose, now).Scan(&live)
	if err != nil {
		return db.Classify(err)
	}
	if !live {
		return ErrBadToken
	}
	return nil
}

// ConsumeToken uses up a token and every other token of the same purpose of
// its user, and returns the user. It must run in the transaction of the
// change the token allows.
func ConsumeToken(ctx context.Context, q db.Querier, token, purpose string, now time.Time) (string, error) {
	if token == "" || len(token) > 128 {
		return "", ErrBadToken
	}
	const sql = `DELETE FROM email_tokens t USING email_tokens mine
		WHERE mine.token_hash = $1 AND mine.purpose = $2
		  AND t.user_id = mine.user_id AND t.purpose = mine.purpose
		RETURNING t.user_id::text, (t.token_hash = $1 AND t.expires_at > $3)`
	rows, err := q.Query(ctx, sql, hashToken(token), purpose, now)
	if err != nil {
		return "", db.Classify(err)
	}
	defer rows.Close()
	var userID string
	valid := false
	for rows.Next() {
		var id string
		var ok bool
		if err := rows.Scan(&id, &ok); err != nil {
			return "", err
		}
		if ok {
			userID, valid = id, true
		}
	}
	if err := rows.Err(); err != nil {
		return "", db.Classify(err)
	}
	if !valid {
		return "", ErrBadToken
	}
	return userID, nil
}

// SetVerified marks the user's address confirmed.
func SetVerified(ctx context.Context, q db.Querier, userID string) error {
	_, err := q.Exec(ctx, `UPDATE users SET email_verified = true WHERE id = $1`, userID)
	return db.Classify(err)
}

// ReplacePassword sets a new password hash for the user and ends every
// session of theirs; run it in the transaction that consumed the token.
func ReplacePassword(ctx context.Context, q db.Querier, userID, passwordHash string) error {
	if _, err := q.Exec(ctx, `UPDATE users SET password_hash = $2 WHERE id = $1`, userID, passwordHash); err != nil {
		return db.Classify(err)
	}
	return EndAll(ctx, q, userID)
}
