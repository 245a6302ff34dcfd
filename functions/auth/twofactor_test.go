package auth_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/auth"
	"tradejournal/shared/encrypt"
)

// clock is a test clock the server reads and the test moves.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// startTwoFactor runs the API with ENCRYPTION_KEY set on a clock that
// starts at the beginning of a 30-second step.
func startTwoFactor(t *testing.T) (*apitest.Server, *clock) {
	t.Helper()
	clk := &clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	cfg := apitest.Config(t)
	cfg.Encryption.Key = bytes.Repeat([]byte{0x5A}, 32)
	return apitest.StartAt(t, cfg, clk.Now, functions.All), clk
}

func code(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	c, err := auth.TOTPCode(secret, at)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// enrol turns two-factor on for the client's user and returns the secret
// and the recovery codes. The clock moves past the confirming code's step.
func enrol(t *testing.T, c *apitest.Client, clk *clock) (string, []string) {
	t.Helper()
	setup := apitest.Must(t, c.Do("POST", "/api/auth/two-factor/setup", nil), 200)
	secret, _ := setup.JSON["secret"].(string)
	r := apitest.Must(t, c.Do("POST", "/api/auth/two-factor/confirm", map[string]any{"code": code(t, secret, clk.Now())}), 200)
	var codes []string
	for _, v := range r.JSON["recoveryCodes"].([]any) {
		codes = append(codes, v.(string))
	}
	clk.Add(30 * time.Second)
	return secret, codes
}

// passwordStep signs in with the password and returns the pending token of
// the 202 answer.
func passwordStep(t *testing.T, c *apitest.Client, email string) string {
	t.Helper()
	r := apitest.Must(t, c.Do("POST", "/api/auth/login", map[string]any{"email": email, "password": "password1"}), 202)
	if r.JSON["twoFactorRequired"] != true || apitest.SessionCookie(r.Header.Values("Set-Cookie")) != "" {
		t.Fatalf("password step: %s, Set-Cookie %v", r.Body, r.Header.Values("Set-Cookie"))
	}
	token, _ := r.JSON["pendingToken"].(string)
	if len(token) < 43 {
		t.Fatalf("pending token %q", token)
	}
	return token
}

func codeStep(c *apitest.Client, token, code string) apitest.Response {
	return c.Do("POST", "/api/auth/login/two-factor", map[string]any{"pendingToken": token, "code": code})
}

func TestTwoFactorEnrolment(t *testing.T) {
	srv, clk := startTwoFactor(t)
	c := srv.Client(t)
	c.Register("two@example.com", "password1")

	apitest.Run(t, srv.Client(t), []apitest.Case{
		{Name: "StatusSignedOut", Method: "GET", Path: "/api/auth/two-factor", Status: 401, Code: "UNAUTHENTICATED"},
		{Name: "SetupSignedOut", Method: "POST", Path: "/api/auth/two-factor/setup", Status: 401, Code: "UNAUTHENTICATED"},
		{Name: "ConfirmSignedOut", Method: "POST", Path: "/api/auth/two-factor/confirm", Body: map[string]any{"code": "123456"}, Status: 401, Code: "UNAUTHENTICATED"},
		{Name: "DisableSignedOut", Method: "POST", Path: "/api/auth/two-factor/disable", Body: map[string]any{"password": "password1", "code": "123456"}, Status: 401, Code: "UNAUTHENTICATED"},
	})
	apitest.Run(t, c, []apitest.Case{
		{Name: "OffAtFirst", Method: "GET", Path: "/api/auth/two-factor", Status: 200},
		{Name: "ConfirmBeforeSetup", Method: "POST", Path: "/api/auth/two-factor/confirm", Body: map[string]any{"code": "123456"}, Status: 409, Code: "CONFLICT"},
		{Name: "DisableWhileOff", Method: "POST", Path: "/api/auth/two-factor/disable", Body: map[string]any{"password": "password1", "code": "123456"}, Status: 409, Code: "CONFLICT"},
	})

	setup := apitest.Must(t, c.Do("POST", "/api/auth/two-factor/setup", nil), 200)
	secret, _ := setup.JSON["secret"].(string)
	uri, _ := setup.JSON["uri"].(string)
	qr, _ := setup.JSON["qrCode"].(string)
	if len(secret) != 32 || !strings.HasPrefix(uri, "otpauth://totp/Trade%20Journal:two@example.com?") || !strings.Contains(uri, "secret="+secret) ||
		!strings.HasPrefix(qr, "data:image/png;base64,") {
		t.Fatalf("setup: %s", setup.Body)
	}

	t.Run("SecretEncryptedAtRest", func(t *testing.T) {
		var stored string
		if err := srv.App.DB.QueryRow(context.Background(), `SELECT secret FROM user_totp`).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(stored, "tj1:") || strings.Contains(stored, secret) {
			t.Fatalf("stored secret %q is not sealed", stored)
		}
		if plain, err := srv.App.Keyring.Open(encrypt.TOTPSecrets, stored); err != nil || plain != secret {
			t.Fatalf("opened %q, %v", plain, err)
		}
		// rotate-encryption-key walks the column: to another key and back.
		keyA, keyB := bytes.Repeat([]byte{0x5A}, 32), bytes.Repeat([]byte{0x6B}, 32)
		for _, keys := range [][2][]byte{{keyB, keyA}, {keyA, keyB}} {
			ring, err := encrypt.New(keys[0], keys[1])
			if err != nil {
				t.Fatal(err)
			}
			if n, err := encrypt.Rotate(context.Background(), srv.App.DB, ring, encrypt.Sealed, 10); err != nil || n != 1 {
				t.Fatalf("rotation re-sealed %d values (%v), want the one secret", n, err)
			}
		}
	})
	t.Run("NotOnBeforeConfirm", func(t *testing.T) {
		apitest.Must(t, srv.Client(t).Do("POST", "/api/auth/login", map[string]any{"email": "two@example.com", "password": "password1"}), 200)
	})

	now := clk.Now()
	apitest.Run(t, c, []apitest.Case{
		{Name: "WrongCode", Method: "POST", Path: "/api/auth/two-factor/confirm", Body: map[string]any{"code": wrongCode(t, secret, now)}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "StaleCode", Method: "POST", Path: "/api/auth/two-factor/confirm", Body: map[string]any{"code": code(t, secret, now.Add(-time.Minute))}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "NotACode", Method: "POST", Path: "/api/auth/two-factor/confirm", Body: map[string]any{"code": "12a456"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "RecoveryShapeRefused", Method: "POST", Path: "/api/auth/two-factor/confirm", Body: map[string]any{"code": "abcd-efgh-ijkl-mnop"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "UnknownField", Method: "POST", Path: "/api/auth/two-factor/confirm", Body: `{"code":"123456","x":1}`, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "Malformed", Method: "POST", Path: "/api/auth/two-factor/confirm", Body: `{"code":`, Status: 400, Code: "INVALID_JSON"},
	})

	r := apitest.Must(t, c.Do("POST", "/api/auth/two-factor/confirm", map[string]any{"code": code(t, secret, now)}), 200)
	codes := r.JSON["recoveryCodes"].([]any)
	if len(codes) != 10 {
		t.Fatalf("%d recovery codes", len(codes))
	}
	t.Run("RecoveryCodesStoredHashed", func(t *testing.T) {
		var n int
		err := srv.App.DB.QueryRow(context.Background(), `SELECT count(*) FROM totp_recovery_codes WHERE position($1::bytea in code_hash) = 0 AND length(code_hash) = 32`,
			[]byte(strings.ReplaceAll(codes[0].(string), "-", ""))).Scan(&n)
		if err != nil || n != 10 {
			t.Fatalf("%d hashed rows (%v)", n, err)
		}
	})
	st := apitest.Must(t, c.Do("GET", "/api/auth/two-factor", nil), 200)
	if st.JSON["enabled"] != true || st.JSON["recoveryCodesLeft"] != float64(10) {
		t.Fatalf("status %s", st.Body)
	}
	apitest.Run(t, c, []apitest.Case{
		{Name: "SetupWhileOn", Method: "POST", Path: "/api/auth/two-factor/setup", Status: 409, Code: "CONFLICT"},
		{Name: "ConfirmWhileOn", Method: "POST", Path: "/api/auth/two-factor/confirm", Body: map[string]any{"code": code(t, secret, now)}, Status: 409, Code: "CONFLICT"},
	})

	t.Run("OtherUserUnaffected", func(t *testing.T) {
		other := srv.Client(t)
		other.Register("other@example.com", "password1")
		st := apitest.Must(t, other.Do("GET", "/api/auth/two-factor", nil), 200)
		if st.JSON["enabled"] != false {
			t.Fatalf("other user's status %s", st.Body)
		}
		apitest.Must(t, srv.Client(t).Do("POST", "/api/auth/login", map[string]any{"email": "other@example.com", "password": "password1"}), 200)
	})

	t.Run("Disable", func(t *testing.T) {
		clk.Add(15 * time.Minute) // the set-up routes' limit refills
		now := clk.Now()
		apitest.Run(t, c, []apitest.Case{
			{Name: "WrongPassword", Method: "POST", Path: "/api/auth/two-factor/disable", Body: map[string]any{"password": "password2", "code": code(t, secret, now)}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "WrongCode", Method: "POST", Path: "/api/auth/two-factor/disable", Body: map[string]any{"password": "password1", "code": wrongCode(t, secret, now)}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "NoCode", Method: "POST", Path: "/api/auth/two-factor/disable", Body: map[string]any{"password": "password1", "code": ""}, Status: 400, Code: "VALIDATION_ERROR"},
		})
		if st := apitest.Must(t, c.Do("GET", "/api/auth/two-factor", nil), 200); st.JSON["enabled"] != true {
			t.Fatal("a refused disable turned two-factor off")
		}
		apitest.Must(t, c.Do("POST", "/api/auth/two-factor/disable", map[string]any{"password": "password1", "code": code(t, secret, now)}), 204)
		if st := apitest.Must(t, c.Do("GET", "/api/auth/two-factor", nil), 200); st.JSON["enabled"] != false || st.JSON["recoveryCodesLeft"] != float64(0) {
			t.Fatalf("after disable: %s", st.Body)
		}
		apitest.Must(t, srv.Client(t).Do("POST", "/api/auth/login", map[string]any{"email": "two@example.com", "password": "password1"}), 200)
	})
}

// wrongCode is a six-digit code that no step within the drift accepts.
func wrongCode(t *testing.T, secret string, now time.Time) string {
	t.Helper()
	for i := 0; ; i++ {
		c := fmt.Sprintf("%06d", i)
		if c != code(t, secret, now.Add(-30*time.Second)) && c != code(t, secret, now) && c != code(t, secret, now.Add(30*time.Second)) {
			return c
		}
	}
}

func TestTwoFactorSignIn(t *testing.T) {
	srv, clk := startTwoFactor(t)
	owner := srv.Client(t)
	owner.Register("owner@example.com", "password1")
	secret, recovery := enrol(t, owner, clk)

	t.Run("PasswordStepIsNotASession", func(t *testing.T) {
		c := srv.Client(t)
		passwordStep(t, c, "owner@example.com")
		apitest.Must(t, c.Do("GET", "/api/auth/me", nil), 401)
	})
	t.Run("WrongPasswordStillInvalid", func(t *testing.T) {
		r := srv.Client(t).Do("POST", "/api/auth/login", map[string]any{"email": "owner@example.com", "password": "password2"})
		if r.Status != 401 || r.ErrorCode() != "INVALID_CREDENTIALS" || r.JSON["pendingToken"] != nil {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("CodeCompletesSignIn", func(t *testing.T) {
		c := srv.Client(t)
		token := passwordStep(t, c, "owner@example.com")
		r := apitest.Must(t, codeStep(c, token, code(t, secret, clk.Now())), 200)
		if apitest.Object(t, r, "user")["email"] != "owner@example.com" || apitest.SessionCookie(r.Header.Values("Set-Cookie")) == "" {
			t.Fatalf("code step: %s", r.Body)
		}
		apitest.Must(t, c.Do("GET", "/api/auth/me", nil), 200)
		t.Run("PendingTokenSingleUse", func(t *testing.T) {
			clk.Add(30 * time.Second)
			r := codeStep(srv.Client(t), token, code(t, secret, clk.Now()))
			if r.Status != 401 || r.ErrorCode() != "UNAUTHENTICATED" {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
		})
	})
	t.Run("CodeReuseRefused", func(t *testing.T) {
		clk.Add(30 * time.Second)
		same := code(t, secret, clk.Now())
		first := srv.Client(t)
		apitest.Must(t, codeStep(first, passwordStep(t, first, "owner@example.com"), same), 200)
		second := srv.Client(t)
		r := codeStep(second, passwordStep(t, second, "owner@example.com"), same)
		if r.Status != 401 || r.ErrorCode() != "INVALID_CREDENTIALS" || apitest.SessionCookie(r.Header.Values("Set-Cookie")) != "" {
			t.Fatalf("reused code: %d %s", r.Status, r.Body)
		}
		// The previous step's code is older than the one used: refused too,
		// although it is within the drift.
		if r := codeStep(second, passwordStep(t, second, "owner@example.com"), code(t, secret, clk.Now().Add(-30*time.Second))); r.Status != 401 {
			t.Fatalf("older code: %d %s", r.Status, r.Body)
		}
	})
	t.Run("ConcurrentUseOfOneCode", func(t *testing.T) {
		clk.Add(30 * time.Second)
		same := code(t, secret, clk.Now())
		a, b := srv.Client(t), srv.Client(t)
		ta, tb := passwordStep(t, a, "owner@example.com"), passwordStep(t, b, "owner@example.com")
		statuses := make(chan int, 2)
		var wg sync.WaitGroup
		wg.Go(func() { statuses <- codeStep(a, ta, same).Status })
		wg.Go(func() { statuses <- codeStep(b, tb, same).Status })
		wg.Wait()
		close(statuses)
		got := map[int]int{}
		for s := range statuses {
			got[s]++
		}
		if got[200] != 1 || got[401] != 1 {
			t.Fatalf("statuses %v, want one 200 and one 401", got)
		}
	})
	t.Run("ClockDrift", func(t *testing.T) {
		clk.Add(90 * time.Second)
		c := srv.Client(t)
		if r := codeStep(c, passwordStep(t, c, "owner@example.com"), code(t, secret, clk.Now().Add(time.Minute))); r.Status != 401 {
			t.Fatalf("code two steps ahead: %d %s", r.Status, r.Body)
		}
		apitest.Must(t, codeStep(c, passwordStep(t, c, "owner@example.com"), code(t, secret, clk.Now().Add(-30*time.Second))), 200)
	})
	t.Run("RecoveryCodeSingleUse", func(t *testing.T) {
		clk.Add(15 * time.Minute) // the sign-in limits refill
		c := srv.Client(t)
		apitest.Must(t, codeStep(c, passwordStep(t, c, "owner@example.com"), strings.ToUpper(recovery[0])), 200)
		r := codeStep(c, passwordStep(t, c, "owner@example.com"), recovery[0])
		if r.Status != 401 || r.ErrorCode() != "INVALID_CREDENTIALS" {
			t.Fatalf("recovery code used twice: %d %s", r.Status, r.Body)
		}
		st := apitest.Must(t, owner.Do("GET", "/api/auth/two-factor", nil), 200)
		if st.JSON["recoveryCodesLeft"] != float64(9) {
			t.Fatalf("status %s", st.Body)
		}
	})
	t.Run("PendingTokenExpires", func(t *testing.T) {
		c := srv.Client(t)
		token := passwordStep(t, c, "owner@example.com")
		clk.Add(auth.ChallengeTTL + time.Second)
		r := codeStep(c, token, code(t, secret, clk.Now()))
		if r.Status != 401 || r.ErrorCode() != "UNAUTHENTICATED" {
			t.Fatalf("expired pending sign-in: %d %s", r.Status, r.Body)
		}
	})
	t.Run("BadInput", func(t *testing.T) {
		clk.Add(30 * time.Second)
		c := srv.Client(t)
		token := passwordStep(t, c, "owner@example.com")
		apitest.Run(t, c, []apitest.Case{
			{Name: "UnknownToken", Method: "POST", Path: "/api/auth/login/two-factor", Body: map[string]any{"pendingToken": strings.Repeat("A", 43), "code": "123456"}, Status: 401, Code: "UNAUTHENTICATED"},
			{Name: "OverlongToken", Method: "POST", Path: "/api/auth/login/two-factor", Body: map[string]any{"pendingToken": strings.Repeat("A", 4000), "code": "123456"}, Status: 401, Code: "UNAUTHENTICATED"},
			{Name: "NotACode", Method: "POST", Path: "/api/auth/login/two-factor", Body: map[string]any{"pendingToken": token, "code": "not a code"}, Status: 401, Code: "INVALID_CREDENTIALS"},
			{Name: "Malformed", Method: "POST", Path: "/api/auth/login/two-factor", Body: `{"pendingToken":`, Status: 400, Code: "INVALID_JSON"},
			{Name: "WrongType", Method: "POST", Path: "/api/auth/login/two-factor", Body: `{"pendingToken":1,"code":"123456"}`, Status: 400, Code: "VALIDATION_ERROR"},
		})
	})
}

// TestTwoFactorCodeStepRateLimit: ten wrong codes for one account and the
// code step refuses that account, even with the right code.
func TestTwoFactorCodeStepRateLimit(t *testing.T) {
	srv, clk := startTwoFactor(t)
	owner := srv.Client(t)
	owner.Register("limited@example.com", "password1")
	secret, _ := enrol(t, owner, clk)
	c := srv.Client(t)
	token := passwordStep(t, c, "limited@example.com")
	bad := wrongCode(t, secret, clk.Now())
	for i := range 10 {
		if r := codeStep(c, token, bad); r.Status != 401 {
			t.Fatalf("attempt %d: %d %s", i+1, r.Status, r.Body)
		}
	}
	r := codeStep(c, token, code(t, secret, clk.Now()))
	if r.Status != http.StatusTooManyRequests || r.ErrorCode() != "RATE_LIMITED" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("11th attempt: %d %s", r.Status, r.Body)
	}
}

// TestTwoFactorDisabledAccount: a disabled user with two-factor on is told
// so at the password step (403 ACCOUNT_DISABLED), not asked for a code;
// a pending sign-in started before the disabling ends no better.
func TestTwoFactorDisabledAccount(t *testing.T) {
	srv, clk := startTwoFactor(t)
	owner := srv.Client(t)
	owner.Register("off@example.com", "password1")
	secret, _ := enrol(t, owner, clk)
	pending := srv.Client(t)
	token := passwordStep(t, pending, "off@example.com")
	if _, err := srv.App.DB.Exec(context.Background(), `UPDATE users SET disabled_at = now() WHERE email = 'off@example.com'`); err != nil {
		t.Fatal(err)
	}

	t.Run("PasswordStep", func(t *testing.T) {
		r := srv.Client(t).Do("POST", "/api/auth/login", map[string]any{"email": "off@example.com", "password": "password1"})
		if r.Status != 403 || r.ErrorCode() != "ACCOUNT_DISABLED" || r.JSON["pendingToken"] != nil {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		apitest.CheckErrorShape(t, r)
	})
	t.Run("WrongPasswordTellsNothing", func(t *testing.T) {
		r := srv.Client(t).Do("POST", "/api/auth/login", map[string]any{"email": "off@example.com", "password": "password2"})
		if r.Status != 401 || r.ErrorCode() != "INVALID_CREDENTIALS" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("PendingCodeStep", func(t *testing.T) {
		r := codeStep(pending, token, code(t, secret, clk.Now()))
		if r.Status != 403 || r.ErrorCode() != "ACCOUNT_DISABLED" || apitest.SessionCookie(r.Header.Values("Set-Cookie")) != "" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
}
