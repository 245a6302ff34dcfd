package market

import (
	"fmt"
	"time"

	"tradejournal/shared/apperr"
)

// ParseResolution returns the resolution whose code is code ("1" to "W").
func ParseResolution(code string) (Resolution, bool) {
	for _, r := range Resolutions {
		if r.Code == code {
			return r, true
		}
	}
	return Resolution{}, false
}

// finest is the finest of Resolutions that fits, the coarsest (weekly)
// when none does: the one rule of every window's and upload's resolution.
func finest(fits func(Resolution) bool) Resolution {
	for _, r := range Resolutions {
		if fits(r) {
			return r
		}
	}
	return Resolutions[len(Resolutions)-1]
}

// HoldWindow is the window of WindowFor at the resolution res the trader
// chose: a margin of half the hold, at least 20 bars, on each side, the
// ends on whole bars.
func HoldWindow(open, end time.Time, res Resolution) Window {
	pad := max(max(end.Sub(open), 0)/2, 20*res.Step)
	return Window{Resolution: res, From: open.Add(-pad).Truncate(res.Step), To: end.Add(pad + res.Step - 1).Truncate(res.Step)}
}

// barsPerSession is how many bars at most a session window has at the
// resolution chosen for it: two days and more of bars, so coarser than
// the hold's.
const barsPerSession = 4 * barsPerHold

// SessionWindow is the day's context of a trade held from open to end: the
// whole days of the hold in the trader's zone loc and the day before it
// (the prior session's close, when that day traded; the chart reads it in
// the same zone), at res, or without res (nil) at the finest resolution
// showing it in at most barsPerSession bars. A UTC day would cut a trader
// far from UTC's session in two: Los Angeles' evening is the next UTC day.
func SessionWindow(open, end time.Time, res *Resolution, loc *time.Location) Window {
	if end.Before(open) {
		end = open
	}
	from, to := midnight(open, loc).AddDate(0, 0, -1).UTC(), midnight(end, loc).AddDate(0, 0, 1).UTC()
	if res == nil {
		fit := finest(func(r Resolution) bool { return to.Sub(from)/r.Step <= barsPerSession })
		res = &fit
	}
	return Window{Resolution: *res, From: from.Truncate(res.Step), To: to.Add(res.Step - 1).Truncate(res.Step)}
}

// midnight is the start of t's day in loc.
func midnight(t time.Time, loc *time.Location) time.Time {
	y, m, d := t.In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, loc)
}

// Bars is the number of bars w spans.
func (w Window) Bars() int64 { return int64(w.To.Sub(w.From) / w.Resolution.Step) }

// CheckSize refuses a window of more bars than one answer holds (a
// resolution the trader chose too fine for the span): a VALIDATION_ERROR
// of the query's resolution naming the finest that fits.
func (w Window) CheckSize() error {
	if n := w.Bars(); n > maxBars {
		fit := finest(func(r Resolution) bool { return int64(w.To.Sub(w.From)/r.Step) <= maxBars })
		return apperr.Invalid("resolution", fmt.Sprintf("is too fine for this span: %d bars, at most %d; choose %s or coarser", n, maxBars, fit.Code))
	}
	return nil
}
