package csvimport_test

import (
	"slices"
	"strings"
	"testing"

	"tradejournal/shared/apitest"
	"tradejournal/shared/brokerfile"
)

// importFile previews and commits file into a new account of currency and
// returns the committed positions by symbol (the preview's figures are
// TestImportSamples' concern; these are the journal's).
func (f *fixture) importFile(t *testing.T, currency string, opts map[string]any, file []byte) (string, map[string]map[string]any) {
	t.Helper()
	account := apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/accounts", map[string]any{"name": "M " + currency + " " + opts["presetId"].(string),
		"currency": currency, "startingBalance": "10000"}), 201), "account")["id"].(string)
	opts["accountId"] = account
	r := apitest.Must(t, preview(t, f.a, opts, file), 200)
	if r.JSON["canCommit"] != true {
		t.Fatalf("preview %s", r.Body)
	}
	imp := apitest.Object(t, apitest.Must(t, commit(f.a, r.JSON["token"], false), 201), "import")
	out := map[string]map[string]any{}
	for _, id := range imp["positionIds"].([]any) {
		pos := apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/positions/"+id.(string), nil), 200), "position")
		out[pos["symbol"].(string)] = pos
	}
	f.checkLedger(t)
	return account, out
}

// want checks fields of a committed position.
func want(t *testing.T, name string, p map[string]any, fields map[string]any) {
	t.Helper()
	if p == nil {
		t.Errorf("%s: no such position", name)
		return
	}
	for k, v := range fields {
		if p[k] != v {
			t.Errorf("%s: %s = %v, want %v", name, k, p[k], v)
		}
	}
}

// fillRates are a position's fills' rates and whether each was given.
func fillRates(p map[string]any) (rates []any, given []any) {
	for _, f := range p["fills"].([]any) {
		rates = append(rates, f.(map[string]any)["rate"])
		given = append(given, f.(map[string]any)["rateGiven"])
	}
	return rates, given
}

// TestImportMarkets: forex, crypto and CFD positions from the platforms'
// files, in the journal to the cent: lots as units, the exit's rate from
// the file's P&L in the account's currency, swaps and financing as fees,
// coin fees converted, a CFD's currency, positions waiting for a rate and
// taking it when it is stored, and a fee no rate converts left out of a
// partial import by row.
func TestImportMarkets(t *testing.T) {
	f := setup(t, nil)

	t.Run("MetaTrader5", func(t *testing.T) {
		account, pos := f.importFile(t, "USD", map[string]any{"presetId": "metatrader5"}, sample(t, "mt5_deals.csv"))
		// USDJPY short 0.2 lot = 20,000 USD x 0.45 = 9,000 JPY; Profit 60.08
		// USD: the cover's rate 60.08 / 9,000, the short's entry 1/150.25.
		uj := pos["USD/JPY"]
		want(t, "USD/JPY", uj, map[string]any{"assetType": "forex", "side": "short", "entryQuantity": "20000", "grossPnl": "60.0800",
			"quoteGrossPnl": "9000.0000", "fees": "3.6500", "netPnl": "56.4300", "awaitingRate": false})
		if rates, given := fillRates(uj); !slices.Equal(rates, []any{"0.006655574043", "0.006675555556"}) || !slices.Equal(given, []any{false, true}) {
			t.Errorf("USD/JPY rates %v given %v", rates, given)
		}
		// GER40 (a CFD, 1 lot): 29.5 points, Profit 30.98 USD; fees 0.50 and
		// 0.50 less the 0.20 swap credit.
		want(t, "GER40", pos["GER40"], map[string]any{"assetType": "cfd", "grossPnl": "30.9800", "quoteGrossPnl": "29.5000",
			"fees": "0.8000", "netPnl": "30.1800"})
		want(t, "XAU/USD", pos["XAU/USD"], map[string]any{"entryQuantity": "5", "grossPnl": "28.7500", "fees": "1.9000", "netPnl": "26.8500"})
		want(t, "BTC/USD", pos["BTC/USD"], map[string]any{"assetType": "crypto", "entryQuantity": "0.1", "grossPnl": "50.0000"})
		want(t, "AAPL", pos["AAPL"], map[string]any{"assetType": "stock", "netPnl": "15.0000"})
		// 10,000 + 183.46, the report's own total.
		if b := f.balance(t, account); b.String() != "10183.46" {
			t.Errorf("balance %s", b)
		}
	})

	t.Run("OANDA", func(t *testing.T) {
		_, pos := f.importFile(t, "USD", map[string]any{"presetId": "oanda"}, sample(t, "oanda_transactions.csv"))
		// The day's financing (0.8123) folded into the close with its own
		// 0.1520.
		want(t, "GBP/JPY", pos["GBP/JPY"], map[string]any{"side": "short", "grossPnl": "55.1471", "quoteGrossPnl": "8250.0000",
			"fees": "0.9643", "netPnl": "54.1828"})
		// DE30_EUR: a CFD quoted in euros; -90 EUR is -94.14 USD.
		want(t, "DE30", pos["DE30"], map[string]any{"assetType": "cfd", "quoteCurrency": "EUR", "grossPnl": "-94.1400",
			"quoteGrossPnl": "-90.0000", "awaitingRate": false})
	})

	t.Run("BinanceEuro", func(t *testing.T) {
		_, pos := f.importFile(t, "EUR", map[string]any{"presetId": "binance"}, sample(t, "binance_trades.csv"))
		// The buy's 0.000015 BTC at 82,150.50 EUR is 1.2323 EUR.
		want(t, "BTC/EUR", pos["BTC/EUR"], map[string]any{"grossPnl": "18.9225", "fees": "2.4835", "netPnl": "16.4390"})
		want(t, "ETH/EUR", pos["ETH/EUR"], map[string]any{"grossPnl": "-3.6000", "fees": "2.1018", "netPnl": "-5.7018"})
	})

	t.Run("AwaitingRate", func(t *testing.T) {
		// Euro pairs in a dollar account: the P&L waits for EUR/USD, and
		// takes it when it is stored. ETH 0.4 x 50 = 20 EUR; the fees in
		// EUR convert at the same rate, so that rate is needed first.
		file := []byte(`"txid","ordertxid","pair","time","type","ordertype","price","cost","fee","vol","margin","misc","ledgers"` + "\n" +
			`"T1","O1","XETHZEUR","2025-03-10 10:00:00.0000","buy","limit","2000.00","800.00","0","0.40000000","0","",""` + "\n" +
			`"T2","O2","XETHZEUR","2025-03-11 10:00:00.0000","sell","limit","2050.00","820.00","0","0.40000000","0","",""` + "\n")
		account := apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/accounts", map[string]any{"name": "Kraken USD", "currency": "USD",
			"startingBalance": "10000"}), 201), "account")["id"].(string)
		opts := map[string]any{"accountId": account, "presetId": "kraken"}
		r := apitest.Must(t, preview(t, f.a, opts, file), 200)
		if r.JSON["canCommit"] != true || warningCodes(r)[brokerfile.CodeAwaitingRate] != 1 || apitest.Object(t, r, "summary")["grossPnl"] != "0.0000" {
			t.Fatalf("preview %s", r.Body)
		}
		imp := apitest.Object(t, apitest.Must(t, commit(f.a, r.JSON["token"], false), 201), "import")
		id := imp["positionIds"].([]any)[0].(string)
		pos := apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/positions/"+id, nil), 200), "position")
		want(t, "ETH/EUR waiting", pos, map[string]any{"awaitingRate": true, "rateNeeded": "EUR/USD", "quoteGrossPnl": "20.0000", "grossPnl": "0.0000"})
		apitest.Must(t, f.a.Do("POST", "/api/exchange-rates", map[string]any{"baseCurrency": "EUR", "quoteCurrency": "USD",
			"effectiveDate": "2025-03-01", "rate": "1.05"}), 201)
		pos = apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/positions/"+id, nil), 200), "position")
		want(t, "ETH/EUR converted", pos, map[string]any{"awaitingRate": false, "grossPnl": "21.0000"})
		f.checkLedger(t)
	})

	t.Run("CoinFeeWaits", func(t *testing.T) {
		// A fee in BNB: kept as charged, the position waits for BNB/EUR
		// and takes it when it is stored. BTC 0.001 x 1,000 = 1 EUR; fees
		// 0.0001 BNB x 600 = 0.06 and 0.083 EUR.
		file := []byte("Date(UTC),Pair,Side,Price,Executed,Amount,Fee\n" +
			"2025-03-03 09:00:00,BTCEUR,BUY,82000,0.001BTC,82EUR,0.0001BNB\n" +
			"2025-03-03 10:00:00,BTCEUR,SELL,83000,0.001BTC,83EUR,0.083EUR\n")
		account := apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/accounts", map[string]any{"name": "Binance EUR", "currency": "EUR",
			"startingBalance": "1000"}), 201), "account")["id"].(string)
		r := apitest.Must(t, preview(t, f.a, map[string]any{"accountId": account, "presetId": "binance"}, file), 200)
		if r.JSON["canCommit"] != true || warningCodes(r)[brokerfile.CodeAwaitingRate] != 1 || !strings.Contains(string(r.Body), "BNB/EUR") {
			t.Fatalf("preview %s", r.Body)
		}
		imp := apitest.Object(t, apitest.Must(t, commit(f.a, r.JSON["token"], false), 201), "import")
		id := imp["positionIds"].([]any)[0].(string)
		pos := apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/positions/"+id, nil), 200), "position")
		want(t, "BTC/EUR waiting", pos, map[string]any{"awaitingRate": true, "rateNeeded": "BNB/EUR", "grossPnl": "1.0000"})
		apitest.Must(t, f.a.Do("POST", "/api/exchange-rates", map[string]any{"baseCurrency": "BNB", "quoteCurrency": "EUR",
			"effectiveDate": "2025-03-01", "rate": "600"}), 201)
		pos = apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/positions/"+id, nil), 200), "position")
		want(t, "BTC/EUR converted", pos, map[string]any{"awaitingRate": false, "fees": "0.1430", "netPnl": "0.8570"})
		f.checkLedger(t)
	})

	t.Run("Stablecoin", func(t *testing.T) {
		// Bybit's perpetuals in USDT, which no exchange rate holds (a
		// rate's codes are three letters): they import waiting for one,
		// their P&L in USDT to the cent, funding folded into the fees.
		_, pos := f.importFile(t, "USD", map[string]any{"presetId": "bybit"}, sample(t, "bybit_transaction_log.csv"))
		want(t, "BTC/USDT:PERP", pos["BTC/USDT:PERP"], map[string]any{"assetType": "crypto", "awaitingRate": true, "rateNeeded": "USDT/USD",
			"quoteGrossPnl": "11.0000", "grossPnl": "0.0000"})
		want(t, "ETH/USDT:PERP", pos["ETH/USDT:PERP"], map[string]any{"side": "short", "quoteGrossPnl": "10.0000", "awaitingRate": true})
	})
}
