package auth

import (
	"context"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/email"
	"tradejournal/shared/httpx"
	"tradejournal/shared/ratelimit"
)

// Limits of the mailing routes: each mail costs the operator, and reset
// requests must not become a way to flood someone's inbox.
var (
	resetPerClientIP = ratelimit.Limit{Name: "reset-ip", N: 10, Per: 15 * time.Minute}
	resetPerEmail    = ratelimit.Limit{Name: "reset-email", N: 3, Per: 15 * time.Minute}
	resendPerUser    = ratelimit.Limit{Name: "verify-resend", N: 3, Per: 15 * time.Minute}
	// The token routes are public and cost a database round trip (and a
	// password hash for a valid reset token): limited per client address.
	confirmPerClientIP = ratelimit.Limit{Name: "reset-confirm-ip", N: 10, Per: 15 * time.Minute}
	verifyPerClientIP  = ratelimit.Limit{Name: "verify-ip", N: 30, Per: 15 * time.Minute}
)

// queueMail issues a token for the user and puts its mail in the outbox,
// inside tx. The token rides in the URL fragment, which browsers never send
// to a server, so it stays out of access logs and analytics.
func (h handler) queueMail(ctx context.Context, tx pgx.Tx, user auth.User, purpose string) error {
	token, err := auth.IssueToken(ctx, tx, user.ID, purpose, h.app.Now())
	if err != nil {
		return err
	}
	base := h.app.Config.Email.WebBaseURL
	msg := email.Message{To: user.Email}
	switch purpose {
	case auth.PurposeVerify:
		msg.Subject = "Confirm your email address"
		msg.Body = "Welcome to Trade Journal.\n\nConfirm your email address by opening this link within 24 hours:\n\n" +
			base + "/verify-email#token=" + token + "\n\nIf you did not sign up, ignore this mail.\n"
	case auth.PurposeReset:
		msg.Subject = "Reset your Trade Journal password"
		msg.Body = "Someone asked to reset the password of this Trade Journal account.\n\nChoose a new password within an hour:\n\n" +
			base + "/reset-password#token=" + token + "\n\nIf it was not you, ignore this mail: your password stays as it is.\n"
	}
	return email.Enqueue(ctx, tx, msg)
}

type emailRequest struct {
	Email string `json:"email"`
}

// requestReset answers 202 whether or not the address has an account, so
// the route tells nobody who is registered.
func (h handler) requestReset(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var req emailRequest
	if err := httpx.Decode(w, r, &req); err != nil {
		httpx.Error(w, r, err)
		return
	}
	addr, msg := auth.NormalizeEmail(req.Email)
	if msg != "" {
		httpx.Error(w, r, apperr.Invalid("email", msg))
		return
	}
	if err := ratelimit.Check(ctx, h.app.Limiter, resetPerClientIP, httpx.ClientIP(r)); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if h.app.Outbox == nil || !h.allowQuietly(ctx, resetPerEmail, addr) {
		httpx.JSON(w, http.StatusAccepted, map[string]string{"status": "accepted"})
		return
	}
	user, _, err := auth.UserByEmail(ctx, h.app.DB, addr)
	if err == nil {
		err = db.InTx(ctx, h.app.DB, func(tx pgx.Tx) error { return h.queueMail(ctx, tx, user, auth.PurposeReset) })
		h.app.Outbox.Nudge()
	}
	if err != nil && err != apperr.ErrNotFound {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusAccepted, map[string]string{"status": "accepted"})
}

// allowQuietly applies a per-address limit without telling the caller, who
// must not learn whether mail went out.
func (h handler) allowQuietly(ctx context.Context, l ratelimit.Limit, key string) bool {
	ok, _ := h.app.Limiter.Allow(ctx, l, key)
	return ok
}

type confirmResetRequest struct {
	Token    string `json:"token"`
	Password string `json:"password"`
}

func (h handler) confirmReset(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var req confirmResetRequest
	if err := httpx.Decode(w, r, &req); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if msg := auth.CheckPassword(req.Password); msg != "" {
		httpx.Error(w, r, apperr.Invalid("password", msg))
		return
	}
	// Cheap checks first: the rate limit, then the token, and only for a
	// live token the costly hash.
	if err := ratelimit.Check(ctx, h.app.Limiter, confirmPerClientIP, httpx.ClientIP(r)); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if err := auth.CheckToken(ctx, h.app.DB, req.Token, auth.PurposeReset, h.app.Now()); err != nil {
		httpx.Error(w, r, err)
		return
	}
	hash, err := auth.HashPassword(req.Password)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	err = db.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		userID, err := auth.ConsumeToken(ctx, tx, req.Token, auth.PurposeReset, h.app.Now())
		if err != nil {
			return err
		}
		return auth.ReplacePassword(ctx, tx, userID, hash)
	})
	if err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	httpx.NoContent(w)
}

type tokenRequest struct {
	Token string `json:"token"`
}

func (h handler) verifyEmail(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var req tokenRequest
	if err := httpx.Decode(w, r, &req); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if err := ratelimit.Check(ctx, h.app.Limiter, verifyPerClientIP, httpx.ClientIP(r)); err != nil {
		httpx.Error(w, r, err)
		return
	}
	err := db.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		userID, err := auth.ConsumeToken(ctx, tx, req.Token, auth.PurposeVerify, h.app.Now())
		if err != nil {
			return err
		}
		return auth.SetVerified(ctx, tx, userID)
	})
	if err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	httpx.NoContent(w)
}

// resendVerification mails a fresh link; without email configured, or for
// an address already confirmed, there is nothing to send.
func (h handler) resendVerification(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	user := auth.CurrentUser(ctx)
	if h.app.Outbox == nil || user.EmailVerified {
		httpx.NoContent(w)
		return
	}
	if err := ratelimit.Check(ctx, h.app.Limiter, resendPerUser, user.ID); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if err := db.InTx(ctx, h.app.DB, func(tx pgx.Tx) error { return h.queueMail(ctx, tx, user, auth.PurposeVerify) }); err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	h.app.Outbox.Nudge()
	httpx.NoContent(w)
}
