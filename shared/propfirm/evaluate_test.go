package propfirm

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// closed is a position opened an hour before its close at closedAt.
func closed(id, closedAt, net string) Trade {
	c := at(closedAt)
	return Trade{PositionID: id, Entries: []time.Time{c.Add(-time.Hour)}, ClosedAt: &c, Quantity: d("1"), Net: d(net)}
}

func withExcursions(t Trade, mae, mfe string) Trade {
	if mae != "" {
		t.MAE = ptr(d(mae))
	}
	if mfe != "" {
		t.MFE = ptr(d(mfe))
	}
	return t
}

func evaluate(t *testing.T, plan Plan, trades []Trade, now string) Status {
	t.Helper()
	s, err := Evaluate(plan, trades, at(now))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func eq(t *testing.T, what string, got decimal.Decimal, want string) {
	t.Helper()
	if !got.Equal(d(want)) {
		t.Errorf("%s = %s, want %s", what, got, want)
	}
}

func template(t *testing.T, id, label string) Plan {
	t.Helper()
	for _, tp := range Templates() {
		for _, s := range tp.Sizes {
			if tp.ID == id && s.Label == label {
				return s.Plan
			}
		}
	}
	t.Fatalf("no template %s %s", id, label)
	return Plan{}
}

// The futures combine's 50K: a $2,000 maximum loss trailing the end-of-day
// balance, locking at $50,000. Days close at 15:00 Chicago (20:00 or 21:00
// UTC), inside one trading day.
func TestTrailingEndOfDay(t *testing.T) {
	plan := template(t, "futures-combine", "50000")
	t.Run("TrailsAndBreaks", func(t *testing.T) {
		// The published walk-through: +800, +600, -500, -900, -1,450 on
		// five days. Floors: 48,000, then 48,800 after day 1, 49,400 after
		// day 2, kept through the losses; day 5 ends at 48,550, below it.
		s := evaluate(t, plan, []Trade{
			closed("d1", "2026-04-06T20:00:00Z", "800"),
			closed("d2", "2026-04-07T20:00:00Z", "600"),
			closed("d3", "2026-04-08T20:00:00Z", "-500"),
			closed("d4", "2026-04-09T20:00:00Z", "-900"),
			closed("d5", "2026-04-10T20:00:00Z", "-1450"),
		}, "2026-04-13T15:00:00Z")
		if s.Result != Failed || s.Breach == nil || s.Breach.Rule != RuleMaxDrawdown || s.Breach.PositionID != "d5" || s.Breach.Date != "2026-04-10" {
			t.Fatalf("result %s, breach %+v", s.Result, s.Breach)
		}
		wantFloors := []string{"48000", "48800", "49400", "49400", "49400"}
		for i, day := range s.Days {
			eq(t, day.Date+" floor", *day.DrawdownFloor, wantFloors[i])
		}
		// Day 5 lost 1,450 from 50,000: past the 1,000 daily limit too, a
		// pause that does not fail the account on its own.
		if len(s.Violations) != 2 || s.Violations[1].Rule != RuleDailyLoss || s.Violations[1].Fails {
			t.Errorf("violations %+v", s.Violations)
		}
		eq(t, "balance", s.Balance, "48550")
		eq(t, "distance", s.MaxDrawdown.Distance, "-850")
	})
	t.Run("Locks", func(t *testing.T) {
		// 51,500 trails the floor to 49,500; 52,500 would trail it to
		// 50,500 but it locks at 50,000; losses down to 50,500 keep it 500 above.
		// (Funded: the 3,000 on day 3 would pass the evaluation.)
		funded := plan
		funded.Phase, funded.ProfitTarget = Funded, nil
		s := evaluate(t, funded, []Trade{
			closed("a", "2026-04-06T20:00:00Z", "1500"),
			closed("b", "2026-04-07T20:00:00Z", "1000"),
			closed("c", "2026-04-08T20:00:00Z", "500"),
			closed("d", "2026-04-09T20:00:00Z", "-900"),
			closed("e", "2026-04-10T20:00:00Z", "-900"),
			closed("f", "2026-04-13T20:00:00Z", "-700"),
		}, "2026-04-14T15:00:00Z")
		if s.Result != InProgress || s.Breach != nil {
			t.Fatalf("result %s, breach %+v", s.Result, s.Breach)
		}
		eq(t, "floor", s.MaxDrawdown.Floor, "50000")
		eq(t, "distance", s.MaxDrawdown.Distance, "500")
		eq(t, "distance %", s.MaxDrawdown.DistancePercent, "25")
		if !s.MaxDrawdown.Locked {
			t.Error("the floor is not reported locked")
		}
	})
	t.Run("TodayDoesNotTrailYet", func(t *testing.T) {
		// The day is not over: its close moves the floor tomorrow.
		s := evaluate(t, plan, []Trade{closed("a", "2026-04-06T20:00:00Z", "1500")}, "2026-04-06T21:00:00Z")
		eq(t, "floor", s.MaxDrawdown.Floor, "48000")
		s = evaluate(t, plan, []Trade{closed("a", "2026-04-06T20:00:00Z", "1500")}, "2026-04-06T22:30:00Z") // 17:30 CDT
		eq(t, "floor", s.MaxDrawdown.Floor, "49500")
	})
}

// The intraday threshold's 50K: $2,500 trailing every known equity high,
// stopping at $50,100.
func TestTrailingIntradayWithOpenProfit(t *testing.T) {
	plan := template(t, "intraday-threshold", "50000")
	t.Run("OpenProfitRaisesTheFloor", func(t *testing.T) {
		// Up 2,000 open (a recorded MFE: equity 52,000), closed at +200: the
		// floor is 52,000 - 2,500 = 49,500, the balance 50,200, 700 above
		// it. Without the MFE it would be 47,700.
		s := evaluate(t, plan, []Trade{withExcursions(closed("a", "2026-04-06T15:00:00Z", "200"), "", "2000")}, "2026-04-06T16:00:00Z")
		eq(t, "floor", s.MaxDrawdown.Floor, "49500")
		eq(t, "distance", s.MaxDrawdown.Distance, "700")
		eq(t, "high-water mark", s.HighWaterMark, "52000")
		s = evaluate(t, plan, []Trade{closed("a", "2026-04-06T15:00:00Z", "200")}, "2026-04-06T16:00:00Z")
		eq(t, "floor without MFE", s.MaxDrawdown.Floor, "47700")
	})
	t.Run("RecordedDipBreaks", func(t *testing.T) {
		// Then a position that dipped 800 (MAE) from 50,200: 49,400, below
		// 49,500, though it closed at -100.
		s := evaluate(t, plan, []Trade{
			withExcursions(closed("a", "2026-04-06T15:00:00Z", "200"), "", "2000"),
			withExcursions(closed("b", "2026-04-06T17:00:00Z", "-100"), "-800", ""),
		}, "2026-04-06T18:00:00Z")
		if s.Result != Failed || s.Breach.PositionID != "b" || s.Breach.Rule != RuleMaxDrawdown {
			t.Fatalf("result %s, breach %+v", s.Result, s.Breach)
		}
	})
	t.Run("Locks", func(t *testing.T) {
		// A peak of 53,000 would put the floor at 50,500: it stops at 50,100.
		s := evaluate(t, plan, []Trade{withExcursions(closed("a", "2026-04-06T15:00:00Z", "2900"), "", "3000")}, "2026-04-06T16:00:00Z")
		eq(t, "floor", s.MaxDrawdown.Floor, "50100")
		if !s.MaxDrawdown.Locked {
			t.Error("not locked")
		}
	})
}

// A $1,000 daily limit resetting at 17:00 New York. US summer time began
// on Sunday 8 March 2026: 17:00 was 22:00 UTC on Thursday the 5th and is
// 21:00 UTC on Monday the 9th.
func TestDailyLossResetAtFiveNewYorkAcrossDST(t *testing.T) {
	plan := Plan{Phase: Funded, StartingBalance: d("50000"), Timezone: "America/New_York", DayStart: "17:00",
		DailyLoss: &DailyLoss{Amount: d("1000"), Basis: ByBalance}, WarnAtPercent: 80}
	s := evaluate(t, plan, []Trade{
		closed("thu", "2026-03-05T21:30:00Z", "-100"),  // 16:30 EST: Thursday's day
		closed("mon1", "2026-03-09T20:30:00Z", "-700"), // 16:30 EDT: Monday's day, 49,900 -> 49,200
		closed("mon2", "2026-03-09T21:30:00Z", "-700"), // 17:30 EDT: Tuesday's day, from 49,200 -> 48,500
		closed("tue", "2026-03-10T20:00:00Z", "-400"),  // 16:00 EDT: Tuesday's, 48,100, below 48,200
	}, "2026-03-10T20:30:00Z")
	wantDates := []string{"2026-03-05", "2026-03-09", "2026-03-10"}
	wantFloors := []string{"49000", "48900", "48200"}
	if len(s.Days) != 3 {
		t.Fatalf("days %+v", s.Days)
	}
	for i, day := range s.Days {
		if day.Date != wantDates[i] {
			t.Errorf("day %d is %s, want %s", i, day.Date, wantDates[i])
		}
		eq(t, day.Date+" daily floor", *day.DailyLossFloor, wantFloors[i])
	}
	if s.Result != Failed || s.Breach.Rule != RuleDailyLoss || s.Breach.PositionID != "tue" || s.Breach.Date != "2026-03-10" {
		t.Fatalf("result %s, breach %+v", s.Result, s.Breach)
	}
	// Today (Tuesday) started at 49,200: used 1,100 of 1,000.
	eq(t, "used", s.DailyLoss.Used, "1100")
	eq(t, "used %", s.DailyLoss.UsedPercent, "110")
	if !s.DailyLoss.Warn {
		t.Error("no warning")
	}
}

func TestDailyLossWarning(t *testing.T) {
	plan := Plan{Phase: Funded, StartingBalance: d("10000"), Timezone: "America/New_York", DayStart: "17:00",
		DailyLoss: &DailyLoss{Amount: d("500"), Basis: ByBalance}, WarnAtPercent: 80}
	for _, tc := range []struct {
		net       string
		warn      bool
		distance  string
		distanceP string
	}{{"-399", false, "101", "20.2"}, {"-400", true, "100", "20"}} {
		s := evaluate(t, plan, []Trade{closed("a", "2026-04-06T15:00:00Z", tc.net)}, "2026-04-06T16:00:00Z")
		if s.DailyLoss.Warn != tc.warn {
			t.Errorf("%s: warn %v", tc.net, s.DailyLoss.Warn)
		}
		eq(t, "distance", s.DailyLoss.Distance, tc.distance)
		eq(t, "distance %", s.DailyLoss.DistancePercent, tc.distanceP)
	}
	// The next trading day starts afresh.
	s := evaluate(t, plan, []Trade{closed("a", "2026-04-06T15:00:00Z", "-400")}, "2026-04-06T22:00:00Z")
	if s.DailyLoss.Warn || !s.DailyLoss.Used.IsZero() {
		t.Errorf("after the reset: %+v", s.DailyLoss)
	}
}

// The two-step's 100K phase 1: 10% target, 5% daily (equity) and 10%
// static maximum loss, 4 days; the day turns at midnight in Prague.
func TestStaticDrawdownAndEquityDailyLoss(t *testing.T) {
	plan := template(t, "two-step-phase-1", "100000")
	t.Run("FloorStays", func(t *testing.T) {
		s := evaluate(t, plan, []Trade{closed("a", "2026-04-06T12:00:00Z", "6000")}, "2026-04-07T12:00:00Z")
		eq(t, "floor", s.MaxDrawdown.Floor, "90000")
		eq(t, "distance", s.MaxDrawdown.Distance, "16000")
	})
	t.Run("RecordedDipBreaksTheDay", func(t *testing.T) {
		// From 106,000 the day's floor is 101,000; a dip to 100,500 (MAE
		// -5,500) breaks it though the position closed at -3,000.
		s := evaluate(t, plan, []Trade{
			closed("a", "2026-04-06T12:00:00Z", "6000"),
			withExcursions(closed("b", "2026-04-07T12:00:00Z", "-3000"), "-5500", ""),
		}, "2026-04-07T13:00:00Z")
		if s.Result != Failed || s.Breach.Rule != RuleDailyLoss || s.Breach.PositionID != "b" {
			t.Fatalf("result %s, breach %+v", s.Result, s.Breach)
		}
		eq(t, "day low", s.Days[1].Low, "100500")
	})
	t.Run("PassesOnTheFourthDay", func(t *testing.T) {
		s := evaluate(t, plan, []Trade{
			closed("a", "2026-04-06T12:00:00Z", "3000"),
			closed("b", "2026-04-07T12:00:00Z", "3000"),
			closed("c", "2026-04-08T12:00:00Z", "4100"), // 10,100: the target, on day 3 of 4
			closed("d", "2026-04-09T12:00:00Z", "50"),
		}, "2026-04-10T12:00:00Z")
		if s.Result != Passed || *s.PassedOn != "2026-04-09" {
			t.Fatalf("result %s on %v", s.Result, s.PassedOn)
		}
		if !s.ProfitTarget.Reached || s.TradingDays.Count != 4 {
			t.Errorf("target %+v, days %+v", s.ProfitTarget, s.TradingDays)
		}
	})
}

func TestConsistency(t *testing.T) {
	plan := template(t, "futures-combine", "50000") // 3,000 target, best day at most 50%
	trades := []Trade{
		closed("a", "2026-04-06T15:00:00Z", "2500"),
		closed("b", "2026-04-07T15:00:00Z", "600"),
	}
	// 3,100 of profit, 2,500 of it on one day: 80.65%.
	s := evaluate(t, plan, trades, "2026-04-08T15:00:00Z")
	if s.Result != InProgress || s.Consistency.Met {
		t.Fatalf("result %s, consistency %+v", s.Result, s.Consistency)
	}
	eq(t, "percent", *s.Consistency.Percent, "80.65")
	if *s.Consistency.BestDay != "2026-04-06" {
		t.Errorf("best day %s", *s.Consistency.BestDay)
	}
	// A third day of 2,000: 5,100, the best day 49.02%.
	s = evaluate(t, plan, append(trades, closed("c", "2026-04-08T15:00:00Z", "2000")), "2026-04-09T15:00:00Z")
	if s.Result != Passed || *s.PassedOn != "2026-04-08" || !s.Consistency.Met {
		t.Fatalf("result %s on %v, consistency %+v", s.Result, s.PassedOn, s.Consistency)
	}
	eq(t, "percent", *s.Consistency.Percent, "49.02")
}

func TestMinimumTradingDays(t *testing.T) {
	plan := template(t, "intraday-threshold", "50000") // 3,000 target, 7 days
	var trades []Trade
	trades = append(trades, closed("big", "2026-04-06T15:00:00Z", "3200"))
	s := evaluate(t, plan, trades, "2026-04-07T15:00:00Z")
	if s.Result != InProgress || s.TradingDays.Count != 1 || s.TradingDays.Met {
		t.Fatalf("result %s, days %+v", s.Result, s.TradingDays)
	}
	// Six more days with a small trade each; a day with two positions
	// counts once.
	for i, day := range []string{"07", "08", "09", "10", "13", "14"} {
		trades = append(trades, closed(string(rune('a'+i)), "2026-04-"+day+"T15:00:00Z", "10"))
	}
	trades = append(trades, closed("again", "2026-04-14T16:00:00Z", "10"))
	s = evaluate(t, plan, trades, "2026-04-15T15:00:00Z")
	if s.Result != Passed || *s.PassedOn != "2026-04-14" || s.TradingDays.Count != 7 {
		t.Fatalf("result %s on %v, days %+v", s.Result, s.PassedOn, s.TradingDays)
	}
}

func TestMaxContracts(t *testing.T) {
	plan := Plan{Phase: Funded, StartingBalance: d("50000"), Timezone: "America/New_York", DayStart: "17:00", MaxContracts: ptr(d("5"))}
	three := func(id, open, close string) Trade {
		o, c := at(open), at(close)
		return Trade{PositionID: id, Entries: []time.Time{o}, ClosedAt: &c, Quantity: d("3")}
	}
	// One after the other (the second opens as the first closes): 3 at most.
	s := evaluate(t, plan, []Trade{three("a", "2026-04-06T14:00:00Z", "2026-04-06T15:00:00Z"), three("b", "2026-04-06T15:00:00Z", "2026-04-06T16:00:00Z")}, "2026-04-07T12:00:00Z")
	if s.Breach != nil {
		t.Fatalf("breach %+v", s.Breach)
	}
	eq(t, "largest", s.MaxContracts.Largest, "3")
	// Overlapping: 6 open when b opens.
	s = evaluate(t, plan, []Trade{three("a", "2026-04-06T14:00:00Z", "2026-04-06T15:00:00Z"), three("b", "2026-04-06T14:30:00Z", "2026-04-06T16:00:00Z")}, "2026-04-07T12:00:00Z")
	if s.Result != Failed || s.Breach.Rule != RuleMaxContracts || s.Breach.PositionID != "b" {
		t.Fatalf("result %s, breach %+v", s.Result, s.Breach)
	}
	eq(t, "largest", s.MaxContracts.Largest, "6")
}

func TestAllowedHoursAndWeekends(t *testing.T) {
	plan := Plan{Phase: Funded, StartingBalance: d("50000"), Timezone: "America/New_York", DayStart: "17:00",
		AllowedHours: &Hours{From: "09:30", To: "16:00", Weekdays: []int{1, 2, 3, 4, 5}}, NoWeekendHolding: true}
	inside := closed("in", "2026-04-06T15:00:00Z", "10")   // opened 10:00 EDT Monday
	early := closed("early", "2026-04-06T13:00:00Z", "10") // opened 08:00 EDT
	fri, mon := at("2026-04-10T15:00:00Z"), at("2026-04-13T15:00:00Z")
	weekend := Trade{PositionID: "weekend", Entries: []time.Time{fri}, ClosedAt: &mon, Quantity: d("1")}
	s := evaluate(t, plan, []Trade{inside, early, weekend}, "2026-04-14T12:00:00Z")
	if len(s.Violations) != 2 || s.Violations[0].PositionID != "early" || s.Violations[1].Rule != RuleWeekendHolding {
		t.Fatalf("violations %+v", s.Violations)
	}
	// A window across midnight: 18:00 to 16:00.
	h := Hours{From: "18:00", To: "16:00", Weekdays: []int{1, 2, 3, 4, 5, 7}}
	for clock, want := range map[string]bool{"19:00": true, "03:00": true, "16:30": false} {
		l := at("2026-04-06T00:00:00Z").In(time.UTC)
		hm, _ := time.Parse("15:04", clock)
		l = time.Date(l.Year(), l.Month(), l.Day(), hm.Hour(), hm.Minute(), 0, 0, time.UTC)
		if h.allows(l) != want {
			t.Errorf("%s allowed %v", clock, !want)
		}
	}
}

// TestFailingClearsPassing: an evaluation whose target is met on the day
// an entry broke the hours (or the contracts) fails and never passed; a
// breach after the day it passed leaves it passed.
func TestFailingClearsPassing(t *testing.T) {
	plan := Plan{Phase: Evaluation, StartingBalance: d("50000"), Timezone: "America/New_York", DayStart: "17:00",
		ProfitTarget: ptr(d("500")), MaxContracts: ptr(d("5")),
		AllowedHours: &Hours{From: "09:30", To: "16:00", Weekdays: []int{1, 2, 3, 4, 5}}}
	// Monday 2026-04-06: opened 08:00 EDT (outside the hours), closed +600:
	// 50,600, the target met.
	early := closed("early", "2026-04-06T13:00:00Z", "600")
	s := evaluate(t, plan, []Trade{early}, "2026-04-07T12:00:00Z")
	if s.Result != Failed || s.PassedOn != nil || s.Breach == nil || s.Breach.Rule != RuleAllowedHours || s.Breach.Date != "2026-04-06" {
		t.Fatalf("hours: result %s, passed on %v, breach %+v", s.Result, s.PassedOn, s.Breach)
	}
	// Ten contracts at 10:00 EDT, closed +600 at 11:00: the contracts.
	big := closed("big", "2026-04-06T15:00:00Z", "600")
	big.Quantity = d("10")
	s = evaluate(t, plan, []Trade{big}, "2026-04-07T12:00:00Z")
	if s.Result != Failed || s.PassedOn != nil || s.Breach == nil || s.Breach.Rule != RuleMaxContracts {
		t.Fatalf("contracts: result %s, passed on %v, breach %+v", s.Result, s.PassedOn, s.Breach)
	}
	// Passed on Monday (10:00 EDT, +600), the early entry on Tuesday
	// after: passed, the breach reported.
	ok := closed("ok", "2026-04-06T15:00:00Z", "600")
	late := closed("late", "2026-04-07T13:00:00Z", "-10")
	s = evaluate(t, plan, []Trade{ok, late}, "2026-04-08T12:00:00Z")
	if s.Result != Passed || s.PassedOn == nil || *s.PassedOn != "2026-04-06" || s.Breach == nil || s.Breach.Date != "2026-04-07" {
		t.Fatalf("later breach: result %s, passed on %v, breach %+v", s.Result, s.PassedOn, s.Breach)
	}
}
