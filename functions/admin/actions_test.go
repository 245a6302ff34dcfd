package admin_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/auth"
)

func actionPath(userID, action string) string { return usersPath + "/" + userID + "/" + action }

const usagePath = "/api/admin/usage"

// login signs email in with a new client and returns the answer.
func login(t *testing.T, srv *apitest.Server, email, password string) (*apitest.Client, apitest.Response) {
	t.Helper()
	c := srv.Client(t)
	return c, c.Do("POST", "/api/auth/login", map[string]string{"email": email, "password": password})
}

func me(t *testing.T, c *apitest.Client) int {
	t.Helper()
	return c.Do("GET", "/api/auth/me", nil).Status
}

func TestActionsAccess(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	user, u := signIn(t, srv, "user@example.com", false)
	signIn(t, srv, "admin@example.com", true)
	var cases []apitest.Case
	for _, a := range []string{"promote", "demote", "disable", "enable"} {
		cases = append(cases, apitest.Case{Name: a, Method: "POST", Path: actionPath(u.ID, a)})
	}
	cases = append(cases, apitest.Case{Name: "usage", Method: "GET", Path: usagePath})

	t.Run("SignedOut", func(t *testing.T) {
		signedOut := append([]apitest.Case(nil), cases...)
		for i := range signedOut {
			signedOut[i].Status, signedOut[i].Code = 401, "UNAUTHENTICATED"
		}
		apitest.Run(t, srv.Client(t), signedOut)
	})
	t.Run("NonAdmin", func(t *testing.T) {
		nonAdmin := append([]apitest.Case(nil), cases...)
		for i := range nonAdmin {
			nonAdmin[i].Status, nonAdmin[i].Code = 403, "ADMIN_REQUIRED"
		}
		apitest.Run(t, user, nonAdmin)
		// Not even on themselves.
		if r := user.Do("GET", "/api/auth/me", nil); apitest.Object(t, r, "user")["isAdmin"] != false {
			t.Fatalf("a non-admin promoted themselves: %s", r.Body)
		}
	})
}

func TestPromoteDemote(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	adm, admin := signIn(t, srv, "admin@example.com", true)
	user, u := signIn(t, srv, "user@example.com", false)

	t.Run("UnknownUser", func(t *testing.T) {
		apitest.Run(t, adm, []apitest.Case{
			{Name: "Unknown", Method: "POST", Path: actionPath("00000000-0000-4000-8000-000000000000", "promote"), Status: 404},
			{Name: "Malformed", Method: "POST", Path: actionPath("nope", "demote"), Status: 404},
			{Name: "UnknownAction", Method: "POST", Path: actionPath(u.ID, "delete"), Status: 404},
			{Name: "WrongMethod", Method: "GET", Path: actionPath(u.ID, "promote"), Status: 404},
		})
	})

	t.Run("LastAdminCannotDemoteThemselves", func(t *testing.T) {
		r := apitest.Must(t, adm.Do("POST", actionPath(admin.ID, "demote"), nil), 409)
		if r.ErrorCode() != "CONFLICT" {
			t.Fatalf("body %s", r.Body)
		}
		apitest.Must(t, adm.Do("GET", usersPath, nil), 200)
	})

	t.Run("Promote", func(t *testing.T) {
		r := apitest.Must(t, adm.Do("POST", actionPath(u.ID, "promote"), nil), 200)
		if it := apitest.Object(t, r, "user"); it["isAdmin"] != true || it["id"] != u.ID {
			t.Fatalf("user %v", it)
		}
		apitest.Must(t, user.Do("GET", usersPath, nil), 200)
		apitest.Must(t, adm.Do("POST", actionPath(u.ID, "promote"), nil), 200) // again: no change
	})

	t.Run("DemoteThemselvesWithAnotherAdmin", func(t *testing.T) {
		apitest.Must(t, adm.Do("POST", actionPath(admin.ID, "demote"), nil), 200)
		apitest.Must(t, adm.Do("GET", usersPath, nil), 403)
	})

	t.Run("TheLastAdminCannotBeDemotedByAnyone", func(t *testing.T) {
		// user is now the only admin; nobody else can act, and they cannot
		// demote themselves.
		apitest.Must(t, user.Do("POST", actionPath(u.ID, "demote"), nil), 409)
		apitest.Must(t, user.Do("POST", actionPath(admin.ID, "promote"), nil), 200)
	})

	t.Run("ADisabledAdminDoesNotCount", func(t *testing.T) {
		// admin and user are admins; user disables admin, then admin is no
		// admin who can sign in and user is the last.
		apitest.Must(t, user.Do("POST", actionPath(admin.ID, "disable"), nil), 200)
		r := apitest.Must(t, user.Do("POST", actionPath(u.ID, "demote"), nil), 409)
		if r.ErrorCode() != "CONFLICT" {
			t.Fatalf("body %s", r.Body)
		}
		// Demoting the disabled admin is fine: user stays.
		apitest.Must(t, user.Do("POST", actionPath(admin.ID, "demote"), nil), 200)
	})
}

func TestConcurrentDemotions(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	a, ua := signIn(t, srv, "a@example.com", true)
	b, ub := signIn(t, srv, "b@example.com", true)
	for range 5 {
		done := make(chan int, 2)
		go func() { done <- a.Do("POST", actionPath(ub.ID, "demote"), nil).Status }()
		go func() { done <- b.Do("POST", actionPath(ua.ID, "demote"), nil).Status }()
		s1, s2 := <-done, <-done
		var admins int
		if err := srv.App.DB.QueryRow(context.Background(), `SELECT count(*) FROM users WHERE is_admin`).Scan(&admins); err != nil {
			t.Fatal(err)
		}
		if admins != 1 {
			t.Fatalf("statuses %d %d left %d admins", s1, s2, admins)
		}
		exec(t, srv, `UPDATE users SET is_admin = true`)
	}
}

func TestDisable(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	adm, admin := signIn(t, srv, "admin@example.com", true)
	first, u := signIn(t, srv, "user@example.com", false)
	second, r := login(t, srv, "user@example.com", "password1")
	apitest.Must(t, r, 200)
	bystander, _ := signIn(t, srv, "bystander@example.com", false)

	t.Run("Themselves", func(t *testing.T) {
		r := apitest.Must(t, adm.Do("POST", actionPath(admin.ID, "disable"), nil), 409)
		if r.ErrorCode() != "CONFLICT" {
			t.Fatalf("body %s", r.Body)
		}
		if me(t, adm) != 200 {
			t.Fatal("signed out")
		}
	})

	t.Run("EveryOneOfTheirSessionsEnds", func(t *testing.T) {
		r := apitest.Must(t, adm.Do("POST", actionPath(u.ID, "disable"), nil), 200)
		if it := apitest.Object(t, r, "user"); it["disabledAt"] == nil {
			t.Fatalf("user %v", it)
		}
		for _, c := range []*apitest.Client{first, second} {
			if s := me(t, c); s != 401 {
				t.Fatalf("a disabled user's session answers %d", s)
			}
		}
		if me(t, bystander) != 200 || me(t, adm) != 200 {
			t.Fatal("other sessions ended")
		}
		var sessions int
		if err := srv.App.DB.QueryRow(context.Background(), `SELECT count(*) FROM sessions WHERE user_id = $1`, u.ID).Scan(&sessions); err != nil || sessions != 0 {
			t.Fatalf("sessions left %d %v", sessions, err)
		}
	})

	t.Run("NoSessionOfADisabledUserCounts", func(t *testing.T) {
		// A session that raced the disabling (a sign-in that checked just
		// before it) is refused at every request all the same.
		exec(t, srv, `INSERT INTO sessions (token_hash, user_id, expires_at) VALUES (sha256('raced'), $1, now() + interval '1 day')`, u.ID)
		req := first.NewRequest("GET", "/api/auth/me", "")
		req.AddCookie(&http.Cookie{Name: auth.CookieName, Value: "raced"})
		if r := first.Send(req); r.Status != 401 {
			t.Fatalf("a disabled user's session answers %d", r.Status)
		}
	})

	t.Run("CannotSignIn", func(t *testing.T) {
		_, r := login(t, srv, "user@example.com", "password1")
		if r.Status != 403 || r.ErrorCode() != "ACCOUNT_DISABLED" || apitest.SessionCookie(r.Header.Values("Set-Cookie")) != "" {
			t.Fatalf("right password: %d %s %v", r.Status, r.Body, r.Header.Values("Set-Cookie"))
		}
		apitest.CheckErrorShape(t, r)
		// A wrong password says nothing about the account.
		if _, r := login(t, srv, "user@example.com", "password9"); r.Status != 401 || r.ErrorCode() != "INVALID_CREDENTIALS" {
			t.Fatalf("wrong password: %d %s", r.Status, r.Body)
		}
	})

	t.Run("ListedAsDisabled", func(t *testing.T) {
		for _, it := range items(t, apitest.Must(t, adm.Do("GET", usersPath, nil), 200)) {
			if (it["id"] == u.ID) != (it["disabledAt"] != nil) {
				t.Fatalf("item %v", it)
			}
		}
	})

	t.Run("Enable", func(t *testing.T) {
		r := apitest.Must(t, adm.Do("POST", actionPath(u.ID, "enable"), nil), 200)
		if it := apitest.Object(t, r, "user"); it["disabledAt"] != nil {
			t.Fatalf("user %v", it)
		}
		c, r := login(t, srv, "user@example.com", "password1")
		apitest.Must(t, r, 200)
		if me(t, c) != 200 {
			t.Fatal("not signed in after re-enabling")
		}
	})
}

func TestUsage(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	srv := apitest.StartAt(t, apitest.Config(t), func() time.Time { return now }, functions.All)
	adm, admin := signIn(t, srv, "admin@example.com", true)
	_, recent := signIn(t, srv, "recent@example.com", false)
	_, month := signIn(t, srv, "month@example.com", false)
	_, old := signIn(t, srv, "old@example.com", false)
	exec(t, srv, `UPDATE users SET last_active_at = $2 WHERE id = $1`, recent.ID, now.Add(-6*24*time.Hour))
	exec(t, srv, `UPDATE users SET last_active_at = $2 WHERE id = $1`, month.ID, now.Add(-20*24*time.Hour))
	exec(t, srv, `UPDATE users SET last_active_at = $2, disabled_at = $2 WHERE id = $1`, old.ID, now.Add(-40*24*time.Hour))

	ctx := context.Background()
	var accountID, positionID string
	if err := srv.App.DB.QueryRow(ctx, `INSERT INTO accounts (user_id, name, currency) VALUES ($1, 'Main', 'USD') RETURNING id::text`, recent.ID).Scan(&accountID); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := srv.App.DB.QueryRow(ctx, `INSERT INTO positions (user_id, account_id, symbol, asset_type, side) VALUES ($1, $2, 'AAPL', 'stock', 'long') RETURNING id::text`,
			recent.ID, accountID).Scan(&positionID); err != nil {
			t.Fatal(err)
		}
	}
	exec(t, srv, `INSERT INTO position_images (user_id, position_id, content_type, size_bytes, data) VALUES ($1, $2, 'image/png', 1000, '\x89'), ($1, $2, 'image/png', 2500, '\x89')`, recent.ID, positionID)
	exec(t, srv, `INSERT INTO position_images (user_id, position_id, content_type, size_bytes, storage_key) VALUES ($1, $2, 'image/webp', 500, 'k/1')`, recent.ID, positionID)
	exec(t, srv, `INSERT INTO csv_imports (user_id) VALUES ($1), ($1)`, recent.ID)

	r := apitest.Must(t, adm.Do("GET", usagePath, nil), 200)
	want := map[string]float64{"users": 4, "admins": 1, "disabledUsers": 1, "activeUsers7Days": 2, "activeUsers30Days": 3,
		"positions": 3, "imports": 2, "images": 3, "storageBytes": 4000}
	if len(r.JSON) != len(want)+1 { // and the period's figures (detail_test.go)
		t.Fatalf("fields %s", r.Body)
	}
	for k, v := range want {
		if r.JSON[k] != v {
			t.Errorf("%s = %v, want %v (admin %s signed in now)", k, r.JSON[k], v, admin.ID)
		}
	}
}
