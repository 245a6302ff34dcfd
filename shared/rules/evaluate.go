package rules

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
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
	// TagID limits the rule to the positions carrying that tag; "" is
	// every position.
	TagID string
	// Weight counts the rule in the scores; zero is DefaultWeight.
	Weight Weight
}

// weight is r's weight in a score.
func (r *Rule) weight() int {
	if r.Weight == 0 {
		return int(DefaultWeight)
	}
	return int(r.Weight)
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
	Entries []Fill
	// Exits are the exit fills before the close in time order (their At
	// and Quantity), read for the open exposure rule; nil for a strategy,
	// whose legs' exits do not lower it until its close.
	Exits    []Fill
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
	// Underlying is an option's or a strategy's ("" for a position of a
	// symbol of its own): the market AllowedMarkets names.
	Underlying string
	// AssetTypes are the position's asset type, or a strategy's legs'.
	AssetTypes []string
	// Short is the direction: a strategy opened for a credit is short.
	Short bool
	// What the position records (a strategy: any leg), and its tags; the
	// tags and screenshots only when read (a rule needs them).
	HasNotes, HasTag, HasScreenshot bool
	TagIDs                          []string
}

// market is the symbol AllowedMarkets judges.
func (p *Position) market() string {
	if p.Underlying != "" {
		return p.Underlying
	}
	return p.Symbol
}

// entryValue is one entry fill's value: price times quantity times its
// multiplier (a strategy leg's, else p's).
func (p *Position) entryValue(f Fill) decimal.Decimal {
	m := f.Multiplier
	if m.IsZero() {
		m = p.Multiplier
	}
	return f.Price.Mul(f.Quantity).Mul(m)
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
	// Score is the weighted percent of the judged rules kept, rounded
	// down; null when no rule applied.
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
	return evaluate(rules, positions, m, true)
}

// Outcomes is Evaluate without the violations (each day's Violations
// empty; its counts, rules and score the same): an answer that shows no
// violation need not put them in words, a third of judging a year of the
// benchmark's journal (BenchmarkCompliance, days=false).
func Outcomes(rules []Rule, positions []Position, m Money) []Day {
	return evaluate(rules, positions, m, false)
}

func evaluate(rules []Rule, positions []Position, m Money, words bool) []Day {
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
	w := newWorld(rules, positions, m)
	// In date order: the weekly loss keeps a running sum of the week.
	dates := slices.SortedFunc(maps.Keys(days), func(a, b date) int { return a.time().Compare(b.time()) })
	out := make([]Day, 0, len(days))
	for _, date := range dates {
		dp := days[date]
		slices.SortFunc(dp.opened, func(a, b *Position) int {
			return cmp.Or(a.Entries[0].At.Compare(b.Entries[0].At), cmp.Compare(a.ID, b.ID))
		})
		slices.SortFunc(dp.closed, byClose)
		day := Day{Date: date.String(), Rules: []Result{}, Violations: []Violation{}}
		kept, judged := 0, 0
		for i := range rules {
			r := &rules[i]
			opened, closed := inScope(r, dp.opened), inScope(r, dp.closed)
			if len(opened) == 0 && len(closed) == 0 {
				continue
			}
			vs, reason := judge(*r, date, opened, closed, m, w, w.exposure[i], &w.weeks[i], words)
			res := Result{RuleID: r.ID, Type: r.Type, Status: Kept}
			switch {
			case reason != "":
				res.Status, res.Reason = Skipped, reason
			case len(vs) > 0:
				res.Status = Broken
				day.Broken++
				judged += r.weight()
				for _, v := range vs {
					if words {
						v.RuleID, v.Type = r.ID, r.Type
						day.Violations = append(day.Violations, v)
					}
				}
			default:
				day.Kept++
				kept += r.weight()
				judged += r.weight()
			}
			day.Rules = append(day.Rules, res)
		}
		day.Score = score(kept, judged)
		out = append(out, day)
	}
	return out
}

// score is kept of judged as a whole percent rounded down; nil when
// nothing was judged.
func score(kept, judged int) *int {
	if judged == 0 {
		return nil
	}
	s := kept * 100 / judged
	return &s
}

func byClose(a, b *Position) int {
	return cmp.Or(a.ClosedAt.Compare(*b.ClosedAt), cmp.Compare(a.ID, b.ID))
}

// world is what the rules judging more than a day need: every closed
// trade in close order (the cooldown), and by rule each weekly loss rule's
// week so far (weeks) and each exposure rule's outcome over every trade
// (nil for another type).
type world struct {
	positions []Position
	closes    []*Position
	weeks     []week
	exposure  []*exposure
}

// week is a MaxWeeklyLoss rule's sum of the closes of the week of monday
// before the day judged, or why it cannot be judged this week.
type week struct {
	monday date
	sum    decimal.Decimal
	reason string
}

// exposure is one MaxOpenExposure rule's breaches, or why it cannot be
// judged.
type exposure struct {
	broken map[*Position]string
	reason string
}

func newWorld(rules []Rule, positions []Position, m Money) *world {
	w := &world{positions: positions, weeks: make([]week, len(rules)), exposure: make([]*exposure, len(rules))}
	for i := range rules {
		if rules[i].Type == MaxOpenExposure {
			w.exposure[i] = w.judgeExposure(&rules[i], m)
		}
	}
	if !slices.ContainsFunc(rules, func(r Rule) bool { return r.Type == CooldownAfterLoss }) {
		return w
	}
	for i := range positions {
		if positions[i].ClosedAt != nil {
			w.closes = append(w.closes, &positions[i])
		}
	}
	slices.SortFunc(w.closes, byClose)
	return w
}

// judgeExposure sweeps r's positions' entries, exits and closes in time
// order (exits and closes before an entry of the same instant), summing
// what is open, and names each position whose entry took a sum past its
// limit. A position counts each entry's value, and its initial risk, from
// that entry; an exit takes off its share of the position's quantity then
// open; the close takes off the rest.
func (w *world) judgeExposure(r *Rule, m Money) *exposure {
	type event struct {
		at          time.Time
		leaves      bool // an exit or the close
		p           *Position
		i           int             // p's index in w.positions
		qty         decimal.Decimal // an entry's or an exit's; zero: the close
		value, risk decimal.Decimal // an entry's
	}
	var events []event
	for i := range w.positions {
		p := &w.positions[i]
		if len(p.Entries) == 0 || !r.covers(p) {
			continue
		}
		for j, f := range p.Entries {
			v, _, reason := m.convert(*r, p, p.entryValue(f))
			if reason != "" {
				return &exposure{reason: reason}
			}
			e := event{at: f.At, p: p, i: i, qty: f.Quantity, value: v}
			if j == 0 && p.InitialRisk.Valid {
				e.risk, _, _ = m.convert(*r, p, p.InitialRisk.Decimal)
			}
			events = append(events, e)
		}
		for _, f := range p.Exits {
			events = append(events, event{at: f.At, leaves: true, p: p, i: i, qty: f.Quantity})
		}
		if p.ClosedAt != nil {
			events = append(events, event{at: *p.ClosedAt, leaves: true, p: p, i: i})
		}
	}
	slices.SortStableFunc(events, func(a, b event) int {
		return cmp.Or(a.at.Compare(b.at), -cmp.Compare(btoi(a.leaves), btoi(b.leaves)), cmp.Compare(a.p.ID, b.p.ID))
	})
	// What each position holds open now, by its index.
	type holding struct{ qty, value, risk decimal.Decimal }
	open := make([]holding, len(w.positions))
	out := &exposure{broken: map[*Position]string{}}
	var value, risk decimal.Decimal
	cur := m.Display
	for _, e := range events {
		h := &open[e.i]
		if e.leaves {
			share := decimal.NewFromInt(1) // the close: all that is left
			if !e.qty.IsZero() && h.qty.GreaterThan(e.qty) {
				share = e.qty.Div(h.qty)
			}
			dv, dr := h.value.Mul(share), h.risk.Mul(share)
			h.qty, h.value, h.risk = decimal.Max(h.qty.Sub(e.qty), decimal.Zero), h.value.Sub(dv), h.risk.Sub(dr)
			value, risk = value.Sub(dv), risk.Sub(dr)
			continue
		}
		h.qty, h.value, h.risk = h.qty.Add(e.qty), h.value.Add(e.value), h.risk.Add(e.risk)
		value, risk = value.Add(e.value), risk.Add(e.risk)
		if out.broken[e.p] != "" {
			continue
		}
		if r.AccountID != "" {
			cur = e.p.Currency
		}
		pr := r.Params
		switch {
		case pr.Notional != nil && value.GreaterThan(*pr.Notional):
			out.broken[e.p] = fmt.Sprintf("this entry took your open positions to %s; your limit is %s", amount(value, cur), amount(*pr.Notional, cur))
		case pr.Risk != nil && risk.GreaterThan(*pr.Risk):
			out.broken[e.p] = fmt.Sprintf("this entry took the risk of your open positions to %s; your limit is %s", amount(risk, cur), amount(*pr.Risk, cur))
		}
	}
	return out
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// covers reports whether p is in r's scope: its account and its tag.
func (r *Rule) covers(p *Position) bool {
	return (r.AccountID == "" || p.AccountID == r.AccountID) && (r.TagID == "" || slices.Contains(p.TagIDs, r.TagID))
}

func inScope(r *Rule, ps []*Position) []*Position {
	if r.AccountID == "" && r.TagID == "" {
		return ps
	}
	var out []*Position
	for _, p := range ps {
		if r.covers(p) {
			out = append(out, p)
		}
	}
	return out
}

// judge returns the violations of r on a day, or why it cannot be judged;
// without words, empty violations (only their number). Days come in date
// order: wk is r's week so far (MaxWeeklyLoss), moved on by the day.
func judge(r Rule, day date, opened, closed []*Position, m Money, w *world, e *exposure, wk *week, words bool) ([]Violation, string) {
	pr := r.Params
	var vs []Violation
	add := func(p *Position, format string, args ...any) {
		if !words {
			vs = append(vs, Violation{})
			return
		}
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
	case MaxWeeklyLoss:
		// The week's closes before the day (wk), then the day's in order.
		if monday := day.monday(); wk.monday != monday {
			*wk = week{monday: monday}
		}
		if wk.reason != "" {
			return nil, wk.reason
		}
		broke := false
		for _, p := range closed {
			v, cur, reason := m.convert(r, p, p.Net)
			if reason != "" {
				wk.reason = reason
				return nil, reason
			}
			wk.sum = wk.sum.Add(v)
			if wk.sum.LessThan(pr.Amount.Neg()) && !broke {
				broke = true
				add(p, "this close left the week's loss at %s; your limit is %s a week", amount(wk.sum.Neg(), cur), amount(*pr.Amount, cur))
			}
		}
	case MaxOpenExposure:
		if e.reason != "" {
			return nil, e.reason
		}
		for _, p := range opened {
			if msg := e.broken[p]; msg != "" {
				add(p, "%s", msg)
			}
		}
	case RequiredFields:
		for _, p := range opened {
			var missing []string
			for _, f := range pr.Fields {
				if !p.records(f) {
					missing = append(missing, fieldWords[f])
				}
			}
			if len(missing) > 0 {
				add(p, "opened without %s", strings.Join(missing, ", "))
			}
		}
	case AllowedMarkets:
		for _, p := range opened {
			if len(pr.AssetTypes) > 0 {
				if i := slices.IndexFunc(p.AssetTypes, func(a string) bool { return !slices.Contains(pr.AssetTypes, a) }); i >= 0 {
					add(p, "a %s trade; you trade only %s", p.AssetTypes[i], strings.Join(pr.AssetTypes, ", "))
					continue
				}
			}
			if len(pr.Symbols) > 0 && !slices.Contains(pr.Symbols, strings.ToUpper(p.market())) {
				add(p, "%s is not one of your markets (%s)", p.market(), strings.Join(pr.Symbols, ", "))
			}
		}
	case AllowedDirection:
		for _, p := range opened {
			if p.Short != (pr.Side == "short") {
				side := "long"
				if p.Short {
					side = "short"
				}
				add(p, "opened %s; you trade %s only", side, pr.Side)
			}
		}
	case CooldownAfterLoss:
		wait := time.Duration(pr.Minutes) * time.Minute
		for _, p := range opened {
			if c, f := w.lossBefore(&r, p, wait); c != nil {
				add(p, "entry %s after a losing close of %s; your cooldown is %d minutes", minutes(f.Sub(*c.ClosedAt)), c.Symbol, pr.Minutes)
			}
		}
	}
	return vs, ""
}

// fieldWords are RequiredFieldNames in a violation's words.
var fieldWords = map[string]string{"stop": "a stop loss", "target": "a target", "notes": "notes", "tag": "a tag", "screenshot": "a screenshot"}

// records reports whether p records a RequiredFields field.
func (p *Position) records(field string) bool {
	switch field {
	case "stop":
		return p.Legs == nil && p.Stop.Valid || p.Legs != nil && p.InitialRisk.Valid
	case "target":
		return p.Legs == nil && p.Target.Valid || p.Legs != nil && p.Reward.Valid
	case "notes":
		return p.HasNotes
	case "tag":
		return p.HasTag
	}
	return p.HasScreenshot
}

// lossBefore is the last losing close in r's scope less than wait before
// one of p's entries (at or before it, not p's own), and that entry.
func (w *world) lossBefore(r *Rule, p *Position, wait time.Duration) (*Position, time.Time) {
	for _, f := range p.Entries {
		n := sort.Search(len(w.closes), func(i int) bool { return w.closes[i].ClosedAt.After(f.At) })
		for i := n - 1; i >= 0 && f.At.Sub(*w.closes[i].ClosedAt) < wait; i-- {
			if c := w.closes[i]; c != p && c.Net.IsNegative() && r.covers(c) {
				return c, f.At
			}
		}
	}
	return nil, time.Time{}
}

// minutes is a wait in words: "4 minutes", "30 seconds".
func minutes(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%d seconds", int(d.Seconds()))
	}
	if n := int(d.Minutes()); n != 1 {
		return fmt.Sprintf("%d minutes", n)
	}
	return "1 minute"
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

// time is d's midnight in UTC: dates compare and step as times.
func (d date) time() time.Time { return time.Date(d.year, d.month, d.day, 0, 0, 0, 0, time.UTC) }

// monday is the Monday of d's week.
func (d date) monday() date {
	t := d.time()
	return dateOf(t.AddDate(0, 0, 1-isoWeekday(t.Weekday())), time.UTC)
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

// TradeRule is one rule's outcome for one trade: Message is the
// violation (broken) or why the rule could not be judged (skipped).
type TradeRule struct {
	RuleID  string `json:"ruleId"`
	Type    Type   `json:"type"`
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
}

// Trade is one trade's compliance: the rules in its scope, in the rules'
// order, and its weighted score (null when none was judged).
type Trade struct {
	// Date is the trading day of its first entry; "" for a draft (no
	// trade: the rest is empty).
	Date   string      `json:"date"`
	Score  *int        `json:"score"`
	Kept   int         `json:"kept"`
	Broken int         `json:"broken"`
	Rules  []TradeRule `json:"rules"`
}

// BrokenTrades names, from days (Evaluate's), each trade a violation
// names (a position, or a strategy) and, for each rule it broke, the
// first violation's message.
func BrokenTrades(days []Day) map[string]map[string]string {
	out := map[string]map[string]string{}
	for d := range days {
		for _, v := range days[d].Violations {
			id := v.PositionIDs[0]
			if v.StrategyID != nil {
				id = *v.StrategyID
			}
			if out[id] == nil {
				out[id] = map[string]string{}
			}
			if _, ok := out[id][v.RuleID]; !ok {
				out[id][v.RuleID] = v.Message
			}
		}
	}
	return out
}

// TradeScores is the compliance of each of positions (in their order)
// with rules, from days (Evaluate's of the same rules and positions): a
// rule in a trade's scope is broken by it when a violation names it
// (BrokenTrades), skipped when skipped on its opening day, else kept.
func TradeScores(rules []Rule, positions []Position, days []Day) []Trade {
	broken := BrokenTrades(days)
	byDate := make(map[string]*Day, len(days))
	for d := range days {
		byDate[days[d].Date] = &days[d]
	}
	out := make([]Trade, len(positions))
	for i := range positions {
		p := &positions[i]
		if len(p.Entries) == 0 {
			continue
		}
		t := Trade{Date: dateOf(p.Entries[0].At, p.Zone).String(), Rules: []TradeRule{}}
		var dayRules []Result // none when its opening day was not judged
		if day := byDate[t.Date]; day != nil {
			dayRules = day.Rules
		}
		kept, judged := 0, 0
		for j := range rules {
			r := &rules[j]
			if !r.covers(p) {
				continue
			}
			res := TradeRule{RuleID: r.ID, Type: r.Type, Status: Kept}
			if msg, ok := broken[p.ID][r.ID]; ok {
				res.Status, res.Message = Broken, msg
				t.Broken++
				judged += r.weight()
			} else if k := slices.IndexFunc(dayRules, func(x Result) bool { return x.RuleID == r.ID }); k >= 0 && dayRules[k].Status == Skipped {
				res.Status, res.Message = Skipped, dayRules[k].Reason
			} else {
				t.Kept++
				kept += r.weight()
				judged += r.weight()
			}
			t.Rules = append(t.Rules, res)
		}
		t.Score = score(kept, judged)
		out[i] = t
	}
	return out
}
