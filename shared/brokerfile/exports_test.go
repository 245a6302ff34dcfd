package brokerfile

import (
	"testing"
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
