package csvimport

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/apperr"
	"tradejournal/shared/config"
	"tradejournal/shared/db"
)

// account is what an import needs to know about the account it writes to.
type account struct {
	ID       string
	Currency string
	Timezone string
}

var errNotYourAccount = apperr.Invalid("accountId", "must be one of your accounts")

// loadAccount reads the user's account; another user's, a missing and a
// malformed id are all errNotYourAccount.
func loadAccount(ctx context.Context, q db.Querier, userID, accountID string) (account, error) {
	if !db.ValidUUID(accountID) {
		return account{}, errNotYourAccount
	}
	const sql = `SELECT id::text, currency, timezone FROM accounts WHERE id = $1 AND user_id = $2`
	var a account
	err := q.QueryRow(ctx, sql, accountID, userID).Scan(&a.ID, &a.Currency, &a.Timezone)
	if errors.Is(err, pgx.ErrNoRows) {
		return account{}, errNotYourAccount
	}
	a.Currency = strings.TrimSpace(a.Currency)
	return a, db.Classify(err)
}

// newToken makes a preview token (32 random bytes, base64url) and its hash.
func newToken() (string, []byte, error) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", nil, err
	}
	token := base64.RawURLEncoding.EncodeToString(raw[:])
	return token, hashToken(token), nil
}

func hashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// MaxStagedPerUser bounds the previews one user keeps staged at once: a
// new one beyond it replaces the oldest.
const MaxStagedPerUser = 5

// stage stores a preview's payload with its positions' opening fills
// (migrations/0034) and drops the user's oldest staged previews beyond
// MaxStagedPerUser.
func stage(ctx context.Context, pool db.Beginner, hash []byte, userID, accountID string, payload []byte, opening []int, now time.Time) error {
	return db.InTx(ctx, pool, func(tx pgx.Tx) error {
		const ins = `INSERT INTO csv_import_staging (token_hash, user_id, account_id, created_at, payload, payload_bytes, opening_fills)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`
		if _, err := tx.Exec(ctx, ins, hash, userID, accountID, now, payload, len(payload), opening); err != nil {
			return db.Classify(err)
		}
		const trim = `DELETE FROM csv_import_staging WHERE token_hash IN (
			SELECT token_hash FROM csv_import_staging WHERE user_id = $1 AND state = 'staged'
			ORDER BY created_at DESC, token_hash OFFSET $2)`
		_, err := tx.Exec(ctx, trim, userID, MaxStagedPerUser)
		return db.Classify(err)
	})
}

// The answers of a commit whose preview cannot be claimed.
var (
	errGone = &apperr.Error{Code: apperr.NotFound, Message: "this preview does not exist: it was committed already, or it expired " +
		"and was cleaned up; upload the file again"}
	errExpired = &apperr.Error{Code: apperr.NotFound, Message: "this preview has expired (previews last CSV_IMPORT_STAGING_TTL_MINUTES); " +
		"upload the file again"}
	errClaimed = apperr.New(apperr.Conflict, "this preview is being committed already (a second commit of the same preview); "+
		"nothing more was written")
)

// claimed is a staged preview a commit claimed: its account, payload, and
// its positions' opening fills.
type claimed struct {
	accountID string
	payload   []byte
	opening   []int
}

// claim moves the user's staged preview to committing and returns it.
// Only one of two racing commits wins: the UPDATE's row lock serialises
// them, and the loser finds the state changed. An expired preview is
// deleted and answered as such.
func claim(ctx context.Context, q db.Querier, hash []byte, userID string, cfg config.CSVImport, now time.Time) (claimed, error) {
	const sql = `UPDATE csv_import_staging SET state = 'committing', claimed_at = $3
		WHERE token_hash = $1 AND user_id = $2 AND state = 'staged' AND created_at >= $4
		RETURNING account_id::text, payload, opening_fills`
	var c claimed
	err := q.QueryRow(ctx, sql, hash, userID, now, now.Add(-cfg.StagingTTL)).Scan(&c.accountID, &c.payload, &c.opening)
	if err == nil {
		return c, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return claimed{}, db.Classify(err)
	}
	var state string
	err = q.QueryRow(ctx, `SELECT state FROM csv_import_staging WHERE token_hash = $1 AND user_id = $2`, hash, userID).Scan(&state)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return claimed{}, errGone
	case err != nil:
		return claimed{}, db.Classify(err)
	case state == "committing":
		return claimed{}, errClaimed
	}
	// Staged but past its lifetime: expired rows are deleted on sight.
	const del = `DELETE FROM csv_import_staging WHERE token_hash = $1 AND state = 'staged' AND created_at < $2`
	if _, err := q.Exec(ctx, del, hash, now.Add(-cfg.StagingTTL)); err != nil {
		return claimed{}, db.Classify(err)
	}
	return claimed{}, errExpired
}

// release hands a claimed preview back (state staged) after a commit that
// wrote nothing, so the user may try again while it lives.
func release(ctx context.Context, q db.Querier, hash []byte) error {
	const sql = `UPDATE csv_import_staging SET state = 'staged', claimed_at = NULL WHERE token_hash = $1 AND state = 'committing'`
	_, err := q.Exec(ctx, sql, hash)
	return db.Classify(err)
}
