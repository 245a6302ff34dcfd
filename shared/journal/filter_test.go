package journal

import (
	"net/url"
	"slices"
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
		q := url.Values{"accountId": {id}, "symbol": {" aapl ,msft"}, "status": {"closed"}, "tagId": {id}, "from": {"2026-01-01"}, "to": {"2026-01-31"},
			"excludeTagId": {id}, "side": {"short"}, "assetType": {"option", "future"}, "weekday": {"1,5"}, "hour": {"9"}}
		f, err := ParseFilter(q)
		if err != nil {
			t.Fatal(err)
		}
		args := []any{"user"}
		sql := f.SQL(&args, "p.closed_at")
		for _, want := range []string{"p.account_id = ANY($2::uuid[])", "p.symbol = ANY($3::text[]) OR p.underlying = ANY($3::text[])",
			"p.status = $4", "pt.tag_id = ANY($5::uuid[])", "NOT EXISTS", "pt.tag_id = ANY($6::uuid[])", "p.side = $7",
			"p.asset_type = ANY($8::text[])", "isodow FROM p.opened_at AT TIME ZONE a.timezone)::int = ANY($9::int[])",
			"extract(hour FROM p.opened_at AT TIME ZONE a.timezone)::int = ANY($10::int[])",
			"AT TIME ZONE a.timezone)::date >= $11::date", "<= $12::date"} {
			if !strings.Contains(sql, want) {
				t.Errorf("%q lacks %q", sql, want)
			}
		}
		if len(args) != 12 || !slices.Equal(args[2].([]string), []string{"AAPL", "MSFT"}) || !slices.Equal(args[8].([]int), []int{1, 5}) ||
			args[10] != "2026-01-01" || !f.NeedsAccount() {
			t.Fatalf("args %v", args)
		}
	})
	t.Run("Playbook", func(t *testing.T) {
		f, err := ParseFilter(url.Values{"playbookId": {id + "," + id}})
		if err != nil {
			t.Fatal(err)
		}
		var args []any
		if got := f.SQL(&args, "p.closed_at"); got != "p.playbook_id = ANY($1::uuid[])" || len(args) != 1 || f.NeedsAccount() {
			t.Fatalf("%q %v", got, args)
		}
	})
	for name, q := range map[string]url.Values{
		"BadPlaybook":  {"playbookId": {id + ",x"}},
		"BadAccount":   {"accountId": {"1 OR 1=1"}},
		"BadStatus":    {"status": {"won"}},
		"BadTag":       {"tagId": {"x"}},
		"BadDate":      {"from": {"2026-13-01"}},
		"DateTime":     {"to": {"2026-01-01T00:00:00Z"}},
		"ToBeforeFrom": {"from": {"2026-02-01"}, "to": {"2026-01-01"}},
		"LongSymbol":   {"symbol": {strings.Repeat("A", 33)}},
		"NULInSymbol":  {"symbol": {"AA\x00PL"}},
		"BadUTF8":      {"symbol": {"\xff\xfe"}},
		"BadSide":      {"side": {"flat"}},
		"BadAsset":     {"assetType": {"stock,bond"}},
		"Weekday0":     {"weekday": {"0"}},
		"Hour24":       {"hour": {"24"}},
		"BadExclude":   {"excludeTagId": {id + ",x"}},
		"TooMany":      {"symbol": {strings.Repeat("A,", 51)}},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := ParseFilter(q); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}
