package auth

import (
	"net/http"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzUserAgent: whatever a client sends as its User-Agent, a session
// stores valid UTF-8 of at most MaxUserAgentChars characters without
// control characters (PostgreSQL text refuses NUL; a list shows it as is).
func FuzzUserAgent(f *testing.F) {
	for _, seed := range []string{"", "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0", "a\x00b", "\xff\xfe", "tab\there",
		strings.Repeat("é", 250), strings.Repeat("x", 199) + "\u0085é", "  padded  "} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		r := &http.Request{Header: http.Header{"User-Agent": {raw}}}
		ua := userAgent(r)
		if !utf8.ValidString(ua) || utf8.RuneCountInString(ua) > MaxUserAgentChars {
			t.Fatalf("%q became %q", raw, ua)
		}
		if strings.IndexFunc(ua, unicode.IsControl) >= 0 {
			t.Fatalf("%q kept a control character: %q", raw, ua)
		}
		if utf8.ValidString(raw) && strings.IndexFunc(raw, unicode.IsControl) < 0 && utf8.RuneCountInString(raw) <= MaxUserAgentChars &&
			ua != strings.TrimSpace(raw) {
			t.Fatalf("a plain agent changed: %q became %q", raw, ua)
		}
	})
}
