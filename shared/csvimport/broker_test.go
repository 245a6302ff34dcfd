package csvimport

import (
	"strings"
	"testing"
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
	if headKey("P&L") == headKey("PL") || headKey(" Filled  At ") != "filledat" {
		t.Fatal("headKey")
	}
}
