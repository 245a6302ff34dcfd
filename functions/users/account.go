package users

import (
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

// Limits of the account routes. A stolen session must not become a way to
// guess the password through the change forms: the two share one limit
// per user. The email confirmation is public and costs a transaction.
var (
	currentPasswordLimit = ratelimit.Limit{Name: "current-password", N: 10, Per: 15 * time.Minute}
	confirmEmailLimit    = ratelimit.Limit{Name: "email-change-confirm-ip", N: 30, Per: 15 * time.Minute}
)

type passwordChangeRequest struct {
	CurrentPassword string `json:"currentPassword"`
	NewPassword     string `json:"newPassword"`
	// RevokeTokens also revokes every API token of the user.
	RevokeTokens bool `json:"revokeTokens"`
}

type endedEnvelope struct {
	EndedSessions int64 `json:"endedSessions"`
}

// changePassword sets a new password; every other session of the user
// ends, the caller's stays, and the API tokens go too when asked.
func (h handler) changePassword(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	user := auth.CurrentUser(ctx)
	var req passwordChangeRequest
	if err := httpx.Decode(w, r, &req); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if msg := auth.CheckPassword(req.NewPassword); msg != "" {
		httpx.Error(w, r, apperr.Invalid("newPassword", msg))
		return
	}
	if err := h.checkCurrentPassword(r, user.ID, req.CurrentPassword); err != nil {
		httpx.Error(w, r, err)
		return
	}
	hash, err := auth.HashPassword(req.NewPassword)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	changed, err := auth.ChangePassword(ctx, h.app.DB, r, user.ID, hash, req.RevokeTokens)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, changed)
}

// checkCurrentPassword applies the per-user limit, then the costly check.
func (h handler) checkCurrentPassword(r *http.Request, userID, password string) error {
	if err := ratelimit.Check(r.Context(), h.app.Limiter, currentPasswordLimit, userID); err != nil {
		return err
	}
	return auth.CheckCurrentPassword(r.Context(), h.app.DB, userID, password)
}

type emailChangeRequest struct {
	CurrentPassword string `json:"currentPassword"`
	Email           string `json:"email"`
}

// emailChange is the answer to a change of address: the user as they are
// now, and the address waiting for its confirmation link, if any.
type emailChange struct {
	User         auth.User `json:"user"`
	PendingEmail *string   `json:"pendingEmail"`
}

// changeEmail moves the user to a new address. With email delivery
// configured the address must be reached first: a link goes to it (202)
// and the change happens when it is opened. Without, it changes at once
// (200), unconfirmed, as registration leaves an address then.
func (h handler) changeEmail(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	user := auth.CurrentUser(ctx)
	var req emailChangeRequest
	if err := httpx.Decode(w, r, &req); err != nil {
		httpx.Error(w, r, err)
		return
	}
	addr, msg := auth.NormalizeEmail(req.Email)
	if msg == "" && addr == user.Email {
		msg = "is already your email address"
	}
	if msg != "" {
		httpx.Error(w, r, apperr.Invalid("email", msg))
		return
	}
	if err := h.checkCurrentPassword(r, user.ID, req.CurrentPassword); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if taken, err := auth.EmailRegistered(ctx, h.app.DB, addr); err != nil || taken {
		if taken {
			err = auth.ErrEmailTaken
		}
		httpx.Error(w, r, err)
		return
	}
	if h.app.Outbox == nil {
		var changed auth.User
		err := db.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
			var err error
			changed, _, err = auth.ChangeEmail(ctx, tx, user.ID, addr)
			return err
		})
		if err != nil {
			httpx.Error(w, r, err)
			return
		}
		httpx.JSON(w, http.StatusOK, emailChange{User: changed})
		return
	}
	err := db.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		token, err := auth.IssueEmailChange(ctx, tx, user.ID, addr, h.app.Now())
		if err != nil {
			return err
		}
		// The token rides in the URL fragment, which browsers never send
		// to a server, so it stays out of access logs and analytics.
		return email.Enqueue(ctx, tx, email.Message{
			To:      addr,
			Subject: "Confirm your new email address",
			Body: "Someone asked to use this address for a Trade Journal account.\n\n" +
				"Confirm it by opening this link within 24 hours:\n\n" +
				h.app.Config.Email.WebBaseURL + "/confirm-email#token=" + token +
				"\n\nUntil then the account keeps its old address. If it was not you, ignore this mail.\n",
		})
	})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	h.app.Outbox.Nudge()
	httpx.JSON(w, http.StatusAccepted, emailChange{User: user, PendingEmail: &addr})
}

type tokenRequest struct {
	Token string `json:"token"`
}

// confirmEmailChange is the mailed link's route: public, since the link
// may be opened on a device that is not signed in; the token is the proof.
// The old address is told, in case it was not its owner's doing.
func (h handler) confirmEmailChange(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var req tokenRequest
	if err := httpx.Decode(w, r, &req); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if err := ratelimit.Check(ctx, h.app.Limiter, confirmEmailLimit, httpx.ClientIP(r)); err != nil {
		httpx.Error(w, r, err)
		return
	}
	err := db.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		_, previous, err := auth.ConfirmEmailChange(ctx, tx, req.Token, h.app.Now())
		if err != nil || h.app.Outbox == nil {
			return err
		}
		return email.Enqueue(ctx, tx, email.Message{
			To:      previous,
			Subject: "Your Trade Journal email address was changed",
			Body: "The email address of your Trade Journal account was changed to another one, " +
				"confirmed from that address.\n\nIf it was not you, reset your password at once and " +
				"ask the administrator of this instance for help.\n",
		})
	})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	if h.app.Outbox != nil {
		h.app.Outbox.Nudge()
	}
	httpx.NoContent(w)
}

type devicesEnvelope struct {
	Items []auth.Device `json:"items"`
	// FailedSignIns are the wrong passwords given for the account before
	// the latest sign-in, until dismissed; null when there are none.
	FailedSignIns *auth.FailedSignIns `json:"failedSignIns"`
	// RecentSignIns are the latest sign-ins and wrong passwords, newest first.
	RecentSignIns []auth.SignInEvent `json:"recentSignIns"`
}

// listSessions lists the caller's signed-in devices, with the notice of
// failed sign-in attempts the security settings show above them and the
// sign-in history below.
func (h handler) listSessions(w http.ResponseWriter, r *http.Request) {
	userID := auth.CurrentUser(r.Context()).ID
	list, err := h.app.Sessions.Devices(r, userID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	failed, err := auth.FailedSignInNotice(r.Context(), h.app.DB, userID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	recent, err := auth.SignInHistory(r.Context(), h.app.DB, userID, auth.KeptSignInEvents)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, devicesEnvelope{Items: list, FailedSignIns: failed, RecentSignIns: recent})
}

// dismissFailedSignIns clears the notice of failed sign-in attempts.
func (h handler) dismissFailedSignIns(w http.ResponseWriter, r *http.Request) {
	if err := auth.DismissFailedSignIns(r.Context(), h.app.DB, auth.CurrentUser(r.Context()).ID); err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.NoContent(w)
}

// revokeSession ends one of the caller's sessions (their own signs them out).
func (h handler) revokeSession(w http.ResponseWriter, r *http.Request) {
	if err := h.app.Sessions.Revoke(w, r, auth.CurrentUser(r.Context()).ID, r.PathValue("sessionId")); err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.NoContent(w)
}

// revokeOtherSessions signs the caller out everywhere else.
func (h handler) revokeOtherSessions(w http.ResponseWriter, r *http.Request) {
	ended, err := auth.EndOthers(r.Context(), h.app.DB, r, auth.CurrentUser(r.Context()).ID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, endedEnvelope{EndedSessions: ended})
}
