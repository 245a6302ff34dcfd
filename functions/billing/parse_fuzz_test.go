package billing

import "testing"

// FuzzParseLimit holds the wallet route's limit parser to 1..maxPageSize
// or a VALIDATION_ERROR.
func FuzzParseLimit(f *testing.F) {
	for _, s := range []string{"", "0", "-5", "25", "101", "99999999999999999999", "x", "+3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n, err := parseLimit(s); err == nil && (n < 1 || n > maxPageSize) {
			t.Fatalf("parseLimit(%q) = %d", s, n)
		}
	})
}
