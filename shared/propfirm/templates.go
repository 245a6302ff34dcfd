package propfirm

import "github.com/shopspring/decimal"

// Template is an example plan in the shape some firms publish, for each
// account size they sell: a starting point to edit, never the firm's
// rules. Firms change their rules; the figures here are as the firms'
// pages described them when written, and every answer says so (Notice).
type Template struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Sizes       []Sized `json:"sizes"`
}

// Sized is a template's plan for one account size.
type Sized struct {
	Label string `json:"label"`
	Plan  Plan   `json:"plan"`
}

// Notice goes with every template.
const Notice = "Examples only, in the shape firms publish: check your firm's current rules and edit the plan to match them."

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func ptr(v decimal.Decimal) *decimal.Decimal { return &v }

// twoStep is an FTMO-style two-step evaluation phase: target percent of
// the starting balance, 5% daily and 10% static maximum loss of it, the day
// turning at midnight in Prague, four trading days.
func twoStep(target int64) []Sized {
	var out []Sized
	for _, size := range []int64{10_000, 25_000, 50_000, 100_000, 200_000} {
		start := decimal.NewFromInt(size)
		pct := func(p int64) decimal.Decimal { return start.Mul(decimal.NewFromInt(p)).Div(hundred) }
		out = append(out, Sized{Label: start.String(), Plan: Plan{
			Phase: Evaluation, StartingBalance: start, Timezone: "Europe/Prague", DayStart: "00:00",
			ProfitTarget:   ptr(pct(target)),
			DailyLoss:      &DailyLoss{Amount: pct(5), Basis: ByEquity},
			MaxDrawdown:    &Drawdown{Amount: pct(10), Kind: Static},
			MinTradingDays: 4, WarnAtPercent: DefaultWarnPercent,
		}})
	}
	return out
}

// combine is a Topstep-style futures combine size: the maximum loss
// trails the end-of-day balance until it locks at the starting balance;
// the daily loss limit pauses the day; the day turns at 17:00 Chicago.
func combine(start, target, daily, maxLoss, contracts string) Sized {
	return Sized{Label: start, Plan: Plan{
		Phase: Evaluation, StartingBalance: d(start), Timezone: "America/Chicago", DayStart: "17:00",
		ProfitTarget:       ptr(d(target)),
		DailyLoss:          &DailyLoss{Amount: d(daily), Basis: ByEquity, PausesOnly: true},
		MaxDrawdown:        &Drawdown{Amount: d(maxLoss), Kind: TrailingEndOfDay, LockAt: ptr(d(start))},
		ConsistencyPercent: ptr(d("50")),
		MaxContracts:       ptr(d(contracts)),
		WarnAtPercent:      DefaultWarnPercent,
	}}
}

// threshold is an Apex-style evaluation size: the threshold trails every
// new equity high intraday until it stops 100 above the starting balance.
func threshold(start, target, amount, contracts string) Sized {
	return Sized{Label: start, Plan: Plan{
		Phase: Evaluation, StartingBalance: d(start), Timezone: "America/New_York", DayStart: "18:00",
		ProfitTarget:   ptr(d(target)),
		MaxDrawdown:    &Drawdown{Amount: d(amount), Kind: TrailingIntraday, LockAt: ptr(d(start).Add(d("100")))},
		MinTradingDays: 7,
		MaxContracts:   ptr(d(contracts)),
		WarnAtPercent:  DefaultWarnPercent,
	}}
}

// Templates are the example plans, in the order the web app offers them.
func Templates() []Template {
	return []Template{
		{ID: "two-step-phase-1", Name: "Two-step challenge, phase 1 (FTMO-style)",
			Description: "10% profit target, 5% daily loss and 10% maximum loss of the starting balance (static), at least 4 trading days; the day turns at midnight Prague time.",
			Sizes:       twoStep(10)},
		{ID: "two-step-phase-2", Name: "Two-step challenge, phase 2 verification (FTMO-style)",
			Description: "5% profit target, the same 5% daily and 10% static maximum loss, at least 4 trading days.",
			Sizes:       twoStep(5)},
		{ID: "futures-combine", Name: "Futures combine (Topstep-style)",
			Description: "A maximum loss that trails the end-of-day balance high and locks at the starting balance, a daily loss limit that ends the day, best day at most 50% of the profit, a contract limit; the day turns at 17:00 Chicago time.",
			Sizes: []Sized{
				combine("50000", "3000", "1000", "2000", "5"),
				combine("100000", "6000", "2000", "3000", "10"),
				combine("150000", "9000", "3000", "4500", "15"),
			}},
		{ID: "intraday-threshold", Name: "Intraday trailing threshold (Apex-style)",
			Description: "A threshold that trails every new equity high, open profit included, until it stops 100 above the starting balance; at least 7 trading days; a contract limit.",
			Sizes: []Sized{
				threshold("50000", "3000", "2500", "10"),
				threshold("100000", "6000", "3000", "14"),
				threshold("150000", "9000", "5000", "17"),
			}},
	}
}
