package expenses_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/expenses"
)

// clock is a test's movable a.Now.
type clock struct{ at atomic.Pointer[time.Time] }

func (c *clock) now() time.Time  { return *c.at.Load() }
func (c *clock) set(s string)    { t, _ := time.Parse(time.RFC3339, s); c.at.Store(&t) }
func (c *clock) setDay(s string) { c.set(s + "T12:00:00Z") }

// fixture is a server at a movable time with two signed-in users; a has a
// USD account (so USD is a's display currency).
type fixture struct {
	srv     *apitest.Server
	clock   *clock
	a, b    *apitest.Client
	account string
}

func setup(t *testing.T, today string) fixture {
	t.Helper()
	c := &clock{}
	c.setDay(today)
	srv := apitest.StartAt(t, apitest.Config(t), c.now, functions.All)
	f := fixture{srv: srv, clock: c, a: srv.Client(t), b: srv.Client(t)}
	f.a.Register("a@example.com", "password1")
	f.b.Register("b@example.com", "password1")
	f.account = apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/accounts",
		map[string]any{"name": "Main", "currency": "USD", "startingBalance": "10000"}), 201), "account")["id"].(string)
	return f
}

func create(t *testing.T, c *apitest.Client, body map[string]any) map[string]any {
	t.Helper()
	return apitest.Object(t, apitest.Must(t, c.Do("POST", "/api/expenses", body), 201), "expense")
}

// chargeDates lists the dates of the user's charges, oldest first.
func chargeDates(t *testing.T, c *apitest.Client, query string) []string {
	t.Helper()
	var out []string
	for _, it := range apitest.Items(t, apitest.Must(t, c.Do("GET", "/api/expenses/charges?limit=200"+query, nil), 200)) {
		out = append(out, it.(map[string]any)["date"].(string))
	}
	slices.Sort(out)
	return out
}

// travel moves the clock forward to day in steps shorter than the
// session lifetime, using both sessions at each, so they stay alive.
func (f fixture) travel(t *testing.T, day string) {
	t.Helper()
	target, _ := time.Parse(time.DateOnly, day)
	target = target.Add(12 * time.Hour)
	for at := f.clock.now(); at.Before(target); {
		if at = at.Add(20 * 24 * time.Hour); at.After(target) {
			at = target
		}
		f.clock.at.Store(&at)
		apitest.Must(t, f.a.Do("GET", "/api/auth/me", nil), 200)
		apitest.Must(t, f.b.Do("GET", "/api/auth/me", nil), 200)
	}
}

func (f fixture) runJob(t *testing.T) int {
	t.Helper()
	n, err := expenses.New(f.srv.App.DB, f.clock.now).MaterialiseDue(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestExpenseCRUD(t *testing.T) {
	f := setup(t, "2024-06-10")
	e := create(t, f.a, map[string]any{"amount": "49.90", "startDate": "2024-06-01", "category": "data", "accountId": f.account, "note": "feed"})
	id := e["id"].(string)
	if e["amount"] != "49.9000" || e["currency"] != "USD" || e["recurrence"] != "none" || e["category"] != "data" ||
		e["categoryName"] != "data" || e["totalCharged"] != "49.9000" || e["nextChargeOn"] != nil || e["accountId"] != f.account {
		t.Fatalf("created %v", e)
	}
	t.Run("Get", func(t *testing.T) {
		got := apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/expenses/"+id, nil), 200), "expense")
		if got["id"] != id || got["note"] != "feed" {
			t.Fatalf("%v", got)
		}
	})
	t.Run("OtherUsersIDIsACodeless404", func(t *testing.T) {
		for _, r := range []apitest.Response{
			f.b.Do("GET", "/api/expenses/"+id, nil),
			f.b.Do("PATCH", "/api/expenses/"+id, map[string]any{"amount": "1"}),
			f.b.Do("DELETE", "/api/expenses/"+id, nil),
			f.a.Do("GET", "/api/expenses/not-an-id", nil),
		} {
			if r.Status != 404 || r.ErrorCode() != "" {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
		}
		if items := apitest.Items(t, apitest.Must(t, f.b.Do("GET", "/api/expenses", nil), 200)); len(items) != 0 {
			t.Fatalf("b sees %v", items)
		}
	})
	t.Run("OtherUsersAccountRefused", func(t *testing.T) {
		r := f.b.Do("POST", "/api/expenses", map[string]any{"amount": "1", "startDate": "2024-06-01", "currency": "USD", "accountId": f.account})
		if r.Status != 400 || r.DetailMessage("accountId") == "" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("PatchRewritesCharges", func(t *testing.T) {
		got := apitest.Object(t, apitest.Must(t, f.a.Do("PATCH", "/api/expenses/"+id,
			map[string]any{"amount": "10", "recurrence": "monthly", "startDate": "2024-04-15", "accountId": nil, "currency": "eur"}), 200), "expense")
		if got["amount"] != "10.0000" || got["accountId"] != nil || got["currency"] != "EUR" || got["totalCharged"] != "20.0000" ||
			got["nextChargeOn"] != "2024-06-15" || got["note"] != "feed" {
			t.Fatalf("patched %v", got)
		}
		if d := chargeDates(t, f.a, ""); !slices.Equal(d, []string{"2024-04-15", "2024-05-15"}) {
			t.Fatalf("charges %v", d)
		}
	})
	t.Run("Validation", func(t *testing.T) {
		long := strings.Repeat("x", 501)
		for _, tc := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"startDate": "2024-01-01"}, "amount"},
			{map[string]any{"amount": "0", "startDate": "2024-01-01"}, "amount"},
			{map[string]any{"amount": "-5", "startDate": "2024-01-01"}, "amount"},
			{map[string]any{"amount": "1.00001", "startDate": "2024-01-01"}, "amount"},
			{map[string]any{"amount": "999999999999999", "startDate": "2024-01-01"}, "amount"},
			{map[string]any{"amount": 5, "startDate": "2024-01-01"}, "amount"},
			{map[string]any{"amount": "1"}, "startDate"},
			{map[string]any{"amount": "1", "startDate": "0001-01-01"}, "startDate"},
			{map[string]any{"amount": "1", "startDate": "10000-01-01"}, "startDate"},
			{map[string]any{"amount": "1", "startDate": "2024-02-30"}, "startDate"},
			{map[string]any{"amount": "1", "startDate": "2024-03-01", "endDate": "2024-02-01"}, "endDate"},
			{map[string]any{"amount": "1", "startDate": "2024-03-01", "endDate": "9999-12-31"}, "endDate"},
			{map[string]any{"amount": "1", "startDate": "2024-03-01", "currency": "XX"}, "currency"},
			{map[string]any{"amount": "1", "startDate": "2024-03-01", "currency": "ZZZ1"}, "currency"},
			{map[string]any{"amount": "1", "startDate": "2024-03-01", "recurrence": "weekly"}, "recurrence"},
			{map[string]any{"amount": "1", "startDate": "2024-03-01", "category": "food"}, "category"},
			{map[string]any{"amount": "1", "startDate": "2024-03-01", "category": "00000000-0000-4000-8000-000000000000"}, "category"},
			{map[string]any{"amount": "1", "startDate": "2024-03-01", "note": long}, "note"},
		} {
			r := f.a.Do("POST", "/api/expenses", tc.body)
			if r.Status != 400 || r.ErrorCode() != "VALIDATION_ERROR" || r.DetailMessage(tc.field) == "" {
				t.Errorf("%v: %d %s, want a VALIDATION_ERROR naming %s", tc.body, r.Status, r.Body, tc.field)
			}
		}
		r := f.a.Do("PATCH", "/api/expenses/"+id, map[string]any{"endDate": "2024-01-01"})
		if r.Status != 400 || r.DetailMessage("endDate") == "" {
			t.Errorf("end before start: %d %s", r.Status, r.Body)
		}
	})
	t.Run("Delete", func(t *testing.T) {
		apitest.Must(t, f.a.Do("DELETE", "/api/expenses/"+id, nil), 204)
		apitest.Must(t, f.a.Do("GET", "/api/expenses/"+id, nil), 404)
		if d := chargeDates(t, f.a, ""); len(d) != 0 {
			t.Fatalf("charges left %v", d)
		}
	})
}

func TestListFiltersAndPages(t *testing.T) {
	f := setup(t, "2024-06-10")
	for i, start := range []string{"2024-01-05", "2024-02-05", "2024-03-05", "2024-04-05", "2024-05-05"} {
		body := map[string]any{"amount": "1", "startDate": start, "category": "platform"}
		if i%2 == 0 {
			body["accountId"], body["category"] = f.account, "education"
		}
		create(t, f.a, body)
	}
	var seen []string
	cursor := ""
	for pages := 0; ; pages++ {
		r := apitest.Must(t, f.a.Do("GET", "/api/expenses?limit=2"+cursor, nil), 200)
		for _, it := range apitest.Items(t, r) {
			seen = append(seen, it.(map[string]any)["startDate"].(string))
		}
		next, _ := r.JSON["nextCursor"].(string)
		if next == "" {
			break
		}
		cursor = "&cursor=" + next
		if pages > 5 {
			t.Fatal("paging does not end")
		}
	}
	if !slices.Equal(seen, []string{"2024-05-05", "2024-04-05", "2024-03-05", "2024-02-05", "2024-01-05"}) {
		t.Fatalf("pages %v", seen)
	}
	count := func(q string) int {
		return len(apitest.Items(t, apitest.Must(t, f.a.Do("GET", "/api/expenses?"+q, nil), 200)))
	}
	if n := count("category=education"); n != 3 {
		t.Errorf("education: %d", n)
	}
	if n := count("accountId=" + f.account); n != 3 {
		t.Errorf("account: %d", n)
	}
	if n := count("from=2024-02-01&to=2024-03-31"); n != 2 {
		t.Errorf("range: %d", n)
	}
	if d := chargeDates(t, f.a, "&category=platform"); !slices.Equal(d, []string{"2024-02-05", "2024-04-05"}) {
		t.Errorf("charges of platform %v", d)
	}
	for _, q := range []string{"from=2024-13-01", "to=x", "from=2024-03-01&to=2024-02-01", "category=nope", "accountId=1", "limit=x", "cursor=abc",
		"from=0001-01-01", "to=10000-01-01"} {
		r := f.a.Do("GET", "/api/expenses?"+q, nil)
		if r.Status != 400 || r.ErrorCode() != "VALIDATION_ERROR" {
			t.Errorf("%s: %d %s", q, r.Status, r.Body)
		}
	}
}

func TestRecurringCharges(t *testing.T) {
	f := setup(t, "2024-04-15")
	monthly := create(t, f.a, map[string]any{"amount": "100", "startDate": "2024-01-31", "recurrence": "monthly", "category": "subscriptions"})
	if monthly["nextChargeOn"] != "2024-04-30" || monthly["totalCharged"] != "300.0000" {
		t.Fatalf("monthly %v", monthly)
	}
	if d := chargeDates(t, f.a, ""); !slices.Equal(d, []string{"2024-01-31", "2024-02-29", "2024-03-31"}) {
		t.Fatalf("month ends %v", d)
	}
	t.Run("Ended", func(t *testing.T) {
		e := create(t, f.b, map[string]any{"amount": "5", "currency": "USD", "startDate": "2024-01-31", "recurrence": "monthly", "endDate": "2024-03-30"})
		if e["nextChargeOn"] != nil || e["totalCharged"] != "10.0000" {
			t.Fatalf("ended %v", e)
		}
	})
	t.Run("JobMaterialisesANewMonthOnce", func(t *testing.T) {
		if n := f.runJob(t); n != 0 {
			t.Fatalf("the job wrote %d charges before any fell due", n)
		}
		f.travel(t, "2024-05-01")
		var wg sync.WaitGroup
		var total atomic.Int64
		for range 4 {
			wg.Go(func() {
				n, err := expenses.New(f.srv.App.DB, f.clock.now).MaterialiseDue(context.Background())
				if err != nil {
					t.Error(err)
				}
				total.Add(int64(n))
			})
		}
		wg.Wait()
		if total.Load() != 1 {
			t.Fatalf("concurrent runs wrote %d charges, want 1", total.Load())
		}
		if n := f.runJob(t); n != 0 {
			t.Fatalf("a second run wrote %d", n)
		}
		if d := chargeDates(t, f.a, ""); !slices.Equal(d, []string{"2024-01-31", "2024-02-29", "2024-03-31", "2024-04-30"}) {
			t.Fatalf("after the job %v", d)
		}
		got := apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/expenses/"+monthly["id"].(string), nil), 200), "expense")
		if got["nextChargeOn"] != "2024-05-31" || got["totalCharged"] != "400.0000" {
			t.Fatalf("after the job %v", got)
		}
		// Late: two months at once, back on the 31st.
		f.travel(t, "2024-07-02")
		if n := f.runJob(t); n != 2 {
			t.Fatalf("a late run wrote %d, want 2", n)
		}
		if d := chargeDates(t, f.a, "&from=2024-05-01"); !slices.Equal(d, []string{"2024-05-31", "2024-06-30"}) {
			t.Fatalf("late %v", d)
		}
	})
	t.Run("TodayIsTheUsersZone", func(t *testing.T) {
		apitest.Must(t, f.a.Do("PUT", "/api/users/me/timezone", map[string]any{"timezone": "Pacific/Kiritimati"}), 200) // UTC+14
		f.clock.set("2024-07-30T11:00:00Z")                                                                             // the 31st there
		create(t, f.a, map[string]any{"amount": "1", "startDate": "2024-07-31"})
		if d := chargeDates(t, f.a, "&from=2024-07-31"); !slices.Equal(d, []string{"2024-07-31"}) {
			t.Fatalf("zone %v", d)
		}
		if n := f.runJob(t); n != 1 { // the monthly's July 31st
			t.Fatalf("the job in the user's zone wrote %d, want 1", n)
		}
	})
}

func TestRecurringYearlyFrom29February(t *testing.T) {
	f := setup(t, "2027-03-01")
	y := create(t, f.b, map[string]any{"amount": "10", "currency": "USD", "startDate": "2024-02-29", "recurrence": "yearly"})
	if y["nextChargeOn"] != "2028-02-29" {
		t.Fatalf("yearly %v", y)
	}
	if d := chargeDates(t, f.b, ""); !slices.Equal(d, []string{"2024-02-29", "2025-02-28", "2026-02-28", "2027-02-28"}) {
		t.Fatalf("yearly %v", d)
	}
	f.travel(t, "2028-02-29")
	if n := f.runJob(t); n != 1 {
		t.Fatalf("the job wrote %d, want 1", n)
	}
	if d := chargeDates(t, f.b, "&from=2028-01-01"); !slices.Equal(d, []string{"2028-02-29"}) {
		t.Fatalf("yearly %v", d)
	}
}

func TestCategories(t *testing.T) {
	f := setup(t, "2024-06-10")
	r := apitest.Must(t, f.a.Do("POST", "/api/expense-categories", map[string]any{"name": " Coaching "}), 201)
	cat := apitest.Object(t, r, "category")
	id := cat["id"].(string)
	if cat["name"] != "Coaching" || cat["builtIn"] != false {
		t.Fatalf("%v", cat)
	}
	items := apitest.Items(t, apitest.Must(t, f.a.Do("GET", "/api/expense-categories", nil), 200))
	if len(items) != 7 || items[0].(map[string]any)["id"] != "data" || items[6].(map[string]any)["id"] != id {
		t.Fatalf("list %v", items)
	}
	for _, tc := range []struct {
		body   map[string]any
		status int
	}{
		{map[string]any{"name": "coaching"}, 409},
		{map[string]any{"name": "DATA"}, 409},
		{map[string]any{"name": ""}, 400},
		{map[string]any{"name": strings.Repeat("x", 51)}, 400},
		{map[string]any{}, 400},
	} {
		if r := f.a.Do("POST", "/api/expense-categories", tc.body); r.Status != tc.status {
			t.Errorf("%v: %d %s", tc.body, r.Status, r.Body)
		}
	}
	e := create(t, f.a, map[string]any{"amount": "1", "startDate": "2024-06-01", "category": id})
	if e["category"] != id || e["categoryName"] != "Coaching" {
		t.Fatalf("%v", e)
	}
	apitest.Must(t, f.a.Do("PATCH", "/api/expense-categories/"+id, map[string]any{"name": "Mentoring"}), 200)
	apitest.Must(t, f.b.Do("PATCH", "/api/expense-categories/"+id, map[string]any{"name": "x"}), 404)
	apitest.Must(t, f.a.Do("PATCH", "/api/expense-categories/data", map[string]any{"name": "x"}), 404)
	apitest.Must(t, f.b.Do("DELETE", "/api/expense-categories/"+id, nil), 404)
	if r := f.b.Do("POST", "/api/expenses", map[string]any{"amount": "1", "currency": "USD", "startDate": "2024-06-01", "category": id}); r.Status != 400 {
		t.Fatalf("b used a's category: %d %s", r.Status, r.Body)
	}
	r = apitest.Must(t, f.a.Do("DELETE", "/api/expense-categories/"+id, nil), 200)
	if r.JSON["movedToOther"] != float64(1) {
		t.Fatalf("%s", r.Body)
	}
	got := apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/expenses/"+e["id"].(string), nil), 200), "expense")
	if got["category"] != "other" || got["totalCharged"] != "1.0000" {
		t.Fatalf("after delete %v", got)
	}
}

func TestSummaryConverts(t *testing.T) {
	f := setup(t, "2024-06-10")
	apitest.Must(t, f.a.Do("POST", "/api/exchange-rates", map[string]any{"baseCurrency": "EUR", "quoteCurrency": "USD",
		"effectiveDate": "2024-01-01", "rate": "1.1"}), 201)
	create(t, f.a, map[string]any{"amount": "100", "currency": "EUR", "startDate": "2024-03-10", "category": "education"})
	create(t, f.a, map[string]any{"amount": "20", "startDate": "2024-03-31", "recurrence": "monthly", "category": "data"})
	sum := func(q string) map[string]any {
		return apitest.Must(t, f.a.Do("GET", "/api/expenses/summary"+q, nil), 200).JSON
	}
	s := sum("?from=2024-03-01&to=2024-05-31")
	total := s["total"].(map[string]any)
	if total["converted"] != "170.0000" || len(s["missing"].([]any)) != 0 || s["displayCurrency"] != "USD" || s["rateDay"] != "2024-06-10" {
		t.Fatalf("summary %v", s)
	}
	months := s["byMonth"].([]any)
	if len(months) != 3 || months[0].(map[string]any)["month"] != "2024-03" || months[0].(map[string]any)["converted"] != "130.0000" {
		t.Fatalf("months %v", months)
	}
	cats := s["byCategory"].([]any)
	if len(cats) != 2 || cats[1].(map[string]any)["category"] != "education" || cats[1].(map[string]any)["converted"] != "110.0000" {
		t.Fatalf("categories %v", cats)
	}
	t.Run("MissingRateNamed", func(t *testing.T) {
		gbp := create(t, f.a, map[string]any{"amount": "7", "currency": "GBP", "startDate": "2024-04-02", "category": "hardware"})
		s := sum("")
		if s["total"].(map[string]any)["converted"] != nil {
			t.Fatalf("a total with a missing rate: %v", s["total"])
		}
		missing := s["missing"].([]any)
		if len(missing) != 1 || missing[0].(map[string]any)["pair"] != "GBP/USD" || missing[0].(map[string]any)["day"] != "2024-06-10" {
			t.Fatalf("missing %v", missing)
		}
		for _, c := range s["byCategory"].([]any) {
			c := c.(map[string]any)
			if (c["converted"] == nil) != (c["category"] == "hardware") {
				t.Fatalf("category %v", c)
			}
		}
		apitest.Must(t, f.a.Do("DELETE", "/api/expenses/"+gbp["id"].(string), nil), 204)
		if s := sum(""); s["total"].(map[string]any)["converted"] != "170.0000" || len(s["missing"].([]any)) != 0 {
			t.Fatalf("after the delete %v", s)
		}
	})
	if r := f.a.Do("GET", "/api/expenses/summary?category=data", nil); r.Status != 400 {
		t.Fatalf("unknown parameter: %d", r.Status)
	}
}

func TestCSVRoundTrip(t *testing.T) {
	f := setup(t, "2024-06-10")
	cat := apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/expense-categories", map[string]any{"name": "Coaching"}), 201), "category")
	create(t, f.a, map[string]any{"amount": "29.99", "startDate": "2024-01-31", "recurrence": "monthly", "category": "data",
		"accountId": f.account, "note": "Level 2, \"pro\"\nsecond line"})
	create(t, f.a, map[string]any{"amount": "500", "currency": "EUR", "startDate": "2023-09-01", "recurrence": "yearly", "endDate": "2025-08-31",
		"category": cat["id"]})
	create(t, f.a, map[string]any{"amount": "1200.5", "startDate": "2024-02-14", "category": "hardware"})
	export := func(c *apitest.Client) string {
		t.Helper()
		r := apitest.Must(t, c.Do("GET", "/api/expenses/export", nil), 200)
		if ct := r.Header.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
			t.Fatalf("content type %q", ct)
		}
		return string(r.Body)
	}
	file := export(f.a)
	if !strings.HasPrefix(file, "Date,Amount,Currency,Category,Account,Recurrence,End Date,Note\n2023-09-01,500.0000,EUR,Coaching,,yearly,2025-08-31,\n") {
		t.Fatalf("export:\n%s", file)
	}

	// b has the same account and category names: the file comes back the same.
	apitest.Must(t, f.b.Do("POST", "/api/accounts", map[string]any{"name": "main", "currency": "USD", "startingBalance": "1"}), 201)
	apitest.Must(t, f.b.Do("POST", "/api/expense-categories", map[string]any{"name": "COACHING"}), 201)
	req := f.b.NewRequest("POST", "/api/expenses/import", file)
	req.Header.Set("Content-Type", "text/csv")
	r := apitest.Must(t, f.b.Send(req), 201)
	if r.JSON["imported"] != float64(3) {
		t.Fatalf("%s", r.Body)
	}
	again := export(f.b)
	want := strings.ReplaceAll(strings.ReplaceAll(file, "Coaching", "COACHING"), ",Main,", ",main,")
	if again != want {
		t.Fatalf("the round trip changed the file:\n%s\nwant\n%s", again, want)
	}

	t.Run("Multipart", func(t *testing.T) {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		part, _ := mw.CreateFormFile("file", "expenses.csv")
		_, _ = part.Write([]byte("amount,DATE,end_date\n5,2024-05-05,\n"))
		_ = mw.Close()
		req := f.a.NewRequest("POST", "/api/expenses/import", body.String())
		req.Header.Set("Content-Type", mw.FormDataContentType())
		r := apitest.Must(t, f.a.Send(req), 201)
		if r.JSON["imported"] != float64(1) {
			t.Fatalf("%s", r.Body)
		}
	})
	t.Run("BadRowRefusesTheWholeFile", func(t *testing.T) {
		before := export(f.a)
		bad := "Date,Amount,Currency,Category,Account\n2024-01-01,10,USD,data,\n10000-01-01,10,USD,data,\n2024-01-02,-3,USD,food,Nope\n"
		req := f.a.NewRequest("POST", "/api/expenses/import", bad)
		req.Header.Set("Content-Type", "text/csv")
		r := f.a.Send(req)
		if r.Status != 400 || r.ErrorCode() != "VALIDATION_ERROR" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		for _, field := range []string{"rows[3].date", "rows[4].amount", "rows[4].category", "rows[4].account"} {
			if r.DetailMessage(field) == "" {
				t.Errorf("no detail for %s: %s", field, r.Body)
			}
		}
		if export(f.a) != before {
			t.Fatal("a refused file wrote something")
		}
	})
	t.Run("Refusals", func(t *testing.T) {
		for _, tc := range []struct {
			ct, body string
			status   int
		}{
			{"text/csv", "", 400},
			{"text/csv", "Date,Amount\n", 400},
			{"text/csv", "Date,Cost\n2024-01-01,1\n", 400},
			{"text/csv", "Date,Amount,Amount\n2024-01-01,1,1\n", 400},
			{"text/csv", "Date,Amount\n\"2024-01-01,1\n", 400},
			{"application/json", "{}", 415},
			{"text/csv", "Date,Amount\n" + strings.Repeat("2024-01-01,1\n", 200_000), 413},
			{"text/csv", "Date,Amount\n" + strings.Repeat("2024-01-01,1\n", expenses.MaxImportRows+1), 400},
		} {
			req := f.a.NewRequest("POST", "/api/expenses/import", tc.body)
			req.Header.Set("Content-Type", tc.ct)
			if r := f.a.Send(req); r.Status != tc.status {
				t.Errorf("%.40q: %d %.300s, want %d", tc.body, r.Status, r.Body, tc.status)
			}
		}
	})
	_ = http.StatusOK
}

func TestPerformanceNetOfExpenses(t *testing.T) {
	f := setup(t, "2024-06-10")
	apitest.Must(t, f.a.Do("POST", "/api/positions", map[string]any{
		"accountId": f.account, "symbol": "AAPL", "assetType": "stock", "side": "long",
		"fills": []any{
			map[string]any{"type": "entry", "price": "100", "quantity": "10", "filledAt": "2024-03-01T14:00:00Z"},
			map[string]any{"type": "exit", "price": "110", "quantity": "10", "filledAt": "2024-03-01T15:00:00Z"},
		},
	}), 201)
	perf := func(q string) apitest.Response {
		t.Helper()
		return apitest.Must(t, f.a.Do("GET", "/api/performance"+q, nil), 200)
	}
	before := perf("").Body

	apitest.Must(t, f.a.Do("POST", "/api/exchange-rates", map[string]any{"baseCurrency": "EUR", "quoteCurrency": "USD",
		"effectiveDate": "2024-01-01", "rate": "1.1"}), 201)
	after := perf("").Body
	create(t, f.a, map[string]any{"amount": "20", "startDate": "2024-03-31", "recurrence": "monthly", "category": "data"})
	create(t, f.a, map[string]any{"amount": "100", "currency": "EUR", "startDate": "2024-03-10", "category": "education", "accountId": f.account})

	t.Run("OffIsUnchanged", func(t *testing.T) {
		if got := perf("").Body; !bytes.Equal(got, after) {
			t.Fatalf("expenses changed the report:\n%s\nwant\n%s", got, after)
		}
		if got := perf("?netOfExpenses=false").Body; !bytes.Equal(got, after) {
			t.Fatal("netOfExpenses=false changed the report")
		}
		if bytes.Contains(before, []byte("expenses")) || len(before) != len(after) {
			t.Fatalf("the report before any expense: %s", before)
		}
	})
	net := func(q string) (total map[string]any, exp map[string]any, netAfter any) {
		t.Helper()
		r := perf("?netOfExpenses=true" + q)
		total, _ = r.JSON["total"].(map[string]any)
		exp, _ = r.JSON["expenses"].(map[string]any)
		if exp == nil {
			t.Fatalf("no expenses: %s", r.Body)
		}
		return total, exp, r.JSON["netAfterExpenses"]
	}
	t.Run("On", func(t *testing.T) {
		total, exp, netAfter := net("")
		summary := total["summary"].(map[string]any)
		if summary["netPnl"] != "100.0000" || summary["trades"] != float64(1) || summary["winRate"] != "100.00" {
			t.Fatalf("the trades' figures moved: %v", summary)
		}
		if exp["total"] != "170.0000" || netAfter != "-70.0000" {
			t.Fatalf("expenses %v, net %v", exp, netAfter)
		}
		months := exp["byMonth"].([]any)
		if len(months) != 3 || months[0].(map[string]any)["netAfterExpenses"] != "-30.0000" ||
			months[1].(map[string]any)["netAfterExpenses"] != "-20.0000" {
			t.Fatalf("months %v", months)
		}
		// An account filter keeps that account's expenses only.
		if _, exp, netAfter := net("&accountId=" + f.account); exp["total"] != "110.0000" || netAfter != "-10.0000" {
			t.Fatalf("account: %v %v", exp, netAfter)
		}
		// The date range is the charges' too.
		if _, exp, _ := net("&from=2024-04-01&to=2024-04-30"); exp["total"] != "20.0000" {
			t.Fatalf("range: %v", exp)
		}
	})
	t.Run("MissingRateAndDelete", func(t *testing.T) {
		gbp := create(t, f.a, map[string]any{"amount": "7", "currency": "GBP", "startDate": "2024-04-02"})
		total, exp, netAfter := net("")
		if exp["total"] != nil || netAfter != nil || total["summary"].(map[string]any)["netPnl"] != "100.0000" {
			t.Fatalf("with a missing rate: %v %v", exp, netAfter)
		}
		if m := exp["missingPairs"].([]any); len(m) != 1 || m[0] != "GBP/USD" {
			t.Fatalf("missing %v", m)
		}
		apitest.Must(t, f.a.Do("DELETE", "/api/expenses/"+gbp["id"].(string), nil), 204)
		if _, exp, netAfter := net(""); exp["total"] != "170.0000" || netAfter != "-70.0000" {
			t.Fatalf("after the delete: %v %v", exp, netAfter)
		}
	})
	if r := f.a.Do("GET", "/api/performance?netOfExpenses=yes", nil); r.Status != 400 || r.DetailMessage("netOfExpenses") == "" {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
}
