package admin

import (
	"net/url"
	"testing"
	"time"

	"tradejournal/shared/apperr"
)

// FuzzParsePeriod: any from and to is a period of whole days, from before
// to, or a VALIDATION_ERROR; never a panic.
func FuzzParsePeriod(f *testing.F) {
	for _, s := range [][2]string{{"", ""}, {"2025-01-01", "2025-01-31"}, {"2025-02-01", "2025-01-01"}, {"0000-01-01", ""},
		{"9999-12-31", ""}, {"", "0001-01-01"}, {"2025-13-01", "x"}, {"2025-1-1", "2025-01-01T00:00:00Z"}} {
		f.Add(s[0], s[1])
	}
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, from, to string) {
		p, err := parsePeriod(url.Values{"from": {from}, "to": {to}}, now)
		if err != nil {
			if e, ok := apperr.As(err); !ok || e.Code != apperr.Validation {
				t.Fatalf("(%q, %q): %v", from, to, err)
			}
			return
		}
		if !p.From.Before(p.To) || p.From.Truncate(24*time.Hour) != p.From || p.To.Truncate(24*time.Hour) != p.To {
			t.Fatalf("(%q, %q): period %v .. %v", from, to, p.From, p.To)
		}
	})
}
