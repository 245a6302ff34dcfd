package brokerfile

import (
	"fmt"
	"strings"
	"testing"
)

// fopPosition is a position of an import plan as the futures-options tests
// read it: symbol, side, status, multiplier, fills, gross and net P&L.
func fopPositions(plan *Plan) []string {
	var out []string
	for _, p := range plan.Positions {
		out = append(out, fmt.Sprintf("%s %s %s x%s %d fills gross %s net %s", p.Symbol, p.Side, p.Figures.Status,
			p.Multiplier, len(p.Fills), p.Figures.GrossPnL.StringFixed(2), p.Figures.NetPnL.StringFixed(2)))
	}
	return out
}

func checkPositions(t *testing.T, plan *Plan, want []string) {
	t.Helper()
	got := fopPositions(plan)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("positions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestThinkorswimFuturesOptions: the statement's trade history writes a
// futures option as its future (/ESZ24), the series code where an equity
// option's expiry goes (/EW4X24: the fourth Friday of November 2024), the
// strike and CALL/PUT. P&L worked by hand with the future's point value.
func TestThinkorswimFuturesOptions(t *testing.T) {
	parsed, plan := load(t, "thinkorswim", "thinkorswim_statement_futures_options.csv", Options{})
	// An ES call bought at 50.25, sold at 62.50: 12.25 x 50 = 612.50. An
	// NQ vertical (two legs of one order) and three short MES puts (the
	// end-of-month series EX: 29 November 2024) stay open. The table has
	// no fees and the test account no schedule: 0.
	checkPositions(t, plan, []string{
		"./ESZ24 241122C5900 long closed x50 2 fills gross 612.50 net 612.50",
		"./MESZ24 241129P5800 short open x5 1 fills gross 0.00 net 0.00",
		"./NQZ24 241122C20600 short open x20 1 fills gross 0.00 net 0.00",
		"./NQZ24 241122C20500 long open x20 1 fills gross 0.00 net 0.00",
	})
	if groups := plan.StrategyGroups(parsed.Fills); len(groups) != 1 || len(groups[0]) != 2 ||
		plan.Positions[groups[0][0]].Symbol != "./NQZ24 241122C20600" {
		t.Errorf("strategy groups %v", groups)
	}
	// An unknown root whose series says no expiry, and a symbol that is no
	// contract: row errors naming the value and what is read.
	if len(parsed.Errors) != 2 {
		t.Fatalf("errors %+v", parsed.Errors)
	}
	for i, want := range []string{`"/ES /EW4X24 C5900" is not a futures option: the forms read are`, `"/XYZZ24 /XYZX24 C100": "/XYZZ24 /XYZX24 C100" names no expiry`} {
		if e := parsed.Errors[i]; e.Code != CodeInvalidSymbol || e.Field != FieldSymbol || !strings.Contains(e.Message, want) {
			t.Errorf("error %d: %+v", i, e)
		}
	}
}

// TestTastytradeFuturesOptions: Future Option rows (./ESZ4 EW4X4
// 241122C5900) with the future's point value as multiplier, and the fill
// price read from the description: on futures options Average Price is
// the contract's value (the Multiplier column says 1), on futures it holds
// the mark, not the fill. To the cent, fees from the file.
func TestTastytradeFuturesOptions(t *testing.T) {
	parsed, plan := load(t, "tastytrade", "tastytrade_transactions_futures_options.csv", Options{})
	checkPositions(t, plan, []string{
		// 12.25 x 50 = 612.50 less 1.25 + 0.92 + 0.92.
		"./ESZ24 241122C5900 long closed x50 2 fills gross 612.50 net 609.41",
		// Sold at 1.25, bought back at 0.40: 0.85 x 1000 = 850 less 2.50 + 1.50 + 1.50.
		"./CLF25 241216P65 short closed x1000 2 fills gross 850.00 net 844.50",
		// 69.42 to 70.05 (the marks say 69.51 and 70.12): 0.63 x 1000 = 630 less 2 x (1.25 + 1.62).
		"./ESZ24 241122C6050 short open x50 1 fills gross 0.00 net -4.34",
		"./ESZ24 241122C6000 long open x50 1 fills gross 0.00 net -4.34",
		"CLF25 long closed x1000 2 fills gross 630.00 net 624.26",
	})
	if groups := plan.StrategyGroups(parsed.Fills); len(groups) != 1 || len(groups[0]) != 2 {
		t.Errorf("strategy groups %v", groups)
	}
	if len(parsed.Errors) != 2 {
		t.Fatalf("errors %+v", parsed.Errors)
	}
	if e := parsed.Errors[0]; e.Row != 9 || e.Code != CodeUnknownPointValue || !strings.Contains(e.Message, "root XYZ") {
		t.Errorf("unknown root: %+v", e)
	}
	if e := parsed.Errors[1]; e.Row != 10 || e.Code != CodeInvalidSymbol || !strings.Contains(e.Message, `"./ESZ4 EW4X4 241122X5900" is not a futures option`) {
		t.Errorf("malformed: %+v", e)
	}
}

// TestFutureOptionSymbols: the symbol cell's forms, with and without an
// asset type column saying so.
func TestFutureOptionSymbols(t *testing.T) {
	ref := now
	for _, c := range []struct{ sym, asset, want string }{
		{"./ESZ24C5000", "", "./ESZ24 241220C5000"},
		{".ESZ24C5000", "", "./ESZ24 241220C5000"},
		{"/ESZ4 C5000", "", "./ESZ24 241220C5000"},
		{"./ESZ4 EW4X4 241122C5900", "", "./ESZ24 241122C5900"},
		{"ESZ24 C5000", AssetFutureOption, "./ESZ24 241220C5000"},
	} {
		inst, code, msg := ParseSymbol(c.sym, c.asset, ref)
		if inst.Symbol != c.want || msg != "" {
			t.Errorf("%q: %+v %s %s", c.sym, inst, code, msg)
		}
	}
	// A ticker written with a dot is not taken for a futures option.
	if _, _, msg := ParseSymbol(".FTG", "", ref); strings.Contains(msg, "futures option") {
		t.Errorf(".FTG: %s", msg)
	}
	if _, code, msg := ParseSymbol("./CLF25C70", "", ref); code != CodeInvalidSymbol || !strings.Contains(msg, "names no expiry") {
		t.Errorf("no expiry: %s %s", code, msg)
	}
}
