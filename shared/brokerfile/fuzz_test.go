package brokerfile

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"testing/iotest"

	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
)

// fuzzSpec picks the spec of a fuzz input: a preset, or a mapping (with
// and without header, by number) in one of the formats.
func fuzzSpec(choice byte) *Spec {
	all := Presets()
	var opts Options
	switch n := int(choice) % (len(all) + 5); {
	case n < len(all):
		opts.PresetID = all[n].ID
		if all[n].NeedsDate {
			opts.TradeDate = "2025-03-04"
		}
		if all[n].NeedsSymbol {
			opts.Symbol = "/ESH25"
		}
	case n == len(all)+3:
		// A file without dates on a given day, split across accounts.
		opts.Mapping = &Mapping{Columns: map[string]Column{
			FieldTime: {Name: "t"}, FieldSymbol: {Name: "s"}, FieldSide: {Name: "side"}, FieldQuantity: {Name: "q"},
			FieldPrice: {Name: "p"}, FieldAccount: {Name: "acct"}}}
		opts.TradeDate, opts.AccountMap = "2025-03-04", map[string]string{"A1": "x", "A2": ""}
	case n == len(all):
		no := false
		opts.Mapping = &Mapping{HasHeader: &no, Columns: map[string]Column{
			FieldDate: {Index: 1}, FieldSymbol: {Index: 2}, FieldSide: {Index: 3}, FieldQuantity: {Index: 4}, FieldPrice: {Index: 5}, FieldFees: {Index: 6}}}
	case n == len(all)+1:
		opts.Mapping = &Mapping{Delimiter: ";", Columns: map[string]Column{
			FieldDate: {Name: "d"}, FieldTime: {Name: "t"}, FieldSymbol: {Name: "s"}, FieldQuantity: {Name: "q"}, FieldPrice: {Name: "p"},
			FieldEffect: {Name: "e"}, FieldExpiry: {Name: "x"}, FieldStrike: {Name: "k"}, FieldRight: {Name: "r"}}}
		opts.NumberFormat, opts.DateFormat = NumberEU, DateEU
	case n == len(all)+2:
		// A mapping with every rule: filters, vocabularies, defaults, the
		// file's accounts.
		opts.Mapping = &Mapping{Columns: map[string]Column{
			FieldDate: {Name: "d"}, FieldSymbol: {Name: "s"}, FieldSide: {Name: "side"}, FieldQuantity: {Name: "q"},
			FieldPrice: {Name: "p"}, FieldStatus: {Name: "st"}, FieldAccount: {Name: "acct"}, FieldDescription: {Name: "desc"},
			FieldEffect: {Name: "oc"}},
			Filters:          []Filter{{Column: Column{Name: "kind"}, Skip: []string{"cash"}}},
			SkipNonTrades:    true,
			Vocabulary:       Vocabulary{Sides: map[string]string{"purchase": "buy", "sale": "sell to close"}, OpenClose: map[string]string{"x": "auto"}},
			DefaultAssetType: AssetFuture, Multiplier: "10"}
		opts.FileAccount = "A1"
	default:
		opts.Mapping = &Mapping{Columns: map[string]Column{
			FieldSymbol: {Name: "s"}, FieldQuantity: {Name: "q"}, FieldEntryDate: {Name: "a"}, FieldEntryPrice: {Name: "ap"},
			FieldExitDate: {Name: "b"}, FieldExitPrice: {Name: "bp"}, FieldSide: {Name: "side"}, FieldPnL: {Name: "pnl"}}}
		opts.RowShape, opts.DateFormat = ShapeRoundTrip, DateUS
	}
	s, err := Resolve(opts, "America/New_York", now, 200)
	if err != nil {
		panic(err)
	}
	return s
}

// otherSamples are the fixtures besides the presets' samples (multi-leg
// orders, futures options, one scaled trade in two reports), by the preset
// that reads them.
var otherSamples = map[string]string{
	"ibkr_flex_trades_multileg.csv":               "ibkr-flex-trades",
	"tastytrade_transactions_multileg.csv":        "tastytrade",
	"thinkorswim_statement_multileg.csv":          "thinkorswim",
	"thinkorswim_statement_futures_options.csv":   "thinkorswim",
	"tastytrade_transactions_futures_options.csv": "tastytrade",
	"tradovate_performance_scaled.csv":            "tradovate-performance",
	"tradovate_orders_scaled.csv":                 "tradovate",
}

// exportSeeds are files in the forms of real exports that failed once
// (exports_test.go), for FuzzParse's corpus.
var exportSeeds = []struct{ preset, file string }{
	{"generic-execution", "Date,Symbol,Side,Qty,Price\n2024-03-01 09:30:00,.FTG,Buy,10,100,GMT-04\n" +
		"2024-03-01 09:45:00 UTC+02,.FTG,Sell,10,101,UTC+5:30\n2024-03-01 10:00:00, GMT-4,AAPL,Buy,1,1,note\n"},
	{"generic-execution", "Date,Time,Time Zone,Symbol,Side,Qty,Price\n2024-03-01,09:30:00,GMT-04,AAPL,Buy,10,100\n" +
		"2024-03-01,09:55:00,Mars,AAPL,Sell,10,101\n"},
	{"generic-execution", wrap("Date,Time,Symbol,Side,Quantity,Price,Fees\n2024-03-01,09:30:00,AAPL,Buy,10,\"1,015.50\",1.00\n"+
		"2024-03-01,10:30:00,AAPL,Sell,10,\"1,017.25\",1.00\n\"note, one cell\"\n") + "\"2024-03-01,11:00:00,AAPL,Buy,1,\"\"1\"\"x,1\"\n"},
	{"generic-round-trip", "Symbol,Side,Quantity,Buy Date,Buy Price,Sell Date,Sell Price\n" +
		"AMD,,100,2024-02-06 09:50:00,171.80,2024-02-05 10:12:00,175.20\nAMD,Long,100,2024-02-06 09:50:00,171.80,2024-02-05 10:12:00,175.20\n" +
		"NVDA,S,40,2024-02-05 09:40:00,690.10,2024-02-05 11:05:30,698.35\n"},
	{"merrill-edge", "\"Trade Date\",\"Description 1 \",\"Description 2\",\"Symbol/CUSIP #\",\"Quantity\",\"Price ($)\"\n" +
		"\"02/04/2025\",\"Option Purchase\",\"CALL TSLA 00425.000 EXP 02/13/26\",\"TSLA#B13X6C425000\",\"2\",\"48.35\"\n" +
		"\"02/05/2025\",\"Option Sale\",\"TESLA INC\",\"TSLA#B13X6C425000\",\"-2\",\"50\"\n" +
		"\"02/05/2025\",\"Option Sale\",\"PUT TSLA 00425.000 EXP 02/13/26\",\"TSLA#B1326C425000\",\"-2\",\"50\"\n"},
	{"fidelity", wrap(" Run Date,Action,Symbol,Description,Quantity,Price ($),Commission ($),Fees ($)\n" +
		"03/03/2025,YOU BOUGHT,AMD,ADVANCED MICRO,10,118.00,,\n\"Brokerage services, member NYSE, SIPC\"\n")},
}

// FuzzParse holds the CSV-to-fills parser to its promises on any bytes:
// it never panics; it fails only with an application error (a 4xx); every
// fill it returns fits the journal's columns; every problem is located and
// coded; reading the file a byte at a time gives the same result; the
// staged form round-trips; and Build groups any fills without panicking,
// into positions whose figures journal.Compute accepts.
func FuzzParse(f *testing.F) {
	entries, _ := os.ReadDir("testdata")
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".csv" {
			continue
		}
		data, err := os.ReadFile(filepath.Join("testdata", e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		for i, p := range Presets() {
			if p.Sample == e.Name() || otherSamples[e.Name()] == p.ID {
				f.Add(data, byte(i))
			}
		}
	}
	f.Add([]byte("2024-01-16 09:31:05,AAPL,buy,100,184.25,1\n2024-01-16 09:41:05,AAPL,sell,150,185,1\n"), byte(len(Presets())))
	f.Add([]byte(wrap("2024-01-16 09:31:05,AAPL,buy,100,184.25,1\n2024-01-16 09:41:05,AAPL,sell,150,185,1\n")), byte(len(Presets())))
	f.Add([]byte("d;t;s;q;p;e;x;k;r\n19.01.2024;09:31;SPY;2;1,5;O;19 JAN 24;470;C\n"), byte(len(Presets())+1))
	f.Add([]byte("s,q,a,ap,b,bp,side,pnl\nAAPL,10,1/2/24,10,1/3/24,9,,-10\n"), byte(len(Presets())+2))
	// The failures of real exports (exports_test.go), by preset.
	for _, seed := range exportSeeds {
		for i, p := range Presets() {
			if p.ID == seed.preset {
				f.Add([]byte(seed.file), byte(i))
			}
		}
	}

	f.Fuzz(func(t *testing.T, data []byte, choice byte) {
		s := fuzzSpec(choice)
		parsed, err := Parse(bytes.NewReader(data), s)
		again, err2 := Parse(iotest.OneByteReader(bytes.NewReader(data)), s)
		if (err == nil) != (err2 == nil) || err == nil && !reflect.DeepEqual(parsed, again) {
			t.Fatalf("byte-at-a-time read differs: %v / %v", err, err2)
		}
		if err != nil {
			if _, ok := apperr.As(err); !ok {
				t.Fatalf("error %v is not an application error", err)
			}
			return
		}
		if parsed.Rows == 0 || parsed.Rows > s.MaxRows {
			t.Fatalf("rows %d", parsed.Rows)
		}
		for _, p := range append(parsed.Errors, parsed.Warnings...) {
			if p.Code == "" || p.Message == "" || p.Row < 0 || p.Column < 0 {
				t.Fatalf("problem %+v", p)
			}
			if p.Code != CodeRowsSkipped && p.Code != CodeNoFeesColumn && p.Code != CodeFeesEstimated && p.Code != CodeMultipleAccounts && p.Row == 0 {
				t.Fatalf("unlocated problem %+v", p)
			}
		}
		for _, fl := range parsed.Fills {
			switch {
			case fl.Row < 1, fl.Symbol == "", fl.Side != Buy && fl.Side != Sell:
				t.Fatalf("fill %+v", fl)
			case fl.Price.IsNegative() || fl.Price.GreaterThan(maxPrice) || fl.Price.Exponent() < -places(fl.AssetType):
				t.Fatalf("price %s", fl.Price)
			case !fl.Quantity.IsPositive() || fl.Quantity.GreaterThan(maxQuantity) || fl.Quantity.Exponent() < -places(fl.AssetType):
				t.Fatalf("quantity %s", fl.Quantity)
			case fl.Fees.IsNegative() && !quoted(fl.AssetType) || fl.Fees.Abs().GreaterThan(maxFee) || fl.Fees.Exponent() < -feePlaces(fl.FeeAsset):
				t.Fatalf("fees %s", fl.Fees)
			case fl.FeeAsset != "" && (!quoted(fl.AssetType) || !instrument.ValidAsset(fl.FeeAsset) || fl.Fees.IsZero()):
				t.Fatalf("fee asset %q of %+v", fl.FeeAsset, fl)
			case fl.Rate != nil && (!quoted(fl.AssetType) || !fl.Rate.IsPositive() || fl.Rate.Exponent() < -12):
				t.Fatalf("rate %s of %+v", fl.Rate, fl)
			case fl.FilledAt.Before(journal.Earliest) || fl.FilledAt.After(now.Add(24*60*60*1e9)):
				t.Fatalf("time %s", fl.FilledAt)
			}
			switch fl.AssetType {
			case AssetOption:
				if _, err := instrument.ParseOCC(fl.Symbol); err != nil {
					t.Fatalf("option symbol %q: %v", fl.Symbol, err)
				}
			case AssetForex, AssetCrypto, AssetCFD:
				// The canonical pair (or CFD) the commit parses again.
				in, err := instrument.Parse(fl.AssetType, fl.Symbol, fl.FilledAt)
				if err != nil || in.Symbol != fl.Symbol || !fl.Multiplier.Equal(decimal.NewFromInt(1)) {
					t.Fatalf("%s %q x %s: %+v %v", fl.AssetType, fl.Symbol, fl.Multiplier, in, err)
				}
			case AssetFuture:
				// The canonical contract the commit parses again, and its
				// root's built-in point value.
				fut, err := instrument.ParseFuture(fl.Symbol, fl.FilledAt)
				if point, known := fut.PointValue(); err != nil || fut.Symbol() != fl.Symbol || !known || !point.Equal(fl.Multiplier) {
					t.Fatalf("future %q x %s: %+v %v", fl.Symbol, fl.Multiplier, fut, err)
				}
			}
		}
		back, err := DecodeFills(EncodeFills(parsed.Fills))
		if err != nil || len(back) != len(parsed.Fills) {
			t.Fatalf("payload: %v", err)
		}
		for i := range back {
			a, b := parsed.Fills[i], back[i]
			if a.Symbol != b.Symbol || a.AssetType != b.AssetType || !a.Multiplier.Equal(b.Multiplier) || !a.Price.Equal(b.Price) || !a.Quantity.Equal(b.Quantity) || !a.FilledAt.Equal(b.FilledAt) || a.OrderID != b.OrderID {
				t.Fatalf("payload fill %d: %+v / %+v", i, a, b)
			}
		}
		EstimateFees(parsed.Fills, parsed.HasFees, nil)
		plan := Build(parsed.Fills, Journal{}, BuildOptions{Header: parsed.Header})
		seen := map[int]bool{}
		n, rows := 0, 0
		for _, pos := range plan.Positions {
			if len(pos.Fills) == 0 || len(pos.Fills) != len(pos.Types) {
				t.Fatalf("position %+v", pos)
			}
			for k, i := range pos.Fills {
				if i < 0 || i >= len(parsed.Fills) || seen[i] && !(k == 0 && pos.ReversalOf > 0) {
					t.Fatalf("fill %d used twice (not as a reversal's two parts) or out of range", i)
				}
				if !seen[i] {
					n++
				}
				seen[i] = true
				rows++
			}
			if pos.Figures.OpenQuantity.IsNegative() {
				t.Fatalf("figures %+v", pos.Figures)
			}
		}
		if len(plan.Errors) == 0 && n != plan.Summary.ImportFills {
			t.Fatalf("import fills %d, positions hold %d of the file's fills (%d parts)", plan.Summary.ImportFills, n, rows)
		}
		grouped := map[int]bool{}
		for _, g := range plan.StrategyGroups(parsed.Fills) {
			for _, k := range g {
				if grouped[k] || len(g) < 2 || plan.Positions[k].ExistingID != "" || plan.Positions[k].ReversalOf > 0 {
					t.Fatalf("strategy group %v: position %d", g, k)
				}
				grouped[k] = true
			}
		}
	})
}
