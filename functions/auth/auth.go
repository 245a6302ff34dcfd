// Package auth is the sign-up and sign-in route group: register, login (with
// its two-factor code step), logout, me, password reset, email verification,
// two-factor set-up and personal API tokens.
package auth

import (
	"context"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/analytics"
	"tradejournal/shared/app"
	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
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
// stops guessing spread across many addresses. It is the one limit a
// stranger can still use against the owner: whoever controls more than
// ten addresses (ceiling / per-account-and-client) can keep the account's
// sign-in shut for the hour. It is set to 100 an hour, far above what one
// person mistyping reaches and far below what guessing needs to get
// anywhere against argon2id and a password of 8 characters or more; two-factor
// sign-in covers what remains.
var (
	registerLimit          = ratelimit.Limit{Name: "register", N: 5, Per: 15 * time.Minute, Fallback: 3}
	loginPerClientIP       = ratelimit.Limit{Name: "login-ip", N: 30, Per: 15 * time.Minute}
	loginPerAccountClient  = ratelimit.Limit{Name: "login-account-ip", N: 10, Per: 15 * time.Minute}
	loginPerAccountCeiling = ratelimit.Limit{Name: "login-account", N: 100, Per: time.Hour}
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
	for _, c := range []struct {
		limit ratelimit.Limit
		key   string
	}{{loginPerClientIP, client}, {loginPerAccountClient, email + "\x00" + client}, {loginPerAccountCeiling, email}} {
		if err := ratelimit.Check(ctx, h.app.Limiter, c.limit, c.key); err != nil {
			httpx.Error(w, r, err)
			return
		}
	}
	user, hash, err := auth.UserByEmail(ctx, h.app.DB, email)
	if err != nil && err != apperr.ErrNotFound {
		httpx.Error(w, r, err)
		return
	}
	ok, verr := auth.VerifyPassword(req.Password, hashOrDummy(hash))
	if err == apperr.ErrNotFound || verr != nil || !ok {
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
	httpx.JSON(w, http.StatusOK, userEnvelope{User: user})
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

func (h handler) me(w http.ResponseWriter, r *http.Request) {
	httpx.JSON(w, http.StatusOK, userEnvelope{User: auth.CurrentUser(r.Context())})
}
