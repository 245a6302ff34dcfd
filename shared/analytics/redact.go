package analytics

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Mask replaces whatever the redaction guard takes out of a value.
const Mask = "[redacted]"

// Patterns of what must never leave in an event property, tried in order
// after the configured secret values.
var (
	// Credentials in an Authorization-style header value.
	authSchemePattern = regexp.MustCompile(`(?i)\b(?:bearer|basic|token)\s+[A-Za-z0-9\-._~+/]+=*`)
	// A secret written as an assignment: password=..., api_key: ...
	assignmentPattern = regexp.MustCompile(`(?i)\b(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key)\s*[=:]\s*[^\s&,;]+`)
	// Well-known key shapes: payment keys and webhook secrets, analytics
	// project keys, AWS access key ids, GitHub and Slack tokens, JWTs.
	keyPattern   = regexp.MustCompile(`\b(?:(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]+|whsec_[A-Za-z0-9]+|ph[cxs]_[A-Za-z0-9_]+|(?:AKIA|ASIA)[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{20,}|xox[abpr]-[A-Za-z0-9-]+|eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)`)
	emailPattern = regexp.MustCompile(`(?i)[a-z0-9._%+\-]+@[a-z0-9\-]+(?:\.[a-z0-9\-]+)*\.[a-z]{2,}`)
	// An upload's file name, with any path before it: the names traders give
	// their files say who they are and what they trade.
	filenamePattern = regexp.MustCompile(`(?i)[^\s"'<>|*?]*[^\s"'<>|*?.]\.(?:csv|tsv|txt|xlsx?|xlsm|ods|json|xml|png|jpe?g|webp|gif|heic|bmp|tiff?|pdf|zip)\b`)
	// A long run of token characters with letters and digits both: a random
	// key of a kind the list above does not know.
	longTokenPattern = regexp.MustCompile(`[A-Za-z0-9+/_\-]{32,}={0,2}`)
)

// minSubstringSecret is the shortest configured secret masked wherever it
// occurs; a shorter one is masked only as a whole value, so that a
// two-letter password does not erase every word that contains it.
const minSubstringSecret = 4

// Redactor is the guard every event property passes: it masks configured
// secret values, key-like strings and bearer tokens, email addresses and
// upload file names.
type Redactor struct {
	secrets []string // longest first, so a secret that contains another goes whole
}

// NewRedactor returns a guard that also masks each of secrets (the
// configuration's secret values, config.Config.Secrets).
func NewRedactor(secrets []string) *Redactor {
	s := slices.DeleteFunc(slices.Clone(secrets), func(v string) bool { return v == "" })
	slices.SortFunc(s, func(a, b string) int { return len(b) - len(a) })
	return &Redactor{secrets: s}
}

// String masks everything sensitive in s.
func (r *Redactor) String(s string) string {
	for _, secret := range r.secrets {
		switch {
		case s == secret:
			return Mask
		case len(secret) >= minSubstringSecret:
			s = strings.ReplaceAll(s, secret, Mask)
		}
	}
	for _, p := range []*regexp.Regexp{authSchemePattern, assignmentPattern, keyPattern, emailPattern, filenamePattern} {
		s = p.ReplaceAllString(s, Mask)
	}
	return longTokenPattern.ReplaceAllStringFunc(s, func(tok string) string {
		if strings.ContainsAny(tok, "0123456789") && strings.IndexFunc(tok, isLetter) >= 0 {
			return Mask
		}
		return tok
	})
}

func isLetter(c rune) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// Value masks v: strings through String, maps and slices element by
// element; numbers, booleans and nil pass as they are, and any other type is
// formatted and masked as a string.
func (r *Redactor) Value(v any) any {
	switch x := v.(type) {
	case nil, bool, int, int32, int64, uint, uint32, uint64, float32, float64:
		return x
	case string:
		return r.String(x)
	case time.Time:
		return x.UTC().Format(time.RFC3339)
	case map[string]any:
		return r.Props(x)
	case Props:
		return r.Props(x)
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = r.String(s)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = r.Value(e)
		}
		return out
	}
	return r.String(fmt.Sprint(v))
}

// Props masks every value of p (and every key, so a key built from data
// cannot carry it out either).
func (r *Redactor) Props(p map[string]any) map[string]any {
	out := make(map[string]any, len(p))
	for k, v := range p {
		out[r.String(k)] = r.Value(v)
	}
	return out
}
