package tax_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
)

var clock = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

type report struct {
	Jurisdiction, Currency, Method string
	Lots                           []lot
	WashSales                      []struct {
		Disallowed, ReplacementDate string
		DaysBetween                 int
	}
	Section1256 *struct {
		NetGain, LongTerm60, ShortTerm40 string
	}
	Totals struct {
		All struct{ Gain string }
		UK  *struct {
			Disposals int
			NetGain   string
		}
	}
	Missing []struct {
		Kind, Pair, Instrument, Message string
		Days                            []string
	}
	Accounts []struct{ ID, Name string }
}

type lot struct {
	ID, Instrument, Account, Acquired, Sold     string
	Proceeds, Basis, Adjustment, Gain, Quantity string
	AdjustmentCode, Term, Box, Rule             string
	Incomplete                                  bool
}

func getReport(t *testing.T, c *apitest.Client, query string) report {
	t.Helper()
	r := c.Do("GET", "/api/tax/report?"+query, nil)
	if r.Status != 200 {
		t.Fatalf("GET report?%s: %d %s", query, r.Status, r.Body)
	}
	var rep report
	if err := json.Unmarshal(r.Body, &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

func invalid(t *testing.T, r apitest.Response, field string) {
	t.Helper()
	if r.Status != 400 {
		t.Fatalf("status %d, want 400: %s", r.Status, r.Body)
	}
	e := r.JSON["error"].(map[string]any)
	if e["code"] != "VALIDATION_ERROR" || !strings.Contains(string(r.Body), `"field":"`+field+`"`) {
		t.Errorf("want VALIDATION_ERROR naming %s: %s", field, r.Body)
	}
}

// TestTaxReport runs the report over a journal written through the API: the
// settings it follows, IRS Publication 550's wash sale across two
// positions, the Form 8949 and lot files, a future open over the year end
// named until its mark is set, a UK account under its own rules, and a
// missing exchange rate named.
func TestTaxReport(t *testing.T) {
	srv := apitest.StartAt(t, apitest.Config(t), func() time.Time { return clock }, functions.All)
	c := srv.Client(t)
	c.Register("tax@example.com", "password1")
	ok := func(r apitest.Response, status int) apitest.Response {
		t.Helper()
		if r.Status != status {
			t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
		}
		return r
	}
	id := func(r apitest.Response, key string) string { return r.JSON[key].(map[string]any)["id"].(string) }
	account := func(name, currency string) string {
		return id(ok(c.Do("POST", "/api/accounts", map[string]any{"name": name, "currency": currency, "timezone": "America/New_York"}), 201), "account")
	}
	fill := func(typ, price, qty, at string) map[string]any {
		return map[string]any{"type": typ, "price": price, "quantity": qty, "fees": "0", "filledAt": at}
	}
	position := func(account, symbol, asset string, fills ...any) {
		ok(c.Do("POST", "/api/positions", map[string]any{"accountId": account, "symbol": symbol, "assetType": asset,
			"side": "long", "fills": fills}), 201)
	}
	us, uk, eu := account("Schwab", "USD"), account("ii ISA", "GBP"), account("Degiro", "EUR")

	// No jurisdiction chosen: the report asks for one.
	invalid(t, c.Do("GET", "/api/tax/report?year=2024", nil), "jurisdiction")
	invalid(t, c.Do("GET", "/api/tax/report?year=1969&jurisdiction=us", nil), "year")
	invalid(t, c.Do("PUT", "/api/tax/settings", map[string]any{"jurisdiction": "fr"}), "jurisdiction")
	invalid(t, c.Do("PUT", "/api/tax/settings", map[string]any{"accounts": []any{
		map[string]any{"accountId": us, "basisReporting": "maybe"}}}), "accounts[0].basisReporting")
	invalid(t, c.Do("PUT", "/api/tax/settings", map[string]any{"jurisdiction": "us", "accounts": []any{
		map[string]any{"accountId": "00000000-0000-4000-8000-000000000009", "jurisdiction": "uk"}}}), "accounts[0].accountId")
	if r := ok(c.Do("GET", "/api/tax/settings", nil), 200); r.JSON["jurisdiction"] != nil {
		t.Fatalf("a refused change changed the settings: %s", r.Body)
	}
	r := ok(c.Do("PUT", "/api/tax/settings", map[string]any{"jurisdiction": "us", "accounts": []any{
		map[string]any{"accountId": uk, "jurisdiction": "uk"},
		map[string]any{"accountId": us, "basisReporting": "none"}}}), 200)
	if r.JSON["jurisdiction"] != "us" || len(r.JSON["accounts"].([]any)) != 3 {
		t.Fatalf("settings: %s", r.Body)
	}

	// IRS Publication 550: 100 shares bought for $1,000, sold for $750, and
	// 100 bought for $800 within 30 days: the $250 loss is disallowed and
	// the new shares' basis is $1,050; sold for $1,100 they gain $50.
	position(us, "XYZ", "stock", fill("entry", "10", "100", "2024-01-10T15:00:00Z"), fill("exit", "7.50", "100", "2024-03-01T15:00:00Z"))
	position(us, "XYZ", "stock", fill("entry", "8", "100", "2024-03-15T15:00:00Z"), fill("exit", "11", "100", "2024-06-03T15:00:00Z"))
	// A future open over the year end: 1 ES bought at 5000, sold at 5100.
	position(us, "ESZ24", "future", fill("entry", "5000", "1", "2024-12-02T15:00:00Z"), fill("exit", "5100", "1", "2025-01-10T15:00:00Z"))
	// UK: bought 10 at 100 and sold at 120 the same day.
	position(uk, "VOD", "stock", fill("entry", "100", "10", "2024-05-01T10:00:00Z"), fill("exit", "120", "10", "2024-05-01T14:00:00Z"))

	rep := getReport(t, c, "year=2024")
	if rep.Jurisdiction != "us" || rep.Currency != "USD" || len(rep.Lots) != 2 || len(rep.WashSales) != 1 {
		t.Fatalf("US 2024: %+v", rep)
	}
	loss, gain := rep.Lots[0], rep.Lots[1]
	if loss.Proceeds != "750" || loss.Basis != "1000" || loss.AdjustmentCode != "W" || loss.Adjustment != "250" || loss.Gain != "0" ||
		loss.Box != "C" || loss.Term != "short" {
		t.Errorf("the washed lot (box C: the account has no 1099-B): %+v", loss)
	}
	if gain.Basis != "1050" || gain.Gain != "50" {
		t.Errorf("the replacement lot carries the loss: %+v", gain)
	}
	if w := rep.WashSales[0]; w.Disallowed != "250" || w.DaysBetween != 14 || w.ReplacementDate != "2024-03-15" {
		t.Errorf("wash sale: %+v", w)
	}
	if len(rep.Missing) != 1 || rep.Missing[0].Kind != "mark" || rep.Missing[0].Instrument != "ESZ24" {
		t.Errorf("the future open at the year end without a mark: %+v %+v", rep.Missing, rep.Section1256)
	}
	if names := rep.Accounts; len(names) != 2 || names[0].Name != "Degiro" || names[1].Name != "Schwab" {
		t.Errorf("the US report's accounts (the UK account has its own rules): %+v", names)
	}

	// The year-end mark: 50 points x $50 = $2,500 in 2024, 60/40; 2025's
	// basis starts at the mark.
	invalid(t, c.Do("PUT", "/api/tax/marks", map[string]any{"year": 2024, "marks": []any{map[string]any{"instrument": "ESZ24", "price": "-1"}}}), "marks[0].price")
	ok(c.Do("PUT", "/api/tax/marks", map[string]any{"year": 2024, "marks": []any{map[string]any{"instrument": "ESZ24", "price": "5050"}}}), 200)
	if m := ok(c.Do("GET", "/api/tax/marks?year=2024", nil), 200); !strings.Contains(string(m.Body), `"price":"5050"`) {
		t.Errorf("marks: %s", m.Body)
	}
	rep = getReport(t, c, "year=2024")
	if s := rep.Section1256; len(rep.Missing) != 0 || s == nil || s.NetGain != "2500" || s.LongTerm60 != "1500" || s.ShortTerm40 != "1000" {
		t.Errorf("1256 with its mark: %+v %+v", rep.Missing, s)
	}
	if s := getReport(t, c, "year=2025").Section1256; s == nil || s.NetGain != "2500" {
		t.Errorf("2025 starts from the mark: %+v", s)
	}

	// Form 8949: box C lines, the W code, accounts not on the form; the lot
	// file names the account.
	r = ok(c.Do("GET", "/api/tax/report/form-8949.csv?year=2024", nil), 200)
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/csv") || !strings.Contains(r.Header.Get("Content-Disposition"), "form-8949-2024.csv") {
		t.Errorf("headers: %v", r.Header)
	}
	lines, err := csv.NewReader(bytes.NewReader(r.Body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(lines, func(l []string) bool { return l[0] == "C" && slices.Contains(l, "W") && slices.Contains(l, "250.00") }) {
		t.Errorf("no box C wash sale line: %q", lines)
	}
	invalid(t, c.Do("GET", "/api/tax/report/form-8949.csv?year=2024&jurisdiction=uk", nil), "jurisdiction")
	r = ok(c.Do("GET", "/api/tax/report/lots.csv?year=2024", nil), 200)
	if !strings.Contains(string(r.Body), "Schwab") || strings.Contains(string(r.Body), us) {
		t.Errorf("the lot file names accounts, not ids: %s", r.Body)
	}

	// The UK account's report: its tax year, same-day matching, in GBP.
	ukRep := getReport(t, c, "year=2024&jurisdiction=uk")
	if ukRep.Currency != "GBP" || len(ukRep.Lots) != 1 || ukRep.Lots[0].Gain != "200" || ukRep.Totals.UK == nil || ukRep.Totals.UK.Disposals != 1 {
		t.Errorf("UK 2024/25: %+v", ukRep)
	}

	// A EUR trade in the US report without a EUR/USD rate is named, never
	// a zero; with the rate it converts at its day's rate.
	position(eu, "SAP", "stock", fill("entry", "100", "10", "2024-07-01T09:00:00Z"), fill("exit", "110", "10", "2024-07-02T09:00:00Z"))
	rep = getReport(t, c, "year=2024")
	if !slices.ContainsFunc(rep.Missing, func(m struct {
		Kind, Pair, Instrument, Message string
		Days                            []string
	}) bool {
		return m.Kind == "rate" && m.Pair == "EUR/USD" && slices.Contains(m.Days, "2024-07-01")
	}) {
		t.Errorf("missing rate not named: %+v", rep.Missing)
	}
	ok(c.Do("POST", "/api/exchange-rates", map[string]any{"baseCurrency": "EUR", "quoteCurrency": "USD", "effectiveDate": "2024-01-01", "rate": "1.1"}), 201)
	rep = getReport(t, c, "year=2024")
	sap := slices.IndexFunc(rep.Lots, func(l lot) bool { return l.Instrument == "SAP" })
	if len(rep.Missing) != 0 || sap < 0 || rep.Lots[sap].Gain != "110" || rep.Lots[sap].Proceeds != "1210" {
		t.Errorf("EUR lot at 1.1: %+v %+v", rep.Missing, rep.Lots)
	}

	// Another user sees none of it.
	other := srv.Client(t)
	other.Register("tax-other@example.com", "password1")
	if rep := getReport(t, other, "year=2024&jurisdiction=us"); len(rep.Lots) != 0 || len(rep.Accounts) != 0 {
		t.Errorf("another user's report: %+v", rep)
	}
	invalid(t, other.Do("PUT", "/api/tax/settings", map[string]any{"accounts": []any{map[string]any{"accountId": us, "jurisdiction": "uk"}}}), "accounts[0].accountId")
}
