package market_test

import (
	"strings"
	"testing"

	"tradejournal/shared/market"
)

// FuzzValidSymbol holds the quote route's path parser: an accepted symbol
// is 1 to 10 of A-Z, 0-9, '.' and '-'.
func FuzzValidSymbol(f *testing.F) {
	for _, s := range []string{"", "aapl", "BRK.B", "%00", "ÄPPL", strings.Repeat("A", 11), "../x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, ok := market.ValidSymbol(s)
		if !ok {
			return
		}
		if len(u) < 1 || len(u) > 10 || strings.Trim(u, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-") != "" {
			t.Fatalf("ValidSymbol(%q) accepted %q", s, u)
		}
	})
}
