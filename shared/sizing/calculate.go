package sizing

import (
	"github.com/shopspring/decimal"

	"tradejournal/shared/money"
)

// The values of Output.SizingStatus.
const (
	NothingToSizeAgainst = "nothing-to-size-against"
	ExceedsMaximum       = "exceeds-maximum"
	BuyingPowerZero      = "buying-power-zero"
)

// MaxPositionSize is the largest position size Calculate returns:
// 2^53 - 1, the largest integer a JSON client that reads numbers as doubles
// (every browser) holds exactly. Only absurd inputs reach it (a per-unit risk
// of about a millionth of a cent or less, with no cap); they get
// ExceedsMaximum rather than a positionSize the client would misread.
const MaxPositionSize = 1<<53 - 1

var maxPositionSize = decimal.NewFromInt(MaxPositionSize)

// Output is the response body of POST /api/calculator. Decimal figures are
// strings rounded half away from zero to 2 places. Omitted fields are absent,
// never null.
type Output struct {
	PositionSize       int64  `json:"positionSize"`
	PerUnitRisk        string `json:"perUnitRisk"`
	ActualDollarRisk   string `json:"actualDollarRisk"`
	TotalPositionValue string `json:"totalPositionValue"`
	// With a target price.
	PerUnitReward   string `json:"perUnitReward,omitempty"`
	RiskRewardRatio string `json:"riskRewardRatio,omitempty"`
	// Percent basis with a positive balance, whatever the outcome.
	DerivedDollarRisk string `json:"derivedDollarRisk,omitempty"`
	// With fees supplied and a position size above 0.
	EstimatedFees           string `json:"estimatedFees,omitempty"`
	FeeToRiskPercent        string `json:"feeToRiskPercent,omitempty"`
	AdjustedDollarRisk      string `json:"adjustedDollarRisk,omitempty"`
	Breakeven               string `json:"breakeven,omitempty"`
	AdjustedRiskRewardRatio string `json:"adjustedRiskRewardRatio,omitempty"` // also needs a target
	// Only on a zero-size outcome.
	SizingStatus string `json:"sizingStatus,omitempty"`
	// Only when the cap, not the risk budget, set a size above 0.
	BuyingPowerLimited bool `json:"buyingPowerLimited,omitempty"`
}

// FeeSchedule is a brokerage fee schedule (also used by the journal to
// estimate fill fees). A maximum of 0 means no maximum.
type FeeSchedule struct {
	StockPerShareCommission       decimal.Decimal
	StockMinPerFill               decimal.Decimal
	StockMaxPerFill               decimal.Decimal
	OptionsPerContractCommission  decimal.Decimal
	OptionsPerContractExchangeFee decimal.Decimal
	OptionsMinPerFill             decimal.Decimal
	OptionsMaxPerFill             decimal.Decimal
}

// FillFee is the fee of one fill of qty units (shares, or contracts when
// options): stock qty x perShare, options qty x (perContract + exchangeFee),
// raised to the minimum and then lowered to the maximum (so a maximum below
// the minimum wins, as brokers that cap a fee at a share of the trade do),
// rounded half-up to 4 places. A fill of no units (qty <= 0) costs nothing:
// the minimum is per fill, and there is no fill.
func (s FeeSchedule) FillFee(options bool, qty decimal.Decimal) decimal.Decimal {
	if !qty.IsPositive() {
		return decimal.Zero
	}
	var fee, minFee, maxFee decimal.Decimal
	if options {
		fee = qty.Mul(s.OptionsPerContractCommission.Add(s.OptionsPerContractExchangeFee))
		minFee, maxFee = s.OptionsMinPerFill, s.OptionsMaxPerFill
	} else {
		fee = qty.Mul(s.StockPerShareCommission)
		minFee, maxFee = s.StockMinPerFill, s.StockMaxPerFill
	}
	if fee.LessThan(minFee) {
		fee = minFee
	}
	if maxFee.IsPositive() && fee.GreaterThan(maxFee) {
		fee = maxFee
	}
	if fee.Exponent() < -4 { // Round would only copy a value of 4 places or fewer
		fee = fee.Round(4)
	}
	return fee
}

// Calculate sizes the position. It never fails: every outcome that cannot be
// sized is a positionSize of 0 with a SizingStatus. The checks run in this
// order, and the first that applies decides the status:
//
//  1. percent basis with balance <= 0: NothingToSizeAgainst (there is no
//     budget, and no derivedDollarRisk);
//  2. percent basis with balance x riskPercent / 100 (full precision) above
//     99,999,999.99, the dollarRisk ceiling: ExceedsMaximum;
//  3. floor(budget / (perUnitRisk x multiplier)) = 0, a budget too small for
//     one unit: NothingToSizeAgainst;
//  4. a cap basis (buyingPower when given, on either basis; else balance on
//     the percent basis) that funds no unit, floor(capBasis / (entry x
//     multiplier)) <= 0, including any buyingPower <= 0: BuyingPowerZero;
//     a cap below the risk size sets the size and BuyingPowerLimited;
//  5. a size above MaxPositionSize: ExceedsMaximum.
//
// The risk budget never consults buyingPower. Fees are those of a round trip
// at the chosen size (entry at entryPrice, exit at stopLoss): twice
// FillFee with a schedule, or manualFees as the total; their figures are
// omitted at size 0 so nothing divides by zero.
func Calculate(p Params) Output {
	risk := p.entry.Sub(p.stop).Abs()
	out := Output{PerUnitRisk: money.Round2(risk), ActualDollarRisk: "0.00", TotalPositionValue: "0.00"}

	var reward decimal.Decimal
	if p.hasTarget {
		reward = p.target.Sub(p.entry).Abs()
		out.PerUnitReward = money.Round2(reward)
		if risk.IsPositive() {
			out.RiskRewardRatio = money.Round2(divRound(reward, risk, 2))
		}
	}

	size, status, limited := p.size(risk, &out)
	if status != "" {
		out.SizingStatus = status
		return out
	}
	out.PositionSize = size.IntPart()
	out.BuyingPowerLimited = limited

	units := p.perContract(size) // shares, or contracts x 100
	actual := risk.Mul(units)
	out.ActualDollarRisk = money.Round2(actual)
	value := p.entry.Mul(units)
	out.TotalPositionValue = money.Round2(value)

	var fees decimal.Decimal
	switch p.fees {
	case noFees:
		return out
	case scheduleFees:
		fee := p.schedule.FillFee(p.options, size)
		fees = fee.Add(fee)
	case manualFees:
		fees = p.manualFees
	}
	adjusted := actual.Add(fees)
	out.EstimatedFees = money.Round2(fees)
	out.FeeToRiskPercent = money.Round2(divRound(fees.Shift(2), actual, 2))
	out.AdjustedDollarRisk = money.Round2(adjusted)
	// breakeven = entry +/- fees/units, as one exact division.
	var moved decimal.Decimal
	if p.short {
		moved = value.Sub(fees)
	} else {
		moved = value.Add(fees)
	}
	out.Breakeven = money.Round2(divRound(moved, units, 2))
	if p.hasTarget {
		net := reward.Mul(units).Sub(fees)
		out.AdjustedRiskRewardRatio = money.Round2(divRound(net, adjusted, 2))
	}
	return out
}

// size returns the position size, or a zero-size status, following the
// order documented on Calculate. It sets out.DerivedDollarRisk on the percent
// basis. The size is an integer-valued decimal of at most MaxPositionSize.
func (p Params) size(risk decimal.Decimal, out *Output) (size decimal.Decimal, status string, limited bool) {
	budget, derived, status := p.basis.budget()
	out.DerivedDollarRisk = derived
	if status != "" {
		return decimal.Zero, status, false
	}

	unitRisk := p.perContract(risk)
	if !budget.IsPositive() || !unitRisk.IsPositive() {
		return decimal.Zero, NothingToSizeAgainst, false // only the zero Params
	}
	size = floorDiv(budget, unitRisk)
	if size.IsZero() {
		return decimal.Zero, NothingToSizeAgainst, false
	}

	capBasis, hasCap := p.buyingPower, p.hasBuyingPower
	if !hasCap && p.basis.percent {
		capBasis, hasCap = p.basis.balance, true
	}
	if hasCap {
		unitCost := p.perContract(p.entry)
		if !capBasis.IsPositive() || !unitCost.IsPositive() {
			return decimal.Zero, BuyingPowerZero, false
		}
		capSize := floorDiv(capBasis, unitCost)
		if capSize.IsZero() {
			return decimal.Zero, BuyingPowerZero, false
		}
		if capSize.LessThan(size) {
			size, limited = capSize, true
		}
	}

	if size.GreaterThan(maxPositionSize) {
		return decimal.Zero, ExceedsMaximum, false
	}
	return size, "", limited
}

// perContract applies the multiplier: x 100 for options (a shift, which
// costs no allocation), x 1 for stock.
func (p Params) perContract(d decimal.Decimal) decimal.Decimal {
	if p.options {
		return d.Shift(2)
	}
	return d
}
