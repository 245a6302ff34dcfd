package changelog_test

import (
	"testing"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/changelog"
)

// TestChangelog: every version is answered newest first; a new user has
// all of them unread until the changelog is opened, per user.
func TestChangelog(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	a, b := srv.Client(t), srv.Client(t)
	a.Register("a@example.com", "password1")
	b.Register("b@example.com", "password1")
	entries, err := changelog.Parse(changelog.File)
	if err != nil {
		t.Fatal(err)
	}

	r := apitest.Must(t, a.Do("GET", "/api/changelog", nil), 200)
	got := r.JSON["entries"].([]any)
	if len(got) != len(entries) || got[0].(map[string]any)["version"] != entries[0].Version || r.JSON["unread"] != float64(len(entries)) {
		t.Fatalf("%s", r.Body)
	}
	first := got[0].(map[string]any)
	if first["date"] != entries[0].Date || len(first["changes"].([]any)) != len(entries[0].Changes) {
		t.Fatalf("first entry %v", first)
	}

	for range 2 { // repeating it changes nothing
		if r := apitest.Must(t, a.Do("POST", "/api/changelog/read", nil), 200); r.JSON["unread"] != float64(0) {
			t.Fatalf("%s", r.Body)
		}
	}
	if r := apitest.Must(t, a.Do("GET", "/api/changelog", nil), 200); r.JSON["unread"] != float64(0) {
		t.Fatalf("after reading: %s", r.Body)
	}
	// Another user's marker is theirs.
	if r := apitest.Must(t, b.Do("GET", "/api/changelog", nil), 200); r.JSON["unread"] != float64(len(entries)) {
		t.Fatalf("b: %s", r.Body)
	}
	// A version read long ago leaves the newer ones unread.
	if _, err := srv.App.DB.Exec(t.Context(), `UPDATE users SET changelog_read = $1 WHERE email = 'b@example.com'`, entries[2].Version); err != nil {
		t.Fatal(err)
	}
	if r := apitest.Must(t, b.Do("GET", "/api/changelog", nil), 200); r.JSON["unread"] != float64(2) {
		t.Fatalf("b after %s: %s", entries[2].Version, r.Body)
	}

	apitest.Run(t, srv.Client(t), []apitest.Case{
		{Name: "SignedOutGet", Method: "GET", Path: "/api/changelog", Status: 401, Code: "UNAUTHENTICATED"},
		{Name: "SignedOutRead", Method: "POST", Path: "/api/changelog/read", Status: 401, Code: "UNAUTHENTICATED"},
	})
	apitest.Run(t, a, []apitest.Case{
		{Name: "UnknownPath", Method: "GET", Path: "/api/changelog/latest", Status: 404},
		{Name: "WrongMethod", Method: "DELETE", Path: "/api/changelog", Status: 404},
	})
}
