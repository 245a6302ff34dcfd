package csvimport_test

import (
	"context"
	"encoding/base64"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"tradejournal/functions/csvimport"
	"tradejournal/shared/apitest"
	"tradejournal/shared/httpx"
	"tradejournal/shared/lambdahost"
	"tradejournal/shared/staging"
)

// roundTrip is a small file: AAPL bought and sold, MSFT bought (left open).
const roundTrip = "Date,Time,Symbol,Side,Quantity,Price,Fees\n" +
	"2025-05-20,09:31:05,AAPL,Buy,100,184.25,1\n" +
	"2025-05-20,10:02:44,AAPL,Sell,100,185.10,1\n" +
	"2025-05-21,15:10:00,MSFT,Buy,25,390.50,1\n"

func (f *fixture) stageOne(t *testing.T, file string) string {
	t.Helper()
	r := apitest.Must(t, preview(t, f.a, map[string]any{"accountId": f.accountA, "presetId": "generic-execution"}, []byte(file)), 200)
	token, ok := r.JSON["token"].(string)
	if !ok {
		t.Fatalf("no token: %s", r.Body)
	}
	return token
}

func TestCommitOnce(t *testing.T) {
	f := setup(t, nil)
	token := f.stageOne(t, roundTrip)

	t.Run("OtherUser", func(t *testing.T) {
		r := commit(f.b, token, false)
		if r.Status != 404 || !strings.Contains(string(r.Body), "does not exist") {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("Validation", func(t *testing.T) {
		apitest.Run(t, f.a, []apitest.Case{
			{Name: "NoToken", Method: "POST", Path: "/api/csv-import/commit", Body: map[string]any{}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "TokenNotString", Method: "POST", Path: "/api/csv-import/commit", Body: map[string]any{"token": 5}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "UnknownToken", Method: "POST", Path: "/api/csv-import/commit", Body: map[string]any{"token": "nope"}, Status: 404},
			{Name: "HugeToken", Method: "POST", Path: "/api/csv-import/commit", Body: map[string]any{"token": strings.Repeat("x", 500)}, Status: 404},
		})
	})
	first := apitest.Must(t, commit(f.a, token, false), 201)
	if imp := apitest.Object(t, first, "import"); imp["positionsCreated"].(float64) != 2 || imp["fillsCreated"].(float64) != 3 ||
		imp["balance"] != "25082.0000" {
		t.Fatalf("%s", first.Body)
	}
	c := f.counts(t)
	second := commit(f.a, token, false)
	if second.Status != 404 || f.counts(t) != c {
		t.Fatalf("second commit: %d %s, counts %+v -> %+v", second.Status, second.Body, c, f.counts(t))
	}
	f.checkLedger(t)
}

// TestConcurrentCommits: of commits racing on one preview, exactly one
// writes; the others are refused and write nothing.
func TestConcurrentCommits(t *testing.T) {
	f := setup(t, nil)
	token := f.stageOne(t, roundTrip)
	var wg sync.WaitGroup
	statuses := make(chan int, 5)
	for range 5 {
		wg.Go(func() { statuses <- commit(f.a, token, false).Status })
	}
	wg.Wait()
	close(statuses)
	got := map[int]int{}
	for s := range statuses {
		got[s]++
	}
	if got[201] != 1 || got[201]+got[409]+got[404] != 5 {
		t.Fatalf("statuses %v", got)
	}
	if c := f.counts(t); c.positions != 2 || c.fills != 3 || c.staged != 0 {
		t.Fatalf("counts %+v", c)
	}
	f.checkLedger(t)
}

// TestExpiry drives the staging lifetime with the test clock.
func TestExpiry(t *testing.T) {
	f := setup(t, nil)
	ttl := f.configured.StagingTTL

	t.Run("CommitJustBeforeExpiry", func(t *testing.T) {
		token := f.stageOne(t, roundTrip)
		f.clock.Add(ttl)
		apitest.Must(t, commit(f.a, token, false), 201)
	})
	t.Run("ExpiredIsRefusedAndDeleted", func(t *testing.T) {
		before := f.counts(t)
		token := f.stageOne(t, strings.Replace(roundTrip, "2025-05-2", "2025-05-1", -1))
		f.clock.Add(ttl + time.Second)
		// The commit's own lazy clean-up deletes it first; the answer says
		// it is gone.
		r := commit(f.a, token, false)
		if r.Status != 404 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		if after := f.counts(t); after != before {
			t.Fatalf("counts %+v -> %+v", before, after)
		}
	})
	t.Run("ExpiredBeforeTheSweep", func(t *testing.T) {
		// claim's own check, for a host whose clean-up has not run: the
		// expired row is refused and deleted.
		token := f.stageOne(t, strings.Replace(roundTrip, "2025-05-2", "2025-04-2", -1))
		f.clock.Add(ttl + time.Second)
		_, err := csvimport.ClaimForTest(context.Background(), f.srv.App.DB, csvimport.HashTokenForTest(token), f.userA, f.configured, f.clock.Now())
		if err == nil || !strings.Contains(err.Error(), "expired") || f.counts(t).staged != 0 {
			t.Fatalf("%v %+v", err, f.counts(t))
		}
	})
}

// TestJournalChanged: a commit whose fills no longer fit the journal
// (here: an open position the file closes was deleted after the preview)
// is a 409, writes nothing, and leaves the preview staged.
func TestJournalChanged(t *testing.T) {
	f := setup(t, nil)
	open := f.stageOne(t, "Date,Time,Symbol,Side,Quantity,Price,Fees\n2025-05-20,09:31:05,AAPL,Buy,100,184.25,1\n")
	imp := apitest.Object(t, apitest.Must(t, commit(f.a, open, false), 201), "import")
	id := imp["positionIds"].([]any)[0].(string)

	closing := "Date,Time,Symbol,Side,Quantity,Price,Fees,Open/Close\n2025-05-22,09:31:05,AAPL,Sell,100,190,1,C\n"
	r := apitest.Must(t, preview(t, f.a, map[string]any{"accountId": f.accountA, "presetId": "generic-execution"}, []byte(closing)), 200)
	if s := apitest.Object(t, r, "summary"); s["continuedPositions"].(float64) != 1 || s["netPnl"] != "574.0000" {
		t.Fatalf("%s", r.Body)
	}
	token := r.JSON["token"].(string)
	apitest.Must(t, f.a.Do("DELETE", "/api/positions/"+id, nil), 204)
	before := f.counts(t)
	c := commit(f.a, token, false)
	if c.Status != 409 || c.ErrorCode() != "CONFLICT" || !strings.Contains(string(c.Body), "preview the file again") {
		t.Fatalf("%d %s", c.Status, c.Body)
	}
	if after := f.counts(t); after != before || after.staged != 1 {
		t.Fatalf("counts %+v -> %+v", before, after)
	}
}

// TestContinuesOpenPosition: a second file closes a position the first
// left open: the fill joins it (no new position).
func TestContinuesOpenPosition(t *testing.T) {
	f := setup(t, nil)
	apitest.Must(t, commit(f.a, f.stageOne(t, roundTrip), false), 201)
	next := "Date,Time,Symbol,Side,Quantity,Price,Fees\n2025-05-22,10:00:00,MSFT,Sell,25,400.50,1\n"
	r := apitest.Must(t, preview(t, f.a, map[string]any{"accountId": f.accountA, "presetId": "generic-execution"}, []byte(next)), 200)
	pos := r.JSON["positions"].([]any)[0].(map[string]any)
	if pos["existingPositionId"] == nil || pos["status"] != "closed" || pos["netPnl"] != "248.0000" || warningCodes(r)["CONTINUES_POSITION"] != 1 {
		t.Fatalf("%s", r.Body)
	}
	imp := apitest.Object(t, apitest.Must(t, commit(f.a, r.JSON["token"], false), 201), "import")
	if imp["positionsCreated"].(float64) != 0 || imp["positionsContinued"].(float64) != 1 || imp["balance"] != "25331.0000" {
		t.Fatalf("%v", imp)
	}
	got := apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/positions/"+pos["existingPositionId"].(string), nil), 200), "position")
	if got["status"] != "closed" || len(got["fills"].([]any)) != 2 || got["netPnl"] != "248.0000" {
		t.Fatalf("%v", got)
	}
	f.checkLedger(t)
}

// TestDuplicates: importing a file again finds its fills in the journal:
// skipped unless confirmed.
func TestDuplicates(t *testing.T) {
	f := setup(t, nil)
	apitest.Must(t, commit(f.a, f.stageOne(t, roundTrip), false), 201)
	before := f.counts(t)

	r := apitest.Must(t, preview(t, f.a, map[string]any{"accountId": f.accountA, "presetId": "generic-execution"}, []byte(roundTrip)), 200)
	s := apitest.Object(t, r, "summary")
	if s["duplicateFills"].(float64) != 3 || s["positions"].(float64) != 0 || r.JSON["canCommit"] != true || warningCodes(r)["DUPLICATE_IN_JOURNAL"] != 3 {
		t.Fatalf("%s", r.Body)
	}
	imp := apitest.Object(t, apitest.Must(t, commit(f.a, r.JSON["token"], false), 201), "import")
	if imp["fillsCreated"].(float64) != 0 || imp["duplicatesSkipped"].(float64) != 3 || f.counts(t).positions != before.positions {
		t.Fatalf("%v", imp)
	}

	// Confirmed: written again. The MSFT buy is a second entry of the open
	// MSFT position it duplicates (it is at that position's last fill).
	r = apitest.Must(t, preview(t, f.a, map[string]any{"accountId": f.accountA, "presetId": "generic-execution"}, []byte(roundTrip)), 200)
	imp = apitest.Object(t, apitest.Must(t, commit(f.a, r.JSON["token"], true), 201), "import")
	if imp["fillsCreated"].(float64) != 3 || imp["positionsCreated"].(float64) != 1 || imp["positionsContinued"].(float64) != 1 {
		t.Fatalf("%v", imp)
	}
	f.checkLedger(t)
}

// TestCleanup drives the clean-up with the test clock: staging.Cleanup (the
// csv-import-cleanup job of shared/jobs, whose runner shared/jobs tests) and
// the lazy one of every import request.
func TestCleanup(t *testing.T) {
	f := setup(t, nil)
	ctx := context.Background()
	cfg := f.configured
	db := f.srv.App.DB

	stage := func() string { return f.stageOne(t, roundTrip) }
	orphan := func() {
		// A claim whose commit died with its process.
		token := stage()
		if _, err := db.Exec(ctx, `UPDATE csv_import_staging SET state = 'committing', claimed_at = $2 WHERE token_hash = sha256($1::bytea)`,
			[]byte(token), f.clock.Now()); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("Scheduled", func(t *testing.T) {
		stage()
		orphan()
		sweep := func(ctx context.Context) (staging.Swept, error) {
			return staging.Cleanup(ctx, f.srv.App.DB, cfg, f.clock.Now())
		}
		if s, err := sweep(ctx); err != nil || s != (staging.Swept{}) {
			t.Fatalf("fresh rows swept: %+v %v", s, err)
		}
		// Orphans go CSV_IMPORT_CLAIM_TIMEOUT_SECONDS (10 minutes) after
		// their claim; staged previews after CSV_IMPORT_STAGING_TTL_MINUTES
		// (30).
		f.clock.Add(cfg.ClaimTimeout)
		if s, err := sweep(ctx); err != nil || s != (staging.Swept{}) {
			t.Fatalf("swept at the timeout itself: %+v %v", s, err)
		}
		f.clock.Add(time.Second)
		if s, err := sweep(ctx); err != nil || s != (staging.Swept{Orphaned: 1}) {
			t.Fatalf("%+v %v", s, err)
		}
		f.clock.Add(cfg.StagingTTL - cfg.ClaimTimeout)
		if s, err := sweep(ctx); err != nil || s != (staging.Swept{Expired: 1}) || f.counts(t).staged != 0 {
			t.Fatalf("%+v %v", s, err)
		}
	})
	t.Run("OrphanedClaimCannotCommit", func(t *testing.T) {
		token := stage()
		if _, err := db.Exec(ctx, `UPDATE csv_import_staging SET state = 'committing', claimed_at = $1`, f.clock.Now()); err != nil {
			t.Fatal(err)
		}
		r := commit(f.a, token, false)
		if r.Status != 409 || r.ErrorCode() != "CONFLICT" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		f.clock.Add(cfg.ClaimTimeout + time.Second)
		if r := commit(f.a, token, false); r.Status != 404 || f.counts(t).staged != 0 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("LazyOnPreview", func(t *testing.T) {
		stage()
		f.clock.Add(cfg.StagingTTL + time.Second)
		stage() // sweeps the old one, stages a new one
		if n := f.counts(t).staged; n != 1 {
			t.Fatalf("%d staged", n)
		}
		f.clock.Add(cfg.StagingTTL + time.Second)
	})
}

// TestLambda runs a preview and a commit through the Lambda adapter: the
// multipart body arrives base64-encoded in an API Gateway v2 event.
func TestLambda(t *testing.T) {
	f := setup(t, nil)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	handle := lambdahost.Handler(httpx.Serve(csvimport.Group(f.srv.App).Handler(), log, nil))
	cookie := f.cookieA

	ct, body := multipartBody(t, optionsPart(t, map[string]any{"accountId": f.accountA, "presetId": "generic-execution"}), filePart([]byte(roundTrip)))
	res, err := handle(context.Background(), events.APIGatewayV2HTTPRequest{
		RawPath: "/api/csv-import/preview", Headers: map[string]string{"content-type": ct},
		Cookies: []string{cookie}, Body: base64.StdEncoding.EncodeToString(body), IsBase64Encoded: true,
		RequestContext: events.APIGatewayV2HTTPRequestContext{HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: "POST", Path: "/api/csv-import/preview"}},
	})
	if err != nil || res.StatusCode != 200 || !strings.Contains(res.Body, `"canCommit":true`) {
		t.Fatalf("%v %d %s", err, res.StatusCode, res.Body)
	}
	token := res.Body[strings.Index(res.Body, `"token":"`)+9:]
	token = token[:strings.IndexByte(token, '"')]
	res, err = handle(context.Background(), events.APIGatewayV2HTTPRequest{
		RawPath: "/api/csv-import/commit", Headers: map[string]string{"content-type": "application/json"},
		Cookies: []string{cookie}, Body: `{"token":"` + token + `"}`,
		RequestContext: events.APIGatewayV2HTTPRequestContext{HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: "POST", Path: "/api/csv-import/commit"}},
	})
	if err != nil || res.StatusCode != 201 {
		t.Fatalf("%v %d %s", err, res.StatusCode, res.Body)
	}
}

// TestCommitWritesWhole: a commit writes new positions whole (figures,
// ledger rows, balance) including fills at the same instant, whose order
// decides how the realised P&L splits between exits, a short, an open
// position and options; the ledger and balances agree.
func TestCommitWritesWhole(t *testing.T) {
	f := setup(t, nil)
	ctx := context.Background()
	sameInstant := "Date,Time,Symbol,Side,Quantity,Price,Fees\n" +
		"2024-01-16,09:31:05,AAPL,Buy,100,184.25,1\n2024-01-16,09:31:05,AAPL,Buy,50,184.27,0.5\n" +
		"2024-01-16,09:40:00,AAPL,Sell,70,185.113,1\n2024-01-16,09:40:00,AAPL,Sell,80,185.117,1\n" +
		// Four exits of one share: the second books 1.0000, the others 0.9999.
		"2024-01-16,10:00:00,MSFT,Buy,1,10,0\n2024-01-16,10:00:00,MSFT,Buy,3,10.0001,0\n" +
		"2024-01-16,10:05:00,MSFT,Sell,1,11,0.1\n2024-01-16,10:05:00,MSFT,Sell,1,11,0.2\n" +
		"2024-01-16,10:05:00,MSFT,Sell,1,11,0.3\n2024-01-16,10:05:00,MSFT,Sell,1,11,0.4\n" +
		// A short, closed, and a long left open.
		"2024-01-17,09:45:00,TSLA,Sell,5,200.5,1\n2024-01-17,11:00:00,TSLA,Buy,5,190.25,1\n" +
		"2024-01-18,09:30:00,NVDA,Buy,10,500,1\n2024-01-18,10:30:00,NVDA,Sell,4,510,1\n"
	for _, file := range [][]byte{[]byte(sameInstant), speedFile(400)} {
		apitest.Must(t, commit(f.a, f.stageOne(t, string(file)), false), 201)
	}
	var n int
	if err := f.srv.App.DB.QueryRow(ctx, `SELECT count(*) FROM positions`).Scan(&n); err != nil || n != 204 {
		t.Fatalf("%d positions imported, want 204 (%v)", n, err)
	}
	f.checkLedger(t)
}
