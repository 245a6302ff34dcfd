package journal

import (
	"net/url"
	"strings"
	"testing"
)

func TestParseFilter(t *testing.T) {
	const id = "0b9d8f4e-1c2a-4e5f-9a7b-1234567890ab"
	t.Run("Empty", func(t *testing.T) {
		f, err := ParseFilter(url.Values{})
		if err != nil {
			t.Fatal(err)
		}
		var args []any
		if got := f.SQL(&args, "p.closed_at"); got != "TRUE" || len(args) != 0 {
			t.Fatalf("%q %v", got, args)
		}
	})
	t.Run("All", func(t *testing.T) {
		q := url.Values{"accountId": {id}, "symbol": {" aapl "}, "status": {"closed"}, "tagId": {id}, "from": {"2026-01-01"}, "to": {"2026-01-31"}}
		f, err := ParseFilter(q)
		if err != nil {
			t.Fatal(err)
		}
		args := []any{"user"}
		sql := f.SQL(&args, "p.closed_at")
		for _, want := range []string{"p.account_id = $2", "p.symbol = $3", "p.status = $4", "pt.tag_id = $5", "AT TIME ZONE a.timezone)::date >= $6::date", "<= $7::date"} {
			if !strings.Contains(sql, want) {
				t.Errorf("%q lacks %q", sql, want)
			}
		}
		if len(args) != 7 || args[2] != "AAPL" || args[5] != "2026-01-01" {
			t.Fatalf("args %v", args)
		}
	})
	for name, q := range map[string]url.Values{
		"BadAccount":   {"accountId": {"1 OR 1=1"}},
		"BadStatus":    {"status": {"won"}},
		"BadTag":       {"tagId": {"x"}},
		"BadDate":      {"from": {"2026-13-01"}},
		"DateTime":     {"to": {"2026-01-01T00:00:00Z"}},
		"ToBeforeFrom": {"from": {"2026-02-01"}, "to": {"2026-01-01"}},
		"LongSymbol":   {"symbol": {strings.Repeat("A", 33)}},
		"NULInSymbol":  {"symbol": {"AA\x00PL"}},
		"BadUTF8":      {"symbol": {"\xff\xfe"}},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := ParseFilter(q); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}
