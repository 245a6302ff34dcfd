package listquery

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"tradejournal/shared/db"
	"tradejournal/shared/journal"
)

// t0 is a moment the cursors' seeds start from.
var t0 = time.Date(2024, 1, 19, 14, 30, 0, 0, time.UTC)

// Fuzz targets for every parser of the journal's query input (filters,
// cursors, limits). Their seeds run as tests; `go test -fuzz` explores.
// The invariant they share: a value a parser accepts is one PostgreSQL
// reads (journal.InDatabaseRange), so it can never come back as a 500.

func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{"", "from=2024-01-01&to=2024-12-31", "from=0000-01-01", "to=0000-12-31", "from=9999-12-31&to=10000-01-01",
		"accountId=00000000-0000-4000-8000-000000000000&status=open&symbol=aapl", "tagId=x&status=y", "symbol=%00", "from=2024-02-30",
		"weekday=1,7&hour=0&hour=23&side=short&assetType=option,future", "weekday=8", "hour=-1", "result=win,loss&result=breakeven", "result=draw", "symbol=aapl,,msft&excludeTagId=,",
		"tagId=00000000-0000-4000-8000-000000000000,00000000-0000-4000-8000-000000000001&excludeTagId=00000000-0000-4000-8000-000000000002"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		flt, err := ParseFilter(q)
		if err != nil {
			return
		}
		for _, d := range []*time.Time{flt.From, flt.To} {
			if d != nil && !journal.InDatabaseRange(*d) {
				t.Fatalf("accepted date %v outside the database's range", d)
			}
		}
		if flt.From != nil && flt.To != nil && flt.To.Before(*flt.From) {
			t.Fatal("accepted to before from")
		}
		for _, id := range slices.Concat(flt.AccountIDs, flt.TagIDs, flt.ExcludeTagIDs, flt.PlaybookIDs) {
			if !db.ValidUUID(id) {
				t.Fatalf("accepted id %q", id)
			}
		}
		for _, s := range flt.Symbols {
			if len(s) > 32 || !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
				t.Fatalf("accepted symbol %q", s)
			}
		}
		for _, v := range flt.Results {
			if _, ok := journal.ResultSign(v); !ok {
				t.Fatalf("accepted result %q", v)
			}
		}
		for _, d := range flt.Weekdays {
			if d < 1 || d > 7 {
				t.Fatalf("accepted weekday %d", d)
			}
		}
		for _, h := range flt.Hours {
			if h < 0 || h > 23 {
				t.Fatalf("accepted hour %d", h)
			}
		}
	})
}

func FuzzParseCursor(f *testing.F) {
	id := "00000000-0000-4000-8000-000000000000"
	for _, s := range []string{"", "x", Cursor{ID: id}.Encode(), Cursor{At: &t0, ID: id}.Encode(),
		"LTk5OTk5OTk5OTk5OTk5OTk5LjAwMDAwMDAwLTAwMDAtNDAwMC04MDAwLTAwMDAwMDAwMDAwMA", "OTIyMzM3MjAzNjg1NDc3NTgwNy54"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCursor(s)
		if err != nil || c == nil {
			return
		}
		if !db.ValidUUID(c.ID) {
			t.Fatalf("accepted id %q", c.ID)
		}
		if c.At != nil && (c.At.Year() < -4712 || c.At.Year() > 294275) {
			t.Fatalf("accepted time %v outside timestamptz", c.At)
		}
		again, err := ParseCursor(c.Encode())
		if err != nil || again.ID != c.ID || (again.At == nil) != (c.At == nil) || c.At != nil && !again.At.Equal(*c.At) {
			t.Fatalf("cursor %q does not survive its own encoding: %v", s, err)
		}
	})
}

func FuzzParseBoundedPage(f *testing.F) {
	id := "00000000-0000-4000-8000-000000000000"
	keys := []SortKey{TimeKey("created_at"), {Column: "lower(name)", Param: "%s"}, IDKey}
	for _, at := range []string{"2024-01-01T00:00:00Z", "0000-01-01T00:00:00Z", "2024-01-01T00:00:00+23:59", "yesterday"} {
		f.Add(EncodeKeys(at, "x", id), "")
	}
	f.Add("", "5")
	f.Add("W10", "x")
	f.Fuzz(func(t *testing.T, cursor, limit string) {
		page, err := ParseBoundedPage(url.Values{"cursor": {cursor}, "limit": {limit}}, keys)
		if err != nil || page.after == nil {
			return
		}
		at, err := time.Parse(time.RFC3339Nano, page.after[0])
		if err != nil || !journal.InDatabaseRange(at) || !db.ValidUUID(page.after[2]) {
			t.Fatalf("accepted cursor keys %q", page.after)
		}
	})
}

// Values Go parses and PostgreSQL refuses are refused at the edge: year
// 0000 dates, and cursor times with a year 0000 or an offset past +-15:59.
func TestEdgeRefusesWhatPostgreSQLRefuses(t *testing.T) {
	for _, s := range []string{"0000-01-01", "0000-12-31"} {
		if _, err := journal.ParseDate(s); err == nil {
			t.Errorf("journal.ParseDate(%q) accepted", s)
		}
	}
	for _, s := range []string{"0001-01-01", "9999-12-31", "2024-02-29"} {
		if _, err := journal.ParseDate(s); err != nil {
			t.Errorf("journal.ParseDate(%q): %v", s, err)
		}
	}
	key := TimeKey("created_at")
	for s, want := range map[string]bool{"0000-01-01T00:00:00Z": false, "2024-01-01T00:00:00+23:59": false, "2024-01-01T00:00:00-16:00": false,
		"2024-01-01T00:00:00+15:59": true, "0001-01-01T00:00:00Z": true, "2024-01-01T00:00:00.123456Z": true} {
		if got := key.Valid(s); got != want {
			t.Errorf("TimeKey.Valid(%q) = %v, want %v", s, got, want)
		}
	}
}
