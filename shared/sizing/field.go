package sizing

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Field is a decimal field of the request body as it arrived: absent (or
// null), a JSON string, or some other JSON value. It exists so that a JSON
// number in place of a string is a VALIDATION_ERROR naming the field, reported
// by Validate together with every other bad field, instead of a decode error
// that stops at the first one. Its zero value is an absent field.
type Field struct {
	raw  string // the string's text, or the raw JSON of a non-string value
	kind fieldKind
}

type fieldKind uint8

const (
	fieldAbsent fieldKind = iota
	fieldString
	fieldNotString
)

// NewField returns a field that arrived as the JSON string s.
func NewField(s string) Field { return Field{raw: s, kind: fieldString} }

// UnmarshalJSON records what the body held. It never fails, so one bad field
// cannot hide the others.
func (f *Field) UnmarshalJSON(data []byte) error {
	switch {
	case bytes.Equal(data, []byte("null")):
		*f = Field{}
	case len(data) >= 2 && data[0] == '"' && data[len(data)-1] == '"':
		if bytes.IndexByte(data, '\\') < 0 {
			// The decoder has checked the syntax: without escapes the text
			// between the quotes is the string.
			*f = Field{raw: string(data[1 : len(data)-1]), kind: fieldString}
			return nil
		}
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			*f = Field{raw: string(data), kind: fieldNotString}
			return nil
		}
		*f = Field{raw: s, kind: fieldString}
	default:
		*f = Field{raw: string(data), kind: fieldNotString}
	}
	return nil
}

// MarshalJSON writes the field back as it arrived (absent as null), so an
// Input survives a round trip through JSON.
func (f Field) MarshalJSON() ([]byte, error) {
	switch f.kind {
	case fieldString:
		return json.Marshal(f.raw)
	case fieldNotString:
		if json.Valid([]byte(f.raw)) {
			return []byte(f.raw), nil
		}
	}
	return []byte("null"), nil
}

// IsZero reports an absent field, for the omitzero tag.
func (f Field) IsZero() bool { return f.kind == fieldAbsent }

// blank reports a field that counts as absent: missing, null, or a string
// that is empty or only whitespace (what an emptied form input sends).
func (f Field) blank() bool {
	return f.kind == fieldAbsent || (f.kind == fieldString && strings.TrimSpace(f.raw) == "")
}
