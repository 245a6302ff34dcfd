package market

import (
	"errors"
	"strings"
)

// codeHosts are code-hosting addresses. A SEC_USER_AGENT that names one
// identifies a software project rather than whoever runs this instance:
// typically a value copied from a fork's defaults. The SEC asks every
// automated client to declare its operator ("Sample Company Name
// AdminContact@<sample company domain>.com") and throttles agents shared by
// many machines, so such a value is refused and no request is sent.
var codeHosts = []string{
	"github.com", "github.io", "githubusercontent.com",
	"gitlab.com", "gitlab.io",
	"bitbucket.org", "bitbucket.io",
	"codeberg.org", "codeberg.page",
	"sr.ht",
	"sourceforge.net", "sourceforge.io",
	"gitee.com", "gitea.com", "launchpad.net", "pagure.io", "notabug.org", "savannah.gnu.org",
}

// ErrCodeHostUserAgent is RefreshSymbols's answer for a SEC_USER_AGENT that
// points at a code-hosting address; no request was sent.
var ErrCodeHostUserAgent = errors.New("SEC_USER_AGENT points at a code-hosting address; set it to your own name and contact email, such as \"Jane Doe jane@example.com\"")

// CodeHostUserAgent reports whether ua names a code-hosting address
// (github.com, gitlab.com, bitbucket.org, codeberg.org, sr.ht,
// sourceforge.net and the like, or any subdomain of one), case-insensitive.
// "sr.ht" inside "usr.htm" or "mygithub.com" does not count: a host must
// stand on its own, or follow a dot (a subdomain).
func CodeHostUserAgent(ua string) bool {
	s := strings.ToLower(ua)
	for _, host := range codeHosts {
		for from := 0; ; {
			i := strings.Index(s[from:], host)
			if i < 0 {
				break
			}
			start, end := from+i, from+i+len(host)
			if (start == 0 || !hostChar(s[start-1]) || s[start-1] == '.') && hostEnds(s, end) {
				return true
			}
			from = start + 1
		}
	}
	return false
}

// hostEnds reports whether a host name that ends before s[end] is complete:
// the text ends, or goes on with something that is not part of a name. A
// dot counts as the end only when no name character follows it ("github.com."
// closing a sentence, not "github.community").
func hostEnds(s string, end int) bool {
	if end == len(s) {
		return true
	}
	c := s[end]
	if c == '.' {
		return end+1 == len(s) || !hostChar(s[end+1]) || s[end+1] == '.'
	}
	return !hostChar(c)
}

func hostChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.'
}
