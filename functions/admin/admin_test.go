package admin_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tradejournal/functions"
	"tradejournal/functions/admin"
	"tradejournal/shared/apitest"
	"tradejournal/shared/auth"
	"tradejournal/shared/config"
)

const usersPath = "/api/admin/users"

// passwordHash is made once: argon2id is deliberately slow.
var passwordHash = sync.OnceValue(func() string {
	h, err := auth.HashPassword("password1")
	if err != nil {
		panic(err)
	}
	return h
})

// signIn creates a user directly (registration is rate limited per client
// address), optionally flags it admin the way the spec's SQL fallback does,
// and returns a client signed in as that user.
func signIn(t *testing.T, srv *apitest.Server, email string, isAdmin bool) (*apitest.Client, auth.User) {
	t.Helper()
	ctx := context.Background()
	u, err := auth.CreateUser(ctx, srv.App.DB, email, passwordHash(), "UTC")
	if err != nil {
		t.Fatalf("create %s: %v", email, err)
	}
	if isAdmin {
		exec(t, srv, `UPDATE users SET is_admin = true WHERE id = $1`, u.ID)
	}
	c := srv.Client(t)
	if r := c.Do("POST", "/api/auth/login", map[string]string{"email": email, "password": "password1"}); r.Status != 200 {
		t.Fatalf("login %s: %d %s", email, r.Status, r.Body)
	}
	return c, u
}

func exec(t *testing.T, srv *apitest.Server, sql string, args ...any) {
	t.Helper()
	if _, err := srv.App.DB.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func items(t *testing.T, r apitest.Response) []map[string]any {
	t.Helper()
	raw, ok := r.JSON["items"].([]any)
	if !ok {
		t.Fatalf("no items array: %s", r.Body)
	}
	out := make([]map[string]any, len(raw))
	for i, it := range raw {
		out[i] = it.(map[string]any)
	}
	return out
}

func ids(t *testing.T, r apitest.Response) []string {
	t.Helper()
	var out []string
	for _, it := range items(t, r) {
		out = append(out, it["id"].(string))
	}
	return out
}

func TestListUsersAccess(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	user, _ := signIn(t, srv, "user@example.com", false)
	adm, _ := signIn(t, srv, "admin@example.com", true)

	t.Run("SignedOut", func(t *testing.T) {
		apitest.Run(t, srv.Client(t), []apitest.Case{
			{Name: "List", Method: "GET", Path: usersPath, Status: 401, Code: "UNAUTHENTICATED"},
			{Name: "UnknownAdminPath", Method: "GET", Path: "/api/admin/nope", Status: 401, Code: "UNAUTHENTICATED"},
		})
	})
	t.Run("NonAdmin", func(t *testing.T) {
		apitest.Run(t, user, []apitest.Case{
			{Name: "List", Method: "GET", Path: usersPath, Status: 403, Code: "ADMIN_REQUIRED"},
			{Name: "ListWithBadLimit", Method: "GET", Path: usersPath + "?limit=abc", Status: 403, Code: "ADMIN_REQUIRED"},
			{Name: "UnknownAdminPath", Method: "GET", Path: "/api/admin/nope", Status: 403, Code: "ADMIN_REQUIRED"},
		})
	})
	t.Run("Admin", func(t *testing.T) {
		apitest.Run(t, adm, []apitest.Case{
			{Name: "List", Method: "GET", Path: usersPath, Status: 200},
			{Name: "UnknownAdminPath", Method: "GET", Path: "/api/admin/nope", Status: 404},
			{Name: "WrongMethod", Method: "POST", Path: usersPath, Body: map[string]any{}, Status: 404},
		})
	})
}

func TestListUsersItems(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	srv := apitest.StartAt(t, apitest.Config(t), func() time.Time { return now }, functions.All)
	adm, adminUser := signIn(t, srv, "admin@example.com", true)
	_, active := signIn(t, srv, "active@example.com", false)
	fresh, err := auth.CreateUser(context.Background(), srv.App.DB, "fresh@example.com", passwordHash(), "UTC")
	if err != nil {
		t.Fatal(err)
	}
	created := map[string]time.Time{
		adminUser.ID: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		active.ID:    time.Date(2026, 1, 2, 0, 0, 0, 500_000, time.UTC),
		fresh.ID:     time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC),
	}
	for id, at := range created {
		exec(t, srv, `UPDATE users SET created_at = $2 WHERE id = $1`, id, at)
	}
	exec(t, srv, `UPDATE users SET email_verified = true WHERE id = $1`, active.ID)

	r := adm.Do("GET", usersPath, nil)
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	list := items(t, r)

	t.Run("NewestFirst", func(t *testing.T) {
		want := []string{fresh.ID, active.ID, adminUser.ID}
		if got := ids(t, r); !slices.Equal(got, want) {
			t.Fatalf("order %v, want %v", got, want)
		}
	})
	t.Run("ExactFields", func(t *testing.T) {
		want := []string{"createdAt", "disabledAt", "email", "emailVerified", "id", "isAdmin", "lastActiveAt"}
		for _, it := range list {
			var keys []string
			for k := range it {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			if !slices.Equal(keys, want) {
				t.Fatalf("item keys %v, want %v", keys, want)
			}
		}
		if len(r.JSON) != 2 {
			t.Fatalf("page keys: %s", r.Body)
		}
		if v, ok := r.JSON["nextCursor"]; !ok || v != nil {
			t.Fatalf("nextCursor %v (present %v), want null", v, ok)
		}
	})
	t.Run("NoSecretAnywhere", func(t *testing.T) {
		body := strings.ToLower(string(r.Body))
		for _, s := range []string{"password", "hash", "argon2", "token"} {
			if strings.Contains(body, s) {
				t.Fatalf("body mentions %q: %s", s, r.Body)
			}
		}
	})
	t.Run("Values", func(t *testing.T) {
		type want struct {
			email           string
			isAdmin, verify bool
			lastActive      any
		}
		wants := map[string]want{
			fresh.ID:     {"fresh@example.com", false, false, nil},
			active.ID:    {"active@example.com", false, true, now},
			adminUser.ID: {"admin@example.com", true, false, now},
		}
		for _, it := range list {
			id := it["id"].(string)
			w := wants[id]
			if it["email"] != w.email || it["isAdmin"] != w.isAdmin || it["emailVerified"] != w.verify {
				t.Errorf("%s: %v", w.email, it)
			}
			at, err := time.Parse(time.RFC3339Nano, it["createdAt"].(string))
			if err != nil || !at.Equal(created[id]) {
				t.Errorf("%s createdAt %v, want %v", w.email, it["createdAt"], created[id])
			}
			switch la := it["lastActiveAt"].(type) {
			case nil:
				if w.lastActive != nil {
					t.Errorf("%s lastActiveAt null, want %v", w.email, w.lastActive)
				}
			case string:
				ts, err := time.Parse(time.RFC3339Nano, la)
				if w.lastActive == nil || err != nil || !ts.Equal(w.lastActive.(time.Time)) {
					t.Errorf("%s lastActiveAt %q, want %v", w.email, la, w.lastActive)
				}
			default:
				t.Errorf("%s lastActiveAt %T", w.email, la)
			}
		}
	})
}

// pagedServer is a server holding 105 users inserted directly plus the
// signed-in admin. Groups of five share one created_at, so the id
// tiebreak decides their order. It returns every id in the expected order.
func pagedServer(t *testing.T) (*apitest.Client, []string) {
	t.Helper()
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	adm, adminUser := signIn(t, srv, "admin@example.com", true)
	ctx := context.Background()
	type row struct {
		id string
		at time.Time
	}
	base := time.Date(2025, 6, 1, 9, 30, 0, 123_456_000, time.UTC)
	rows := []row{{adminUser.ID, base.Add(-time.Hour)}}
	exec(t, srv, `UPDATE users SET created_at = $2 WHERE id = $1`, adminUser.ID, rows[0].at)
	for i := range 105 {
		u, err := auth.CreateUser(ctx, srv.App.DB, fmt.Sprintf("user%03d@example.com", i), "not-a-hash", "UTC")
		if err != nil {
			t.Fatal(err)
		}
		// Sub-second, microsecond-precise steps: the cursor must keep them.
		at := base.Add(time.Duration(i/5) * 1_234_567 * time.Microsecond)
		exec(t, srv, `UPDATE users SET created_at = $2 WHERE id = $1`, u.ID, at)
		rows = append(rows, row{u.ID, at})
	}
	slices.SortFunc(rows, func(a, b row) int {
		if c := b.at.Compare(a.at); c != 0 {
			return c
		}
		return strings.Compare(b.id, a.id)
	})
	want := make([]string, len(rows))
	for i, r := range rows {
		want[i] = r.id
	}
	return adm, want
}

// walk follows nextCursor from the first page and returns every id seen and
// the size of each page.
func walk(t *testing.T, c *apitest.Client, limit int) ([]string, []int) {
	t.Helper()
	var got []string
	var sizes []int
	cursor := ""
	for page := 0; ; page++ {
		if page > 200 {
			t.Fatal("pagination does not end")
		}
		path := fmt.Sprintf("%s?limit=%d", usersPath, limit)
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		r := c.Do("GET", path, nil)
		if r.Status != 200 {
			t.Fatalf("page %d: %d %s", page, r.Status, r.Body)
		}
		page := ids(t, r)
		got = append(got, page...)
		sizes = append(sizes, len(page))
		next, present := r.JSON["nextCursor"]
		if !present {
			t.Fatalf("nextCursor key missing: %s", r.Body)
		}
		if next == nil {
			return got, sizes
		}
		cursor = next.(string)
	}
}

func TestListUsersPagination(t *testing.T) {
	adm, want := pagedServer(t)

	t.Run("WalkEveryUserOnceInOrder", func(t *testing.T) {
		got, sizes := walk(t, adm, 7)
		if !slices.Equal(got, want) {
			t.Fatalf("walked %d ids in an order other than the expected %d:\n got %v\nwant %v", len(got), len(want), got, want)
		}
		for i, n := range sizes[:len(sizes)-1] {
			if n != 7 {
				t.Fatalf("page %d has %d items, want 7 (sizes %v)", i, n, sizes)
			}
		}
		if last := sizes[len(sizes)-1]; last != len(want)%7 {
			t.Fatalf("last page %d items, want %d", last, len(want)%7)
		}
	})
	t.Run("ExactMultipleEndsWithoutEmptyPage", func(t *testing.T) {
		got, sizes := walk(t, adm, len(want)/2) // 106 users: two full pages of 53
		if !slices.Equal(got, want) || !slices.Equal(sizes, []int{53, 53}) {
			t.Fatalf("sizes %v, ids in order %v", sizes, slices.Equal(got, want))
		}
	})

	t.Run("Limit", func(t *testing.T) {
		for _, tc := range []struct {
			name, query string
			n           int
		}{
			{"Default", "", 25},
			{"EmptyMeansDefault", "?limit=", 25},
			{"Seven", "?limit=7", 7},
			{"ZeroClampsToOne", "?limit=0", 1},
			{"NegativeClampsToOne", "?limit=-5", 1},
			{"Hundred", "?limit=100", 100},
			{"ThousandClampsToHundred", "?limit=1000", 100},
			{"OverflowClampsToHundred", "?limit=99999999999999999999", 100},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := adm.Do("GET", usersPath+tc.query, nil)
				if r.Status != 200 {
					t.Fatalf("status %d: %s", r.Status, r.Body)
				}
				if got := ids(t, r); !slices.Equal(got, want[:tc.n]) {
					t.Fatalf("%d items, want the first %d", len(got), tc.n)
				}
				if r.JSON["nextCursor"] == nil {
					t.Fatal("nextCursor null although more users follow")
				}
			})
		}
	})

	t.Run("NonNumericLimit", func(t *testing.T) {
		var cases []apitest.Case
		for _, v := range []string{"abc", "1.5", "1e3", " 5", "0x10", "-", "5abc"} {
			cases = append(cases, apitest.Case{Name: fmt.Sprintf("%q", v), Method: "GET", Path: usersPath + "?limit=" + url.QueryEscape(v), Status: 400, Code: "VALIDATION_ERROR"})
		}
		apitest.Run(t, adm, cases)
		r := adm.Do("GET", usersPath+"?limit=abc", nil)
		d, _ := r.JSON["error"].(map[string]any)["details"].([]any)
		if len(d) != 1 || d[0].(map[string]any)["field"] != "limit" {
			t.Fatalf("details do not name limit: %s", r.Body)
		}
	})

	t.Run("InvalidCursorIsFirstPage", func(t *testing.T) {
		b64 := base64.RawURLEncoding.EncodeToString
		uuid := "0196f3a0-0000-7000-8000-000000000000"
		for _, tc := range []struct{ name, cursor string }{
			{"Garbage", "!!not base64!!"},
			{"Base64OfGarbage", b64([]byte("garbage"))},
			{"NonUUIDID", b64([]byte("1700000000000000.not-a-uuid"))},
			{"UppercaseUUID", b64([]byte("1700000000000000." + strings.ToUpper(uuid)))},
			{"NonNumericTime", b64([]byte("yesterday." + uuid))},
			{"NegativeTime", b64([]byte("-5." + uuid))},
			{"NoSeparator", b64([]byte("1700000000000000" + uuid))},
			{"Overlong", strings.Repeat("A", 200)},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := adm.Do("GET", usersPath+"?limit=5&cursor="+url.QueryEscape(tc.cursor), nil)
				if r.Status != 200 {
					t.Fatalf("status %d: %s", r.Status, r.Body)
				}
				if got := ids(t, r); !slices.Equal(got, want[:5]) {
					t.Fatalf("got %v, want the first page %v", got, want[:5])
				}
			})
		}
	})
}

func TestListUsersRateLimit(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	srv := apitest.StartAt(t, apitest.Config(t), func() time.Time { return now }, functions.All)
	first, _ := signIn(t, srv, "first@example.com", true)
	second, _ := signIn(t, srv, "second@example.com", true)

	for i := range 60 {
		if r := first.Do("GET", usersPath, nil); r.Status != 200 {
			t.Fatalf("request %d: %d %s", i+1, r.Status, r.Body)
		}
	}
	r := first.Do("GET", usersPath, nil)
	if r.Status != 429 || r.ErrorCode() != "RATE_LIMITED" {
		t.Fatalf("61st request: %d %s", r.Status, r.Body)
	}
	apitest.CheckErrorShape(t, r)
	if ra := r.Header.Get("Retry-After"); ra != "1" {
		t.Fatalf("Retry-After %q, want 1 (one interval of 60 per 60 s)", ra)
	}
	t.Run("PerUser", func(t *testing.T) {
		if r := second.Do("GET", usersPath, nil); r.Status != 200 {
			t.Fatalf("another admin: %d %s", r.Status, r.Body)
		}
	})
	t.Run("RefillsAfterOneInterval", func(t *testing.T) {
		now = now.Add(time.Second)
		if r := first.Do("GET", usersPath, nil); r.Status != 200 {
			t.Fatalf("after a second: %d %s", r.Status, r.Body)
		}
		if r := first.Do("GET", usersPath, nil); r.Status != 429 {
			t.Fatalf("two allowed after one interval: %d", r.Status)
		}
	})
}

// TestSeedAdmin drives the first-admin bootstrap. apitest.Start gives each
// server a fresh database, so a "restart" is the start-up work run again on
// the same database.
func TestSeedAdmin(t *testing.T) {
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	restart := func(t *testing.T, srv *apitest.Server) {
		t.Helper()
		if err := auth.SeedAdmin(ctx, srv.App.DB, srv.App.Config.Accounts.SeedAdminEmail, log); err != nil {
			t.Fatalf("seed admin: %v", err)
		}
	}
	isAdmin := func(t *testing.T, srv *apitest.Server, email string) bool {
		t.Helper()
		var admin bool
		if err := srv.App.DB.QueryRow(ctx, `SELECT is_admin FROM users WHERE email = $1`, email).Scan(&admin); err != nil {
			t.Fatalf("%s: %v", email, err)
		}
		return admin
	}
	bootstrapped := func(t *testing.T, srv *apitest.Server) bool {
		t.Helper()
		var n int
		// The first-admin mark only: other rows (the device cookie key) live there too.
		if err := srv.App.DB.QueryRow(ctx, `SELECT count(*) FROM instance_state WHERE key = 'first_admin_bootstrapped'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n > 0
	}
	count := func(t *testing.T, srv *apitest.Server, sql string) int {
		t.Helper()
		var n int
		if err := srv.App.DB.QueryRow(ctx, sql).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	t.Run("Lifecycle", func(t *testing.T) {
		cfg := apitest.Config(t)
		cfg.Accounts.SeedAdminEmail = "boss@example.com"
		srv := apitest.Start(t, cfg, functions.All) // start-up work ran: no such user yet

		t.Run("NoUserYet", func(t *testing.T) {
			if n := count(t, srv, `SELECT count(*) FROM users WHERE is_admin`); n != 0 {
				t.Fatalf("%d admins", n)
			}
			if bootstrapped(t, srv) {
				t.Fatal("bootstrap recorded without a user to promote")
			}
		})
		boss := srv.Client(t)
		boss.Register("boss@example.com", "password1")
		t.Run("RegisteredUserIsNotAdminUntilRestart", func(t *testing.T) {
			if isAdmin(t, srv, "boss@example.com") {
				t.Fatal("admin before restart")
			}
		})
		t.Run("RestartPromotes", func(t *testing.T) {
			restart(t, srv)
			if !isAdmin(t, srv, "boss@example.com") {
				t.Fatal("not promoted")
			}
			if !bootstrapped(t, srv) {
				t.Fatal("bootstrap not recorded in instance_state")
			}
			if r := boss.Do("GET", usersPath, nil); r.Status != 200 {
				t.Fatalf("promoted admin lists users: %d %s", r.Status, r.Body)
			}
		})
		t.Run("DemotionIsNotUndone", func(t *testing.T) {
			exec(t, srv, `UPDATE users SET is_admin = false WHERE email = 'boss@example.com'`)
			restart(t, srv)
			restart(t, srv)
			if isAdmin(t, srv, "boss@example.com") {
				t.Fatal("restart undid the demotion")
			}
			if r := boss.Do("GET", usersPath, nil); r.Status != 403 {
				t.Fatalf("demoted admin: %d %s", r.Status, r.Body)
			}
		})
	})

	t.Run("ExistingAdminBlocksPromotion", func(t *testing.T) {
		cfg := apitest.Config(t)
		cfg.Accounts.SeedAdminEmail = "boss@example.com"
		srv := apitest.Start(t, cfg, functions.All)
		if _, err := auth.CreateUser(ctx, srv.App.DB, "owner@example.com", passwordHash(), "UTC"); err != nil {
			t.Fatal(err)
		}
		exec(t, srv, `UPDATE users SET is_admin = true WHERE email = 'owner@example.com'`)
		if _, err := auth.CreateUser(ctx, srv.App.DB, "boss@example.com", passwordHash(), "UTC"); err != nil {
			t.Fatal(err)
		}
		restart(t, srv)
		if isAdmin(t, srv, "boss@example.com") {
			t.Fatal("promoted although the instance already has an admin")
		}
		if !isAdmin(t, srv, "owner@example.com") {
			t.Fatal("existing admin lost the flag")
		}
	})

	t.Run("MatchesLowercaseStoredEmail", func(t *testing.T) {
		env := map[string]string{"SEED_ADMIN_EMAIL": "  Boss@Example.COM "}
		cfg, err := config.LoadFrom(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Accounts.SeedAdminEmail != "boss@example.com" {
			t.Fatalf("SEED_ADMIN_EMAIL read as %q", cfg.Accounts.SeedAdminEmail)
		}
		srv := apitest.Start(t, cfg, functions.All)
		srv.Client(t).Register("BOSS@example.Com", "password1")
		srv.Client(t).Register("other@example.com", "password1")
		restart(t, srv)
		if !isAdmin(t, srv, "boss@example.com") {
			t.Fatal("mixed-case registration not promoted")
		}
		if n := count(t, srv, `SELECT count(*) FROM users WHERE is_admin`); n != 1 {
			t.Fatalf("%d admins, want 1", n)
		}
	})

	t.Run("UnsetDoesNothing", func(t *testing.T) {
		srv := apitest.Start(t, apitest.Config(t), functions.All)
		srv.Client(t).Register("someone@example.com", "password1")
		restart(t, srv)
		if n := count(t, srv, `SELECT count(*) FROM users WHERE is_admin`); n != 0 || bootstrapped(t, srv) {
			t.Fatalf("%d admins with SEED_ADMIN_EMAIL unset", n)
		}
	})
}

func TestCursor(t *testing.T) {
	id := "0196f3a0-1b2c-7d3e-8f40-a1b2c3d4e5f6"
	t.Run("RoundTrip", func(t *testing.T) {
		for _, at := range []time.Time{
			time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
			time.Date(2026, 3, 1, 12, 0, 0, 123_456_000, time.UTC),
			time.Unix(0, 0).UTC(),
			time.Date(2026, 3, 1, 13, 0, 0, 1000, time.FixedZone("CET", 3600)),
		} {
			c := admin.DecodeCursor(admin.EncodeCursor(admin.Cursor{CreatedAt: at, ID: id}))
			if c == nil || !c.CreatedAt.Equal(at) || c.ID != id || c.CreatedAt.Location() != time.UTC {
				t.Fatalf("%v: decoded %+v", at, c)
			}
		}
	})
	t.Run("TruncatesToMicroseconds", func(t *testing.T) {
		at := time.Date(2026, 3, 1, 12, 0, 0, 123_456_789, time.UTC)
		c := admin.DecodeCursor(admin.EncodeCursor(admin.Cursor{CreatedAt: at, ID: id}))
		if c == nil || !c.CreatedAt.Equal(at.Truncate(time.Microsecond)) {
			t.Fatalf("decoded %+v", c)
		}
	})
	t.Run("Opaque", func(t *testing.T) {
		enc := admin.EncodeCursor(admin.Cursor{CreatedAt: time.Now(), ID: id})
		if strings.ContainsAny(enc, "+/=.") || strings.Contains(enc, id) {
			t.Fatalf("cursor %q is not opaque URL-safe base64", enc)
		}
	})
	t.Run("PaddingTolerated", func(t *testing.T) {
		enc := admin.EncodeCursor(admin.Cursor{CreatedAt: time.Unix(1, 0), ID: id})
		if admin.DecodeCursor(enc+"==") == nil {
			t.Fatal("padded cursor refused")
		}
	})
	t.Run("Rejects", func(t *testing.T) {
		b64 := base64.RawURLEncoding.EncodeToString
		for name, s := range map[string]string{
			"Empty":          "",
			"NotBase64":      "%%%",
			"NoSeparator":    b64([]byte("123" + id)),
			"BadID":          b64([]byte("123.abc")),
			"UppercaseID":    b64([]byte("123." + strings.ToUpper(id))),
			"EmptyTime":      b64([]byte("." + id)),
			"NegativeTime":   b64([]byte("-1." + id)),
			"HugeTime":       b64([]byte("100000000000000001." + id)),
			"OverflowTime":   b64([]byte("99999999999999999999." + id)),
			"TrailingJunkID": b64([]byte("123." + id + "x")),
			"Overlong":       strings.Repeat("A", 129),
		} {
			if c := admin.DecodeCursor(s); c != nil {
				t.Errorf("%s: decoded %+v", name, c)
			}
		}
	})
}

func FuzzDecodeCursor(f *testing.F) {
	id := "0196f3a0-1b2c-7d3e-8f40-a1b2c3d4e5f6"
	f.Add(admin.EncodeCursor(admin.Cursor{CreatedAt: time.Date(2026, 3, 1, 12, 0, 0, 123_456_000, time.UTC), ID: id}))
	f.Add(admin.EncodeCursor(admin.Cursor{CreatedAt: time.Unix(0, 0), ID: id}))
	f.Add(base64.RawURLEncoding.EncodeToString([]byte("+0017." + id)))
	f.Add(base64.URLEncoding.EncodeToString([]byte("1." + id)))
	f.Add(base64.RawURLEncoding.EncodeToString([]byte("1.not-a-uuid")))
	f.Add("")
	f.Add("====")
	f.Add("garbage")
	f.Fuzz(func(t *testing.T, s string) {
		c := admin.DecodeCursor(s)
		if c == nil {
			return
		}
		if c.CreatedAt.Location() != time.UTC || c.CreatedAt.Nanosecond()%1000 != 0 {
			t.Fatalf("%q decoded to a non-UTC or sub-microsecond time %v", s, c.CreatedAt)
		}
		enc := admin.EncodeCursor(*c)
		again := admin.DecodeCursor(enc)
		if again == nil {
			t.Fatalf("%q decoded to %+v, whose encoding %q does not decode", s, c, enc)
		}
		if *again != *c {
			t.Fatalf("%q decoded to %+v, re-encoded %q decodes to %+v", s, c, enc, again)
		}
	})
}
