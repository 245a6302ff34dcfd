package auth_test

import (
	"fmt"
	"testing"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/auth"
)

// TestSignInHistory: the security settings list each session started and
// each wrong password, newest first, with the browser, and never more than
// auth.KeptSignInEvents of them.
func TestSignInHistory(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	owner := srv.Client(t)
	owner.Register("history@example.com", "password1")
	guesser := srv.Client(t)
	for range 2 {
		apitest.Must(t, signIn(guesser, "history@example.com", "guess-guess", "203.0.113.20"), 401)
	}
	apitest.Must(t, signIn(owner, "history@example.com", "password1", "203.0.113.21"), 200)

	recent := func() []any {
		t.Helper()
		r := apitest.Must(t, owner.Do("GET", "/api/users/me/sessions", nil), 200)
		list, ok := r.JSON["recentSignIns"].([]any)
		if !ok {
			t.Fatalf("no recentSignIns: %s", r.Body)
		}
		return list
	}
	got := recent()
	var outcomes string
	for _, e := range got {
		ev := e.(map[string]any)
		outcomes += fmt.Sprint(ev["succeeded"], " ")
		if ev["at"] == nil || ev["userAgent"] == nil {
			t.Fatalf("event %v", ev)
		}
	}
	// Newest first: the sign-in, the two wrong passwords, the registration.
	if outcomes != "true false false true " {
		t.Fatalf("history %s: %v", outcomes, got)
	}

	// The other user's history is not theirs to see.
	other := srv.Client(t)
	other.Register("stranger@example.com", "password1")
	r := apitest.Must(t, other.Do("GET", "/api/users/me/sessions", nil), 200)
	if n := len(r.JSON["recentSignIns"].([]any)); n != 1 {
		t.Fatalf("the new user's history holds %d events", n)
	}

	// Bounded: past the kept count the oldest go.
	var user string
	if err := srv.App.DB.QueryRow(t.Context(), `SELECT id::text FROM users WHERE email = 'history@example.com'`).Scan(&user); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.App.DB.Exec(t.Context(), `INSERT INTO sign_in_events (user_id, at, succeeded)
		SELECT $1, now() - interval '1 day', false FROM generate_series(1, $2)`, user, auth.KeptSignInEvents+10); err != nil {
		t.Fatal(err)
	}
	apitest.Must(t, signIn(owner, "history@example.com", "password1", "203.0.113.21"), 200)
	if got := recent(); len(got) != auth.KeptSignInEvents || got[0].(map[string]any)["succeeded"] != true {
		t.Fatalf("history holds %d events, want %d, the sign-in first: %v", len(got), auth.KeptSignInEvents, got[0])
	}
	var stored int
	if err := srv.App.DB.QueryRow(t.Context(), `SELECT count(*) FROM sign_in_events WHERE user_id = $1`, user).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != auth.KeptSignInEvents {
		t.Fatalf("the table keeps %d events, want %d", stored, auth.KeptSignInEvents)
	}
}
