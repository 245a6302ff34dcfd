package currency_test

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/db"
)

// clock is the tests' now: 02:30 UTC on 10 March 2024, which is still
// 9 March in New York. Rates dated the 10th are in force for a UTC user and
// not yet for a New York one.
var clock = time.Date(2024, 3, 10, 2, 30, 0, 0, time.UTC)

func start(t *testing.T) *apitest.Server {
	t.Helper()
	return apitest.StartAt(t, apitest.Config(t), func() time.Time { return clock }, functions.All)
}

// signUp registers a user and returns its client and id.
func signUp(t *testing.T, srv *apitest.Server, email string) (*apitest.Client, string) {
	t.Helper()
	c := srv.Client(t)
	r := c.Register(email, "password1")
	return c, r.JSON["user"].(map[string]any)["id"].(string)
}

func exec(t *testing.T, srv *apitest.Server, sql string, args ...any) {
	t.Helper()
	if _, err := srv.App.DB.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// account inserts an account row directly (the accounts routes belong to
// another group): only what the totals read.
func account(t *testing.T, srv *apitest.Server, userID, currency, balance string, archived bool) string {
	t.Helper()
	var id string
	err := srv.App.DB.QueryRow(context.Background(),
		`INSERT INTO accounts (user_id, name, currency, starting_balance, balance, archived) VALUES ($1, $2, $3, $4, $4, $5) RETURNING id::text`,
		userID, currency+" account "+db.NewUUID().String()[:8], currency, balance, archived).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func rateBody(base, quote, date, rate string) map[string]any {
	return map[string]any{"baseCurrency": base, "quoteCurrency": quote, "effectiveDate": date, "rate": rate}
}

func postRate(t *testing.T, c *apitest.Client, base, quote, date, rate string) map[string]any {
	t.Helper()
	r := c.Do("POST", "/api/exchange-rates", rateBody(base, quote, date, rate))
	if r.Status != 201 && r.Status != 200 {
		t.Fatalf("post rate: %d %s", r.Status, r.Body)
	}
	return r.JSON["rate"].(map[string]any)
}

func setDisplay(t *testing.T, c *apitest.Client, code string) {
	t.Helper()
	if r := c.Do("PUT", "/api/users/me/display-currency", map[string]any{"currency": code}); r.Status != 200 {
		t.Fatalf("display currency: %d %s", r.Status, r.Body)
	}
}

func TestExchangeRatesCRUD(t *testing.T) {
	srv := start(t)
	c, _ := signUp(t, srv, "fx@example.com")
	other, _ := signUp(t, srv, "other@example.com")

	var id string
	t.Run("Created", func(t *testing.T) {
		r := c.Do("POST", "/api/exchange-rates", rateBody("EUR", "USD", "2024-03-01", "1.0850"))
		if r.Status != 201 {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		rate := r.JSON["rate"].(map[string]any)
		id, _ = rate["id"].(string)
		if len(id) != 36 || rate["baseCurrency"] != "EUR" || rate["quoteCurrency"] != "USD" ||
			rate["effectiveDate"] != "2024-03-01" || rate["rate"] != "1.085" ||
			rate["createdAt"] != "2024-03-10T02:30:00Z" || rate["updatedAt"] != "2024-03-10T02:30:00Z" {
			t.Fatalf("rate %v", rate)
		}
	})
	t.Run("SameDayIsAnUpdate", func(t *testing.T) {
		r := c.Do("POST", "/api/exchange-rates", rateBody("eur", "usd", "2024-03-01", "1.09"))
		if r.Status != 200 {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		rate := r.JSON["rate"].(map[string]any)
		if rate["id"] != id || rate["rate"] != "1.09" || rate["baseCurrency"] != "EUR" {
			t.Fatalf("rate %v", rate)
		}
	})
	t.Run("OtherDayIsNew", func(t *testing.T) {
		if r := c.Do("POST", "/api/exchange-rates", rateBody("EUR", "USD", "2024-03-02", "1.1")); r.Status != 201 {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
	})
	t.Run("ReversePairIsItsOwnRate", func(t *testing.T) {
		if r := c.Do("POST", "/api/exchange-rates", rateBody("USD", "EUR", "2024-03-01", "0.9")); r.Status != 201 {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
	})
	t.Run("OtherUsersSameKeyIsTheirOwn", func(t *testing.T) {
		if r := other.Do("POST", "/api/exchange-rates", rateBody("EUR", "USD", "2024-03-01", "2")); r.Status != 201 {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
	})
	t.Run("List", func(t *testing.T) {
		r := c.Do("GET", "/api/exchange-rates", nil)
		items, _ := r.JSON["items"].([]any)
		if r.Status != 200 || len(items) != 3 || r.JSON["nextCursor"] != nil {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		var got []string
		for _, it := range items {
			m := it.(map[string]any)
			got = append(got, fmt.Sprint(m["baseCurrency"], "/", m["quoteCurrency"], " ", m["effectiveDate"], " ", m["rate"]))
		}
		want := []string{"EUR/USD 2024-03-02 1.1", "EUR/USD 2024-03-01 1.09", "USD/EUR 2024-03-01 0.9"}
		if !slices.Equal(got, want) {
			t.Fatalf("list %v, want %v", got, want)
		}
	})
	t.Run("ReadOne", func(t *testing.T) {
		r := c.Do("GET", "/api/exchange-rates/"+id, nil)
		rate, _ := r.JSON["rate"].(map[string]any)
		if r.Status != 200 || rate["id"] != id || rate["rate"] != "1.09" || rate["effectiveDate"] != "2024-03-01" || rate["baseCurrency"] != "EUR" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		apitest.Run(t, other, []apitest.Case{{Name: "Others", Method: "GET", Path: "/api/exchange-rates/" + id, Status: 404}})
		apitest.Run(t, c, []apitest.Case{
			{Name: "Missing", Method: "GET", Path: "/api/exchange-rates/00000000-0000-4000-8000-000000000000", Status: 404},
			{Name: "Malformed", Method: "GET", Path: "/api/exchange-rates/42", Status: 404},
			{Name: "PreviewIsNotARate", Method: "GET", Path: "/api/exchange-rates/preview", Status: 404},
		})
	})
	t.Run("DeleteOthersIs404", func(t *testing.T) {
		apitest.Run(t, other, []apitest.Case{{Name: "Delete", Method: "DELETE", Path: "/api/exchange-rates/" + id, Status: 404}})
	})
	apitest.Run(t, c, []apitest.Case{
		{Name: "Delete", Method: "DELETE", Path: "/api/exchange-rates/" + id, Status: 204},
		{Name: "DeleteAgain", Method: "DELETE", Path: "/api/exchange-rates/" + id, Status: 404},
		{Name: "DeleteUnknown", Method: "DELETE", Path: "/api/exchange-rates/00000000-0000-4000-8000-000000000000", Status: 404},
		{Name: "DeleteMalformed", Method: "DELETE", Path: "/api/exchange-rates/not-a-uuid", Status: 404},
		{Name: "DeleteUppercaseUUID", Method: "DELETE", Path: "/api/exchange-rates/" + strings.ToUpper(id), Status: 404},
		{Name: "GetOneIsNotARoute", Method: "GET", Path: "/api/exchange-rates/" + id, Status: 404},
		{Name: "PutIsNotARoute", Method: "PUT", Path: "/api/exchange-rates", Body: rateBody("EUR", "USD", "2024-03-01", "1"), Status: 404},
	})
	t.Run("SignedOut", func(t *testing.T) {
		apitest.Run(t, srv.Client(t), []apitest.Case{
			{Name: "List", Method: "GET", Path: "/api/exchange-rates", Status: 401, Code: "UNAUTHENTICATED"},
			{Name: "Post", Method: "POST", Path: "/api/exchange-rates", Body: rateBody("EUR", "USD", "2024-03-01", "1"), Status: 401, Code: "UNAUTHENTICATED"},
			{Name: "Delete", Method: "DELETE", Path: "/api/exchange-rates/" + id, Status: 401, Code: "UNAUTHENTICATED"},
			{Name: "Preview", Method: "POST", Path: "/api/exchange-rates/preview", Body: map[string]any{"intent": "delete", "rateId": id}, Status: 401, Code: "UNAUTHENTICATED"},
			{Name: "Totals", Method: "GET", Path: "/api/dashboard/totals", Status: 401, Code: "UNAUTHENTICATED"},
		})
	})
}

// badRates are rate bodies each refused with 400 VALIDATION_ERROR, and the
// field every detail must name.
var badRates = []struct {
	name  string
	body  any
	field string
}{
	{"UnknownBase", rateBody("ABC", "USD", "2024-03-01", "1"), "baseCurrency"},
	{"UnknownQuote", rateBody("EUR", "ZZZ", "2024-03-01", "1"), "quoteCurrency"},
	{"MetalIsNotMoney", rateBody("XAU", "USD", "2024-03-01", "1"), "baseCurrency"},
	{"TwoLetters", rateBody("EU", "USD", "2024-03-01", "1"), "baseCurrency"},
	{"FourLetters", rateBody("EURO", "USD", "2024-03-01", "1"), "baseCurrency"},
	{"Digits", rateBody("E1R", "USD", "2024-03-01", "1"), "baseCurrency"},
	{"Padded", rateBody(" EUR", "USD", "2024-03-01", "1"), "baseCurrency"},
	{"NonASCII", rateBody("ÉUR", "USD", "2024-03-01", "1"), "baseCurrency"},
	{"MissingBase", map[string]any{"quoteCurrency": "USD", "effectiveDate": "2024-03-01", "rate": "1"}, "baseCurrency"},
	{"SameCurrency", rateBody("USD", "usd", "2024-03-01", "1"), "quoteCurrency"},
	{"BadDate", rateBody("EUR", "USD", "2024-02-30", "1"), "effectiveDate"},
	{"DateWithTime", rateBody("EUR", "USD", "2024-03-01T00:00:00Z", "1"), "effectiveDate"},
	{"ShortDate", rateBody("EUR", "USD", "2024-3-1", "1"), "effectiveDate"},
	{"SlashDate", rateBody("EUR", "USD", "2024/03/01", "1"), "effectiveDate"},
	{"YearZero", rateBody("EUR", "USD", "0000-01-01", "1"), "effectiveDate"},
	{"TooOld", rateBody("EUR", "USD", "1899-12-31", "1"), "effectiveDate"},
	{"MissingDate", map[string]any{"baseCurrency": "EUR", "quoteCurrency": "USD", "rate": "1"}, "effectiveDate"},
	{"ZeroRate", rateBody("EUR", "USD", "2024-03-01", "0"), "rate"},
	{"ZeroRateWithPlaces", rateBody("EUR", "USD", "2024-03-01", "0.000000000000"), "rate"},
	{"NegativeRate", rateBody("EUR", "USD", "2024-03-01", "-1.1"), "rate"},
	{"ThirteenPlaces", rateBody("EUR", "USD", "2024-03-01", "1.0000000000001"), "rate"},
	{"ThirteenPlacesTrailingZero", rateBody("EUR", "USD", "2024-03-01", "1.1000000000000"), "rate"},
	{"TooLarge", rateBody("EUR", "USD", "2024-03-01", "1000000000000000000"), "rate"},
	{"Exponent", rateBody("EUR", "USD", "2024-03-01", "1e3"), "rate"},
	{"NotANumber", rateBody("EUR", "USD", "2024-03-01", "NaN"), "rate"},
	{"EmptyRate", rateBody("EUR", "USD", "2024-03-01", ""), "rate"},
	{"RateAsNumber", map[string]any{"baseCurrency": "EUR", "quoteCurrency": "USD", "effectiveDate": "2024-03-01", "rate": 1.1}, "rate"},
	{"UnknownField", map[string]any{"baseCurrency": "EUR", "quoteCurrency": "USD", "effectiveDate": "2024-03-01", "rate": "1", "id": "x"}, "id"},
}

func TestExchangeRateBadInput(t *testing.T) {
	srv := start(t)
	c, _ := signUp(t, srv, "bad@example.com")
	for _, tc := range badRates {
		t.Run(tc.name, func(t *testing.T) {
			r := c.Do("POST", "/api/exchange-rates", tc.body)
			if r.Status != 400 || r.ErrorCode() != "VALIDATION_ERROR" {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
			apitest.CheckErrorShape(t, r)
			details, _ := r.JSON["error"].(map[string]any)["details"].([]any)
			if len(details) != 1 || details[0].(map[string]any)["field"] != tc.field {
				t.Fatalf("details %v, want one on %s", details, tc.field)
			}
		})
	}
	t.Run("EveryProblemReported", func(t *testing.T) {
		r := c.Do("POST", "/api/exchange-rates", rateBody("EU", "XXX", "2024-13-01", "-1"))
		details, _ := r.JSON["error"].(map[string]any)["details"].([]any)
		if r.Status != 400 || len(details) != 4 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	apitest.Run(t, c, []apitest.Case{
		{Name: "MalformedJSON", Method: "POST", Path: "/api/exchange-rates", Body: `{"baseCurrency":`, Status: 400, Code: "INVALID_JSON"},
		{Name: "Array", Method: "POST", Path: "/api/exchange-rates", Body: `[]`, Status: 400, Code: "INVALID_JSON"},
		{Name: "Empty", Method: "POST", Path: "/api/exchange-rates", Body: `{}`, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "Largest", Method: "POST", Path: "/api/exchange-rates", Body: rateBody("EUR", "USD", "9999-12-31", "999999999999999999.999999999999"), Status: 201},
		{Name: "Smallest", Method: "POST", Path: "/api/exchange-rates", Body: rateBody("JPY", "USD", "1900-01-01", "0.000000000001"), Status: 201},
	})
	var n int
	if err := srv.App.DB.QueryRow(context.Background(), `SELECT count(*) FROM exchange_rates`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("%d rates stored (%v), want only the 2 valid ones", n, err)
	}
}

func TestExchangeRateList(t *testing.T) {
	srv := start(t)
	c, _ := signUp(t, srv, "list@example.com")
	for _, r := range [][4]string{
		{"USD", "JPY", "2024-01-01", "150"}, {"EUR", "USD", "2024-01-01", "1.1"}, {"EUR", "USD", "2024-02-01", "1.2"},
		{"EUR", "GBP", "2024-01-01", "0.85"}, {"EUR", "USD", "2024-03-01", "1.3"}, {"GBP", "USD", "2024-01-01", "1.27"},
	} {
		postRate(t, c, r[0], r[1], r[2], r[3])
	}
	want := []string{"EUR/GBP 2024-01-01", "EUR/USD 2024-03-01", "EUR/USD 2024-02-01", "EUR/USD 2024-01-01", "GBP/USD 2024-01-01", "USD/JPY 2024-01-01"}
	page := func(t *testing.T, query string) ([]string, string) {
		t.Helper()
		r := c.Do("GET", "/api/exchange-rates"+query, nil)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", query, r.Status, r.Body)
		}
		var got []string
		for _, it := range r.JSON["items"].([]any) {
			m := it.(map[string]any)
			got = append(got, fmt.Sprint(m["baseCurrency"], "/", m["quoteCurrency"], " ", m["effectiveDate"]))
		}
		next, _ := r.JSON["nextCursor"].(string)
		return got, next
	}
	t.Run("PagesOfTwo", func(t *testing.T) {
		var all []string
		cursor, pages := "", 0
		for {
			got, next := page(t, "?limit=2&cursor="+url.QueryEscape(cursor))
			all, pages = append(all, got...), pages+1
			if next == "" {
				break
			}
			cursor = next
		}
		if !slices.Equal(all, want) || pages != 3 {
			t.Fatalf("%d pages %v, want %v", pages, all, want)
		}
	})
	t.Run("Filters", func(t *testing.T) {
		if got, _ := page(t, "?base=EUR&quote=usd"); !slices.Equal(got, want[1:4]) {
			t.Fatalf("%v", got)
		}
		if got, _ := page(t, "?quote=USD&limit=1"); !slices.Equal(got, want[1:2]) {
			t.Fatalf("%v", got)
		}
	})
	t.Run("BadCursorIsFirstPage", func(t *testing.T) {
		for _, cur := range []string{"x", "!!!", "RVVSVVNEMjAyNC0xMy0wMQ", strings.Repeat("A", 100)} {
			if got, _ := page(t, "?limit=1&cursor="+cur); !slices.Equal(got, want[:1]) {
				t.Fatalf("cursor %q: %v", cur, got)
			}
		}
	})
	t.Run("LimitClamped", func(t *testing.T) {
		if got, _ := page(t, "?limit=0"); len(got) != 1 {
			t.Fatalf("%v", got)
		}
		if got, _ := page(t, "?limit=99999999999999999999"); len(got) != 6 {
			t.Fatalf("%v", got)
		}
	})
	apitest.Run(t, c, []apitest.Case{
		{Name: "LimitNotANumber", Method: "GET", Path: "/api/exchange-rates?limit=ten", Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "BadBase", Method: "GET", Path: "/api/exchange-rates?base=EURO", Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "UnknownQuote", Method: "GET", Path: "/api/exchange-rates?quote=ZZZ", Status: 400, Code: "VALIDATION_ERROR"},
	})
	t.Run("OtherUserSeesNone", func(t *testing.T) {
		o, _ := signUp(t, srv, "nobody@example.com")
		r := o.Do("GET", "/api/exchange-rates", nil)
		if r.Status != 200 || len(r.JSON["items"].([]any)) != 0 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
}

func totals(t *testing.T, c *apitest.Client) (display any, total any, missing []string) {
	t.Helper()
	r := c.Do("GET", "/api/dashboard/totals", nil)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	pairs, ok := r.JSON["missingPairs"].([]any)
	if !ok {
		t.Fatalf("missingPairs is not an array: %s", r.Body)
	}
	for _, p := range pairs {
		missing = append(missing, p.(string))
	}
	return r.JSON["displayCurrency"], r.JSON["total"], missing
}

func TestDashboardTotals(t *testing.T) {
	srv := start(t)
	c, id := signUp(t, srv, "dash@example.com")

	t.Run("NoDisplayCurrency", func(t *testing.T) {
		account(t, srv, id, "USD", "1000.5", false)
		if d, total, missing := totals(t, c); d != nil || total != nil || len(missing) != 0 {
			t.Fatalf("%v %v %v", d, total, missing)
		}
	})
	setDisplay(t, c, "USD")
	t.Run("OneCurrency", func(t *testing.T) {
		if d, total, missing := totals(t, c); d != "USD" || total != "1000.5000" || len(missing) != 0 {
			t.Fatalf("%v %v %v", d, total, missing)
		}
	})
	account(t, srv, id, "EUR", "200", true) // archived: its money still counts
	account(t, srv, id, "EUR", "300", false)
	account(t, srv, id, "JPY", "15000", false)
	account(t, srv, id, "GBP", "0", false)
	t.Run("MissingPairsSorted", func(t *testing.T) {
		if _, total, missing := totals(t, c); total != nil || !slices.Equal(missing, []string{"EUR/USD", "GBP/USD", "JPY/USD"}) {
			t.Fatalf("%v %v", total, missing)
		}
	})
	postRate(t, c, "EUR", "USD", "2024-03-01", "1.1")
	postRate(t, c, "EUR", "USD", "2024-03-10", "5") // in force today for a UTC user
	postRate(t, c, "EUR", "USD", "2024-03-11", "9") // tomorrow everywhere
	postRate(t, c, "USD", "JPY", "2024-01-01", "150")
	postRate(t, c, "GBP", "EUR", "2024-01-01", "1.2") // no use: no conversion through a third currency
	t.Run("StillMissingGBP", func(t *testing.T) {
		if _, total, missing := totals(t, c); total != nil || !slices.Equal(missing, []string{"GBP/USD"}) {
			t.Fatalf("%v %v", total, missing)
		}
	})
	postRate(t, c, "USD", "GBP", "2024-01-01", "0.8")
	t.Run("Total", func(t *testing.T) {
		// 1000.5 + 500 x 5 + 15000 / 150 + 0 = 3600.5
		if _, total, missing := totals(t, c); total != "3600.5000" || len(missing) != 0 {
			t.Fatalf("%v %v", total, missing)
		}
	})
	t.Run("TodayInReportingZone", func(t *testing.T) {
		if r := c.Do("PUT", "/api/users/me/timezone", map[string]any{"timezone": "America/New_York"}); r.Status != 200 {
			t.Fatal(r.Status)
		}
		// Still 9 March in New York: the rate of the 10th is not in force.
		if _, total, _ := totals(t, c); total != "1650.5000" {
			t.Fatalf("%v", total)
		}
	})
	t.Run("RoundedHalfUp", func(t *testing.T) {
		exec(t, srv, `UPDATE accounts SET balance = 0.0001 WHERE user_id = $1 AND currency = 'JPY'`, id)
		exec(t, srv, `UPDATE accounts SET balance = 0 WHERE user_id = $1 AND currency <> 'JPY'`, id)
		postRate(t, c, "USD", "JPY", "2024-01-01", "0.2") // 0.0001 JPY = 0.0005 USD
		if _, total, _ := totals(t, c); total != "0.0005" {
			t.Fatalf("%v", total)
		}
		postRate(t, c, "USD", "JPY", "2024-01-01", "0.4") // 0.00025 rounds up
		if _, total, _ := totals(t, c); total != "0.0003" {
			t.Fatalf("%v", total)
		}
		exec(t, srv, `UPDATE accounts SET balance = -0.0001 WHERE user_id = $1 AND currency = 'JPY'`, id)
		if _, total, _ := totals(t, c); total != "-0.0003" {
			t.Fatalf("%v", total)
		}
	})
	t.Run("OtherUserUnaffected", func(t *testing.T) {
		o, _ := signUp(t, srv, "dash2@example.com")
		setDisplay(t, o, "EUR")
		if d, total, missing := totals(t, o); d != "EUR" || total != "0.0000" || len(missing) != 0 {
			t.Fatalf("%v %v %v", d, total, missing)
		}
	})
}

// snapshot is every row of every table of the schema, as text: proof that
// the preview wrote nothing anywhere.
func snapshot(t *testing.T, srv *apitest.Server) string {
	t.Helper()
	ctx := context.Background()
	rows, err := srv.App.DB.Query(ctx, `SELECT quote_ident(table_name) FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(tables) < 10 {
		t.Fatalf("tables %v: %v", tables, err)
	}
	var b strings.Builder
	for _, table := range tables {
		var s string
		q := `SELECT coalesce(string_agg(t::text, ',' ORDER BY t::text), '') FROM ` + table + ` t`
		if err := srv.App.DB.QueryRow(ctx, q).Scan(&s); err != nil {
			t.Fatal(err)
		}
		b.WriteString(table + ": " + s + "\n")
	}
	return b.String()
}

func TestPreview(t *testing.T) {
	srv := start(t)
	c, id := signUp(t, srv, "preview@example.com")
	other, _ := signUp(t, srv, "someone@example.com")
	const path = "/api/exchange-rates/preview"
	upsert := func(base, quote, date, rate string) map[string]any {
		return map[string]any{"intent": "upsert", "rate": rateBody(base, quote, date, rate)}
	}
	del := func(id string) map[string]any { return map[string]any{"intent": "delete", "rateId": id} }

	account(t, srv, id, "USD", "1000", false)
	account(t, srv, id, "EUR", "1000", false)
	old := postRate(t, c, "EUR", "USD", "2024-01-01", "1.00")["id"].(string)
	latest := postRate(t, c, "EUR", "USD", "2024-03-01", "1.10")["id"].(string)
	future := postRate(t, c, "EUR", "USD", "2024-04-01", "2")["id"].(string)
	unrelated := postRate(t, c, "GBP", "JPY", "2024-01-01", "190")["id"].(string)
	othersRate := postRate(t, other, "EUR", "USD", "2024-03-05", "3")["id"].(string)

	preview := func(t *testing.T, body any) map[string]any {
		t.Helper()
		r := c.Do("POST", path, body)
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		return r.JSON
	}
	t.Run("NoDisplayCurrency", func(t *testing.T) {
		got := preview(t, upsert("EUR", "USD", "2024-03-05", "5"))
		want := map[string]any{"beforeTotal": nil, "afterTotal": nil, "displayCurrency": nil, "exceedsThreshold": false}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%v", got)
		}
	})
	t.Run("NoDisplayCurrencyStillChecksTheRate", func(t *testing.T) {
		apitest.Run(t, c, []apitest.Case{{Name: "Missing", Method: "POST", Path: path, Body: del(othersRate), Status: 404}})
	})
	setDisplay(t, c, "USD")

	for _, tc := range []struct {
		name          string
		body          any
		before, after any
		exceeds       bool
	}{
		{"SmallMove", upsert("EUR", "USD", "2024-03-05", "1.15"), "2100.0000", "2150.0000", false},
		{"ExactlyFivePercent", upsert("EUR", "USD", "2024-03-05", "1.205"), "2100.0000", "2205.0000", false},
		{"OverFivePercent", upsert("EUR", "USD", "2024-03-05", "1.2051"), "2100.0000", "2205.1000", true},
		{"ReplaceRateInForce", upsert("eur", "usd", "2024-03-01", "1.12"), "2100.0000", "2120.0000", false},
		{"FutureRate", upsert("EUR", "USD", "2024-03-11", "9"), "2100.0000", "2100.0000", false},
		{"ReversePairDoesNotBeatDirect", upsert("USD", "EUR", "2024-03-09", "0.1"), "2100.0000", "2100.0000", false},
		{"UnrelatedPair", upsert("GBP", "JPY", "2024-03-09", "1"), "2100.0000", "2100.0000", false},
		{"DeleteRateInForce", del(latest), "2100.0000", "2000.0000", false},
		{"DeleteOlderRate", del(old), "2100.0000", "2100.0000", false},
		{"DeleteFutureRate", del(future), "2100.0000", "2100.0000", false},
		{"DeleteUnrelatedRate", del(unrelated), "2100.0000", "2100.0000", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := preview(t, tc.body)
			if got["beforeTotal"] != tc.before || got["afterTotal"] != tc.after || got["exceedsThreshold"] != tc.exceeds || got["displayCurrency"] != "USD" {
				t.Fatalf("%v", got)
			}
		})
	}
	t.Run("TotalAppears", func(t *testing.T) {
		account(t, srv, id, "JPY", "15000", false)
		got := preview(t, upsert("USD", "JPY", "2024-03-01", "150"))
		if got["beforeTotal"] != nil || got["afterTotal"] != "2200.0000" || got["exceedsThreshold"] != true {
			t.Fatalf("%v", got)
		}
		exec(t, srv, `DELETE FROM accounts WHERE currency = 'JPY'`)
	})
	t.Run("TotalDisappears", func(t *testing.T) {
		exec(t, srv, `DELETE FROM exchange_rates WHERE id = $1`, old)
		got := preview(t, del(latest))
		if got["beforeTotal"] != "2100.0000" || got["afterTotal"] != nil || got["exceedsThreshold"] != true {
			t.Fatalf("%v", got)
		}
	})
	t.Run("BadInput", func(t *testing.T) {
		cases := []apitest.Case{
			{Name: "NoIntent", Body: map[string]any{"rate": rateBody("EUR", "USD", "2024-03-01", "1")}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "UnknownIntent", Body: map[string]any{"intent": "replace", "rateId": latest}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "UpsertWithoutRate", Body: map[string]any{"intent": "upsert"}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "UpsertWithRateID", Body: map[string]any{"intent": "upsert", "rate": rateBody("EUR", "USD", "2024-03-01", "1"), "rateId": latest}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "DeleteWithoutID", Body: map[string]any{"intent": "delete"}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "DeleteEmptyID", Body: map[string]any{"intent": "delete", "rateId": ""}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "DeleteWithRate", Body: map[string]any{"intent": "delete", "rateId": latest, "rate": rateBody("EUR", "USD", "2024-03-01", "1")}, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "DeleteOthersRate", Body: del(othersRate), Status: 404},
			{Name: "DeleteUnknownRate", Body: del("00000000-0000-4000-8000-000000000000"), Status: 404},
			{Name: "DeleteMalformedID", Body: del("42"), Status: 404},
			{Name: "RateIDNumber", Body: `{"intent":"delete","rateId":42}`, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "RateNotObject", Body: `{"intent":"upsert","rate":"1.1"}`, Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "Malformed", Body: `{"intent":`, Status: 400, Code: "INVALID_JSON"},
			{Name: "UnknownField", Body: map[string]any{"intent": "delete", "rateId": latest, "force": true}, Status: 400, Code: "VALIDATION_ERROR"},
		}
		for _, b := range badRates {
			if b.field == "id" {
				continue // an unknown field inside rate: covered above
			}
			cases = append(cases, apitest.Case{Name: "Rate/" + b.name, Body: map[string]any{"intent": "upsert", "rate": b.body}, Status: 400, Code: "VALIDATION_ERROR"})
		}
		for i := range cases {
			cases[i].Method, cases[i].Path = "POST", path
		}
		apitest.Run(t, c, cases)
	})
	t.Run("DetailsNameNestedFields", func(t *testing.T) {
		r := c.Do("POST", path, upsert("EUR", "EUR", "2024-03-01", "0"))
		details, _ := r.JSON["error"].(map[string]any)["details"].([]any)
		var fields []string
		for _, d := range details {
			fields = append(fields, d.(map[string]any)["field"].(string))
		}
		if !slices.Equal(fields, []string{"rate.quoteCurrency", "rate.rate"}) {
			t.Fatalf("%s", r.Body)
		}
	})
}

// TestPreviewWritesNothing runs every kind of preview and compares every
// row of the tables it reads before and after.
func TestPreviewWritesNothing(t *testing.T) {
	srv := start(t)
	c, id := signUp(t, srv, "readonly@example.com")
	account(t, srv, id, "EUR", "1000", false)
	setDisplay(t, c, "USD")
	rid := postRate(t, c, "EUR", "USD", "2024-03-01", "1.1")["id"].(string)

	before := snapshot(t, srv)
	for _, body := range []any{
		map[string]any{"intent": "upsert", "rate": rateBody("EUR", "USD", "2024-03-01", "2")},
		map[string]any{"intent": "upsert", "rate": rateBody("EUR", "USD", "2024-03-02", "2")},
		map[string]any{"intent": "upsert", "rate": rateBody("GBP", "USD", "2024-03-02", "2")},
		map[string]any{"intent": "delete", "rateId": rid},
	} {
		if r := c.Do("POST", "/api/exchange-rates/preview", body); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	}
	if after := snapshot(t, srv); after != before {
		t.Fatalf("the preview changed rows:\nbefore %s\nafter  %s", before, after)
	}
}

// TestNoServerError sends odd values in every field and parameter of the
// group's routes: each answer is a 2xx or a 4xx, never a 500.
func TestNoServerError(t *testing.T) {
	srv := start(t)
	c, id := signUp(t, srv, "odd@example.com")
	account(t, srv, id, "EUR", "1", false)
	setDisplay(t, c, "USD")
	odd := []any{"", " ", "0", "-0", "1", "-1", "0.0000000000001", "1e400", "99999999999999999999999999999.99999999999999999999",
		"NaN", "Infinity", "\x00", "EUR\x00", "\xff", "A\xffB", "ÉÉÉ", "usd", "2024-02-29", "2023-02-29", "9999-12-31", "10000-01-01",
		"0001-01-01", "-2024-01-01", "2024-1-1", strings.Repeat("9", 5000), "' OR 1=1 --", "$1", "%s", nil, 1, 1.5, true,
		[]any{}, map[string]any{}}
	for i, v := range odd {
		for _, body := range []any{
			map[string]any{"baseCurrency": v, "quoteCurrency": "USD", "effectiveDate": "2024-01-01", "rate": "1"},
			map[string]any{"baseCurrency": "EUR", "quoteCurrency": v, "effectiveDate": "2024-01-01", "rate": "1"},
			map[string]any{"baseCurrency": "EUR", "quoteCurrency": "USD", "effectiveDate": v, "rate": "1"},
			map[string]any{"baseCurrency": "EUR", "quoteCurrency": "USD", "effectiveDate": "2024-01-01", "rate": v},
		} {
			for _, path := range []string{"/api/exchange-rates", "/api/exchange-rates/preview"} {
				b := any(body)
				if strings.HasSuffix(path, "preview") {
					b = map[string]any{"intent": "upsert", "rate": body}
				}
				if r := c.Do("POST", path, b); r.Status >= 500 {
					t.Fatalf("case %d %s %v: %d %s", i, path, b, r.Status, r.Body)
				}
			}
		}
		for _, body := range []any{
			map[string]any{"intent": v, "rateId": "00000000-0000-4000-8000-000000000000"},
			map[string]any{"intent": "delete", "rateId": v},
			map[string]any{"intent": "upsert", "rate": v},
		} {
			if r := c.Do("POST", "/api/exchange-rates/preview", body); r.Status >= 500 {
				t.Fatalf("case %d %v: %d %s", i, body, r.Status, r.Body)
			}
		}
		if s, ok := v.(string); ok {
			for _, q := range []string{"base", "quote", "limit", "cursor"} {
				if r := c.Do("GET", "/api/exchange-rates?"+q+"="+url.QueryEscape(s), nil); r.Status >= 500 {
					t.Fatalf("case %d %s=%q: %d %s", i, q, s, r.Status, r.Body)
				}
			}
			if r := c.Do("DELETE", "/api/exchange-rates/"+url.PathEscape(s), nil); r.Status >= 500 {
				t.Fatalf("case %d delete %q: %d %s", i, s, r.Status, r.Body)
			}
			if r := c.Do("PUT", "/api/users/me/display-currency", map[string]any{"currency": s}); r.Status >= 500 {
				t.Fatalf("case %d display %q: %d %s", i, s, r.Status, r.Body)
			}
			for _, q := range []string{"accountId", "symbol", "status", "tagId", "from", "to"} {
				if r := c.Do("GET", "/api/performance?"+q+"="+url.QueryEscape(s), nil); r.Status >= 500 {
					t.Fatalf("case %d performance %s=%q: %d %s", i, q, s, r.Status, r.Body)
				}
			}
		}
	}
	if r := c.Do("GET", "/api/dashboard/totals", nil); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
}
