package backup_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/objectstore"
	"tradejournal/shared/objectstore/s3test"
)

var (
	pngBytes  = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{7}, 64)...)
	jpegBytes = append([]byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"), bytes.Repeat([]byte{9}, 64)...)
)

const ibFixed = "00000000-0000-4000-8000-000000000002"

// requests records the object store's PUTs and DELETEs by key.
type requests struct {
	mu            sync.Mutex
	puts, deletes []string
	next          http.RoundTripper
}

func (rq *requests) RoundTrip(r *http.Request) (*http.Response, error) {
	rq.mu.Lock()
	switch r.Method {
	case "PUT":
		rq.puts = append(rq.puts, r.URL.Path)
	case "DELETE":
		rq.deletes = append(rq.deletes, r.URL.Path)
	}
	rq.mu.Unlock()
	return rq.next.RoundTrip(r)
}

// fixture is a server with object storage (a real MinIO) whose requests
// are recorded, on a fixed clock.
type fixture struct {
	srv     *apitest.Server
	objects *requests
}

var testNow = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func setup(t *testing.T) *fixture {
	t.Helper()
	minio := s3test.Start(t)
	cfg := apitest.Config(t)
	cfg.Storage = minio.Config()
	srv := apitest.StartAt(t, cfg, func() time.Time { return testNow }, functions.All)
	rec := &requests{next: http.DefaultTransport}
	objects, err := objectstore.New(minio.Config(), &http.Client{Transport: rec})
	if err != nil || objects == nil {
		t.Fatalf("object store: %v", err)
	}
	srv.App.Objects = objects // before any request: the handlers read it per request
	return &fixture{srv: srv, objects: rec}
}

func (f *fixture) user(t *testing.T, email string) (*apitest.Client, string) {
	t.Helper()
	c := f.srv.Client(t)
	r := c.Register(email, "password1")
	return c, r.JSON["user"].(map[string]any)["id"].(string)
}

func id(t *testing.T, r apitest.Response, key string) string {
	t.Helper()
	return apitest.Object(t, r, key)["id"].(string)
}

func fill(typ, price, qty, fees, at string) map[string]any {
	m := map[string]any{"type": typ, "price": price, "quantity": qty, "filledAt": at}
	if fees != "" {
		m["fees"] = fees
	}
	return m
}

// journal builds a journal with one of everything a backup holds: a fee
// schedule of its own and a built-in one, two accounts with deposits and
// a withdrawal, tags, a stock trade with estimated fees, a stop, a target,
// notes, tags and two images, a reversal (a run of two positions, one fill
// split), an option, a future, a draft, two journal days (one with a mood
// and tags), exchange rates and settings. It
// returns the Main account's id.
func journal(t *testing.T, c *apitest.Client) string {
	t.Helper()
	brokerage := id(t, apitest.Must(t, c.Do("POST", "/api/brokerages", map[string]any{"name": "My broker",
		"stockPerShareCommission": "0.01", "stockMinPerFill": "1.5", "optionsPerContractCommission": "0.5"}), 201), "brokerage")
	main := id(t, apitest.Must(t, c.Do("POST", "/api/accounts", map[string]any{"name": "Main", "currency": "USD",
		"startingBalance": "10000", "brokerageId": brokerage, "defaultRiskPercent": "1.5", "timezone": "America/Chicago"}), 201), "account")
	euro := id(t, apitest.Must(t, c.Do("POST", "/api/accounts", map[string]any{"name": "Euro", "currency": "EUR",
		"startingBalance": "5000.25", "brokerageId": ibFixed}), 201), "account")
	for _, e := range []map[string]any{
		{"kind": "deposit", "amount": "2500", "occurredAt": "2025-01-02T10:00:00Z", "note": "bonus"},
		{"kind": "withdrawal", "amount": "300.5", "occurredAt": "2025-02-02T10:00:00Z"},
	} {
		apitest.Must(t, c.Do("POST", "/api/accounts/"+main+"/ledger", e), 201)
	}
	apitest.Must(t, c.Do("POST", "/api/accounts/"+euro+"/ledger", map[string]any{"kind": "deposit", "amount": "10",
		"occurredAt": "2025-03-01T00:00:00Z"}), 201)
	breakout := id(t, apitest.Must(t, c.Do("POST", "/api/tags", map[string]any{"name": "Breakout", "category": "setup"}), 201), "tag")
	fomo := id(t, apitest.Must(t, c.Do("POST", "/api/tags", map[string]any{"name": "FOMO", "category": "emotion"}), 201), "tag")
	aapl := id(t, apitest.Must(t, c.Do("POST", "/api/positions", map[string]any{"accountId": main, "symbol": "AAPL",
		"assetType": "stock", "side": "long", "stopLoss": "180", "targetPrice": "200", "notes": "waited for the retest",
		"tagIds": []string{breakout, fomo},
		"fills": []any{fill("entry", "185.5", "100", "", "2025-01-06T15:30:00Z"), fill("exit", "190.25", "60", "1", "2025-01-07T15:30:00Z"),
			fill("exit", "188", "40", "", "2025-01-08T15:30:00.123456Z")}}), 201), "position")
	apitest.Must(t, c.Do("PATCH", "/api/positions/"+aapl, map[string]any{"maePrice": "183.1", "mfePrice": "191.4"}), 200)
	for name, data := range map[string][]byte{"a": pngBytes, "b": jpegBytes} {
		apitest.Must(t, upload(t, c, "/api/positions/"+aapl+"/images", data, "chart "+name), 201)
	}
	// The sell of 15 reverses the long 10 into a short 5, which a buy
	// closes; the short gets a stop of its own.
	msft := apitest.Must(t, c.Do("POST", "/api/positions", map[string]any{"accountId": main, "symbol": "MSFT", "assetType": "stock",
		"side": "long", "fills": []any{fill("entry", "400", "10", "0.5", "2025-02-03T15:00:00Z"),
			fill("exit", "410", "15", "1.5", "2025-02-04T15:00:00Z")}}), 201)
	short := apitest.Object(t, msft, "changes")["opened"].([]any)[0].(string)
	apitest.Must(t, c.Do("PATCH", "/api/positions/"+short, map[string]any{"stopLoss": "415", "notes": "the flip"}), 200)
	apitest.Must(t, c.Do("PUT", "/api/positions/"+short+"/tags", map[string]any{"tagIds": []string{fomo}}), 200)
	apitest.Must(t, c.Do("POST", "/api/positions/"+short+"/fills", fill("exit", "405", "5", "0.25", "2025-02-05T15:00:00Z")), 201)
	call := id(t, apitest.Must(t, c.Do("POST", "/api/positions", map[string]any{"accountId": main, "symbol": "AAPL  250321C00190000",
		"assetType": "option", "side": "long", "fills": []any{fill("entry", "3.4", "2", "", "2025-03-03T15:00:00Z"),
			fill("exit", "4.1", "2", "1.3", "2025-03-04T15:00:00Z")}}), 201), "position")
	apitest.Must(t, c.Do("POST", "/api/strategies", map[string]any{"accountId": main, "positionIds": []string{aapl, call},
		"name": "Shares and a call", "plannedRisk": "250"}), 201)
	apitest.Must(t, c.Do("POST", "/api/positions", map[string]any{"accountId": main, "symbol": "ESH25", "assetType": "future",
		"side": "short", "fills": []any{fill("entry", "6000.25", "1", "2.04", "2025-02-10T15:00:00Z"),
			fill("exit", "5990.5", "1", "2.04", "2025-02-11T15:00:00Z")}}), 201)
	apitest.Must(t, c.Do("POST", "/api/positions", map[string]any{"accountId": main, "symbol": "NVDA", "assetType": "stock",
		"side": "long", "fills": []any{fill("entry", "120", "10", "1", "2025-04-01T15:00:00Z")}}), 201)
	apitest.Must(t, c.Do("POST", "/api/positions", map[string]any{"accountId": euro, "symbol": "SAP", "assetType": "stock",
		"side": "short", "notes": "idea only"}), 201)
	apitest.Must(t, c.Do("POST", "/api/exchange-rates", map[string]any{"baseCurrency": "EUR", "quoteCurrency": "USD",
		"effectiveDate": "2025-01-01", "rate": "1.0832"}), 201)
	apitest.Must(t, c.Do("PUT", "/api/journal/days/2025-01-06", map[string]any{"plan": "Only the AAPL retest", "review": "Waited; good.",
		"notes": "# Day one\n- calm", "mood": 4, "tagIds": []string{fomo, breakout}}), 200)
	apitest.Must(t, c.Do("PUT", "/api/journal/days/2025-02-04", map[string]any{"plan": "", "review": "", "notes": "flipped MSFT",
		"tagIds": []string{}}), 200)
	apitest.Must(t, c.Do("PUT", "/api/users/me/display-currency", map[string]any{"currency": "EUR"}), 200)
	apitest.Must(t, c.Do("PUT", "/api/users/me/timezone", map[string]any{"timezone": "Europe/Berlin"}), 200)
	// Playbooks: the AAPL position follows one and met two of its three
	// criteria; another playbook, archived, is followed by none.
	book := apitest.Object(t, apitest.Must(t, c.Do("POST", "/api/playbooks", map[string]any{"name": "Breakout", "description": "range, then volume",
		"criteria": []any{map[string]any{"text": "Range"}, map[string]any{"text": "Volume"}, map[string]any{"text": "Retest"}}}), 201), "playbook")
	var crits []string
	for _, x := range book["criteria"].([]any) {
		crits = append(crits, x.(map[string]any)["id"].(string))
	}
	apitest.Must(t, c.Do("PUT", "/api/positions/"+aapl+"/playbook", map[string]any{"playbookId": book["id"],
		"criterionIds": []string{crits[2], crits[0]}}), 200)
	apitest.Must(t, c.Do("POST", "/api/playbooks", map[string]any{"name": "Old fade", "archived": true}), 201)
	apitest.Must(t, c.Do("POST", "/api/rules", map[string]any{"type": "maxTradesPerDay", "params": map[string]any{"count": 3}}), 201)
	apitest.Must(t, c.Do("POST", "/api/rules", map[string]any{"type": "maxDailyLoss", "params": map[string]any{"amount": "250.5"},
		"accountId": euro, "enabled": false}), 201)
	apitest.Must(t, c.Do("POST", "/api/rules", map[string]any{"type": "cooldownAfterLoss", "params": map[string]any{"minutes": 15},
		"weight": "critical", "tagId": fomo}), 201)
	// A prop-firm plan on the Euro account.
	apitest.Must(t, c.Do("PUT", "/api/accounts/"+euro+"/prop-firm", map[string]any{"phase": "evaluation", "startingBalance": "10000",
		"profitTarget": "1000", "timezone": "Europe/Prague", "dayStart": "00:00", "dailyLoss": map[string]any{"amount": "500", "basis": "equity"},
		"maxDrawdown": map[string]any{"amount": "1000", "kind": "trailingEndOfDay", "lockAt": "10000"}, "minTradingDays": 4, "warnAtPercent": 70}), 200)
	// Expenses: a category of the user's own on a monthly expense of the
	// Euro account from a month's end, a one-off, and a yearly one ended.
	coaching := apitest.Object(t, apitest.Must(t, c.Do("POST", "/api/expense-categories", map[string]any{"name": "Coaching"}), 201), "category")["id"]
	apitest.Must(t, c.Do("POST", "/api/expense-categories", map[string]any{"name": "Unused"}), 201)
	for _, e := range []map[string]any{
		{"amount": "150", "startDate": "2025-01-31", "recurrence": "monthly", "category": coaching, "accountId": euro, "note": "mentor"},
		{"amount": "1299.99", "currency": "USD", "startDate": "2025-02-14", "category": "hardware"},
		{"amount": "99", "currency": "USD", "startDate": "2023-03-01", "recurrence": "yearly", "endDate": "2024-12-31", "category": "data"},
	} {
		apitest.Must(t, c.Do("POST", "/api/expenses", e), 201)
	}
	// Tax settings: the user's jurisdiction, the Euro account's own with
	// no 1099-B, and a future's year-end mark.
	apitest.Must(t, c.Do("PUT", "/api/tax/settings", map[string]any{"jurisdiction": "us", "accounts": []any{
		map[string]any{"accountId": euro, "jurisdiction": "other", "basisReporting": "none"}}}), 200)
	apitest.Must(t, c.Do("PUT", "/api/tax/marks", map[string]any{"year": 2024, "marks": []any{
		map[string]any{"instrument": "ESH25", "price": "6050.25"}}}), 200)
	// The dashboard: a layout of the user's own and a saved view whose
	// filter names an account, a tag and a playbook.
	apitest.Must(t, c.Do("PUT", "/api/users/me/dashboard-layout", map[string]any{"widgets": []any{
		map[string]any{"id": "calendar", "size": "full"}, map[string]any{"id": "net-pnl", "size": "half"}}}), 200)
	apitest.Must(t, c.Do("POST", "/api/users/me/saved-views", map[string]any{"name": "Main breakouts",
		"query": "accountId=" + main + "&tagId=" + breakout + "," + fomo + "&playbookId=" + book["id"].(string) + "&from=2025-01-01"}), 201)
	return main
}

func upload(t *testing.T, c *apitest.Client, path string, data []byte, caption string) apitest.Response {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="chart"`)
	h.Set("Content-Type", "application/octet-stream")
	pw, _ := w.CreatePart(h)
	_, _ = pw.Write(data)
	_ = w.WriteField("caption", caption)
	_ = w.Close()
	req := c.NewRequest("POST", path, buf.String())
	req.Header.Set("Content-Type", w.FormDataContentType())
	return c.Send(req)
}

// snapshot is a user's journal as text lines without any id: what a
// restore must give back. References are by name (accounts, tags, fee
// schedules) or by a position's key (account, symbol, side, opening).
// marketsJournal adds forex and a CFD to journal's main account.
func marketsJournal(t *testing.T, c *apitest.Client, main string) {
	t.Helper()
	// Forex and a CFD: USD/JPY converted at its own price, EUR/GBP at the
	// rate the trader gave on its exit and still awaiting one for its
	// entry, a DAX CFD in euros at the stored EUR/USD rate.
	apitest.Must(t, c.Do("POST", "/api/positions", map[string]any{"accountId": main, "symbol": "USDJPY", "assetType": "forex",
		"side": "short", "stopLoss": "151.2", "fills": []any{fill("entry", "150.5", "25000", "1.25", "2025-02-12T08:00:00Z"),
			fill("exit", "149.75", "25000", "1.25", "2025-02-12T16:00:00Z")}}), 201)
	gbpExit := fill("exit", "0.8412", "100000", "0", "2025-02-13T16:00:00Z")
	gbpExit["rate"] = "1.2480"
	apitest.Must(t, c.Do("POST", "/api/positions", map[string]any{"accountId": main, "symbol": "EUR/GBP", "assetType": "forex",
		"side": "long", "fills": []any{fill("entry", "0.8390", "100000", "0", "2025-02-13T08:00:00Z"), gbpExit}}), 201)
	apitest.Must(t, c.Do("POST", "/api/positions", map[string]any{"accountId": main, "symbol": "GER40", "assetType": "cfd",
		"quoteCurrency": "EUR", "multiplier": "25", "side": "long", "fills": []any{fill("entry", "22000.5", "0.5", "0", "2025-02-14T08:00:00Z"),
			fill("exit", "22110", "0.5", "0", "2025-02-14T16:00:00Z")}}), 201)
}

func snapshot(t *testing.T, f *fixture, userID string) []string {
	t.Helper()
	const pos = `(SELECT ka.name || '|' || kp.symbol || '|' || kp.side || '|' || coalesce(kp.opened_at::text, 'draft')
		FROM positions kp JOIN accounts ka ON ka.id = kp.account_id WHERE kp.id = %s)`
	queries := []string{
		`SELECT 'user', timezone, display_currency FROM users WHERE id = $1`,
		`SELECT 'brokerage', name, stock_per_share_commission, stock_min_per_fill, stock_max_per_fill, options_per_contract_commission,
			options_per_contract_exchange_fee, options_min_per_fill, options_max_per_fill FROM brokerages WHERE user_id = $1`,
		`SELECT 'account', a.name, a.currency, a.timezone, a.starting_balance, a.balance, a.default_risk_percent, a.archived, a.demo,
			coalesce(b.name, '') FROM accounts a LEFT JOIN brokerages b ON b.id = a.brokerage_id WHERE a.user_id = $1`,
		`SELECT 'ledger', a.name, l.kind, l.amount, l.occurred_at, l.note, coalesce(` + strings.ReplaceAll(pos, "%s", "l.position_id") + `, '')
			FROM ledger_entries l JOIN accounts a ON a.id = l.account_id WHERE a.user_id = $1`,
		`SELECT 'tag', name, category, demo FROM tags WHERE user_id = $1`,
		`SELECT 'position', ` + strings.ReplaceAll(pos, "%s", "p.id") + `, p.asset_type, p.underlying, p.option_expiry, p.option_right,
			p.option_strike, p.contract_month, p.multiplier, p.status, p.stop_loss, p.target_price, p.notes, p.closed_at,
			p.entry_quantity, p.exit_quantity, p.open_quantity, p.avg_entry_price, p.avg_exit_price, p.gross_pnl, p.fees, p.net_pnl,
			p.initial_risk, p.r_multiple, coalesce(` + strings.ReplaceAll(pos, "%s", "p.reversal_of") + `, ''),
			(SELECT string_agg(t.name, ',' ORDER BY t.name) FROM position_tags pt JOIN tags t ON t.id = pt.tag_id WHERE pt.position_id = p.id),
			p.mae_price, p.mfe_price, p.base_currency, p.quote_currency, p.quote_gross_pnl, p.awaiting_rate
			FROM positions p WHERE p.user_id = $1`,
		`SELECT 'fill', ` + strings.ReplaceAll(pos, "%s", "f.position_id") + `, f.type, f.price, f.quantity, f.fees, f.fee_estimated,
			f.filled_at, f.split_of IS NOT NULL, f.rate, f.rate_given FROM fills f JOIN positions p ON p.id = f.position_id WHERE p.user_id = $1`,
		`SELECT 'image', ` + strings.ReplaceAll(pos, "%s", "i.position_id") + `, i.content_type, i.size_bytes, i.caption,
			i.storage_key IS NOT NULL FROM position_images i WHERE i.user_id = $1`,
		`SELECT 'rate', base_currency, quote_currency, effective_date, rate FROM exchange_rates WHERE user_id = $1`,
		`SELECT 'mapping', name, options FROM csv_import_mappings WHERE user_id = $1`,
		`SELECT 'strategy', a.name, s.name, s.planned_risk, s.created_at,
			(SELECT string_agg(` + strings.ReplaceAll(pos, "%s", "p.id") + `, ',' ORDER BY p.symbol) FROM positions p WHERE p.strategy_id = s.id)
			FROM strategies s JOIN accounts a ON a.id = s.account_id WHERE s.user_id = $1`,
		`SELECT 'journal day', j.day, j.plan, j.review, j.notes, j.mood, j.created_at, j.updated_at,
			(SELECT string_agg(t.name, ',' ORDER BY t.name) FROM journal_day_tags dt JOIN tags t ON t.id = dt.tag_id
				WHERE dt.user_id = j.user_id AND dt.day = j.day)
			FROM journal_days j WHERE j.user_id = $1`,
		`SELECT 'playbook', name, description, archived, (SELECT string_agg(c.sort_order || c.text, ',' ORDER BY c.sort_order)
			FROM playbook_criteria c WHERE c.playbook_id = b.id) FROM playbooks b WHERE b.user_id = $1`,
		`SELECT 'follows', ` + strings.ReplaceAll(pos, "%s", "p.id") + `, b.name, (SELECT string_agg(c.text, ',' ORDER BY c.text)
			FROM position_criteria pc JOIN playbook_criteria c ON c.id = pc.criterion_id WHERE pc.position_id = p.id)
			FROM positions p JOIN playbooks b ON b.id = p.playbook_id WHERE p.user_id = $1`,
		`SELECT 'rule', r.type, r.params, r.enabled, coalesce(a.name, ''), r.weight, coalesce(t.name, ''), r.created_at FROM trading_rules r
			LEFT JOIN accounts a ON a.id = r.account_id LEFT JOIN tags t ON t.id = r.tag_id WHERE r.user_id = $1`,
		`SELECT 'prop firm', a.name, p.phase, p.plan, p.created_at FROM prop_firm_plans p JOIN accounts a ON a.id = p.account_id WHERE p.user_id = $1`,
		`SELECT 'expense category', name, created_at FROM expense_categories WHERE user_id = $1`,
		`SELECT 'tax', tax_jurisdiction FROM users WHERE id = $1`,
		`SELECT 'account tax', name, tax_jurisdiction, tax_basis_reporting FROM accounts WHERE user_id = $1`,
		`SELECT 'tax mark', year, instrument, price FROM tax_year_end_marks WHERE user_id = $1`,
		`SELECT 'bar upload', symbol, step_seconds, bar_count, first_at, last_at, uploaded_at FROM bar_uploads WHERE user_id = $1`,
		`SELECT 'uploaded bar', symbol, at, open, high, low, close, volume FROM uploaded_bars WHERE user_id = $1`,
		`SELECT 'layout', widgets::text FROM dashboard_layouts WHERE user_id = $1`,
		// A view's filter names records by id: compared by their names.
		`SELECT 'view', v.name, (SELECT string_agg(coalesce(a.name, t.name, b.name, x), ',' ORDER BY coalesce(a.name, t.name, b.name, x))
			FROM regexp_split_to_table(v.query, '[=&,]|%2C') x LEFT JOIN accounts a ON a.id::text = x LEFT JOIN tags t ON t.id::text = x
				LEFT JOIN playbooks b ON b.id::text = x) FROM saved_views v WHERE v.user_id = $1`,
		`SELECT 'expense', coalesce(k.name, e.category), coalesce(a.name, ''), e.amount, e.currency, e.note, e.start_on, e.recurrence,
			e.end_on, e.next_charge_on, e.created_at,
			(SELECT string_agg(c.charge_on || ' ' || c.amount || ' ' || c.currency, ',' ORDER BY c.charge_on) FROM expense_charges c
				WHERE c.expense_id = e.id)
			FROM expenses e LEFT JOIN expense_categories k ON k.id = e.category_id LEFT JOIN accounts a ON a.id = e.account_id
			WHERE e.user_id = $1`,
	}
	var out []string
	for _, q := range queries {
		rows, err := f.srv.App.DB.Query(context.Background(), q, userID)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				t.Fatal(err)
			}
			var line []string
			for _, v := range vals {
				line = append(line, text(v))
			}
			out = append(out, strings.Join(line, " | "))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(out)
	return out
}

func text(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case time.Time:
		return v.UTC().Format(time.RFC3339Nano)
	}
	return fmt.Sprint(v)
}

// owned counts the rows of every table with a user_id column that are
// userID's, and of the tables that hang off an account or a position.
func owned(t *testing.T, f *fixture, userID string) map[string]int {
	t.Helper()
	ctx := context.Background()
	rows, err := f.srv.App.DB.Query(ctx, `SELECT table_name FROM information_schema.columns
		WHERE table_schema = 'public' AND column_name = 'user_id' ORDER BY table_name`)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, table := range tables {
		var n int
		if err := f.srv.App.DB.QueryRow(ctx, `SELECT count(*) FROM `+pgx.Identifier{table}.Sanitize()+` WHERE user_id = $1`, userID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[table] = n
	}
	for table, q := range map[string]string{
		"ledger_entries": `SELECT count(*) FROM ledger_entries l JOIN accounts a ON a.id = l.account_id WHERE a.user_id = $1`,
		"fills":          `SELECT count(*) FROM fills f JOIN positions p ON p.id = f.position_id WHERE p.user_id = $1`,
		"position_tags":  `SELECT count(*) FROM position_tags pt JOIN positions p ON p.id = pt.position_id WHERE p.user_id = $1`,
	} {
		var n int
		if err := f.srv.App.DB.QueryRow(ctx, q, userID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[table] = n
	}
	return out
}

// download fetches the user's backup archive.
func download(t *testing.T, c *apitest.Client) []byte {
	t.Helper()
	r := apitest.Must(t, c.Do("GET", "/api/backup/archive", nil), 200)
	if r.Header.Get("Content-Type") != "application/zip" || !strings.Contains(r.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("headers %v", r.Header)
	}
	return r.Body
}

func restore(t *testing.T, c *apitest.Client, archive []byte) apitest.Response {
	t.Helper()
	req := c.NewRequest("POST", "/api/backup/restore", string(archive))
	req.Header.Set("Content-Type", "application/zip")
	return c.Send(req)
}

// rezip copies an archive, passing each entry's bytes through change
// (which may return nil to drop the entry), and keeps its manifest.
func rezip(t *testing.T, archive []byte, change func(name string, data []byte) []byte) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, zf := range zr.File {
		rc, err := zf.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(rc)
		rc.Close()
		if data = change(zf.Name, data); data == nil {
			continue
		}
		w, _ := zw.Create(zf.Name)
		_, _ = w.Write(data)
	}
	_ = zw.Close()
	return buf.Bytes()
}
