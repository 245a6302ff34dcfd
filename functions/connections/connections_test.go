package connections_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/brokerfake"
	"tradejournal/shared/config"
	"tradejournal/shared/encrypt"
	"tradejournal/shared/jobs"
)

// clock is a test's movable a.Now.
type clock struct{ at atomic.Pointer[time.Time] }

func (c *clock) now() time.Time          { return *c.at.Load() }
func (c *clock) set(t time.Time)         { c.at.Store(&t) }
func (c *clock) advance(d time.Duration) { c.set(c.now().Add(d)) }

const (
	flexToken = "887766554433221100998877"
	flexQuery = "1234567"
	apcaKey   = "PKTESTKEYID0001"
	apcaSec   = "alpaca-secret-key-of-the-tests"
	kraKey    = "KRAKEN-API-KEY-OF-THE-TESTS"
)

var kraPrivate = base64.StdEncoding.EncodeToString([]byte("kraken private key of the tests, sixty-four bytes long.........."))

// fixture is the API at a movable time with an encryption key, the three
// fake brokers behind their configured base URLs, and two users; a has a
// USD account in New York time.
type fixture struct {
	srv     *apitest.Server
	clock   *clock
	a, b    *apitest.Client
	account string
	flex    *brokerfake.Flex
	alpaca  *brokerfake.Alpaca
	kraken  *brokerfake.Kraken
}

func brokers(t *testing.T, cfg *config.Config) (*brokerfake.Flex, *brokerfake.Alpaca, *brokerfake.Kraken) {
	flex := &brokerfake.Flex{Token: flexToken, QueryID: flexQuery, Statement: brokerfake.FlexStatement("U1234567", aapl...)}
	alpaca := &brokerfake.Alpaca{KeyID: apcaKey, Secret: apcaSec}
	secret, _ := base64.StdEncoding.DecodeString(kraPrivate)
	kraken := &brokerfake.Kraken{APIKey: kraKey, Secret: secret, Trades: map[string]brokerfake.KrakenTrade{}}
	fs, as, ks := httptest.NewServer(flex), httptest.NewServer(alpaca), httptest.NewServer(kraken)
	t.Cleanup(func() { fs.Close(); as.Close(); ks.Close() })
	cfg.BrokerSync = config.BrokerSync{IBKRFlexURL: fs.URL, AlpacaURL: as.URL, KrakenURL: ks.URL}
	return flex, alpaca, kraken
}

func setup(t *testing.T) *fixture {
	t.Helper()
	c := &clock{}
	c.set(time.Date(2024, 2, 1, 12, 0, 0, 0, time.UTC))
	cfg := apitest.Config(t)
	cfg.Encryption.Key = bytes.Repeat([]byte{7}, 32)
	f := &fixture{clock: c}
	f.flex, f.alpaca, f.kraken = brokers(t, &cfg)
	f.srv = apitest.StartAt(t, cfg, c.now, functions.All)
	f.a, f.b = f.srv.Client(t), f.srv.Client(t)
	f.a.Register("a@example.com", "password1")
	f.b.Register("b@example.com", "password1")
	f.account = apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/accounts",
		map[string]any{"name": "IB", "currency": "USD", "startingBalance": "10000", "timezone": "America/New_York"}), 201), "account")["id"].(string)
	return f
}

var aapl = []brokerfake.FlexTrade{
	{ExecID: "0000e0d5.65ae1a2b.01.01", Symbol: "AAPL", Asset: "STK", BuySell: "BUY", OpenClose: "O", DateTime: "20240122;093512",
		Quantity: "100", Price: "193.12", Commission: "-1"},
	{ExecID: "0000e0d5.65ae1a2b.01.02", Symbol: "AAPL", Asset: "STK", BuySell: "SELL", OpenClose: "C", DateTime: "20240122;104103",
		Quantity: "-100", Price: "194.05", Commission: "-1.0023"},
}

var msft = brokerfake.FlexTrade{ExecID: "0000e0d5.65b3a011.01.01", Symbol: "MSFT", Asset: "STK", BuySell: "SELL", OpenClose: "O",
	DateTime: "20240126;101530", Quantity: "-50", Price: "397.8", Commission: "-1"}

func (f *fixture) connect(t *testing.T, c *apitest.Client, broker string, creds map[string]any) map[string]any {
	t.Helper()
	return apitest.Object(t, apitest.Must(t, c.Do("POST", "/api/connections",
		map[string]any{"broker": broker, "accountId": f.account, "credentials": creds}), 201), "connection")
}

func (f *fixture) connectIBKR(t *testing.T) string {
	t.Helper()
	return f.connect(t, f.a, "ibkr", map[string]any{"token": flexToken, "queryId": flexQuery})["id"].(string)
}

func (f *fixture) sync(t *testing.T, id string) map[string]any {
	t.Helper()
	return apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/connections/"+id+"/sync", nil), 200), "connection")
}

// fills counts a's fills (a reversal's two parts once).
func (f *fixture) fills(t *testing.T) int {
	t.Helper()
	var n int
	err := f.srv.App.DB.QueryRow(context.Background(), `SELECT count(*) FROM fills f JOIN positions p ON p.id = f.position_id
		JOIN users u ON u.id = p.user_id WHERE u.email = 'a@example.com' AND f.split_of IS NULL`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestCreateValidation(t *testing.T) {
	f := setup(t)
	other := apitest.Object(t, apitest.Must(t, f.b.Do("POST", "/api/accounts",
		map[string]any{"name": "B", "currency": "USD", "startingBalance": "1"}), 201), "account")["id"].(string)
	for _, tc := range []struct {
		name, field string
		body        map[string]any
	}{
		{"UnknownBroker", "broker", map[string]any{"broker": "etrade", "accountId": f.account, "credentials": map[string]any{}}},
		{"NoToken", "credentials.token", map[string]any{"broker": "ibkr", "accountId": f.account, "credentials": map[string]any{"queryId": "1"}}},
		{"QueryNotANumber", "credentials.queryId", map[string]any{"broker": "ibkr", "accountId": f.account,
			"credentials": map[string]any{"token": "t", "queryId": "my query"}}},
		{"NoSecret", "credentials.secret", map[string]any{"broker": "alpaca", "accountId": f.account, "credentials": map[string]any{"keyId": "k"}}},
		{"KrakenKeyNotBase64", "credentials.secret", map[string]any{"broker": "kraken", "accountId": f.account,
			"credentials": map[string]any{"keyId": "k", "secret": "not base64!"}}},
		{"ForeignAccount", "accountId", map[string]any{"broker": "alpaca", "accountId": other, "credentials": map[string]any{"keyId": "k", "secret": "s"}}},
		{"MalformedAccount", "accountId", map[string]any{"broker": "alpaca", "accountId": "x", "credentials": map[string]any{"keyId": "k", "secret": "s"}}},
		{"LongLabel", "label", map[string]any{"broker": "alpaca", "accountId": f.account, "label": strings.Repeat("x", 101),
			"credentials": map[string]any{"keyId": "k", "secret": "s"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := apitest.Must(t, f.a.Do("POST", "/api/connections", tc.body), 400)
			apitest.CheckErrorShape(t, r)
			if r.ErrorCode() != "VALIDATION_ERROR" || r.DetailMessage(tc.field) == "" {
				t.Errorf("%s: %s", tc.field, r.Body)
			}
		})
	}
	t.Run("ErrEncryptionRequired", func(t *testing.T) {
		srv := apitest.Start(t, apitest.Config(t), functions.All)
		c := srv.Client(t)
		c.Register("c@example.com", "password1")
		acct := apitest.Object(t, apitest.Must(t, c.Do("POST", "/api/accounts",
			map[string]any{"name": "C", "currency": "USD", "startingBalance": "1"}), 201), "account")["id"].(string)
		r := apitest.Must(t, c.Do("POST", "/api/connections", map[string]any{"broker": "ibkr", "accountId": acct,
			"credentials": map[string]any{"token": flexToken, "queryId": flexQuery}}), 409)
		if r.ErrorCode() != "ENCRYPTION_REQUIRED" || strings.Contains(string(r.Body), flexToken) {
			t.Errorf("%s", r.Body)
		}
		var n int
		_ = srv.App.DB.QueryRow(context.Background(), `SELECT count(*) FROM broker_connections`).Scan(&n)
		if n != 0 {
			t.Errorf("%d connections stored without a key", n)
		}
	})
}

// TestCredentialsNeverShown: sealed in the database, never in an answer,
// a backup or a log line.
func TestCredentialsNeverShown(t *testing.T) {
	var logs bytes.Buffer
	cfg := apitest.Config(t)
	cfg.Encryption.Key = bytes.Repeat([]byte{9}, 32)
	flex, _, _ := brokers(t, &cfg)
	flex.InProgress = 1
	srv := apitest.StartLogged(t, cfg, slog.New(slog.NewJSONHandler(io.MultiWriter(&logs, os.Stderr), &slog.HandlerOptions{Level: slog.LevelDebug})), functions.All)
	c := srv.Client(t)
	c.Register("a@example.com", "password1")
	acct := apitest.Object(t, apitest.Must(t, c.Do("POST", "/api/accounts",
		map[string]any{"name": "IB", "currency": "USD", "startingBalance": "1", "timezone": "America/New_York"}), 201), "account")["id"].(string)
	secrets := []string{flexToken, apcaSec}
	var bodies []string
	r := apitest.Must(t, c.Do("POST", "/api/connections", map[string]any{"broker": "ibkr", "accountId": acct,
		"credentials": map[string]any{"token": flexToken, "queryId": flexQuery}}), 201)
	id := apitest.Object(t, r, "connection")["id"].(string)
	r2 := apitest.Must(t, c.Do("POST", "/api/connections", map[string]any{"broker": "alpaca", "accountId": acct,
		"credentials": map[string]any{"keyId": apcaKey, "secret": apcaSec}}), 201)
	bodies = append(bodies, string(r.Body), string(r2.Body))
	bodies = append(bodies, string(apitest.Must(t, c.Do("GET", "/api/connections", nil), 200).Body))
	bodies = append(bodies, string(apitest.Must(t, c.Do("POST", "/api/connections/"+id+"/test", nil), 200).Body))
	bodies = append(bodies, string(apitest.Must(t, c.Do("POST", "/api/connections/"+id+"/sync", nil), 200).Body))
	flex.Set(func(f *brokerfake.Flex) { f.SendError = "1012" })
	bodies = append(bodies, string(apitest.Must(t, c.Do("POST", "/api/connections/"+id+"/sync", nil), 200).Body))

	archive := apitest.Must(t, c.Do("GET", "/api/backup/archive", nil), 200).Body
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range zr.File {
		rc, _ := file.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		bodies = append(bodies, file.Name+": "+string(b))
	}
	bodies = append(bodies, logs.String())
	for _, s := range secrets {
		for _, b := range bodies {
			if strings.Contains(b, s) {
				t.Errorf("a credential is in %.300s", b)
			}
		}
	}
	rows, err := srv.App.DB.Query(context.Background(), `SELECT credentials FROM broker_connections`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var sealed string
		_ = rows.Scan(&sealed)
		if !strings.HasPrefix(sealed, "tj1:") || strings.Contains(sealed, flexToken) || strings.Contains(sealed, apcaSec) {
			t.Errorf("stored credentials %q are not sealed", sealed)
		}
	}
	rows.Close()
	if logs.Len() == 0 {
		t.Error("no log lines to check: the logger is not the server's")
	}
}

func TestIBKRSync(t *testing.T) {
	f := setup(t)
	f.flex.InProgress = 1 // one 1019 answer, then the statement
	id := f.connectIBKR(t)
	if ok := apitest.Must(t, f.a.Do("POST", "/api/connections/"+id+"/test", nil), 200); ok.JSON["ok"] != true {
		t.Fatalf("test: %s", ok.Body)
	}
	c := f.sync(t, id)
	if c["status"] != "ok" || c["lastAdded"] != float64(2) || c["error"] != nil || c["syncedThrough"] != "2024-01-22T15:41:03Z" {
		t.Fatalf("after the first sync: %v", c)
	}
	if n := f.fills(t); n != 2 {
		t.Fatalf("%d fills, want 2", n)
	}
	pos := apitest.Items(t, apitest.Must(t, f.a.Do("GET", "/api/positions?status=closed", nil), 200))
	if len(pos) != 1 || pos[0].(map[string]any)["symbol"] != "AAPL" {
		t.Fatalf("positions %v", pos)
	}

	t.Run("ReSyncAddsNothing", func(t *testing.T) {
		if c := f.sync(t, id); c["lastAdded"] != float64(0) || c["status"] != "ok" {
			t.Errorf("re-sync: %v", c)
		}
		if n := f.fills(t); n != 2 {
			t.Errorf("%d fills after a re-sync, want 2", n)
		}
	})
	t.Run("NewExecutionAdded", func(t *testing.T) {
		f.flex.Set(func(fl *brokerfake.Flex) { fl.Statement = brokerfake.FlexStatement("U1234567", append(aapl, msft)...) })
		if c := f.sync(t, id); c["lastAdded"] != float64(1) {
			t.Errorf("sync with one new execution: %v", c)
		}
		if n := f.fills(t); n != 3 {
			t.Errorf("%d fills, want 3", n)
		}
	})
}

// TestOverlapWithCSVImport: trades imported from the Flex query's CSV are
// not synced again.
func TestOverlapWithCSVImport(t *testing.T) {
	f := setup(t)
	csv, err := os.ReadFile("../../shared/brokerfile/testdata/ibkr_flex_trades.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(csv), "\n")
	file := strings.Join(lines[:3], "") // the header and the two AAPL rows
	var body bytes.Buffer
	w := multipartWriter(&body, map[string]any{"accountId": f.account, "presetId": "ibkr-flex-trades"}, file)
	req := f.a.NewRequest("POST", "/api/csv-import/preview", body.String())
	req.Header.Set("Content-Type", w)
	p := apitest.Must(t, f.a.Send(req), 200)
	apitest.Must(t, f.a.Do("POST", "/api/csv-import/commit", map[string]any{"token": p.JSON["token"], "confirmDuplicates": false}), 201)
	if n := f.fills(t); n != 2 {
		t.Fatalf("%d fills after the CSV import, want 2", n)
	}
	f.flex.Statement = brokerfake.FlexStatement("U1234567", append(aapl, msft)...)
	id := f.connectIBKR(t)
	if c := f.sync(t, id); c["lastAdded"] != float64(1) || c["status"] != "ok" {
		t.Fatalf("sync over the imported trades: %v", c)
	}
	if n := f.fills(t); n != 3 {
		t.Errorf("%d fills, want 3 (the CSV's two and MSFT)", n)
	}
}

// TestConcurrentSyncs: a sync of a connection while another runs is
// refused (on demand) or skipped (the schedule); two at once never write
// a fill twice.
func TestConcurrentSyncs(t *testing.T) {
	f := setup(t)
	id := f.connectIBKR(t)
	hold := make(chan struct{})
	f.flex.Set(func(fl *brokerfake.Flex) { fl.Hold = hold })
	done := make(chan map[string]any)
	go func() {
		r := f.a.Do("POST", "/api/connections/"+id+"/sync", nil)
		done <- r.JSON
	}()
	for f.flex.Count("/GetStatement") == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	r := apitest.Must(t, f.a.Do("POST", "/api/connections/"+id+"/sync", nil), 409)
	if r.ErrorCode() != "CONFLICT" {
		t.Errorf("second sync: %s", r.Body)
	}
	if c := apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/connections/"+id, nil), 200), "connection"); c["status"] != "running" {
		t.Errorf("status while syncing: %v", c["status"])
	}
	if n, err := job(t, f).Run(context.Background()); err != nil || n != 0 {
		t.Errorf("scheduled run during a sync: %d, %v; want it skipped", n, err)
	}
	close(hold)
	first := (<-done)["connection"].(map[string]any)
	if first["lastAdded"] != float64(2) {
		t.Errorf("first sync %v", first)
	}

	// Two at once, released together: one syncs, the other is refused or
	// finds nothing new.
	f.flex.Set(func(fl *brokerfake.Flex) {
		fl.Hold = nil
		fl.Statement = brokerfake.FlexStatement("U1234567", append(aapl, msft)...)
	})
	var wg sync.WaitGroup
	statuses := make([]int, 2)
	for i := range 2 {
		wg.Go(func() { statuses[i] = f.a.Do("POST", "/api/connections/"+id+"/sync", nil).Status })
	}
	wg.Wait()
	for _, s := range statuses {
		if s != 200 && s != 409 {
			t.Errorf("statuses %v", statuses)
		}
	}
	if n := f.fills(t); n != 3 {
		t.Errorf("%d fills after two syncs at once, want 3", n)
	}
}

func job(t *testing.T, f *fixture) jobs.Job {
	t.Helper()
	for _, j := range jobs.List(f.srv.App, nil) {
		if j.Name == jobs.BrokerSync {
			return j
		}
	}
	t.Fatal("no broker-sync job")
	return jobs.Job{}
}

// TestFailuresInWords: the broker's errors as the connection's status, the
// rate limit's next try honoured, and the dashboard's notice after a day.
func TestFailuresInWords(t *testing.T) {
	f := setup(t)
	id := f.connectIBKR(t)
	start := f.clock.now()
	for _, tc := range []struct{ sendError, code string }{{"1012", "TOKEN_EXPIRED"}, {"1014", "QUERY_INVALID"}} {
		f.flex.Set(func(fl *brokerfake.Flex) { fl.SendError = tc.sendError })
		c := f.sync(t, id)
		e, _ := c["error"].(map[string]any)
		if c["status"] != "failing" || e["code"] != tc.code || !strings.Contains(e["message"].(string), "IB error "+tc.sendError) {
			t.Errorf("%s: %v", tc.code, c)
		}
		if c["failingSince"] != start.Format(time.RFC3339) || c["needsAttention"] != false {
			t.Errorf("failingSince %v, needsAttention %v", c["failingSince"], c["needsAttention"])
		}
	}
	f.clock.advance(25 * time.Hour)
	c := f.sync(t, id)
	if c["needsAttention"] != true || c["failingSince"] != start.Format(time.RFC3339) {
		t.Errorf("failing for a day: %v", c)
	}
	list := apitest.Must(t, f.a.Do("GET", "/api/connections", nil), 200)
	if items := apitest.Items(t, list); len(items) != 1 || items[0].(map[string]any)["needsAttention"] != true {
		t.Errorf("list %s", list.Body)
	}
	apitest.Must(t, f.a.Do("POST", "/api/connections/"+id+"/pause", nil), 200)
	if c := apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/connections/"+id, nil), 200), "connection"); c["needsAttention"] != false || c["paused"] != true {
		t.Errorf("a paused connection asks no attention: %v", c)
	}
	apitest.Must(t, f.a.Do("POST", "/api/connections/"+id+"/resume", nil), 200)

	f.flex.Set(func(fl *brokerfake.Flex) { fl.SendError = "1018" })
	c = f.sync(t, id)
	e, _ := c["error"].(map[string]any)
	retryAt := f.clock.now().Add(10 * time.Minute).Format(time.RFC3339)
	if e["code"] != "RATE_LIMITED" || e["retryAt"] != retryAt {
		t.Fatalf("rate limited: %v", c)
	}
	r := apitest.Must(t, f.a.Do("POST", "/api/connections/"+id+"/sync", nil), 429)
	if r.ErrorCode() != "RATE_LIMITED" || r.Header.Get("Retry-After") != "600" {
		t.Errorf("sync before the next try: %s %v", r.Body, r.Header)
	}
	if n, err := job(t, f).Run(context.Background()); err != nil || n != 0 {
		t.Errorf("scheduled run before the next try: %d, %v", n, err)
	}
	f.flex.Set(func(fl *brokerfake.Flex) { fl.SendError = "" })
	f.clock.advance(11 * time.Minute)
	c = f.sync(t, id)
	if c["status"] != "ok" || c["error"] != nil || c["failingSince"] != nil || c["needsAttention"] != false || c["lastAdded"] != float64(2) {
		t.Errorf("after the broker recovered: %v", c)
	}
}

// TestScheduledSync: the job syncs connections that are due and not
// paused, then waits for the next due time.
func TestScheduledSync(t *testing.T) {
	f := setup(t)
	f.connectIBKR(t)
	paused := f.connect(t, f.a, "alpaca", map[string]any{"keyId": apcaKey, "secret": apcaSec})["id"].(string)
	apitest.Must(t, f.a.Do("POST", "/api/connections/"+paused+"/pause", nil), 200)
	j := job(t, f)
	if n, err := j.Run(context.Background()); err != nil || n != 1 {
		t.Fatalf("first run: %d, %v; want the IBKR connection synced", n, err)
	}
	if n := f.fills(t); n != 2 {
		t.Errorf("%d fills, want 2", n)
	}
	if n, _ := j.Run(context.Background()); n != 0 {
		t.Errorf("a run right after synced %d, want 0 (not due)", n)
	}
	f.clock.advance(6 * time.Hour)
	if n, _ := j.Run(context.Background()); n != 1 {
		t.Errorf("a run six hours on synced %d, want 1", n)
	}
	if c := apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/connections/"+paused, nil), 200), "connection"); c["lastSyncAt"] != nil {
		t.Errorf("the paused connection was synced: %v", c)
	}
	if n := f.fills(t); n != 2 {
		t.Errorf("%d fills, want 2", n)
	}
	// The function platform's runner runs it by name.
	if rep, err := jobs.Run(context.Background(), jobs.List(f.srv.App, nil), jobs.Event{Jobs: []string{jobs.BrokerSync}}, slog.New(slog.DiscardHandler)); err != nil ||
		len(rep.Jobs) != 1 || rep.Jobs[0].Name != jobs.BrokerSync {
		t.Errorf("scheduled invocation: %+v, %v", rep, err)
	}
}

func alpacaFills(n int, from time.Time) []brokerfake.AlpacaFill {
	out := make([]brokerfake.AlpacaFill, n)
	for i := range out {
		side := "buy"
		if i%2 == 1 {
			side = "sell"
		}
		out[i] = brokerfake.AlpacaFill{ID: from.Add(time.Duration(i)*time.Minute).Format("20060102150405") + "000::" + strings.Repeat("a", 8) + string(rune('a'+i%26)),
			ActivityType: "FILL", TransactionTime: from.Add(time.Duration(i) * time.Minute).Format(time.RFC3339Nano), Type: "fill",
			Price: "480.25", Qty: "3", Side: side, Symbol: "SPY", OrderStatus: "filled"}
	}
	return out
}

// TestAlpacaSync covers paging into the journal, a rate limit mid-page
// (nothing half-written; the next run resumes), and a revoked key.
func TestAlpacaSync(t *testing.T) {
	f := setup(t)
	f.alpaca.Set(func(a *brokerfake.Alpaca) {
		a.Fills = alpacaFills(150, time.Date(2024, 1, 29, 14, 30, 0, 0, time.UTC))
		a.RateLimitAt = 2
		a.Clock = f.clock.now
	})
	id := f.connect(t, f.a, "alpaca", map[string]any{"keyId": apcaKey, "secret": apcaSec})["id"].(string)
	c := f.sync(t, id)
	if e, _ := c["error"].(map[string]any); e["code"] != "RATE_LIMITED" || e["retryAt"] == nil || c["syncedThrough"] != nil {
		t.Fatalf("rate limited on the second page: %v", c)
	}
	if n := f.fills(t); n != 0 {
		t.Fatalf("%d fills written from a sync that failed part way", n)
	}
	f.alpaca.Set(func(a *brokerfake.Alpaca) { a.RateLimitAt = 0 })
	f.clock.advance(2 * time.Minute)
	if c := f.sync(t, id); c["lastAdded"] != float64(150) || c["status"] != "ok" {
		t.Fatalf("resumed: %v", c)
	}
	if c := f.sync(t, id); c["lastAdded"] != float64(0) {
		t.Errorf("re-sync: %v", c)
	}
	f.alpaca.Set(func(a *brokerfake.Alpaca) { a.Secret = "regenerated" })
	c = f.sync(t, id)
	if e, _ := c["error"].(map[string]any); e["code"] != "CREDENTIALS_REJECTED" {
		t.Errorf("revoked key: %v", c)
	}
	if r := apitest.Must(t, f.a.Do("POST", "/api/connections/"+id+"/test", nil), 200); r.JSON["ok"] != false {
		t.Errorf("test of a revoked key: %s", r.Body)
	}
	if n := f.fills(t); n != 150 {
		t.Errorf("%d fills, want 150", n)
	}
}

func TestKrakenSync(t *testing.T) {
	f := setup(t)
	base := float64(time.Date(2024, 1, 30, 10, 0, 0, 0, time.UTC).Unix())
	f.kraken.Trades["TQ5WZK-7KD2M-4XA1B1"] = brokerfake.KrakenTrade{OrderTxID: "OZZ4RT-2HF6Q-ABCD01", Pair: "XXBTZUSD", Time: base + 0.4512,
		Type: "buy", OrderType: "limit", Price: "42000.0", Cost: "210.0", Fee: "0.546", Vol: "0.005"}
	f.kraken.Trades["TQ5WZK-7KD2M-4XA1B2"] = brokerfake.KrakenTrade{OrderTxID: "OZZ4RT-2HF6Q-ABCD02", Pair: "XXBTZUSD", Time: base + 3600.0031,
		Type: "sell", OrderType: "market", Price: "42600.0", Cost: "213.0", Fee: "0.852", Vol: "0.005"}
	id := f.connect(t, f.a, "kraken", map[string]any{"keyId": kraKey, "secret": kraPrivate})["id"].(string)
	if c := f.sync(t, id); c["lastAdded"] != float64(2) || c["status"] != "ok" {
		t.Fatalf("sync: %v", c)
	}
	if c := f.sync(t, id); c["lastAdded"] != float64(0) {
		t.Errorf("re-sync: %v", c)
	}
	pos := apitest.Items(t, apitest.Must(t, f.a.Do("GET", "/api/positions?status=closed", nil), 200))
	if len(pos) != 1 || pos[0].(map[string]any)["symbol"] != "BTC/USD" {
		t.Errorf("positions %v", pos)
	}
}

func TestOwnership(t *testing.T) {
	f := setup(t)
	id := f.connectIBKR(t)
	for _, r := range []struct{ method, path string }{
		{"GET", "/api/connections/" + id}, {"DELETE", "/api/connections/" + id}, {"POST", "/api/connections/" + id + "/sync"},
		{"POST", "/api/connections/" + id + "/test"}, {"POST", "/api/connections/" + id + "/pause"},
		{"GET", "/api/connections/not-a-uuid"}, {"POST", "/api/connections/not-a-uuid/sync"},
	} {
		apitest.Must(t, f.b.Do(r.method, r.path, nil), 404)
	}
	if items := apitest.Items(t, apitest.Must(t, f.b.Do("GET", "/api/connections", nil), 200)); len(items) != 0 {
		t.Errorf("b sees %v", items)
	}
	f.sync(t, id)
	apitest.Must(t, f.a.Do("DELETE", "/api/connections/"+id, nil), 204)
	apitest.Must(t, f.a.Do("GET", "/api/connections/"+id, nil), 404)
	if n := f.fills(t); n != 2 {
		t.Errorf("%d fills after deleting the connection, want the 2 synced kept", n)
	}
}

// multipartWriter writes the CSV import's preview body (options, then the
// file) and answers its content type.
func multipartWriter(buf *bytes.Buffer, opts map[string]any, file string) string {
	raw, _ := json.Marshal(opts)
	boundary := "syncboundary"
	buf.WriteString("--" + boundary + "\r\nContent-Disposition: form-data; name=\"options\"\r\nContent-Type: application/json\r\n\r\n")
	buf.Write(raw)
	buf.WriteString("\r\n--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"trades.csv\"\r\nContent-Type: text/csv\r\n\r\n")
	buf.WriteString(file)
	buf.WriteString("\r\n--" + boundary + "--\r\n")
	return "multipart/form-data; boundary=" + boundary
}

// TestKeyRotation: rotate-encryption-key re-seals the credentials; a
// server left with only the old key says so in words instead of syncing.
func TestKeyRotation(t *testing.T) {
	f := setup(t)
	id := f.connectIBKR(t)
	ring, err := encrypt.New(bytes.Repeat([]byte{8}, 32), bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if n, err := encrypt.Rotate(ctx, f.srv.App.DB, ring, encrypt.Sealed, 10); err != nil || n != 1 {
		t.Fatalf("rotated %d, %v; want the one connection", n, err)
	}
	var sealed string
	if err := f.srv.App.DB.QueryRow(ctx, `SELECT credentials FROM broker_connections WHERE id = $1`, id).Scan(&sealed); err != nil {
		t.Fatal(err)
	}
	if plain, err := ring.Open(encrypt.BrokerCredentials, sealed); err != nil || !strings.Contains(plain, flexToken) {
		t.Fatalf("re-sealed credentials open to %q, %v", plain, err)
	}
	c := f.sync(t, id)
	if e, _ := c["error"].(map[string]any); e["code"] != "CREDENTIALS_UNREADABLE" || f.flex.Count("/SendRequest") != 0 {
		t.Errorf("sync with a key the server lacks: %v", c)
	}
}
