package auth

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/binary"
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
	"tradejournal/shared/encrypt"
)

// Two-factor sign-in with time-based one-time passwords (RFC 6238): HMAC-SHA1
// over the count of 30-second steps since the epoch, six digits, a 20-byte
// secret. These are the defaults every authenticator app assumes, which is
// why none of them is configurable.
const (
	totpStep      = 30 * time.Second
	totpDigits    = 6
	totpSecretLen = 20
	// totpDrift is how many steps either side of now a code is accepted
	// for: one, so a phone clock 30 s off still signs in.
	totpDrift = 1
	// RecoveryCodeCount is how many single-use recovery codes an enrolment gets.
	RecoveryCodeCount = 10
	// recoveryCodeBytes is 80 random bits per recovery code: enough that
	// its plain SHA-256 cannot be reversed by guessing, so the check is one
	// indexed lookup rather than ten slow hashes.
	recoveryCodeBytes = 10
)

// b32 is the unpadded base32 authenticator apps read secrets in.
var b32 = base32.StdEncoding.WithPadding(base32.NoPadding)

// hotp is RFC 4226's one-time password of key at counter, digits long.
func hotp(key []byte, counter uint64, digits int) string {
	mac := hmac.New(sha1.New, key)
	_ = binary.Write(mac, binary.BigEndian, counter)
	sum := mac.Sum(nil)
	off := sum[len(sum)-1] & 0x0f
	v := binary.BigEndian.Uint32(sum[off:off+4]) & 0x7fffffff
	code := make([]byte, digits)
	for i := digits - 1; i >= 0; i-- {
		code[i] = byte('0' + v%10)
		v /= 10
	}
	return string(code)
}

// totpStepAt is the RFC 6238 time step (T) of t.
func totpStepAt(t time.Time) int64 { return t.Unix() / int64(totpStep/time.Second) }

// TOTPCode is the current six-digit code of a base32 secret, as an
// authenticator app shows it (the tests and the e2e use it).
func TOTPCode(secret string, t time.Time) (string, error) {
	key, err := b32.DecodeString(secret)
	if err != nil {
		return "", err
	}
	return hotp(key, uint64(totpStepAt(t)), totpDigits), nil
}

// matchTOTP returns the step whose code equals code, within the drift
// around now and after lastStep (a step already used, or older, never
// matches again: a code is single use within its window).
func matchTOTP(key []byte, code string, now time.Time, lastStep int64) (int64, bool) {
	cur := totpStepAt(now)
	for s := cur - totpDrift; s <= cur+totpDrift; s++ {
		if s <= lastStep || s < 0 {
			continue
		}
		if subtle.ConstantTimeCompare([]byte(hotp(key, uint64(s), totpDigits)), []byte(code)) == 1 {
			return s, true
		}
	}
	return 0, false
}

// SecondFactor is a code as typed: a six-digit TOTP code or a recovery code.
type SecondFactor struct {
	TOTP     string // six digits, or ""
	Recovery string // normalised recovery code (16 base32 letters, lowercase), or ""
}

// ParseSecondFactor reads what a person typed into the code field. Spaces
// and dashes are ignored ("123 456", "abcd-efgh-ijkl-mnop"); case does not
// matter. It reports false for anything that is neither shape.
func ParseSecondFactor(input string) (SecondFactor, bool) {
	if len(input) > 64 {
		return SecondFactor{}, false
	}
	s := strings.Map(func(r rune) rune {
		switch {
		case r == ' ' || r == '-':
			return -1
		case r >= 'A' && r <= 'Z':
			return r + ('a' - 'A')
		}
		return r
	}, input)
	if len(s) == totpDigits && strings.Trim(s, "0123456789") == "" {
		return SecondFactor{TOTP: s}, true
	}
	if len(s) == b32.EncodedLen(recoveryCodeBytes) && strings.Trim(s, "abcdefghijklmnopqrstuvwxyz234567") == "" {
		return SecondFactor{Recovery: s}, true
	}
	return SecondFactor{}, false
}

// Enrolment is what a user's authenticator app needs: the secret (for
// typing in) and the otpauth:// URI (what the QR code carries).
type Enrolment struct {
	Secret string `json:"secret"`
	URI    string `json:"uri"`
}

// Errors of the two-factor routes.
var (
	ErrTOTPOn      = apperr.New(apperr.Conflict, "two-factor sign-in is already on")
	ErrTOTPOff     = apperr.New(apperr.Conflict, "two-factor sign-in is not on")
	ErrNoEnrolment = apperr.New(apperr.Conflict, "start the set-up first: there is no code to confirm")
	ErrWrongCode   = apperr.Invalid("code", "is not a current code from your authenticator app or an unused recovery code")
)

// BeginTOTP makes a new secret for the user, sealed with k, replacing an
// enrolment that was never confirmed. It refuses while two-factor is on:
// turning it off (password and code) comes first.
func BeginTOTP(ctx context.Context, q db.Querier, k *encrypt.Keyring, user User, issuer string, now time.Time) (Enrolment, error) {
	raw := make([]byte, totpSecretLen)
	if _, err := rand.Read(raw); err != nil {
		return Enrolment{}, err
	}
	secret := b32.EncodeToString(raw)
	const sql = `INSERT INTO user_totp AS t (user_id, secret, created_at) VALUES ($1, $2, $3)
		ON CONFLICT (user_id) DO UPDATE SET secret = EXCLUDED.secret, created_at = EXCLUDED.created_at, last_step = 0
		WHERE t.enabled_at IS NULL`
	tag, err := q.Exec(ctx, sql, user.ID, k.Seal(encrypt.TOTPSecrets, secret), now)
	if err != nil {
		return Enrolment{}, db.Classify(err)
	}
	if tag.RowsAffected() == 0 {
		return Enrolment{}, ErrTOTPOn
	}
	label := url.PathEscape(issuer) + ":" + url.PathEscape(user.Email)
	v := url.Values{"secret": {secret}, "issuer": {issuer}, "algorithm": {"SHA1"}, "digits": {"6"}, "period": {"30"}}
	return Enrolment{Secret: secret, URI: "otpauth://totp/" + label + "?" + v.Encode()}, nil
}

// ConfirmTOTP turns two-factor on when code is the enrolment's current
// code, and returns the recovery codes: the only time they are seen.
func ConfirmTOTP(ctx context.Context, pool db.Beginner, k *encrypt.Keyring, userID, code string, now time.Time) ([]string, error) {
	var codes []string
	err := db.InTx(ctx, pool, func(tx pgx.Tx) error {
		var sealed string
		var enabled *time.Time
		var lastStep int64
		err := tx.QueryRow(ctx, `SELECT secret, enabled_at, last_step FROM user_totp WHERE user_id = $1 FOR UPDATE`, userID).
			Scan(&sealed, &enabled, &lastStep)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return ErrNoEnrolment
		case err != nil:
			return db.Classify(err)
		case enabled != nil:
			return ErrTOTPOn
		}
		step, err := checkTOTP(k, sealed, code, now, lastStep)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE user_totp SET enabled_at = $2, last_step = $3 WHERE user_id = $1`, userID, now, step); err != nil {
			return db.Classify(err)
		}
		codes, err = replaceRecoveryCodes(ctx, tx, userID)
		return err
	})
	return codes, err
}

// checkTOTP opens the sealed secret and matches code against it.
func checkTOTP(k *encrypt.Keyring, sealed, code string, now time.Time, lastStep int64) (int64, error) {
	secret, err := k.Open(encrypt.TOTPSecrets, sealed)
	if err != nil {
		return 0, err
	}
	key, err := b32.DecodeString(secret)
	if err != nil {
		return 0, err
	}
	step, ok := matchTOTP(key, code, now, lastStep)
	if !ok {
		return 0, ErrWrongCode
	}
	return step, nil
}

// replaceRecoveryCodes stores RecoveryCodeCount new codes (their hashes)
// in place of any old ones and returns them formatted for reading.
func replaceRecoveryCodes(ctx context.Context, tx pgx.Tx, userID string) ([]string, error) {
	if _, err := tx.Exec(ctx, `DELETE FROM totp_recovery_codes WHERE user_id = $1`, userID); err != nil {
		return nil, db.Classify(err)
	}
	codes := make([]string, RecoveryCodeCount)
	hashes := make([][]byte, RecoveryCodeCount)
	for i := range codes {
		raw := make([]byte, recoveryCodeBytes)
		if _, err := rand.Read(raw); err != nil {
			return nil, err
		}
		plain := strings.ToLower(b32.EncodeToString(raw))
		hashes[i] = hashRecovery(plain)
		codes[i] = plain[0:4] + "-" + plain[4:8] + "-" + plain[8:12] + "-" + plain[12:16]
	}
	_, err := tx.Exec(ctx, `INSERT INTO totp_recovery_codes (user_id, code_hash) SELECT $1, unnest($2::bytea[])`, userID, hashes)
	return codes, db.Classify(err)
}

func hashRecovery(normalised string) []byte {
	h := sha256.Sum256([]byte(normalised))
	return h[:]
}

// TOTPStatus reports whether two-factor is on for the user, and how many
// recovery codes are left unused.
func TOTPStatus(ctx context.Context, q db.Querier, userID string) (enabled bool, recoveryLeft int, err error) {
	const sql = `SELECT EXISTS (SELECT 1 FROM user_totp WHERE user_id = $1 AND enabled_at IS NOT NULL),
		(SELECT count(*) FROM totp_recovery_codes WHERE user_id = $1 AND used_at IS NULL)`
	err = q.QueryRow(ctx, sql, userID).Scan(&enabled, &recoveryLeft)
	return enabled, recoveryLeft, db.Classify(err)
}

// UseSecondFactor accepts code (a current TOTP code not used before, or an
// unused recovery code) for a user with two-factor on, and uses it up. Run
// it in the transaction of what the code allows: the row lock on the
// user's authenticator makes two requests with one code take turns, and
// the second finds the step already used.
func UseSecondFactor(ctx context.Context, tx pgx.Tx, k *encrypt.Keyring, userID, code string, now time.Time) error {
	f, ok := ParseSecondFactor(code)
	if !ok {
		return ErrWrongCode
	}
	var sealed string
	var lastStep int64
	err := tx.QueryRow(ctx, `SELECT secret, last_step FROM user_totp WHERE user_id = $1 AND enabled_at IS NOT NULL FOR UPDATE`, userID).
		Scan(&sealed, &lastStep)
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrTOTPOff
	}
	if err != nil {
		return db.Classify(err)
	}
	if f.Recovery != "" {
		tag, err := tx.Exec(ctx, `UPDATE totp_recovery_codes SET used_at = $3 WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL`,
			userID, hashRecovery(f.Recovery), now)
		if err != nil {
			return db.Classify(err)
		}
		if tag.RowsAffected() == 0 {
			return ErrWrongCode
		}
		return nil
	}
	step, err := checkTOTP(k, sealed, f.TOTP, now, lastStep)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `UPDATE user_totp SET last_step = $2 WHERE user_id = $1`, userID, step)
	return db.Classify(err)
}

// DisableTOTP removes the user's authenticator and recovery codes.
func DisableTOTP(ctx context.Context, q db.Querier, userID string) error {
	if _, err := q.Exec(ctx, `DELETE FROM user_totp WHERE user_id = $1`, userID); err != nil {
		return db.Classify(err)
	}
	_, err := q.Exec(ctx, `DELETE FROM totp_recovery_codes WHERE user_id = $1`, userID)
	return db.Classify(err)
}

// ChallengeTTL is how long the code step of a sign-in waits after the
// password was accepted.
const ChallengeTTL = 5 * time.Minute

// ErrChallengeExpired answers a code step whose pending sign-in is unknown,
// used or older than ChallengeTTL.
var ErrChallengeExpired = apperr.New(apperr.Unauthenticated, "the sign-in has expired; enter your email and password again")

// StartChallenge records that the user's password was accepted and returns
// the pending-sign-in token (random, kept only as its SHA-256) that the
// code step must present. It opens nothing else. A disabled user gets
// ErrAccountDisabled here, as Sessions.Start gives it without two-factor:
// a code prompt would promise a sign-in that cannot happen.
func StartChallenge(ctx context.Context, q db.Querier, userID string, now time.Time) (string, error) {
	token, hash, err := newOpaqueToken("")
	if err != nil {
		return "", err
	}
	// Expired challenges of the user go with each new one, so they do not pile up.
	const sql = `WITH gone AS (DELETE FROM signin_challenges WHERE user_id = $2 AND expires_at <= $3)
		INSERT INTO signin_challenges (token_hash, user_id, expires_at)
		SELECT $1, id, $4 FROM users WHERE id = $2 AND disabled_at IS NULL`
	tag, err := q.Exec(ctx, sql, hash, userID, now, now.Add(ChallengeTTL))
	if err != nil {
		return "", db.Classify(err)
	}
	if tag.RowsAffected() == 0 {
		return "", ErrAccountDisabled
	}
	return token, nil
}

// ChallengeUser returns the user of a live pending sign-in, without using it.
func ChallengeUser(ctx context.Context, q db.Querier, token string, now time.Time) (string, error) {
	if token == "" || len(token) > 128 {
		return "", ErrChallengeExpired
	}
	var userID string
	err := q.QueryRow(ctx, `SELECT user_id::text FROM signin_challenges WHERE token_hash = $1 AND expires_at > $2`, hashToken(token), now).Scan(&userID)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", ErrChallengeExpired
	}
	return userID, db.Classify(err)
}

// EndChallenge uses up a pending sign-in; false when it was already gone
// (a second request with the same token lost the race).
func EndChallenge(ctx context.Context, q db.Querier, token string) (bool, error) {
	tag, err := q.Exec(ctx, `DELETE FROM signin_challenges WHERE token_hash = $1`, hashToken(token))
	return tag.RowsAffected() == 1, db.Classify(err)
}

// UserByID returns the user with that id.
func UserByID(ctx context.Context, q db.Querier, userID string) (User, error) {
	u, err := scanUser(q.QueryRow(ctx, `SELECT `+userColumns+` FROM users u WHERE u.id = $1`, userID))
	return u, db.Classify(err)
}
