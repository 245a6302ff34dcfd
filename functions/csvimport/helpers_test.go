package csvimport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/config"
)

const ibFixed = "00000000-0000-4000-8000-000000000002"

// clock is a test clock the App reads; tests move it.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// fixture is a server with two signed-in users, each with an account.
type fixture struct {
	srv        *apitest.Server
	clock      *clock
	a, b       *apitest.Client
	accountA   string
	accountB   string
	startingA  decimal.Decimal
	userA      string
	cookieA    string // the session cookie of a, "name=value"
	configured config.CSVImport
}

// setup starts the API on the test clock (2025-06-01) with cfg's import
// limits (nil: the defaults).
func setup(t *testing.T, limits func(*config.CSVImport)) *fixture {
	t.Helper()
	cfg := apitest.Config(t)
	if limits != nil {
		limits(&cfg.CSVImport)
	}
	c := &clock{t: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)}
	srv := apitest.StartAt(t, cfg, c.Now, functions.All)
	f := &fixture{srv: srv, clock: c, a: srv.Client(t), b: srv.Client(t), configured: cfg.CSVImport,
		startingA: decimal.NewFromInt(25000)}
	r := f.a.Register("a@example.com", "password1")
	f.userA = r.JSON["user"].(map[string]any)["id"].(string)
	cookies := (&http.Response{Header: r.Header}).Cookies()
	if len(cookies) == 0 {
		t.Fatal("no session cookie")
	}
	f.cookieA = cookies[0].Name + "=" + cookies[0].Value
	f.b.Register("b@example.com", "password1")
	f.accountA = apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/accounts", map[string]any{"name": "Main", "currency": "USD",
		"startingBalance": "25000"}), 201), "account")["id"].(string)
	f.accountB = apitest.Object(t, apitest.Must(t, f.b.Do("POST", "/api/accounts", map[string]any{"name": "B", "currency": "USD"}), 201), "account")["id"].(string)
	return f
}

// part is one part of a multipart body.
type part struct {
	name, filename string
	content        []byte
}

// multipartBody builds a multipart/form-data body of parts, in order.
func multipartBody(t testing.TB, parts ...part) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		if p.filename != "" {
			h.Set("Content-Disposition", `form-data; name="`+p.name+`"; filename="`+p.filename+`"`)
			h.Set("Content-Type", "text/csv")
		} else {
			h.Set("Content-Disposition", `form-data; name="`+p.name+`"`)
			h.Set("Content-Type", "application/json")
		}
		pw, err := w.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = pw.Write(p.content)
	}
	_ = w.Close()
	return w.FormDataContentType(), buf.Bytes()
}

func optionsPart(t testing.TB, opts map[string]any) part {
	raw, err := json.Marshal(opts)
	if err != nil {
		t.Fatal(err)
	}
	return part{name: "options", content: raw}
}

func filePart(data []byte) part { return part{name: "file", filename: "trades.csv", content: data} }

// send posts a multipart body to the preview.
func send(t testing.TB, c *apitest.Client, contentType string, body []byte) apitest.Response {
	t.Helper()
	req := c.NewRequest("POST", "/api/csv-import/preview", string(body))
	req.Header.Set("Content-Type", contentType)
	return c.Send(req)
}

// preview sends options and a file, in that order.
func preview(t testing.TB, c *apitest.Client, opts map[string]any, file []byte) apitest.Response {
	t.Helper()
	ct, body := multipartBody(t, optionsPart(t, opts), filePart(file))
	return send(t, c, ct, body)
}

func sample(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "shared", "brokerfile", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func commit(c *apitest.Client, token any, confirm bool) apitest.Response {
	return c.Do("POST", "/api/csv-import/commit", map[string]any{"token": token, "confirmDuplicates": confirm})
}

// counts are the rows an import may write; fills counts the fills a file
// holds (a reversal's fill once, not its opening part's row).
type counts struct{ positions, fills, ledger, staged int }

func (f *fixture) counts(t testing.TB) counts {
	t.Helper()
	var c counts
	err := f.srv.App.DB.QueryRow(context.Background(), `SELECT
		(SELECT count(*) FROM positions), (SELECT count(*) FROM fills WHERE split_of IS NULL),
		(SELECT count(*) FROM ledger_entries), (SELECT count(*) FROM csv_import_staging)`).Scan(&c.positions, &c.fills, &c.ledger, &c.staged)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// checkLedger holds every account's balance to its starting balance plus
// its ledger, and every position's figures to its fills' ledger rows.
func (f *fixture) checkLedger(t testing.TB) {
	t.Helper()
	var bad int
	err := f.srv.App.DB.QueryRow(context.Background(), `SELECT count(*) FROM accounts a
		WHERE a.balance <> a.starting_balance + coalesce((SELECT sum(amount) FROM ledger_entries l WHERE l.account_id = a.id), 0)`).Scan(&bad)
	if err != nil || bad != 0 {
		t.Fatalf("%d accounts off their ledger (%v)", bad, err)
	}
	err = f.srv.App.DB.QueryRow(context.Background(), `SELECT count(*) FROM positions p
		WHERE p.net_pnl <> coalesce((SELECT sum(amount) FROM ledger_entries l WHERE l.position_id = p.id), 0)`).Scan(&bad)
	if err != nil || bad != 0 {
		t.Fatalf("%d positions off their ledger (%v)", bad, err)
	}
}

func (f *fixture) balance(t testing.TB, account string) decimal.Decimal {
	t.Helper()
	var b decimal.Decimal
	if err := f.srv.App.DB.QueryRow(context.Background(), `SELECT balance FROM accounts WHERE id = $1`, account).Scan(&b); err != nil {
		t.Fatal(err)
	}
	return b
}

func errorCodes(r apitest.Response) []string {
	var out []string
	list, _ := r.JSON["errors"].([]any)
	for _, e := range list {
		out = append(out, e.(map[string]any)["code"].(string))
	}
	return out
}

func warningCodes(r apitest.Response) map[string]int {
	out := map[string]int{}
	list, _ := r.JSON["warnings"].([]any)
	for _, e := range list {
		out[e.(map[string]any)["code"].(string)]++
	}
	return out
}
