package rules

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/fx"
	"tradejournal/shared/money"
)

// Rule is one enabled rule to judge.
type Rule struct {
	ID     string
	Type   Type
	Params Params
	// AccountID limits the rule to one account; "" is every account.
	AccountID string
}

// Fill is one entry fill.
type Fill struct {
	At       time.Time
	Price    decimal.Decimal
	Quantity decimal.Decimal
	// Multiplier is the fill's leg's, in a strategy (its legs' contracts
	// differ from its shares); zero for the position's own.
	Multiplier decimal.Decimal
}

// Position is one position as the rules see it: its entries, its plan and
// its result, money in its account's currency.
type Position struct {
	ID, Symbol, AccountID, Currency string
	// Zone is the account's trading-day zone.
	Zone       *time.Location
	Multiplier decimal.Decimal
	// Entries are the entry fills in time order: the first opens it. A
	// position without one (a draft) is no trade.
	Entries  []Fill
	ClosedAt *time.Time // nil while open
	Net      decimal.Decimal
	Stop     decimal.NullDecimal
	Target   decimal.NullDecimal
	// InitialRisk is the money between entry and stop (null without a stop).
	InitialRisk decimal.NullDecimal
	// Balance is the account's balance at the start of the trading day of
	// the first entry (null when not read: no rule needs it).
	Balance decimal.NullDecimal
	// Legs are the positions of a strategy judged as one trade, nil for a
	// position of its own. A strategy's ID is the strategy's, its entries
	// every leg's, its Net the legs' sum once every leg is closed, its
	// InitialRisk the planned risk or the defined max loss, its Reward the
	// defined max profit; it has no stop or target of its own.
	Legs   []string
	Reward decimal.NullDecimal
}

// ids are the positions a violation of p concerns.
func (p *Position) ids() []string {
	if p.Legs != nil {
		return p.Legs
	}
	return []string{p.ID}
}

// quantity is what p's entries bought or sold.
func (p *Position) quantity() decimal.Decimal {
	var qty decimal.Decimal
	for _, f := range p.Entries {
		qty = qty.Add(f.Quantity)
	}
	return qty
}

// notional is what p's entries cost: price times quantity times their
// multiplier, summed (the entries at p's own multiplier summed first and
// multiplied once).
func (p *Position) notional() decimal.Decimal {
	var legs, own decimal.Decimal
	for _, f := range p.Entries {
		v := f.Price.Mul(f.Quantity)
		if f.Multiplier.IsZero() {
			own = own.Add(v)
		} else {
			legs = legs.Add(v.Mul(f.Multiplier))
		}
	}
	return legs.Add(own.Mul(p.Multiplier))
}

// Money converts a position's amounts into the display currency for the
// rules of every account: Factors are the statistics' (fx.Factors into
// Display); a currency without one has no rate.
type Money struct {
	Display string
	Factors map[string]decimal.Decimal
}

// The status of a rule on a day.
const (
	Kept    = "kept"
	Broken  = "broken"
	Skipped = "skipped" // could not be judged: Reason says why
)

// Result is one rule's outcome on one day.
type Result struct {
	RuleID string `json:"ruleId"`
	Type   Type   `json:"type"`
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

// Violation is one breach: the rule, the positions it concerns (a
// strategy's legs, and the strategy) and what happened, in words.
type Violation struct {
	RuleID      string   `json:"ruleId"`
	Type        Type     `json:"type"`
	PositionIDs []string `json:"positionIds"`
	StrategyID  *string  `json:"strategyId"`
	Message     string   `json:"message"`
}

// Day is the compliance of one trading day.
type Day struct {
	Date string `json:"date"`
	// Score is the percent of the judged rules kept, rounded down; null
	// when no rule applied.
	Score      *int        `json:"score"`
	Kept       int         `json:"kept"`
	Broken     int         `json:"broken"`
	Rules      []Result    `json:"rules"`
	Violations []Violation `json:"violations"`
}

// dayPositions are one day's positions: opened there, in entry order, and
// closed there, in close order.
type dayPositions struct {
	opened, closed []*Position
}

// Evaluate judges every rule on every trading day of positions (days in
// date order). Positions may come in any order.
func Evaluate(rules []Rule, positions []Position, m Money) []Day {
	days := map[date]*dayPositions{}
	at := func(d date) *dayPositions {
		if days[d] == nil {
			days[d] = &dayPositions{}
		}
		return days[d]
	}
	for i := range positions {
		p := &positions[i]
		if len(p.Entries) > 0 {
			d := at(dateOf(p.Entries[0].At, p.Zone))
			d.opened = append(d.opened, p)
		}
		if p.ClosedAt != nil {
			d := at(dateOf(*p.ClosedAt, p.Zone))
			d.closed = append(d.closed, p)
		}
	}
	out := make([]Day, 0, len(days))
	for date, dp := range days {
		slices.SortFunc(dp.opened, func(a, b *Position) int {
			return cmp.Or(a.Entries[0].At.Compare(b.Entries[0].At), cmp.Compare(a.ID, b.ID))
		})
		slices.SortFunc(dp.closed, func(a, b *Position) int {
			return cmp.Or(a.ClosedAt.Compare(*b.ClosedAt), cmp.Compare(a.ID, b.ID))
		})
		day := Day{Date: date.String(), Rules: []Result{}, Violations: []Violation{}}
		for _, r := range rules {
			opened, closed := inScope(r, dp.opened), inScope(r, dp.closed)
			if len(opened) == 0 && len(closed) == 0 {
				continue
			}
			vs, reason := judge(r, opened, closed, m)
			res := Result{RuleID: r.ID, Type: r.Type, Status: Kept}
			switch {
			case reason != "":
				res.Status, res.Reason = Skipped, reason
			case len(vs) > 0:
				res.Status = Broken
				day.Broken++
				for _, v := range vs {
					v.RuleID, v.Type = r.ID, r.Type
					day.Violations = append(day.Violations, v)
				}
			default:
				day.Kept++
			}
			day.Rules = append(day.Rules, res)
		}
		if n := day.Kept + day.Broken; n > 0 {
			s := day.Kept * 100 / n
			day.Score = &s
		}
		out = append(out, day)
	}
	slices.SortFunc(out, func(a, b Day) int { return cmp.Compare(a.Date, b.Date) })
	return out
}

func inScope(r Rule, ps []*Position) []*Position {
	if r.AccountID == "" {
		return ps
	}
	var out []*Position
	for _, p := range ps {
		if p.AccountID == r.AccountID {
			out = append(out, p)
		}
	}
	return out
}

// judge returns the violations of r on a day, or why it cannot be judged.
func judge(r Rule, opened, closed []*Position, m Money) ([]Violation, string) {
	pr := r.Params
	var vs []Violation
	add := func(p *Position, format string, args ...any) {
		v := Violation{PositionIDs: p.ids(), Message: p.Symbol + ": " + fmt.Sprintf(format, args...)}
		if p.Legs != nil {
			v.StrategyID = &p.ID
		}
		vs = append(vs, v)
	}
	switch r.Type {
	case MaxTradesPerDay:
		for i, p := range opened {
			if i >= pr.Count {
				add(p, "%s trade of the day; your limit is %d", ordinal(i+1), pr.Count)
			}
		}
	case MaxDailyLoss:
		sum := decimal.Zero
		for _, p := range closed {
			v, cur, reason := m.convert(r, p, p.Net)
			if reason != "" {
				return nil, reason
			}
			sum = sum.Add(v)
			if sum.LessThan(pr.Amount.Neg()) && len(vs) == 0 {
				add(p, "this close took the day's loss to %s; your limit is %s", amount(sum.Neg(), cur), amount(*pr.Amount, cur))
			}
		}
	case MaxRiskPerTrade:
		for _, p := range opened {
			if !p.InitialRisk.Valid {
				continue // no stop, no risk: the stop rule judges that
			}
			risk := p.InitialRisk.Decimal
			if pr.Amount != nil {
				v, cur, reason := m.convert(r, p, risk)
				if reason != "" {
					return nil, reason
				}
				if v.GreaterThan(*pr.Amount) {
					add(p, "risked %s; your limit is %s", amount(v, cur), amount(*pr.Amount, cur))
					continue
				}
			}
			if pr.Percent != nil && p.Balance.Valid && p.Balance.Decimal.IsPositive() {
				pct := risk.Mul(decimal.NewFromInt(100)).Div(p.Balance.Decimal)
				if pct.GreaterThan(*pr.Percent) {
					add(p, "risked %s%% of the account balance; your limit is %s%%", pct.StringFixed(2), pr.Percent.String())
				}
			}
		}
	case StopRequired:
		for _, p := range opened {
			switch {
			case p.Legs != nil && !p.InitialRisk.Valid: // a defined max loss is the strategy's stop
				add(p, "opened with no defined risk (an unlimited max loss) and no planned risk")
			case p.Legs == nil && !p.Stop.Valid:
				add(p, "opened without a stop loss")
			}
		}
	case MaxConsecutiveLosses:
		for _, p := range opened {
			streak := 0
			for _, c := range closed {
				if c == p || c.ClosedAt.After(p.Entries[0].At) {
					continue
				}
				if c.Net.IsNegative() {
					streak++
				} else {
					streak = 0
				}
			}
			if streak >= pr.Count {
				add(p, "opened after %d losses in a row today; your limit is %d", streak, pr.Count)
			}
		}
	case AllowedHours:
		for _, p := range opened {
			for _, f := range p.Entries {
				if c := f.At.In(p.Zone).Format("15:04"); c < pr.From || c >= pr.To {
					add(p, "entry at %s; your hours are %s to %s", c, pr.From, pr.To)
					break
				}
			}
		}
	case MaxPositionSize:
		var limit string
		if pr.Quantity != nil {
			limit = pr.Quantity.String()
		}
		for _, p := range opened {
			if pr.Quantity != nil {
				if qty := p.quantity(); qty.GreaterThan(*pr.Quantity) {
					add(p, "size %s; your limit is %s", qty.String(), limit)
					continue
				}
			}
			if pr.Notional != nil {
				v, cur, reason := m.convert(r, p, p.notional())
				if reason != "" {
					return nil, reason
				}
				if v.GreaterThan(*pr.Notional) {
					add(p, "position worth %s; your limit is %s", amount(v, cur), amount(*pr.Notional, cur))
				}
			}
		}
	case NoTradingDays:
		for _, p := range opened {
			wd := p.Entries[0].At.In(p.Zone).Weekday()
			if slices.Contains(pr.Weekdays, isoWeekday(wd)) {
				add(p, "opened on a %s; you do not trade on %ss", wd, wd)
			}
		}
	case MinPlannedRR:
		ratio := pr.Ratio.String()
		for _, p := range opened {
			switch {
			case p.Legs != nil && (!p.Reward.Valid || !p.InitialRisk.Valid || !p.InitialRisk.Decimal.IsPositive()):
				add(p, "no defined max profit and risk, so no planned R:R; your minimum is %s", ratio)
			case p.Legs != nil:
				if rr := p.Reward.Decimal.Div(p.InitialRisk.Decimal); rr.LessThan(*pr.Ratio) {
					add(p, "planned R:R %s (max profit over risk); your minimum is %s", rr.StringFixed(2), ratio)
				}
			case !p.Stop.Valid && !p.Target.Valid:
				add(p, "no stop and no target, so no planned R:R; your minimum is %s", ratio)
			case !p.Stop.Valid:
				add(p, "no stop, so no planned R:R; your minimum is %s", ratio)
			case !p.Target.Valid:
				add(p, "no target, so no planned R:R; your minimum is %s", ratio)
			default:
				entry := p.Entries[0].Price
				risk := entry.Sub(p.Stop.Decimal).Abs()
				if risk.IsZero() {
					add(p, "the stop is at the entry price, so no planned R:R; your minimum is %s", ratio)
					continue
				}
				rr := p.Target.Decimal.Sub(entry).Abs().Div(risk)
				if rr.LessThan(*pr.Ratio) {
					add(p, "planned R:R %s; your minimum is %s", rr.StringFixed(2), ratio)
				}
			}
		}
	}
	return vs, ""
}

// convert turns an amount of p into the currency of r's limits: the
// account's own for a rule of one account, else the display currency.
func (m Money) convert(r Rule, p *Position, v decimal.Decimal) (decimal.Decimal, string, string) {
	if r.AccountID != "" {
		return v, p.Currency, ""
	}
	if m.Display == "" {
		return decimal.Zero, "", "a rule of every account needs a display currency for its money limit: set one, or limit the rule to one account"
	}
	f, ok := m.Factors[p.Currency]
	if !ok {
		return decimal.Zero, "", "no exchange rate " + fx.Pair(p.Currency, m.Display) + " to convert this day's positions"
	}
	return v.Mul(f), m.Display, ""
}

// date is a calendar day: a trading day's key.
type date struct {
	year  int
	month time.Month
	day   int
}

func dateOf(t time.Time, zone *time.Location) date {
	y, m, d := t.In(zone).Date()
	return date{y, m, d}
}

func (d date) String() string {
	return time.Date(d.year, d.month, d.day, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
}

func isoWeekday(d time.Weekday) int {
	if d == time.Sunday {
		return 7
	}
	return int(d)
}

func amount(v decimal.Decimal, currency string) string { return money.Round2(v) + " " + currency }

func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.Itoa(n) + suffix
}
