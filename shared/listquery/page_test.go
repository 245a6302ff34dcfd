package listquery

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"
	"time"

	"tradejournal/shared/db"
	"tradejournal/shared/journal"
)

func TestParseLimit(t *testing.T) {
	for in, want := range map[string]int{"": 50, "1": 1, "0": 1, "-5": 1, "200": 200, "201": 200, "+7": 7, "99999999999999999999": 200, "-99999999999999999999": 1} {
		if got, err := ParseLimit(in); err != nil || got != want {
			t.Errorf("ParseLimit(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"x", "1.5", " 1", "1e3"} {
		if _, err := ParseLimit(in); err == nil {
			t.Errorf("ParseLimit(%q) accepted", in)
		}
	}
}

func TestCursor(t *testing.T) {
	const id = "0b9d8f4e-1c2a-4e5f-9a7b-1234567890ab"
	at := time.Date(2024, 1, 19, 14, 30, 0, 123456000, time.UTC)
	for _, c := range []Cursor{{At: &at, ID: id}, {ID: id}} {
		got, err := ParseCursor(c.Encode())
		if err != nil || got.ID != id || (got.At == nil) != (c.At == nil) || got.At != nil && !got.At.Equal(*c.At) {
			t.Fatalf("round trip of %+v: %+v %v", c, got, err)
		}
	}
	if c, err := ParseCursor(""); c != nil || err != nil {
		t.Fatal("empty cursor is not the first page")
	}
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	for _, bad := range []string{"%%%", enc("1." + strings.ToUpper(id)), enc("x." + id), enc("1"), enc("01." + id), enc("-." + id + "x"),
		enc("999999999999999999999." + id), strings.Repeat("A", 200), enc("1."+id) + "=="} {
		if _, err := ParseCursor(bad); err == nil {
			t.Errorf("ParseCursor(%q) accepted", bad)
		}
	}
}

func TestKeysCursor(t *testing.T) {
	const id = "0b9d8f4e-1c2a-4e5f-9a7b-1234567890ab"
	want := []string{"setup", "Ünïcode, \"quoted\" ✓", id}
	got, err := ParseKeys(EncodeKeys(want...), 3)
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("round trip: %q %v", got, err)
	}
	if k, err := ParseKeys("", 3); k != nil || err != nil {
		t.Fatal("empty cursor is not the first page")
	}
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	for _, bad := range []string{"%%%", EncodeKeys("setup", id), EncodeKeys("a", "b", "c"), EncodeKeys("a", "b", strings.ToUpper(id)),
		EncodeKeys("a\x00", "b", id), enc(`["a","b",1]`), enc(`{"a":1}`), enc("not json"), EncodeKeys(strings.Repeat("n", 1000), "b", id),
		EncodeKeys("a", "b", id) + "=="} {
		if _, err := ParseKeys(bad, 3); err == nil {
			t.Errorf("ParseKeys(%q) accepted", bad)
		}
	}
}

func TestDecimalRules(t *testing.T) {
	cases := []struct {
		rule journal.DecimalRule
		in   string
		ok   bool
	}{
		{journal.PriceRule, "0.00000001", true},
		{journal.PriceRule, "0.000000001", false},
		{journal.PriceRule, "0", false},
		{journal.PriceRule, "-1", false},
		{journal.PriceRule, "99999999", true},
		{journal.PriceRule, "99999999.01", false},
		{journal.QuantityRule, "1000000000", true},
		{journal.QuantityRule, "1000000000.00000001", false},
		{journal.FeeRule, "0", true},
		{journal.FeeRule, "1.23456", false},
		{journal.FeeRule, "1.23450", true},
		{journal.FeeRule, "-0.01", false},
		{journal.BalanceRule, "-99999999999999.9999", true},
		{journal.BalanceRule, "100000000000000", false},
		{journal.PercentRule, "100", true},
		{journal.PercentRule, "100.0001", false},
		{journal.PercentRule, "0", false},
		{journal.AmountRule, "0.0001", true},
		{journal.AmountRule, "0", false},
	}
	for _, c := range cases {
		var p journal.Problems
		_, ok := p.Decimal("x", journal.S(c.in), c.rule)
		if ok != c.ok || (p.Err() == nil) != c.ok {
			t.Errorf("%q with %q: ok %v, err %v", c.in, c.rule.Message, ok, p.Err())
		}
	}
	var p journal.Problems
	if _, ok := p.Decimal("x", journal.Field{Set: true, NotString: true}, journal.PriceRule); ok || p.Err() == nil {
		t.Error("a JSON number was accepted")
	}
	if _, ok := p.RequiredDecimal("y", journal.Null, journal.PriceRule); ok || !p.Has("y") {
		t.Error("null accepted as required")
	}
}

func TestParseTime(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if got, err := journal.ParseTime("at", "2024-01-19T09:30:00-05:00", now); err != nil || !got.Equal(time.Date(2024, 1, 19, 14, 30, 0, 0, time.UTC)) || got.Location() != time.UTC {
		t.Fatalf("%v %v", got, err)
	}
	for _, bad := range []string{"2024-01-19", "2024-01-19T09:30:00", "2024-13-01T00:00:00Z", "1969-12-31T23:59:59Z", "2026-01-02T00:00:01Z", "yesterday"} {
		if _, err := journal.ParseTime("at", bad, now); err == nil {
			t.Errorf("journal.ParseTime(%q) accepted", bad)
		}
	}
}

func TestText(t *testing.T) {
	if journal.Text("notes", strings.Repeat("é", journal.MaxNotesChars), journal.MaxNotesChars) != nil {
		t.Error("20000 characters (40000 bytes) refused")
	}
	if journal.Text("notes", strings.Repeat("a", journal.MaxNotesChars+1), journal.MaxNotesChars) == nil || journal.Text("notes", "a\x00b", 10) == nil {
		t.Error("accepted")
	}
	if n, err := journal.Name("name", "  Main  ", 100); n != "Main" || err != nil {
		t.Error(n, err)
	}
	for _, bad := range []string{"", "   ", "a\nb", strings.Repeat("x", 101)} {
		if _, err := journal.Name("name", bad, 100); err == nil {
			t.Errorf("journal.Name(%q) accepted", bad)
		}
	}
}

// FuzzParseKeys: any cursor text is either ErrCursor or keys that encode
// back to a cursor reading the same keys.
func FuzzParseKeys(f *testing.F) {
	const id = "0b9d8f4e-1c2a-4e5f-9a7b-1234567890ab"
	for _, s := range []string{EncodeKeys("setup", "journal.Name", id), EncodeKeys("", "", id), "", "%%%", "W10", EncodeKeys("a", id)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		keys, err := ParseKeys(s, 3)
		if err != nil {
			if err != ErrCursor {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if s == "" {
			if keys != nil {
				t.Fatalf("empty cursor read as %q", keys)
			}
			return
		}
		again, err := ParseKeys(EncodeKeys(keys...), 3)
		if err != nil || !slices.Equal(again, keys) || !db.ValidUUID(keys[2]) {
			t.Fatalf("%q: keys %q read back as %q, %v", s, keys, again, err)
		}
	})
}
