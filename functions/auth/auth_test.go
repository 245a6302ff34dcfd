package auth_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/app"
	"tradejournal/shared/auth"
	"tradejournal/shared/ratelimit"
	"tradejournal/shared/redistest"
)

func TestRegister(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	c := srv.Client(t)

	t.Run("Created", func(t *testing.T) {
		r := c.Do("POST", "/api/auth/register", map[string]any{"email": "  Trader@Example.COM ", "password": "correct horse", "timezone": "Europe/Berlin"})
		if r.Status != http.StatusCreated {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		u := r.JSON["user"].(map[string]any)
		if u["email"] != "trader@example.com" || u["emailVerified"] != false || u["isAdmin"] != false || u["timezone"] != "Europe/Berlin" {
			t.Fatalf("user %v", u)
		}
		if id, _ := u["id"].(string); len(id) != 36 {
			t.Fatalf("id %q is not UUID-shaped", id)
		}
		for _, secret := range []string{"password", "passwordHash", "password_hash"} {
			if _, ok := u[secret]; ok {
				t.Fatalf("user carries %s", secret)
			}
		}
		cookie := r.Header.Get("Set-Cookie")
		for _, attr := range []string{auth.CookieName + "=", "HttpOnly", "SameSite=Lax", "Path=/"} {
			if !strings.Contains(cookie, attr) {
				t.Fatalf("cookie %q lacks %s", cookie, attr)
			}
		}
		// The cookie is the only copy of the session token: its row holds the SHA-256.
		ck, err := http.ParseSetCookie(cookie)
		if err != nil {
			t.Fatal(err)
		}
		if len(ck.Value) < 43 {
			t.Fatalf("session token %q is shorter than 32 random bytes", ck.Value)
		}
		sum := sha256.Sum256([]byte(ck.Value))
		var n int
		if err := srv.App.DB.QueryRow(context.Background(), `SELECT count(*) FROM sessions WHERE token_hash = $1`, sum[:]).Scan(&n); err != nil || n != 1 {
			t.Fatalf("%d session rows hold the token's hash (%v)", n, err)
		}
		if me := c.Do("GET", "/api/auth/me", nil); me.Status != http.StatusOK || me.JSON["user"].(map[string]any)["email"] != "trader@example.com" {
			t.Fatalf("me after register: %d %s", me.Status, me.Body)
		}
	})
	t.Run("DefaultTimezoneUTC", func(t *testing.T) {
		r := srv.Client(t).Register("utc@example.com", "password1")
		if tz := r.JSON["user"].(map[string]any)["timezone"]; tz != "UTC" {
			t.Fatalf("timezone %v", tz)
		}
	})
	t.Run("StoredHashIsArgon2id", func(t *testing.T) {
		var hash string
		if err := srv.App.DB.QueryRow(context.Background(), "SELECT password_hash FROM users WHERE email='utc@example.com'").Scan(&hash); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(hash, "$argon2id$v=19$m=19456,t=2,p=1$") {
			t.Fatalf("hash %q", hash)
		}
	})

	long := strings.Repeat("a", 250) + "@example.com"
	apitest.Run(t, srv.Client(t), []apitest.Case{
		{Name: "EmailTaken", Method: "POST", Path: "/api/auth/register", Body: map[string]any{"email": "TRADER@example.com", "password": "another password"}, Status: 409, Code: "EMAIL_TAKEN"},
		{Name: "BadEmail", Method: "POST", Path: "/api/auth/register", Body: map[string]any{"email": "not-an-email", "password": "password1"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "OverlongEmail", Method: "POST", Path: "/api/auth/register", Body: map[string]any{"email": long, "password": "password1"}, Status: 400, Code: "VALIDATION_ERROR"},
	})
	// A fresh client per rate-limited batch is not enough (the limit is per
	// address), so the remaining bad-input cases run on their own server.
	bad := apitest.Start(t, apitest.Config(t), functions.All)
	badCases := []apitest.Case{
		{Name: "ShortPassword", Body: map[string]any{"email": "a@example.com", "password": "short"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "OverlongPassword", Body: map[string]any{"email": "a@example.com", "password": strings.Repeat("p", 1025)}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "BadTimezone", Body: map[string]any{"email": "a@example.com", "password": "password1", "timezone": "Mars/Olympus"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "MalformedJSON", Body: `{"email":`, Status: 400, Code: "INVALID_JSON"},
		{Name: "WrongType", Body: `{"email": 5, "password": "password1"}`, Status: 400, Code: "VALIDATION_ERROR"},
	}
	for i := range badCases {
		badCases[i].Method, badCases[i].Path = "POST", "/api/auth/register"
	}
	apitest.Run(t, bad.Client(t), badCases)
}

func TestRegisterBadBodies(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	c := srv.Client(t)
	cases := []struct {
		name, contentType, body string
		status                  int
		code                    string
	}{
		{"UnknownField", "application/json", `{"email":"a@example.com","password":"password1","admin":true}`, 400, "VALIDATION_ERROR"},
		{"TrailingData", "application/json", `{"email":"a@example.com","password":"password1"} {}`, 400, "INVALID_JSON"},
		{"NotJSONContentType", "text/plain", `{"email":"a@example.com","password":"password1"}`, 400, "INVALID_JSON"},
		{"Array", "application/json", `[1,2]`, 400, "INVALID_JSON"},
		{"Huge", "application/json", `{"email":"` + strings.Repeat("x", 2<<20) + `"}`, 413, "PAYLOAD_TOO_LARGE"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := c.NewRequest("POST", "/api/auth/register", tc.body)
			req.Header.Set("Content-Type", tc.contentType)
			r := c.Send(req)
			if r.Status != tc.status || r.ErrorCode() != tc.code {
				t.Fatalf("got %d %q, want %d %q: %.200s", r.Status, r.ErrorCode(), tc.status, tc.code, r.Body)
			}
			apitest.CheckErrorShape(t, r)
		})
	}
	var n int
	if err := srv.App.DB.QueryRow(context.Background(), "SELECT count(*) FROM users").Scan(&n); err != nil || n != 0 {
		t.Fatalf("users written by bad bodies: %d (%v)", n, err)
	}
}

func TestRegisterConcurrentSameEmail(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	var wg sync.WaitGroup
	statuses := make(chan int, 2)
	for range 2 {
		wg.Go(func() {
			statuses <- srv.Client(t).Do("POST", "/api/auth/register", map[string]any{"email": "race@example.com", "password": "password1"}).Status
		})
	}
	wg.Wait()
	close(statuses)
	got := map[int]int{}
	for s := range statuses {
		got[s]++
	}
	if got[201] != 1 || got[409] != 1 {
		t.Fatalf("statuses %v, want one 201 and one 409", got)
	}
}

func TestRegistrationDisabled(t *testing.T) {
	cfg := apitest.Config(t)
	cfg.Accounts.DisableRegistration = true
	srv := apitest.Start(t, cfg, functions.All)
	r := srv.Client(t).Do("POST", "/api/auth/register", map[string]any{"email": "a@example.com", "password": "password1"})
	if r.Status != 403 || r.ErrorCode() != "REGISTRATION_DISABLED" {
		t.Fatalf("got %d %s", r.Status, r.Body)
	}
	if r.Header.Get("Set-Cookie") != "" {
		t.Fatal("cookie set on a refused registration")
	}
	var n int
	if err := srv.App.DB.QueryRow(context.Background(), "SELECT count(*) FROM users").Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d users written (%v)", n, err)
	}
	// Sign-in still works for existing accounts.
	hash, _ := auth.HashPassword("password1")
	if _, err := auth.CreateUser(context.Background(), srv.App.DB, "old@example.com", hash, "UTC"); err != nil {
		t.Fatal(err)
	}
	if r := srv.Client(t).Do("POST", "/api/auth/login", map[string]any{"email": "old@example.com", "password": "password1"}); r.Status != 200 {
		t.Fatalf("login while registration is closed: %d %s", r.Status, r.Body)
	}
}

func TestRegisterRateLimit(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	c := srv.Client(t)
	for i := range 5 {
		r := c.Do("POST", "/api/auth/register", map[string]any{"email": fmt.Sprintf("u%d@example.com", i), "password": "password1"})
		if r.Status != 201 {
			t.Fatalf("registration %d: %d %s", i+1, r.Status, r.Body)
		}
	}
	r := c.Do("POST", "/api/auth/register", map[string]any{"email": "u6@example.com", "password": "password1"})
	if r.Status != 429 || r.ErrorCode() != "RATE_LIMITED" {
		t.Fatalf("6th registration: %d %s", r.Status, r.Body)
	}
	if ra := r.Header.Get("Retry-After"); ra == "" || ra == "0" {
		t.Fatalf("Retry-After %q", ra)
	}
	// Another client address is not limited: X-Real-IP is believed from a loopback peer.
	req := c.NewRequest("POST", "/api/auth/register", `{"email":"other@example.com","password":"password1"}`)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Real-IP", "203.0.113.9")
	if r := c.Send(req); r.Status != 201 {
		t.Fatalf("other client: %d %s", r.Status, r.Body)
	}
}

func TestLoginLogoutMe(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	srv.Client(t).Register("me@example.com", "password1")
	c := srv.Client(t)

	apitest.Run(t, c, []apitest.Case{
		{Name: "MeSignedOut", Method: "GET", Path: "/api/auth/me", Status: 401, Code: "UNAUTHENTICATED"},
		{Name: "WrongPassword", Method: "POST", Path: "/api/auth/login", Body: map[string]any{"email": "me@example.com", "password": "password2"}, Status: 401, Code: "INVALID_CREDENTIALS"},
		{Name: "UnknownEmail", Method: "POST", Path: "/api/auth/login", Body: map[string]any{"email": "nobody@example.com", "password": "password1"}, Status: 401, Code: "INVALID_CREDENTIALS"},
		{Name: "OverlongPassword", Method: "POST", Path: "/api/auth/login", Body: map[string]any{"email": "me@example.com", "password": strings.Repeat("p", 1025)}, Status: 401, Code: "INVALID_CREDENTIALS"},
		{Name: "OverlongEmail", Method: "POST", Path: "/api/auth/login", Body: map[string]any{"email": strings.Repeat("m", 250) + "@example.com", "password": "password1"}, Status: 401, Code: "INVALID_CREDENTIALS"},
		{Name: "LoginMalformedJSON", Method: "POST", Path: "/api/auth/login", Body: `{"email":`, Status: 400, Code: "INVALID_JSON"},
		{Name: "LoginWrongType", Method: "POST", Path: "/api/auth/login", Body: `{"email":"me@example.com","password":5}`, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "Login", Method: "POST", Path: "/api/auth/login", Body: map[string]any{"email": " ME@example.com", "password": "password1"}, Status: 200},
		{Name: "MeSignedIn", Method: "GET", Path: "/api/auth/me", Status: 200},
		{Name: "Logout", Method: "POST", Path: "/api/auth/logout", Status: 204},
		{Name: "MeAfterLogout", Method: "GET", Path: "/api/auth/me", Status: 401, Code: "UNAUTHENTICATED"},
	})

	t.Run("LogoutDeletesSessionRow", func(t *testing.T) {
		var n int
		if err := srv.App.DB.QueryRow(context.Background(), "SELECT count(*) FROM sessions").Scan(&n); err != nil || n != 1 {
			t.Fatalf("%d sessions left, want only the registering client's (%v)", n, err)
		}
	})
	t.Run("ForgedCookie", func(t *testing.T) {
		req := c.NewRequest("GET", "/api/auth/me", "")
		req.AddCookie(&http.Cookie{Name: auth.CookieName, Value: strings.Repeat("A", 43)})
		if r := c.Send(req); r.Status != 401 {
			t.Fatalf("forged cookie: %d", r.Status)
		}
	})
}

// TestLoginRateLimitPerEmail: one client gets ten tries at an address in
// 15 minutes (TestLoginLockoutSparesTheOwner: another client is not refused).
func TestLoginRateLimitPerEmail(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	c := srv.Client(t)
	for i := range 10 {
		if r := c.Do("POST", "/api/auth/login", map[string]any{"email": "victim@example.com", "password": "guess-guess"}); r.Status != 401 {
			t.Fatalf("attempt %d: %d", i+1, r.Status)
		}
	}
	if r := c.Do("POST", "/api/auth/login", map[string]any{"email": "victim@example.com", "password": "guess-guess"}); r.Status != 429 {
		t.Fatalf("11th attempt: %d %s", r.Status, r.Body)
	}
}

// TestLoginRateLimitPerClientIP: one address guessing across many emails is
// stopped after 30 attempts in 15 minutes (README), while another address
// still gets an answer.
func TestLoginRateLimitPerClientIP(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	c := srv.Client(t)
	login := func(email, clientIP string) apitest.Response {
		req := c.NewRequest("POST", "/api/auth/login", fmt.Sprintf(`{"email":%q,"password":"guess-guess"}`, email))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Real-IP", clientIP)
		return c.Send(req)
	}
	for i := range 30 {
		if r := login(fmt.Sprintf("victim%d@example.com", i), "198.51.100.7"); r.Status != 401 {
			t.Fatalf("attempt %d: %d %s", i+1, r.Status, r.Body)
		}
	}
	r := login("victim30@example.com", "198.51.100.7")
	if r.Status != 429 || r.ErrorCode() != "RATE_LIMITED" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("31st attempt from one address: %d %q Retry-After %q", r.Status, r.Body, r.Header.Get("Retry-After"))
	}
	if r := login("victim30@example.com", "203.0.113.9"); r.Status != 401 {
		t.Fatalf("another address: %d %s", r.Status, r.Body)
	}
}

func TestSessionActivityWrittenAtMostOnceAMinute(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	srv := apitest.StartAt(t, apitest.Config(t), func() time.Time { return now }, functions.All)
	c := srv.Client(t)
	c.Register("active@example.com", "password1")
	lastSeen := func() time.Time {
		var ts time.Time
		if err := srv.App.DB.QueryRow(context.Background(), "SELECT last_seen_at FROM sessions").Scan(&ts); err != nil {
			t.Fatal(err)
		}
		return ts.UTC()
	}
	now = now.Add(30 * time.Second)
	c.Do("GET", "/api/auth/me", nil)
	if got := lastSeen(); !got.Equal(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)) {
		t.Fatalf("written within the minute: %v", got)
	}
	now = now.Add(31 * time.Second)
	c.Do("GET", "/api/auth/me", nil)
	if got := lastSeen(); !got.Equal(now) {
		t.Fatalf("last_seen_at %v, want %v", got, now)
	}
}

func TestDatabaseDownIs503(t *testing.T) {
	cfg := apitest.Config(t)
	cfg.DB.URL = "postgres://nobody@127.0.0.1:1/none?connect_timeout=2"
	a, err := app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), app.SystemClock)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	srv := httptest.NewServer(apitest.Handler(a, functions.All))
	defer srv.Close()
	c := (&apitest.Server{Server: srv, App: a}).Client(t)

	r := c.Do("POST", "/api/auth/register", map[string]any{"email": "down@example.com", "password": "password1"})
	if r.Status != 503 || r.ErrorCode() != "SERVICE_UNAVAILABLE" {
		t.Fatalf("register: %d %s", r.Status, r.Body)
	}
	if r.Header.Get("Set-Cookie") != "" {
		t.Fatal("cookie set although nothing was stored")
	}
	req := c.NewRequest("GET", "/api/auth/me", "")
	req.AddCookie(&http.Cookie{Name: auth.CookieName, Value: "some-token"})
	if r := c.Send(req); r.Status != 503 || r.ErrorCode() != "SERVICE_UNAVAILABLE" {
		t.Fatalf("me: %d %s", r.Status, r.Body)
	}
}

func TestRegisterLimitSharedAcrossInstances(t *testing.T) {
	store := redistest.Start(t)
	cfg := apitest.Config(t)
	cfg.Store.URL = store.URL
	a, b := apitest.Start(t, cfg, functions.All), apitest.Start(t, cfg, functions.All)
	register := func(srv *apitest.Server, i int) int {
		return srv.Client(t).Do("POST", "/api/auth/register", map[string]any{"email": fmt.Sprintf("s%d@example.com", i), "password": "password1"}).Status
	}
	for i, srv := range []*apitest.Server{a, b, a, b, a} {
		if s := register(srv, i); s != 201 {
			t.Fatalf("registration %d: %d", i+1, s)
		}
	}
	if s := register(b, 6); s != 429 {
		t.Fatalf("6th registration across two instances: %d, want 429", s)
	}

	store.Stop() // each instance falls back to its own count, at 3 per 15 minutes
	for i := range 3 {
		if s := register(a, 10+i); s != 201 {
			t.Fatalf("fallback registration %d: %d (the store being down must never fail a request)", i+1, s)
		}
	}
	if s := register(a, 20); s != 429 {
		t.Fatalf("4th registration on the fallback: %d, want 429", s)
	}
}

func TestNoStoreMeansLocalLimiter(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	if _, ok := srv.App.Limiter.(*ratelimit.Memory); !ok {
		t.Fatalf("limiter %T with STORE_URL unset, want the process-local one", srv.App.Limiter)
	}
}
