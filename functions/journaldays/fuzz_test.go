package journaldays

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"tradejournal/shared/apperr"
	"tradejournal/shared/dayjournal"
)

// FuzzParseList: any query string is a valid list query or a
// VALIDATION_ERROR naming its fields, never a panic; a valid one stays in
// the journal's days, from before to, with a page size of 1 to 200 and at
// most 10 lower-case words.
func FuzzParseList(f *testing.F) {
	for _, s := range []string{"", "q=gap", "q=GAP+chase&from=2025-01-01&to=2025-01-31", "from=2025-02-30", "to=1899-12-31",
		"from=2025-02-01&to=2025-01-01", "cursor=MjAyNS0wMS0wNg", "cursor=x", "cursor=MjAyNS0xMy0wMQ", "limit=-5", "limit=999999999999999999999",
		"q=%00", "q=%FF", "q=" + strings.Repeat("a+", 11), "cursor=MTkwMC0wMS0wMQ&from=1900-01-01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		lq, err := parseList(v)
		if err != nil {
			if e, ok := apperr.As(err); !ok || e.Code != apperr.Validation || len(e.Details) == 0 {
				t.Fatalf("%q: %v", raw, err)
			}
			return
		}
		if lq.from.Before(dayjournal.FirstDay) || lq.to.After(dayjournal.LastDay) || lq.limit < 1 || lq.limit > 200 || len(lq.terms) > maxQueryWords {
			t.Fatalf("%q: %+v", raw, lq)
		}
		for _, w := range lq.terms {
			if w != strings.ToLower(w) || w == "" {
				t.Fatalf("%q: term %q", raw, w)
			}
		}
	})
}

// FuzzSnippet: a snippet and an excerpt are valid UTF-8 of bounded length
// for any text and term, and a snippet shows the term where the text holds
// it.
func FuzzSnippet(f *testing.F) {
	for _, s := range [][2]string{{"Chased the GAP up, again.", "gap"}, {"", "x"}, {"ÜBERRASCHUNG heute", "überraschung"},
		{strings.Repeat("word ", 100) + "needle" + strings.Repeat(" tail", 100), "needle"}, {"İstanbul", "i̇stanbul"}, {"\xff\xfe", "a"},
		{"# Heading\n\n- item", "item"}, {"ſ long s", "s"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, text, q string) {
		terms := searchTerms(q)
		term := ""
		if len(terms) > 0 {
			term = terms[0]
		}
		s := snippet(text, term)
		if utf8.ValidString(text) && !utf8.ValidString(s) {
			t.Fatalf("snippet of %q: invalid UTF-8 %q", text, s)
		}
		if n := utf8.RuneCountInString(s); n > snippetChars+2 {
			t.Fatalf("snippet of %d characters", n)
		}
		if term != "" && utf8.ValidString(text) && holdsAll(text, []string{term}) && indexFold(text, term) >= 0 &&
			utf8.RuneCountInString(term) < snippetChars-snippetBefore && !strings.Contains(strings.ToLower(s), strings.Join(strings.Fields(term), " ")) {
			t.Fatalf("snippet %q of %q misses %q", s, text, term)
		}
		e := excerpt(text)
		if utf8.ValidString(text) && (!utf8.ValidString(e) || utf8.RuneCountInString(e) > excerptChars) {
			t.Fatalf("excerpt %q", e)
		}
	})
}
