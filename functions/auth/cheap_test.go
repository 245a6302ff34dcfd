package auth_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
)

// hashBytes is what one argon2id hash allocates (19 MiB of memory cost);
// a request that stays well under it did not hash a password.
const hashBytes = 19 << 20

// allocated serves one request in process and returns its status and the
// bytes the process allocated meanwhile.
func allocated(t *testing.T, h http.Handler, path, body, clientIP string) (int, uint64) {
	t.Helper()
	req := httptest.NewRequest("POST", path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.RemoteAddr = "127.0.0.1:1234"
	req.Header.Set("X-Real-IP", clientIP)
	w := httptest.NewRecorder()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	h.ServeHTTP(w, req)
	runtime.ReadMemStats(&after)
	return w.Code, after.TotalAlloc - before.TotalAlloc
}

// Public routes make their cheap checks (validation, rate limit, token or
// address lookup) before the costly password hash: a request those checks
// refuse costs no hash.
func TestPublicRoutesRefuseBeforeHashing(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	h := apitest.Handler(srv.App, functions.All)
	if code, n := allocated(t, h, "/api/auth/register", `{"email":"taken@example.com","password":"password1"}`, "198.51.100.1"); code != 201 || n < hashBytes {
		t.Fatalf("control: a registration %d allocated %d bytes, want 201 and a hash", code, n)
	}
	for _, tc := range []struct {
		name, path, body string
		status           int
	}{
		{"ResetConfirmUnknownToken", "/api/auth/password-reset/confirm", `{"token":"forged","password":"new password 1"}`, 400},
		{"ResetConfirmEmptyToken", "/api/auth/password-reset/confirm", `{"token":"","password":"new password 1"}`, 400},
		{"RegisterTakenEmail", "/api/auth/register", `{"email":"Taken@example.com","password":"password1"}`, 409},
		{"RegisterBadEmail", "/api/auth/register", `{"email":"nope","password":"password1"}`, 400},
		{"LoginBadEmail", "/api/auth/login", `{"email":"nope","password":"password1"}`, 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, n := allocated(t, h, tc.path, tc.body, "198.51.100.2")
			if code != tc.status || n >= hashBytes/2 {
				t.Fatalf("%d after allocating %d bytes, want %d without a hash", code, n, tc.status)
			}
		})
	}
}

// Every public route that costs work is rate-limited per client address;
// register keeps the spec's 5 per 15 minutes.
func TestPublicRoutesAreRateLimited(t *testing.T) {
	for _, tc := range []struct {
		path    string
		body    string
		allowed int
	}{
		{"/api/auth/password-reset/confirm", `{"token":"forged","password":"new password 1"}`, 10},
		{"/api/auth/verify-email", `{"token":"forged"}`, 30},
		{"/api/auth/password-reset/request", `{"email":"someone@example.com"}`, 10},
		{"/api/auth/login", `{"email":"someone@example.com","password":"password1"}`, 10},
		{"/api/auth/register", `{"email":"u%d@example.com","password":"password1"}`, 5},
	} {
		t.Run(strings.TrimPrefix(tc.path, "/api/auth/"), func(t *testing.T) {
			srv := apitest.Start(t, apitest.Config(t), functions.All)
			c := srv.Client(t)
			send := func(i int) apitest.Response {
				body := tc.body
				if strings.Contains(body, "%d") {
					body = fmt.Sprintf(body, i)
				}
				req := c.NewRequest("POST", tc.path, body)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-Real-IP", "198.51.100.7")
				return c.Send(req)
			}
			for i := range tc.allowed {
				if r := send(i); r.Status == 429 {
					t.Fatalf("request %d limited: %s", i+1, r.Body)
				}
			}
			if r := send(tc.allowed); r.Status != 429 || r.ErrorCode() != "RATE_LIMITED" || r.Header.Get("Retry-After") == "" {
				t.Fatalf("request %d: %d %s", tc.allowed+1, r.Status, r.Body)
			}
		})
	}
}
