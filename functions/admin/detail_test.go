package admin_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
)

// journal gives the signed-in client an account and n positions, and
// returns the positions' ids.
func journal(t *testing.T, c *apitest.Client, n int) []string {
	t.Helper()
	acc := apitest.Object(t, apitest.Must(t, c.Do("POST", "/api/accounts", map[string]any{"name": "Main", "currency": "USD"}), 201), "account")["id"].(string)
	var ids []string
	for i := range n {
		r := apitest.Must(t, c.Do("POST", "/api/positions", map[string]any{"accountId": acc, "symbol": fmt.Sprintf("S%d", i), "assetType": "stock", "side": "long",
			"fills": []any{map[string]any{"type": "entry", "price": "10", "quantity": "1", "filledAt": "2025-01-02T15:00:00Z"}}}), 201)
		ids = append(ids, apitest.Object(t, r, "position")["id"].(string))
	}
	return ids
}

// image stores an inline image of size bytes on the position.
func image(t *testing.T, srv *apitest.Server, positionID string, size int) {
	t.Helper()
	exec(t, srv, `INSERT INTO position_images (user_id, position_id, content_type, size_bytes, data)
		SELECT user_id, id, 'image/png', $2, '\x00' FROM positions WHERE id = $1`, positionID, size)
}

func TestDetailAndPeriodAccess(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	user, u := signIn(t, srv, "user@example.com", false)
	cases := []apitest.Case{
		{Name: "Detail", Method: "GET", Path: usersPath + "/" + u.ID},
		{Name: "UsagePeriod", Method: "GET", Path: usagePath + "?from=2025-01-01&to=2025-01-31"},
		{Name: "TopUsers", Method: "GET", Path: usagePath + "/top-users?by=storage"},
	}
	for i := range cases {
		cases[i].Status, cases[i].Code = 403, "ADMIN_REQUIRED"
	}
	apitest.Run(t, user, cases)
	for i := range cases {
		cases[i].Status, cases[i].Code = 401, "UNAUTHENTICATED"
	}
	apitest.Run(t, srv.Client(t), cases)
}

func TestUserDetail(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	adm, _ := signIn(t, srv, "admin@example.com", true)
	user, u := signIn(t, srv, "user@example.com", false)
	if _, r := login(t, srv, "user@example.com", "password1"); r.Status != 200 { // a second browser
		t.Fatalf("login %s", r.Body)
	}
	ids := journal(t, user, 2)
	image(t, srv, ids[0], 1500)
	exec(t, srv, `INSERT INTO csv_imports (user_id, committed_at) VALUES ($1, now() - interval '1 day'), ($1, now())`, u.ID)
	exec(t, srv, `INSERT INTO sign_in_failures (user_id, failed, last_failed_at, notice) VALUES ($1, 3, now(), 2)`, u.ID)
	exec(t, srv, `INSERT INTO billing_subscriptions (subscription_id, user_id, status, current_period_end, last_event_at, updated_at)
		VALUES ('sub_1', $1, 'active', now() + interval '10 days', now(), now())`, u.ID)

	apitest.Run(t, adm, []apitest.Case{
		{Name: "Unknown", Method: "GET", Path: usersPath + "/00000000-0000-4000-8000-000000000000", Status: 404},
		{Name: "Malformed", Method: "GET", Path: usersPath + "/nope", Status: 404},
	})
	r := apitest.Must(t, adm.Do("GET", usersPath+"/"+u.ID, nil), 200)
	d := apitest.Object(t, r, "user")
	if d["user"].(map[string]any)["email"] != "user@example.com" || d["plan"].(map[string]any)["plan"] != "pro" ||
		d["subscription"].(map[string]any)["status"] != "active" {
		t.Fatalf("detail %s", r.Body)
	}
	usage := d["usage"].(map[string]any)
	for k, want := range map[string]float64{"accounts": 1, "archivedAccounts": 0, "positions": 2, "fills": 2, "images": 1, "storageBytes": 1500, "imports": 2} {
		if usage[k] != want {
			t.Errorf("usage %s = %v, want %v", k, usage[k], want)
		}
	}
	si := d["signIns"].(map[string]any)
	if si["failedSinceLastSignIn"] != float64(3) || si["failedBeforeLastSignIn"] != float64(2) || si["lastSignInAt"] == nil {
		t.Errorf("sign-ins %v", si)
	}
	// Each of the two sessions was a sign-in of the history.
	if recent := si["recent"].([]any); len(recent) != 2 || recent[0].(map[string]any)["succeeded"] != true {
		t.Errorf("sign-in history %v", recent)
	}
	if n := len(d["sessions"].([]any)); n != 2 {
		t.Errorf("%d sessions", n)
	}
	if n := len(d["imports"].([]any)); n != 2 {
		t.Errorf("%d imports", n)
	}
	for _, secret := range []string{"password", "hash", "token", "secret"} {
		if strings.Contains(strings.ToLower(string(r.Body)), secret) {
			t.Errorf("the detail names %q: %s", secret, r.Body)
		}
	}
}

func TestUsagePeriod(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	adm, admin := signIn(t, srv, "admin@example.com", true)
	jan := time.Date(2025, 1, 15, 12, 0, 0, 0, time.UTC)
	feb := jan.AddDate(0, 1, 0)
	exec(t, srv, `UPDATE users SET created_at = $1 WHERE id = $2`, jan, admin.ID)
	exec(t, srv, `INSERT INTO billing_purchases (checkout_session_id, user_id, pack_id, credits, amount_minor, currency, event_id, created_at) VALUES
		('cs_1', $1, 'starter', 5, 500, 'USD', 'evt_1', $2), ('cs_2', $1, 'pro', 5, 2000, 'USD', 'evt_2', $2),
		('cs_3', $1, 'starter', 5, 450, 'EUR', 'evt_3', $2), ('cs_4', $1, 'starter', 5, 999, 'USD', 'evt_4', $3),
		('cs_5', $1, 'starter', 5, NULL, NULL, 'evt_5', $2)`, admin.ID, jan, feb)
	exec(t, srv, `INSERT INTO deleted_account_payments (checkout_session_id, pack_id, credits, amount_minor, currency, event_id, paid_at, account_deleted_at)
		VALUES ('cs_gone', 'starter', 5, 300, 'USD', 'evt_6', $1, $2)`, jan, feb)
	exec(t, srv, `INSERT INTO billing_invoice_payments (invoice_id, user_id, subscription_id, amount_minor, currency, event_id, paid_at)
		VALUES ('in_1', $1, 'sub_1', 1200, 'USD', 'evt_7', $2)`, admin.ID, jan)
	exec(t, srv, `INSERT INTO csv_imports (user_id, committed_at) VALUES ($1, $2), ($1, $3)`, admin.ID, jan, feb)

	r := apitest.Must(t, adm.Do("GET", usagePath+"?from=2025-01-01&to=2025-01-31", nil), 200)
	p := r.JSON["period"].(map[string]any)
	if p["from"] != "2025-01-01" || p["to"] != "2025-01-31" || p["newUsers"] != float64(1) || p["imports"] != float64(1) {
		t.Fatalf("period %s", r.Body)
	}
	// Summed from the payment records: two pack purchases, a deleted
	// account's and a Pro invoice in USD; one in EUR; February's and a
	// record without an amount left out.
	if got := fmt.Sprint(p["revenue"]); got != "[map[amountMinor:450 currency:EUR payments:1] map[amountMinor:4000 currency:USD payments:4]]" {
		t.Fatalf("revenue %s", got)
	}
	if r.JSON["users"] != float64(1) {
		t.Fatalf("the figures of the instance are still there: %s", r.Body)
	}

	t.Run("Validation", func(t *testing.T) {
		apitest.Run(t, adm, []apitest.Case{
			{Name: "BadFrom", Method: "GET", Path: usagePath + "?from=2025-13-01", Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "Reversed", Method: "GET", Path: usagePath + "?from=2025-02-01&to=2025-01-01", Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "BadBy", Method: "GET", Path: usagePath + "/top-users?by=email", Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "BadCursor", Method: "GET", Path: usagePath + "/top-users?by=storage&cursor=nope", Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "BadLimit", Method: "GET", Path: usagePath + "/top-users?by=storage&limit=x", Status: 400, Code: "VALIDATION_ERROR"},
		})
	})
	t.Run("DefaultPeriodIsTheLast30Days", func(t *testing.T) {
		r := apitest.Must(t, adm.Do("GET", usagePath, nil), 200)
		p := r.JSON["period"].(map[string]any)
		today := time.Now().UTC().Format(time.DateOnly)
		if p["to"] != today || p["from"] != time.Now().UTC().AddDate(0, 0, -29).Format(time.DateOnly) || p["activeUsers"] != float64(1) {
			t.Fatalf("period %v", p)
		}
	})
}

// TestTopUsersPaging: both top lists page by cursor in order, with ties
// broken by id, and every user once.
func TestTopUsersPaging(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	adm, _ := signIn(t, srv, "admin@example.com", true)
	sizes := []int{500, 300, 300, 100, 50}
	for i, size := range sizes {
		c, _ := signIn(t, srv, fmt.Sprintf("u%d@example.com", i), false)
		ids := journal(t, c, len(sizes)-i)
		image(t, srv, ids[0], size)
	}
	for _, by := range []string{"storage", "activity"} {
		var (
			values []float64
			seen   = map[string]bool{}
			cursor string
		)
		for pages := 0; ; pages++ {
			if pages > 5 {
				t.Fatalf("%s: the cursor never ends", by)
			}
			r := apitest.Must(t, adm.Do("GET", usagePath+"/top-users?by="+by+"&limit=2&cursor="+cursor, nil), 200)
			for _, it := range apitest.Items(t, r) {
				m := it.(map[string]any)
				if seen[m["id"].(string)] {
					t.Fatalf("%s: %s twice", by, m["email"])
				}
				seen[m["id"].(string)] = true
				values = append(values, m["value"].(float64))
			}
			next, _ := r.JSON["nextCursor"].(string)
			if next == "" {
				break
			}
			cursor = next
		}
		want := "[500 300 300 100 50]"
		if by == "activity" {
			want = "[5 4 3 2 1]"
		}
		if fmt.Sprint(values) != want {
			t.Fatalf("%s: %v, want %s", by, values, want)
		}
	}
	// The usage answer carries each list's first page.
	r := apitest.Must(t, adm.Do("GET", usagePath, nil), 200)
	top := r.JSON["period"].(map[string]any)["topByStorage"].(map[string]any)
	if len(top["items"].([]any)) != 5 || top["nextCursor"] != nil {
		t.Fatalf("top by storage %v", top)
	}
}
