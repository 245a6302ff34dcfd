// Package auth holds users, passwords and sessions: what every route group
// needs to know who is calling.
package auth

import (
	"context"
	"fmt"
	"log/slog"
	"net/mail"
	"regexp"
	"strings"
	"time"
	// Zones are checked and applied with time.LoadLocation; the Lambda
	// runtime image (provided.al2023) has no /usr/share/zoneinfo, so every
	// binary carries its own copy (ARCHITECTURE.md: embed time/tzdata).
	_ "time/tzdata"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
)

// User is the signed-in person as the API shows them. No secret field.
type User struct {
	ID            string `json:"id"`
	Email         string `json:"email"`
	EmailVerified bool   `json:"emailVerified"`
	IsAdmin       bool   `json:"isAdmin"`
	Timezone      string `json:"timezone"`
	// DisplayCurrency is the ISO 4217 code the dashboard converts into;
	// nil until chosen (or set from the first account's currency).
	DisplayCurrency *string `json:"displayCurrency"`
	// Theme is light, dark or system (theme.go).
	Theme     string    `json:"theme"`
	CreatedAt time.Time `json:"createdAt"`
}

// userColumns is selected wherever a User is scanned, in scanUser's order.
const userColumns = "u.id::text, u.email, u.email_verified, u.is_admin, u.timezone, u.display_currency::text, u.theme, u.created_at"

func scanUser(row pgx.Row, extra ...any) (User, error) {
	var u User
	err := row.Scan(append([]any{&u.ID, &u.Email, &u.EmailVerified, &u.IsAdmin, &u.Timezone, &u.DisplayCurrency, &u.Theme, &u.CreatedAt}, extra...)...)
	return u, err
}

// MaxEmailBytes is the longest address SMTP can carry (RFC 5321).
const MaxEmailBytes = 254

// NormalizeEmail trims and lowercases an address and checks its shape.
// It returns what is wrong, or "".
func NormalizeEmail(raw string) (string, string) {
	e := strings.ToLower(strings.TrimSpace(raw))
	switch {
	case e == "":
		return "", "is required"
	case len(e) > MaxEmailBytes:
		return "", fmt.Sprintf("must be at most %d characters", MaxEmailBytes)
	}
	addr, err := mail.ParseAddress(e)
	if err != nil || addr.Address != e || !strings.Contains(e[strings.LastIndexByte(e, '@'):], ".") {
		return "", "must be an email address"
	}
	return e, ""
}

// zoneName is the shape of an IANA zone name: segments of letters, digits,
// '_', '-' and '+'. time.LoadLocation alone would also accept paths the
// local filesystem resolves ("Europe//Berlin", "./UTC") but the embedded
// database, all a Lambda host has, does not.
var zoneName = regexp.MustCompile(`^[A-Za-z0-9_+-]+(/[A-Za-z0-9_+-]+)*$`)

// CheckTimezone returns what is wrong with an IANA zone name, or "".
func CheckTimezone(name string) string {
	if name == "" || len(name) > 64 || name == "Local" || !zoneName.MatchString(name) {
		return "must be an IANA time zone name such as Europe/Berlin"
	}
	if _, err := time.LoadLocation(name); err != nil {
		return "must be an IANA time zone name such as Europe/Berlin"
	}
	return ""
}

// ErrEmailTaken answers a registration for an address that has an account.
var ErrEmailTaken = apperr.New(apperr.EmailTaken, "an account with this email already exists")

// EmailRegistered reports whether email (normalised) has an account: the
// cheap check registration makes before it hashes a password.
func EmailRegistered(ctx context.Context, q db.Querier, email string) (bool, error) {
	var taken bool
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM users WHERE email = $1)`, email).Scan(&taken)
	return taken, db.Classify(err)
}

// CreateUser inserts a user; an address already registered is EMAIL_TAKEN
// (the unique constraint decides, so two racing registrations cannot both win).
func CreateUser(ctx context.Context, q db.Querier, email, passwordHash, timezone string) (User, error) {
	const sql = `INSERT INTO users AS u (email, password_hash, timezone) VALUES ($1, $2, $3)
		RETURNING ` + userColumns
	u, err := scanUser(q.QueryRow(ctx, sql, email, passwordHash, timezone))
	if db.IsUniqueViolation(err, "users_email_key") {
		return User{}, ErrEmailTaken
	}
	return u, db.Classify(err)
}

// UserByEmail returns the user and their password hash.
func UserByEmail(ctx context.Context, q db.Querier, email string) (User, string, error) {
	const sql = `SELECT ` + userColumns + `, u.password_hash FROM users u WHERE u.email = $1`
	var hash string
	u, err := scanUser(q.QueryRow(ctx, sql, email), &hash)
	return u, hash, db.Classify(err)
}

// SetTimezone changes the user's reporting time zone.
func SetTimezone(ctx context.Context, q db.Querier, userID, timezone string) (User, error) {
	const sql = `UPDATE users u SET timezone = $2 WHERE u.id = $1 RETURNING ` + userColumns
	u, err := scanUser(q.QueryRow(ctx, sql, userID, timezone))
	return u, db.Classify(err)
}

// SetDisplayCurrency changes the currency the dashboard and the
// performance totals convert into. The caller checks the code.
func SetDisplayCurrency(ctx context.Context, q db.Querier, userID, currency string) (User, error) {
	const sql = `UPDATE users u SET display_currency = $2 WHERE u.id = $1 RETURNING ` + userColumns
	u, err := scanUser(q.QueryRow(ctx, sql, userID, currency))
	return u, db.Classify(err)
}

// SetPassword replaces the password of the user with that email and ends
// every session of theirs, in one transaction.
func SetPassword(ctx context.Context, pool db.Beginner, email, passwordHash string) error {
	return db.InTx(ctx, pool, func(tx pgx.Tx) error {
		var id string
		if err := tx.QueryRow(ctx, `SELECT id::text FROM users WHERE email = $1 FOR UPDATE`, email).Scan(&id); err != nil {
			return db.Classify(err)
		}
		return ReplacePassword(ctx, tx, id, passwordHash)
	})
}

// bootstrapKey marks, in instance_state, that the first admin was made, so a
// later demotion is never undone by a restart.
const bootstrapKey = "first_admin_bootstrapped"

// SeedAdmin makes the user with the given (lowercase) email an admin when the
// instance has never bootstrapped one and has zero admins. It runs at every
// start; an advisory lock keeps concurrent starts from racing.
func SeedAdmin(ctx context.Context, pool db.Beginner, email string, log *slog.Logger) error {
	if email == "" {
		return nil
	}
	return db.InTx(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(7240815)`); err != nil {
			return err
		}
		var done, hasAdmin bool
		const state = `SELECT EXISTS (SELECT 1 FROM instance_state WHERE key = $1),
			EXISTS (SELECT 1 FROM users WHERE is_admin)`
		if err := tx.QueryRow(ctx, state, bootstrapKey).Scan(&done, &hasAdmin); err != nil {
			return err
		}
		if done || hasAdmin {
			return nil
		}
		tag, err := tx.Exec(ctx, `UPDATE users SET is_admin = true WHERE email = $1`, email)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			log.Info("SEED_ADMIN_EMAIL names no registered user yet: register with that address, then restart to make it the first admin")
			return nil
		}
		if _, err := tx.Exec(ctx, `INSERT INTO instance_state (key, value) VALUES ($1, 'true')`, bootstrapKey); err != nil {
			return err
		}
		log.Info("first admin bootstrapped from SEED_ADMIN_EMAIL")
		return nil
	})
}
