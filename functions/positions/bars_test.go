package positions_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"tradejournal/shared/apitest"
	"tradejournal/shared/jobs"
	"tradejournal/shared/journalstore"
	"tradejournal/shared/market"
)

// barsCSV is minuteBars as a file a platform exports.
func barsCSV() string {
	var b strings.Builder
	b.WriteString("time,open,high,low,close,volume\n")
	for _, c := range minuteBars() {
		fmt.Fprintf(&b, "%s,%s,%s,%s,%s,%d\n", time.Unix(c.T, 0).UTC().Format("2006-01-02 15:04"), c.O, c.H, c.L, c.C, c.V)
	}
	return b.String()
}

func putBars(c *apitest.Client, id, contentType, body string) apitest.Response {
	req := c.NewRequest("PUT", "/api/positions/"+id+"/bars?timezone=UTC", body)
	req.Header.Set("Content-Type", contentType)
	return c.Send(req)
}

// runExcursionsJob runs the bar-excursions job of the one job list once.
func runExcursionsJob(t *testing.T, f fixture) int {
	t.Helper()
	rep, err := jobs.Run(context.Background(), jobs.List(f.srv.App, nil), jobs.Event{Jobs: []string{jobs.BarExcursions}}, f.srv.App.Log)
	if err != nil || rep.Jobs[0].Error != "" {
		t.Fatalf("job: %v %v", rep, err)
	}
	return rep.Jobs[0].Count
}

// TestUploadedBarsAndExcursions: without a provider, a trader's uploaded
// bars chart the position; the job records the excursions they imply with
// the position, typed ones still win, a changed fill makes them stale
// until the job measures again.
func TestUploadedBarsAndExcursions(t *testing.T) {
	f := setup(t, nil)
	id := newPosition(t, f.a, f.account, "AAPL", "stock", "long", map[string]any{"stopLoss": "9", "targetPrice": "12"},
		fill("entry", "10", "100", "0", at(entryAt)), fill("exit", "11", "100", "0", at(exitAt)))
	path := "/api/positions/" + id

	if r := f.a.Do("GET", path+"/bars", nil); r.Status != 404 || !strings.Contains(string(r.Body), "upload a bars file") {
		t.Fatalf("no bars: %d %s", r.Status, r.Body)
	}
	// Measured without bars: nothing to show, and not measured again.
	if n := runExcursionsJob(t, f); n != 1 {
		t.Fatalf("job measured %d", n)
	}
	pos := apitest.Object(t, apitest.Must(t, f.a.Do("GET", path, nil), 200), "position")
	if m := pos["measured"].(map[string]any); m["source"] != nil || m["maePrice"] != nil || pos["review"].(map[string]any)["mae"] != nil {
		t.Fatalf("measured without bars %v", pos["measured"])
	}
	if n := runExcursionsJob(t, f); n != 0 {
		t.Fatalf("measured again: %d", n)
	}

	t.Run("Refused", func(t *testing.T) {
		for _, tc := range []struct {
			c           *apitest.Client
			contentType string
			body        string
			status      int
			words       string
		}{
			{f.a, "application/json", "{}", 415, "text/csv"},
			{f.a, "text/csv", "time,open,high,low,close\n2025-06-02 14:00,10,9,11,10\n", 400, "line 2: the high 9 is below the low 11"},
			{f.a, "text/csv", "when,open\n", 400, "line 1: no time column"},
			{f.b, "text/csv", barsCSV(), 404, "not found"},
			{f.a, "text/csv", barsCSV() + strings.Repeat(" ", market.MaxUploadBytes-len(barsCSV())+1), 413, "at most 8388608 bytes"},
		} {
			r := putBars(tc.c, id, tc.contentType, tc.body)
			if r.Status != tc.status || !strings.Contains(string(r.Body), tc.words) {
				t.Errorf("%d %s", r.Status, r.Body)
			}
			apitest.CheckErrorShape(t, r)
		}
		req := f.a.NewRequest("PUT", path+"/bars?timezone=Mars/Olympus", barsCSV())
		req.Header.Set("Content-Type", "text/csv")
		if r := f.a.Send(req); r.Status != 400 || !strings.Contains(string(r.Body), "timezone") {
			t.Errorf("zone: %d %s", r.Status, r.Body)
		}
	})

	up := apitest.Object(t, apitest.Must(t, putBars(f.a, id, "text/csv; charset=utf-8", barsCSV()), 200), "upload")
	if up["symbol"] != "AAPL" || up["stepSeconds"] != float64(60) || up["barCount"] != float64(61) {
		t.Fatalf("upload %v", up)
	}
	got := body(t, apitest.Must(t, f.a.Do("GET", path+"/bars", nil), 200))
	// As from a provider: 14:07 to 14:12 count, not 14:05's 8 nor 14:14's
	// 13; neither the stop (9) nor the target (12) was reached.
	if got["source"] != "uploaded" || got["resolution"] != "1" || got["maePrice"] != "9.4" || got["mfePrice"] != "11.35" ||
		got["firstHit"] != nil || len(got["bars"].([]any)) != 46 {
		t.Fatalf("uploaded bars %v %v %v %v", got["source"], got["maePrice"], got["mfePrice"], got["firstHit"])
	}
	// A read: nothing recorded until the job runs, which now measures the
	// position again (bars of its symbol were uploaded after its measure).
	if m := apitest.Object(t, apitest.Must(t, f.a.Do("GET", path, nil), 200), "position")["measured"].(map[string]any); m["source"] != nil {
		t.Fatalf("the read recorded %v", m)
	}
	if n := runExcursionsJob(t, f); n != 1 {
		t.Fatalf("job measured %d", n)
	}
	pos = apitest.Object(t, apitest.Must(t, f.a.Do("GET", path, nil), 200), "position")
	m, rv := pos["measured"].(map[string]any), pos["review"].(map[string]any)
	mae, mfe := rv["mae"].(map[string]any), rv["mfe"].(map[string]any)
	// (9.40 - 10) x 100 = -60 of a 100 risk; (11.35 - 10) x 100 = 135.
	if m["source"] != "uploaded" || m["maePrice"] != "9.4" || m["firstHit"] != "none" || mae["price"] != "9.4" || mae["source"] != "uploaded" ||
		mae["amount"] != "-60.0000" || mae["r"] != "-0.60" || mfe["r"] != "1.35" {
		t.Fatalf("measured %v review %v", m, rv)
	}

	t.Run("TypedWins", func(t *testing.T) {
		pos := apitest.Object(t, apitest.Must(t, f.a.Do("PATCH", path, map[string]any{"maePrice": "9.3"}), 200), "position")
		rv := pos["review"].(map[string]any)
		if mae := rv["mae"].(map[string]any); mae["price"] != "9.3" || mae["source"] != "typed" || rv["mfe"].(map[string]any)["source"] != "uploaded" ||
			pos["measured"].(map[string]any)["maePrice"] != "9.4" {
			t.Fatalf("typed %v", rv)
		}
		apitest.Must(t, f.a.Do("PATCH", path, map[string]any{"maePrice": nil}), 200)
	})

	t.Run("StaleAfterAFill", func(t *testing.T) {
		exit := apitest.Object(t, apitest.Must(t, f.a.Do("GET", path, nil), 200), "position")["fills"].([]any)[1].(map[string]any)["id"].(string)
		apitest.Must(t, f.a.Do("PATCH", path+"/fills/"+exit, fill("exit", "11", "100", "0", at(exitAt.Add(-2*time.Minute)))), 200)
		if pos := apitest.Object(t, apitest.Must(t, f.a.Do("GET", path, nil), 200), "position"); pos["measured"] != nil {
			t.Fatalf("stale measure shown %v", pos["measured"])
		}
		if n := runExcursionsJob(t, f); n != 1 {
			t.Fatalf("job measured %d", n)
		}
		// Held 14:07 to 14:10 now: 14:09's 9.4 still, 14:11's 11.35 no more.
		m := apitest.Object(t, apitest.Must(t, f.a.Do("GET", path, nil), 200), "position")["measured"].(map[string]any)
		if m["maePrice"] != "9.4" || m["mfePrice"] != "11" {
			t.Fatalf("measured again %v", m)
		}
	})

	t.Run("Delete", func(t *testing.T) {
		if r := f.b.Do("DELETE", path+"/bars", nil); r.Status != 404 {
			t.Fatalf("other user: %d", r.Status)
		}
		if r := f.a.Do("DELETE", path+"/bars", nil); r.Status != 204 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		// The excursions measured from them go with them.
		if pos := apitest.Object(t, apitest.Must(t, f.a.Do("GET", path, nil), 200), "position"); pos["measured"] != nil || pos["review"].(map[string]any)["mae"] != nil {
			t.Fatalf("measured from deleted bars %v %v", pos["measured"], pos["review"])
		}
		if r := f.a.Do("DELETE", path+"/bars", nil); r.Status != 404 {
			t.Fatalf("again: %d", r.Status)
		}
		if r := f.a.Do("GET", path+"/bars", nil); r.Status != 404 {
			t.Fatalf("bars after delete: %d", r.Status)
		}
	})
}

// TestBarsUploadLimits: the bars one account keeps are bounded across its
// symbols (a 400 on the file saying how many are kept and what to do,
// nothing written), and uploads are rate limited per user (429).
func TestBarsUploadLimits(t *testing.T) {
	f := setup(t, nil)
	id := newPosition(t, f.a, f.account, "AAPL", "stock", "long", nil,
		fill("entry", "10", "100", "0", at(entryAt)), fill("exit", "11", "100", "0", at(exitAt)))
	// Another symbol's upload, as kept: all but 60 of the account's bars.
	var user string
	if err := f.srv.App.DB.QueryRow(t.Context(), `SELECT user_id::text FROM positions WHERE id = $1`, id).Scan(&user); err != nil {
		t.Fatal(err)
	}
	if _, err := f.srv.App.DB.Exec(t.Context(), `INSERT INTO bar_uploads (user_id, symbol, step_seconds, bar_count, first_at, last_at, uploaded_at)
		VALUES ($1, 'MSFT', 60, $2, now(), now(), now())`, user, journalstore.MaxUploadedBars-60); err != nil {
		t.Fatal(err)
	}
	r := putBars(f.a, id, "text/csv", barsCSV()) // 61 bars
	if r.Status != 400 || !strings.Contains(string(r.Body), "you keep 999940 bars of other symbols, and with these 61 you would pass the 1000000") {
		t.Fatalf("over the bound: %d %s", r.Status, r.Body)
	}
	apitest.CheckErrorShape(t, r)
	if r := f.a.Do("GET", "/api/positions/"+id+"/bars", nil); r.Status != 404 {
		t.Fatalf("written: %d", r.Status)
	}
	if _, err := f.srv.App.DB.Exec(t.Context(), `DELETE FROM bar_uploads WHERE symbol = 'MSFT'`); err != nil {
		t.Fatal(err)
	}
	apitest.Must(t, putBars(f.a, id, "text/csv", barsCSV()), 200)

	// 30 an hour: one was taken above, two more succeeded or not.
	limited := 0
	for range 30 {
		if r := putBars(f.a, id, "application/json", "{}"); r.Status == 429 {
			limited++
			apitest.CheckErrorShape(t, r)
			if r.Header.Get("Retry-After") == "" {
				t.Fatal("no Retry-After")
			}
		}
	}
	if limited != 2 {
		t.Fatalf("%d of 30 limited after 2 uploads", limited)
	}
	// Per user: the other user's uploads are not limited by these.
	if r := putBars(f.b, id, "text/csv", barsCSV()); r.Status != 404 {
		t.Fatalf("other user: %d", r.Status)
	}
}
