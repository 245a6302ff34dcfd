package journal

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// TestTotalsOf: a strategy is one trade: draft while no leg has a fill,
// open while one is, closed at its last close once none is (a draft leg
// neither opens it nor keeps it open), opened at its first opening, its
// money its legs' sums.
func TestTotalsOf(t *testing.T) {
	at := func(h int) *time.Time { v := time.Date(2026, 3, 2, h, 0, 0, 0, time.UTC); return &v }
	d := decimal.RequireFromString
	closed := func(open, close int, net string) LegTotals {
		return LegTotals{Status: StatusClosed, OpenedAt: at(open), ClosedAt: at(close), Gross: d(net), Net: d(net)}
	}
	draft := LegTotals{Status: StatusDraft}
	for _, c := range []struct {
		name           string
		legs           []LegTotals
		status         string
		opened, closes *time.Time
		net            string
	}{
		{"none", nil, StatusDraft, nil, nil, "0"},
		{"drafts", []LegTotals{draft, draft}, StatusDraft, nil, nil, "0"},
		{"closed", []LegTotals{closed(10, 12, "50"), closed(9, 15, "-20")}, StatusClosed, at(9), at(15), "30"},
		{"a draft leg does not hold it open", []LegTotals{closed(10, 12, "50"), draft}, StatusClosed, at(10), at(12), "50"},
		{"open", []LegTotals{closed(10, 12, "50"), {Status: StatusOpen, OpenedAt: at(8)}}, StatusOpen, at(8), nil, "50"},
	} {
		got := TotalsOf(c.legs)
		if got.Status != c.status || !timeIs(got.OpenedAt, c.opened) || !timeIs(got.ClosedAt, c.closes) || !got.Net.Equal(d(c.net)) {
			t.Errorf("%s: %+v", c.name, got)
		}
	}
}

func timeIs(a, b *time.Time) bool {
	return a == nil && b == nil || a != nil && b != nil && a.Equal(*b)
}
