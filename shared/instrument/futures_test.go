package instrument

import (
	"strings"
	"testing"
	"time"
	"tradejournal/shared/apperr"

	"github.com/shopspring/decimal"
)

func TestParseFuture(t *testing.T) {
	traded := time.Date(2024, 1, 24, 14, 31, 0, 0, time.UTC)
	ok := []struct {
		in, root, month, symbol, point string // point "": no built-in value
	}{
		{"ESZ24", "ES", "2024-12", "ESZ24", "50"},
		{"ESZ4", "ES", "2024-12", "ESZ24", "50"},
		{"/ESZ24", "ES", "2024-12", "ESZ24", "50"},
		{"/ESZ24:XCME", "ES", "2024-12", "ESZ24", "50"},
		{" esh4 ", "ES", "2024-03", "ESH24", "50"},
		{"MESH5", "MES", "2025-03", "MESH25", "5"},
		{"MNQM25", "MNQ", "2025-06", "MNQM25", "2"},
		{"MYMU4", "MYM", "2024-09", "MYMU24", "0.5"},
		{"M2KZ4", "M2K", "2024-12", "M2KZ24", "5"},
		{"6EZ24", "6E", "2024-12", "6EZ24", "125000"},
		{"6JH5", "6J", "2025-03", "6JH25", "12500000"},
		{"CLF5", "CL", "2025-01", "CLF25", "1000"},
		{"NGG24", "NG", "2024-02", "NGG24", "10000"},
		{"GCJ24", "GC", "2024-04", "GCJ24", "100"},
		{"ZNM4", "ZN", "2024-06", "ZNM24", "1000"},
		{"ZTU24", "ZT", "2024-09", "ZTU24", "2000"},
		{"ZSX24", "ZS", "2024-11", "ZSX24", "50"},
		{"HGK24", "HG", "2024-05", "HGK24", "25000"},
		{"SIN24", "SI", "2024-07", "SIN24", "5000"},
		{"ABCDV24", "ABCD", "2024-10", "ABCDV24", ""},
		// A one-digit year is the first year ending in it from the year
		// before the trade on: a late fill of last year's contract, and
		// a contract several years out.
		{"ESZ3", "ES", "2023-12", "ESZ23", "50"},
		{"ESZ2", "ES", "2032-12", "ESZ32", "50"},
		{"ESZ0", "ES", "2030-12", "ESZ30", "50"},
	}
	for _, c := range ok {
		t.Run(c.in, func(t *testing.T) {
			f, err := ParseFuture(c.in, traded)
			if err != nil {
				t.Fatal(err)
			}
			if f.Root != c.root || f.Month.Format("2006-01") != c.month || f.Month.Day() != 1 || f.Symbol() != c.symbol {
				t.Fatalf("got %+v %q", f, f.Symbol())
			}
			point, known := f.PointValue()
			if known != (c.point != "") || known && point.String() != c.point {
				t.Fatalf("point value %s %v, want %q", point, known, c.point)
			}
			again, err := ParseFuture(f.Symbol(), traded.AddDate(-1, 0, 0))
			if err != nil || again != f {
				t.Fatalf("round trip: %+v %v", again, err)
			}
		})
	}
	for _, in := range []string{
		"", "/", "ES", "Z4", "ESZ", "ESA24", "ESZ241", "ES Z24", "ES-Z24", "ABCDEZ24", "/ESZ24/", "ÉSZ24", "ESZ24X",
		"AAPL", "AAPL  240119C00190000", ":ESZ24", "/ /ESZ4",
	} {
		t.Run("bad/"+in, func(t *testing.T) {
			if f, err := ParseFuture(in, traded); err == nil {
				t.Fatalf("accepted as %+v", f)
			}
		})
	}
}

// TestPointValues holds the table to the contract specifications it was
// written from, and every entry to what a multiplier column takes.
func TestPointValues(t *testing.T) {
	want := map[string]string{
		"ES": "50", "MES": "5", "NQ": "20", "MNQ": "2", "YM": "5", "MYM": "0.5", "RTY": "50", "M2K": "5",
		"CL": "1000", "MCL": "100", "NG": "10000", "GC": "100", "MGC": "10", "SI": "5000", "HG": "25000",
		"ZB": "1000", "ZN": "1000", "ZF": "1000", "ZT": "2000", "6E": "125000", "6J": "12500000",
		"ZC": "50", "ZS": "50", "ZW": "50",
	}
	for root, v := range want {
		if got, ok := pointValues[root]; !ok || got.String() != v {
			t.Errorf("%s: %s %v, want %s", root, got, ok, v)
		}
	}
	for root, v := range pointValues {
		if _, err := ParseFuture(root+"Z24", time.Now()); err != nil {
			t.Errorf("root %s does not parse: %v", root, err)
		}
		if !v.IsPositive() || v.GreaterThan(decimal.NewFromInt(1_000_000_000)) || v.Exponent() < -8 {
			t.Errorf("%s: %s is not a multiplier a position takes", root, v)
		}
	}
}

func TestSettleMultiplier(t *testing.T) {
	traded := time.Date(2024, 1, 24, 0, 0, 0, 0, time.UTC)
	given := decimal.RequireFromString("12.5")
	cases := []struct {
		asset, symbol string
		given         *decimal.Decimal
		want, msg     string
	}{
		{"future", "ESZ4", nil, "50", ""},
		{"future", "ESZ4", &given, "12.5", ""}, // the client's value wins
		{"future", "QQQZ4", &given, "12.5", ""},
		{"future", "QQQZ4", nil, "0", "root QQQ"},
		{"stock", "AAPL", &given, "1", "only to futures"},
		{"option", "AAPL240119C00190000", nil, "100", ""},
	}
	for _, c := range cases {
		inst, err := Parse(c.asset, c.symbol, traded)
		if err != nil {
			t.Fatalf("%s %s: %s", c.asset, c.symbol, err)
		}
		msg := ""
		if e, ok := apperr.As(inst.SettleMultiplier(c.given)); ok {
			msg = e.Message
		}
		if inst.Multiplier.String() != c.want || (msg == "") != (c.msg == "") || !strings.Contains(msg, c.msg) {
			t.Errorf("%s %s: multiplier %s, message %q", c.asset, c.symbol, inst.Multiplier, msg)
		}
	}
}

// FuzzParseFuture: any input is a contract whose canonical symbol reads
// back as the same contract with a built-in point value or none, or
// ErrFuture; never a panic.
func FuzzParseFuture(f *testing.F) {
	for _, s := range []string{"ESZ24", "/ESZ4", "MESH5", "6EZ24", "/ESZ24:XCME", "m2kz9", "ESZ", "", "/", "ZZZZZ99", "ES\x00Z4"} {
		f.Add(s, int64(1706106660))
	}
	f.Fuzz(func(t *testing.T, s string, unix int64) {
		ref := time.Unix(unix%(1<<40), 0)
		fut, err := ParseFuture(s, ref)
		if err != nil {
			if err != ErrFuture {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		sym := fut.Symbol()
		if len(sym) < 4 || len(sym) > 7 || fut.Month.Day() != 1 || fut.Month.Year() < 2000 || fut.Month.Year() > 2099 {
			t.Fatalf("%q read as %+v (%q)", s, fut, sym)
		}
		again, err := ParseFuture(sym, ref)
		if err != nil || again != fut {
			t.Fatalf("%q: canonical %q reads back as %+v, %v", s, sym, again, err)
		}
	})
}
