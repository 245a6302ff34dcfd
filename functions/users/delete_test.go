package users_test

import (
	"bytes"
	"context"
	"errors"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"testing"

	"github.com/jackc/pgx/v5"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/objectstore"
	"tradejournal/shared/objectstore/s3test"
)

var png = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 32)...)

// userRows counts the rows of userID in every table with a user_id
// column (whatever later migrations add), and in the tables that hang off
// the user's accounts and positions.
func userRows(t *testing.T, srv *apitest.Server, userID string, positions []string) map[string]int {
	t.Helper()
	ctx := context.Background()
	rows, err := srv.App.DB.Query(ctx, `SELECT table_name FROM information_schema.columns
		WHERE table_schema = 'public' AND column_name = 'user_id'`)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(tables) < 15 {
		t.Fatalf("tables with user_id: %v %v", tables, err)
	}
	out := map[string]int{}
	for _, table := range tables {
		var n int
		if err := srv.App.DB.QueryRow(ctx, `SELECT count(*) FROM `+pgx.Identifier{table}.Sanitize()+` WHERE user_id = $1`, userID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[table] = n
	}
	for table, q := range map[string]string{
		"fills":          `SELECT count(*) FROM fills WHERE position_id = ANY($1::uuid[])`,
		"position_tags":  `SELECT count(*) FROM position_tags WHERE position_id = ANY($1::uuid[])`,
		"ledger_entries": `SELECT count(*) FROM ledger_entries WHERE position_id = ANY($1::uuid[])`,
	} {
		var n int
		if err := srv.App.DB.QueryRow(ctx, q, positions).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[table] = n
	}
	return out
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// TestDeleteAccount: with the password and the email typed again, every
// row of the user goes, in every table, their images leave the bucket,
// every session ends, and the pack purchase stays without the user;
// another user's journal stays whole. Wrong confirmations, a running
// subscription and the last admin are refused and delete nothing.
func TestDeleteAccount(t *testing.T) {
	minio := s3test.Start(t)
	cfg := apitest.Config(t)
	cfg.Storage = minio.Config()
	srv := apitest.Start(t, cfg, functions.All)
	ctx := context.Background()

	a := srv.Client(t)
	aID := a.Register("a@example.com", "password1").JSON["user"].(map[string]any)["id"].(string)
	other := srv.Client(t) // a's second device
	apitest.Must(t, other.Do("POST", "/api/auth/login", map[string]string{"email": "a@example.com", "password": "password1"}), 200)
	b := srv.Client(t)
	bID := b.Register("b@example.com", "password1").JSON["user"].(map[string]any)["id"].(string)

	var positions []string
	for _, c := range []*apitest.Client{a, b} {
		account := apitest.Object(t, apitest.Must(t, c.Do("POST", "/api/accounts", map[string]any{"name": "Main", "currency": "USD",
			"startingBalance": "1000"}), 201), "account")["id"].(string)
		apitest.Must(t, c.Do("POST", "/api/accounts/"+account+"/ledger", map[string]any{"kind": "deposit", "amount": "5",
			"occurredAt": "2025-01-01T00:00:00Z"}), 201)
		tag := apitest.Object(t, apitest.Must(t, c.Do("POST", "/api/tags", map[string]any{"name": "setup"}), 201), "tag")["id"].(string)
		p := apitest.Object(t, apitest.Must(t, c.Do("POST", "/api/positions", map[string]any{"accountId": account, "symbol": "AAPL",
			"assetType": "stock", "side": "long", "notes": "n", "tagIds": []string{tag}, "fills": []any{
				map[string]any{"type": "entry", "price": "10", "quantity": "5", "fees": "1", "filledAt": "2025-01-02T15:00:00Z"},
				map[string]any{"type": "exit", "price": "12", "quantity": "5", "fees": "1", "filledAt": "2025-01-03T15:00:00Z"}}}), 201), "position")["id"].(string)
		uploadImage(t, c, p)
		apitest.Must(t, c.Do("POST", "/api/exchange-rates", map[string]any{"baseCurrency": "EUR", "quoteCurrency": "USD",
			"effectiveDate": "2025-01-01", "rate": "1.1"}), 201)
		apitest.Must(t, c.Do("PUT", "/api/users/me/dashboard-layout", map[string]any{"widgets": []any{map[string]any{"id": "calendar", "size": "full"}}}), 200)
		apitest.Must(t, c.Do("POST", "/api/users/me/saved-views", map[string]any{"name": "Mine", "query": "accountId=" + account}), 201)
		apitest.Must(t, c.Do("PUT", "/api/users/me/coach-marks/dashboard", nil), 204)
		if c == a {
			positions = append(positions, p)
		}
	}
	// What the payment webhook and the mailer would have written for a.
	for _, q := range []string{
		`INSERT INTO wallets (user_id, balance) VALUES ($1, 500)`,
		`INSERT INTO wallet_transactions (user_id, kind, amount, balance_after, pack_id, reference) VALUES ($1, 'purchase', 500, 500, 'small', 'cs_1')`,
		`INSERT INTO billing_customers (user_id, customer_id) VALUES ($1, 'cus_1')`,
		`INSERT INTO billing_purchases (checkout_session_id, user_id, pack_id, credits, amount_minor, currency, event_id, created_at)
			VALUES ('cs_1', $1, 'small', 500, 499, 'USD', 'evt_1', now())`,
		`INSERT INTO email_outbox (to_address, subject, body) SELECT email, 's', 'b' FROM users WHERE id = $1`,
	} {
		if _, err := srv.App.DB.Exec(ctx, q, aID); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var key string
	if err := srv.App.DB.QueryRow(ctx, `SELECT storage_key FROM position_images WHERE user_id = $1`, aID).Scan(&key); err != nil {
		t.Fatal(err)
	}
	before := userRows(t, srv, aID, positions)
	if before["accounts"] != 1 || before["position_images"] != 1 || before["sessions"] != 2 || before["wallet_transactions"] != 1 ||
		before["fills"] != 2 || before["ledger_entries"] != 3 || before["dashboard_layouts"] != 1 || before["saved_views"] != 1 ||
		before["coach_marks_seen"] != 1 {
		t.Fatalf("the fixture lacks rows: %v", before)
	}
	bBefore := total(userRows(t, srv, bID, nil))

	del := func(c *apitest.Client, password, email string) apitest.Response {
		return c.Do("DELETE", "/api/users/me", map[string]any{"password": password, "confirmEmail": email})
	}
	for _, tc := range []struct {
		name, password, email string
		status                int
		code                  string
		prepare               string // SQL run first, with a's id
	}{
		{name: "WrongPassword", password: "password2", email: "a@example.com", status: 400, code: "VALIDATION_ERROR"},
		{name: "WrongEmail", password: "password1", email: "b@example.com", status: 400, code: "VALIDATION_ERROR"},
		{name: "NoPassword", email: "a@example.com", status: 400, code: "VALIDATION_ERROR"},
		{name: "RunningSubscription", password: "password1", email: "A@Example.com ", status: 409, code: "SUBSCRIPTION_ACTIVE",
			prepare: `INSERT INTO billing_subscriptions (subscription_id, user_id, status, last_event_at, updated_at)
				VALUES ('sub_1', $1, 'active', now(), now())`},
		{name: "LastAdmin", password: "password1", email: "a@example.com", status: 409, code: "CONFLICT",
			prepare: `WITH s AS (UPDATE billing_subscriptions SET cancel_at_period_end = true WHERE user_id = $1)
				UPDATE users SET is_admin = true WHERE id = $1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.prepare != "" {
				if _, err := srv.App.DB.Exec(ctx, tc.prepare, aID); err != nil {
					t.Fatal(err)
				}
			}
			r := del(a, tc.password, tc.email)
			if r.Status != tc.status || r.ErrorCode() != tc.code {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
			apitest.CheckErrorShape(t, r)
			after := userRows(t, srv, aID, positions)
			if tc.name == "RunningSubscription" {
				after["billing_subscriptions"]--
			}
			if tc.name == "LastAdmin" {
				after["billing_subscriptions"]--
			}
			if total(after) != total(before) {
				t.Fatalf("rows went: %v, before %v", after, before)
			}
		})
	}
	if _, err := srv.App.DB.Exec(ctx, `UPDATE users SET is_admin = true WHERE id = $1`, bID); err != nil {
		t.Fatal(err)
	}

	t.Run("Deleted", func(t *testing.T) {
		r := apitest.Must(t, del(a, "password1", "a@example.com"), 204)
		cleared := false
		for _, c := range (&http.Response{Header: r.Header}).Cookies() {
			cleared = cleared || c.Value == "" && c.MaxAge < 0
		}
		if !cleared {
			t.Fatalf("session cookie not cleared: %v", r.Header)
		}
		if got := userRows(t, srv, aID, positions); total(got) != 0 {
			t.Fatalf("rows left: %v", got)
		}
		for _, c := range []*apitest.Client{a, other} {
			apitest.Must(t, c.Do("GET", "/api/auth/me", nil), 401)
		}
		apitest.Must(t, srv.Client(t).Do("POST", "/api/auth/login", map[string]string{"email": "a@example.com", "password": "password1"}), 401)
		var users, mails, queued int
		if err := srv.App.DB.QueryRow(ctx, `SELECT (SELECT count(*) FROM users WHERE id = $1),
			(SELECT count(*) FROM email_outbox WHERE to_address = 'a@example.com'), (SELECT count(*) FROM object_deletions)`, aID).
			Scan(&users, &mails, &queued); err != nil || users+mails+queued != 0 {
			t.Fatalf("users %d, mails %d, queued objects %d (%v)", users, mails, queued, err)
		}
		if _, _, err := srv.App.Objects.Get(ctx, key); !errors.Is(err, objectstore.ErrNotFound) {
			t.Fatalf("the image's object is still in the bucket: %v", err)
		}
	})
	t.Run("PaymentRecordKeptWithoutTheUser", func(t *testing.T) {
		var pack string
		var credits, amount int64
		err := srv.App.DB.QueryRow(ctx, `SELECT pack_id, credits, amount_minor FROM deleted_account_payments WHERE checkout_session_id = 'cs_1'`).
			Scan(&pack, &credits, &amount)
		if err != nil || pack != "small" || credits != 500 || amount != 499 {
			t.Fatalf("payment record %s %d %d (%v)", pack, credits, amount, err)
		}
	})
	t.Run("OtherUserUntouched", func(t *testing.T) {
		if got := total(userRows(t, srv, bID, nil)); got != bBefore {
			t.Fatalf("b's rows %d, were %d", got, bBefore)
		}
		apitest.Must(t, b.Do("GET", "/api/auth/me", nil), 200)
	})
}

func uploadImage(t *testing.T, c *apitest.Client, positionID string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="chart.png"`)
	h.Set("Content-Type", "image/png")
	pw, _ := w.CreatePart(h)
	_, _ = pw.Write(png)
	_ = w.Close()
	req := c.NewRequest("POST", "/api/positions/"+positionID+"/images", buf.String())
	req.Header.Set("Content-Type", w.FormDataContentType())
	apitest.Must(t, c.Send(req), 201)
}
