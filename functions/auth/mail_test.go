package auth_test

import (
	"context"
	"io"
	"mime/quotedprintable"
	"regexp"
	"strings"
	"testing"
	"time"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/config"
	"tradejournal/shared/email/smtptest"
)

// mailServer starts the API with email on, sending to a local SMTP sink.
func mailServer(t *testing.T, now func() time.Time) (*apitest.Server, *smtptest.Sink) {
	t.Helper()
	sink := smtptest.Start(t, "none")
	cfg := apitest.Config(t)
	cfg.Email = config.Email{SMTPHost: "localhost", SMTPPort: sink.Port, TLSMode: "none",
		From: "journal@example.org", WebBaseURL: "https://journal.example.org"}
	return apitest.StartAt(t, cfg, now, functions.All), sink
}

var fragmentToken = regexp.MustCompile(`https://journal\.example\.org/(verify-email|reset-password)#token=([A-Za-z0-9_-]+)`)

// deliver drains the outbox and returns the link's page and token of the
// one mail it expects.
func deliver(t *testing.T, srv *apitest.Server, sink *smtptest.Sink, to string) (page, token string) {
	t.Helper()
	if _, err := srv.App.Outbox.DeliverDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-sink.Mails:
		if m.To != to {
			t.Fatalf("mail to %s, want %s", m.To, to)
		}
		_, body, _ := strings.Cut(m.Data, "\r\n\r\n")
		plain, _ := io.ReadAll(quotedprintable.NewReader(strings.NewReader(body)))
		found := fragmentToken.FindStringSubmatch(string(plain))
		if found == nil {
			t.Fatalf("no link in:\n%s", plain)
		}
		return found[1], found[2]
	case <-time.After(5 * time.Second):
		t.Fatal("no mail")
	}
	return "", ""
}

func noMail(t *testing.T, sink *smtptest.Sink) {
	t.Helper()
	select {
	case m := <-sink.Mails:
		t.Fatalf("unexpected mail to %s", m.To)
	case <-time.After(100 * time.Millisecond):
	}
}

func TestEmailVerification(t *testing.T) {
	srv, sink := mailServer(t, func() time.Time { return time.Now().UTC() })
	c := srv.Client(t)
	c.Register("verify@example.com", "password1")
	page, token := deliver(t, srv, sink, "verify@example.com")
	if page != "verify-email" {
		t.Fatalf("link to %s", page)
	}
	if r := c.Do("POST", "/api/auth/verify-email", map[string]string{"token": token}); r.Status != 204 {
		t.Fatalf("verify: %d %s", r.Status, r.Body)
	}
	if r := c.Do("GET", "/api/auth/me", nil); r.JSON["user"].(map[string]any)["emailVerified"] != true {
		t.Fatalf("not verified: %s", r.Body)
	}
	apitest.Run(t, c, []apitest.Case{
		{Name: "TokenIsSingleUse", Method: "POST", Path: "/api/auth/verify-email", Body: map[string]string{"token": token}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "UnknownToken", Method: "POST", Path: "/api/auth/verify-email", Body: map[string]string{"token": "nope"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "ResendWhenVerifiedSendsNothing", Method: "POST", Path: "/api/auth/verify-email/resend", Status: 204},
	})
	noMail(t, sink)

	t.Run("Resend", func(t *testing.T) {
		other := srv.Client(t)
		other.Register("late@example.com", "password1")
		_, first := deliver(t, srv, sink, "late@example.com")
		if r := other.Do("POST", "/api/auth/verify-email/resend", nil); r.Status != 204 {
			t.Fatalf("resend: %d", r.Status)
		}
		_, second := deliver(t, srv, sink, "late@example.com")
		if r := other.Do("POST", "/api/auth/verify-email", map[string]string{"token": second}); r.Status != 204 {
			t.Fatalf("verify with the resent token: %d %s", r.Status, r.Body)
		}
		if r := other.Do("POST", "/api/auth/verify-email", map[string]string{"token": first}); r.Status != 400 {
			t.Fatalf("the older token still works: %d", r.Status)
		}
	})
}

func TestPasswordReset(t *testing.T) {
	now := time.Now().UTC()
	srv, sink := mailServer(t, func() time.Time { return now })
	owner := srv.Client(t)
	owner.Register("reset@example.com", "old password")
	deliver(t, srv, sink, "reset@example.com") // the verification mail

	stranger := srv.Client(t)
	t.Run("UnknownAddressLooksTheSame", func(t *testing.T) {
		r := stranger.Do("POST", "/api/auth/password-reset/request", map[string]string{"email": "ghost@example.com"})
		if r.Status != 202 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		if _, err := srv.App.Outbox.DeliverDue(context.Background()); err != nil {
			t.Fatal(err)
		}
		noMail(t, sink)
	})
	r := stranger.Do("POST", "/api/auth/password-reset/request", map[string]string{"email": "RESET@example.com"})
	if r.Status != 202 {
		t.Fatalf("request: %d %s", r.Status, r.Body)
	}
	page, token := deliver(t, srv, sink, "reset@example.com")
	if page != "reset-password" {
		t.Fatalf("link to %s", page)
	}
	apitest.Run(t, stranger, []apitest.Case{
		{Name: "ShortPassword", Method: "POST", Path: "/api/auth/password-reset/confirm", Body: map[string]string{"token": token, "password": "short"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "Confirm", Method: "POST", Path: "/api/auth/password-reset/confirm", Body: map[string]string{"token": token, "password": "new password"}, Status: 204},
		{Name: "SingleUse", Method: "POST", Path: "/api/auth/password-reset/confirm", Body: map[string]string{"token": token, "password": "third password"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "NewPasswordWorks", Method: "POST", Path: "/api/auth/login", Body: map[string]string{"email": "reset@example.com", "password": "new password"}, Status: 200},
		{Name: "OldPasswordFails", Method: "POST", Path: "/api/auth/login", Body: map[string]string{"email": "reset@example.com", "password": "old password"}, Status: 401, Code: "INVALID_CREDENTIALS"},
	})
	if r := owner.Do("GET", "/api/auth/me", nil); r.Status != 401 {
		t.Fatalf("the owner's old session survived the reset: %d", r.Status)
	}

	t.Run("ExpiresAfterAnHour", func(t *testing.T) {
		stranger.Do("POST", "/api/auth/password-reset/request", map[string]string{"email": "reset@example.com"})
		_, token := deliver(t, srv, sink, "reset@example.com")
		now = now.Add(61 * time.Minute)
		r := stranger.Do("POST", "/api/auth/password-reset/confirm", map[string]string{"token": token, "password": "late password"})
		if r.Status != 400 {
			t.Fatalf("expired token: %d %s", r.Status, r.Body)
		}
	})
}

func TestWithoutEmailNothingIsQueued(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	if srv.App.Outbox != nil {
		t.Fatal("an outbox exists with email unconfigured")
	}
	c := srv.Client(t)
	c.Register("quiet@example.com", "password1")
	if r := c.Do("POST", "/api/auth/password-reset/request", map[string]string{"email": "quiet@example.com"}); r.Status != 202 {
		t.Fatalf("reset request: %d", r.Status)
	}
	if r := c.Do("POST", "/api/auth/verify-email/resend", nil); r.Status != 204 {
		t.Fatalf("resend: %d", r.Status)
	}
	var tokens, queued int
	if err := srv.App.DB.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM email_tokens), (SELECT count(*) FROM email_outbox)`).Scan(&tokens, &queued); err != nil {
		t.Fatal(err)
	}
	if tokens != 0 || queued != 0 {
		t.Fatalf("%d tokens, %d queued mails without email configured", tokens, queued)
	}
}
