package listquery

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/journal"
)

// Sort is an order of the positions list (GET /api/positions?sort=): one
// column, its direction, and the id that breaks its ties in the same
// direction. A position without the value (a draft has no open time, an
// open position no close, one without a stop no R) comes last either way,
// as in the app's other sortable tables: sorted best first, a trader sees
// figures, not dashes. The default, newest opened first, keeps drafts on
// top as it always has: they are the trades being planned now.
type Sort struct {
	Name       string // the parameter's value: "-netPnl"
	Column     string // SQL over positions p: "p.net_pnl"
	Key        string // SQL of the column's value as the cursor's text
	Desc       bool
	NullsFirst bool // the positions without the value come first (nullable columns only)
	Nullable   bool
	// Type is the cursor key's SQL type, and valid checks a cursor's key
	// before PostgreSQL reads it.
	Type  string
	valid func(string) bool
}

// DefaultSort is the list's order without a sort parameter.
const DefaultSort = "-openedAt"

func validTime(s string) bool {
	t, err := time.Parse(time.RFC3339Nano, s)
	return err == nil && journal.InDatabaseRange(t)
}

func validDecimal(s string) bool {
	_, err := decimal.NewFromString(s)
	return err == nil && len(s) <= 40
}

func validSymbol(s string) bool { return s != "" && len(s) <= 32 && utf8.ValidString(s) }

// sortColumns are the columns the list sorts on, by the name the sort
// parameter gives (without its "-" for descending).
var sortColumns = map[string]Sort{
	"openedAt":  timeSort("p.opened_at"),
	"closedAt":  timeSort("p.closed_at"),
	"symbol":    {Column: "p.symbol", Key: "p.symbol", Type: "text", valid: validSymbol},
	"netPnl":    {Column: "p.net_pnl", Key: "p.net_pnl::text", Type: "numeric", valid: validDecimal},
	"rMultiple": {Column: "p.r_multiple", Key: "p.r_multiple::text", Nullable: true, Type: "numeric", valid: validDecimal},
}

// timeSort sorts on a nullable timestamptz column; its cursor text is
// RFC 3339 in UTC to the microsecond, whatever the session's zone.
func timeSort(column string) Sort {
	return Sort{Column: column, Key: `to_char(` + column + ` AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
		Nullable: true, Type: "timestamptz", valid: validTime}
}

// ParseSort reads the positions list's sort parameter: a column (openedAt,
// closedAt, symbol, netPnl, rMultiple), ascending, or descending with a
// leading "-". Empty is DefaultSort; anything else is a VALIDATION_ERROR
// naming sort.
func ParseSort(v string) (Sort, error) {
	if v == "" {
		v = DefaultSort
	}
	s, ok := sortColumns[strings.TrimPrefix(v, "-")]
	if !ok {
		return Sort{}, apperr.Invalid("sort", "must be openedAt, closedAt, symbol, netPnl or rMultiple, with a leading - for descending")
	}
	s.Name, s.Desc = v, strings.HasPrefix(v, "-")
	s.NullsFirst = s.Nullable && v == DefaultSort
	return s, nil
}

// SortCursor is the keyset position after a page's last item in a Sort:
// that item's value of the sorted column (nil: it has none) and its id.
type SortCursor struct {
	Value *string
	ID    string
}

// Encode makes the opaque cursor: the sort's name, the value ("" for
// none: no sorted column is ever empty text) and the id, so that a cursor
// of another order is refused rather than misread.
func (s Sort) Encode(c SortCursor) string {
	v := ""
	if c.Value != nil {
		v = *c.Value
	}
	return EncodeKeys(s.Name, v, c.ID)
}

// ParseCursor reads a cursor made by Encode under the same sort: "" is the
// first page (nil), any other is ErrCursor.
func (s Sort) ParseCursor(raw string) (*SortCursor, error) {
	keys, err := ParseKeys(raw, 3)
	if err != nil || keys == nil {
		return nil, err
	}
	c := &SortCursor{ID: keys[2]}
	switch v := keys[1]; {
	case keys[0] != s.Name:
		return nil, ErrCursor
	case v == "":
		if !s.Nullable {
			return nil, ErrCursor
		}
	case !s.valid(v):
		return nil, ErrCursor
	default:
		c.Value = &v
	}
	return c, nil
}
