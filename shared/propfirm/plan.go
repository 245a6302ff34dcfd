// Package propfirm is a prop-firm ("funded account") plan an account can
// carry and its evaluation: the firm's profit target, daily loss limit,
// maximum drawdown (static, trailing at the end of the day, or trailing
// intraday, with the lock some firms apply), minimum trading days,
// consistency, most contracts open and allowed hours, judged over the
// account's trades (Evaluate). Pure functions of values: no clock, no
// database, no HTTP, like shared/rules. The route group functions/accounts
// stores a plan beside its account and reads the trades.
//
// What the journal can know: it has each position's fills, its realized
// net P&L at the close and, when recorded, its maximum adverse and
// favourable excursions (MAE, MFE, prices the trader enters or takes from
// price bars). It has no ticks and no open positions' live prices. So the
// intraday high-water mark and the equity lows are those of realized closes
// and recorded excursions: a run-up the journal was never told of does not
// raise a trailing floor, and a dip never recorded does not count against a
// limit. docs/prop-firms.md says the same to the user.
package propfirm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	_ "time/tzdata" // the firms' zones on a host without a zone database

	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/journal"
)

// Phase is where the account is in the firm's programme.
type Phase string

// The phases.
const (
	Evaluation Phase = "evaluation"
	Funded     Phase = "funded"
)

// Basis is what a daily loss limit is measured on.
type Basis string

// The bases of a daily loss limit.
const (
	// ByBalance counts realized closes only.
	ByBalance Basis = "balance"
	// ByEquity counts open losses too: each position's recorded MAE at
	// the balance it was opened against.
	ByEquity Basis = "equity"
)

// DrawdownKind is how the maximum drawdown's floor moves.
type DrawdownKind string

// The kinds of maximum drawdown.
const (
	// Static: the floor is the starting balance less the amount, for good.
	Static DrawdownKind = "static"
	// TrailingEndOfDay: at the end of each trading day the floor rises to
	// the day's closing balance less the amount, if that is higher.
	TrailingEndOfDay DrawdownKind = "trailingEndOfDay"
	// TrailingIntraday: the floor rises with every new equity high the
	// journal knows of (a close, or a recorded MFE) less the amount.
	TrailingIntraday DrawdownKind = "trailingIntraday"
)

// Plan is a prop-firm plan. Money is in the account's currency.
type Plan struct {
	Phase           Phase           `json:"phase"`
	StartingBalance decimal.Decimal `json:"startingBalance"`
	// Timezone and DayStart are the firm's trading day: it starts at
	// DayStart ("HH:MM") on the zone's clock (17:00 America/New_York: a
	// trade at 18:00 on Monday is Tuesday's), summer time included. The
	// daily loss limit resets then, and the allowed hours are on that clock.
	Timezone string `json:"timezone"`
	DayStart string `json:"dayStart"`
	// ProfitTarget is the profit over the starting balance that passes an
	// evaluation; nil for none (a funded account).
	ProfitTarget *decimal.Decimal `json:"profitTarget"`
	DailyLoss    *DailyLoss       `json:"dailyLoss"`
	MaxDrawdown  *Drawdown        `json:"maxDrawdown"`
	// MinTradingDays is the trading days (a position opened) an evaluation
	// needs to pass; 0 for none.
	MinTradingDays int `json:"minTradingDays"`
	// ConsistencyPercent: no day's profit may be more than this percent of
	// the total profit to pass; nil for no such rule.
	ConsistencyPercent *decimal.Decimal `json:"consistencyPercent"`
	// MaxContracts is the most contracts (lots, shares) open at once,
	// summed over the account's open positions; nil for no limit.
	MaxContracts     *decimal.Decimal `json:"maxContracts"`
	AllowedHours     *Hours           `json:"allowedHours"`
	NoWeekendHolding bool             `json:"noWeekendHolding"`
	// WarnAtPercent is the share of the daily loss limit used at which the
	// dashboard warns.
	WarnAtPercent int `json:"warnAtPercent"`
}

// DailyLoss is the most the account may lose in one trading day: from
// the balance at the day's start.
type DailyLoss struct {
	Amount decimal.Decimal `json:"amount"`
	Basis  Basis           `json:"basis"`
	// PausesOnly marks a limit that ends the day's trading but not the
	// account (a "soft breach"): it is reported, the account does not fail.
	PausesOnly bool `json:"pausesOnly"`
}

// Drawdown is the maximum drawdown: the balance (and known equity) may not
// go below the floor, starting at StartingBalance - Amount.
type Drawdown struct {
	Amount decimal.Decimal `json:"amount"`
	Kind   DrawdownKind    `json:"kind"`
	// LockAt is the highest a trailing floor goes: where it stops trailing
	// (the starting balance for many futures firms); nil trails for good.
	LockAt *decimal.Decimal `json:"lockAt"`
}

// Hours are when entries are allowed: on the weekdays (ISO, 1 Monday to 7
// Sunday) from From to To ("HH:MM") on the plan's clock. From after To
// is a window across midnight (18:00 to 16:00).
type Hours struct {
	From     string `json:"from"`
	To       string `json:"to"`
	Weekdays []int  `json:"weekdays"`
}

// Input is a plan as a request carries it: decimals as JSON strings,
// checked by Validate.
type Input struct {
	Phase              *string         `json:"phase"`
	StartingBalance    journal.Field   `json:"startingBalance"`
	Timezone           *string         `json:"timezone"`
	DayStart           *string         `json:"dayStart"`
	ProfitTarget       journal.Field   `json:"profitTarget"`
	DailyLoss          *DailyLossInput `json:"dailyLoss"`
	MaxDrawdown        *DrawdownInput  `json:"maxDrawdown"`
	MinTradingDays     *int            `json:"minTradingDays"`
	ConsistencyPercent journal.Field   `json:"consistencyPercent"`
	MaxContracts       journal.Field   `json:"maxContracts"`
	AllowedHours       *Hours          `json:"allowedHours"`
	NoWeekendHolding   *bool           `json:"noWeekendHolding"`
	WarnAtPercent      *int            `json:"warnAtPercent"`
}

// DailyLossInput is DailyLoss as a request carries it.
type DailyLossInput struct {
	Amount     journal.Field `json:"amount"`
	Basis      *string       `json:"basis"`
	PausesOnly *bool         `json:"pausesOnly"`
}

// DrawdownInput is Drawdown as a request carries it.
type DrawdownInput struct {
	Amount journal.Field `json:"amount"`
	Kind   *string       `json:"kind"`
	LockAt journal.Field `json:"lockAt"`
}

// Bounds of a plan's whole numbers.
const (
	MaxTradingDays     = 366
	DefaultWarnPercent = 80
)

// Validate checks a plan's input, naming each bad field as the request
// does ("dailyLoss.amount"); it returns the plan, defaults filled in:
// timezone America/New_York, dayStart 17:00, basis balance, warnAtPercent
// 80.
func Validate(in Input) (Plan, error) {
	var p journal.Problems
	out := Plan{Timezone: "America/New_York", DayStart: "17:00", WarnAtPercent: DefaultWarnPercent}
	switch {
	case in.Phase == nil:
		p.Add("phase", "is required: evaluation or funded")
	case *in.Phase != string(Evaluation) && *in.Phase != string(Funded):
		p.Add("phase", "must be evaluation or funded")
	default:
		out.Phase = Phase(*in.Phase)
	}
	out.StartingBalance, _ = p.RequiredDecimal("startingBalance", in.StartingBalance, journal.AmountRule)
	if in.Timezone != nil {
		if msg := auth.CheckTimezone(*in.Timezone); msg != "" {
			p.Add("timezone", msg)
		} else {
			out.Timezone = *in.Timezone
		}
	}
	if in.DayStart != nil {
		if !journal.ValidClock(*in.DayStart) {
			p.Add("dayStart", `must be a time of day HH:MM, like "17:00"`)
		} else {
			out.DayStart = *in.DayStart
		}
	}
	if d, ok := p.Decimal("profitTarget", in.ProfitTarget, journal.AmountRule); ok {
		out.ProfitTarget = &d
	}
	if in.DailyLoss != nil {
		out.DailyLoss = validateDailyLoss(&p, *in.DailyLoss)
	}
	if in.MaxDrawdown != nil {
		out.MaxDrawdown = validateDrawdown(&p, *in.MaxDrawdown, out.StartingBalance)
	}
	if n := in.MinTradingDays; n != nil {
		if *n < 0 || *n > MaxTradingDays {
			p.Add("minTradingDays", fmt.Sprintf("must be a whole number from 0 to %d", MaxTradingDays))
		} else {
			out.MinTradingDays = *n
		}
	}
	if d, ok := p.Decimal("consistencyPercent", in.ConsistencyPercent, journal.PercentRule); ok {
		out.ConsistencyPercent = &d
	}
	if d, ok := p.Decimal("maxContracts", in.MaxContracts, journal.QuantityRule); ok {
		out.MaxContracts = &d
	}
	if h := in.AllowedHours; h != nil {
		out.AllowedHours = validateHours(&p, *h)
	}
	out.NoWeekendHolding = in.NoWeekendHolding != nil && *in.NoWeekendHolding
	if w := in.WarnAtPercent; w != nil {
		if *w < 1 || *w > 100 {
			p.Add("warnAtPercent", "must be a whole percent from 1 to 100")
		} else {
			out.WarnAtPercent = *w
		}
	}
	if out.Phase == Evaluation && out.ProfitTarget == nil && !p.Has("profitTarget") {
		p.Add("profitTarget", "is required for an evaluation: the profit that passes it")
	}
	if err := p.Err(); err != nil {
		return Plan{}, err
	}
	return out, nil
}

// Parse reads a plan from its JSON as stored or archived (a Plan, or an
// Input: the same fields) through Validate, the check that wrote it: a plan
// of fields this version does not know is an error, not a silent default.
func Parse(raw []byte) (Plan, error) {
	var in Input
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return Plan{}, apperr.Invalid("plan", "is not a prop-firm plan")
	}
	return Validate(in)
}

func validateDailyLoss(p *journal.Problems, in DailyLossInput) *DailyLoss {
	out := DailyLoss{Basis: ByBalance, PausesOnly: in.PausesOnly != nil && *in.PausesOnly}
	out.Amount, _ = p.RequiredDecimal("dailyLoss.amount", in.Amount, journal.AmountRule)
	if b := in.Basis; b != nil {
		if *b != string(ByBalance) && *b != string(ByEquity) {
			p.Add("dailyLoss.basis", "must be balance or equity")
		} else {
			out.Basis = Basis(*b)
		}
	}
	return &out
}

func validateDrawdown(p *journal.Problems, in DrawdownInput, start decimal.Decimal) *Drawdown {
	var out Drawdown
	amount, ok := p.RequiredDecimal("maxDrawdown.amount", in.Amount, journal.AmountRule)
	out.Amount = amount
	kinds := []string{string(Static), string(TrailingEndOfDay), string(TrailingIntraday)}
	switch {
	case in.Kind == nil:
		p.Add("maxDrawdown.kind", "is required: "+strings.Join(kinds, ", "))
	case !slices.Contains(kinds, *in.Kind):
		p.Add("maxDrawdown.kind", "must be one of "+strings.Join(kinds, ", "))
	default:
		out.Kind = DrawdownKind(*in.Kind)
	}
	if d, set := p.Decimal("maxDrawdown.lockAt", in.LockAt, journal.BalanceRule); set {
		switch {
		case out.Kind == Static:
			p.Add("maxDrawdown.lockAt", "applies to a trailing drawdown only")
		case ok && start.IsPositive() && d.LessThan(start.Sub(amount)):
			p.Add("maxDrawdown.lockAt", "must be at least the first floor, startingBalance less maxDrawdown.amount ("+start.Sub(amount).String()+")")
		default:
			out.LockAt = &d
		}
	}
	if ok && start.IsPositive() && amount.GreaterThan(start) {
		p.Add("maxDrawdown.amount", "must be at most the starting balance")
	}
	return &out
}

func validateHours(p *journal.Problems, in Hours) *Hours {
	out := Hours{From: in.From, To: in.To}
	if !journal.ValidClock(in.From) {
		p.Add("allowedHours.from", `must be a time of day HH:MM, like "09:30"`)
	}
	if !journal.ValidClock(in.To) {
		p.Add("allowedHours.to", `must be a time of day HH:MM, like "16:00"`)
	}
	if in.From == in.To && journal.ValidClock(in.From) {
		p.Add("allowedHours.to", "must differ from allowedHours.from")
	}
	if len(in.Weekdays) == 0 {
		out.Weekdays = []int{1, 2, 3, 4, 5, 6, 7}
		return &out
	}
	for _, d := range in.Weekdays {
		if d < 1 || d > 7 {
			p.Add("allowedHours.weekdays", "must list weekdays from 1 (Monday) to 7 (Sunday)")
			return nil
		}
	}
	out.Weekdays = slices.Compact(slices.Sorted(slices.Values(in.Weekdays)))
	return &out
}

// loadZone is the zone named name, nil when there is none.
func loadZone(name string) *time.Location {
	z, err := time.LoadLocation(name)
	if err != nil {
		return nil
	}
	return z
}
