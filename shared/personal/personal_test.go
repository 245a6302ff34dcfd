package personal

import (
	"strings"
	"testing"
	"unicode/utf8"

	"tradejournal/shared/apperr"
)

func TestDefaultLayoutIsValid(t *testing.T) {
	if err := CheckLayout(DefaultLayout); err != nil {
		t.Fatalf("the default layout is refused: %v", err)
	}
}

func detailFields(err error) []string {
	e, _ := apperr.As(err)
	if e == nil {
		return nil
	}
	var out []string
	for _, d := range e.Details {
		out = append(out, d.Field)
	}
	return out
}

func TestViewQuery(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		fields         []string
	}{
		{name: "Empty", in: "", want: ""},
		{name: "Sorted", in: "?to=2025-05-31&side=long&from=2025-05-01", want: "from=2025-05-01&side=long&to=2025-05-31"},
		{name: "List", in: "symbol=AAPL,msft&weekday=1,5", want: "symbol=AAPL%2Cmsft&weekday=1%2C5"},
		{name: "BadDate", in: "from=2025-13-01", fields: []string{"query.from"}},
		{name: "ToBeforeFrom", in: "from=2025-05-02&to=2025-05-01", fields: []string{"query.to"}},
		{name: "ListOnly", in: "status=open&dateBy=closed", fields: []string{"query.dateBy", "query.status"}},
		{name: "NotAFilter", in: "sort=-netPnl", fields: []string{"query.sort"}},
		{name: "BadEscape", in: "symbol=%zz", fields: []string{"query"}},
		{name: "TooLong", in: strings.Repeat("a", MaxViewQuery+1), fields: []string{"query"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ViewQuery(tc.in)
			if tc.fields == nil {
				if err != nil || got != tc.want {
					t.Fatalf("ViewQuery(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
				}
				return
			}
			fields := detailFields(err)
			for _, f := range tc.fields {
				if !strings.Contains(strings.Join(fields, " "), f) {
					t.Fatalf("ViewQuery(%q): fields %v, want %v", tc.in, fields, tc.fields)
				}
			}
		})
	}
}

func TestMapViewIDs(t *testing.T) {
	const a, b, tag = "00000000-0000-4000-8000-00000000000a", "00000000-0000-4000-8000-00000000000b", "00000000-0000-4000-8000-0000000000c1"
	q, err := ViewQuery("accountId=" + a + "," + b + "&tagId=" + tag + "&symbol=aapl")
	if err != nil {
		t.Fatal(err)
	}
	got := MapViewIDs(q, func(kind, id string) (string, bool) {
		if kind == "account" && id == a {
			return "new-account", true
		}
		if kind == "tag" && id == tag {
			return "new-tag", true
		}
		return "", false
	})
	// A known id is mapped, an unknown one kept, the rest untouched.
	if want := "accountId=new-account%2C" + b + "&symbol=aapl&tagId=new-tag"; got != want {
		t.Fatalf("mapped %q, want %q", got, want)
	}
}

func TestViewName(t *testing.T) {
	if n, err := ViewName("  May longs "); err != nil || n != "May longs" {
		t.Fatalf("%q %v", n, err)
	}
	for _, bad := range []string{"", "   ", strings.Repeat("é", MaxViewName+1), "a\x00b", "\xff"} {
		if _, err := ViewName(bad); err == nil {
			t.Fatalf("ViewName(%q) accepted", bad)
		}
	}
}

// FuzzViewQuery: any text is a clear answer, never a panic; an accepted
// query is accepted again in its stored spelling, which stays the same.
func FuzzViewQuery(f *testing.F) {
	for _, s := range []string{"", "side=long", "from=2025-01-01&to=2024-01-01", "accountId=x", "symbol=%zz", "a=1&a=2", "weekday=1,2,9", ";", "hour=23&hour=0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ViewQuery(s)
		if err != nil {
			if e, ok := apperr.As(err); !ok || e.Code != apperr.Validation {
				t.Fatalf("ViewQuery(%q): %v is not a validation error", s, err)
			}
			return
		}
		again, err := ViewQuery(got)
		if err != nil || again != got {
			t.Fatalf("stored %q reads back as %q, %v", got, again, err)
		}
		if !utf8.ValidString(got) && utf8.ValidString(s) {
			t.Fatalf("stored %q is not text", got)
		}
	})
}

// FuzzViewName: any text is trimmed text of at most MaxViewName
// characters or a validation error.
func FuzzViewName(f *testing.F) {
	for _, s := range []string{"", " x ", "a\x00", strings.Repeat("n", 81)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ViewName(s)
		if err != nil {
			return
		}
		if n == "" || utf8.RuneCountInString(n) > MaxViewName || !utf8.ValidString(n) || strings.TrimSpace(n) != n {
			t.Fatalf("ViewName(%q) = %q", s, n)
		}
	})
}
