package users_test

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
)

const timezonePath = "/api/users/me/timezone"

func TestSetTimezone(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	c := srv.Client(t)
	c.Register("tz@example.com", "password1")

	storedZone := func(t *testing.T) string {
		t.Helper()
		var tz string
		if err := srv.App.DB.QueryRow(context.Background(), `SELECT timezone FROM users WHERE email = 'tz@example.com'`).Scan(&tz); err != nil {
			t.Fatal(err)
		}
		return tz
	}

	t.Run("SignedOut", func(t *testing.T) {
		apitest.Run(t, srv.Client(t), []apitest.Case{
			{Name: "Valid", Method: "PUT", Path: timezonePath, Body: map[string]any{"timezone": "Europe/Berlin"}, Status: 401, Code: "UNAUTHENTICATED"},
			{Name: "Malformed", Method: "PUT", Path: timezonePath, Body: `{"timezone":`, Status: 401, Code: "UNAUTHENTICATED"},
		})
		if tz := storedZone(t); tz != "UTC" {
			t.Fatalf("a signed-out request changed the zone to %q", tz)
		}
	})

	t.Run("Changed", func(t *testing.T) {
		r := c.Do("PUT", timezonePath, map[string]any{"timezone": "America/New_York"})
		if r.Status != 200 {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		u, ok := r.JSON["user"].(map[string]any)
		if !ok || u["timezone"] != "America/New_York" || u["email"] != "tz@example.com" {
			t.Fatalf("body %s", r.Body)
		}
		for _, secret := range []string{"password", "passwordHash", "password_hash"} {
			if _, ok := u[secret]; ok {
				t.Fatalf("user carries %s", secret)
			}
		}
		me := c.Do("GET", "/api/auth/me", nil)
		if me.Status != 200 || me.JSON["user"].(map[string]any)["timezone"] != "America/New_York" {
			t.Fatalf("me after the change: %d %s", me.Status, me.Body)
		}
		if tz := storedZone(t); tz != "America/New_York" {
			t.Fatalf("stored %q", tz)
		}
	})

	t.Run("Invalid", func(t *testing.T) {
		cases := []apitest.Case{
			{Name: "Empty", Body: map[string]any{"timezone": ""}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "Missing", Body: map[string]any{}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "UnknownZone", Body: map[string]any{"timezone": "Mars/Olympus"}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "Local", Body: map[string]any{"timezone": "Local"}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "Overlong", Body: map[string]any{"timezone": strings.Repeat("A", 100)}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "PathTraversal", Body: map[string]any{"timezone": "../../etc/passwd"}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "AbsolutePath", Body: map[string]any{"timezone": "/etc/localtime"}, Status: 400, Code: "VALIDATION_ERROR"},
			// Resolvable through a zoneinfo directory, unknown to the embedded database.
			{Name: "DoubleSlash", Body: map[string]any{"timezone": "Europe//Berlin"}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "DotSegment", Body: map[string]any{"timezone": "Europe/./Berlin"}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "LeadingDot", Body: map[string]any{"timezone": "./UTC"}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "OverlongResolvable", Body: map[string]any{"timezone": "Europe/" + strings.Repeat("/", 87) + "Berlin"}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "WrongCase", Body: map[string]any{"timezone": "europe/berlin"}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "Number", Body: `{"timezone": 5}`, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "UnknownField", Body: `{"timezone": "UTC", "tz": "UTC"}`, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "MalformedJSON", Body: `{"timezone": "UTC"`, Status: 400, Code: "INVALID_JSON"},
			{Name: "Array", Body: `["UTC"]`, Status: 400, Code: "INVALID_JSON"},
		}
		for i := range cases {
			cases[i].Method, cases[i].Path = "PUT", timezonePath
		}
		apitest.Run(t, c, cases)
		if tz := storedZone(t); tz != "America/New_York" {
			t.Fatalf("a refused request changed the zone to %q", tz)
		}
	})

	t.Run("ValidNames", func(t *testing.T) {
		for _, tz := range []string{"UTC", "Etc/GMT+5", "America/Port-au-Prince", "America/Argentina/Buenos_Aires", "EST5EDT", "America/New_York"} {
			r := c.Do("PUT", timezonePath, map[string]any{"timezone": tz})
			if r.Status != 200 || r.JSON["user"].(map[string]any)["timezone"] != tz {
				t.Fatalf("%s: %d %s", tz, r.Status, r.Body)
			}
		}
	})

	t.Run("DetailsNameTheField", func(t *testing.T) {
		for _, body := range []any{map[string]any{"timezone": "Mars/Olympus"}, `{"timezone": 5}`} {
			r := c.Do("PUT", timezonePath, body)
			e, _ := r.JSON["error"].(map[string]any)
			d, _ := e["details"].([]any)
			if len(d) != 1 || d[0].(map[string]any)["field"] != "timezone" {
				t.Fatalf("%v: details %s", body, r.Body)
			}
		}
	})

	t.Run("WrongMethod", func(t *testing.T) {
		apitest.Run(t, c, []apitest.Case{
			{Name: "GET", Method: "GET", Path: timezonePath, Status: 404},
			{Name: "UnknownUsersPath", Method: "GET", Path: "/api/users/me", Status: 404},
		})
	})
}

// TestLambdaBinariesEmbedTZData: ARCHITECTURE.md applies zones with
// time.LoadLocation and embeds time/tzdata, because the Lambda runtime image
// (provided.al2023) need not carry /usr/share/zoneinfo; without the embedded
// copy every zone name but UTC would be refused there.
func TestLambdaBinariesEmbedTZData(t *testing.T) {
	for _, pkg := range []string{"tradejournal/functions/users/lambda", "tradejournal/functions/auth/lambda"} {
		out, err := exec.Command("go", "list", "-e", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		if !slices.Contains(strings.Fields(string(out)), "time/tzdata") {
			t.Errorf("%s does not embed time/tzdata", pkg)
		}
	}
}
