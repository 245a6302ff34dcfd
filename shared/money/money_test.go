package money

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

func TestParse(t *testing.T) {
	ok := []struct{ in, want string }{
		{"0", "0"},
		{"-0", "0"},
		{"-0.000", "0"},
		{"5", "5"},
		{"0.5", "0.5"},
		{"123.45", "123.45"},
		{"-123.45", "-123.45"},
		{"007.10", "7.1"},
		{"9999999.99", "9999999.99"},
		{"99999999999999.9999", "99999999999999.9999"},
		{"999999999999999999", "999999999999999999"},   // 18 digits: fast path
		{"9999999999999999999", "9999999999999999999"}, // 19 digits: slow path
		{strings.Repeat("9", 30), strings.Repeat("9", 30)},
		{"0." + strings.Repeat("0", 19) + "1", "0." + strings.Repeat("0", 19) + "1"},
		{"-" + strings.Repeat("1", 30) + "." + strings.Repeat("2", 20), "-" + strings.Repeat("1", 30) + "." + strings.Repeat("2", 20)},
	}
	for _, c := range ok {
		t.Run("ok/"+c.in, func(t *testing.T) {
			d, err := Parse(c.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", c.in, err)
			}
			if got := d.String(); got != c.want {
				t.Fatalf("Parse(%q) = %s, want %s", c.in, got, c.want)
			}
		})
	}

	bad := []struct {
		in   string
		want error
	}{
		{"", ErrFormat},
		{"-", ErrFormat},
		{" 1", ErrFormat},
		{"1 ", ErrFormat},
		{"\t1", ErrFormat},
		{"+1", ErrFormat},
		{".5", ErrFormat},
		{"-.5", ErrFormat},
		{"5.", ErrFormat},
		{"1e3", ErrFormat},
		{"1E3", ErrFormat},
		{"1.5e-3", ErrFormat},
		{"1,000", ErrFormat},
		{"1_000", ErrFormat},
		{"1.000,5", ErrFormat},
		{"NaN", ErrFormat},
		{"Infinity", ErrFormat},
		{"-Infinity", ErrFormat},
		{"inf", ErrFormat},
		{"0x10", ErrFormat},
		{"--1", ErrFormat},
		{"1..2", ErrFormat},
		{"1.2.3", ErrFormat},
		{"١٢", ErrFormat}, // Arabic-Indic digits
		{"１", ErrFormat},  // full-width digit
		{"1\x00", ErrFormat},
		{strings.Repeat("9", 31), ErrTooLong},
		{"1." + strings.Repeat("0", 21), ErrTooLong},
		{strings.Repeat("0", 31), ErrTooLong}, // leading zeros count
		{strings.Repeat("9", 31) + "x", ErrFormat},
	}
	for _, c := range bad {
		t.Run("bad/"+c.in, func(t *testing.T) {
			d, err := Parse(c.in)
			if !errors.Is(err, c.want) {
				t.Fatalf("Parse(%q) = %s, %v; want error %v", c.in, d, err, c.want)
			}
		})
	}
}

func TestRound(t *testing.T) {
	cases := []struct {
		in     string
		places int32
		want   string
	}{
		{"0", 2, "0.00"},
		{"1", 2, "1.00"},
		{"1.004", 2, "1.00"},
		{"1.005", 2, "1.01"},
		{"1.00499999999999999999", 2, "1.00"},
		{"-1.005", 2, "-1.01"}, // half away from zero
		{"-1.004", 2, "-1.00"},
		{"-0.001", 2, "0.00"}, // no negative zero
		{"2.5", 0, "3"},
		{"-2.5", 0, "-3"},
		{"0.00005", 4, "0.0001"},
		{"12.3", 4, "12.3000"},
		{"99999999999999.9999", 2, "100000000000000.00"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			d := decimal.RequireFromString(c.in)
			got := RoundN(d, c.places)
			if got != c.want {
				t.Fatalf("RoundN(%s, %d) = %s, want %s", c.in, c.places, got, c.want)
			}
			if c.places == 2 && Round2(d) != got {
				t.Fatalf("Round2(%s) = %s, RoundN = %s", c.in, Round2(d), got)
			}
		})
	}
}

// grammar is the specification Parse implements by hand.
var grammar = regexp.MustCompile(`^-?([0-9]+)(?:\.([0-9]+))?$`)

// normalise is the canonical form of a string of the grammar, written
// independently of Parse: no leading zeros, no trailing fraction zeros, no
// bare point, no negative zero.
func normalise(s string) string {
	m := grammar.FindStringSubmatch(s)
	neg := strings.HasPrefix(s, "-")
	intPart := strings.TrimLeft(m[1], "0")
	if intPart == "" {
		intPart = "0"
	}
	frac := strings.TrimRight(m[2], "0")
	out := intPart
	if frac != "" {
		out += "." + frac
	}
	if neg && out != "0" {
		out = "-" + out
	}
	return out
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"0", "-0", "123.45", "-0.5", "007.10", "9999999.99", "99999999999999.9999",
		"", " 1", "+1", ".5", "5.", "1e3", "1,000", "NaN", "Infinity",
		strings.Repeat("9", 30) + "." + strings.Repeat("9", 20),
		strings.Repeat("9", 31),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := Parse(s)
		m := grammar.FindStringSubmatch(s)
		if err != nil {
			if m != nil && len(m[1]) <= MaxIntDigits && len(m[2]) <= MaxFracDigits {
				t.Fatalf("Parse(%q) refused a string of the grammar: %v", s, err)
			}
			if !errors.Is(err, ErrFormat) && !errors.Is(err, ErrTooLong) {
				t.Fatalf("Parse(%q) returned a non-sentinel error %v", s, err)
			}
			return
		}
		if m == nil {
			t.Fatalf("Parse(%q) accepted a string outside the grammar", s)
		}
		if got, want := d.String(), normalise(s); got != want {
			t.Fatalf("Parse(%q).String() = %q, want %q", s, got, want)
		}
		for places := int32(0); places <= 4; places++ {
			if got, want := RoundN(d, places), d.StringFixed(places); got != want {
				t.Fatalf("RoundN(%s, %d) = %q, StringFixed gives %q", s, places, got, want)
			}
		}
	})
}

// TestRoundNMatchesStringFixed checks the hand-written formatting against
// decimal's own over many values, scales and places.
func TestRoundNMatchesStringFixed(t *testing.T) {
	values := []string{"0", "-0", "1", "-1", "5", "0.5", "-0.5", "0.005", "-0.005", "0.0049", "123.456789",
		"999999999999999999", "-999999999999999999", "9999999999999999999", "99999999999999.9999",
		"0.00000000000000000001", "-12.3", "100", "1000000"}
	for _, s := range values {
		d := decimal.RequireFromString(s)
		for exp := int32(-3); exp <= 3; exp++ {
			v := d.Shift(exp)
			for places := int32(-2); places <= MaxFracDigits+1; places++ {
				if got, want := RoundN(v, places), v.StringFixed(places); got != want {
					t.Errorf("RoundN(%s, %d) = %s, want %s", v, places, got, want)
				}
			}
		}
		// A coefficient carrying extra zeros, as products do.
		v := decimal.New(d.Shift(4).IntPart(), -4)
		if got, want := RoundN(v, 2), v.StringFixed(2); got != want {
			t.Errorf("RoundN(%s, 2) = %s, want %s", v, got, want)
		}
	}
}
