package expenses

import "time"

// Recurrences of an expense.
const (
	RecurNone    = "none"    // one charge, on the start date
	RecurMonthly = "monthly" // every month on the start date's day
	RecurYearly  = "yearly"  // every year on the start date's month and day
)

// Recurrences lists them in the order the API documents them.
var Recurrences = []string{RecurNone, RecurMonthly, RecurYearly}

// Schedule is when an expense charges: from Start, by Recurrence, until End
// (inclusive; nil: with no end). Dates are calendar days at midnight UTC.
type Schedule struct {
	Start      time.Time
	Recurrence string
	End        *time.Time
}

// nth is the k-th charge date (k from 0) of s, whether or not it is past
// End. A monthly charge falls on the start date's day, or on the last day
// of a shorter month, and each is counted from the start date itself, so
// an expense started on the 31st charges on Feb 28 (29) and on Mar 31
// again; a yearly one started on Feb 29 charges on Feb 28 in other years.
func (s Schedule) nth(k int) time.Time {
	y, m, d := s.Start.Date()
	switch s.Recurrence {
	case RecurMonthly:
		m += time.Month(k)
	case RecurYearly:
		y += k
	}
	first := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC) // normalises the month
	last := first.AddDate(0, 1, -1).Day()
	return first.AddDate(0, 0, min(d, last)-1)
}

// firstIndex is an index k whose charge date is not after from (0 when from
// is before the start): where a walk to from begins without walking every
// period since the start.
func (s Schedule) firstIndex(from time.Time) int {
	if !from.After(s.Start) {
		return 0
	}
	var k int
	switch s.Recurrence {
	case RecurMonthly:
		k = (from.Year()-s.Start.Year())*12 + int(from.Month()-s.Start.Month()) - 1
	case RecurYearly:
		k = from.Year() - s.Start.Year() - 1
	}
	return max(k, 0)
}

// Due returns the charge dates of s from from through through (both
// inclusive), and the first charge date after through (nil when none is
// left: a one-off charged, or the end reached).
func (s Schedule) Due(from, through time.Time) (dates []time.Time, next *time.Time) {
	for k := s.firstIndex(from); ; k++ {
		if k > 0 && s.Recurrence == RecurNone {
			return dates, nil
		}
		d := s.nth(k)
		if s.End != nil && d.After(*s.End) {
			return dates, nil
		}
		if d.Before(from) {
			continue
		}
		if d.After(through) {
			return dates, &d
		}
		dates = append(dates, d)
	}
}
