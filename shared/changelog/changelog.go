// Package changelog is the "What's new" of the app: CHANGELOG.md, written
// for traders, embedded into every binary and parsed once at start.
package changelog

import (
	_ "embed"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// File is the changelog as written in the repository.
//
//go:embed CHANGELOG.md
var File []byte

// Entry is one version's changes.
type Entry struct {
	Version string   `json:"version"`
	Date    string   `json:"date"` // YYYY-MM-DD
	Changes []string `json:"changes"`
}

// heading is a version's line: "## 1.2.0 (2026-11-29)".
var heading = regexp.MustCompile(`^## ([0-9]+\.[0-9]+\.[0-9]+) \(([0-9]{4}-[0-9]{2}-[0-9]{2})\)$`)

// maxChange bounds a change's line: a sentence or two, not a page.
const maxChange = 300

// Parse reads a changelog: free text up to the first version heading,
// then versions newest first, each with at least one "- " line. Versions
// are unique and their dates never increase down the file, so the order
// of the file is the order of release.
func Parse(src []byte) ([]Entry, error) {
	var out []Entry
	seen := map[string]bool{}
	for n, line := range strings.Split(string(src), "\n") {
		line = strings.TrimRight(line, " \r")
		bad := func(msg string) error { return fmt.Errorf("changelog line %d: %s", n+1, msg) }
		switch {
		case strings.HasPrefix(line, "## "):
			m := heading.FindStringSubmatch(line)
			if m == nil {
				return nil, bad(`a version heading is "## MAJOR.MINOR.PATCH (YYYY-MM-DD)"`)
			}
			if _, err := time.Parse(time.DateOnly, m[2]); err != nil {
				return nil, bad("not a date: " + m[2])
			}
			if seen[m[1]] {
				return nil, bad("version " + m[1] + " again")
			}
			if len(out) > 0 {
				if prev := out[len(out)-1]; len(prev.Changes) == 0 {
					return nil, bad("version " + prev.Version + " lists no change")
				} else if m[2] > prev.Date {
					return nil, bad("version " + m[1] + " is dated after the newer " + prev.Version)
				}
			}
			seen[m[1]] = true
			out = append(out, Entry{Version: m[1], Date: m[2]})
		case len(out) == 0 || line == "":
			// The introduction, and blank lines.
		case strings.HasPrefix(line, "- "):
			text := strings.TrimSpace(line[2:])
			if text == "" || len(text) > maxChange {
				return nil, bad(fmt.Sprintf("a change is 1 to %d characters", maxChange))
			}
			last := &out[len(out)-1]
			last.Changes = append(last.Changes, text)
		default:
			return nil, bad(`under a version, each change starts with "- "`)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("changelog: no version")
	}
	if last := out[len(out)-1]; len(last.Changes) == 0 {
		return nil, errors.New("changelog: version " + last.Version + " lists no change")
	}
	return out, nil
}

// Unread is how many of entries (newest first) are newer than the version
// read ("" or a version no longer listed: all of them).
func Unread(entries []Entry, read string) int {
	for i, e := range entries {
		if e.Version == read {
			return i
		}
	}
	return len(entries)
}
