package listquery

import (
	"fmt"
	"testing"

	"tradejournal/shared/apperr"
)

func TestLimit(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"", 25}, {"1", 1}, {"7", 7}, {"25", 25}, {"100", 100}, {"101", 100}, {"1000", 100},
		{"0", 1}, {"-0", 1}, {"-5", 1}, {"+7", 7}, {"007", 7},
		{"99999999999999999999", 100}, {"-99999999999999999999", 1},
	} {
		t.Run(fmt.Sprintf("%q", tc.in), func(t *testing.T) {
			got, err := Limit(tc.in, 25, 100)
			if err != nil || got != tc.want {
				t.Fatalf("Limit(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
			}
		})
	}
	for _, in := range []string{"abc", "1.5", "1e3", " 5", "5 ", "0x10", "-", "+", "٣", "1_000"} {
		t.Run(fmt.Sprintf("Invalid%q", in), func(t *testing.T) {
			_, err := Limit(in, 25, 100)
			e, ok := apperr.As(err)
			if !ok || e.Code != apperr.Validation || len(e.Details) != 1 || e.Details[0].Field != "limit" {
				t.Fatalf("Limit(%q) error %v, want a VALIDATION_ERROR on limit", in, err)
			}
		})
	}
}

// FuzzLimit holds every list's limit parser to 1..most, or a
// VALIDATION_ERROR for what is not a whole number.
func FuzzLimit(f *testing.F) {
	for _, s := range []string{"", "0", "-5", "25", "101", "201", "99999999999999999999", "-99999999999999999999", "x", "+3", " 3", "3.0", "1e3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := Limit(s, 25, 100)
		if err == nil && (n < 1 || n > 100) {
			t.Fatalf("Limit(%q) = %d", s, n)
		}
	})
}
