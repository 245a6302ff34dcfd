package stats

import (
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/expenses"
	"tradejournal/shared/fx"
)

// Expenses is the expense charges beside a report (GET
// /api/performance?netOfExpenses=true): those dated in the filter's from..to
// (charge dates), of the filter's accounts (an expense of no account
// counts only when the filter names no account: it is the trader's
// overall cost, which no one account carries). The other filters narrow
// the trades only. They are converted as the report's total is: with the
// spot rates of today in the user's reporting zone.
type Expenses struct {
	// ByCurrency is the sum of each currency, alphabetically.
	ByCurrency []ExpenseAmount `json:"byCurrency"`
	// Total is every charge in the display currency; null without one or
	// when a currency has no rate (MissingPairs).
	Total        *string  `json:"total"`
	MissingPairs []string `json:"missingPairs"`
	// ByMonth is each calendar month of the charge dates with charges,
	// ascending: its total converted (null as Total is), and the total
	// block's net P&L of that month (0 without trades) less it.
	ByMonth []ExpenseMonth `json:"byMonth"`
}

// ExpenseAmount is a sum in one currency.
type ExpenseAmount struct {
	Currency string `json:"currency"`
	Amount   string `json:"amount"`
}

// ExpenseMonth is one month's charges.
type ExpenseMonth struct {
	Month            string  `json:"month"`
	Total            *string `json:"total"`
	NetAfterExpenses *string `json:"netAfterExpenses"`
}

// NetReport is a Report with the expenses beside it and the total's net
// P&L after them (null when either is null). Expenses never change the
// trades' figures: R multiples, rates, counts and the equity curve are
// the Report's as they are.
type NetReport struct {
	Report
	Expenses         Expenses `json:"expenses"`
	NetAfterExpenses *string  `json:"netAfterExpenses"`
}

// convertExpenses sums the charges by currency and by month, converted
// into display with the spot rates of day (fx.Total, as the dashboard).
func convertExpenses(sums []expenses.MonthSum, rates []fx.Rate, display string, day time.Time) Expenses {
	out := Expenses{ByCurrency: []ExpenseAmount{}, MissingPairs: []string{}, ByMonth: []ExpenseMonth{}}
	var all []fx.Amount
	var months []string
	byMonth := map[string][]fx.Amount{}
	for _, s := range sums {
		all = expenses.AddAmount(all, s.Currency, s.Amount)
		if _, ok := byMonth[s.Month]; !ok {
			months = append(months, s.Month)
		}
		byMonth[s.Month] = expenses.AddAmount(byMonth[s.Month], s.Currency, s.Amount)
	}
	for _, a := range all {
		out.ByCurrency = append(out.ByCurrency, ExpenseAmount{Currency: a.Currency, Amount: amount(a.Value)})
	}
	convert := func(list []fx.Amount) (*string, []string) {
		if display == "" {
			return nil, []string{}
		}
		total, missing, ok := fx.Total(list, rates, display, day)
		if !ok {
			return nil, missing
		}
		s := amount(total)
		return &s, missing
	}
	out.Total, out.MissingPairs = convert(all) // all holds every currency: every missing pair
	for _, m := range months {
		total, _ := convert(byMonth[m])
		out.ByMonth = append(out.ByMonth, ExpenseMonth{Month: m, Total: total})
	}
	return out
}

// net puts the expenses beside rep and nets the total's figures of them.
func net(rep Report, exp *Expenses) NetReport {
	out := NetReport{Report: rep, Expenses: *exp}
	if rep.Total == nil {
		return out
	}
	if exp.Total != nil {
		out.NetAfterExpenses = minus(rep.Total.Summary.NetPnl, *exp.Total)
	}
	trades := map[string]string{}
	for _, m := range rep.Total.ByMonth {
		trades[m.Month] = m.NetPnl
	}
	for i, m := range out.Expenses.ByMonth {
		if m.Total == nil {
			continue
		}
		pnl, ok := trades[m.Month]
		if !ok {
			pnl = "0"
		}
		out.Expenses.ByMonth[i].NetAfterExpenses = minus(pnl, *m.Total)
	}
	return out
}

// minus is a - b of two 4-place figures the report formatted, exactly.
func minus(a, b string) *string {
	x, errA := decimal.NewFromString(a)
	y, errB := decimal.NewFromString(b)
	if errA != nil || errB != nil {
		return nil
	}
	s := amount(x.Sub(y))
	return &s
}
