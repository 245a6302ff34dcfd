package sizing

import (
	"strings"

	"github.com/shopspring/decimal"

	"tradejournal/shared/money"
)

// The forex and CFD calculators size a position in steps of a lot (or a
// contract) that may be fractional (0.01 lots), priced in a quote currency
// that need not be the account's. What they share is here: a position of
// n whole steps loses n x step x perLot x |entry - stop| in the quote
// currency at the stop, where perLot is the quote currency one lot (or
// contract) gains or loses on a price move of 1 (a forex lot's units of the
// base, a CFD's point value), and that loss is worth rate times as much in
// the account currency.
//
// The rate is kept as a fraction rateNum / rateDen so that 1 / entryPrice
// (a pair whose base is the account currency) stays exact: every figure is
// a product of decimals divided once by rateDen, exactly (floorDiv) or
// rounded once (divRound). The size is the largest whole number of steps
// whose risk is within the budget.

// The values of ForexOutput.ConversionSource and CFDOutput.ConversionSource.
const (
	// RateQuote: the account currency is the quote currency; the rate is 1.
	RateQuote = "quote"
	// RateBase: the account currency is the pair's base; the rate is
	// 1 / entryPrice.
	RateBase = "base"
	// RateGiven: the request's conversionRate.
	RateGiven = "given"
)

// MaxLots is the most lots (or contracts) the forex and CFD calculators
// size: a billion standard lots is 10^14 units of a currency, far beyond any
// market. A larger answer (a stop a fraction of a pip from entry) is
// ExceedsMaximum.
const MaxLots = 1_000_000_000

// Bounds of the fields the forex and CFD calculators add.
var (
	maxLots = decimal.NewFromInt(MaxLots)
	maxStep = decimal.NewFromInt(100)
	maxRate = decimal.NewFromInt(1_000_000)
	// defaultStep is the lot (or contract) step when none is given.
	defaultStep = decimal.New(1, -2)
)

// maxStepPlaces is the most fraction digits a lot or contract step has
// (0.00001 lots is one unit of a currency).
const maxStepPlaces = 5

const (
	msgStep = "must be greater than 0 and at most 100, with at most 5 decimal places"
	msgRate = "must be greater than 0 and at most 1000000"
	// msgCurrency is the words money.ValidCurrency's refusals use elsewhere.
	msgCurrency = "must be a three-letter ISO 4217 currency code such as USD or EUR"
)

// stepped is a validated forex or CFD request, less what is the
// instrument's own.
type stepped struct {
	short       bool
	entry, stop decimal.Decimal
	target      decimal.Decimal
	hasTarget   bool
	basis       basis

	// The value of 1 unit of the quote currency in the account currency:
	// rateNum / rateDen, from rateSource.
	rateNum, rateDen decimal.Decimal
	rateSource       string

	step   decimal.Decimal // lots or contracts per step
	perLot decimal.Decimal // quote currency per lot (or contract) per 1.0 of price
}

// steppedFields are the fields of a forex or CFD request that stepped
// holds, parsed in the order their details are reported.
type steppedFields struct {
	Direction                           string
	EntryPrice, StopLoss, TargetPrice   Field
	RiskAmount, Balance, RiskPercent    Field
	ConversionRate, Step                Field
	stepField                           string // lotStep or contractStep
	entryOK, stopOK, targetOK, directOK bool
}

// stepped reads the direction, the prices and the risk basis, and the
// rate and step fields' formats (the rate's rule is the caller's: it
// depends on the currencies). It returns the rate as given, whether one was
// (present), and whether it is valid (ok).
func (v *validator) stepped(f *steppedFields) (s stepped, rate decimal.Decimal, present, ok bool) {
	s.short, f.directOK = v.direction(f.Direction)
	s.entry, _, f.entryOK = v.decimal("entryPrice", f.EntryPrice, true, checkPrice)
	s.stop, _, f.stopOK = v.decimal("stopLoss", f.StopLoss, true, checkPrice)
	s.target, s.hasTarget, f.targetOK = v.decimal("targetPrice", f.TargetPrice, false, checkPrice)
	s.basis = v.basisFields("riskAmount", f.RiskAmount, f.Balance, f.RiskPercent)
	v.basisRule(&s.basis)
	rate, present, ok = v.decimal("conversionRate", f.ConversionRate, false, checkRate)
	var hasStep bool
	if s.step, hasStep, _ = v.decimal(f.stepField, f.Step, false, checkStep); !hasStep {
		s.step = defaultStep
	}
	return s, rate, present, ok
}

// steppedStructure reports the structural price errors of a stepped
// request, as the stock calculator does.
func (v *validator) steppedStructure(s stepped, f steppedFields) {
	v.structure(prices{s.entry, s.stop, s.target, f.entryOK, f.stopOK, s.hasTarget && f.targetOK}, f.directOK, s.short)
}

func checkRate(d decimal.Decimal) string {
	if !d.IsPositive() || !atMost(d, maxRate) {
		return msgRate
	}
	return ""
}

func checkStep(d decimal.Decimal) string {
	if !d.IsPositive() || !atMost(d, maxStep) || fracPlaces(d) > maxStepPlaces {
		return msgStep
	}
	return ""
}

// fracPlaces is the number of fraction digits d needs: 2 for 0.010.
func fracPlaces(d decimal.Decimal) int32 {
	if _, frac, ok := strings.Cut(d.String(), "."); ok { // String drops trailing zeros
		return int32(len(frac))
	}
	return 0
}

// sized is a stepped position's size: a whole number of steps, or a
// zero-size status.
type sized struct {
	steps   decimal.Decimal // whole steps; 0 with a status
	lots    decimal.Decimal // steps x step
	budget  string          // the risk budget, rounded; "" when there is none
	status  string
	stopRaw decimal.Decimal // |entry - stop|
}

// size finds the largest whole number of steps whose risk at the stop is
// within the budget: floor(budget x rateDen / (|entry - stop| x step x
// perLot x rateNum)). A percent basis without a budget, and a budget too
// small for one step, are NothingToSizeAgainst; a derived budget above the
// amount's ceiling, or more than MaxLots, ExceedsMaximum.
func (s stepped) size() sized {
	z := sized{steps: decimal.Zero, lots: decimal.Zero, stopRaw: s.entry.Sub(s.stop).Abs()}
	budget, derived, status := s.basis.budget()
	z.budget = derived
	if !s.basis.percent && budget.IsPositive() {
		z.budget = money.Round2(budget)
	}
	if status != "" {
		z.status = status
		return z
	}
	perStep := z.stopRaw.Mul(s.step).Mul(s.perLot).Mul(s.rateNum)
	if !budget.IsPositive() || !perStep.IsPositive() || !s.rateDen.IsPositive() {
		z.status = NothingToSizeAgainst // only the zero value
		return z
	}
	steps := floorDiv(budget.Mul(s.rateDen), perStep)
	switch lots := steps.Mul(s.step); {
	case steps.IsZero():
		z.status = NothingToSizeAgainst
	case lots.GreaterThan(maxLots):
		z.status = ExceedsMaximum
	default:
		z.steps, z.lots = steps, lots
	}
	return z
}

// inAccount is an amount of the quote currency in the account currency,
// rounded half away from zero to 2 places: x x rateNum / rateDen.
func (s stepped) inAccount(x decimal.Decimal) string {
	if !s.rateDen.IsPositive() {
		return "0.00" // only the zero value
	}
	return money.Round2(divRound(x.Mul(s.rateNum), s.rateDen, 2))
}

// rateText is the conversion rate as a decimal string: exact when given or
// 1, 1 / entryPrice rounded to 10 places (it rarely ends).
func (s stepped) rateText() string {
	if s.rateDen.IsZero() {
		return "0"
	}
	if s.rateDen.Equal(decimal.NewFromInt(1)) {
		return s.rateNum.String()
	}
	return divRound(s.rateNum, s.rateDen, 10).String()
}

// figures are the answer's amounts for a size: the risk at the stop, the
// reward at the target, and what the position is worth at entry, all in
// the account currency; and the reward-to-risk ratio.
type figures struct {
	actualRisk, positionValue string
	reward, ratio             string // with a target
	rewardRaw                 decimal.Decimal
}

func (s stepped) figures(z sized) figures {
	held := z.lots.Mul(s.perLot) // quote currency per 1.0 of price
	f := figures{actualRisk: s.inAccount(held.Mul(z.stopRaw)), positionValue: s.inAccount(held.Mul(s.entry))}
	if s.hasTarget {
		f.rewardRaw = s.target.Sub(s.entry).Abs()
		f.reward = s.inAccount(held.Mul(f.rewardRaw))
		if z.stopRaw.IsPositive() {
			f.ratio = money.Round2(divRound(f.rewardRaw, z.stopRaw, 2))
		}
	}
	return f
}

// currency reads an ISO 4217 code (any case, spaces around ignored); ok
// false, with its detail, when it is none.
func (v *validator) currency(field, s string) (code string, ok bool) {
	code = strings.ToUpper(strings.TrimSpace(s))
	switch {
	case code == "":
		v.add(field, msgRequired)
	case !money.ValidCurrency(code):
		v.add(field, msgCurrency)
	default:
		return code, true
	}
	return "", false
}
