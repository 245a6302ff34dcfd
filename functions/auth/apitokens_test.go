package auth_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/auth"
)

// createToken makes a token with the signed-in client and returns its id
// and secret.
func createToken(t *testing.T, c *apitest.Client, name string, scopes ...string) (string, string) {
	t.Helper()
	r := apitest.Must(t, c.Do("POST", "/api/auth/tokens", map[string]any{"name": name, "scopes": scopes}), 201)
	secret, _ := r.JSON["secret"].(string)
	id, _ := apitest.Object(t, r, "token")["id"].(string)
	if !strings.HasPrefix(secret, "tj_") || len(secret) != 46 || id == "" {
		t.Fatalf("created: %s", r.Body)
	}
	return id, secret
}

// withToken sends a request as a script does: no cookie, the token in the
// Authorization header.
func withToken(t *testing.T, srv *apitest.Server, token, method, path, body string) apitest.Response {
	t.Helper()
	c := srv.Client(t)
	req := c.NewRequest(method, path, body)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+token)
	return c.Send(req)
}

func TestAPITokenRoutes(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	c := srv.Client(t)
	c.Register("script@example.com", "password1")

	apitest.Run(t, srv.Client(t), []apitest.Case{
		{Name: "ListSignedOut", Method: "GET", Path: "/api/auth/tokens", Status: 401, Code: "UNAUTHENTICATED"},
		{Name: "CreateSignedOut", Method: "POST", Path: "/api/auth/tokens", Body: map[string]any{"name": "x", "scopes": []string{"read"}}, Status: 401, Code: "UNAUTHENTICATED"},
		{Name: "RevokeSignedOut", Method: "DELETE", Path: "/api/auth/tokens/00000000-0000-0000-0000-000000000000", Status: 401, Code: "UNAUTHENTICATED"},
	})
	apitest.Run(t, c, []apitest.Case{
		{Name: "EmptyList", Method: "GET", Path: "/api/auth/tokens", Status: 200},
		{Name: "NoName", Method: "POST", Path: "/api/auth/tokens", Body: map[string]any{"name": "  ", "scopes": []string{"read"}}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "LongName", Method: "POST", Path: "/api/auth/tokens", Body: map[string]any{"name": strings.Repeat("n", 101), "scopes": []string{"read"}}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "NoScopes", Method: "POST", Path: "/api/auth/tokens", Body: map[string]any{"name": "x", "scopes": []string{}}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "MissingScopes", Method: "POST", Path: "/api/auth/tokens", Body: map[string]any{"name": "x"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "UnknownScope", Method: "POST", Path: "/api/auth/tokens", Body: map[string]any{"name": "x", "scopes": []string{"read", "admin"}}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "ScopesWrongType", Method: "POST", Path: "/api/auth/tokens", Body: `{"name":"x","scopes":"read"}`, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "Malformed", Method: "POST", Path: "/api/auth/tokens", Body: `{"name":`, Status: 400, Code: "INVALID_JSON"},
		{Name: "RevokeMalformedID", Method: "DELETE", Path: "/api/auth/tokens/not-a-uuid", Status: 404},
		{Name: "RevokeUnknown", Method: "DELETE", Path: "/api/auth/tokens/00000000-0000-0000-0000-000000000000", Status: 404},
	})

	readID, read := createToken(t, c, "nightly export", "read", "read")
	_, write := createToken(t, c, "journal sync", "write", "read")
	_, imp := createToken(t, c, "broker import", "import")

	t.Run("StoredAsHash", func(t *testing.T) {
		sum := sha256.Sum256([]byte(read))
		var n int
		if err := srv.App.DB.QueryRow(context.Background(), `SELECT count(*) FROM api_tokens WHERE token_hash = $1`, sum[:]).Scan(&n); err != nil || n != 1 {
			t.Fatalf("%d rows hold the token's SHA-256 (%v)", n, err)
		}
		var found bool
		if err := srv.App.DB.QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM api_tokens t WHERE t::text LIKE '%' || $1 || '%')`, read[3:]).Scan(&found); err != nil || found {
			t.Fatalf("the token itself is stored (%v)", err)
		}
	})
	t.Run("List", func(t *testing.T) {
		r := apitest.Must(t, c.Do("GET", "/api/auth/tokens", nil), 200)
		items := apitest.Items(t, r)
		if len(items) != 3 || bytes.Contains(r.Body, []byte(read[3:])) {
			t.Fatalf("list: %s", r.Body)
		}
		last := items[2].(map[string]any)
		if last["id"] != readID || last["name"] != "nightly export" || last["lastUsedAt"] != nil {
			t.Fatalf("oldest token %v", last)
		}
		if scopes := items[1].(map[string]any)["scopes"].([]any); len(scopes) != 2 || scopes[0] != "read" || scopes[1] != "write" {
			t.Fatalf("scopes %v, want read and write in that order", scopes)
		}
	})

	t.Run("Scopes", func(t *testing.T) {
		account := `{"name":"Scripted","currency":"USD","timezone":"UTC"}`
		cases := []struct {
			name, token, method, path, body string
			status                          int
			code                            string
		}{
			{"ReadReads", read, "GET", "/api/accounts", "", 200, ""},
			{"ReadReadsPositions", read, "GET", "/api/positions", "", 200, ""},
			{"ReadCannotWrite", read, "POST", "/api/accounts", account, 403, "INSUFFICIENT_SCOPE"},
			{"ReadCannotImport", read, "GET", "/api/csv-import/presets", "", 403, "INSUFFICIENT_SCOPE"},
			{"WriteWrites", write, "POST", "/api/accounts", account, 201, ""},
			{"ImportImports", imp, "GET", "/api/csv-import/presets", "", 200, ""},
			{"ImportCannotRead", imp, "GET", "/api/accounts", "", 403, "INSUFFICIENT_SCOPE"},
			{"NotOnBilling", read, "GET", "/api/billing/wallet", "", 401, "UNAUTHENTICATED"},
			{"NotOnTokenList", read, "GET", "/api/auth/tokens", "", 401, "UNAUTHENTICATED"},
			{"CannotMakeTokens", write, "POST", "/api/auth/tokens", `{"name":"more","scopes":["read"]}`, 401, "UNAUTHENTICATED"},
			{"CannotRevoke", write, "DELETE", "/api/auth/tokens/" + readID, "", 401, "UNAUTHENTICATED"},
			{"NotOnMe", read, "GET", "/api/auth/me", "", 401, "UNAUTHENTICATED"},
			{"NotOnTwoFactor", write, "POST", "/api/auth/two-factor/setup", "", 401, "UNAUTHENTICATED"},
			{"NotOnSettings", write, "PUT", "/api/users/me/timezone", `{"timezone":"UTC"}`, 401, "UNAUTHENTICATED"},
			{"NotOnAdmin", read, "GET", "/api/admin/users", "", 401, "UNAUTHENTICATED"},
			{"UnknownToken", "tj_" + strings.Repeat("A", 43), "GET", "/api/accounts", "", 401, "UNAUTHENTICATED"},
			{"MalformedToken", "not-a-token", "GET", "/api/accounts", "", 401, "UNAUTHENTICATED"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				r := withToken(t, srv, tc.token, tc.method, tc.path, tc.body)
				if r.Status != tc.status || r.ErrorCode() != tc.code {
					t.Fatalf("got %d %q, want %d %q: %s", r.Status, r.ErrorCode(), tc.status, tc.code, r.Body)
				}
				apitest.CheckErrorShape(t, r)
			})
		}
		if got := apitest.Items(t, apitest.Must(t, c.Do("GET", "/api/accounts", nil), 200)); len(got) != 1 {
			t.Fatalf("%d accounts after the scope cases, want only the write token's", len(got))
		}
	})

	t.Run("TokenDoesNotBorrowASession", func(t *testing.T) {
		// A bad token with a good cookie is still refused: a request with a
		// bearer token is judged by the token alone.
		req := c.NewRequest("GET", "/api/accounts", "")
		req.Header.Set("Authorization", "Bearer tj_"+strings.Repeat("A", 43))
		if r := c.Send(req); r.Status != 401 {
			t.Fatalf("bad token with a session cookie: %d", r.Status)
		}
		// Another scheme (a proxy's Basic credentials) leaves the cookie in charge.
		req = c.NewRequest("GET", "/api/auth/me", "")
		req.Header.Set("Authorization", "Basic dXNlcjpwYXNz")
		if r := c.Send(req); r.Status != 200 {
			t.Fatalf("Basic header with a session cookie: %d %s", r.Status, r.Body)
		}
	})

	t.Run("CrossUser", func(t *testing.T) {
		other := srv.Client(t)
		other.Register("other-script@example.com", "password1")
		if r := other.Do("DELETE", "/api/auth/tokens/"+readID, nil); r.Status != 404 || r.ErrorCode() != "" {
			t.Fatalf("revoking another user's token: %d %s", r.Status, r.Body)
		}
		if items := apitest.Items(t, apitest.Must(t, other.Do("GET", "/api/auth/tokens", nil), 200)); len(items) != 0 {
			t.Fatalf("another user sees %d tokens", len(items))
		}
		// A token acts as its own user only.
		_, theirs := createToken(t, other, "theirs", "read")
		if items := apitest.Items(t, apitest.Must(t, withToken(t, srv, theirs, "GET", "/api/accounts", ""), 200)); len(items) != 0 {
			t.Fatalf("another user's token sees %d accounts", len(items))
		}
	})

	t.Run("Revoke", func(t *testing.T) {
		apitest.Must(t, c.Do("DELETE", "/api/auth/tokens/"+readID, nil), 204)
		if r := withToken(t, srv, read, "GET", "/api/accounts", ""); r.Status != 401 || r.ErrorCode() != "UNAUTHENTICATED" {
			t.Fatalf("revoked token: %d %s", r.Status, r.Body)
		}
		apitest.Must(t, c.Do("DELETE", "/api/auth/tokens/"+readID, nil), 404)
		if items := apitest.Items(t, apitest.Must(t, c.Do("GET", "/api/auth/tokens", nil), 200)); len(items) != 2 {
			t.Fatalf("%d tokens after revoking one of three", len(items))
		}
	})
}

func TestAPITokenLastUsedAndLimit(t *testing.T) {
	clk := &clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	var logs bytes.Buffer
	cfg := apitest.Config(t)
	srv := apitest.StartAt(t, cfg, clk.Now, functions.All)
	logged := apitest.StartLogged(t, cfg, slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})), functions.All)

	t.Run("LastUsedThrottled", func(t *testing.T) {
		c := srv.Client(t)
		c.Register("used@example.com", "password1")
		_, token := createToken(t, c, "cron", "read")
		lastUsed := func() any {
			return apitest.Items(t, apitest.Must(t, c.Do("GET", "/api/auth/tokens", nil), 200))[0].(map[string]any)["lastUsedAt"]
		}
		apitest.Must(t, withToken(t, srv, token, "GET", "/api/accounts", ""), 200)
		first := lastUsed()
		if first != "2026-03-01T12:00:00Z" {
			t.Fatalf("lastUsedAt %v", first)
		}
		clk.Add(30 * time.Second)
		apitest.Must(t, withToken(t, srv, token, "GET", "/api/accounts", ""), 200)
		if got := lastUsed(); got != first {
			t.Fatalf("written again within the minute: %v", got)
		}
		clk.Add(31 * time.Second)
		apitest.Must(t, withToken(t, srv, token, "GET", "/api/accounts", ""), 200)
		if got := lastUsed(); got != "2026-03-01T12:01:01Z" {
			t.Fatalf("lastUsedAt %v after a minute", got)
		}
	})
	t.Run("OwnRateLimit", func(t *testing.T) {
		c := srv.Client(t)
		c.Register("busy@example.com", "password1")
		_, token := createToken(t, c, "loop", "read")
		for i := range auth.APITokenLimit.N - 1 {
			if r := withToken(t, srv, token, "GET", "/api/tags", ""); r.Status != 200 {
				t.Fatalf("request %d: %d %s", i+1, r.Status, r.Body)
			}
		}
		// The token's limit is its own: the browser session is not counted
		// in it, and not refused by it.
		apitest.Must(t, c.Do("GET", "/api/tags", nil), 200)
		apitest.Must(t, withToken(t, srv, token, "GET", "/api/tags", ""), 200)
		r := withToken(t, srv, token, "GET", "/api/tags", "")
		if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" {
			t.Fatalf("request %d: %d %s", auth.APITokenLimit.N+1, r.Status, r.Body)
		}
		apitest.Must(t, c.Do("GET", "/api/tags", nil), 200)
	})
	t.Run("NeverLogged", func(t *testing.T) {
		c := logged.Client(t)
		c.Register("quiet@example.com", "password1")
		_, token := createToken(t, c, "quiet", "read", "write")
		withToken(t, logged, token, "GET", "/api/accounts", "")
		withToken(t, logged, token, "POST", "/api/accounts", `{"name":`)
		withToken(t, logged, token, "GET", "/api/billing/wallet", "")
		withToken(t, logged, token[:20], "GET", "/api/accounts", "")
		if logs.Len() == 0 {
			t.Fatal("nothing was logged: the check is blind")
		}
		if strings.Contains(logs.String(), token[3:15]) {
			t.Fatalf("the token appears in the log:\n%s", logs.String())
		}
	})
}

// TestLoginLockoutSparesTheOwner: an attacker's client spends every try on
// the owner's account; the owner, from another client, still signs in.
func TestLoginLockoutSparesTheOwner(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	srv.Client(t).Register("owner@example.com", "password1")
	c := srv.Client(t)
	login := func(password, clientIP string) apitest.Response {
		req := c.NewRequest("POST", "/api/auth/login", `{"email":"owner@example.com","password":"`+password+`"}`)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Real-IP", clientIP)
		return c.Send(req)
	}
	for i := range 10 {
		if r := login("guess-guess", "198.51.100.7"); r.Status != 401 {
			t.Fatalf("attempt %d: %d %s", i+1, r.Status, r.Body)
		}
	}
	if r := login("password1", "198.51.100.7"); r.Status != 429 {
		t.Fatalf("the attacker's client after 10 tries: %d %s", r.Status, r.Body)
	}
	if r := login("password1", "203.0.113.9"); r.Status != 200 {
		t.Fatalf("the owner from another client: %d %s", r.Status, r.Body)
	}
}

// TestLoginCeilingPerAccount: guessing spread over many addresses meets the
// per-account ceiling (100 an hour) after ten addresses have spent their
// ten tries each; a new browser is refused then, the owner's own is not
// (TestDeviceCookieSparesTheOwner).
func TestLoginCeilingPerAccount(t *testing.T) {
	// A stopped clock: the limits do not refill while the hashes run.
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	srv := apitest.StartAt(t, apitest.Config(t), func() time.Time { return at }, functions.All)
	srv.Client(t).Register("target@example.com", "password1")
	login := func(c *apitest.Client, password, clientIP string) apitest.Response {
		req := c.NewRequest("POST", "/api/auth/login", `{"email":"target@example.com","password":"`+password+`"}`)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Real-IP", clientIP)
		return c.Send(req)
	}
	var wg sync.WaitGroup
	for worker := range 2 {
		wg.Go(func() {
			c := srv.Client(t)
			for ip := worker; ip < 10; ip += 2 {
				for range 10 {
					if r := login(c, "guess-guess", fmt.Sprintf("198.51.100.%d", ip)); r.Status != 401 {
						t.Errorf("address %d: %d %s", ip, r.Status, r.Body)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if r := login(srv.Client(t), "password1", "203.0.113.9"); r.Status != 429 || r.ErrorCode() != "RATE_LIMITED" {
		t.Fatalf("the 101st try of the hour, from a new address: %d %s", r.Status, r.Body)
	}
}
