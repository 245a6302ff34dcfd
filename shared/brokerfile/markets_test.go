package brokerfile

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/fx"
	"tradejournal/shared/instrument"
)

// build plans parsed fills against an empty journal of an account of
// currency with rates.
func build(p *Parsed, currency string, rates ...fx.Rate) *Plan {
	return Build(p.Fills, Journal{Currency: currency, Rates: rates}, BuildOptions{Header: p.Header})
}

func problemCodes(ps []Problem) map[string]int {
	out := map[string]int{}
	for _, p := range ps {
		out[p.Code]++
	}
	return out
}

// TestMetaTraderDeals: a deal that reverses the position (in/out) takes
// its rate from the closing part; a swap credited comes off the deal's
// charges, below 0 for a pair (its fees may be negative), never below 0
// for shares (what is left is not booked, and said).
func TestMetaTraderDeals(t *testing.T) {
	head := "Deals\nTime,Deal,Symbol,Type,Direction,Volume,Price,Order,Commission,Fee,Swap,Profit,Balance,Comment\n"
	// EURGBP long 0.1 lot from 0.8300; the in/out sell of 0.2 closes it at
	// 0.8350 (0.005 x 10,000 = 50 GBP, Profit 63.50 USD: rate 1.27) and
	// opens a short 0.1 lot, covered at 0.8320 (30 GBP, 38.10 USD: 1.27).
	// The cover's swap credit of 2.00 is more than its 0.70 commission.
	file := head +
		"2025.03.03 10:00:00,1,EURGBP,buy,in,0.1,0.83000,11,-0.70,0.00,0.00,0.00,,\n" +
		"2025.03.03 12:00:00,2,EURGBP,sell,in/out,0.2,0.83500,12,-1.40,0.00,0.00,63.50,,\n" +
		"2025.03.04 09:00:00,3,EURGBP,buy,out,0.1,0.83200,13,-0.70,0.00,2.00,38.10,,\n" +
		"2025.03.04 10:00:00,4,AAPL,buy,in,5,230.00,14,-0.50,0.00,0.00,0.00,,\n" +
		"2025.03.05 10:00:00,5,AAPL,sell,out,5,231.00,15,-0.50,0.00,1.25,5.00,,\n"
	p := parseText(t, Options{PresetID: "metatrader5"}, file)
	if len(p.Errors) != 0 || len(p.Fills) != 5 {
		t.Fatalf("errors %+v fills %+v", p.Errors, p.Fills)
	}
	rates := []string{"<nil>", "1.27", "1.27"}
	for i, f := range p.Fills[:3] {
		got := "<nil>"
		if f.Rate != nil {
			got = f.Rate.String()
		}
		if f.Symbol != "EUR/GBP" || f.AssetType != AssetForex || got != rates[i] || f.Effect == EffectOpen && i == 1 {
			t.Errorf("fill %d: %+v rate %s, want %s", i, f, got, rates[i])
		}
	}
	// The cover's 0.70 commission less its 2.00 swap credit.
	if f := p.Fills[2]; f.Fees.String() != "-1.3" || !f.Quantity.Equal(decimal.NewFromInt(10000)) {
		t.Errorf("cover %+v", f)
	}
	// AAPL's 0.50 less 1.25: 0, and 0.75 not booked.
	if f := p.Fills[4]; !f.Fees.IsZero() || f.AssetType != AssetStock {
		t.Errorf("AAPL sale %+v", f)
	}
	if w := problemCodes(p.Warnings); w[CodeNotBooked] != 1 || !strings.Contains(p.Warnings[0].Message, "0.75 of the credit is not booked") {
		t.Errorf("warnings %+v", p.Warnings)
	}
	plan := build(p, "USD")
	if len(plan.Errors) != 0 || len(plan.Positions) != 3 {
		t.Fatalf("plan %+v", plan)
	}
	// 63.50 less 0.70 and the closing part of the 1.40 (0.70); 38.10 less
	// the opening part (0.70) and the cover's -1.30.
	if long, short := plan.Positions[0], plan.Positions[1]; long.Figures.GrossPnL.String() != "63.5" || long.Figures.NetPnL.String() != "62.1" ||
		short.ReversalOf != 1 || short.Figures.GrossPnL.String() != "38.1" || short.Figures.NetPnL.String() != "38.7" {
		t.Errorf("positions %+v / %+v", long.Figures, short.Figures)
	}
}

// TestQuantityUnits: a quantity cell that names its unit says it: lots are
// a pair's lots, a currency or coin are units.
func TestQuantityUnits(t *testing.T) {
	head := "Symbol,Opening Direction,Opening Time,Closing Time,Entry Price,Closing Price,Closing Quantity,Commissions,Swap,Gross USD\n"
	file := head +
		"EURUSD,Buy,03/03/2025 08:00:00.000,03/03/2025 09:00:00.000,1.0400,1.0410,0.25 Lots,0,0,25.00\n" +
		"EURUSD,Buy,03/03/2025 10:00:00.000,03/03/2025 11:00:00.000,1.0400,1.0410,\"25,000 EUR\",0,0,25.00\n" +
		"XAUUSD,Sell,03/03/2025 12:00:00.000,03/03/2025 13:00:00.000,2900.00,2890.00,0.02,0,0,20.00\n"
	p := parseText(t, Options{PresetID: "ctrader"}, file)
	if len(p.Errors) != 0 || len(p.Fills) != 6 {
		t.Fatalf("errors %+v fills %d", p.Errors, len(p.Fills))
	}
	for i, want := range []string{"25000", "25000", "2"} {
		if q := p.Fills[2*i].Quantity.String(); q != want {
			t.Errorf("row %d: quantity %s, want %s", i+2, q, want)
		}
	}
	// An exponent is no unit: refused as before.
	p = parseText(t, Options{PresetID: "ctrader"}, head+"EURUSD,Buy,03/03/2025 08:00:00.000,03/03/2025 09:00:00.000,1.04,1.05,1E5,0,0,1\n")
	if len(p.Errors) != 1 || p.Errors[0].Code != CodeInvalidNumber {
		t.Errorf("errors %+v", p.Errors)
	}
}

// TestCryptoFees: a fee with its coin, in the old and the new Binance
// layouts; a fee in a coin the account has no rate of is the row's error
// (the write would refuse it), converted when the rate is there.
func TestCryptoFees(t *testing.T) {
	old := "Date(UTC),Market,Type,Price,Amount,Total,Fee,Fee Coin\n" +
		"2025-03-03 09:00:00,ETHBTC,BUY,0.02500,2.000,0.05000000,0.00150000,BNB\n" +
		"2025-03-03 10:00:00,ETHBTC,SELL,0.02600,2.000,0.05200000,0.00004000,BTC\n"
	p := parseText(t, Options{PresetID: "binance"}, old)
	if len(p.Errors) != 0 || len(p.Fills) != 2 || p.Fills[0].FeeAsset != "BNB" || p.Fills[0].Fees.String() != "0.0015" ||
		p.Fills[1].FeeAsset != "BTC" || p.Fills[0].Symbol != "ETH/BTC" || !p.Fills[0].FilledAt.Equal(time.Date(2025, 3, 3, 9, 0, 0, 0, time.UTC)) {
		t.Fatalf("errors %+v fills %+v", p.Errors, p.Fills)
	}
	// A euro account without rates: the fees, and the P&L in BTC, wait
	// (the journal keeps them as charged until a rate is stored).
	plan := build(p, "EUR")
	if len(plan.Errors) != 0 || problemCodes(plan.Warnings)[CodeAwaitingRate] != 1 || !strings.Contains(plan.Warnings[0].Message, "BNB/EUR") ||
		!plan.Positions[0].Figures.AwaitingRate || !plan.Positions[0].Figures.GrossPnL.IsZero() {
		t.Fatalf("errors %+v warnings %+v", plan.Errors, plan.Warnings)
	}
	// With BTC/EUR 80,000 and BNB/EUR 600 (rates the fx package reads; the
	// exchange-rate routes take ISO currencies only): 2 x 0.001 BTC = 0.002
	// BTC = 160 EUR, less the BNB fee 0.0015 x 600 = 0.90 and the BTC fee
	// 0.00004 x 80,000 = 3.20.
	day := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	plan = build(p, "EUR", fx.Rate{Base: "BTC", Quote: "EUR", Date: day, Value: decimal.NewFromInt(80000)},
		fx.Rate{Base: "BNB", Quote: "EUR", Date: day, Value: decimal.NewFromInt(600)})
	if len(plan.Errors) != 0 || len(plan.Positions) != 1 || plan.Positions[0].Figures.GrossPnL.String() != "160" ||
		plan.Positions[0].Figures.Fees.String() != "4.1" || plan.Positions[0].Figures.QuoteGross.String() != "0.002" {
		t.Fatalf("errors %+v positions %+v", plan.Errors, plan.Positions)
	}
}

// TestFunding: funding rows fold into the contract's next fill's fees
// (else its last one); a payment received comes off them, never below 0;
// a payment with no fill of its contract is not booked; a coin-margined
// contract is skipped by name.
func TestFunding(t *testing.T) {
	head := "Time,Currency,Contract,Type,Direction,Quantity,Position,Filled Price,Funding,Fee Paid,Cash Flow,Change,Wallet Balance,Fee Rate,Trade ID,Order ID\n"
	file := head +
		"2025-03-03 09:00:00,USDT,SOLUSDT,trade,Open Short,10,-10,140.00,0,0.77,0,,,,t1,o1\n" +
		"2025-03-03 16:00:00,USDT,SOLUSDT,funding,,,-10,141.00,-1.00,0,0,,,,,\n" +
		"2025-03-04 09:00:00,USDT,SOLUSDT,trade,Close Short,10,0,138.00,0,0.10,20,,,,t2,o2\n" +
		"2025-03-04 16:00:00,USDT,SOLUSDT,funding,,,0,138.00,0.05,0,0,,,,,\n" +
		"2025-03-04 16:00:00,USDT,XRPUSDT,funding,,,100,2.50,0.02,0,0,,,,,\n" +
		"2025-03-04 16:00:00,USDT,,funding,,,,,0.03,0,0,,,,,\n" +
		"2025-03-05 09:00:00,BTC,BTCUSD,trade,Open Long,100,100,87000,0,0.0000001,0,,,,t3,o3\n"
	p := parseText(t, Options{PresetID: "bybit"}, file)
	if len(p.Errors) != 0 || len(p.Fills) != 2 || p.Skipped != 5 {
		t.Fatalf("errors %+v fills %+v skipped %d", p.Errors, p.Fills, p.Skipped)
	}
	// The 1.00 received comes off the close's 0.10 (a crypto fill's fees
	// may be negative); the 0.05 paid after it goes to the close, the last
	// fill: -0.85.
	if f := p.Fills[1]; f.Fees.String() != "-0.85" || f.FeeAsset != "USDT" || f.Symbol != "SOL/USDT:PERP" {
		t.Errorf("close %+v", f)
	}
	// The XRP payment has no fill; the last names no contract.
	w := problemCodes(p.Warnings)
	if w[CodeNotBooked] != 2 {
		t.Errorf("warnings %+v", p.Warnings)
	}
	for _, x := range p.Warnings {
		if x.Code == CodeNotBooked && x.Row == 6 && !strings.Contains(x.Message, "XRP/USDT:PERP, which has no fill") {
			t.Errorf("warning %+v", x)
		}
	}
	if !slices.ContainsFunc(p.Warnings, func(x Problem) bool {
		return x.Code == CodeRowsSkipped && strings.Contains(x.Message, "BTCUSD (coin-margined (inverse)")
	}) {
		t.Errorf("warnings %+v", p.Warnings)
	}
}

// TestMarketMappings: a mapping's asset-type column types forex, crypto and
// CFD rows, and a symbol of no asset type is read as one where it is;
// bonds stay refused by name.
func TestMarketMappings(t *testing.T) {
	file := "Date,Symbol,Kind,Side,Qty,Price\n" +
		"2025-03-03 09:00,EUR.USD,CASH,Buy,1000,1.04\n" +
		"2025-03-03 09:05,BTC-USD,Crypto,Buy,0.000000000000000001,90000\n" +
		"2025-03-03 09:10,SPX500_USD,CFD,Buy,1,5800\n" +
		"2025-03-03 09:15,US10Y,Bond,Buy,1,99\n" +
		"2025-03-03 09:20,USDJPY,,Sell,5000,150\n"
	p := parseText(t, Options{Mapping: &Mapping{Columns: map[string]Column{"date": {Name: "Date"}, "symbol": {Name: "Symbol"},
		"assetType": {Name: "Kind"}, "side": {Name: "Side"}, "quantity": {Name: "Qty"}, "price": {Name: "Price"}}}}, file)
	if len(p.Errors) != 1 || p.Errors[0].Code != CodeUnsupportedAsset || p.Errors[0].Row != 5 {
		t.Fatalf("errors %+v", p.Errors)
	}
	want := []struct{ symbol, asset, quote string }{{"EUR/USD", AssetForex, ""}, {"BTC/USD", AssetCrypto, ""}, {"SPX500", AssetCFD, "USD"}, {"USD/JPY", AssetForex, ""}}
	if len(p.Fills) != len(want) {
		t.Fatalf("fills %+v", p.Fills)
	}
	for i, w := range want {
		if f := p.Fills[i]; f.Symbol != w.symbol || f.AssetType != w.asset || f.Quote != w.quote {
			t.Errorf("fill %d: %+v, want %+v", i, f, w)
		}
	}
	if q := p.Fills[1].Quantity.String(); q != "0.000000000000000001" {
		t.Errorf("crypto quantity %s", q)
	}
}

// TestMarketMappingRules: a mapping says what a preset says of a forex or
// crypto file: lots, a P&L in the account's currency, swaps, funding rows,
// a fee in the quote, perpetuals and the quote in a column of its own.
func TestMarketMappingRules(t *testing.T) {
	// GBPUSD 0.3 lots long: 0.0040 x 30,000 = 120 USD (PL 120: rate 1),
	// less 1.50 and the 0.60 swap; then a financing row of 0.25 paid on a
	// later GBPUSD add, which it is folded into.
	file := "When,Kind,Pair,Side,Lots,Price,Comm,Swap,PL\n" +
		"2025-03-03 09:00,fill,GBPUSD,buy,0.3,1.2600,-1.50,0,0\n" +
		"2025-03-03 15:00,fill,GBPUSD,sell,0.3,1.2640,0,-0.60,120.00\n" +
		"2025-03-04 00:00,rollover,GBPUSD,,,,,-0.25,\n" +
		"2025-03-04 09:00,fill,GBPUSD,buy,0.1,1.2650,0,0,0\n"
	m := &Mapping{Columns: map[string]Column{"date": {Name: "When"}, "type": {Name: "Kind"}, "symbol": {Name: "Pair"}, "side": {Name: "Side"},
		"quantity": {Name: "Lots"}, "price": {Name: "Price"}, "commission": {Name: "Comm"}, "swap": {Name: "Swap"}, "profit": {Name: "PL"}},
		Lots: true, ProfitInAccount: true, Funding: []string{"Rollover"}}
	p := parseText(t, Options{Mapping: m}, file)
	if len(p.Errors) != 0 || len(p.Fills) != 3 || p.Skipped != 1 {
		t.Fatalf("errors %+v fills %+v", p.Errors, p.Fills)
	}
	if f := p.Fills[1]; f.Quantity.String() != "30000" || f.Fees.String() != "0.6" || f.Rate == nil || f.Rate.String() != "1" {
		t.Errorf("close %+v", f)
	}
	if f := p.Fills[2]; f.Fees.String() != "0.25" {
		t.Errorf("add %+v", f)
	}
	// Funding values without a type column are refused by name.
	m.Columns = map[string]Column{"date": {Name: "When"}, "symbol": {Name: "Pair"}, "quantity": {Name: "Lots"}, "price": {Name: "Price"}}
	if _, err := Resolve(Options{Mapping: m}, "UTC", now, 10); err == nil || !strings.Contains(err.Error(), "mapping.funding") {
		t.Errorf("funding without a type column: %v", err)
	}
	// A quote in its own column, the fee in it, perpetual symbols.
	file = "Time,Asset,Quote,Side,Qty,Price,Fee\n" +
		"2025-03-03 09:00,ETH,USDC,buy,1.5,2000,0.9\n" +
		"2025-03-03 10:00,ETH,USDC,sell,1.5,2010,0.9\n"
	m = &Mapping{Columns: map[string]Column{"date": {Name: "Time"}, "symbol": {Name: "Asset"}, "quote": {Name: "Quote"}, "side": {Name: "Side"},
		"quantity": {Name: "Qty"}, "price": {Name: "Price"}, "fees": {Name: "Fee"}}, DefaultAssetType: "crypto", FeeInQuote: true, Perpetual: true}
	p = parseText(t, Options{Mapping: m}, file)
	if len(p.Errors) != 0 || len(p.Fills) != 2 || p.Fills[0].Symbol != "ETH/USDC:PERP" || p.Fills[0].FeeAsset != "USDC" {
		t.Fatalf("errors %+v fills %+v", p.Errors, p.Fills)
	}
}

// TestQuoteRates: the trader's rate of a quote the file gives none of
// (USDT in a dollar account) is given to every fill quoted in it; other
// quotes keep theirs; a bad rate or code is refused by field.
func TestQuoteRates(t *testing.T) {
	parsed, _ := load(t, "bybit", "bybit_transaction_log.csv", Options{QuoteRates: map[string]string{"usdt": "0.9998"}})
	n := 0
	for _, f := range parsed.Fills {
		pair, err := instrument.ParseCrypto(f.Symbol)
		if err != nil {
			t.Fatalf("%s: %v", f.Symbol, err)
		}
		switch {
		case pair.Quote == "USDT" && (f.Rate == nil || f.Rate.String() != "0.9998"):
			t.Errorf("row %d %s: rate %v, want 0.9998", f.Row, f.Symbol, f.Rate)
		case pair.Quote == "USDT":
			n++
		case f.Rate != nil && f.Rate.String() == "0.9998":
			t.Errorf("row %d %s: took USDT's rate", f.Row, f.Symbol)
		}
	}
	if n == 0 {
		t.Fatal("the fixture has no USDT fills")
	}
	for _, bad := range []map[string]string{{"USDT": "0"}, {"USDT": "x"}, {"US DT": "1"}, {"USDT": "1.0000000000001"}} {
		if _, err := Resolve(Options{PresetID: "binance", QuoteRates: bad}, "UTC", now, 100); err == nil {
			t.Errorf("quoteRates %v accepted", bad)
		}
	}
}

// TestExportColumns: this app's export's Fee Asset, Rate and Multiplier
// columns are read; a rate on a stock row, a stock's multiplier other than
// 1 or a bad number is a row error naming the column.
func TestExportColumns(t *testing.T) {
	const head = "Account,Filled At,Symbol,Asset Type,Side,Quantity,Price,Fees,Fee Asset,Rate,Multiplier\n"
	parse := func(rows string) *Parsed {
		t.Helper()
		s, err := Resolve(Options{PresetID: "tradejournal-export"}, "UTC", now, 100)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Parse(strings.NewReader(head+rows), s)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	good := parse("Main,2025-02-14T08:00:00Z,GER40_EUR,cfd,Buy,0.5,22000.5,0,,1.0832,25\n" +
		"Main,2025-02-14T09:00:00Z,BTC/USD,crypto,Buy,0.1,60000,0.00001,BTC,,\n" +
		"Main,2025-02-14T10:00:00Z,AAPL,stock,Buy,1,180,0,,,\n")
	if len(good.Errors) > 0 || len(good.Fills) != 3 {
		t.Fatalf("%+v", good.Errors)
	}
	cfd, coin := good.Fills[0], good.Fills[1]
	if cfd.Symbol != "GER40" || cfd.Quote != "EUR" || cfd.Multiplier.String() != "25" || cfd.Rate == nil || cfd.Rate.String() != "1.0832" {
		t.Errorf("CFD %+v", cfd)
	}
	if coin.FeeAsset != "BTC" || coin.Fees.String() != "0.00001" || coin.Rate != nil {
		t.Errorf("crypto %+v", coin)
	}
	for _, row := range []string{
		"Main,2025-02-14T10:00:00Z,AAPL,stock,Buy,1,180,0,,1.1,\n",
		"Main,2025-02-14T10:00:00Z,AAPL,stock,Buy,1,180,0,,,100\n",
		"Main,2025-02-14T10:00:00Z,EUR/USD,forex,Buy,1000,1.1,0,,0,\n",
		"Main,2025-02-14T10:00:00Z,ESH25,future,Buy,1,6000,0,,,-5\n",
	} {
		if out := parse(row); len(out.Errors) == 0 || len(out.Fills) != 0 {
			t.Errorf("%q: %+v %+v", row, out.Fills, out.Errors)
		}
	}
}
