package expenses

import (
	"slices"
	"testing"
	"time"
)

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

func days(ts []time.Time) []string {
	out := []string{}
	for _, t := range ts {
		out = append(out, t.Format(time.DateOnly))
	}
	return out
}

func TestScheduleDue(t *testing.T) {
	end := day("2024-05-30")
	for _, tc := range []struct {
		name     string
		s        Schedule
		from, to string
		want     []string
		wantNext string // "" none
	}{
		{"OneOff", Schedule{Start: day("2024-01-15"), Recurrence: RecurNone}, "2024-01-15", "2024-12-31", []string{"2024-01-15"}, ""},
		{"OneOffInTheFuture", Schedule{Start: day("2025-01-15"), Recurrence: RecurNone}, "2025-01-15", "2024-12-31", []string{}, "2025-01-15"},
		{"MonthlyFrom31stLeapYear", Schedule{Start: day("2024-01-31"), Recurrence: RecurMonthly}, "2024-01-31", "2024-04-30",
			[]string{"2024-01-31", "2024-02-29", "2024-03-31", "2024-04-30"}, "2024-05-31"},
		{"MonthlyFrom31st", Schedule{Start: day("2023-01-31"), Recurrence: RecurMonthly}, "2023-01-31", "2023-03-31",
			[]string{"2023-01-31", "2023-02-28", "2023-03-31"}, "2023-04-30"},
		{"MonthlyFromTheMiddle", Schedule{Start: day("2023-11-30"), Recurrence: RecurMonthly}, "2024-02-01", "2024-03-30",
			[]string{"2024-02-29", "2024-03-30"}, "2024-04-30"},
		{"MonthlyEnded", Schedule{Start: day("2024-01-31"), Recurrence: RecurMonthly, End: &end}, "2024-01-31", "2024-12-31",
			[]string{"2024-01-31", "2024-02-29", "2024-03-31", "2024-04-30"}, ""},
		{"YearlyLeapDay", Schedule{Start: day("2024-02-29"), Recurrence: RecurYearly}, "2024-02-29", "2028-03-01",
			[]string{"2024-02-29", "2025-02-28", "2026-02-28", "2027-02-28", "2028-02-29"}, "2029-02-28"},
		{"YearlyFromNext", Schedule{Start: day("2020-06-10"), Recurrence: RecurYearly}, "2023-06-10", "2023-06-10",
			[]string{"2023-06-10"}, "2024-06-10"},
		{"NotDueYet", Schedule{Start: day("2024-01-31"), Recurrence: RecurMonthly}, "2024-03-31", "2024-03-30", []string{}, "2024-03-31"},
		{"LastDay", Schedule{Start: day("2199-12-31"), Recurrence: RecurMonthly}, "2199-12-31", "2199-12-31", []string{"2199-12-31"}, "2200-01-31"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, next := tc.s.Due(day(tc.from), day(tc.to))
			if !slices.Equal(days(got), tc.want) {
				t.Errorf("dates %v, want %v", days(got), tc.want)
			}
			gotNext := ""
			if next != nil {
				gotNext = next.Format(time.DateOnly)
			}
			if gotNext != tc.wantNext {
				t.Errorf("next %q, want %q", gotNext, tc.wantNext)
			}
		})
	}
}
