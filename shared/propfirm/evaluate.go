package propfirm

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/shopspring/decimal"
)

// Trade is one position of the account as the plan judges it.
type Trade struct {
	PositionID string
	// Entries are the entry fills' times in time order; the first opens
	// the position. A position without one (a draft) is no trade.
	Entries  []time.Time
	ClosedAt *time.Time // nil while open
	// Quantity is the contracts (lots, shares) its entries opened.
	Quantity decimal.Decimal
	// Net is the realized net P&L, fees included, once closed.
	Net decimal.Decimal
	// MAE and MFE are the money at the recorded adverse and favourable
	// excursions (MAE at most 0, MFE at least 0); nil when not recorded.
	MAE, MFE *decimal.Decimal
}

// Result is where the plan stands.
type Result string

// The results.
const (
	Passed     Result = "passed"
	Failed     Result = "failed"
	InProgress Result = "inProgress"
)

// The rules a violation names.
const (
	RuleDailyLoss      = "dailyLoss"
	RuleMaxDrawdown    = "maxDrawdown"
	RuleMaxContracts   = "maxContracts"
	RuleAllowedHours   = "allowedHours"
	RuleWeekendHolding = "noWeekendHolding"
)

// Violation is one broken rule: the firm's trading day and the position
// that broke it.
type Violation struct {
	Rule       string `json:"rule"`
	Date       string `json:"date"`
	PositionID string `json:"positionId"`
	// Fails is false for a daily loss limit that pauses the day only.
	Fails   bool   `json:"fails"`
	Message string `json:"message"`
	at      time.Time
}

// Day is one trading day of the account: its balances, the lowest equity
// the journal knows of, and the floors it traded against (a chart's series).
type Day struct {
	Date         string          `json:"date"`
	StartBalance decimal.Decimal `json:"startBalance"`
	EndBalance   decimal.Decimal `json:"endBalance"`
	PnL          decimal.Decimal `json:"pnl"`
	Low          decimal.Decimal `json:"low"`
	// DrawdownFloor is the maximum drawdown's floor at the day's end
	// (before an end-of-day trail moves it for the next day).
	DrawdownFloor *decimal.Decimal `json:"drawdownFloor"`
	// DailyLossFloor is the day's start balance less the daily limit.
	DailyLossFloor *decimal.Decimal `json:"dailyLossFloor"`
	Opened         int              `json:"opened"`
	Closed         int              `json:"closed"`
}

// Status is the plan's state at a glance.
type Status struct {
	Result Result `json:"result"`
	// PassedOn is the trading day the evaluation's objectives were all
	// met with no failing breach before.
	PassedOn *string `json:"passedOn"`
	// Breach is the first violation that fails the account.
	Breach          *Violation      `json:"breach"`
	Violations      []Violation     `json:"violations"`
	Today           string          `json:"today"`
	StartingBalance decimal.Decimal `json:"startingBalance"`
	Balance         decimal.Decimal `json:"balance"`
	Profit          decimal.Decimal `json:"profit"`
	// HighWaterMark is the highest equity the journal knows of: closes
	// and recorded MFEs.
	HighWaterMark decimal.Decimal `json:"highWaterMark"`
	ProfitTarget  *Target         `json:"profitTarget"`
	DailyLoss     *Limit          `json:"dailyLoss"`
	MaxDrawdown   *Limit          `json:"maxDrawdown"`
	TradingDays   TradingDays     `json:"tradingDays"`
	Consistency   *Consistency    `json:"consistency"`
	MaxContracts  *Contracts      `json:"maxContracts"`
	Days          []Day           `json:"days"`
}

// Target is the distance to the profit target.
type Target struct {
	Amount          decimal.Decimal `json:"amount"`
	Balance         decimal.Decimal `json:"balance"`
	Remaining       decimal.Decimal `json:"remaining"`
	ProgressPercent decimal.Decimal `json:"progressPercent"`
	Reached         bool            `json:"reached"`
}

// Limit is the distance to a loss limit now: the balance over the floor,
// in money and as a percent of the limit; Used is the rest of the limit.
type Limit struct {
	Amount          decimal.Decimal `json:"amount"`
	Floor           decimal.Decimal `json:"floor"`
	Distance        decimal.Decimal `json:"distance"`
	DistancePercent decimal.Decimal `json:"distancePercent"`
	Used            decimal.Decimal `json:"used"`
	UsedPercent     decimal.Decimal `json:"usedPercent"`
	// Locked: a trailing floor reached its lock and trails no more.
	Locked bool `json:"locked"`
	// Warn: the day's loss reached the plan's WarnAtPercent of the daily
	// limit.
	Warn bool `json:"warn"`
}

// TradingDays counts the days a position was opened.
type TradingDays struct {
	Count   int  `json:"count"`
	Minimum int  `json:"minimum"`
	Met     bool `json:"met"`
}

// Consistency is the best day's share of the total profit.
type Consistency struct {
	LimitPercent  decimal.Decimal `json:"limitPercent"`
	BestDay       *string         `json:"bestDay"`
	BestDayProfit decimal.Decimal `json:"bestDayProfit"`
	// Percent is the best day's profit over the total profit; nil while
	// there is no total profit.
	Percent *decimal.Decimal `json:"percent"`
	Met     bool             `json:"met"`
}

// Contracts is the most contracts the account held open at once.
type Contracts struct {
	Limit   decimal.Decimal `json:"limit"`
	Largest decimal.Decimal `json:"largest"`
}

var hundred = decimal.NewFromInt(100)

// calendar dates instants by the firm's trading day.
type calendar struct {
	zone  *time.Location
	shift time.Duration // from the day's start to the next midnight
}

// date is the trading day of t: its wall clock in the zone moved on by
// shift, so that summer time changes nothing (17:00 stays 17:00).
func (c calendar) date(t time.Time) string {
	l := t.In(c.zone)
	wall := time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute(), l.Second(), l.Nanosecond(), time.UTC)
	return wall.Add(c.shift).Format(time.DateOnly)
}

func newCalendar(plan Plan) (calendar, error) {
	zone := loadZone(plan.Timezone)
	start, err := time.Parse("15:04", plan.DayStart)
	if zone == nil || err != nil {
		return calendar{}, fmt.Errorf("propfirm: a plan of zone %q and day start %q was not validated", plan.Timezone, plan.DayStart)
	}
	c := calendar{zone: zone}
	if of := time.Duration(start.Hour())*time.Hour + time.Duration(start.Minute())*time.Minute; of > 0 {
		c.shift = 24*time.Hour - of
	}
	return c, nil
}

// floor is a maximum drawdown's floor as it moves.
type floor struct {
	d     Drawdown
	value decimal.Decimal
}

// raise moves a trailing floor up to high less the amount, no further
// than its lock; it never moves down.
func (f *floor) raise(high decimal.Decimal) {
	c := high.Sub(f.d.Amount)
	if f.d.LockAt != nil && c.GreaterThan(*f.d.LockAt) {
		c = *f.d.LockAt
	}
	f.value = decimal.Max(f.value, c)
}

// Evaluate judges the account's trades against plan at now: every trading
// day in date order, closes in time order. Within one position the
// journal does not know whether its MAE came before its MFE: the MAE is
// judged against the floor before the MFE raised it (the benefit of the
// doubt), the close against the floor after.
func Evaluate(plan Plan, trades []Trade, now time.Time) (Status, error) {
	cal, err := newCalendar(plan)
	if err != nil {
		return Status{}, err
	}
	start := plan.StartingBalance
	today := cal.date(now)
	days := map[string]*Day{}
	dayOf := func(t time.Time) *Day {
		d := cal.date(t)
		if days[d] == nil {
			days[d] = &Day{Date: d}
		}
		return days[d]
	}
	var closes []*Trade
	for i := range trades {
		t := &trades[i]
		if len(t.Entries) == 0 {
			continue
		}
		dayOf(t.Entries[0]).Opened++
		if t.ClosedAt != nil {
			dayOf(*t.ClosedAt).Closed++
			closes = append(closes, t)
		}
	}
	slices.SortFunc(closes, func(a, b *Trade) int {
		return cmp.Or(a.ClosedAt.Compare(*b.ClosedAt), cmp.Compare(a.PositionID, b.PositionID))
	})
	dates := make([]string, 0, len(days))
	for d := range days {
		dates = append(dates, d)
	}
	slices.Sort(dates)

	s := Status{Result: InProgress, Violations: []Violation{}, Today: today, StartingBalance: start, Days: []Day{}}
	var dd *floor
	if plan.MaxDrawdown != nil {
		dd = &floor{d: *plan.MaxDrawdown, value: start.Sub(plan.MaxDrawdown.Amount)}
	}
	add := func(v Violation) { s.Violations = append(s.Violations, v) }
	// The entries' breaches first: a day passes only with no failing
	// breach on or before it (failedBy), whichever rule it broke.
	var opens []openEvent // sorted once, for the contracts' two uses
	if plan.MaxContracts != nil {
		opens = openEvents(trades)
	}
	s.Violations = append(append(s.Violations, contractViolations(plan, opens, cal)...), hourViolations(plan, trades, cal, now)...)
	balance, hwm := start, start
	ddBroken := false
	tradingDays := 0
	var best decimal.Decimal
	var bestDay *string
	next := 0
	for _, date := range dates {
		day := days[date]
		day.StartBalance, day.Low = balance, balance
		var dailyFloor decimal.Decimal
		if dl := plan.DailyLoss; dl != nil {
			dailyFloor = balance.Sub(dl.Amount)
			day.DailyLossFloor = &dailyFloor
		}
		dailyBroken := false
		breach := func(rule string, t *Trade, at time.Time, equity, limit decimal.Decimal, what string) {
			fails := rule == RuleMaxDrawdown || !plan.DailyLoss.PausesOnly
			add(Violation{Rule: rule, Date: date, PositionID: t.PositionID, Fails: fails, at: at,
				Message: fmt.Sprintf("%s took the account to %s, below the %s floor of %s", what, equity.StringFixed(2), ruleWords[rule], limit.StringFixed(2))})
		}
		for ; next < len(closes) && cal.date(*closes[next].ClosedAt) == date; next++ {
			t := closes[next]
			before := balance
			if t.MAE != nil {
				low := before.Add(*t.MAE)
				day.Low = decimal.Min(day.Low, low)
				if dd != nil && !ddBroken && low.LessThan(dd.value) {
					ddBroken = true
					breach(RuleMaxDrawdown, t, *t.ClosedAt, low, dd.value, "the position's recorded MAE")
				}
				if plan.DailyLoss != nil && plan.DailyLoss.Basis == ByEquity && !dailyBroken && low.LessThan(dailyFloor) {
					dailyBroken = true
					breach(RuleDailyLoss, t, *t.ClosedAt, low, dailyFloor, "the position's recorded MAE")
				}
			}
			if t.MFE != nil {
				high := before.Add(*t.MFE)
				hwm = decimal.Max(hwm, high)
				if dd != nil && dd.d.Kind == TrailingIntraday {
					dd.raise(high)
				}
			}
			balance = balance.Add(t.Net)
			hwm = decimal.Max(hwm, balance)
			if dd != nil && dd.d.Kind == TrailingIntraday {
				dd.raise(balance)
			}
			day.Low = decimal.Min(day.Low, balance)
			if dd != nil && !ddBroken && balance.LessThan(dd.value) {
				ddBroken = true
				breach(RuleMaxDrawdown, t, *t.ClosedAt, balance, dd.value, "the close")
			}
			if plan.DailyLoss != nil && !dailyBroken && balance.LessThan(dailyFloor) {
				dailyBroken = true
				breach(RuleDailyLoss, t, *t.ClosedAt, balance, dailyFloor, "the close")
			}
		}
		day.EndBalance = balance
		day.PnL = balance.Sub(day.StartBalance)
		if dd != nil {
			f := dd.value
			day.DrawdownFloor = &f
			if dd.d.Kind == TrailingEndOfDay && date < today {
				dd.raise(balance)
			}
		}
		if day.Opened > 0 {
			tradingDays++
		}
		if day.PnL.GreaterThan(best) {
			best, bestDay = day.PnL, &day.Date
		}
		if s.PassedOn == nil && passes(plan, balance.Sub(start), tradingDays, best) && !failedBy(s.Violations, date) {
			s.PassedOn = &day.Date
		}
		s.Days = append(s.Days, *day)
	}
	slices.SortStableFunc(s.Violations, func(a, b Violation) int { return a.at.Compare(b.at) })
	for i, v := range s.Violations {
		if v.Fails {
			s.Breach = &s.Violations[i]
			break
		}
	}
	// A breach on or before a day kept it from passing: a pass stands.
	switch {
	case s.PassedOn != nil:
		s.Result = Passed
	case s.Breach != nil:
		s.Result = Failed
	}

	profit := balance.Sub(start)
	s.Balance, s.Profit, s.HighWaterMark = balance, profit, hwm
	s.TradingDays = TradingDays{Count: tradingDays, Minimum: plan.MinTradingDays, Met: tradingDays >= plan.MinTradingDays}
	if t := plan.ProfitTarget; t != nil {
		s.ProfitTarget = &Target{Amount: *t, Balance: start.Add(*t), Remaining: decimal.Max(t.Sub(profit), decimal.Zero),
			ProgressPercent: percent(decimal.Max(profit, decimal.Zero), *t), Reached: !profit.LessThan(*t)}
	}
	if dl := plan.DailyLoss; dl != nil {
		todayStart := balance
		if d := days[today]; d != nil {
			todayStart = d.StartBalance
		}
		l := limit(dl.Amount, todayStart.Sub(dl.Amount), balance)
		l.Warn = !l.UsedPercent.LessThan(decimal.NewFromInt(int64(plan.WarnAtPercent)))
		s.DailyLoss = &l
	}
	if dd != nil {
		l := limit(dd.d.Amount, dd.value, balance)
		l.Locked = dd.d.LockAt != nil && dd.value.Equal(*dd.d.LockAt)
		s.MaxDrawdown = &l
	}
	if c := plan.ConsistencyPercent; c != nil {
		s.Consistency = &Consistency{LimitPercent: *c, BestDay: bestDay, BestDayProfit: best, Met: consistent(plan, profit, best)}
		if profit.IsPositive() {
			p := percent(best, profit)
			s.Consistency.Percent = &p
		}
	}
	if m := plan.MaxContracts; m != nil {
		s.MaxContracts = &Contracts{Limit: *m, Largest: largestOpen(opens)}
	}
	return s, nil
}

var ruleWords = map[string]string{RuleDailyLoss: "daily loss limit's", RuleMaxDrawdown: "maximum drawdown's"}

// passes reports whether an evaluation's objectives are met with profit,
// the trading days so far and the best day's profit.
func passes(plan Plan, profit decimal.Decimal, tradingDays int, best decimal.Decimal) bool {
	return plan.Phase == Evaluation && plan.ProfitTarget != nil && !profit.LessThan(*plan.ProfitTarget) &&
		tradingDays >= plan.MinTradingDays && consistent(plan, profit, best)
}

// consistent reports whether the best day is within the consistency
// rule's share of the total profit (always, without the rule).
func consistent(plan Plan, profit, best decimal.Decimal) bool {
	if plan.ConsistencyPercent == nil {
		return true
	}
	return profit.IsPositive() && !percent(best, profit).GreaterThan(*plan.ConsistencyPercent)
}

// failedBy reports a failing violation on or before date.
func failedBy(vs []Violation, date string) bool {
	return slices.ContainsFunc(vs, func(v Violation) bool { return v.Fails && v.Date <= date })
}

// limit is the distance from balance down to floor, of a limit of amount.
func limit(amount, floor, balance decimal.Decimal) Limit {
	distance := balance.Sub(floor)
	used := decimal.Max(amount.Sub(distance), decimal.Zero)
	return Limit{Amount: amount, Floor: floor, Distance: distance, DistancePercent: percent(distance, amount), Used: used, UsedPercent: percent(used, amount)}
}

// percent is part of whole in percent, 2 places.
func percent(part, whole decimal.Decimal) decimal.Decimal {
	return part.Mul(hundred).DivRound(whole, 2)
}

// openEvent is a position opening (+quantity) or closing (-quantity).
type openEvent struct {
	at    time.Time
	delta decimal.Decimal
	trade *Trade
}

// openEvents are the openings and closes in time order, the closes of an
// instant before its openings.
func openEvents(trades []Trade) []openEvent {
	var evs []openEvent
	for i := range trades {
		t := &trades[i]
		if len(t.Entries) == 0 {
			continue
		}
		evs = append(evs, openEvent{at: t.Entries[0], delta: t.Quantity, trade: t})
		if t.ClosedAt != nil {
			evs = append(evs, openEvent{at: *t.ClosedAt, delta: t.Quantity.Neg(), trade: t})
		}
	}
	slices.SortFunc(evs, func(a, b openEvent) int {
		return cmp.Or(a.at.Compare(b.at), a.delta.Cmp(b.delta), cmp.Compare(a.trade.PositionID, b.trade.PositionID))
	})
	return evs
}

// largestOpen is the most contracts open at once over opens (openEvents).
func largestOpen(opens []openEvent) decimal.Decimal {
	var open, most decimal.Decimal
	for _, e := range opens {
		open = open.Add(e.delta)
		most = decimal.Max(most, open)
	}
	return most
}

// contractViolations are the openings of opens (openEvents) that took
// the contracts open past the plan's maximum.
func contractViolations(plan Plan, opens []openEvent, cal calendar) []Violation {
	if plan.MaxContracts == nil {
		return nil
	}
	var out []Violation
	var open decimal.Decimal
	for _, e := range opens {
		open = open.Add(e.delta)
		if e.delta.IsPositive() && open.GreaterThan(*plan.MaxContracts) {
			out = append(out, Violation{Rule: RuleMaxContracts, Date: cal.date(e.at), PositionID: e.trade.PositionID, Fails: true, at: e.at,
				Message: fmt.Sprintf("this position took the contracts open to %s, more than the %s allowed", open.String(), plan.MaxContracts.String())})
		}
	}
	return out
}

// hourViolations are the entries outside the allowed hours and the
// positions held over a weekend (open at a Saturday's midnight on the
// plan's clock) when the plan forbids it; an open position is held to now.
func hourViolations(plan Plan, trades []Trade, cal calendar, now time.Time) []Violation {
	var out []Violation
	for i := range trades {
		t := &trades[i]
		if len(t.Entries) == 0 {
			continue
		}
		if h := plan.AllowedHours; h != nil {
			for _, e := range t.Entries {
				if !h.allows(e.In(cal.zone)) {
					out = append(out, Violation{Rule: RuleAllowedHours, Date: cal.date(e), PositionID: t.PositionID, Fails: true, at: e,
						Message: fmt.Sprintf("an entry at %s is outside the allowed hours", e.In(cal.zone).Format("Mon 15:04 MST"))})
					break
				}
			}
		}
		if plan.NoWeekendHolding {
			end := now
			if t.ClosedAt != nil {
				end = *t.ClosedAt
			}
			l := t.Entries[0].In(cal.zone)
			ahead := (int(time.Saturday) - int(l.Weekday()) + 7) % 7
			if ahead == 0 {
				ahead = 7
			}
			sat := time.Date(l.Year(), l.Month(), l.Day()+ahead, 0, 0, 0, 0, cal.zone)
			if sat.Before(end) {
				out = append(out, Violation{Rule: RuleWeekendHolding, Date: cal.date(sat), PositionID: t.PositionID, Fails: true, at: sat,
					Message: "the position was held over the weekend"})
			}
		}
	}
	return out
}

// allows reports whether an entry at local (on the plan's clock) is in the
// hours.
func (h Hours) allows(local time.Time) bool {
	wd := int(local.Weekday())
	if wd == 0 {
		wd = 7
	}
	hm := local.Format("15:04")
	in := hm >= h.From && hm < h.To
	if h.From > h.To {
		in = hm >= h.From || hm < h.To
	}
	return in && slices.Contains(h.Weekdays, wd)
}
