package users_test

import (
	"net/http"
	"strings"
	"testing"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
)

const themePath = "/api/users/me/theme"

// themeCookie is the tj_theme cookie a response sets, or nil.
func themeCookie(t *testing.T, r apitest.Response) *http.Cookie {
	t.Helper()
	for _, line := range r.Header.Values("Set-Cookie") {
		if c, err := http.ParseSetCookie(line); err == nil && c.Name == "tj_theme" {
			if c.HttpOnly || c.Path != "/" || c.SameSite != http.SameSiteLaxMode || c.MaxAge < 365*24*3600 {
				t.Errorf("tj_theme cookie %q: want readable by the page, Path=/, SameSite=Lax and a long Max-Age", line)
			}
			return c
		}
	}
	return nil
}

// TestTheme: the theme is stored per user, answered in the user, and sent
// as the tj_theme cookie on every answer that names the signed-in user;
// a new account takes the theme its browser picked while signed out.
func TestTheme(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	c := srv.Client(t)
	reg := c.Register("theme@example.com", "password1")
	if u := reg.JSON["user"].(map[string]any); u["theme"] != "system" {
		t.Fatalf("new user's theme %v", u["theme"])
	}
	if ck := themeCookie(t, reg); ck == nil || ck.Value != "system" {
		t.Fatalf("registration's cookie %v", ck)
	}

	t.Run("Set", func(t *testing.T) {
		for _, theme := range []string{"dark", "light", "system", "dark"} {
			r := apitest.Must(t, c.Do("PUT", themePath, map[string]any{"theme": theme}), 200)
			if r.JSON["user"].(map[string]any)["theme"] != theme {
				t.Fatalf("answer %s", r.Body)
			}
			if ck := themeCookie(t, r); ck == nil || ck.Value != theme {
				t.Fatalf("cookie %v, want %s", ck, theme)
			}
		}
		me := apitest.Must(t, c.Do("GET", "/api/auth/me", nil), 200)
		if me.JSON["user"].(map[string]any)["theme"] != "dark" {
			t.Fatalf("me %s", me.Body)
		}
		if ck := themeCookie(t, me); ck == nil || ck.Value != "dark" {
			t.Fatalf("me's cookie %v", ck)
		}
	})

	t.Run("SignInSendsTheStoredTheme", func(t *testing.T) {
		other := srv.Client(t)
		r := apitest.Must(t, other.Do("POST", "/api/auth/login", map[string]any{"email": "theme@example.com", "password": "password1"}), 200)
		if ck := themeCookie(t, r); ck == nil || ck.Value != "dark" {
			t.Fatalf("sign-in's cookie %v", ck)
		}
		// Signing out keeps it: the sign-in page paints in the last user's theme.
		out := apitest.Must(t, other.Do("POST", "/api/auth/logout", nil), 204)
		if ck := themeCookie(t, out); ck != nil {
			t.Fatalf("sign-out touched the theme cookie: %v", ck)
		}
	})

	t.Run("RegistrationTakesTheBrowsersTheme", func(t *testing.T) {
		v := srv.Client(t)
		req := v.NewRequest("POST", "/api/auth/register", `{"email":"light@example.com","password":"password1"}`)
		req.Header.Set("Content-Type", "application/json")
		req.AddCookie(&http.Cookie{Name: "tj_theme", Value: "light"})
		r := apitest.Must(t, v.Send(req), 201)
		if r.JSON["user"].(map[string]any)["theme"] != "light" {
			t.Fatalf("%s", r.Body)
		}
		req = v.NewRequest("POST", "/api/auth/register", `{"email":"odd@example.com","password":"password1"}`)
		req.Header.Set("Content-Type", "application/json")
		req.AddCookie(&http.Cookie{Name: "tj_theme", Value: "sepia"})
		if r := apitest.Must(t, v.Send(req), 201); r.JSON["user"].(map[string]any)["theme"] != "system" {
			t.Fatalf("a cookie of no theme gave %s", r.Body)
		}
	})

	t.Run("Invalid", func(t *testing.T) {
		cases := []apitest.Case{
			{Name: "Unknown", Body: map[string]any{"theme": "sepia"}, Status: 400, Code: "VALIDATION_ERROR", Field: "theme"},
			{Name: "Empty", Body: map[string]any{"theme": ""}, Status: 400, Code: "VALIDATION_ERROR", Field: "theme"},
			{Name: "WrongCase", Body: map[string]any{"theme": "Dark"}, Status: 400, Code: "VALIDATION_ERROR", Field: "theme"},
			{Name: "Number", Body: `{"theme": 1}`, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "Missing", Body: `{}`, Status: 400, Code: "VALIDATION_ERROR", Field: "theme"},
			{Name: "UnknownField", Body: `{"theme":"dark","colour":"red"}`, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "Overlong", Body: map[string]any{"theme": strings.Repeat("d", 5000)}, Status: 400, Code: "VALIDATION_ERROR", Field: "theme"},
			{Name: "MalformedJSON", Body: `{"theme":`, Status: 400, Code: "INVALID_JSON"},
		}
		for i := range cases {
			cases[i].Method, cases[i].Path = "PUT", themePath
		}
		apitest.Run(t, c, cases)
		if me := apitest.Must(t, c.Do("GET", "/api/auth/me", nil), 200); me.JSON["user"].(map[string]any)["theme"] != "dark" {
			t.Fatalf("a refused request changed the theme: %s", me.Body)
		}
		apitest.Run(t, srv.Client(t), []apitest.Case{
			{Name: "SignedOut", Method: "PUT", Path: themePath, Body: map[string]any{"theme": "dark"}, Status: 401, Code: "UNAUTHENTICATED"},
		})
	})
}
