package instrument

import (
	"testing"
	"time"
)

func TestParseOCC(t *testing.T) {
	ok := []struct {
		in, underlying, expiry, right, strike, canonical string
	}{
		{"AAPL  240119C00190000", "AAPL", "2024-01-19", "C", "190", "AAPL  240119C00190000"},
		{"AAPL240119C00190000", "AAPL", "2024-01-19", "C", "190", "AAPL  240119C00190000"},
		{"aapl240119p00190500", "AAPL", "2024-01-19", "P", "190.5", "AAPL  240119P00190500"},
		{"SPY   251219P00000500", "SPY", "2025-12-19", "P", "0.5", "SPY   251219P00000500"},
		{"BRKB  260116C00500000", "BRKB", "2026-01-16", "C", "500", "BRKB  260116C00500000"},
		{"AAPL1 240119C00190000", "AAPL1", "2024-01-19", "C", "190", "AAPL1 240119C00190000"},
		{"GOOGL1240119C00190125", "GOOGL1", "2024-01-19", "C", "190.125", "GOOGL1240119C00190125"},
		{"X 240229C00020000", "X", "2024-02-29", "C", "20", "X     240229C00020000"},
		{" SPX   240315C05000000 ", "SPX", "2024-03-15", "C", "5000", "SPX   240315C05000000"},
	}
	for _, c := range ok {
		t.Run(c.in, func(t *testing.T) {
			o, err := ParseOCC(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if o.Underlying != c.underlying || o.Expiry.Format(time.DateOnly) != c.expiry || o.Right != c.right || o.Strike.String() != c.strike {
				t.Fatalf("got %+v", o)
			}
			if got := o.Symbol(); got != c.canonical {
				t.Fatalf("Symbol() = %q, want %q", got, c.canonical)
			}
			if again, err := ParseOCC(o.Symbol()); err != nil || again.Symbol() != c.canonical {
				t.Fatalf("round trip: %v %v", again, err)
			}
		})
	}
	for _, in := range []string{
		"", "AAPL", "AAPL 240119", "AAPL  240119X00190000", "AAPL  241319C00190000", "AAPL  230229C00190000",
		"AAPL  240119C0019000", "AAPL  240119C001900000", "AAPL  240119C00000000", "TOOLONG240119C00190000",
		"1AAP  240119C00190000", "AA-L  240119C00190000", "AA PL 240119C00190000", "      240119C00190000",
		"AAPL  24O119C00190000", "AAPL  240119C0019000O",
	} {
		t.Run("bad/"+in, func(t *testing.T) {
			if o, err := ParseOCC(in); err == nil {
				t.Fatalf("accepted as %+v", o)
			}
		})
	}
}

func TestParseInstrument(t *testing.T) {
	traded := time.Date(2024, 1, 24, 14, 31, 0, 0, time.UTC)
	cases := []struct {
		asset, symbol, want, field string
		mult                       string // after SettleMultiplier without a given value
	}{
		{"stock", " aapl ", "AAPL", "", "1"},
		{"stock", "BRK.B", "BRK.B", "", "1"},
		{"stock", "BTC-USD", "BTC-USD", "", "1"},
		{"stock", ".ftg", ".FTG", "", "1"},
		{"stock", "..FTG", "", "symbol", "0"},
		{"stock", "./ESZ24", "", "symbol", "0"},
		{"stock", ".", "", "symbol", "0"},
		{"stock", ".AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "", "symbol", "0"},
		{"option", "AAPL240119C00190000", "AAPL  240119C00190000", "", "100"},
		{"option", "AAPL", "", "symbol", "0"},
		{"stock", "", "", "symbol", "0"},
		{"stock", "AA PL", "", "symbol", "0"},
		{"stock", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "", "symbol", "0"},
		{"future", "ESH4", "ESH24", "", "50"},
		{"future", "/mymz24", "MYMZ24", "", "0.5"},
		{"future", "6JM24", "6JM24", "", "12500000"},
		{"future", "XYZH24", "XYZH24", "multiplier", "0"},
		{"future", "ES", "", "symbol", "0"},
		{"future", "", "", "symbol", "0"},
		{"crypto", "BTC", "", "symbol", "0"},
		{"crypto", "btcusdt", "BTC/USDT", "", "1"},
		{"forex", "EURUSD.m", "EUR/USD", "", "1"},
		{"cfd", "us500", "US500", "", "1"},
		{"bond", "T", "", "assetType", "0"},
		{"", "AAPL", "", "assetType", "0"},
	}
	for _, c := range cases {
		inst, err := Parse(c.asset, c.symbol, traded)
		if err == nil {
			err = inst.SettleMultiplier(nil)
		}
		field, msg := problem(err)
		if field != c.field || (msg == "") != (c.field == "") || inst.Symbol != c.want || inst.Multiplier.String() != c.mult {
			t.Errorf("Parse(%q, %q) = %+v %q %q", c.asset, c.symbol, inst, field, msg)
		}
	}
}

// FuzzParseOCC: any text is either ErrOCC or an option whose canonical
// symbol is 21 characters and reads back as the same option.
func FuzzParseOCC(f *testing.F) {
	for _, s := range []string{"AAPL  240119C00190000", "aapl240119p00190500", "GOOGL1240119C00190125", " X 240229C00020000 ",
		"AAPL  240119C00000000", "AAPL  230229C00190000", "      240119C00190000", "AAPL\x00 240119C00190000", "ſPY   240119C00190000", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := ParseOCC(s)
		if err != nil {
			if err != ErrOCC {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		sym := o.Symbol()
		if len(sym) != 21 || !o.Strike.IsPositive() || o.Strike.Exponent() < -3 || o.Right != "C" && o.Right != "P" ||
			o.Expiry.Year() < 2000 || o.Expiry.Year() > 2099 {
			t.Fatalf("%q read as %+v (%q)", s, o, sym)
		}
		again, err := ParseOCC(sym)
		if err != nil || again.Symbol() != sym || again.Underlying != o.Underlying || !again.Expiry.Equal(o.Expiry) || !again.Strike.Equal(o.Strike) {
			t.Fatalf("%q: canonical %q reads back as %+v, %v", s, sym, again, err)
		}
	})
}
