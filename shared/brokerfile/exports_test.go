package brokerfile

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/sizing"
)

// The failures of real exports from the issue tracker, one test each.

// TestDottedTickers: brokers write some tickers with a leading dot
// (".FTG"); they are stock tickers, kept as written, while "./" and "."
// forms of futures options and options still read as those.
func TestDottedTickers(t *testing.T) {
	file := "Date,Time,Symbol,Side,Quantity,Price\n" +
		"2025-03-03,09:31:00,.FTG,Buy,100,7.10\n" +
		"2025-03-03,10:02:00,.ftg,Sell,100,7.35\n"
	p := parseText(t, Options{PresetID: "generic-execution"}, file)
	if len(p.Errors) != 0 || len(p.Fills) != 2 || p.Fills[0].Symbol != ".FTG" || p.Fills[0].AssetType != AssetStock || p.Fills[1].Symbol != ".FTG" {
		t.Fatalf("errors %+v fills %+v", p.Errors, p.Fills)
	}
	plan := Build(p.Fills, Journal{}, BuildOptions{})
	if len(plan.Errors) != 0 || len(plan.Positions) != 1 || plan.Positions[0].Figures.GrossPnL.String() != "25" {
		t.Fatalf("errors %+v positions %+v", plan.Errors, plan.Positions)
	}
	traded := now.Add(-24 * 60 * 60 * 1e9)
	for in, want := range map[string]string{".FTG": ".FTG", ".BRK.B": ".BRK.B", ".AAPL240119C190": "AAPL  240119C00190000",
		"./ESZ24C5000": "./ESZ24 241220C5000"} {
		if inst, code, msg := ParseSymbol(in, "", traded); msg != "" || inst.Symbol != want {
			t.Errorf("%q: %+v %s %s, want %s", in, inst, code, msg, want)
		}
	}
	for _, in := range []string{".", "..FTG", "./FTG", ". FTG"} {
		if inst, code, msg := ParseSymbol(in, AssetStock, traded); msg == "" || code != CodeInvalidSymbol {
			t.Errorf("%q read as %+v", in, inst)
		}
	}
}

// TestZoneColumns: a zone in a column of its own ("Time Zone", or a value
// after the row's last column: "..., GMT-04") applies to the row's times
// that carry none; a time's own zone wins; a zone column's value that is
// not a zone is a row error naming it.
func TestZoneColumns(t *testing.T) {
	at := func(h, m int) time.Time { return time.Date(2024, 3, 1, h, m, 0, 0, time.UTC) }
	t.Run("Trailing", func(t *testing.T) {
		file := "Date,Symbol,Side,Qty,Price\n" +
			"2024-03-01 09:30:00,AAPL,Buy,10,100,GMT-04\n" +
			"2024-03-01 09:45:00 UTC+02,AAPL,Sell,10,101,GMT-04\n" +
			"2024-03-01 10:00:00,AAPL,Buy,10,100,UTC+2\n" +
			"2024-03-01 10:30:00,AAPL,Sell,10,101\n" +
			"2024-03-01 10:40:00,AAPL,Buy,10,100,,\n" +
			"2024-03-01 10:50:00,AAPL,Sell,10,101,note\n"
		p := parseText(t, Options{PresetID: "generic-execution", Timezone: "UTC"}, file)
		want := map[int]time.Time{2: at(13, 30), 3: at(7, 45), 4: at(8, 0), 5: at(10, 30), 6: at(10, 40), 7: at(10, 50)}
		if len(p.Errors) != 0 || len(p.Fills) != len(want) {
			t.Fatalf("errors %+v fills %+v", p.Errors, p.Fills)
		}
		for _, f := range p.Fills {
			if !f.FilledAt.Equal(want[f.Row]) {
				t.Errorf("row %d at %s, want %s", f.Row, f.FilledAt, want[f.Row])
			}
		}
	})
	t.Run("Column", func(t *testing.T) {
		file := "Date,Time,Time Zone,Symbol,Side,Qty,Price\n" +
			"2024-03-01,09:30:00,GMT-04,AAPL,Buy,10,100\n" +
			"2024-03-01,09:45:00,UTC+02,AAPL,Sell,10,101\n" +
			"2024-03-01,09:50:00,,AAPL,Buy,10,100\n" +
			"2024-03-01,09:55:00,Mars,AAPL,Sell,10,101\n"
		p := parseText(t, Options{PresetID: "generic-execution", Timezone: "UTC"}, file)
		want := map[int]time.Time{2: at(13, 30), 3: at(7, 45), 4: at(9, 50)}
		if len(p.Fills) != len(want) {
			t.Fatalf("fills %+v", p.Fills)
		}
		for _, f := range p.Fills {
			if !f.FilledAt.Equal(want[f.Row]) {
				t.Errorf("row %d at %s, want %s", f.Row, f.FilledAt, want[f.Row])
			}
		}
		if len(p.Errors) != 1 || p.Errors[0].Row != 5 || p.Errors[0].ColumnName != "Time Zone" || p.Errors[0].Code != CodeInvalidTime ||
			!strings.Contains(p.Errors[0].Message, `"Mars"`) {
			t.Fatalf("errors %+v", p.Errors)
		}
	})
	t.Run("RoundTrip", func(t *testing.T) {
		file := "Symbol,Side,Quantity,Entry Date,Entry Price,Exit Date,Exit Price\n" +
			"NVDA,Long,10,2024-03-01 09:30:00,100,2024-03-01 14:00:00 UTC,101,GMT-04\n"
		p := parseText(t, Options{PresetID: "generic-round-trip", Timezone: "UTC"}, file)
		if len(p.Errors) != 0 || len(p.Fills) != 2 || !p.Fills[0].FilledAt.Equal(at(13, 30)) || !p.Fills[1].FilledAt.Equal(at(14, 0)) {
			t.Fatalf("errors %+v fills %+v", p.Errors, p.Fills)
		}
	})
}

// wrap writes each line of a file as one quoted cell, as some exports and
// spreadsheet re-saves do: "Date,Symbol,...", its quotes doubled.
func wrap(file string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(file, "\n") {
		if body := strings.TrimRight(line, "\r\n"); body != "" {
			b.WriteString(`"` + strings.ReplaceAll(body, `"`, `""`) + `"` + line[len(body):])
		}
	}
	return b.String()
}

// TestWrappedRows: rows wrapped whole in quotes are unwrapped and read, by
// a preset (detected as well) or a mapping with or without a header; a
// wrapped row that is not valid CSV inside is a row error; a one-cell note
// that was one cell before the wrapping stays a note.
func TestWrappedRows(t *testing.T) {
	file := "Date,Time,Symbol,Side,Quantity,Price,Fees\n" +
		"2024-03-01,09:30:00,AAPL,Buy,10,\"1,015.50\",1.00\n" +
		"2024-03-01,10:30:00,AAPL,Sell,10,\"1,017.25\",1.00\n"
	check := func(t *testing.T, p *Parsed) {
		t.Helper()
		if len(p.Errors) != 0 || len(p.Fills) != 2 || p.Fills[0].Price.String() != "1015.5" || p.Fills[1].Side != Sell {
			t.Fatalf("errors %+v fills %+v", p.Errors, p.Fills)
		}
		plan := Build(p.Fills, Journal{}, BuildOptions{})
		if len(plan.Positions) != 1 || plan.Positions[0].Figures.NetPnL.String() != "15.5" {
			t.Fatalf("positions %+v", plan.Positions)
		}
	}
	t.Run("Preset", func(t *testing.T) {
		check(t, parseText(t, Options{PresetID: "generic-execution"}, wrap(file)))
		check(t, parseText(t, Options{PresetID: "generic-execution"}, strings.ReplaceAll(wrap(file), "\n", "\r\n")))
	})
	t.Run("Mapping", func(t *testing.T) {
		no := false
		m := &Mapping{HasHeader: &no, Columns: map[string]Column{FieldDate: {Index: 1}, FieldTime: {Index: 2}, FieldSymbol: {Index: 3},
			FieldSide: {Index: 4}, FieldQuantity: {Index: 5}, FieldPrice: {Index: 6}, FieldFees: {Index: 7}}}
		check(t, parseText(t, Options{Mapping: m}, wrap(file[strings.IndexByte(file, '\n')+1:])))
		m = &Mapping{Columns: map[string]Column{FieldDate: {Name: "Date"}, FieldTime: {Name: "Time"}, FieldSymbol: {Name: "Symbol"},
			FieldSide: {Name: "Side"}, FieldQuantity: {Name: "Quantity"}, FieldPrice: {Name: "Price"}, FieldFees: {Name: "Fees"}}}
		check(t, parseText(t, Options{Mapping: m}, wrap(file)))
	})
	t.Run("Detected", func(t *testing.T) {
		for _, id := range []string{"tradezero", "fidelity", "tradovate-performance"} {
			data, err := os.ReadFile(filepath.Join("testdata", PresetByID(id).Sample))
			if err != nil {
				t.Fatal(err)
			}
			wrapped := wrap(string(data))
			if d, ok := Detect([]byte(wrapped)); !ok || d.PresetID != id {
				t.Errorf("%s wrapped: detected %+v %v", id, d, ok)
			}
			plain, _ := load(t, id, PresetByID(id).Sample, Options{})
			p := parseText(t, Options{PresetID: id}, wrapped)
			if len(p.Errors) != 0 || len(p.Fills) != len(plain.Fills) || p.Rows != plain.Rows || p.Skipped != plain.Skipped {
				t.Errorf("%s wrapped: errors %+v, %d fills %d rows %d skipped, want %d %d %d", id, p.Errors, len(p.Fills), p.Rows, p.Skipped,
					len(plain.Fills), plain.Rows, plain.Skipped)
			}
		}
	})
	t.Run("BadInside", func(t *testing.T) {
		p := parseText(t, Options{PresetID: "generic-execution"}, wrap(file)+"\"2024-03-01,11:00:00,AAPL,Buy,1,\"\"1\"\"x,1\"\n")
		if len(p.Fills) != 2 || len(p.Errors) != 1 || p.Errors[0].Row != 4 || p.Errors[0].Code != CodeMalformedRow {
			t.Fatalf("errors %+v fills %d", p.Errors, len(p.Fills))
		}
	})
}

// TestShortPairs: a round trip given as its buy and its sell (columns
// named so) whose sell came first is a short, not an exit before its
// entry; buy and sell prices are the short's exit and entry; a side that
// contradicts the times is a row error naming it; entry and exit columns
// keep their meaning.
func TestShortPairs(t *testing.T) {
	t.Run("BuySellTimes", func(t *testing.T) {
		file := "Symbol,Quantity,Buy Date,Buy Price,Sell Date,Sell Price\n" +
			"AMD,100,2024-02-06 09:50:00,171.80,2024-02-05 10:12:00,175.20\n" +
			"NVDA,40,2024-02-05 09:40:00,690.10,2024-02-05 11:05:30,698.35\n"
		p := parseText(t, Options{PresetID: "generic-round-trip"}, file)
		if d, ok := Detect([]byte(file)); !ok || d.PresetID != "generic-round-trip" {
			t.Errorf("detected %+v %v", d, ok)
		}
		plan := Build(p.Fills, Journal{}, BuildOptions{})
		if len(p.Errors) != 0 || len(plan.Errors) != 0 || len(plan.Positions) != 2 {
			t.Fatalf("errors %+v %+v positions %+v", p.Errors, plan.Errors, plan.Positions)
		}
		// AMD sold at 175.20 on the 5th, bought back at 171.80 on the 6th.
		amd, nvda := plan.Positions[1], plan.Positions[0]
		if amd.Symbol != "AMD" || amd.Side != "short" || amd.Figures.GrossPnL.String() != "340" ||
			amd.Figures.OpenedAt == nil || !amd.Figures.OpenedAt.Equal(time.Date(2024, 2, 5, 15, 12, 0, 0, time.UTC)) {
			t.Errorf("AMD %s %s %+v", amd.Symbol, amd.Side, amd.Figures)
		}
		if nvda.Symbol != "NVDA" || nvda.Side != "long" || nvda.Figures.GrossPnL.String() != "330" {
			t.Errorf("NVDA %s %s %+v", nvda.Symbol, nvda.Side, nvda.Figures)
		}
		if got := codes(append(p.Warnings, plan.Warnings...)); len(got) != 0 {
			t.Errorf("warnings %+v %+v", p.Warnings, plan.Warnings)
		}
	})
	t.Run("BuySellPrices", func(t *testing.T) {
		// Open and close dates with a side, prices by buy and sell: the
		// short opened at its sell price.
		file := "Symbol,Side,Quantity,Open Date,Buy Price,Close Date,Sell Price\n" +
			"AMD,Short,100,2024-02-05 10:12:00,171.80,2024-02-06 09:50:00,175.20\n" +
			"AMD,Long,100,2024-02-07 10:12:00,171.80,2024-02-07 10:50:00,175.20\n"
		p := parseText(t, Options{PresetID: "generic-round-trip"}, file)
		plan := Build(p.Fills, Journal{}, BuildOptions{})
		if len(p.Errors) != 0 || len(plan.Positions) != 2 || plan.Positions[0].Side != "short" || plan.Positions[0].Figures.GrossPnL.String() != "340" ||
			plan.Positions[1].Side != "long" || plan.Positions[1].Figures.GrossPnL.String() != "340" {
			t.Fatalf("errors %+v positions %+v", p.Errors, plan.Positions)
		}
	})
	t.Run("Mapping", func(t *testing.T) {
		file := "Ticker,Shares,Sold At,Sale Price,Bought At,Cost\n" +
			"AMD,100,2024-02-05 10:12:00,175.20,2024-02-06 09:50:00,171.80\n"
		m := &Mapping{Columns: map[string]Column{FieldSymbol: {Name: "Ticker"}, FieldQuantity: {Name: "Shares"},
			FieldEntryDate: {Name: "Bought At"}, FieldEntryPrice: {Name: "Cost"}, FieldExitDate: {Name: "Sold At"}, FieldExitPrice: {Name: "Sale Price"}}}
		p := parseText(t, Options{Mapping: m, RowShape: ShapeRoundTrip}, file)
		plan := Build(p.Fills, Journal{}, BuildOptions{})
		if len(p.Errors) != 0 || len(plan.Positions) != 1 || plan.Positions[0].Side != "short" || plan.Positions[0].Figures.GrossPnL.String() != "340" {
			t.Fatalf("errors %+v positions %+v", p.Errors, plan.Positions)
		}
	})
	t.Run("Refused", func(t *testing.T) {
		// A side against the times, and an exit before its entry.
		file := "Symbol,Side,Quantity,Buy Date,Buy Price,Sell Date,Sell Price\n" +
			"AMD,Long,100,2024-02-06 09:50:00,171.80,2024-02-05 10:12:00,175.20\n"
		p := parseText(t, Options{PresetID: "generic-round-trip"}, file)
		if len(p.Fills) != 0 || len(p.Errors) != 1 || p.Errors[0].Code != CodeInvalidSide || p.Errors[0].ColumnName != "Side" ||
			!strings.Contains(p.Errors[0].Message, `"Long"`) {
			t.Fatalf("errors %+v fills %+v", p.Errors, p.Fills)
		}
		file = "Symbol,Side,Quantity,Entry Date,Entry Price,Exit Date,Exit Price\n" +
			"AMD,Short,100,2024-02-06 09:50:00,171.80,2024-02-05 10:12:00,175.20\n"
		p = parseText(t, Options{PresetID: "generic-round-trip"}, file)
		if len(p.Fills) != 0 || len(p.Errors) != 1 || p.Errors[0].Code != CodeOutOfRange || p.Errors[0].Field != FieldExitDate {
			t.Fatalf("errors %+v fills %+v", p.Errors, p.Fills)
		}
	})
}

// TestScaledPairs: one scaled trade as Tradovate's Performance report
// writes it (a row per matched buy and sell fill, FIFO, a fill shared by
// several rows) and as its Orders report writes it gives the same
// positions, fills and P&L to the cent: pairs of one account and contract
// and direction whose holdings overlap are one position, and a fill that
// several pairs share is one fill. The file's trades, on MNQH5 (2 a point):
//
//   - long: buy 2 at 21900.00 and 1 at 21894.50, sell 1 at 21910.25 and 2
//     at 21915.75: 47.25 points x 2 = 94.50, less 6 x 0.62;
//   - long 1 at 21920.00, sold with 1 more at 21925.50 (a reversal): 11.00
//     less 2 x 0.62; the short 1 bought back at 21918.25: 14.50 less 1.24;
//   - short 1 at 21950.00 and 1 at 21955.25, bought back 2 at 21940.50:
//     24.25 points x 2 = 48.50, less 4 x 0.62.
func TestScaledPairs(t *testing.T) {
	schedule := &sizing.FeeSchedule{OptionsPerContractCommission: decimal.RequireFromString("0.62")}
	plans := map[string]*Plan{}
	for _, c := range []struct{ preset, file string }{
		{"tradovate-performance", "tradovate_performance_scaled.csv"},
		{"tradovate", "tradovate_orders_scaled.csv"},
	} {
		s, err := Resolve(Options{PresetID: c.preset}, "America/New_York", now, 100)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := Detect(data); !ok || d.PresetID != c.preset {
			t.Errorf("%s: detected %+v", c.file, d)
		}
		parsed, err := Parse(strings.NewReader(string(data)), s)
		if err != nil || len(parsed.Errors) != 0 {
			t.Fatalf("%s: %v %+v", c.file, err, parsed.Errors)
		}
		EstimateFees(parsed.Fills, parsed.HasFees, schedule)
		plan := Build(parsed.Fills, Journal{}, BuildOptions{Header: parsed.Header})
		if len(plan.Errors) != 0 || slices.Contains(codes(plan.Warnings), CodeDuplicateInFile) {
			t.Fatalf("%s: errors %+v warnings %+v", c.file, plan.Errors, plan.Warnings)
		}
		plans[c.preset] = plan
	}
	want := []struct {
		side, gross, net string
		fills            int
	}{{"long", "94.5", "90.78", 4}, {"long", "11", "9.76", 2}, {"short", "14.5", "13.26", 2}, {"short", "48.5", "46.02", 3}}
	perf, orders := plans["tradovate-performance"], plans["tradovate"]
	if len(perf.Positions) != len(want) || len(orders.Positions) != len(want) {
		t.Fatalf("%d and %d positions, want %d: %+v", len(perf.Positions), len(orders.Positions), len(want), perf.Positions)
	}
	// Positions in the order they opened.
	byOpen := func(ps []Position) []Position {
		out := slices.Clone(ps)
		slices.SortStableFunc(out, func(a, b Position) int { return a.Figures.OpenedAt.Compare(*b.Figures.OpenedAt) })
		return out
	}
	for i, p := range byOpen(perf.Positions) {
		o := byOpen(orders.Positions)[i]
		w := want[i]
		pf, of := p.Figures, o.Figures
		if p.Symbol != "MNQH25" || p.Side != w.side || pf.Status != "closed" || pf.GrossPnL.String() != w.gross || pf.NetPnL.String() != w.net ||
			len(p.Fills) != w.fills {
			t.Errorf("performance position %d: %s %s %s %d fills gross %s net %s, want %+v", i, p.Symbol, p.Side, pf.Status, len(p.Fills),
				pf.GrossPnL, pf.NetPnL, w)
		}
		if o.Symbol != p.Symbol || o.Side != p.Side || len(o.Fills) != len(p.Fills) || !of.OpenedAt.Equal(*pf.OpenedAt) || !of.ClosedAt.Equal(*pf.ClosedAt) ||
			!of.EntryQuantity.Equal(pf.EntryQuantity) || !of.AvgEntryPrice.Equal(*pf.AvgEntryPrice) || !of.AvgExitPrice.Equal(*pf.AvgExitPrice) ||
			!of.GrossPnL.Equal(pf.GrossPnL) || !of.Fees.Equal(pf.Fees) || !of.NetPnL.Equal(pf.NetPnL) {
			t.Errorf("position %d: orders %+v, performance %+v", i, of, pf)
		}
	}
	ps, os := perf.Summary, orders.Summary
	if !ps.NetPnL.Equal(os.NetPnL) || ps.NetPnL.String() != "159.82" || ps.Positions != os.Positions || ps.ImportFills != os.ImportFills ||
		ps.Reversals != 1 || os.Reversals != 1 || !ps.Fees.Equal(os.Fees) {
		t.Errorf("summaries %+v and %+v", ps, os)
	}
}

// TestPairedRule: the rule of paired rows (pairs.go) on the generic
// layout, without fill ids: rows whose holdings overlap are one position
// (a fill they share, by side, instant and price, one fill); rows that
// touch are two; a row inside another joins it; a sell that closed a long
// and opened a short is a reversal; a hedged account's long and short
// overlapping stay apart; accounts stay apart; a unit the journal has all
// of is skipped.
func TestPairedRule(t *testing.T) {
	head := "Symbol,Side,Quantity,Entry Date,Entry Price,Exit Date,Exit Price\n"
	type want struct {
		side, gross string
		fills       int
	}
	cases := []struct {
		name, rows string
		want       []want
		reversals  int
	}{
		{"Overlap", "AAPL,Long,10,2024-03-01 09:30,100,2024-03-01 10:00,110\n" +
			"AAPL,Long,5,2024-03-01 09:45,104,2024-03-01 10:00,110\n",
			[]want{{"long", "130", 3}}, 0},
		{"Touch", "AAPL,Long,10,2024-03-01 09:30,100,2024-03-01 10:00,110\n" +
			"AAPL,Long,5,2024-03-01 10:00,110,2024-03-01 10:30,112\n",
			[]want{{"long", "100", 2}, {"long", "10", 2}}, 0},
		{"Inside", "AAPL,Long,10,2024-03-01 09:30,100,2024-03-01 10:30,110\n" +
			"AAPL,Long,5,2024-03-01 10:00,101,2024-03-01 10:00,103\n" +
			"AAPL,Long,5,2024-03-01 11:00,101,2024-03-01 11:00,103\n" +
			"AAPL,Long,5,2024-03-01 11:00,102,2024-03-01 11:00,102.5\n",
			[]want{{"long", "110", 4}, {"long", "10", 2}, {"long", "2.5", 2}}, 0},
		{"Reversal", "AAPL,Long,10,2024-03-01 09:30,100,2024-03-01 10:00,110\n" +
			"AAPL,Short,10,2024-03-01 10:00,110,2024-03-01 10:30,105\n",
			[]want{{"long", "100", 2}, {"short", "50", 2}}, 1},
		{"Hedged", "AAPL,Long,10,2024-03-01 09:30,100,2024-03-01 10:30,110\n" +
			"AAPL,Short,10,2024-03-01 10:00,108,2024-03-01 10:15,105\n",
			[]want{{"long", "100", 2}, {"short", "30", 2}}, 0},
		{"Listed newest first", "AAPL,Long,5,2024-03-01 09:45,104,2024-03-01 10:00,110\n" +
			"AAPL,Long,10,2024-03-01 09:30,100,2024-03-01 10:00,110\n",
			[]want{{"long", "130", 3}}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := parseText(t, Options{PresetID: "generic-round-trip", Timezone: "UTC"}, head+c.rows)
			plan := Build(p.Fills, Journal{}, BuildOptions{})
			if len(p.Errors) != 0 || len(plan.Errors) != 0 || len(plan.Positions) != len(c.want) || plan.Summary.Reversals != c.reversals ||
				slices.Contains(codes(plan.Warnings), CodeDuplicateInFile) {
				t.Fatalf("errors %+v %+v warnings %+v positions %+v", p.Errors, plan.Errors, plan.Warnings, plan.Positions)
			}
			for i, w := range c.want {
				got := plan.Positions[i]
				if got.Side != w.side || got.Figures.GrossPnL.String() != w.gross || len(got.Fills) != w.fills || got.Figures.Status != "closed" {
					t.Errorf("position %d: %s %s %d fills %s, want %+v", i, got.Side, got.Figures.GrossPnL, len(got.Fills), got.Figures.Status, w)
				}
			}
		})
	}
	t.Run("Accounts", func(t *testing.T) {
		file := "Account,Symbol,Side,Quantity,Entry Date,Entry Price,Exit Date,Exit Price\n" +
			"A1,AAPL,Long,10,2024-03-01 09:30,100,2024-03-01 10:00,110\n" +
			"A2,AAPL,Long,5,2024-03-01 09:45,104,2024-03-01 10:00,110\n"
		m := &Mapping{Columns: map[string]Column{FieldAccount: {Name: "Account"}, FieldSymbol: {Name: "Symbol"}, FieldSide: {Name: "Side"},
			FieldQuantity: {Name: "Quantity"}, FieldEntryDate: {Name: "Entry Date"}, FieldEntryPrice: {Name: "Entry Price"},
			FieldExitDate: {Name: "Exit Date"}, FieldExitPrice: {Name: "Exit Price"}}}
		p := parseText(t, Options{Mapping: m, RowShape: ShapeRoundTrip, AccountMap: map[string]string{"A1": "x", "A2": "y"}}, file)
		if len(p.Errors) != 0 || len(p.Fills) != 4 || p.Fills[0].Trip == p.Fills[1].Trip && p.Fills[0].Account != p.Fills[1].Account {
			t.Fatalf("errors %+v fills %+v", p.Errors, p.Fills)
		}
		trips := map[string]int{}
		for _, f := range p.Fills {
			if trip, seen := trips[f.Account]; seen && trip != f.Trip || !seen && slices.Contains(slices.Collect(maps.Values(trips)), f.Trip) {
				t.Fatalf("fills %+v", p.Fills)
			}
			trips[f.Account] = f.Trip
		}
	})
	t.Run("Duplicates", func(t *testing.T) {
		p := parseText(t, Options{PresetID: "generic-round-trip", Timezone: "UTC"}, head+cases[0].rows+
			"AAPL,Long,5,2024-03-01 11:00,110,2024-03-01 11:30,112\n")
		has := map[Key]bool{}
		for _, f := range p.Fills[:3] { // the first unit: its three fills
			has[f.Key()] = true
		}
		plan := Build(p.Fills, Journal{Has: has}, BuildOptions{})
		if len(plan.Errors) != 0 || plan.Summary.DuplicateFills != 3 || len(plan.Positions) != 1 || plan.Positions[0].Figures.GrossPnL.String() != "10" {
			t.Fatalf("errors %+v summary %+v positions %+v", plan.Errors, plan.Summary, plan.Positions)
		}
		// Part of a unit in the journal: the unit is imported whole, warned.
		delete(has, p.Fills[2].Key())
		plan = Build(p.Fills, Journal{Has: has}, BuildOptions{})
		if len(plan.Errors) != 0 || plan.Summary.DuplicateFills != 0 || len(plan.Positions) != 2 || !slices.Contains(codes(plan.Warnings), CodeDuplicateInJournal) {
			t.Fatalf("errors %+v summary %+v positions %+v", plan.Errors, plan.Summary, plan.Positions)
		}
	})
}

// TestMerrillOptionCodes: Merrill's option codes (root, "#", a month letter
// A-L for calls and M-X for puts, day, year, the strike's decimal places as
// a letter, the strike's digits); a code that does not read is read from
// the row's description; neither is a row error naming the value and the
// forms read; a code and a description that disagree are one too.
func TestMerrillOptionCodes(t *testing.T) {
	traded := time.Date(2025, 2, 3, 15, 0, 0, 0, time.UTC)
	for in, want := range map[string]string{
		"TSLA#B1326C425000": "TSLA  260213C00425000", // February call, 3 places
		"SOFI#V1725D260000": "SOFI  251017P00026000", // October put, 4 places
		"SOFI#O2125D140000": "SOFI  250321P00014000",
		"SPY#L1925C600500":  "SPY   251219C00600500",
		"aapl#a1725b19050":  "AAPL  250117C00190500",
		"F#X1925A125":       "F     251219P00012500",
	} {
		inst, code, msg := ParseSymbol(in, "", traded)
		if msg != "" || inst.Symbol != want || inst.AssetType != AssetOption || inst.Multiplier.String() != "100" {
			t.Errorf("%q: %+v %s %s, want %s", in, inst, code, msg, want)
		}
		if again, _, msg := ParseSymbol(in, AssetOption, traded); msg != "" || again.Symbol != want {
			t.Errorf("%q as an option: %+v %s", in, again, msg)
		}
	}
	// A trailing # is a MetaTrader server's suffix: the pair.
	if inst, _, msg := ParseSymbol("EURUSD#", "", traded); msg != "" || inst.Symbol != "EUR/USD" || inst.AssetType != AssetForex {
		t.Errorf("EURUSD#: %+v %s, want the EUR/USD pair", inst, msg)
	}
	for _, in := range []string{"TSLA#Y1326C425000", "TSLA#B3026C425000", "TSLA#B1326C", "TSLA#B1326Z425000", "TSLA#B1326C4250000000000",
		"TSLA#B1326C0"} {
		if inst, code, msg := ParseSymbol(in, "", traded); msg == "" || code != CodeInvalidSymbol || !strings.Contains(msg, "TSLA#B1326C425000") {
			t.Errorf("%q read as %+v (%s %s)", in, inst, code, msg)
		}
	}

	head := "\"Trade Date\",\"Settlement Date\",\"Pending/Settled\",\"Account Nickname\",\"Account Registration\",\"Account #\",\"Type\"," +
		"\"Description 1 \",\"Description 2\",\"Symbol/CUSIP #\",\"Quantity\",\"Price ($)\",\"Amount ($)\"\n"
	row := func(desc, sym string) string {
		return "\"02/04/2025\",\"02/05/2025\",\"Settled\",\"Trading\",\"CMA-Edge\",\"7QX-40718\",\"SecurityTransactions\",\"Option Purchase\"," +
			"\"" + desc + "\",\"" + sym + "\",\"2\",\"48.35\",\"(9,671.30)\"\n"
	}
	p := parseText(t, Options{PresetID: "merrill-edge"}, head+
		row("CALL TSLA 00425.000 EXP 02/13/26", "TSLA#B1326C425000")+ // the code
		row("CALL TSLA 00425.000 EXP 02/13/26", "TSLA#B13X6C425000")+ // the description
		row("TESLA INC", "TSLA#B13X6C425000")+ // neither
		row("PUT TSLA 00425.000 EXP 02/13/26", "TSLA#B1326C425000")+ // a disagreement
		row("CALL TSLA 00425.000 EXP 02/13/26", "")) // the description alone
	if len(p.Fills) != 3 || p.Fills[0].Symbol != "TSLA  260213C00425000" || p.Fills[1].Symbol != p.Fills[0].Symbol || p.Fills[2].Symbol != p.Fills[0].Symbol {
		t.Fatalf("fills %+v", p.Fills)
	}
	if len(p.Errors) != 2 || p.Errors[0].Row != 4 || p.Errors[0].Code != CodeInvalidSymbol || p.Errors[0].ColumnName != "Symbol/CUSIP #" ||
		!strings.Contains(p.Errors[0].Message, `"TSLA#B13X6C425000"`) || !strings.Contains(p.Errors[0].Message, `"TESLA INC"`) ||
		p.Errors[1].Row != 5 || !strings.Contains(p.Errors[1].Message, "PUT TSLA") {
		t.Fatalf("errors %+v", p.Errors)
	}
}
