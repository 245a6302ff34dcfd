package auth

import (
	"context"
	"net/http"
	"slices"

	"tradejournal/shared/db"
)

// The colour themes a user can pick; ThemeSystem follows the device.
const (
	ThemeLight  = "light"
	ThemeDark   = "dark"
	ThemeSystem = "system"
)

// ValidTheme reports whether s is a theme the users table takes.
func ValidTheme(s string) bool {
	return slices.Contains([]string{ThemeLight, ThemeDark, ThemeSystem}, s)
}

// ThemeCookieName is the cookie web/public/theme.js reads before the app's
// scripts run, so the first paint has the user's theme, also on the
// sign-in page after a sign-out (the last user of the browser's).
const ThemeCookieName = "tj_theme"

// themeCookieMaxAge is 400 days, the longest a browser keeps a cookie.
const themeCookieMaxAge = 400 * 24 * 60 * 60

// SetThemeCookie sends the theme as a cookie the page's script can read
// (not HttpOnly). It holds one of three words and nothing personal, so it
// needs no Secure flag and outlives the session.
func SetThemeCookie(w http.ResponseWriter, theme string) {
	http.SetCookie(w, &http.Cookie{Name: ThemeCookieName, Value: theme, Path: "/", MaxAge: themeCookieMaxAge, SameSite: http.SameSiteLaxMode})
}

// ThemeOfRequest is the theme the browser's cookie carries, or
// ThemeSystem: what a new account starts with.
func ThemeOfRequest(r *http.Request) string {
	if c, err := r.Cookie(ThemeCookieName); err == nil && ValidTheme(c.Value) {
		return c.Value
	}
	return ThemeSystem
}

// SetTheme stores the user's theme. The caller checks it (ValidTheme).
func SetTheme(ctx context.Context, q db.Querier, userID, theme string) (User, error) {
	const sql = `UPDATE users u SET theme = $2 WHERE u.id = $1 RETURNING ` + userColumns
	u, err := scanUser(q.QueryRow(ctx, sql, userID, theme))
	return u, db.Classify(err)
}
