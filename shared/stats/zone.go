package stats

import (
	"math"
	"time"
)

// tradingDay gives the trading day of a close in one account's zone, as
// days since 1970-01-01 (the calendar date of closed_at there). Inside one
// offset period of the zone the local date is (unix + offset) / 86400, so
// the zone is consulted only when a close leaves the period of the one
// before (closes arrive in time order): far fewer calls than time.In,
// and exact across every transition.
type tradingDay struct {
	loc       *time.Location
	from, to  int64 // the offset period [from, to) in Unix seconds
	offset    int64
	consulted bool
}

// of is the trading day of the instant at (Unix microseconds).
func (z *tradingDay) of(at int64) int64 { return floorDiv(z.local(at), 86400) }

// local is the instant at (Unix microseconds) as local seconds: seconds
// since 1970-01-01 00:00 on the zone's clock.
func (z *tradingDay) local(at int64) int64 {
	s := floorDiv(at, 1e6)
	if !z.consulted || s < z.from || s >= z.to {
		lt := time.Unix(s, 0).In(z.loc)
		_, off := lt.Zone()
		start, end := lt.ZoneBounds()
		z.offset, z.from, z.to, z.consulted = int64(off), math.MinInt64, math.MaxInt64, true
		if !start.IsZero() {
			z.from = start.Unix()
		}
		if !end.IsZero() {
			z.to = end.Unix()
		}
	}
	return s + z.offset
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// dayOf is a date (midnight UTC carrying Y-M-D, as journal.ParseDate gives
// it) as days since 1970-01-01.
func dayOf(d time.Time) int64 { return floorDiv(d.Unix(), 86400) }

// dateOf formats days since 1970-01-01 as YYYY-MM-DD.
func dateOf(day int64) string { return time.Unix(day*86400, 0).UTC().Format(time.DateOnly) }
