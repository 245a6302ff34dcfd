package journaldays_test

import (
	"bytes"
	"context"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
)

// fixture is a server with two signed-in users; a has an account in
// Chicago's zone (so a trading day differs from the UTC date) and a tag.
type fixture struct {
	srv          *apitest.Server
	a, b         *apitest.Client
	account, tag string
}

func setup(t *testing.T, encrypted bool) fixture {
	t.Helper()
	cfg := apitest.Config(t)
	if encrypted {
		cfg.Encryption.Key = bytes.Repeat([]byte{7}, 32)
	}
	srv := apitest.Start(t, cfg, functions.All)
	f := fixture{srv: srv, a: srv.Client(t), b: srv.Client(t)}
	f.a.Register("a@example.com", "password1")
	f.b.Register("b@example.com", "password1")
	f.account = apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/accounts", map[string]any{"name": "Main", "currency": "USD",
		"startingBalance": "10000", "timezone": "America/Chicago"}), 201), "account")["id"].(string)
	f.tag = apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/tags", map[string]any{"name": "Choppy", "category": "general"}), 201), "tag")["id"].(string)
	return f
}

// entry is a PUT body.
func entry(plan, review, notes string, mood any, tags ...string) map[string]any {
	if tags == nil {
		tags = []string{}
	}
	return map[string]any{"plan": plan, "review": review, "notes": notes, "mood": mood, "tagIds": tags}
}

// position records a position of f.a with notes: closed when exitAt is
// set, else open.
func (f fixture) position(t *testing.T, symbol, notes, entryAt, exitAt string) string {
	t.Helper()
	fills := []any{map[string]any{"type": "entry", "price": "10", "quantity": "1", "filledAt": entryAt}}
	if exitAt != "" {
		fills = append(fills, map[string]any{"type": "exit", "price": "12", "quantity": "1", "filledAt": exitAt})
	}
	return apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/positions", map[string]any{"accountId": f.account, "symbol": symbol,
		"assetType": "stock", "side": "long", "notes": notes, "fills": fills}), 201), "position")["id"].(string)
}

func day(t *testing.T, r apitest.Response) map[string]any {
	t.Helper()
	return apitest.Object(t, r, "day")
}

// dates lists the dates of a list page.
func dates(t *testing.T, r apitest.Response) []string {
	t.Helper()
	var out []string
	for _, it := range apitest.Items(t, r) {
		out = append(out, it.(map[string]any)["date"].(string))
	}
	return out
}

func fieldsOf(t *testing.T, r apitest.Response) []string {
	t.Helper()
	ds, _ := apitest.Object(t, r, "error")["details"].([]any)
	var out []string
	for _, d := range ds {
		out = append(out, d.(map[string]any)["field"].(string))
	}
	return out
}

func TestAuthentication(t *testing.T) {
	f := setup(t, false)
	anon := f.srv.Client(t)
	for _, rq := range []struct {
		method, path string
		body         any
	}{
		{"GET", "/api/journal/days", nil},
		{"GET", "/api/journal/days/2025-01-06", nil},
		{"PUT", "/api/journal/days/2025-01-06", entry("x", "", "", nil)},
		{"DELETE", "/api/journal/days/2025-01-06", nil},
	} {
		r := anon.Do(rq.method, rq.path, rq.body)
		if r.Status != 401 || r.ErrorCode() != "UNAUTHENTICATED" {
			t.Errorf("%s %s: %d %s", rq.method, rq.path, r.Status, r.Body)
		}
		apitest.CheckErrorShape(t, r)
	}
}

func TestEntry(t *testing.T) {
	f := setup(t, false)
	const path = "/api/journal/days/2025-01-06"

	t.Run("EmptyDay", func(t *testing.T) {
		r := apitest.Must(t, f.a.Do("GET", path, nil), 200)
		d := day(t, r)
		if d["date"] != "2025-01-06" || d["plan"] != "" || d["notes"] != "" || d["mood"] != nil || d["updatedAt"] != nil || len(d["tags"].([]any)) != 0 {
			t.Fatalf("empty day %v", d)
		}
		if r.JSON["previousDate"] != nil || r.JSON["nextDate"] != nil {
			t.Fatalf("neighbours of an empty journal %v", r.JSON)
		}
	})
	t.Run("PutAndGet", func(t *testing.T) {
		d := day(t, apitest.Must(t, f.a.Do("PUT", path, entry("Wait for the open.", "Did wait.", "# Notes\nA *good* day", 4, f.tag, f.tag)), 200))
		if d["plan"] != "Wait for the open." || d["mood"] != float64(4) || d["updatedAt"] == nil {
			t.Fatalf("put %v", d)
		}
		tags := d["tags"].([]any)
		if len(tags) != 1 || tags[0].(map[string]any)["name"] != "Choppy" {
			t.Fatalf("tags %v", tags)
		}
		got := day(t, apitest.Must(t, f.a.Do("GET", path, nil), 200))
		if got["notes"] != "# Notes\nA *good* day" || got["review"] != "Did wait." || len(got["tags"].([]any)) != 1 {
			t.Fatalf("read back %v", got)
		}
		// Mood may be left out: no mood.
		d = day(t, apitest.Must(t, f.a.Do("PUT", path, map[string]any{"plan": "p", "review": "", "notes": "", "tagIds": []string{}}), 200))
		if d["mood"] != nil || len(d["tags"].([]any)) != 0 || d["plan"] != "p" {
			t.Fatalf("second put %v", d)
		}
	})
	t.Run("OtherUser", func(t *testing.T) {
		if d := day(t, apitest.Must(t, f.b.Do("GET", path, nil), 200)); d["plan"] != "" || d["updatedAt"] != nil {
			t.Fatalf("b sees a's day: %v", d)
		}
		if r := f.b.Do("DELETE", path, nil); r.Status != 404 || r.ErrorCode() != "" {
			t.Fatalf("b deletes a's day: %d %s", r.Status, r.Body)
		}
		r := f.b.Do("PUT", path, entry("mine", "", "", nil, f.tag))
		if r.Status != 400 || !slices.Equal(fieldsOf(t, r), []string{"tagIds[0]"}) {
			t.Fatalf("b puts a's tag: %d %s", r.Status, r.Body)
		}
		if items := apitest.Items(t, apitest.Must(t, f.b.Do("GET", "/api/journal/days", nil), 200)); len(items) != 0 {
			t.Fatalf("b lists %v", items)
		}
		if d := day(t, apitest.Must(t, f.a.Do("GET", path, nil), 200)); d["plan"] != "p" {
			t.Fatalf("a's day after b: %v", d)
		}
	})
	t.Run("TagDeletedLeavesTheDay", func(t *testing.T) {
		apitest.Must(t, f.a.Do("PUT", path, entry("p", "", "", nil, f.tag)), 200)
		apitest.Must(t, f.a.Do("DELETE", "/api/tags/"+f.tag, nil), 204)
		if d := day(t, apitest.Must(t, f.a.Do("GET", path, nil), 200)); d["plan"] != "p" || len(d["tags"].([]any)) != 0 {
			t.Fatalf("after the tag's deletion %v", d)
		}
	})
	t.Run("EmptyEntryIsDeleted", func(t *testing.T) {
		apitest.Must(t, f.a.Do("PUT", path, entry(" ", "\n", "", nil)), 200)
		if d := day(t, apitest.Must(t, f.a.Do("GET", path, nil), 200)); d["updatedAt"] != nil {
			t.Fatalf("blank entry kept: %v", d)
		}
		if r := f.a.Do("DELETE", path, nil); r.Status != 404 {
			t.Fatalf("delete of no entry: %d", r.Status)
		}
	})
	t.Run("Delete", func(t *testing.T) {
		apitest.Must(t, f.a.Do("PUT", path, entry("p", "", "", 2)), 200)
		apitest.Must(t, f.a.Do("DELETE", path, nil), 204)
		if d := day(t, apitest.Must(t, f.a.Do("GET", path, nil), 200)); d["updatedAt"] != nil {
			t.Fatalf("deleted entry still there: %v", d)
		}
	})
}

func TestValidation(t *testing.T) {
	f := setup(t, false)
	long := strings.Repeat("é", 20_001)
	for _, c := range []struct {
		name, path string
		body       any
		fields     []string
	}{
		{"NotADate", "/api/journal/days/x", entry("", "", "", nil), []string{"date"}},
		{"NoSuchDay", "/api/journal/days/2025-02-30", entry("", "", "", nil), []string{"date"}},
		{"YearZero", "/api/journal/days/0000-01-01", entry("", "", "", nil), []string{"date"}},
		{"TooEarly", "/api/journal/days/1899-12-31", entry("", "", "", nil), []string{"date"}},
		{"TooLate", "/api/journal/days/2200-01-01", entry("", "", "", nil), []string{"date"}},
		{"NotPadded", "/api/journal/days/2025-1-6", entry("", "", "", nil), []string{"date"}},
		{"Missing", "/api/journal/days/2025-01-06", map[string]any{"mood": 3}, []string{"plan", "review", "notes", "tagIds"}},
		{"MoodHigh", "/api/journal/days/2025-01-06", entry("", "", "", 6), []string{"mood"}},
		{"MoodZero", "/api/journal/days/2025-01-06", entry("", "", "", 0), []string{"mood"}},
		{"MoodFraction", "/api/journal/days/2025-01-06", entry("", "", "", 2.5), []string{"mood"}},
		{"TooLong", "/api/journal/days/2025-01-06", entry(long, "", long, nil), []string{"plan", "notes"}},
		{"NUL", "/api/journal/days/2025-01-06", entry("", "a\x00b", "", nil), []string{"review"}},
		{"BadTagID", "/api/journal/days/2025-01-06", entry("", "", "", nil, "x"), []string{"tagIds[0]"}},
		{"UnknownField", "/api/journal/days/2025-01-06", map[string]any{"plan": "", "review": "", "notes": "", "tagIds": []string{}, "x": 1}, []string{"x"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := f.a.Do("PUT", c.path, c.body)
			if r.Status != 400 || r.ErrorCode() != "VALIDATION_ERROR" || !slices.Equal(fieldsOf(t, r), c.fields) {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
			apitest.CheckErrorShape(t, r)
		})
	}
	tooMany := make([]string, 51)
	for i := range tooMany {
		tooMany[i] = f.tag
	}
	if r := f.a.Do("PUT", "/api/journal/days/2025-01-06", entry("", "", "", nil, tooMany...)); r.Status != 400 || !slices.Equal(fieldsOf(t, r), []string{"tagIds"}) {
		t.Fatalf("51 tags: %d %s", r.Status, r.Body)
	}
	for _, p := range []string{"/api/journal/days/x", "/api/journal/days/2025-13-01"} {
		for _, m := range []string{"GET", "DELETE"} {
			if r := f.a.Do(m, p, nil); r.Status != 400 || !slices.Equal(fieldsOf(t, r), []string{"date"}) {
				t.Fatalf("%s %s: %d %s", m, p, r.Status, r.Body)
			}
		}
	}
	for q, field := range map[string]string{
		"q=" + strings.Repeat("x", 201): "q",
		"q=a+b+c+d+e+f+g+h+i+j+k":       "q",
		"q=%00":                         "q",
		"from=2025-02-30":               "from",
		"to=1899-01-01":                 "to",
		"from=2025-02-01&to=2025-01-01": "to",
		"cursor=x":                      "cursor",
		"cursor=" + url.QueryEscape("MjAyNS0xMy0wMQ"): "cursor",
		"limit=x": "limit",
	} {
		if r := f.a.Do("GET", "/api/journal/days?"+q, nil); r.Status != 400 || !slices.Equal(fieldsOf(t, r), []string{field}) {
			t.Errorf("%s: %d %s", q, r.Status, r.Body)
		}
	}
	// Nothing of the refused writes was kept.
	if items := apitest.Items(t, apitest.Must(t, f.a.Do("GET", "/api/journal/days", nil), 200)); len(items) != 0 {
		t.Fatalf("refused writes left %v", items)
	}
}

// TestList: the days with an entry or trades, newest first, a position's
// day in its account's zone (a close at 03:00 UTC is the evening before in
// Chicago), paged by cursor, bounded by from and to.
func TestList(t *testing.T) {
	f := setup(t, false)
	f.position(t, "AAPL", "", "2025-01-06T15:00:00Z", "2025-01-07T03:00:00Z") // closed on the 6th in Chicago
	f.position(t, "MSFT", "", "2025-01-08T15:00:00Z", "2025-01-08T16:00:00Z")
	f.position(t, "NVDA", "", "2025-01-08T17:00:00Z", "")                     // open since the 8th
	f.position(t, "TSLA", "", "2025-01-03T15:00:00Z", "2025-01-08T18:00:00Z") // opened on the 3rd: only its close counts
	apitest.Must(t, f.a.Do("POST", "/api/positions", map[string]any{"accountId": f.account, "symbol": "DRAFT", "assetType": "stock",
		"side": "long", "notes": "a draft has no day"}), 201)
	apitest.Must(t, f.a.Do("PUT", "/api/journal/days/2025-01-10", entry("", "", "Weekend prep\nsecond line", 3, f.tag)), 200)
	apitest.Must(t, f.a.Do("PUT", "/api/journal/days/2025-01-06", entry("## Plan: patience", "", "", nil)), 200)

	r := apitest.Must(t, f.a.Do("GET", "/api/journal/days", nil), 200)
	if got := dates(t, r); !slices.Equal(got, []string{"2025-01-10", "2025-01-08", "2025-01-06"}) {
		t.Fatalf("days %v", got)
	}
	items := apitest.Items(t, r)
	ten, eight, six := items[0].(map[string]any), items[1].(map[string]any), items[2].(map[string]any)
	if ten["hasEntry"] != true || ten["excerpt"] != "Weekend prep" || ten["mood"] != float64(3) || len(ten["tags"].([]any)) != 1 || ten["closedPositions"] != float64(0) {
		t.Fatalf("the 10th %v", ten)
	}
	if eight["hasEntry"] != false || eight["closedPositions"] != float64(2) || eight["openPositions"] != float64(1) || eight["excerpt"] != "" {
		t.Fatalf("the 8th %v", eight)
	}
	if six["hasEntry"] != true || six["closedPositions"] != float64(1) || six["excerpt"] != "Plan: patience" {
		t.Fatalf("the 6th %v", six)
	}
	if r.JSON["nextCursor"] != nil || len(ten["matches"].([]any)) != 0 {
		t.Fatalf("page %s", r.Body)
	}

	t.Run("Paging", func(t *testing.T) {
		var all []string
		cursor := ""
		for range 4 {
			r := apitest.Must(t, f.a.Do("GET", "/api/journal/days?limit=1"+cursor, nil), 200)
			all = append(all, dates(t, r)...)
			next, _ := r.JSON["nextCursor"].(string)
			if next == "" {
				break
			}
			cursor = "&cursor=" + url.QueryEscape(next)
		}
		if !slices.Equal(all, []string{"2025-01-10", "2025-01-08", "2025-01-06"}) {
			t.Fatalf("pages %v", all)
		}
	})
	t.Run("Range", func(t *testing.T) {
		r := apitest.Must(t, f.a.Do("GET", "/api/journal/days?from=2025-01-07&to=2025-01-09", nil), 200)
		if got := dates(t, r); !slices.Equal(got, []string{"2025-01-08"}) {
			t.Fatalf("range %v", got)
		}
	})
	t.Run("Neighbours", func(t *testing.T) {
		r := apitest.Must(t, f.a.Do("GET", "/api/journal/days/2025-01-08", nil), 200)
		if r.JSON["previousDate"] != "2025-01-06" || r.JSON["nextDate"] != "2025-01-10" {
			t.Fatalf("neighbours %v %v", r.JSON["previousDate"], r.JSON["nextDate"])
		}
		r = apitest.Must(t, f.a.Do("GET", "/api/journal/days/2025-01-10", nil), 200)
		if r.JSON["previousDate"] != "2025-01-08" || r.JSON["nextDate"] != nil {
			t.Fatalf("neighbours of the last %v %v", r.JSON["previousDate"], r.JSON["nextDate"])
		}
	})
}

// TestSearch searches the days' notes and the positions' notes, every word
// regardless of case, with and without ENCRYPTION_KEY (the notes then
// sealed in the database).
func TestSearch(t *testing.T) {
	for _, encrypted := range []bool{false, true} {
		name := "Plaintext"
		if encrypted {
			name = "Encrypted"
		}
		t.Run(name, func(t *testing.T) {
			f := setup(t, encrypted)
			aapl := f.position(t, "AAPL", "Chased the GAP up, again.", "2025-01-06T15:00:00Z", "2025-01-06T16:00:00Z")
			f.position(t, "MSFT", "patient entry", "2025-01-08T15:00:00Z", "")
			apitest.Must(t, f.a.Do("PUT", "/api/journal/days/2025-01-07", entry("Do not chase the gap.", "", "Überraschung: chased nothing", nil)), 200)
			apitest.Must(t, f.a.Do("PUT", "/api/journal/days/2025-01-09", entry("quiet", "", "", nil)), 200)

			r := apitest.Must(t, f.a.Do("GET", "/api/journal/days?q="+url.QueryEscape("gap CHASE"), nil), 200)
			if got := dates(t, r); !slices.Equal(got, []string{"2025-01-07", "2025-01-06"}) {
				t.Fatalf("days %v", got)
			}
			items := apitest.Items(t, r)
			m7 := items[0].(map[string]any)["matches"].([]any)
			if len(m7) != 1 || m7[0].(map[string]any)["field"] != "plan" || m7[0].(map[string]any)["snippet"] != "Do not chase the gap." {
				t.Fatalf("the 7th's matches %v", m7)
			}
			m6 := items[1].(map[string]any)["matches"].([]any)[0].(map[string]any)
			if m6["field"] != "position" || m6["positionId"] != aapl || m6["symbol"] != "AAPL" || m6["snippet"] != "Chased the GAP up, again." {
				t.Fatalf("the 6th's match %v", m6)
			}
			if items[1].(map[string]any)["closedPositions"] != float64(1) {
				t.Fatalf("the 6th %v", items[1])
			}
			for q, want := range map[string][]string{
				"überraschung": {"2025-01-07"},
				"PATIENT":      {"2025-01-08"},
				"gap nothing":  nil,
				"draft":        nil,
			} {
				if got := dates(t, apitest.Must(t, f.a.Do("GET", "/api/journal/days?q="+url.QueryEscape(q), nil), 200)); !slices.Equal(got, want) {
					t.Errorf("%q: %v", q, got)
				}
			}
			if got := dates(t, apitest.Must(t, f.a.Do("GET", "/api/journal/days?q=chase&to=2025-01-06", nil), 200)); !slices.Equal(got, []string{"2025-01-06"}) {
				t.Fatalf("search to the 6th: %v", got)
			}
			r = apitest.Must(t, f.a.Do("GET", "/api/journal/days?q=chase&limit=1", nil), 200)
			next, _ := r.JSON["nextCursor"].(string)
			if got := dates(t, r); !slices.Equal(got, []string{"2025-01-07"}) || next == "" {
				t.Fatalf("first page %v %s", got, r.Body)
			}
			r = apitest.Must(t, f.a.Do("GET", "/api/journal/days?q=chase&limit=1&cursor="+url.QueryEscape(next), nil), 200)
			if got := dates(t, r); !slices.Equal(got, []string{"2025-01-06"}) || r.JSON["nextCursor"] != nil {
				t.Fatalf("second page %v %s", got, r.Body)
			}
			if got := dates(t, apitest.Must(t, f.b.Do("GET", "/api/journal/days?q=chase", nil), 200)); got != nil {
				t.Fatalf("b finds a's notes: %v", got)
			}

			var plan, notes string
			if err := f.srv.App.DB.QueryRow(context.Background(), `SELECT plan, notes FROM journal_days WHERE day = '2025-01-07'`).Scan(&plan, &notes); err != nil {
				t.Fatal(err)
			}
			if sealed := strings.HasPrefix(plan, "tj1:") && strings.HasPrefix(notes, "tj1:"); sealed != encrypted || encrypted && strings.Contains(plan+notes, "chase") {
				t.Fatalf("stored %q %q", plan, notes)
			}
		})
	}
}

// TestPagesAcrossZones: the list's pages and a day's neighbours are the
// same whatever the page size, with closes near midnight in the zones
// furthest ahead of and behind UTC (small pages read only the closes near
// their days: closeWindow).
func TestPagesAcrossZones(t *testing.T) {
	f := setup(t, false)
	ahead := apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/accounts", map[string]any{"name": "Kiritimati", "currency": "USD",
		"timezone": "Pacific/Kiritimati"}), 201), "account")["id"].(string)
	behind := apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/accounts", map[string]any{"name": "Baker", "currency": "USD",
		"timezone": "Etc/GMT+12"}), 201), "account")["id"].(string)
	accounts := []string{ahead, behind, f.account}
	for i := range 30 {
		at := time.Date(2025, 3, 1+i/2, 9+14*(i%2), 30, 0, 0, time.UTC) // 09:30 and 23:30 UTC
		apitest.Must(t, f.a.Do("POST", "/api/positions", map[string]any{"accountId": accounts[i%3], "symbol": "X", "assetType": "stock", "side": "long",
			"fills": []any{map[string]any{"type": "entry", "price": "10", "quantity": "1", "filledAt": at.Add(-time.Hour).Format(time.RFC3339)},
				map[string]any{"type": "exit", "price": "11", "quantity": "1", "filledAt": at.Format(time.RFC3339)}}}), 201)
	}
	// Trading days whose closes come from three UTC days each: from the day
	// before in Kiritimati, the day itself in Chicago's account, and the
	// day after on Baker Island.
	for _, d := range []int{20, 23, 26} {
		day := time.Date(2025, 3, d, 0, 0, 0, 0, time.UTC)
		for _, c := range []struct {
			account string
			at      time.Time
		}{{ahead, day.Add(-12 * time.Hour)}, {f.account, day.Add(18 * time.Hour)}, {behind, day.Add(30 * time.Hour)}} {
			apitest.Must(t, f.a.Do("POST", "/api/positions", map[string]any{"accountId": c.account, "symbol": "Y", "assetType": "stock", "side": "long",
				"fills": []any{map[string]any{"type": "entry", "price": "10", "quantity": "1", "filledAt": c.at.Add(-time.Hour).Format(time.RFC3339)},
					map[string]any{"type": "exit", "price": "11", "quantity": "1", "filledAt": c.at.Format(time.RFC3339)}}}), 201)
		}
	}
	apitest.Must(t, f.a.Do("PUT", "/api/journal/days/2025-02-20", entry("earlier", "", "", nil)), 200)
	r := apitest.Must(t, f.a.Do("GET", "/api/journal/days?limit=200", nil), 200)
	full, items := dates(t, r), apitest.Items(t, r)
	if len(full) < 10 || items[0].(map[string]any)["closedPositions"] != float64(3) || full[len(full)-1] != "2025-02-20" {
		t.Fatalf("full list %v", items)
	}
	for _, limit := range []int{1, 2, 3, 5} {
		var got []any
		cursor := ""
		for range 30 {
			r := apitest.Must(t, f.a.Do("GET", "/api/journal/days?limit="+strconv.Itoa(limit)+cursor, nil), 200)
			got = append(got, apitest.Items(t, r)...)
			next, _ := r.JSON["nextCursor"].(string)
			if next == "" {
				break
			}
			cursor = "&cursor=" + url.QueryEscape(next)
		}
		if !reflect.DeepEqual(got, items) {
			t.Fatalf("limit %d:\n got %v\nwant %v", limit, got, items)
		}
	}
	for i, d := range full {
		r := apitest.Must(t, f.a.Do("GET", "/api/journal/days/"+d, nil), 200)
		var wantPrev, wantNext any
		if i+1 < len(full) {
			wantPrev = full[i+1]
		}
		if i > 0 {
			wantNext = full[i-1]
		}
		if r.JSON["previousDate"] != wantPrev || r.JSON["nextDate"] != wantNext {
			t.Fatalf("%s: neighbours %v %v, want %v %v", d, r.JSON["previousDate"], r.JSON["nextDate"], wantPrev, wantNext)
		}
	}
}
