package auth_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"mime/quotedprintable"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/auth"
)

// signIn posts a sign-in for email from clientIP with c, adding cookies
// (a device cookie the test made) to what c's jar sends.
func signIn(c *apitest.Client, email, password, clientIP string, cookies ...*http.Cookie) apitest.Response {
	req := c.NewRequest("POST", "/api/auth/login", fmt.Sprintf(`{"email":%q,"password":%q}`, email, password))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Real-IP", clientIP)
	for _, ck := range cookies {
		req.AddCookie(ck)
	}
	return c.Send(req)
}

// deviceCookie is the device cookie a response set, or nil.
func deviceCookie(r apitest.Response) *http.Cookie {
	for _, line := range r.Header.Values("Set-Cookie") {
		if ck, err := http.ParseSetCookie(line); err == nil && ck.Name == auth.DeviceCookieName {
			return ck
		}
	}
	return nil
}

// fillCeiling spends the account's hourly ceiling from ten addresses, ten
// wrong passwords each, as a guesser with many addresses would.
func fillCeiling(t *testing.T, srv *apitest.Server, email string) {
	t.Helper()
	var wg sync.WaitGroup
	for worker := range 2 {
		wg.Go(func() {
			c := srv.Client(t)
			for ip := worker; ip < 10; ip += 2 {
				for range 10 {
					if r := signIn(c, email, "guess-guess", fmt.Sprintf("198.51.100.%d", ip)); r.Status != 401 {
						t.Errorf("address %d: %d %s", ip, r.Status, r.Body)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

// TestDeviceCookieSparesTheOwner: guessing from many addresses fills the
// account's ceiling, which refuses every new browser for the hour; the
// owner's browser, which signed in before and carries the device cookie,
// still signs in. A forged cookie, a changed one and another user's give
// no exemption; a trusted browser meets a limit of its own.
func TestDeviceCookieSparesTheOwner(t *testing.T) {
	// A stopped clock: the limits do not refill while the hashes run.
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	srv := apitest.StartAt(t, apitest.Config(t), func() time.Time { return at }, functions.All)
	owner := srv.Client(t)
	owner.Register("target@example.com", "password1")
	apitest.Must(t, owner.Do("POST", "/api/auth/logout", nil), 204)
	other := srv.Client(t)
	other.Register("other@example.com", "password1")

	first := apitest.Must(t, signIn(owner, "target@example.com", "password1", "203.0.113.1"), 200)
	issued := deviceCookie(first)
	if issued == nil || !issued.HttpOnly || issued.SameSite != http.SameSiteLaxMode || issued.Path != "/api/auth/" || issued.MaxAge <= 0 {
		t.Fatalf("device cookie %v", first.Header.Values("Set-Cookie"))
	}
	apitest.Must(t, owner.Do("POST", "/api/auth/logout", nil), 204)

	fillCeiling(t, srv, "target@example.com")

	t.Run("NewBrowserRefused", func(t *testing.T) {
		r := signIn(srv.Client(t), "target@example.com", "password1", "203.0.113.9")
		if r.Status != 429 || r.ErrorCode() != "RATE_LIMITED" || r.Header.Get("Retry-After") == "" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("ForgedCookie", func(t *testing.T) {
		raw, _ := base64.RawURLEncoding.DecodeString(issued.Value)
		changed := append([]byte{}, raw...)
		changed[40] ^= 1 // the MAC
		otherNonce := append([]byte{}, raw...)
		otherNonce[20] ^= 1 // the nonce, MAC kept
		for name, value := range map[string]string{
			"Garbage":    "not-a-device-cookie",
			"ChangedMAC": base64.RawURLEncoding.EncodeToString(changed),
			"NewNonce":   base64.RawURLEncoding.EncodeToString(otherNonce),
			"Overlong":   strings.Repeat("A", 4000),
		} {
			t.Run(name, func(t *testing.T) {
				r := signIn(srv.Client(t), "target@example.com", "password1", "203.0.113.9", &http.Cookie{Name: auth.DeviceCookieName, Value: value})
				if r.Status != 429 {
					t.Fatalf("%d %s", r.Status, r.Body)
				}
			})
		}
	})
	t.Run("OtherUsersCookie", func(t *testing.T) {
		theirs := deviceCookie(apitest.Must(t, signIn(srv.Client(t), "other@example.com", "password1", "203.0.113.7"), 200))
		if theirs == nil {
			t.Fatal("no device cookie for the other user")
		}
		r := signIn(srv.Client(t), "target@example.com", "password1", "203.0.113.7", &http.Cookie{Name: auth.DeviceCookieName, Value: theirs.Value})
		if r.Status != 429 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("OwnersBrowserSignsIn", func(t *testing.T) {
		r := apitest.Must(t, signIn(owner, "target@example.com", "password1", "203.0.113.5"), 200)
		renewed := deviceCookie(r)
		if renewed == nil || renewed.Value == issued.Value {
			t.Fatal("a sign-in issues a new device cookie")
		}
		s := apitest.Must(t, owner.Do("GET", "/api/users/me/sessions", nil), 200)
		notice, _ := s.JSON["failedSignIns"].(map[string]any)
		if notice["count"] != float64(100) || notice["lastFailedAt"] != "2026-03-01T12:00:00Z" {
			t.Fatalf("failed sign-ins notice: %s", s.Body)
		}
		apitest.Must(t, owner.Do("DELETE", "/api/users/me/failed-sign-ins", nil), 204)
		s = apitest.Must(t, owner.Do("GET", "/api/users/me/sessions", nil), 200)
		if s.JSON["failedSignIns"] != nil {
			t.Fatalf("dismissed notice: %s", s.Body)
		}
	})
	t.Run("TrustedBrowserHasItsOwnLimit", func(t *testing.T) {
		// The first cookie is still a valid one (signed, this user's): a
		// copy in a thief's hands buys ten tries in 15 minutes, no more
		// (the owner's sign-in above spent one of them).
		thief := srv.Client(t)
		ck := &http.Cookie{Name: auth.DeviceCookieName, Value: issued.Value}
		for i := range 9 {
			if r := signIn(thief, "target@example.com", "guess-guess", "192.0.2.1", ck); r.Status != 401 {
				t.Fatalf("try %d: %d %s", i+1, r.Status, r.Body)
			}
		}
		if r := signIn(thief, "target@example.com", "password1", "192.0.2.2", ck); r.Status != 429 {
			t.Fatalf("the device's 11th try: %d %s", r.Status, r.Body)
		}
	})
}

// TestDeviceCookieSecure: over TLS (here, a proxy saying so) the device
// cookie is Secure.
func TestDeviceCookieSecure(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	srv.Client(t).Register("tls@example.com", "password1")
	c := srv.Client(t)
	req := c.NewRequest("POST", "/api/auth/login", `{"email":"tls@example.com","password":"password1"}`)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Forwarded-Proto", "https")
	ck := deviceCookie(apitest.Must(t, c.Send(req), 200))
	if ck == nil || !ck.Secure || !ck.HttpOnly {
		t.Fatalf("device cookie over TLS: %v", ck)
	}
}

// TestFailedSignInMail: the owner is mailed once the wrong passwords since
// their last sign-in reach the threshold, once a day at most; the mail
// carries no address of the guesser and no password.
func TestFailedSignInMail(t *testing.T) {
	clk := &clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	srv, sink := mailServer(t, clk.Now)
	srv.Client(t).Register("watched@example.com", "password1")
	deliver(t, srv, sink, "watched@example.com") // the verification mail
	c := srv.Client(t)
	for i := range auth.FailureMailThreshold - 1 {
		apitest.Must(t, signIn(c, "watched@example.com", "wrong-guess-1", fmt.Sprintf("198.51.100.%d", i)), 401)
	}
	drain := func() {
		if _, err := srv.App.Outbox.DeliverDue(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	drain()
	noMail(t, sink)
	apitest.Must(t, signIn(c, "watched@example.com", "wrong-guess-1", "198.51.100.99"), 401)
	drain()
	select {
	case m := <-sink.Mails:
		_, body, _ := strings.Cut(m.Data, "\r\n\r\n")
		plain, _ := io.ReadAll(quotedprintable.NewReader(strings.NewReader(body)))
		text := string(plain)
		if m.To != "watched@example.com" || !strings.Contains(text, fmt.Sprint(auth.FailureMailThreshold)+" times") ||
			strings.Contains(text, "198.51.100") || strings.Contains(text, "wrong-guess-1") {
			t.Fatalf("alert mail to %s:\n%s", m.To, text)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no alert mail")
	}
	clk.Add(time.Hour)
	apitest.Must(t, signIn(c, "watched@example.com", "wrong-guess-1", "198.51.100.100"), 401)
	drain()
	noMail(t, sink)
}
