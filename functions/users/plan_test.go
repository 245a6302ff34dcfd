package users_test

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"strings"
	"sync"
	"testing"
	"time"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
)

const planPath = "/api/users/me/plan"

// limits reads the plan's limits by name.
func limits(t *testing.T, c *apitest.Client) (string, map[string]map[string]any) {
	t.Helper()
	r := apitest.Must(t, c.Do("GET", planPath, nil), 200)
	out := map[string]map[string]any{}
	for _, l := range r.JSON["limits"].([]any) {
		m := l.(map[string]any)
		out[m["name"].(string)] = m
	}
	return r.JSON["plan"].(string), out
}

func refused(t *testing.T, r apitest.Response, words string) {
	t.Helper()
	apitest.Must(t, r, 403)
	if r.ErrorCode() != "PLAN_LIMIT_REACHED" || !strings.Contains(apitest.Object(t, r, "error")["message"].(string), words) {
		t.Fatalf("want PLAN_LIMIT_REACHED saying %q, got %s", words, r.Body)
	}
	apitest.CheckErrorShape(t, r)
}

func newPosition(c *apitest.Client, account, symbol string) apitest.Response {
	return c.Do("POST", "/api/positions", map[string]any{"accountId": account, "symbol": symbol, "assetType": "stock", "side": "long",
		"fills": []any{map[string]any{"type": "entry", "price": "10", "quantity": "1", "filledAt": "2025-01-02T15:00:00Z"}}})
}

func account(t *testing.T, c *apitest.Client, name string, archived bool) apitest.Response {
	t.Helper()
	return c.Do("POST", "/api/accounts", map[string]any{"name": name, "currency": "USD", "startingBalance": "1000", "archived": archived})
}

func id(t *testing.T, r apitest.Response, key string) string {
	t.Helper()
	return apitest.Object(t, r, key)["id"].(string)
}

// subscribe records a Pro subscription of the user as the billing webhook
// would: status, paid until end.
func subscribe(t *testing.T, srv *apitest.Server, email, status string, end time.Time) {
	t.Helper()
	const sql = `INSERT INTO billing_subscriptions (subscription_id, user_id, status, current_period_end, last_event_at, updated_at)
		SELECT 'sub_' || id::text, id, $2, $3, now(), now() FROM users WHERE email = $1
		ON CONFLICT (subscription_id) DO UPDATE SET status = $2, current_period_end = $3`
	if _, err := srv.App.DB.Exec(context.Background(), sql, email, status, end); err != nil {
		t.Fatal(err)
	}
}

func TestPlanUnlimitedByDefault(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	c := srv.Client(t)
	apitest.Must(t, c.Do("GET", planPath, nil), 401)
	apitest.Must(t, c.Register("free@example.com", "password1"), 201)
	acc := id(t, apitest.Must(t, account(t, c, "Main", false), 201), "account")
	for i := range 3 {
		apitest.Must(t, newPosition(c, acc, fmt.Sprintf("S%d", i)), 201)
	}
	plan, l := limits(t, c)
	if plan != "free" || len(l) != 4 || l["positions"]["used"] != float64(3) || l["accounts"]["used"] != float64(1) {
		t.Fatalf("plan %s %v", plan, l)
	}
	for name, m := range l {
		if m["limit"] != nil || m["freeLimit"] != nil {
			t.Fatalf("%s has a limit with no FREE_MAX_* set: %v", name, m)
		}
	}
}

func TestPlanLimits(t *testing.T) {
	cfg := apitest.Config(t)
	cfg.Plans.Accounts, cfg.Plans.Positions, cfg.Plans.StorageBytes = 2, 3, 100
	srv := apitest.Start(t, cfg, functions.All)
	c := srv.Client(t)
	apitest.Must(t, c.Register("free@example.com", "password1"), 201)
	other := srv.Client(t)
	apitest.Must(t, other.Register("other@example.com", "password1"), 201)

	var acc, second string
	t.Run("Accounts", func(t *testing.T) {
		acc = id(t, apitest.Must(t, account(t, c, "Main", false), 201), "account")
		second = id(t, apitest.Must(t, account(t, c, "Second", false), 201), "account")
		refused(t, account(t, c, "Third", false), "The free plan allows 2 active accounts and you have 2. Archive or delete an account")
		// An archived account is not a writable one: it may be created, and
		// taken out of the archive only when there is room.
		old := id(t, apitest.Must(t, account(t, c, "Old", true), 201), "account")
		refused(t, c.Do("PATCH", "/api/accounts/"+old, map[string]any{"archived": false}), "active accounts")
		// Saving an active account again with archived false is no new one.
		apitest.Must(t, c.Do("PATCH", "/api/accounts/"+second, map[string]any{"archived": false, "name": "Second!"}), 200)
		apitest.Must(t, c.Do("PATCH", "/api/accounts/"+second, map[string]any{"archived": true}), 200)
		apitest.Must(t, c.Do("PATCH", "/api/accounts/"+old, map[string]any{"archived": false}), 200)
		// Another user's count is their own.
		apitest.Must(t, account(t, other, "A", false), 201)
		apitest.Must(t, account(t, other, "B", false), 201)
	})

	t.Run("PositionsAtTheEdge", func(t *testing.T) {
		apitest.Must(t, newPosition(c, acc, "A"), 201)
		apitest.Must(t, newPosition(c, acc, "B"), 201)
		last := id(t, apitest.Must(t, newPosition(c, acc, "C"), 201), "position")
		refused(t, newPosition(c, acc, "D"), "The free plan allows 3 positions and this would make 4")
		// A fill that crosses zero opens a reversal: a new position too.
		refused(t, c.Do("POST", "/api/positions/"+last+"/fills", map[string]any{"type": "exit", "price": "11", "quantity": "2", "filledAt": "2025-01-03T15:00:00Z"}),
			"this would make 4")
		// Nothing of the refused writes was kept.
		if _, l := limits(t, c); l["positions"]["used"] != float64(3) || l["positions"]["limit"] != float64(3) {
			t.Fatalf("positions %v", l["positions"])
		}
		// A fill that does not add a position is no growth.
		apitest.Must(t, c.Do("POST", "/api/positions/"+last+"/fills", map[string]any{"type": "exit", "price": "11", "quantity": "1", "filledAt": "2025-01-03T15:00:00Z"}), 201)
	})

	t.Run("ProLiftsThem", func(t *testing.T) {
		subscribe(t, srv, "free@example.com", "active", time.Now().Add(24*time.Hour))
		plan, l := limits(t, c)
		if plan != "pro" || l["positions"]["limit"] != nil || l["positions"]["freeLimit"] != float64(3) {
			t.Fatalf("plan %s %v", plan, l)
		}
		apitest.Must(t, newPosition(c, acc, "D"), 201)
		apitest.Must(t, newPosition(c, acc, "E"), 201)
		apitest.Must(t, account(t, c, "Third", false), 201)
		// A past-due subscription grants nothing.
		subscribe(t, srv, "free@example.com", "past_due", time.Now().Add(24*time.Hour))
		refused(t, newPosition(c, acc, "F"), "this would make 6")
	})

	t.Run("OverLimitStaysReadable", func(t *testing.T) {
		subscribe(t, srv, "free@example.com", "canceled", time.Now().Add(-time.Hour))
		if plan, l := limits(t, c); plan != "free" || l["positions"]["used"] != float64(5) || l["accounts"]["used"] != float64(3) {
			t.Fatalf("plan %s %v", plan, l)
		}
		list := apitest.Must(t, c.Do("GET", "/api/positions", nil), 200)
		if n := len(apitest.Items(t, list)); n != 5 {
			t.Fatalf("%d positions listed", n)
		}
		p := apitest.Items(t, list)[0].(map[string]any)["id"].(string)
		apitest.Must(t, c.Do("GET", "/api/positions/"+p, nil), 200)
		apitest.Must(t, c.Do("PATCH", "/api/positions/"+p, map[string]any{"notes": "still mine"}), 200)
		apitest.Must(t, c.Do("GET", "/api/backup/positions.csv", nil), 200)
		apitest.Must(t, c.Do("GET", "/api/backup/archive", nil), 200)
		refused(t, newPosition(c, acc, "G"), "Delete positions you no longer need")
		refused(t, account(t, c, "Fourth", false), "you have 3")
		// Deleting makes room again, down to the limit.
		for _, it := range apitest.Items(t, list)[:3] {
			apitest.Must(t, c.Do("DELETE", "/api/positions/"+it.(map[string]any)["id"].(string), nil), 204)
		}
		apitest.Must(t, newPosition(c, acc, "G"), 201)
		refused(t, newPosition(c, acc, "H"), "this would make 4")
	})

	t.Run("ImageStorage", func(t *testing.T) {
		acc := apitest.Items(t, apitest.Must(t, other.Do("GET", "/api/accounts", nil), 200))[0].(map[string]any)["id"].(string)
		p := id(t, apitest.Must(t, newPosition(other, acc, "IMG"), 201), "position")
		img := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 44)...) // 60 bytes
		apitest.Must(t, sendImage(t, other, p, img), 201)
		refused(t, sendImage(t, other, p, img), "The free plan allows 100 bytes of images and you use 60 bytes; this image needs 20 bytes more")
		if _, l := limits(t, other); l["storageBytes"]["used"] != float64(60) {
			t.Fatalf("storage %v", l["storageBytes"])
		}
	})
}

// TestPlanConcurrentWrites: two creates at the last free place cannot both
// pass, however they interleave.
func TestPlanConcurrentWrites(t *testing.T) {
	cfg := apitest.Config(t)
	cfg.Plans.Positions, cfg.Plans.Accounts = 1, 1
	srv := apitest.Start(t, cfg, functions.All)
	c := srv.Client(t)
	apitest.Must(t, c.Register("free@example.com", "password1"), 201)
	for round := range 5 {
		var (
			wg       sync.WaitGroup
			statuses = make([]int, 2)
		)
		for i := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = account(t, c, fmt.Sprintf("R%d-%d", round, i), false).Status
			}()
		}
		wg.Wait()
		if fmt.Sprint(statuses) != "[201 403]" && fmt.Sprint(statuses) != "[403 201]" {
			t.Fatalf("round %d accounts: %v", round, statuses)
		}
		acc := apitest.Items(t, apitest.Must(t, c.Do("GET", "/api/accounts", nil), 200))[0].(map[string]any)["id"].(string)
		for i := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = newPosition(c, acc, fmt.Sprintf("R%dP%d", round, i)).Status
			}()
		}
		wg.Wait()
		if fmt.Sprint(statuses) != "[201 403]" && fmt.Sprint(statuses) != "[403 201]" {
			t.Fatalf("round %d positions: %v", round, statuses)
		}
		// Start again from none.
		apitest.Must(t, c.Do("DELETE", "/api/accounts/"+acc+"?confirm=true", nil), 204)
	}
}

func sendImage(t *testing.T, c *apitest.Client, positionID string, data []byte) apitest.Response {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	fw, err := w.CreateFormFile("file", "chart.png")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fw.Write(data)
	_ = w.Close()
	req := c.NewRequest("POST", "/api/positions/"+positionID+"/images", buf.String())
	req.Header.Set("Content-Type", w.FormDataContentType())
	return c.Send(req)
}
