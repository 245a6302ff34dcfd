package positions_test

import (
	"slices"
	"testing"

	"tradejournal/shared/apitest"
)

// TestForexCryptoCFDPositions: pairs and CFDs through the positions API,
// P&L in the quote currency converted into the account's at each exit's
// rate, worked by hand (shared/journal's TestComputeQuoted has the same
// arithmetic at the figure level).
func TestForexCryptoCFDPositions(t *testing.T) {
	f := setup(t, map[string]any{"name": "FX", "currency": "USD", "startingBalance": "10000"})
	create := func(asset, symbol, side string, extra map[string]any, fills ...map[string]any) map[string]any {
		t.Helper()
		body := map[string]any{"accountId": f.account, "symbol": symbol, "assetType": asset, "side": side, "fills": fills}
		for k, v := range extra {
			body[k] = v
		}
		return apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/positions", body), 201), "position")
	}
	check := func(name string, p map[string]any, want map[string]any) {
		t.Helper()
		for k, v := range want {
			if p[k] != v {
				t.Errorf("%s: %s = %v, want %v", name, k, p[k], v)
			}
		}
	}
	rates := func(p map[string]any) []any {
		var out []any
		for _, f := range p["fills"].([]any) {
			out = append(out, f.(map[string]any)["rate"])
		}
		return out
	}

	// EUR/USD, a MetaTrader symbol: 50 pips of a standard lot = 500 USD,
	// rate 1 (the quote is the account's currency), 3.50 of fees a side.
	eu := create("forex", "EURUSD.m", "long", nil, fill("entry", "1.0850", "100000", "3.50", "2024-03-04T08:00:00Z"),
		fill("exit", "1.0900", "100000", "3.50", "2024-03-04T12:00:00Z"))
	check("EUR/USD", eu, map[string]any{"symbol": "EUR/USD", "baseCurrency": "EUR", "quoteCurrency": "USD",
		"grossPnl": "500.0000", "quoteGrossPnl": "500.0000", "netPnl": "493.0000", "awaitingRate": false, "multiplier": 1.0})
	if r := rates(eu); !slices.Equal(r, []any{"1", "1"}) {
		t.Errorf("EUR/USD rates %v", r)
	}

	// USD/JPY: 1.00 JPY x 100,000 = 100,000 JPY, at the exit's own price
	// 1 JPY = 1/151 USD (0.006622516556): 662.2517 USD.
	uj := create("forex", "USD_JPY", "long", nil, fill("entry", "150.00", "100000", "0", "2024-03-05T08:00:00Z"),
		fill("exit", "151.00", "100000", "0", "2024-03-05T12:00:00Z"))
	check("USD/JPY", uj, map[string]any{"symbol": "USD/JPY", "grossPnl": "662.2517", "quoteGrossPnl": "100000.0000"})
	if r := rates(uj); r[1] != "0.006622516556" {
		t.Errorf("USD/JPY rates %v", r)
	}

	// EUR/GBP in a dollar account: 1,000 GBP made, no GBP/USD rate stored
	// yet: the position waits, named, and the statistics leave it out.
	eg := create("forex", "EUR/GBP", "short", nil, fill("entry", "0.8600", "200000", "0", "2024-03-06T08:00:00Z"),
		fill("exit", "0.8550", "200000", "0", "2024-03-06T12:00:00Z"))
	check("EUR/GBP waiting", eg, map[string]any{"awaitingRate": true, "rateNeeded": "GBP/USD", "grossPnl": "0.0000",
		"quoteGrossPnl": "1000.0000", "status": "closed"})
	trades := func() (float64, string) {
		t.Helper()
		blocks := apitest.Must(t, f.a.Do("GET", "/api/performance?assetType=forex", nil), 200).JSON["byCurrency"].([]any)
		s := blocks[0].(map[string]any)["summary"].(map[string]any)
		return s["trades"].(float64), s["netPnl"].(string)
	}
	if n, net := trades(); n != 2 || net != "1155.2517" {
		t.Errorf("forex statistics before the rate: %v trades, %s", n, net)
	}
	// Storing GBP/USD 1.27 from the 1st converts it: 1,270 USD.
	apitest.Must(t, f.a.Do("POST", "/api/exchange-rates", map[string]any{"baseCurrency": "GBP", "quoteCurrency": "USD",
		"effectiveDate": "2024-03-01", "rate": "1.27"}), 201)
	eg = apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/positions/"+eg["id"].(string), nil), 200), "position")
	check("EUR/GBP converted", eg, map[string]any{"awaitingRate": false, "rateNeeded": nil, "grossPnl": "1270.0000"})
	if n, net := trades(); n != 3 || net != "2425.2517" {
		t.Errorf("forex statistics after the rate: %v trades, %s", n, net)
	}

	// BTC/USDT with the broker's USDT rate on the fills and 18 places of
	// quantity: 123.456789012345678 USDT x 0.9998 = 123.4321 USD.
	btcFill := func(typ, price, at string) map[string]any {
		m := fill(typ, price, "0.123456789012345678", "0", at)
		m["rate"] = "0.9998"
		return m
	}
	btc := create("crypto", "BTCUSDT", "long", nil, btcFill("entry", "60000", "2024-03-07T08:00:00Z"),
		btcFill("exit", "61000", "2024-03-07T12:00:00Z"))
	check("BTC/USDT", btc, map[string]any{"symbol": "BTC/USDT", "grossPnl": "123.4321", "quoteGrossPnl": "123.4568",
		"entryQuantity": "0.123456789012345678"})
	if fl := btc["fills"].([]any)[0].(map[string]any); fl["rateGiven"] != true {
		t.Errorf("BTC fill %v", fl)
	}

	// A CFD on the DAX in euros, 2 contracts at 1 EUR a point, the rate
	// given on the exit: 150 points x 2 = 300 EUR x 1.08 = 324 USD.
	exit := fill("exit", "18150", "2", "0", "2024-03-08T12:00:00Z")
	exit["rate"] = "1.08"
	dax := create("cfd", "GER40", "long", map[string]any{"quoteCurrency": "eur"},
		fill("entry", "18000", "2", "0", "2024-03-08T08:00:00Z"), exit)
	check("GER40", dax, map[string]any{"quoteCurrency": "EUR", "baseCurrency": nil, "grossPnl": "324.0000", "quoteGrossPnl": "300.0000"})
	// A notes edit keeps a CFD's value per point and currency.
	us := create("cfd", "US500", "long", map[string]any{"multiplier": "10"}, fill("entry", "5000", "1", "0", "2024-03-08T08:00:00Z"))
	us = apitest.Object(t, apitest.Must(t, f.a.Do("PATCH", "/api/positions/"+us["id"].(string), map[string]any{"notes": "held"}), 200), "position")
	dax2 := apitest.Object(t, apitest.Must(t, f.a.Do("PATCH", "/api/positions/"+dax["id"].(string), map[string]any{"notes": "held"}), 200), "position")
	if us["multiplier"] != 10.0 || dax2["quoteCurrency"] != "EUR" || dax2["grossPnl"] != "324.0000" {
		t.Errorf("after a notes edit: US500 multiplier %v, GER40 %v %v", us["multiplier"], dax2["quoteCurrency"], dax2["grossPnl"])
	}
	apitest.Must(t, f.a.Do("DELETE", "/api/positions/"+us["id"].(string), nil), 204)

	// BTC/USD (the quote is the account's currency), the entry's fee in
	// the base: 0.00001 BTC x 60,000 = 0.60 USD; the exit's in BNB, whose
	// USD rate is not stored: the position waits for BNB/USD, then takes
	// 580 from the rate stored (0.0005 x 580 = 0.29). 0.1 x 1,000 = 100.
	entry := fill("entry", "60000", "0.1", "0.00001", "2024-03-09T08:00:00Z")
	entry["feeAsset"] = "btc"
	exitBNB := fill("exit", "61000", "0.1", "0.0005", "2024-03-09T12:00:00Z")
	exitBNB["feeAsset"] = "BNB"
	kr := create("crypto", "XBT/USD", "long", nil, entry, exitBNB)
	check("BTC/USD waiting for BNB", kr, map[string]any{"symbol": "BTC/USD", "awaitingRate": true, "rateNeeded": "BNB/USD",
		"grossPnl": "100.0000", "fees": "0.6000", "netPnl": "99.4000"})
	if fl := kr["fills"].([]any)[1].(map[string]any); fl["feeAsset"] != "BNB" || fl["fees"] != "0.0005" {
		t.Errorf("BNB fee fill %v", fl)
	}
	apitest.Must(t, f.a.Do("POST", "/api/exchange-rates", map[string]any{"baseCurrency": "BNB", "quoteCurrency": "USD",
		"effectiveDate": "2024-03-01", "rate": "580"}), 201)
	kr = apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/positions/"+kr["id"].(string), nil), 200), "position")
	check("BTC/USD converted", kr, map[string]any{"awaitingRate": false, "fees": "0.8900", "netPnl": "99.1100"})

	// A swap credited overnight is a negative fee: EUR/USD held a night,
	// 20 pips of 0.1 lot = 20 USD, 0.70 commission, 1.35 swap credited:
	// net 20 - 0.70 + 1.35 = 20.65.
	swap := create("forex", "EURUSD", "long", nil, fill("entry", "1.0800", "10000", "0.70", "2024-03-10T20:00:00Z"),
		fill("exit", "1.0820", "10000", "-1.35", "2024-03-11T08:00:00Z"))
	check("EUR/USD swap credited", swap, map[string]any{"grossPnl": "20.0000", "fees": "-0.6500", "netPnl": "20.6500"})

	checkLedger(t, f.srv)
	// 10,000 + 493 + 662.2517 + 1,270 + 123.4321 + 324 + 99.11 + 20.65.
	if b := balance(t, f.a, f.account); b != "12992.4438" {
		t.Errorf("balance %s", b)
	}

	// What the service cannot place is a 400 naming the field.
	bad := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"UnknownPair", map[string]any{"assetType": "forex", "symbol": "EURXYZ"}, "symbol"},
		{"CryptoWithoutQuote", map[string]any{"assetType": "crypto", "symbol": "BTC"}, "symbol"},
		{"QuoteOnForex", map[string]any{"assetType": "forex", "symbol": "EURUSD", "quoteCurrency": "GBP"}, "quoteCurrency"},
		{"BadCFDCurrency", map[string]any{"assetType": "cfd", "symbol": "US500", "quoteCurrency": "DOLLARS"}, "quoteCurrency"},
		{"RateOnStock", map[string]any{"assetType": "stock", "symbol": "AAPL", "fills": []any{
			map[string]any{"type": "entry", "price": "10", "quantity": "1", "filledAt": "2024-03-08T08:00:00Z", "rate": "1.1"}}}, "fills[0].rate"},
		{"StockQuantity9Places", map[string]any{"assetType": "stock", "symbol": "AAPL", "fills": []any{
			fill("entry", "10", "0.123456789", "0", "2024-03-08T08:00:00Z")}}, "fills[0].quantity"},
		{"CryptoQuantity19Places", map[string]any{"assetType": "crypto", "symbol": "ETH/USDT", "fills": []any{
			fill("entry", "3000", "0.1234567890123456789", "0", "2024-03-08T08:00:00Z")}}, "fills[0].quantity"},
		{"FeeAssetOnForex", map[string]any{"assetType": "forex", "symbol": "EURUSD", "fills": []any{
			map[string]any{"type": "entry", "price": "1.1", "quantity": "1000", "fees": "1", "feeAsset": "EUR", "filledAt": "2024-03-08T08:00:00Z"}}}, "fills[0].feeAsset"},
		{"NegativeStockFee", map[string]any{"assetType": "stock", "symbol": "AAPL", "fills": []any{
			fill("entry", "10", "1", "-1", "2024-03-08T08:00:00Z")}}, "fills[0].fees"},
		{"ZeroRate", map[string]any{"assetType": "forex", "symbol": "EURUSD", "fills": []any{
			map[string]any{"type": "entry", "price": "1.1", "quantity": "1000", "filledAt": "2024-03-08T08:00:00Z", "rate": "0"}}}, "fills[0].rate"},
	}
	for _, c := range bad {
		body := map[string]any{"accountId": f.account, "side": "long", "fills": []any{}}
		for k, v := range c.body {
			body[k] = v
		}
		r := apitest.Must(t, f.a.Do("POST", "/api/positions", body), 400)
		if got := detailFields(t, r); !slices.Contains(got, c.field) {
			t.Errorf("%s: details %v lack %s", c.name, got, c.field)
		}
	}
}
