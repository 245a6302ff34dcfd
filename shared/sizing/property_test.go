package sizing

import (
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"

	"tradejournal/shared/money"
)

// randDecimal returns a random decimal in (0, max] with up to maxScale
// fraction digits, spread over magnitudes (log-uniform in its digit count)
// so that tiny and huge values are both common.
func randDecimal(r *rand.Rand, max decimal.Decimal, maxScale int) decimal.Decimal {
	for {
		scale := r.IntN(maxScale + 1)
		digits := 1 + r.IntN(18)
		var bound int64 = 1
		for range digits {
			bound *= 10
		}
		d := decimal.New(1+r.Int64N(bound-1), -int32(scale))
		if d.LessThanOrEqual(max) {
			return d
		}
	}
}

func TestSizingProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(20240611, 1))
	var sized, limited, statuses int
	byStatus := map[string]int{}
	for i := range 20000 {
		in := Input{Mode: "stock", Direction: "long"}
		mult := decimal.NewFromInt(1)
		if r.IntN(2) == 0 {
			in.Mode, mult = "options", hundred
		}
		short := r.IntN(2) == 0
		if short {
			in.Direction = "short"
		}

		entry := randDecimal(r, maxPrice.Sub(decimal.New(1, -2)), 4)
		var stop decimal.Decimal
		if short {
			stop = entry.Add(randDecimal(r, maxPrice.Sub(entry), 4))
		} else {
			for stop = entry; !stop.IsPositive() || stop.Equal(entry); {
				stop = entry.Sub(randDecimal(r, entry, 6))
			}
		}
		in.EntryPrice, in.StopLoss = NewField(entry.String()), NewField(stop.String())

		percent := r.IntN(2) == 0
		var budget, balance decimal.Decimal
		if percent {
			balance = randDecimal(r, maxBalance, 4)
			if r.IntN(8) == 0 {
				balance = balance.Neg()
			} else if r.IntN(16) == 0 {
				balance = decimal.Zero
			}
			pct := randDecimal(r, hundred, 4)
			in.Balance, in.RiskPercent = NewField(balance.String()), NewField(pct.String())
			budget = balance.Mul(pct).Div(hundred) // exact: a division by 100 terminates
		} else {
			budget = randDecimal(r, maxDollarRisk, 2)
			in.DollarRisk = NewField(budget.String())
		}

		capBasis, hasCap := balance, percent
		if r.IntN(3) == 0 {
			capBasis, hasCap = randDecimal(r, maxBalance, 4), true
			if r.IntN(8) == 0 {
				capBasis = capBasis.Neg()
			}
			in.BuyingPower = NewField(capBasis.String())
		}
		switch r.IntN(3) {
		case 0:
			in.ManualFees = NewField(randDecimal(r, maxPrice, 2).String())
		case 1:
			in.FeeSchedule = &FeeScheduleInput{
				StockPerShareCommission:      NewField(randDecimal(r, decimal.New(1, 0), 4).String()),
				StockMinPerFill:              NewField("1"),
				OptionsPerContractCommission: NewField("0.65"),
				OptionsMaxPerFill:            NewField(randDecimal(r, maxPrice, 2).String()),
			}
		}

		p, err := Validate(in)
		if err != nil {
			t.Fatalf("iteration %d: Validate(%+v): %v", i, in, err)
		}
		out := Calculate(p)

		unitRisk := entry.Sub(stop).Abs().Mul(mult)
		unitCost := entry.Mul(mult)
		fits := func(n decimal.Decimal) bool {
			return n.Mul(unitRisk).LessThanOrEqual(budget) && (!hasCap || n.Mul(unitCost).LessThanOrEqual(capBasis))
		}

		if out.SizingStatus != "" {
			statuses++
			byStatus[out.SizingStatus]++
			if out.PositionSize != 0 || out.BuyingPowerLimited || out.EstimatedFees != "" {
				t.Fatalf("iteration %d: %+v: a status with a size, a limit or fees", i, out)
			}
			var why bool
			switch out.SizingStatus {
			case NothingToSizeAgainst:
				why = (percent && !balance.IsPositive()) || budget.LessThan(unitRisk)
			case ExceedsMaximum:
				why = (percent && budget.GreaterThan(maxDollarRisk)) || fits(decimal.NewFromInt(MaxPositionSize+1))
			case BuyingPowerZero:
				why = hasCap && capBasis.LessThan(unitCost)
			}
			if !why {
				t.Fatalf("iteration %d: %+v: status %s without its cause (budget %s, cap basis %s)", i, in, out.SizingStatus, budget, capBasis)
			}
			continue
		}

		sized++
		size := decimal.NewFromInt(out.PositionSize)
		if out.PositionSize <= 0 {
			t.Fatalf("iteration %d: %+v: size %d without a status", i, in, out.PositionSize)
		}
		if !fits(size) {
			t.Fatalf("iteration %d: %+v: size %d breaks the budget %s or the cap %s", i, in, out.PositionSize, budget, capBasis)
		}
		next := decimal.NewFromInt(out.PositionSize + 1)
		if fits(next) {
			t.Fatalf("iteration %d: %+v: size %d is not the largest (budget %s, cap %s)", i, in, out.PositionSize, budget, capBasis)
		}
		// The cap limited the size exactly when the budget alone allowed more.
		if riskAllowsMore := next.Mul(unitRisk).LessThanOrEqual(budget); out.BuyingPowerLimited != riskAllowsMore {
			t.Fatalf("iteration %d: %+v: buyingPowerLimited %v, budget allows more: %v", i, in, out.BuyingPowerLimited, riskAllowsMore)
		}
		if out.BuyingPowerLimited {
			limited++
		}
		if want := money.Round2(unitRisk.Mul(size)); out.ActualDollarRisk != want {
			t.Fatalf("iteration %d: actualDollarRisk %s, want %s", i, out.ActualDollarRisk, want)
		}
		if (in.ManualFees.IsZero() && in.FeeSchedule == nil) != (out.EstimatedFees == "") {
			t.Fatalf("iteration %d: fee fields %q with fees supplied: %v", i, out.EstimatedFees, out.EstimatedFees == "")
		}
	}
	// The generator must reach every kind of outcome, or the test proves little.
	if sized < 5000 || limited < 500 || byStatus[NothingToSizeAgainst] < 100 || byStatus[ExceedsMaximum] < 100 || byStatus[BuyingPowerZero] < 100 {
		t.Fatalf("weak coverage: %d sized, %d limited, zero outcomes %v", sized, limited, byStatus)
	}
	t.Logf("%d sized, %d limited by the cap, %d zero outcomes %v", sized, limited, statuses, byStatus)
}
