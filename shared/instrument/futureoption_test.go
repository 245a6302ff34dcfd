package instrument

import (
	"errors"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func TestParseFutureOption(t *testing.T) {
	traded := time.Date(2024, 11, 1, 15, 0, 0, 0, time.UTC)
	given := time.Date(2024, 12, 16, 0, 0, 0, 0, time.UTC)
	ok := []struct {
		in        string
		expiry    *time.Time // given, as an expiry column or field
		canonical string
		label     string
	}{
		// No expiry written: an equity index future's quarterly option
		// expires with the future, on the third Friday of its month.
		{"./ESZ24C5000", nil, "./ESZ24 241220C5000", "ES Dec 2024 5000 call"},
		{"./ESZ4 C5000", nil, "./ESZ24 241220C5000", "ES Dec 2024 5000 call"},
		{"/ESZ4 C5000", nil, "./ESZ24 241220C5000", "ES Dec 2024 5000 call"},
		{".ESZ24C5000", nil, "./ESZ24 241220C5000", "ES Dec 2024 5000 call"},
		{"ESZ24 P4800", nil, "./ESZ24 241220P4800", "ES Dec 2024 4800 put"},
		{" ./esz4 c5000 ", nil, "./ESZ24 241220C5000", "ES Dec 2024 5000 call"},
		{"./MNQH25C21000", nil, "./MNQH25 250321C21000", "MNQ Mar 2025 21000 call"},
		// The canonical form, and tastytrade's with its series code.
		{"./ESZ24 241220C5000", nil, "./ESZ24 241220C5000", "ES Dec 2024 5000 call"},
		{"./ESZ4 EW4X4 241122C5900", nil, "./ESZ24 241122C5900", "ES Dec 2024 5900 call"},
		{"./MESM6EXK6  260529P5800", nil, "./MESM26 260529P5800", "MES Jun 2026 5800 put"},
		{"./6JM1 JPUK1 210507P0.009", nil, "./6JM21 210507P0.009", "6J Jun 2021 0.009 put"},
		{"./ESH6 E2CF6 260114P5990", nil, "./ESH26 260114P5990", "ES Mar 2026 5990 put"},
		{"./ZNH25 250221P110.015625", nil, "./ZNH25 250221P110.015625", "ZN Mar 2025 110.015625 put"},
		{"./CLF25 241216C70.5", nil, "./CLF25 241216C70.5", "CL Jan 2025 70.5 call"},
		// A written expiry wins over a given one.
		{"./CLF25 241216C70", &given, "./CLF25 241216C70", "CL Jan 2025 70 call"},
		// No expiry written, one given (thinkorswim's Exp, an API field).
		{"./CLF25C70", &given, "./CLF25 241216C70", "CL Jan 2025 70 call"},
		// thinkorswim: the series code says the expiry and the future.
		{"/ESZ24 /EW4X24 5900 CALL", nil, "./ESZ24 241122C5900", "ES Dec 2024 5900 call"},
		{"/ESZ24:XCME 1/50 DEC 24 (EW4) /EW4X24:XCME 5900 CALL", nil, "./ESZ24 241122C5900", "ES Dec 2024 5900 call"},
		{"/MESH25 /EXF25 5850 PUT", nil, "./MESH25 250131P5850", "MES Mar 2025 5850 put"},
		{"./EW4X24C5900", nil, "./ESZ24 241122C5900", "ES Dec 2024 5900 call"},
		{"./EWZ24P5000", nil, "./ESZ24 241231P5000", "ES Dec 2024 5000 put"},
		{"./EW2F25 P5800", nil, "./ESH25 250110P5800", "ES Mar 2025 5800 put"},
		{"./QN3H25C20000", nil, "./NQH25 250321C20000", "NQ Mar 2025 20000 call"},
		{"/NQH25 /Q1AH25 20000 CALL", nil, "./NQH25 250303C20000", "NQ Mar 2025 20000 call"},
	}
	for _, c := range ok {
		t.Run(c.in, func(t *testing.T) {
			o, err := ParseFutureOption(c.in, traded, c.expiry)
			if err != nil {
				t.Fatal(err)
			}
			if o.Symbol() != c.canonical || o.Label() != c.label {
				t.Fatalf("got %q %q, want %q %q", o.Symbol(), o.Label(), c.canonical, c.label)
			}
			again, err := ParseFutureOption(o.Symbol(), traded.AddDate(-3, 0, 0), nil)
			if err != nil || again.Symbol() != o.Symbol() || !again.Expiry.Equal(o.Expiry) || again.Future != o.Future {
				t.Fatalf("round trip: %+v %v", again, err)
			}
		})
	}
	bad := []struct {
		in     string
		expiry bool // an *ExpiryProblem, not ErrFutureOption
	}{
		{"", false}, {"./ESZ24", false}, {"ESZ24 5000", false}, {"./ESZ24 241220X5000", false},
		{"./ESZ24 241320C5000", false}, {"./ESZ24 C0", false}, {"./ESZ24 C5000 C5000", false},
		{"AAPL  240119C00190000", false}, {"./ES C5000", false}, {"5900 CALL", false},
		{"/ESZ24 5900 CALL CALL", false}, {"./ESZ24 241220C5000.123456789", false},
		{"./ABCDZ24 241220C1234567890.12345678", false}, // longer than a symbol column holds
		// An expiry after the future's month, a series on another future, a
		// fifth Monday November 2024 does not have, no expiry rule.
		{"./ESZ24 250117C5000", true}, {"/ESZ24 /EW4H25 5900 CALL", true}, {"/ESZ24 /QN4X24 5900 CALL", true},
		{"./E5AX24C5000", true}, {"./CLF25C70", true}, {"./XYZZ24C100", true},
	}
	for _, c := range bad {
		t.Run("bad/"+c.in, func(t *testing.T) {
			o, err := ParseFutureOption(c.in, traded, nil)
			var ep *ExpiryProblem
			switch {
			case err == nil:
				t.Fatalf("accepted as %q", o.Symbol())
			case c.expiry != errors.As(err, &ep):
				t.Fatalf("error %v", err)
			case !c.expiry && err != ErrFutureOption:
				t.Fatalf("error %v", err)
			}
		})
	}
}

// TestFutureOptionInstrument: Parse reads a futures option for its asset
// type, its multiplier is the future's point value and its columns are
// the future's root and month with its own expiry, right and strike.
func TestFutureOptionInstrument(t *testing.T) {
	traded := time.Date(2024, 11, 1, 0, 0, 0, 0, time.UTC)
	inst, err := Parse(AssetFutureOption, "/ESZ4 C5000", traded)
	if err != nil {
		t.Fatal(err)
	}
	if err := inst.SettleMultiplier(nil); err != nil {
		t.Fatal(err)
	}
	c := inst.Columns()
	if inst.Symbol != "./ESZ24 241220C5000" || inst.Multiplier.String() != "50" || *c.Underlying != "ES" ||
		c.ContractMonth.Format("2006-01-02") != "2024-12-01" || c.Expiry.Format(time.DateOnly) != "2024-12-20" ||
		*c.Right != "C" || c.Strike.String() != "5000" || inst.Label() != "ES Dec 2024 5000 call" {
		t.Fatalf("%+v %+v", inst, c)
	}
	// An unknown root needs its point value given, as a future's does.
	inst, err = Parse(AssetFutureOption, "./QQQZ24 241220C100", traded)
	if err != nil {
		t.Fatal(err)
	}
	if field, msg := problem(inst.SettleMultiplier(nil)); field != "multiplier" || msg == "" {
		t.Fatalf("%q %q", field, msg)
	}
	given := decimal.NewFromInt(20)
	if err := inst.SettleMultiplier(&given); err != nil || inst.Multiplier.String() != "20" {
		t.Fatalf("%v %s", err, inst.Multiplier)
	}
	for _, sym := range []string{"ESZ24", "./CLF25C70", ""} {
		if field, _ := problem(func() error { _, err := Parse(AssetFutureOption, sym, traded); return err }()); field != "symbol" {
			t.Errorf("%q: field %q", sym, field)
		}
	}
}

// TestFutureOptionPnL works the brief's examples by hand through the
// instrument's multiplier: P&L = (exit - entry) x contracts x multiplier.
func TestFutureOptionPnL(t *testing.T) {
	traded := time.Date(2024, 11, 1, 0, 0, 0, 0, time.UTC)
	pnl := func(symbol, entry, exit string, contracts int64, long bool) string {
		inst, err := Parse(AssetFutureOption, symbol, traded)
		if err != nil {
			t.Fatal(err)
		}
		if err := inst.SettleMultiplier(nil); err != nil {
			t.Fatal(err)
		}
		move := decimal.RequireFromString(exit).Sub(decimal.RequireFromString(entry))
		if !long {
			move = move.Neg()
		}
		return move.Mul(decimal.NewFromInt(contracts)).Mul(inst.Multiplier).StringFixed(2)
	}
	// An ES call bought at 50.25 and sold at 62.50: 12.25 x 50 = 612.50.
	if got := pnl("./ESZ24C5000", "50.25", "62.50", 1, true); got != "612.50" {
		t.Errorf("ES call: %s", got)
	}
	// Two MES calls held to expiry worthless: -8.75 x 2 x 5 = -87.50.
	if got := pnl("./MESZ24C6000", "8.75", "0", 2, true); got != "-87.50" {
		t.Errorf("expired MES calls: %s", got)
	}
	// A short CL put sold at 1.25, bought back at 0.40: 0.85 x 1000 = 850.
	if got := pnl("./CLF25 241216P65", "1.25", "0.40", 1, false); got != "850.00" {
		t.Errorf("short CL put: %s", got)
	}
}

// FuzzParseFutureOption: any text is ErrFutureOption, an *ExpiryProblem,
// or an option whose canonical symbol reads back as the same option (with
// no expiry given and any reference time), within the future's month.
func FuzzParseFutureOption(f *testing.F) {
	for _, s := range []string{"./ESZ24C5000", "/ESZ4 C5000", "./ESZ4 EW4X4 241122C5900", "./MESM6EXK6  260529P5800",
		"./6JM1 JPUK1 210507P0.009", "/ESZ24:XCME 1/50 DEC 24 (EW4) /EW4X24:XCME 5900 CALL", "./EW4X24C5900",
		"./E5AX24C5000", "./CLF25C70", "", "./", "C5000", "AAPL  240119C00190000", "./ESZ24 991231C1"} {
		f.Add(s, int64(1730473200), false)
	}
	f.Fuzz(func(t *testing.T, s string, unix int64, withExpiry bool) {
		ref := time.Unix(unix%(1<<40), 0)
		var expiry *time.Time
		if withExpiry {
			expiry = &ref
		}
		o, err := ParseFutureOption(s, ref, expiry)
		var ep *ExpiryProblem
		if err != nil {
			if err != ErrFutureOption && !errors.As(err, &ep) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		sym := o.Symbol()
		if !o.Strike.IsPositive() || o.Right != "C" && o.Right != "P" || o.Expiry.Year() < 2000 ||
			!o.Expiry.Before(o.Future.Month.AddDate(0, 1, 0)) || len(sym) > MaxSymbol {
			t.Fatalf("%q read as %+v (%q)", s, o, sym)
		}
		again, err := ParseFutureOption(sym, ref.AddDate(7, 0, 0), nil)
		if err != nil || again.Symbol() != sym || again.Future != o.Future || !again.Expiry.Equal(o.Expiry) {
			t.Fatalf("%q: canonical %q reads back as %+v, %v", s, sym, again, err)
		}
	})
}

// TestFutureOptionCenturyRoundTrip: a two-digit expiry year is 20YY both
// when read and when written back (".EXX70C1" once read back as 1970).
func TestFutureOptionCenturyRoundTrip(t *testing.T) {
	ref := time.Date(2024, 11, 1, 0, 0, 0, 0, time.UTC)
	o, err := ParseFutureOption(".EXX70C1", ref, nil)
	if err != nil {
		t.Fatalf("%q: %v", ".EXX70C1", err)
	}
	back, err := ParseFutureOption(o.Symbol(), ref, nil)
	if err != nil || !back.Expiry.Equal(o.Expiry) || o.Expiry.Year() < 2000 {
		t.Fatalf("%q -> %q -> %v (%v), expiry %v", ".EXX70C1", o.Symbol(), back.Expiry, err, o.Expiry)
	}
}
