package users

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/httpx"
	"tradejournal/shared/objectstore"
	"tradejournal/shared/ratelimit"
)

// deleteLimit bounds password tries on the deletion route, per user.
var deleteLimit = ratelimit.Limit{Name: "account-delete", N: 10, Per: 15 * time.Minute}

type deleteRequest struct {
	Password     string `json:"password"`
	ConfirmEmail string `json:"confirmEmail"`
}

var (
	errWrongPassword = apperr.Invalid("password", "is not your current password")
	errWrongEmail    = apperr.Invalid("confirmEmail", "must be the email address you sign in with")
	errSubscription  = apperr.New(apperr.SubscriptionActive,
		"your Pro subscription is still running; cancel it in the billing portal first, then delete your account")
	errLastAdmin = apperr.New(apperr.Conflict, "you are this instance's only administrator; make another user an administrator first")
)

// deleteMe deletes the signed-in user's account: the password and the
// account's email typed again confirm it. Every row of the user goes in one
// transaction (the users row's cascade reaches every table that hangs off
// it: sessions, accounts and the journal under them, tags, images, rates,
// the wallet and its ledger, the assistant's conversations, ...), as do
// mails still queued to the address; each pack purchase is first copied,
// without the user, into deleted_account_payments (the payment record,
// docs/deployment.md). The images' objects are deleted from the bucket
// after the commit (queued by the rows' trigger, so the purge job retries a
// store that is down). A running Pro subscription refuses the deletion:
// the processor would keep charging for it.
func (h handler) deleteMe(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	u := auth.CurrentUser(ctx)
	if err := ratelimit.Check(ctx, h.app.Limiter, deleteLimit, u.ID); err != nil {
		httpx.Error(w, r, err)
		return
	}
	var req deleteRequest
	if err := httpx.Decode(w, r, &req); err != nil {
		httpx.Error(w, r, err)
		return
	}
	var p []apperr.FieldError
	if req.Password == "" {
		p = append(p, apperr.FieldError{Field: "password", Message: "is required"})
	}
	if strings.ToLower(strings.TrimSpace(req.ConfirmEmail)) != u.Email {
		p = append(p, apperr.FieldError{Field: "confirmEmail", Message: errWrongEmail.Details[0].Message})
	}
	if err := apperr.Fields(p); err != nil {
		httpx.Error(w, r, err)
		return
	}
	_, hash, err := auth.UserByEmail(ctx, h.app.DB, u.Email)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	if ok, err := auth.VerifyPassword(req.Password, hash); err != nil || !ok {
		httpx.Error(w, r, firstErr(err, errWrongPassword))
		return
	}
	var keys []string
	err = db.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		var err error
		keys, err = deleteUser(ctx, tx, u.ID, h.app.Now())
		return err
	})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	if _, err := objectstore.Purge(context.WithoutCancel(ctx), h.app.DB, h.app.Objects, keys); err != nil {
		httpx.Logger(ctx).Warn("deleted account's image objects not deleted yet; the purge job retries", "err", err)
	}
	// The session row went with the user; this clears the cookie.
	if err := h.app.Sessions.End(ctx, w, r); err != nil {
		httpx.Logger(ctx).Warn("session cookie of a deleted account not cleared", "err", err)
	}
	httpx.NoContent(w)
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// deleteUser deletes the user in tx and returns the storage keys of their
// images.
func deleteUser(ctx context.Context, tx pgx.Tx, userID string, now time.Time) ([]string, error) {
	var email string
	var admin bool
	if err := tx.QueryRow(ctx, `SELECT email, is_admin FROM users WHERE id = $1 FOR UPDATE`, userID).Scan(&email, &admin); err != nil {
		return nil, db.Classify(err)
	}
	var running bool
	const subQ = `SELECT EXISTS (SELECT 1 FROM billing_subscriptions WHERE user_id = $1
		AND status IN ('active', 'trialing', 'past_due', 'unpaid', 'incomplete') AND NOT cancel_at_period_end)`
	if err := tx.QueryRow(ctx, subQ, userID).Scan(&running); err != nil {
		return nil, db.Classify(err)
	}
	if running {
		return nil, errSubscription
	}
	if admin {
		var others bool
		// Locks the other admins' rows, so two last admins deleting at once
		// cannot both pass.
		const q = `SELECT count(*) > 0 FROM (SELECT id FROM users WHERE is_admin AND id <> $1 FOR UPDATE) a`
		if err := tx.QueryRow(ctx, q, userID).Scan(&others); err != nil {
			return nil, db.Classify(err)
		}
		if !others {
			return nil, errLastAdmin
		}
	}
	rows, err := tx.Query(ctx, `SELECT storage_key FROM position_images WHERE user_id = $1 AND storage_key IS NOT NULL`, userID)
	if err != nil {
		return nil, db.Classify(err)
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, db.Classify(err)
	}
	const keep = `INSERT INTO deleted_account_payments (checkout_session_id, pack_id, credits, amount_minor, currency, event_id,
			paid_at, account_deleted_at)
		SELECT checkout_session_id, pack_id, credits, amount_minor, currency, event_id, created_at, $2
		FROM billing_purchases WHERE user_id = $1 ON CONFLICT DO NOTHING`
	if _, err := tx.Exec(ctx, keep, userID, now); err != nil {
		return nil, db.Classify(err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM email_outbox WHERE to_address = $1`, email); err != nil {
		return nil, db.Classify(err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM users WHERE id = $1`, userID); err != nil {
		return nil, db.Classify(err)
	}
	return keys, nil
}
