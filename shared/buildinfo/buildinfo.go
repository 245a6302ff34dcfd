// Package buildinfo holds the release version stamped into the binary, so the
// health endpoint and the build-info metrics report the same string.
package buildinfo

import "strings"

// Version is stamped at link time:
//
//	-ldflags "-X tradejournal/shared/buildinfo.Version=v0.14.0-abc123"
//
// It is empty in local builds.
var Version string

// unknown marks a local build, so two unknowns on the api and web build-info
// metrics read as "local" rather than as drift.
const unknown = "unknown"

// Labels returns the build-info metric labels for a resolved version: the
// version verbatim (or "unknown" when empty) and the commit, which release
// versions carry after their final "-" ("unknown" when there is none).
func Labels(v string) (version, commit string) {
	if v == "" {
		return unknown, unknown
	}
	i := strings.LastIndex(v, "-")
	if i < 0 || i == len(v)-1 {
		return v, unknown
	}
	return v, v[i+1:]
}
