package sizing

import (
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"

	"tradejournal/shared/instrument"
)

// steppedCheck is what the property tests know of one request and its
// answer: the exact rate as num / den, the budget, and the size answered.
type steppedCheck struct {
	percent        bool
	balance        decimal.Decimal
	budget         decimal.Decimal // exact
	step, perLot   decimal.Decimal
	stop           decimal.Decimal // |entry - stop|
	num, den       decimal.Decimal
	lots           string // the answer's lots (or contracts)
	actualRisk     string
	riskBudget     string
	status         string
	counts         *statusCounts
	describeFailed func() string
}

type statusCounts struct{ sized, byStatus map[string]int }

// check holds an answer to the properties: a size is a whole number of
// steps, its exact risk is within the budget and one step more would not
// be, the risk shown (rounded) never exceeds the budget shown (rounded the
// same way: rounding keeps the order); a zero size has its cause.
func (c steppedCheck) check(t *testing.T, i int) {
	t.Helper()
	d := decimal.RequireFromString
	lots := d(c.lots)
	// risk(n lots) x den, exactly: n x perLot x stop x num.
	riskDen := func(n decimal.Decimal) decimal.Decimal { return n.Mul(c.perLot).Mul(c.stop).Mul(c.num) }
	budgetDen := c.budget.Mul(c.den)
	if c.status != "" {
		c.counts.byStatus[c.status]++
		if !lots.IsZero() || c.actualRisk != "0.00" {
			t.Fatalf("iteration %d: %s: a status with a size", i, c.describeFailed())
		}
		var why bool
		switch c.status {
		case NothingToSizeAgainst:
			why = (c.percent && !c.balance.IsPositive()) || riskDen(c.step).GreaterThan(budgetDen)
		case ExceedsMaximum:
			why = (c.percent && c.budget.GreaterThan(maxDollarRisk)) || !riskDen(maxLots.Add(c.step)).GreaterThan(budgetDen)
		}
		if !why {
			t.Fatalf("iteration %d: %s: status %s without its cause", i, c.describeFailed(), c.status)
		}
		return
	}
	c.counts.sized["sized"]++
	if !lots.IsPositive() || !lots.Mod(c.step).IsZero() {
		t.Fatalf("iteration %d: %s: %s lots is not a whole number of steps of %s", i, c.describeFailed(), c.lots, c.step)
	}
	if riskDen(lots).GreaterThan(budgetDen) {
		t.Fatalf("iteration %d: %s: %s lots risks more than the budget %s", i, c.describeFailed(), c.lots, c.budget)
	}
	if !riskDen(lots.Add(c.step)).GreaterThan(budgetDen) {
		t.Fatalf("iteration %d: %s: %s lots is not the most the budget %s allows", i, c.describeFailed(), c.lots, c.budget)
	}
	if d(c.actualRisk).GreaterThan(d(c.riskBudget)) {
		t.Fatalf("iteration %d: %s: actualRisk %s above the budget %s", i, c.describeFailed(), c.actualRisk, c.riskBudget)
	}
}

// randomBasis fills a risk basis: an amount, or a balance (sometimes 0 or
// negative) and a percent.
func randomBasis(r *rand.Rand, set func(k, v string)) (percent bool, balance, budget decimal.Decimal) {
	if r.IntN(2) == 0 {
		budget = randDecimal(r, maxDollarRisk, 2)
		set("riskAmount", budget.String())
		return false, decimal.Zero, budget
	}
	balance = randDecimal(r, maxBalance, 4)
	switch r.IntN(16) {
	case 0:
		balance = balance.Neg()
	case 1:
		balance = decimal.Zero
	}
	pct := randDecimal(r, hundred, 4)
	set("balance", balance.String())
	set("riskPercent", pct.String())
	return true, balance, balance.Mul(pct).Shift(-2)
}

// randomPrices returns an entry and a stop on the right side of it.
func randomPrices(r *rand.Rand, short bool) (entry, stop decimal.Decimal) {
	entry = randDecimal(r, maxPrice.Sub(decimal.New(1, -2)), 5)
	if short {
		return entry, entry.Add(randDecimal(r, maxPrice.Sub(entry), 6))
	}
	for stop = entry; !stop.IsPositive() || stop.Equal(entry); {
		stop = entry.Sub(randDecimal(r, entry, 7))
	}
	return entry, stop
}

var (
	propertyPairs = []string{"EUR/USD", "USD/JPY", "EUR/GBP", "GBP/JPY", "XAU/USD", "XAG/USD", "AUD/CAD", "USD/CHF", "EUR/CHF"}
	propertyCodes = []string{"USD", "EUR", "GBP", "JPY", "CHF", "AUD", "CAD"}
	propertySteps = []string{"0.01", "0.1", "1", "0.001", "0.05", "0.00001", "0.25", "100"}
)

func TestForexProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(20261201, 32))
	counts := &statusCounts{sized: map[string]int{}, byStatus: map[string]int{}}
	bySource := map[string]int{}
	for i := range 20000 {
		in := ForexInput{Pair: propertyPairs[r.IntN(len(propertyPairs))], Direction: "long"}
		pair, _ := instrument.ParseForex(in.Pair)
		short := r.IntN(2) == 0
		if short {
			in.Direction = "short"
		}
		entry, stop := randomPrices(r, short)
		in.EntryPrice, in.StopLoss = NewField(entry.String()), NewField(stop.String())
		percent, balance, budget := randomBasis(r, func(k, v string) {
			switch k {
			case "riskAmount":
				in.RiskAmount = NewField(v)
			case "balance":
				in.Balance = NewField(v)
			case "riskPercent":
				in.RiskPercent = NewField(v)
			}
		})
		step := decimal.RequireFromString(propertySteps[r.IntN(len(propertySteps))])
		in.LotStep = NewField(step.String())

		one := decimal.NewFromInt(1)
		num, den := one, one
		switch k := r.IntN(3); {
		case k == 0:
			in.AccountCurrency = pair.Quote
		case k == 1 && pair.Base != "XAU" && pair.Base != "XAG":
			in.AccountCurrency, den = pair.Base, entry
		default:
			for in.AccountCurrency == "" || in.AccountCurrency == pair.Base || in.AccountCurrency == pair.Quote {
				in.AccountCurrency = propertyCodes[r.IntN(len(propertyCodes))]
			}
			num = randDecimal(r, maxRate, 8)
			in.ConversionRate = NewField(num.String())
		}

		p, err := ValidateForex(in)
		if err != nil {
			t.Fatalf("iteration %d: ValidateForex(%+v): %v", i, in, err)
		}
		out := CalculateForex(p)
		bySource[out.ConversionSource]++
		if !decimal.RequireFromString(out.Units).Equal(decimal.RequireFromString(out.Lots).Mul(pair.LotUnits())) ||
			!decimal.RequireFromString(out.MicroLots).Equal(decimal.RequireFromString(out.Lots).Shift(2)) {
			t.Fatalf("iteration %d: %+v: units %s, lots %s, micro lots %s disagree", i, in, out.Units, out.Lots, out.MicroLots)
		}
		steppedCheck{percent: percent, balance: balance, budget: budget, step: step, perLot: pair.LotUnits(),
			stop: entry.Sub(stop).Abs(), num: num, den: den, lots: out.Lots, actualRisk: out.ActualRisk,
			riskBudget: out.RiskBudget, status: out.SizingStatus, counts: counts,
			describeFailed: func() string { return in.Pair + " " + in.AccountCurrency + " " + entry.String() + "/" + stop.String() },
		}.check(t, i)
	}
	if counts.sized["sized"] < 5000 || counts.byStatus[NothingToSizeAgainst] < 100 || counts.byStatus[ExceedsMaximum] < 100 ||
		bySource[RateQuote] < 1000 || bySource[RateBase] < 1000 || bySource[RateGiven] < 1000 {
		t.Fatalf("weak coverage: %v %v %v", counts.sized, counts.byStatus, bySource)
	}
	t.Logf("%v, zero outcomes %v, rates %v", counts.sized, counts.byStatus, bySource)
}

func TestCFDProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(20261201, 33))
	counts := &statusCounts{sized: map[string]int{}, byStatus: map[string]int{}}
	for i := range 20000 {
		in := CFDInput{Symbol: "US500", AccountCurrency: "USD", Direction: "long"}
		short := r.IntN(2) == 0
		if short {
			in.Direction = "short"
		}
		entry, stop := randomPrices(r, short)
		in.EntryPrice, in.StopLoss = NewField(entry.String()), NewField(stop.String())
		percent, balance, budget := randomBasis(r, func(k, v string) {
			switch k {
			case "riskAmount":
				in.RiskAmount = NewField(v)
			case "balance":
				in.Balance = NewField(v)
			case "riskPercent":
				in.RiskPercent = NewField(v)
			}
		})
		step := decimal.RequireFromString(propertySteps[r.IntN(len(propertySteps))])
		in.ContractStep = NewField(step.String())
		pointValue := randDecimal(r, maxPrice, 4)
		in.PointValue = NewField(pointValue.String())
		num := decimal.NewFromInt(1)
		if r.IntN(2) == 0 {
			in.QuoteCurrency = "EUR"
			num = randDecimal(r, maxRate, 8)
			in.ConversionRate = NewField(num.String())
		}

		p, err := ValidateCFD(in)
		if err != nil {
			t.Fatalf("iteration %d: ValidateCFD(%+v): %v", i, in, err)
		}
		out := CalculateCFD(p)
		steppedCheck{percent: percent, balance: balance, budget: budget, step: step, perLot: pointValue,
			stop: entry.Sub(stop).Abs(), num: num, den: decimal.NewFromInt(1), lots: out.Contracts, actualRisk: out.ActualRisk,
			riskBudget: out.RiskBudget, status: out.SizingStatus, counts: counts,
			describeFailed: func() string { return entry.String() + "/" + stop.String() + " x " + pointValue.String() },
		}.check(t, i)
	}
	if counts.sized["sized"] < 5000 || counts.byStatus[NothingToSizeAgainst] < 100 || counts.byStatus[ExceedsMaximum] < 100 {
		t.Fatalf("weak coverage: %v %v", counts.sized, counts.byStatus)
	}
	t.Logf("%v, zero outcomes %v", counts.sized, counts.byStatus)
}
