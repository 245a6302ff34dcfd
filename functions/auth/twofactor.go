package auth

import (
	"encoding/base64"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	qrcode "github.com/skip2/go-qrcode"

	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/httpx"
	"tradejournal/shared/ratelimit"
)

// totpIssuer names the instance in authenticator apps.
const totpIssuer = "Trade Journal"

// Limits of the code step. Reaching it takes the right password, so the
// account's own limit cannot be used to lock the owner out by a stranger;
// with six digits and a 90-second window, 10 tries in 15 minutes leave a
// guesser about one chance in 30,000 a day.
var (
	codePerUser     = ratelimit.Limit{Name: "totp-user", N: 10, Per: 15 * time.Minute}
	codePerClientIP = ratelimit.Limit{Name: "totp-ip", N: 30, Per: 15 * time.Minute}
	// manageLimit bounds the signed-in two-factor routes (each confirm or
	// disable is a code guess too).
	manageLimit = ratelimit.Limit{Name: "totp-manage", N: 10, Per: 15 * time.Minute}
)

type twoFactorStatus struct {
	Enabled           bool `json:"enabled"`
	RecoveryCodesLeft int  `json:"recoveryCodesLeft"`
}

func (h handler) twoFactorStatus(w http.ResponseWriter, r *http.Request) {
	on, left, err := auth.TOTPStatus(r.Context(), h.app.DB, auth.CurrentUser(r.Context()).ID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, twoFactorStatus{Enabled: on, RecoveryCodesLeft: left})
}

type setupResponse struct {
	auth.Enrolment
	// QRCode is a PNG of the URI as a data: URL, for an <img>.
	QRCode string `json:"qrCode"`
}

// setup starts an enrolment: a new secret, not yet in force.
func (h handler) setup(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	user := auth.CurrentUser(ctx)
	if err := ratelimit.Check(ctx, h.app.Limiter, manageLimit, user.ID); err != nil {
		httpx.Error(w, r, err)
		return
	}
	e, err := auth.BeginTOTP(ctx, h.app.DB, h.app.Keyring, user, totpIssuer, h.app.Now())
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	png, err := qrcode.Encode(e.URI, qrcode.Medium, 256)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, setupResponse{Enrolment: e, QRCode: "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)})
}

type codeRequest struct {
	Code string `json:"code"`
}

type recoveryCodes struct {
	RecoveryCodes []string `json:"recoveryCodes"`
}

// confirm turns two-factor on with the first code from the app.
func (h handler) confirm(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	user := auth.CurrentUser(ctx)
	var req codeRequest
	if err := httpx.Decode(w, r, &req); err != nil {
		httpx.Error(w, r, err)
		return
	}
	f, ok := auth.ParseSecondFactor(req.Code)
	if !ok || f.TOTP == "" {
		httpx.Error(w, r, apperr.Invalid("code", "must be the 6-digit code your authenticator app shows"))
		return
	}
	if err := ratelimit.Check(ctx, h.app.Limiter, manageLimit, user.ID); err != nil {
		httpx.Error(w, r, err)
		return
	}
	codes, err := auth.ConfirmTOTP(ctx, h.app.DB, h.app.Keyring, user.ID, f.TOTP, h.app.Now())
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, recoveryCodes{RecoveryCodes: codes})
}

type disableRequest struct {
	Password string `json:"password"`
	Code     string `json:"code"`
}

var errWrongPassword = apperr.Invalid("password", "is not your current password")

// disable turns two-factor off: it takes the password and a code (or a
// recovery code), so a borrowed signed-in browser is not enough.
func (h handler) disable(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	user := auth.CurrentUser(ctx)
	var req disableRequest
	if err := httpx.Decode(w, r, &req); err != nil {
		httpx.Error(w, r, err)
		return
	}
	var problems []apperr.FieldError
	if req.Password == "" || len(req.Password) > auth.MaxPasswordBytes {
		problems = append(problems, apperr.FieldError{Field: "password", Message: "is required"})
	}
	if _, ok := auth.ParseSecondFactor(req.Code); !ok {
		problems = append(problems, apperr.FieldError{Field: "code", Message: "must be the 6-digit code from your authenticator app or a recovery code"})
	}
	if err := apperr.Fields(problems); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if err := ratelimit.Check(ctx, h.app.Limiter, manageLimit, user.ID); err != nil {
		httpx.Error(w, r, err)
		return
	}
	_, hash, err := auth.UserByEmail(ctx, h.app.DB, user.Email)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	if ok, err := auth.VerifyPassword(req.Password, hash); err != nil || !ok {
		httpx.Error(w, r, errWrongPassword)
		return
	}
	err = db.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		if err := auth.UseSecondFactor(ctx, tx, h.app.Keyring, user.ID, req.Code, h.app.Now()); err != nil {
			return err
		}
		return auth.DisableTOTP(ctx, tx, user.ID)
	})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.NoContent(w)
}

// challengeResponse answers a correct password of a user with two-factor
// on: no session yet, only the token of the code step.
type challengeResponse struct {
	TwoFactorRequired bool   `json:"twoFactorRequired"`
	PendingToken      string `json:"pendingToken"`
}

type loginCodeRequest struct {
	PendingToken string `json:"pendingToken"`
	Code         string `json:"code"`
}

var errWrongCode = apperr.New(apperr.InvalidCredentials, "wrong code")

// loginCode is the second step of a sign-in with two-factor on: the
// pending token and a code (or a recovery code) give the session.
func (h handler) loginCode(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var req loginCodeRequest
	if err := httpx.Decode(w, r, &req); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if err := ratelimit.Check(ctx, h.app.Limiter, codePerClientIP, httpx.ClientIP(r)); err != nil {
		httpx.Error(w, r, err)
		return
	}
	now := h.app.Now()
	userID, err := auth.ChallengeUser(ctx, h.app.DB, req.PendingToken, now)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	if err := ratelimit.Check(ctx, h.app.Limiter, codePerUser, userID); err != nil {
		httpx.Error(w, r, err)
		return
	}
	var user auth.User
	err = db.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		if err := auth.UseSecondFactor(ctx, tx, h.app.Keyring, userID, req.Code, now); err != nil {
			if e, ok := apperr.As(err); ok && (e == auth.ErrWrongCode || e == auth.ErrTOTPOff) {
				return errWrongCode
			}
			return err
		}
		if ended, err := auth.EndChallenge(ctx, tx, req.PendingToken); err != nil || !ended {
			if err == nil {
				err = auth.ErrChallengeExpired
			}
			return err
		}
		var err error
		if user, err = auth.UserByID(ctx, tx, userID); err != nil {
			return err
		}
		return h.app.Sessions.Start(w, r, tx, userID)
	})
	if err != nil {
		w.Header().Del("Set-Cookie")
		httpx.Error(w, r, err)
		return
	}
	auth.SetThemeCookie(w, user.Theme)
	httpx.JSON(w, http.StatusOK, userEnvelope{User: user})
}
