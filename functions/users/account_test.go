package users_test

import (
	"context"
	"io"
	"mime/quotedprintable"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/auth"
	"tradejournal/shared/config"
	"tradejournal/shared/email/smtptest"
)

const (
	passwordPath = "/api/users/me/password"
	emailPath    = "/api/users/me/email"
	confirmPath  = "/api/users/email-change/confirm"
	sessionsPath = "/api/users/me/sessions"
	mePath       = "/api/auth/me"
)

// passwordHash is made once: argon2id is deliberately slow.
var passwordHash = sync.OnceValue(func() string {
	h, err := auth.HashPassword("password1")
	if err != nil {
		panic(err)
	}
	return h
})

// newUser creates a user directly (registration is rate limited per client
// address) with the password "password1".
func newUser(t *testing.T, srv *apitest.Server, email string) auth.User {
	t.Helper()
	u, err := auth.CreateUser(context.Background(), srv.App.DB, email, passwordHash(), "UTC")
	if err != nil {
		t.Fatalf("create %s: %v", email, err)
	}
	return u
}

// login returns a new client (a browser with the given User-Agent) signed
// in as email.
func login(t *testing.T, srv *apitest.Server, email, password, userAgent string) *apitest.Client {
	t.Helper()
	c := srv.Client(t)
	if r := loginWith(c, email, password, userAgent); r.Status != 200 {
		t.Fatalf("login %s: %d %s", email, r.Status, r.Body)
	}
	return c
}

func loginWith(c *apitest.Client, email, password, userAgent string) apitest.Response {
	req := c.NewRequest("POST", "/api/auth/login", `{"email":"`+email+`","password":"`+password+`"}`)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", userAgent)
	return c.Send(req)
}

// signedIn fails the test unless c's session is live (want true) or gone.
func signedIn(t *testing.T, c *apitest.Client, want bool) {
	t.Helper()
	r := c.Do("GET", mePath, nil)
	if want && r.Status != 200 || !want && r.Status != 401 {
		t.Fatalf("me: %d %s (want signed in: %v)", r.Status, r.Body, want)
	}
}

func detailField(t *testing.T, r apitest.Response) string {
	t.Helper()
	e, _ := r.JSON["error"].(map[string]any)
	d, _ := e["details"].([]any)
	if len(d) != 1 {
		t.Fatalf("details %s", r.Body)
	}
	return d[0].(map[string]any)["field"].(string)
}

func TestChangePassword(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	newUser(t, srv, "pw@example.com")
	newUser(t, srv, "bystander@example.com")
	here := login(t, srv, "pw@example.com", "password1", "Here")
	there := login(t, srv, "pw@example.com", "password1", "There")
	bystander := login(t, srv, "bystander@example.com", "password1", "Elsewhere")

	t.Run("SignedOut", func(t *testing.T) {
		apitest.Run(t, srv.Client(t), []apitest.Case{
			{Name: "Valid", Method: "PUT", Path: passwordPath, Body: map[string]any{"currentPassword": "password1", "newPassword": "password2"}, Status: 401, Code: "UNAUTHENTICATED"},
			{Name: "Malformed", Method: "PUT", Path: passwordPath, Body: `{"currentPassword":`, Status: 401, Code: "UNAUTHENTICATED"},
		})
	})

	t.Run("Refused", func(t *testing.T) {
		cases := []apitest.Case{
			{Name: "WrongCurrent", Body: map[string]any{"currentPassword": "password9", "newPassword": "password2"}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "EmptyCurrent", Body: map[string]any{"currentPassword": "", "newPassword": "password2"}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "ShortNew", Body: map[string]any{"currentPassword": "password1", "newPassword": "short"}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "LongNew", Body: map[string]any{"currentPassword": "password1", "newPassword": strings.Repeat("x", 1025)}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "UnknownField", Body: map[string]any{"currentPassword": "password1", "newPassword": "password2", "password": "x"}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "MalformedJSON", Body: `{"currentPassword": "password1"`, Status: 400, Code: "INVALID_JSON"},
		}
		for i := range cases {
			cases[i].Method, cases[i].Path = "PUT", passwordPath
		}
		apitest.Run(t, here, cases)
		r := here.Do("PUT", passwordPath, map[string]any{"currentPassword": "password9", "newPassword": "password2"})
		if f := detailField(t, r); f != "currentPassword" {
			t.Fatalf("wrong current password names %q", f)
		}
		// Nothing changed: both sessions live, the old password still signs in.
		signedIn(t, here, true)
		signedIn(t, there, true)
		login(t, srv, "pw@example.com", "password1", "Check")
	})

	t.Run("Changed", func(t *testing.T) {
		r := apitest.Must(t, here.Do("PUT", passwordPath, map[string]any{"currentPassword": "password1", "newPassword": "password2"}), 200)
		// there and the "Check" sign-in of the refused case ended.
		if r.JSON["endedSessions"] != float64(2) {
			t.Fatalf("body %s", r.Body)
		}
		signedIn(t, here, true)
		signedIn(t, there, false)
		signedIn(t, bystander, true)
		if r := loginWith(srv.Client(t), "pw@example.com", "password1", "Old"); r.Status != 401 || r.ErrorCode() != "INVALID_CREDENTIALS" {
			t.Fatalf("old password: %d %s", r.Status, r.Body)
		}
		login(t, srv, "pw@example.com", "password2", "New")
	})

	t.Run("RevokeTokens", func(t *testing.T) {
		token := func(name string) string {
			r := apitest.Must(t, here.Do("POST", "/api/auth/tokens", map[string]any{"name": name, "scopes": []string{"read"}}), 201)
			s, _ := r.JSON["secret"].(string)
			return s
		}
		works := func(token string) bool {
			req := srv.Client(t).NewRequest("GET", "/api/accounts", "")
			req.Header.Set("Authorization", "Bearer "+token)
			return srv.Client(t).Send(req).Status == 200
		}
		kept, gone1, gone2 := token("kept"), "", ""
		r := apitest.Must(t, here.Do("PUT", passwordPath, map[string]any{"currentPassword": "password2", "newPassword": "password3"}), 200)
		if r.JSON["revokedTokens"] != float64(0) || !works(kept) {
			t.Fatalf("without revokeTokens: %s", r.Body)
		}
		gone1, gone2 = token("one"), token("two")
		apitest.Run(t, here, []apitest.Case{
			{Name: "NotABoolean", Method: "PUT", Path: passwordPath, Body: map[string]any{"currentPassword": "password3", "newPassword": "password4", "revokeTokens": "yes"}, Status: 400, Code: "VALIDATION_ERROR"},
		})
		r = apitest.Must(t, here.Do("PUT", passwordPath, map[string]any{"currentPassword": "password3", "newPassword": "password4", "revokeTokens": true}), 200)
		if r.JSON["revokedTokens"] != float64(3) {
			t.Fatalf("with revokeTokens: %s", r.Body)
		}
		for _, tok := range []string{kept, gone1, gone2} {
			if works(tok) {
				t.Fatal("a token still works after the password change revoked them")
			}
		}
		signedIn(t, here, true)
	})
}

func TestCurrentPasswordLimit(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	newUser(t, srv, "guess@example.com")
	c := login(t, srv, "guess@example.com", "password1", "Thief")
	for i := range 10 {
		path, body := passwordPath, map[string]any{"currentPassword": "guess", "newPassword": "password2"}
		if i%2 == 1 { // the two forms share the limit
			path, body = emailPath, map[string]any{"currentPassword": "guess", "email": "mine@example.com"}
		}
		apitest.Must(t, c.Do("PUT", path, body), 400)
	}
	r := apitest.Must(t, c.Do("PUT", passwordPath, map[string]any{"currentPassword": "password1", "newPassword": "password2"}), 429)
	if r.ErrorCode() != "RATE_LIMITED" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("limit: %s %v", r.Body, r.Header)
	}
	signedIn(t, c, true)
}

func TestChangeEmailWithoutMail(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	newUser(t, srv, "old@example.com")
	newUser(t, srv, "taken@example.com")
	c := login(t, srv, "old@example.com", "password1", "Browser")
	other := login(t, srv, "old@example.com", "password1", "Other")

	t.Run("SignedOut", func(t *testing.T) {
		apitest.Run(t, srv.Client(t), []apitest.Case{
			{Name: "Valid", Method: "PUT", Path: emailPath, Body: map[string]any{"currentPassword": "password1", "email": "new@example.com"}, Status: 401, Code: "UNAUTHENTICATED"},
		})
	})

	t.Run("Refused", func(t *testing.T) {
		cases := []apitest.Case{
			{Name: "WrongPassword", Body: map[string]any{"currentPassword": "password9", "email": "new@example.com"}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "NotAnAddress", Body: map[string]any{"currentPassword": "password1", "email": "new"}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "Empty", Body: map[string]any{"currentPassword": "password1", "email": ""}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "Own", Body: map[string]any{"currentPassword": "password1", "email": " OLD@example.com "}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "Taken", Body: map[string]any{"currentPassword": "password1", "email": "Taken@Example.com"}, Status: 409, Code: "EMAIL_TAKEN"},
			{Name: "Overlong", Body: map[string]any{"currentPassword": "password1", "email": strings.Repeat("a", 250) + "@example.com"}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "MalformedJSON", Body: `{"email": 5}`, Status: 400, Code: "VALIDATION_ERROR"},
		}
		for i := range cases {
			cases[i].Method, cases[i].Path = "PUT", emailPath
		}
		apitest.Run(t, c, cases)
		r := c.Do("PUT", emailPath, map[string]any{"currentPassword": "password9", "email": "new@example.com"})
		if f := detailField(t, r); f != "currentPassword" {
			t.Fatalf("wrong password names %q", f)
		}
		if u := apitest.Object(t, c.Do("GET", mePath, nil), "user"); u["email"] != "old@example.com" {
			t.Fatalf("a refused change moved the address: %v", u)
		}
	})

	t.Run("ChangedAtOnce", func(t *testing.T) {
		r := apitest.Must(t, c.Do("PUT", emailPath, map[string]any{"currentPassword": "password1", "email": " New@Example.com"}), 200)
		if r.JSON["pendingEmail"] != nil {
			t.Fatalf("pending without email: %s", r.Body)
		}
		if u := apitest.Object(t, r, "user"); u["email"] != "new@example.com" || u["emailVerified"] != false {
			t.Fatalf("user %v", u)
		}
		signedIn(t, other, true) // a change of address ends no session
		login(t, srv, "new@example.com", "password1", "Again")
		if r := loginWith(srv.Client(t), "old@example.com", "password1", "Old"); r.Status != 401 {
			t.Fatalf("old address still signs in: %d", r.Status)
		}
	})
}

var confirmLink = regexp.MustCompile(`https://journal\.example\.org/confirm-email#token=([A-Za-z0-9_-]+)`)

// nextMail drains the outbox and returns the next mail's recipient and
// plain text.
func nextMail(t *testing.T, srv *apitest.Server, sink *smtptest.Sink) (string, string) {
	t.Helper()
	if _, err := srv.App.Outbox.DeliverDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-sink.Mails:
		_, body, _ := strings.Cut(m.Data, "\r\n\r\n")
		plain, _ := io.ReadAll(quotedprintable.NewReader(strings.NewReader(body)))
		return m.To, string(plain)
	case <-time.After(5 * time.Second):
		t.Fatal("no mail")
	}
	return "", ""
}

// changeMailed asks for a change to addr and returns the mailed token.
func changeMailed(t *testing.T, srv *apitest.Server, sink *smtptest.Sink, c *apitest.Client, addr string) string {
	t.Helper()
	r := apitest.Must(t, c.Do("PUT", emailPath, map[string]any{"currentPassword": "password1", "email": addr}), 202)
	if r.JSON["pendingEmail"] != addr {
		t.Fatalf("pending %s", r.Body)
	}
	to, text := nextMail(t, srv, sink)
	found := confirmLink.FindStringSubmatch(text)
	if to != addr || found == nil {
		t.Fatalf("mail to %s:\n%s", to, text)
	}
	return found[1]
}

func TestChangeEmailConfirmed(t *testing.T) {
	sink := smtptest.Start(t, "none")
	cfg := apitest.Config(t)
	cfg.Email = config.Email{SMTPHost: "localhost", SMTPPort: sink.Port, TLSMode: "none",
		From: "journal@example.org", WebBaseURL: "https://journal.example.org"}
	srv := apitest.Start(t, cfg, functions.All)
	newUser(t, srv, "first@example.com")
	c := login(t, srv, "first@example.com", "password1", "Browser")
	email := func() map[string]any { return apitest.Object(t, c.Do("GET", mePath, nil), "user") }

	t.Run("WaitsForTheLink", func(t *testing.T) {
		token := changeMailed(t, srv, sink, c, "second@example.com")
		if u := email(); u["email"] != "first@example.com" {
			t.Fatalf("changed before the link: %v", u)
		}
		// Opened on a device that is not signed in.
		apitest.Must(t, srv.Client(t).Do("POST", confirmPath, map[string]any{"token": token}), 204)
		if u := email(); u["email"] != "second@example.com" || u["emailVerified"] != true {
			t.Fatalf("after the link: %v", u)
		}
		to, text := nextMail(t, srv, sink)
		if to != "first@example.com" || !strings.Contains(text, "was changed") || strings.Contains(text, "token=") {
			t.Fatalf("notice to %s:\n%s", to, text)
		}
		apitest.Run(t, srv.Client(t), []apitest.Case{
			{Name: "SingleUse", Method: "POST", Path: confirmPath, Body: map[string]any{"token": token}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "Unknown", Method: "POST", Path: confirmPath, Body: map[string]any{"token": "nope"}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "Empty", Method: "POST", Path: confirmPath, Body: map[string]any{"token": ""}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "Overlong", Method: "POST", Path: confirmPath, Body: map[string]any{"token": strings.Repeat("a", 200)}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "MalformedJSON", Method: "POST", Path: confirmPath, Body: `{"token":`, Status: 400, Code: "INVALID_JSON"},
		})
	})

	t.Run("ANewerRequestReplacesTheOld", func(t *testing.T) {
		stale := changeMailed(t, srv, sink, c, "third@example.com")
		fresh := changeMailed(t, srv, sink, c, "fourth@example.com")
		apitest.Must(t, c.Do("POST", confirmPath, map[string]any{"token": stale}), 400)
		apitest.Must(t, c.Do("POST", confirmPath, map[string]any{"token": fresh}), 204)
		if u := email(); u["email"] != "fourth@example.com" {
			t.Fatalf("user %v", u)
		}
		nextMail(t, srv, sink) // the notice
	})

	t.Run("TakenMeanwhile", func(t *testing.T) {
		token := changeMailed(t, srv, sink, c, "fifth@example.com")
		newUser(t, srv, "fifth@example.com")
		r := apitest.Must(t, c.Do("POST", confirmPath, map[string]any{"token": token}), 409)
		if r.ErrorCode() != "EMAIL_TAKEN" {
			t.Fatalf("body %s", r.Body)
		}
		if u := email(); u["email"] != "fourth@example.com" {
			t.Fatalf("user %v", u)
		}
	})

	t.Run("OldLinksEndWithTheOldAddress", func(t *testing.T) {
		// A reset link mailed to the address before the change must not
		// work after it.
		r := srv.Client(t).Do("POST", "/api/auth/password-reset/request", map[string]any{"email": "fourth@example.com"})
		apitest.Must(t, r, 202)
		nextMail(t, srv, sink)
		var before int
		if err := srv.App.DB.QueryRow(context.Background(), `SELECT count(*) FROM email_tokens WHERE purpose = 'reset'`).Scan(&before); err != nil || before != 1 {
			t.Fatalf("reset tokens %d %v", before, err)
		}
		token := changeMailed(t, srv, sink, c, "sixth@example.com")
		apitest.Must(t, c.Do("POST", confirmPath, map[string]any{"token": token}), 204)
		var after int
		if err := srv.App.DB.QueryRow(context.Background(), `SELECT count(*) FROM email_tokens`).Scan(&after); err != nil || after != 0 {
			t.Fatalf("tokens left %d %v", after, err)
		}
	})
}

// clock is a test clock that moves only when told.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func sessionItems(t *testing.T, c *apitest.Client) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, it := range apitest.Items(t, apitest.Must(t, c.Do("GET", sessionsPath, nil), 200)) {
		out = append(out, it.(map[string]any))
	}
	return out
}

func TestSessions(t *testing.T) {
	clk := &clock{t: time.Now().UTC().Truncate(time.Second)}
	srv := apitest.StartAt(t, apitest.Config(t), clk.now, functions.All)
	newUser(t, srv, "devices@example.com")
	newUser(t, srv, "intruder@example.com")
	laptop := login(t, srv, "devices@example.com", "password1", "Laptop Firefox")
	clk.add(time.Minute)
	phone := login(t, srv, "devices@example.com", "password1", "Phone "+strings.Repeat("é", 300))
	intruder := login(t, srv, "intruder@example.com", "password1", "Intruder")

	list := sessionItems(t, laptop)
	if len(list) != 2 {
		t.Fatalf("sessions %v", list)
	}
	byAgent := map[string]map[string]any{}
	for _, s := range list {
		byAgent[strings.SplitN(s["userAgent"].(string), " ", 2)[0]] = s
	}
	laptopSession, phoneSession := byAgent["Laptop"], byAgent["Phone"]

	t.Run("Listed", func(t *testing.T) {
		if laptopSession["current"] != true || phoneSession["current"] != false {
			t.Fatalf("current marks %v", list)
		}
		if list[0]["id"] != phoneSession["id"] {
			t.Fatalf("not the most recently used first: %v", list)
		}
		ua := phoneSession["userAgent"].(string)
		if n := len([]rune(ua)); n != 200 || !strings.HasPrefix(ua, "Phone éé") {
			t.Fatalf("user agent of %d characters: %q", n, ua)
		}
		if laptopSession["userAgent"] != "Laptop Firefox" {
			t.Fatalf("user agent %v", laptopSession["userAgent"])
		}
		for _, k := range []string{"token", "tokenHash", "token_hash"} {
			if _, ok := laptopSession[k]; ok {
				t.Fatalf("session carries %s", k)
			}
		}
		if got := sessionItems(t, intruder); len(got) != 1 || got[0]["userAgent"] != "Intruder" {
			t.Fatalf("another user's list %v", got)
		}
	})

	t.Run("LastSeenAtMostOnceAMinute", func(t *testing.T) {
		seen := func() string {
			for _, s := range sessionItems(t, phone) {
				if s["current"] == true {
					return s["lastSeenAt"].(string)
				}
			}
			t.Fatal("no current session")
			return ""
		}
		first := seen()
		clk.add(30 * time.Second)
		if again := seen(); again != first {
			t.Fatalf("written within a minute: %s then %s", first, again)
		}
		clk.add(31 * time.Second)
		if later := seen(); later == first {
			t.Fatalf("not written after a minute: %s", later)
		}
	})

	t.Run("SignedOut", func(t *testing.T) {
		apitest.Run(t, srv.Client(t), []apitest.Case{
			{Name: "List", Method: "GET", Path: sessionsPath, Status: 401, Code: "UNAUTHENTICATED"},
			{Name: "RevokeOne", Method: "DELETE", Path: sessionsPath + "/" + phoneSession["id"].(string), Status: 401, Code: "UNAUTHENTICATED"},
			{Name: "RevokeOthers", Method: "DELETE", Path: sessionsPath, Status: 401, Code: "UNAUTHENTICATED"},
		})
	})

	t.Run("CrossUser", func(t *testing.T) {
		apitest.Run(t, intruder, []apitest.Case{
			{Name: "AnotherUsersSession", Method: "DELETE", Path: sessionsPath + "/" + phoneSession["id"].(string), Status: 404},
			{Name: "Unknown", Method: "DELETE", Path: sessionsPath + "/00000000-0000-4000-8000-000000000000", Status: 404},
			{Name: "Malformed", Method: "DELETE", Path: sessionsPath + "/not-a-uuid", Status: 404},
			{Name: "Uppercase", Method: "DELETE", Path: sessionsPath + "/" + strings.ToUpper(phoneSession["id"].(string)), Status: 404},
		})
		signedIn(t, phone, true)
		signedIn(t, intruder, true)
	})

	t.Run("RevokeOne", func(t *testing.T) {
		apitest.Must(t, laptop.Do("DELETE", sessionsPath+"/"+phoneSession["id"].(string), nil), 204)
		signedIn(t, phone, false)
		signedIn(t, laptop, true)
		if got := sessionItems(t, laptop); len(got) != 1 || got[0]["id"] != laptopSession["id"] {
			t.Fatalf("left %v", got)
		}
		apitest.Must(t, laptop.Do("DELETE", sessionsPath+"/"+phoneSession["id"].(string), nil), 404)
	})

	t.Run("RevokeOthers", func(t *testing.T) {
		a := login(t, srv, "devices@example.com", "password1", "A")
		b := login(t, srv, "devices@example.com", "password1", "B")
		r := apitest.Must(t, laptop.Do("DELETE", sessionsPath, nil), 200)
		if r.JSON["endedSessions"] != float64(2) {
			t.Fatalf("body %s", r.Body)
		}
		signedIn(t, a, false)
		signedIn(t, b, false)
		signedIn(t, laptop, true)
		signedIn(t, intruder, true)
	})

	t.Run("RevokeOwn", func(t *testing.T) {
		r := apitest.Must(t, laptop.Do("DELETE", sessionsPath+"/"+laptopSession["id"].(string), nil), 204)
		if c := apitest.SessionCookie(r.Header.Values("Set-Cookie")); c != auth.CookieName+"=" {
			t.Fatalf("cookie not cleared: %v", r.Header.Values("Set-Cookie"))
		}
		signedIn(t, laptop, false)
	})
}
