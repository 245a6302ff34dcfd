// Package auth is the sign-up and sign-in route group: register, login (with
// its two-factor code step), logout, me, password reset, email verification,
// two-factor set-up and personal API tokens.
package auth

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/analytics"
	"tradejournal/shared/app"
	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/email"
	"tradejournal/shared/httpx"
	"tradejournal/shared/ratelimit"
)

// Rate limits. Register's is the spec's; sign-in's are ours: generous for
// a person who mistypes, tight for a guesser.
//
// Sign-in counts per client (its address, through TRUSTED_PROXIES) and per
// account and client, so the tries one client spends on an account refuse
// only that client: the owner, signing in from another address, is never
// locked out by them. The per-account ceiling, counted over all clients,
// stops guessing spread across many addresses: 100 an hour, far above what
// one person mistyping reaches and far below what guessing needs to get
// anywhere against argon2id and a password of 8 characters or more.
//
// Whoever controls more than ten addresses could fill that ceiling and shut
// the owner out for the hour, so a browser that signed in to the account
// before (its device cookie, shared/auth devicecookie.go, OWASP's scheme)
// is not held to the account's limits but to its own, per cookie: the
// owner's browsers still sign in while strangers' are refused. Two-factor
// sign-in covers what remains.
var (
	registerLimit          = ratelimit.Limit{Name: "register", N: 5, Per: 15 * time.Minute, Fallback: 3}
	loginPerClientIP       = ratelimit.Limit{Name: "login-ip", N: 30, Per: 15 * time.Minute}
	loginPerAccountClient  = ratelimit.Limit{Name: "login-account-ip", N: 10, Per: 15 * time.Minute}
	loginPerAccountCeiling = ratelimit.Limit{Name: "login-account", N: 100, Per: time.Hour}
	loginPerDevice         = ratelimit.Limit{Name: "login-device", N: 10, Per: 15 * time.Minute}
	errBadCredentials      = apperr.New(apperr.InvalidCredentials, "wrong email or password")
)

type handler struct{ app *app.App }

// Group returns the auth route group.
func Group(a *app.App) httpx.Group {
	h := handler{app: a}
	return httpx.Group{
		Name:   "auth",
		Mounts: []string{"/api/auth/"},
		Routes: []httpx.Route{
			{Pattern: "POST /api/auth/register", Handler: h.register},
			{Pattern: "POST /api/auth/login", Handler: h.login},
			{Pattern: "POST /api/auth/logout", Handler: h.logout},
			{Pattern: "GET /api/auth/me", Handler: a.Sessions.Require(h.me)},
			{Pattern: "POST /api/auth/password-reset/request", Handler: h.requestReset},
			{Pattern: "POST /api/auth/password-reset/confirm", Handler: h.confirmReset},
			{Pattern: "POST /api/auth/verify-email", Handler: h.verifyEmail},
			{Pattern: "POST /api/auth/verify-email/resend", Handler: a.Sessions.Require(h.resendVerification)},
			{Pattern: "POST /api/auth/login/two-factor", Handler: h.loginCode},
			{Pattern: "GET /api/auth/two-factor", Handler: a.Sessions.Require(h.twoFactorStatus)},
			{Pattern: "POST /api/auth/two-factor/setup", Handler: a.Sessions.Require(h.setup)},
			{Pattern: "POST /api/auth/two-factor/confirm", Handler: a.Sessions.Require(h.confirm)},
			{Pattern: "POST /api/auth/two-factor/disable", Handler: a.Sessions.Require(h.disable)},
			{Pattern: "GET /api/auth/tokens", Handler: a.Sessions.Require(h.listTokens)},
			{Pattern: "POST /api/auth/tokens", Handler: a.Sessions.Require(h.createToken)},
			{Pattern: "DELETE /api/auth/tokens/{tokenId}", Handler: a.Sessions.Require(h.revokeToken)},
		},
	}
}

type userEnvelope struct {
	User auth.User `json:"user"`
}

type registerRequest struct {
	Email    string  `json:"email"`
	Password string  `json:"password"`
	Timezone *string `json:"timezone"`
}

func (h handler) register(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if h.app.Config.Accounts.DisableRegistration {
		httpx.Error(w, r, apperr.New(apperr.RegistrationDisabled, "registration is closed on this instance"))
		return
	}
	if err := ratelimit.Check(ctx, h.app.Limiter, registerLimit, httpx.ClientIP(r)); err != nil {
		httpx.Error(w, r, err)
		return
	}
	var req registerRequest
	if err := httpx.Decode(w, r, &req); err != nil {
		httpx.Error(w, r, err)
		return
	}
	var problems []apperr.FieldError
	email, msg := auth.NormalizeEmail(req.Email)
	if msg != "" {
		problems = append(problems, apperr.FieldError{Field: "email", Message: msg})
	}
	if msg := auth.CheckPassword(req.Password); msg != "" {
		problems = append(problems, apperr.FieldError{Field: "password", Message: msg})
	}
	timezone := "UTC"
	if req.Timezone != nil {
		timezone = *req.Timezone
		if msg := auth.CheckTimezone(timezone); msg != "" {
			problems = append(problems, apperr.FieldError{Field: "timezone", Message: msg})
		}
	}
	if err := apperr.Fields(problems); err != nil {
		httpx.Error(w, r, err)
		return
	}
	// Cheap checks before the costly hash: an address with an account is
	// refused without one (CreateUser's constraint still decides a race).
	if taken, err := auth.EmailRegistered(ctx, h.app.DB, email); err != nil || taken {
		if taken {
			err = auth.ErrEmailTaken
		}
		httpx.Error(w, r, err)
		return
	}

	hash, err := auth.HashPassword(req.Password)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	var user auth.User
	err = db.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		if user, err = auth.CreateUser(ctx, tx, email, hash, timezone); err != nil {
			return err
		}
		// The theme picked on the signed-out pages becomes the account's.
		if theme := auth.ThemeOfRequest(r); theme != user.Theme {
			if user, err = auth.SetTheme(ctx, tx, user.ID, theme); err != nil {
				return err
			}
		}
		if h.app.Outbox != nil {
			if err := h.queueMail(ctx, tx, user, auth.PurposeVerify); err != nil {
				return err
			}
		}
		return h.app.Sessions.Start(w, r, tx, user.ID)
	})
	if err != nil {
		w.Header().Del("Set-Cookie") // the session rolled back with the user
		httpx.Error(w, r, db.Classify(err))
		return
	}
	if h.app.Outbox != nil {
		h.app.Outbox.Nudge()
	}
	h.app.Analytics.Capture(user.ID, analytics.EventSignedUp, analytics.Props{"emailVerificationSent": h.app.Outbox != nil})
	auth.SetThemeCookie(w, user.Theme)
	httpx.JSON(w, http.StatusCreated, userEnvelope{User: user})
}

type loginRequest struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

func (h handler) login(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var req loginRequest
	if err := httpx.Decode(w, r, &req); err != nil {
		httpx.Error(w, r, err)
		return
	}
	email, msg := auth.NormalizeEmail(req.Email)
	if msg != "" || req.Password == "" || len(req.Password) > auth.MaxPasswordBytes {
		httpx.Error(w, r, errBadCredentials)
		return
	}
	client := httpx.ClientIP(r)
	if err := ratelimit.Check(ctx, h.app.Limiter, loginPerClientIP, client); err != nil {
		httpx.Error(w, r, err)
		return
	}
	user, hash, err := auth.UserByEmail(ctx, h.app.DB, email)
	if err != nil && err != apperr.ErrNotFound {
		httpx.Error(w, r, err)
		return
	}
	if err := h.checkLoginLimits(r, email, client, user.ID); err != nil {
		httpx.Error(w, r, err)
		return
	}
	ok, verr := auth.VerifyPassword(req.Password, hashOrDummy(hash))
	if err == apperr.ErrNotFound || verr != nil || !ok {
		if err == nil {
			if err := h.recordFailure(r, user); err != nil {
				httpx.Error(w, r, err)
				return
			}
		}
		httpx.Error(w, r, errBadCredentials)
		return
	}
	if on, _, err := auth.TOTPStatus(ctx, h.app.DB, user.ID); err != nil || on {
		if err == nil {
			err = h.challenge(ctx, w, user.ID)
		}
		if err != nil {
			httpx.Error(w, r, err)
		}
		return
	}
	if err := h.app.Sessions.Start(w, r, h.app.DB, user.ID); err != nil {
		httpx.Error(w, r, err)
		return
	}
	auth.SetThemeCookie(w, user.Theme)
	httpx.JSON(w, http.StatusOK, userEnvelope{User: user})
}

// checkLoginLimits applies the account's sign-in limits: a browser with a
// valid device cookie for userID ("" for an unknown address) has its own
// limit; any other client the per-account-and-client limit and the
// per-account ceiling.
func (h handler) checkLoginLimits(r *http.Request, email, client, userID string) error {
	ctx := r.Context()
	device, trusted, err := h.app.Sessions.TrustedDevice(ctx, r, userID)
	if err != nil {
		return err
	}
	if trusted {
		return ratelimit.Check(ctx, h.app.Limiter, loginPerDevice, device)
	}
	if err := ratelimit.Check(ctx, h.app.Limiter, loginPerAccountClient, email+"\x00"+client); err != nil {
		return err
	}
	return ratelimit.Check(ctx, h.app.Limiter, loginPerAccountCeiling, email)
}

// recordFailure counts a wrong password for the user and, when the count
// since their last sign-in reaches the threshold (and email is
// configured), mails them, at most once a day. The mail names no address
// and no time of day beyond the latest try's: it is a warning, not a log.
func (h handler) recordFailure(r *http.Request, user auth.User) error {
	ctx := r.Context()
	err := db.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		failed, due, err := auth.RecordFailedSignIn(r, tx, user.ID, h.app.Now())
		if err != nil || !due || h.app.Outbox == nil {
			return err
		}
		return email.Enqueue(ctx, tx, email.Message{
			To:      user.Email,
			Subject: "Failed sign-in attempts on your Trade Journal account",
			Body: fmt.Sprintf("Someone gave a wrong password for your Trade Journal account %d times since your last sign-in, "+
				"the latest at %s UTC.\n\nIf it was you, there is nothing to do. Browsers you signed in with before keep "+
				"signing in; new ones may be refused for up to an hour while the attempts go on.\n\n"+
				"If it was not you, make sure your password is long and used nowhere else, and turn on two-factor sign-in "+
				"in the security settings. You will see the count there after your next sign-in.\n",
				failed.Count, failed.LastFailedAt.Format("2006-01-02 15:04")),
		})
	})
	if err == nil && h.app.Outbox != nil {
		h.app.Outbox.Nudge()
	}
	return err
}

// challenge answers a correct password of a user with two-factor on with
// 202 and the pending-sign-in token that POST /api/auth/login/two-factor
// takes with the code.
func (h handler) challenge(ctx context.Context, w http.ResponseWriter, userID string) error {
	token, err := auth.StartChallenge(ctx, h.app.DB, userID, h.app.Now())
	if err != nil {
		return err
	}
	httpx.JSON(w, http.StatusAccepted, challengeResponse{TwoFactorRequired: true, PendingToken: token})
	return nil
}

// hashOrDummy keeps a login for an unknown address as slow as a real one.
func hashOrDummy(hash string) string {
	if hash == "" {
		return auth.DummyHash()
	}
	return hash
}

func (h handler) logout(w http.ResponseWriter, r *http.Request) {
	if err := h.app.Sessions.End(r.Context(), w, r); err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.NoContent(w)
}

// me answers the signed-in user, and refreshes the theme cookie: a theme
// picked on another device reaches this browser's next first paint.
func (h handler) me(w http.ResponseWriter, r *http.Request) {
	u := auth.CurrentUser(r.Context())
	auth.SetThemeCookie(w, u.Theme)
	httpx.JSON(w, http.StatusOK, userEnvelope{User: u})
}
