package brokerfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// parseText resolves opts and parses file, failing the test on a
// whole-file error.
func parseText(t *testing.T, opts Options, file string) *Parsed {
	t.Helper()
	s, err := Resolve(opts, "America/New_York", now, 10000)
	if err != nil {
		t.Fatalf("resolve: %v", err)
	}
	parsed, err := Parse(strings.NewReader(file), s)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return parsed
}

// TestForgivingHeaders: case, spaces and punctuation do not matter, and a
// preset finds a column under a common synonym.
func TestForgivingHeaders(t *testing.T) {
	for _, head := range []string{"Filled At", "FilledAt", "filled_at", "FILLED-AT", "Fill Time"} {
		t.Run(head, func(t *testing.T) {
			file := head + ",Ticker,EntryQty,Fill Price,B/S\n2024-01-16 09:31:05,AAPL,100,185.5,Buy\n"
			p := parseText(t, Options{PresetID: "generic-execution"}, file)
			if len(p.Errors) != 0 || len(p.Fills) != 1 || p.Fills[0].Quantity.String() != "100" || p.Fills[0].Symbol != "AAPL" {
				t.Fatalf("errors %+v fills %+v", p.Errors, p.Fills)
			}
		})
	}
	t.Run("Mapping", func(t *testing.T) {
		file := "FilledAt,SYMBOL,qty,price\n2024-01-16 09:31:05,AAPL,100,185.5\n"
		p := parseText(t, Options{Mapping: &Mapping{Columns: map[string]Column{
			"date": {Name: "Filled At"}, "symbol": {Name: "symbol"}, "quantity": {Name: "Q.T.Y."}, "price": {Name: "Price"}}}}, file)
		if len(p.Errors) != 0 || len(p.Fills) != 1 {
			t.Fatalf("errors %+v", p.Errors)
		}
	})
	if HeadKey("P&L") == HeadKey("PL") || HeadKey(" Filled  At ") != "filledat" {
		t.Fatal("HeadKey")
	}
}

// TestVocabularies: the side and open/close words of broker files.
func TestVocabularies(t *testing.T) {
	sides := map[string][2]string{
		"BC": {Buy, EffectClose}, "SC": {Sell, EffectClose}, "Bought To Open": {Buy, EffectOpen}, "Sold To Close": {Sell, EffectClose},
		"Bid": {Buy, ""}, "Ask": {Sell, ""}, "BTO": {Buy, EffectOpen}, "STC": {Sell, EffectClose}, "SS": {Sell, EffectOpen},
		"YOU BOUGHT OPENING TRANSACTION CALL (NVDA) NVIDIA CORP": {Buy, EffectOpen},
		"YOU SOLD CLOSING TRANSACTION PUT (NVDA)":                {Sell, EffectClose},
		"YOU BOUGHT APPLE INC (AAPL) (Cash)":                     {Buy, ""},
		"Sell Short":                                             {Sell, EffectOpen},
	}
	for word, want := range sides {
		side, effect, ok := parseAction(word)
		if !ok || side != want[0] || effect != want[1] {
			t.Errorf("%q: %s %s %v, want %v", word, side, effect, ok, want)
		}
	}
	for _, word := range []string{"Dividend", "Reinvest Shares", "", "MoneyLink Transfer"} {
		if _, _, ok := parseAction(word); ok {
			t.Errorf("%q read as a side", word)
		}
	}
	for word, want := range map[string]string{"AUTO": "", "Opening": EffectOpen, "TO CLOSE": EffectClose, "Closing Transaction": EffectClose} {
		if e, ok := parseEffect(word); !ok || e != want {
			t.Errorf("%q: %q %v", word, e, ok)
		}
	}
}

// TestNumberForms: currency signs and codes before or after, trailing and
// parenthesised negatives.
func TestNumberForms(t *testing.T) {
	cases := []struct{ in, format, want string }{
		{"0,62 $", NumberEU, "0.62"}, {"1.234,50 €", NumberEU, "1234.5"}, {"USD 12.50", NumberUS, "12.5"},
		{"12.50 USD", NumberUS, "12.5"}, {"(1,234.56)", NumberUS, "-1234.56"}, {"$(25.00)", NumberUS, "-25"},
		{"25.00-", NumberUS, "-25"}, {"-$3.10", NumberUS, "-3.1"}, {"1 234,5", NumberEU, "1234.5"},
	}
	for _, c := range cases {
		d, ok := parseNumber(c.in, c.format)
		if !ok || d.String() != c.want {
			t.Errorf("%q (%s): %s %v, want %s", c.in, c.format, d, ok, c.want)
		}
	}
	for _, bad := range []string{"$", "USD", "1.2.3", "--5", "5$$", "(5"} {
		if d, ok := parseNumber(bad, NumberUS); ok {
			t.Errorf("%q read as %s", bad, d)
		}
	}
}

// TestMappingRules: a user mapping skips rows by status (by default the
// orders that did not fill) and by a filter, skips non-trade rows, learns
// the file's words and types a futures file with a multiplier.
func TestMappingRules(t *testing.T) {
	file := "Time,Contract,Side,Qty,Price,Status,O/C,Kind\n" +
		"2024-03-01 09:30:00,XYZH4,Purchase,2,100.5,Filled,AUTO,Trade\n" +
		"2024-03-01 09:31:00,XYZH4,Purchase,1,100,Cancelled,AUTO,Trade\n" +
		"2024-03-01 09:32:00,XYZH4,Sale,2,101.25,Filled,Closing,Trade\n" +
		"2024-03-01 09:33:00,XYZH4,Purchase,2,99,Rejected,AUTO,Trade\n" +
		"2024-03-01 09:34:00,,Interest,,,,,Cash\n" +
		"2024-03-01 09:35:00,ESH4,Dividend,1,1,Filled,,Trade\n"
	m := &Mapping{
		Columns: map[string]Column{"date": {Name: "time"}, "symbol": {Name: "contract"}, "side": {Name: "side"},
			"quantity": {Name: "qty"}, "price": {Name: "price"}, "status": {Name: "status"}, "openClose": {Name: "o/c"}},
		Filters:          []Filter{{Column: Column{Name: "Kind"}, Keep: []string{"trade"}}},
		SkipNonTrades:    true,
		Vocabulary:       Vocabulary{Sides: map[string]string{"Purchase": "buy", "Sale": "sell"}, OpenClose: map[string]string{"Closing": "close"}},
		DefaultAssetType: "future", Multiplier: "10",
	}
	p := parseText(t, Options{Mapping: m}, file)
	if len(p.Errors) != 0 || len(p.Fills) != 2 || p.Skipped != 4 {
		t.Fatalf("errors %+v fills %d skipped %d", p.Errors, len(p.Fills), p.Skipped)
	}
	f := p.Fills[0]
	if f.AssetType != AssetFuture || f.Symbol != "XYZH24" || f.Multiplier.String() != "10" || p.Fills[1].Effect != EffectClose {
		t.Fatalf("fill %+v", f)
	}
	plan := Build(p.Fills, Journal{}, BuildOptions{})
	if len(plan.Positions) != 1 || plan.Positions[0].Figures.GrossPnL.String() != "15" {
		t.Fatalf("positions %+v", plan.Positions)
	}

	bad := []struct {
		m     Mapping
		field string
	}{
		{Mapping{Vocabulary: Vocabulary{Sides: map[string]string{"Purchase": "acquire"}}}, "mapping.sides.Purchase"},
		{Mapping{Vocabulary: Vocabulary{OpenClose: map[string]string{"X": "maybe"}}}, "mapping.openClose.X"},
		{Mapping{DefaultAssetType: "bond"}, "mapping.defaultAssetType"},
		{Mapping{DefaultAssetType: "stock", Multiplier: "5"}, "mapping.multiplier"},
		{Mapping{DefaultAssetType: "future", Multiplier: "-5"}, "mapping.multiplier"},
		{Mapping{Filters: []Filter{{Column: Column{Name: "Status"}}}}, "mapping.filters[0]"},
	}
	for _, b := range bad {
		b.m.Columns = m.Columns
		_, err := Resolve(Options{Mapping: &b.m}, "America/New_York", now, 10)
		if err == nil || !strings.Contains(err.Error(), b.field) {
			t.Errorf("%+v: %v, want a problem of %s", b.m, err, b.field)
		}
	}
}

// TestInstrumentForms: futures in every common form and options from
// compact symbols and descriptions, through instrument.ParseFuture and
// ParseOCC; forex pairs and CFDs refused by name.
func TestInstrumentForms(t *testing.T) {
	traded := time.Date(2025, 2, 3, 15, 0, 0, 0, time.UTC)
	cases := []struct{ in, asset, symbol, kind, mult string }{
		{"MNQ MAR25", "", "MNQH25", AssetFuture, "2"},
		{"MNQ Mar 2025", "", "MNQH25", AssetFuture, "2"},
		{"MES 09-26", "", "MESU26", AssetFuture, "5"},
		{"MESM6", AssetFuture, "MESM26", AssetFuture, "5"},
		{"F.US.MESM26", "", "MESM26", AssetFuture, "5"},
		{"CON.F.US.EP.M25", "", "ESM25", AssetFuture, "50"},
		{"/ESH24:XCME", "", "ESH24", AssetFuture, "50"},
		{"ESZ2024", AssetFuture, "ESZ24", AssetFuture, "50"},
		{"NQ 2025-12", "", "NQZ25", AssetFuture, "20"},
		{"-NVDA260710P195", "", "NVDA  260710P00195000", AssetOption, "100"},
		{"AAPL 240119C190", "", "AAPL  240119C00190000", AssetOption, "100"},
		{"NVDA Jul 10 2026 195.00 Put", "", "NVDA  260710P00195000", AssetOption, "100"},
		{"NVDA 07/10/2026 195.00 P", "", "NVDA  260710P00195000", AssetOption, "100"},
		{"PUT NVDA 07/10/26 195", "", "NVDA  260710P00195000", AssetOption, "100"},
		{"NVDA 100 (Weeklys) 10 JUL 26 195 PUT", "", "NVDA  260710P00195000", AssetOption, "100"},
		{"CALL (SPY) SPDR S&P500 ETF JAN 19 24 $480 (100 SHS)", "", "SPY   240119C00480000", AssetOption, "100"},
		{"AAPL  240119C00190000", "", "AAPL  240119C00190000", AssetOption, "100"},
		{"BRK B", "", "BRK.B", AssetStock, "1"},
		{"MAR", "", "MAR", AssetStock, "1"},
	}
	for _, c := range cases {
		inst, code, msg := ParseSymbol(c.in, c.asset, traded)
		if msg != "" || inst.Symbol != c.symbol || inst.AssetType != c.kind || inst.Multiplier.String() != c.mult {
			t.Errorf("%q: %+v %s %s, want %s %s x%s", c.in, inst, code, msg, c.symbol, c.kind, c.mult)
		}
	}
	// Currency pairs, coins and index CFDs by the names the platforms
	// write, read with shared/instrument's pair parsers.
	markets := []struct{ in, asset, symbol, kind, base, quote string }{
		{"EURUSD", "", "EUR/USD", AssetForex, "EUR", "USD"},
		{"EURUSD.m", "", "EUR/USD", AssetForex, "EUR", "USD"},
		{"eurusd", "", "EUR/USD", AssetForex, "EUR", "USD"},
		{"GBP/JPY", "", "GBP/JPY", AssetForex, "GBP", "JPY"},
		{"EUR_USD", "", "EUR/USD", AssetForex, "EUR", "USD"},
		{"EUR.USD", "", "EUR/USD", AssetForex, "EUR", "USD"},
		{"XAUUSD", "", "XAU/USD", AssetForex, "XAU", "USD"},
		{"FX:EURUSD", "", "EUR/USD", AssetForex, "EUR", "USD"},
		{"BTCUSD", "", "BTC/USD", AssetCrypto, "BTC", "USD"},
		{"BTC-USD", "", "BTC/USD", AssetCrypto, "BTC", "USD"},
		{"XXBTZUSD", AssetCrypto, "BTC/USD", AssetCrypto, "BTC", "USD"},
		{"SOLBUSD", AssetCrypto, "SOL/BUSD", AssetCrypto, "SOL", "BUSD"},
		{"BTCUSDT.P", "", "BTC/USDT:PERP", AssetCrypto, "BTC", "USDT"},
		{"US30", "", "US30", AssetCFD, "", ""},
		{"NAS100", "", "NAS100", AssetCFD, "", ""},
		{"GER40.cash", "", "GER40", AssetCFD, "", ""},
		{"DE30_EUR", "", "DE30", AssetCFD, "", "EUR"},
		{"AAPL", AssetCFD, "AAPL", AssetCFD, "", ""},
	}
	for _, c := range markets {
		inst, code, msg := ParseSymbol(c.in, c.asset, traded)
		if msg != "" || inst.Symbol != c.symbol || inst.AssetType != c.kind || inst.Base != c.base || inst.Quote != c.quote || !inst.Multiplier.Equal(decimal.NewFromInt(1)) {
			t.Errorf("%q (%s): %+v %s %s, want %s %s", c.in, c.asset, inst, code, msg, c.symbol, c.kind)
		}
	}
	// A symbol typed forex or crypto that is no pair is named with the
	// forms read; tickers stay stocks (BTCS, ETHE are shares).
	for _, c := range []struct{ in, asset string }{{"EURXYZ", AssetForex}, {"BTC", AssetCrypto}, {"ABC DEF", AssetCFD}} {
		if _, code, msg := ParseSymbol(c.in, c.asset, traded); code != CodeInvalidSymbol || !strings.Contains(msg, "such as") && c.asset != AssetCFD {
			t.Errorf("%q as %s: %s %s", c.in, c.asset, code, msg)
		}
	}
	for _, in := range []string{"BTCS", "ETHE", "COIN", "ALLY", "WTI", "LINK", "SOL"} {
		if inst, _, msg := ParseSymbol(in, "", traded); msg != "" || inst.AssetType != AssetStock {
			t.Errorf("%q: %+v %s, want a stock", in, inst, msg)
		}
	}
	for _, in := range []string{"MNQ FOO25", "ES 13-25", "F.US.", "/"} {
		if _, code, _ := ParseSymbol(in, AssetFuture, traded); code != CodeInvalidSymbol {
			t.Errorf("%q: code %s, want %s", in, code, CodeInvalidSymbol)
		}
	}
}

// TestOptionInDescription: an option written only in the description
// column.
func TestOptionInDescription(t *testing.T) {
	file := "Date,Symbol,Description,Action,Quantity,Price\n" +
		"2025-05-01,NVDA,NVDA Jul 10 2026 195.00 Put,Buy to Open,2,3.10\n" +
		"2025-05-02,,NVDA Jul 10 2026 195.00 Put,Sell to Close,2,4.25\n" +
		"2025-05-02,AAPL,APPLE INC,Buy,10,200\n"
	p := parseText(t, Options{Mapping: &Mapping{Columns: map[string]Column{"date": {Name: "Date"}, "symbol": {Name: "Symbol"},
		"description": {Name: "Description"}, "side": {Name: "Action"}, "quantity": {Name: "Quantity"}, "price": {Name: "Price"}}}}, file)
	if len(p.Errors) != 0 || len(p.Fills) != 3 || p.Fills[0].Symbol != "NVDA  260710P00195000" || p.Fills[1].Symbol != p.Fills[0].Symbol || p.Fills[2].Symbol != "AAPL" {
		t.Fatalf("errors %+v fills %+v", p.Errors, p.Fills)
	}
}

// TestDetectSamples: every preset's sample is detected as that preset.
func TestDetectSamples(t *testing.T) {
	for _, p := range Presets() {
		data, err := os.ReadFile(filepath.Join("testdata", p.Sample))
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > DetectBytes {
			data = data[:DetectBytes]
		}
		d, ok := Detect(data)
		if !ok || d.PresetID != p.ID {
			t.Errorf("%s: detected %+v %v", p.ID, d, ok)
		}
	}
	for _, head := range []string{"", "a,b,c\n1,2,3\n", "PK\x03\x04"} {
		if d, ok := Detect([]byte(head)); ok {
			t.Errorf("%q detected as %+v", head, d)
		}
	}
}

// TestFileAccounts: a file of several accounts is refused until the
// options pick one; then the other accounts' rows are skipped.
func TestFileAccounts(t *testing.T) {
	file := "Instrument,Action,Quantity,Price,Time,E/X,Commission,Account\n" +
		"MES 03-25,Buy,1,6000,2/3/2025 9:31:05 AM,Entry,$0.62,Sim101\n" +
		"MES 03-25,Sell,1,6004,2/3/2025 9:41:05 AM,Exit,$0.62,Sim101\n" +
		"MES 03-25,Sell,2,6010,2/3/2025 9:45:00 AM,Entry,$1.24,APEX-22\n" +
		"MES 03-25,Buy,2,6001,2/3/2025 9:55:00 AM,Exit,$1.24,APEX-22\n"
	p := parseText(t, Options{PresetID: "ninjatrader"}, file)
	if len(p.Errors) != 1 || p.Errors[0].Code != CodeMultipleAccounts || p.Accounts["Sim101"] != 2 || p.Accounts["APEX-22"] != 2 {
		t.Fatalf("errors %+v accounts %v", p.Errors, p.Accounts)
	}
	p = parseText(t, Options{PresetID: "ninjatrader", FileAccount: "APEX-22"}, file)
	if len(p.Errors) != 0 || len(p.Fills) != 2 || p.Skipped != 2 {
		t.Fatalf("errors %+v fills %d skipped %d", p.Errors, len(p.Fills), p.Skipped)
	}
	plan := Build(p.Fills, Journal{}, BuildOptions{})
	// A short of 9 points x 2 x 5, less 2.48.
	if len(plan.Positions) != 1 || plan.Positions[0].Side != "short" || plan.Positions[0].Figures.NetPnL.String() != "87.52" {
		t.Fatalf("positions %+v", plan.Positions)
	}
	s, _ := Resolve(Options{PresetID: "generic-execution", FileAccount: "x"}, "UTC", now, 10)
	if _, err := Parse(strings.NewReader("Date,Symbol,Quantity,Price\n2024-01-02,AAPL,1,1\n"), s); err == nil || !strings.Contains(err.Error(), "fileAccount") {
		t.Fatalf("fileAccount without an account column: %v", err)
	}
}

// TestFlexSeparateTime: a Flex query with TradeDate and TradeTime (no
// DateTime) keeps the time, and its ClientAccountID splits the file.
func TestFlexSeparateTime(t *testing.T) {
	file := "TradeDate,TradeTime,Buy/Sell,AssetClass,Symbol,Quantity,TradePrice,IBCommission,ClientAccountID\n" +
		"20160912,100344,BUY,OPT,SPX 161118P02035000,2,30.1,-2.2434,U111\n" +
		"20160912,143148,SELL,STK,AAPL,-5,105,-1,U222\n"
	p := parseText(t, Options{PresetID: "ibkr-flex-trades", AccountMap: map[string]string{"U111": "j1", "U222": "j2"}}, file)
	if len(p.Errors) != 0 || len(p.Fills) != 2 {
		t.Fatalf("errors %+v fills %+v", p.Errors, p.Fills)
	}
	if p.Fills[0].FilledAt != time.Date(2016, 9, 12, 14, 3, 44, 0, time.UTC) || p.Fills[0].Symbol != "SPX   161118P02035000" ||
		p.Fills[0].Account != "U111" || p.Fills[1].Account != "U222" || p.Fills[1].Side != Sell {
		t.Fatalf("fills %+v", p.Fills)
	}
}

// TestPairedRows: TradeStation's trades list: the exit row takes its
// entry's quantity (its cell holds the profit), an exit without its entry
// is a located error, and the list's instrument is the options' symbol,
// required and checked.
func TestPairedRows(t *testing.T) {
	head := "#,Type,Date/Time,Signal,Price,Shares/Ctrts - Profit/Loss\n"
	p := parseText(t, Options{PresetID: "tradestation-trades", Symbol: "/ESH25"}, head+
		"1,Sell Short,03/04/2025 09:45:00 AM,SE,6000,2\n"+
		"1,Buy to Cover,03/04/2025 10:15:00 AM,SX,5990,$1000.00\n"+
		",Sell,03/04/2025 11:00:00 AM,LX,5995,($50.00)\n")
	if len(p.Fills) != 2 || p.Fills[1].Quantity.String() != "2" || p.Fills[1].Symbol != "ESH25" || p.Fills[1].AssetType != AssetFuture {
		t.Fatalf("fills %+v", p.Fills)
	}
	if len(p.Errors) != 1 || p.Errors[0].Row != 4 || p.Errors[0].Code != CodeMissingValue || p.Errors[0].ColumnName != "#" {
		t.Fatalf("errors %+v", p.Errors)
	}
	for _, opts := range []Options{
		{PresetID: "tradestation-trades"},
		{PresetID: "tradestation-trades", Symbol: "EUR/XYZ!"},
		{PresetID: "generic-execution", Symbol: "AAPL"},
	} {
		if _, err := Resolve(opts, "UTC", now, 10); err == nil || !strings.Contains(err.Error(), "symbol") {
			t.Errorf("%+v: %v", opts, err)
		}
	}
}
