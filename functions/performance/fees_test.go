package performance_test

import (
	"encoding/json"
	"testing"

	"tradejournal/shared/apitest"
)

// feeReport is the part of GET /api/performance/fees the tests read.
type feeFigures struct {
	Fees, GrossPnl, NetPnl string
	FeeShare               *string
	Fills                  int64
}

type feeBlock struct {
	Currency string
	Summary  feeFigures
	ByPeriod []struct {
		Period string
		feeFigures
	}
	ByAccount []struct {
		AccountID, Name string
		feeFigures
	}
	ByBroker []struct {
		BrokerageID, Name *string
		feeFigures
	}
	ByAssetType []struct {
		AssetType string
		feeFigures
	}
}

type feeReport struct {
	Period       string
	MissingPairs []string
	ByCurrency   []feeBlock
	Total        *feeBlock
}

func getFees(t *testing.T, c *apitest.Client, query string) feeReport {
	t.Helper()
	r := c.Do("GET", "/api/performance/fees"+query, nil)
	if r.Status != 200 {
		t.Fatalf("GET fees%s: %d %s", query, r.Status, r.Body)
	}
	var rep feeReport
	if err := json.Unmarshal(r.Body, &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

func share(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}

// TestFeeRollup: fees and gross P&L by period in each account's zone, by
// account, broker and asset type, an open position's fees counted on the
// day paid, the total converted at today's rate, and a missing pair named.
func TestFeeRollup(t *testing.T) {
	srv := start(t)
	c, _ := signUp(t, srv, "fees@example.com")
	ok := func(r apitest.Response, status int) apitest.Response {
		t.Helper()
		if r.Status != status {
			t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
		}
		return r
	}
	id := func(r apitest.Response, key string) string { return r.JSON[key].(map[string]any)["id"].(string) }
	const ibkr = "00000000-0000-4000-8000-000000000002" // a built-in fee schedule
	usd := id(ok(c.Do("POST", "/api/accounts", map[string]any{"name": "US", "currency": "USD",
		"timezone": "America/New_York", "brokerageId": ibkr}), 201), "account")
	eur := id(ok(c.Do("POST", "/api/accounts", map[string]any{"name": "EU", "currency": "EUR", "timezone": "Europe/Berlin"}), 201), "account")
	fill := func(typ, price, qty, fees, at string) map[string]any {
		return map[string]any{"type": typ, "price": price, "quantity": qty, "fees": fees, "filledAt": at}
	}
	position := func(account, symbol, asset string, fills ...any) {
		ok(c.Do("POST", "/api/positions", map[string]any{"accountId": account, "symbol": symbol, "assetType": asset,
			"side": "long", "fills": fills}), 201)
	}
	// USD: a stock trade in April (gross 100, fees 2); an option bought in
	// April (fee 0.65) and sold in May (gross (3 - 2) x 100 = 100, fee 0.65).
	position(usd, "AAPL", "stock", fill("entry", "100", "10", "1", "2024-04-02T14:00:00Z"),
		fill("exit", "110", "10", "1", "2024-04-03T15:00:00Z"))
	position(usd, "SPY   240621C00500000", "option", fill("entry", "2", "1", "0.65", "2024-04-30T15:00:00Z"),
		fill("exit", "3", "1", "0.65", "2024-05-03T15:00:00Z"))
	// EUR: an open position whose fee was paid at 23:30 UTC on 30 April,
	// 1 May in Berlin.
	position(eur, "SAP", "stock", fill("entry", "50", "10", "2", "2024-04-30T23:30:00Z"))

	rep := getFees(t, c, "")
	if rep.Period != "month" || len(rep.ByCurrency) != 2 || rep.Total != nil {
		t.Fatalf("without a display currency: %+v", rep)
	}
	us, eu := rep.ByCurrency[1], rep.ByCurrency[0]
	if us.Currency != "USD" || us.Summary.Fees != "3.3000" || us.Summary.GrossPnl != "200.0000" ||
		us.Summary.NetPnl != "196.7000" || share(us.Summary.FeeShare) != "1.65" || us.Summary.Fills != 4 {
		t.Errorf("USD summary: %+v", us.Summary)
	}
	if len(us.ByPeriod) != 2 || us.ByPeriod[0].Period != "2024-04" || us.ByPeriod[0].Fees != "2.6500" ||
		us.ByPeriod[0].GrossPnl != "100.0000" || us.ByPeriod[1].Period != "2024-05" || us.ByPeriod[1].Fees != "0.6500" {
		t.Errorf("USD months: %+v", us.ByPeriod)
	}
	if len(us.ByBroker) != 1 || us.ByBroker[0].Name == nil || *us.ByBroker[0].Name != "Interactive Brokers (fixed)" {
		t.Errorf("USD brokers: %+v", us.ByBroker)
	}
	if len(us.ByAssetType) != 2 || us.ByAssetType[0].AssetType != "stock" || us.ByAssetType[0].Fees != "2.0000" ||
		us.ByAssetType[1].AssetType != "option" || us.ByAssetType[1].Fees != "1.3000" {
		t.Errorf("USD asset types: %+v", us.ByAssetType)
	}
	if eu.Currency != "EUR" || len(eu.ByPeriod) != 1 || eu.ByPeriod[0].Period != "2024-05" || eu.Summary.Fees != "2.0000" ||
		eu.Summary.FeeShare != nil || eu.ByBroker[0].BrokerageID != nil || eu.ByAccount[0].Name != "EU" {
		t.Errorf("EUR block (the fee of 1 May in Berlin, no gross P&L, no fee schedule): %+v", eu)
	}

	// A display currency without a rate names the pair; with one, the total.
	ok(c.Do("PUT", "/api/users/me/display-currency", map[string]any{"currency": "USD"}), 200)
	if rep := getFees(t, c, ""); rep.Total != nil || len(rep.MissingPairs) != 1 || rep.MissingPairs[0] != "EUR/USD" {
		t.Errorf("missing rate: %+v", rep)
	}
	ok(c.Do("POST", "/api/exchange-rates", map[string]any{"baseCurrency": "EUR", "quoteCurrency": "USD",
		"effectiveDate": "2024-01-01", "rate": "1.1"}), 201)
	tot := getFees(t, c, "").Total
	if tot == nil || tot.Summary.Fees != "5.5000" || tot.Summary.GrossPnl != "200.0000" || share(tot.Summary.FeeShare) != "2.75" {
		t.Fatalf("total (3.30 USD + 2 EUR x 1.1): %+v", tot)
	}
	if tot.ByPeriod[1].Period != "2024-05" || tot.ByPeriod[1].Fees != "2.8500" || len(tot.ByBroker) != 2 ||
		tot.ByBroker[0].Fees != "3.3000" || tot.ByBroker[1].BrokerageID != nil || tot.ByBroker[1].Fees != "2.2000" {
		t.Errorf("total by period and broker: %+v %+v", tot.ByPeriod, tot.ByBroker)
	}

	// Periods, filters, and a bad period.
	if rep := getFees(t, c, "?period=week&accountId="+usd); len(rep.ByCurrency) != 1 || len(rep.ByCurrency[0].ByPeriod) != 2 ||
		rep.ByCurrency[0].ByPeriod[0].Period != "2024-W14" || rep.ByCurrency[0].ByPeriod[1].Period != "2024-W18" {
		t.Errorf("weeks of the USD account: %+v", rep.ByCurrency)
	}
	if rep := getFees(t, c, "?period=day&assetType=option&from=2024-05-01"); len(rep.ByCurrency) != 1 ||
		rep.ByCurrency[0].ByPeriod[0].Period != "2024-05-03" || rep.ByCurrency[0].Summary.GrossPnl != "100.0000" {
		t.Errorf("options from May: %+v", rep.ByCurrency)
	}
	r := c.Do("GET", "/api/performance/fees?period=quarter", nil)
	if r.Status != 400 || r.JSON["error"].(map[string]any)["code"] != "VALIDATION_ERROR" {
		t.Errorf("a bad period: %d %s", r.Status, r.Body)
	}
	// Another user sees nothing of it.
	other, _ := signUp(t, srv, "fees-other@example.com")
	if rep := getFees(t, other, ""); len(rep.ByCurrency) != 0 {
		t.Errorf("another user's roll-up: %+v", rep)
	}
}
