package currency

import (
	"testing"

	"tradejournal/shared/journal"
)

// Fuzz targets for the rate list's query parsers; their seeds run as
// tests. What they accept is what PostgreSQL reads.

func FuzzDecodeCursor(f *testing.F) {
	for _, s := range []string{"", "x", "VVNERVVSMjAyNC0wMS0wMg", "VVNERVVSMDAwMC0wMS0wMQ", "VVNERVVSOTk5OS0xMi0zMQ", "VVNERVVSMjAyNC0wMi0zMA=="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := decodeCursor(s)
		if c == nil {
			return
		}
		if !journal.InDatabaseRange(c.Date) || len(c.Base) != 3 || len(c.Quote) != 3 {
			t.Fatalf("accepted %+v", c)
		}
		if again := decodeCursor(encodeCursor(*c)); again == nil || *again != *c {
			t.Fatalf("cursor %+v does not survive its encoding", c)
		}
	})
}

func FuzzParseCurrency(f *testing.F) {
	for _, s := range []string{"", "usd", "USD", "XXX", "EU", "EURO", "\x00\x00\x00", "ÄÖÜ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		code, msg := ParseCurrency(s)
		if msg == "" && (len(code) != 3 || code[0] < 'A' || code[0] > 'Z') {
			t.Fatalf("ParseCurrency(%q) accepted %q", s, code)
		}
	})
}
