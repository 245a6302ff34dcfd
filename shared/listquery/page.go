package listquery

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
)

// Page sizes of the journal's lists (positions, ledger entries).
const (
	DefaultPageSize = 50
	MaxPageSize     = 200
)

// ParseLimit reads a journal list's limit parameter (paging.Limit with
// DefaultPageSize and MaxPageSize).
func ParseLimit(s string) (int, error) { return Limit(s, DefaultPageSize, MaxPageSize) }

// Cursor is the keyset position after the last item of a page: a time
// (nil for the NULLs a list sorts first, such as a draft position's
// opened_at) and the item's id.
type Cursor struct {
	At *time.Time
	ID string
}

// Encode makes the opaque cursor a client passes back: base64url of
// "<unix micros>.<id>", or "-.<id>" for a NULL time.
func (c Cursor) Encode() string {
	at := "-"
	if c.At != nil {
		at = strconv.FormatInt(c.At.UnixMicro(), 10)
	}
	return base64.RawURLEncoding.EncodeToString([]byte(at + "." + c.ID))
}

// ErrCursor is the answer to a cursor that is not one of ours. Unlike the
// admin list (whose spec says an invalid cursor means the first page), the
// journal's lists refuse it: silently restarting would make an infinite
// scroll repeat itself.
var ErrCursor = apperr.Invalid("cursor", "is not a cursor from this list; omit it for the first page")

// ParseCursor reads a cursor parameter: "" is the first page (nil), a
// malformed one is ErrCursor.
func ParseCursor(s string) (*Cursor, error) {
	if s == "" {
		return nil, nil
	}
	if len(s) > 128 {
		return nil, ErrCursor
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, ErrCursor
	}
	at, id, ok := strings.Cut(string(raw), ".")
	if !ok || !db.ValidUUID(id) {
		return nil, ErrCursor
	}
	c := &Cursor{ID: id}
	if at != "-" {
		us, err := strconv.ParseInt(at, 10, 64)
		if err != nil || us < -1e17 || us > 1e17 || strconv.FormatInt(us, 10) != at {
			return nil, ErrCursor
		}
		t := time.UnixMicro(us).UTC()
		c.At = &t
	}
	return c, nil
}

// maxKeysCursor bounds a keys cursor: room for a tag's or a brokerage's
// name (at most 100 characters of up to 4 bytes) with its other keys.
const maxKeysCursor = 1024

// EncodeKeys makes the opaque cursor of a list sorted on several keys that
// are not one time (a tag's category and name, then its id): base64url of
// the JSON array of the keys, the item's id last.
func EncodeKeys(keys ...string) string {
	raw, _ := json.Marshal(keys) // a []string always marshals
	return base64.RawURLEncoding.EncodeToString(raw)
}

// ParseKeys reads a cursor made by EncodeKeys with n keys: "" is the first
// page (nil); one that does not decode, has another number of keys or does
// not end in an id is ErrCursor.
func ParseKeys(s string, n int) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	if len(s) > maxKeysCursor {
		return nil, ErrCursor
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, ErrCursor
	}
	var keys []string
	if err := json.Unmarshal(raw, &keys); err != nil || len(keys) != n || !db.ValidUUID(keys[n-1]) {
		return nil, ErrCursor
	}
	for _, k := range keys {
		if !utf8.ValidString(k) || strings.ContainsRune(k, 0) {
			return nil, ErrCursor
		}
	}
	return keys, nil
}
