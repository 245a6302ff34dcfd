// Package sizing is the trade-size calculator of POST /api/calculator: how
// many shares or contracts to trade so that a stop-out loses no more than a
// risk budget, capped by what can be funded at entry, with the fees of the
// round trip. It is pure (no HTTP, no database) so that the handler is a thin
// decode/validate/calculate/respond and the rules can be tested as a table.
//
// All arithmetic is exact decimal, never float64: shopspring/decimal, and for
// the divisions int64 on its coefficients where they fit (quotient.go), with
// the same results. Divisions that feed a floor or a rounding are exact
// (floorDiv, divRound), never a rounded quotient.
package sizing

import (
	"errors"

	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/money"
)

// Input is the request body of POST /api/calculator as decoded from JSON.
// Decimal fields are JSON strings held in a Field, so that a JSON number is
// reported by Validate as a format error of that field.
type Input struct {
	Mode        string            `json:"mode"`
	Direction   string            `json:"direction"`
	EntryPrice  Field             `json:"entryPrice"`
	StopLoss    Field             `json:"stopLoss"`
	TargetPrice Field             `json:"targetPrice,omitzero"`
	DollarRisk  Field             `json:"dollarRisk,omitzero"`
	Balance     Field             `json:"balance,omitzero"`
	RiskPercent Field             `json:"riskPercent,omitzero"`
	BuyingPower Field             `json:"buyingPower,omitzero"`
	FeeSchedule *FeeScheduleInput `json:"feeSchedule,omitempty"`
	ManualFees  Field             `json:"manualFees,omitzero"`
}

// FeeScheduleInput is the feeSchedule object of the request. Every field is
// optional and absent means 0; a maximum of 0 means no maximum.
type FeeScheduleInput struct {
	StockPerShareCommission       Field `json:"stockPerShareCommission,omitzero"`
	StockMinPerFill               Field `json:"stockMinPerFill,omitzero"`
	StockMaxPerFill               Field `json:"stockMaxPerFill,omitzero"`
	OptionsPerContractCommission  Field `json:"optionsPerContractCommission,omitzero"`
	OptionsPerContractExchangeFee Field `json:"optionsPerContractExchangeFee,omitzero"`
	OptionsMinPerFill             Field `json:"optionsMinPerFill,omitzero"`
	OptionsMaxPerFill             Field `json:"optionsMaxPerFill,omitzero"`
}

// Params is a validated request. Its fields are unexported so that the only
// way to make one other than the zero value is Validate; Calculate still
// answers the zero value without panicking.
type Params struct {
	options bool // mode options: multiplier 100
	short   bool

	entry, stop decimal.Decimal
	target      decimal.Decimal
	hasTarget   bool

	basis basis // dollarRisk, or balance x riskPercent

	buyingPower    decimal.Decimal
	hasBuyingPower bool

	fees       feeKind
	schedule   FeeSchedule
	manualFees decimal.Decimal
}

type feeKind uint8

const (
	noFees feeKind = iota
	scheduleFees
	manualFees
)

// The bounds of the request fields. Package-level because they are constants
// that decimal cannot express as Go constants.
var (
	maxPrice      = decimal.RequireFromString("9999999.99")
	maxDollarRisk = decimal.RequireFromString("99999999.99")
	// maxBalance bounds balance and buyingPower: the account-balance domain,
	// NUMERIC(18,4) in the database.
	maxBalance = decimal.RequireFromString("99999999999999.9999")
	hundred    = decimal.NewFromInt(100)
)

// The messages of the field errors.
const (
	msgRequired  = "is required"
	msgNotString = "must be a JSON string holding a decimal like \"123.45\", not a number or other value"
	msgPrice     = "must be greater than 0 and at most 9999999.99"
	msgDollar    = "must be greater than 0 and at most 99999999.99"
	msgBalance   = "must be between -99999999999999.9999 and 99999999999999.9999"
	msgPercent   = "must be greater than 0 and at most 100"
	msgFee       = "must be at least 0 and at most 9999999.99"
)

// Validate checks a request and returns its parameters, or an *apperr.Error
// VALIDATION_ERROR whose details name every bad field (JSON names; fee
// schedule fields as "feeSchedule.<name>"), one detail per problem.
//
// Blank strings (empty or whitespace only) count as absent in every decimal
// field, so an emptied form input is the same as a missing key; for
// entryPrice and stopLoss that means "is required".
//
// Rules beyond the per-field formats and bounds:
//   - exactly one risk basis: dollarRisk, or balance with riskPercent. Both
//     bases is reported on dollarRisk; neither on dollarRisk; half of the
//     percent basis on the missing half.
//   - feeSchedule with manualFees is reported on manualFees.
//   - structural price errors, checked only when the prices involved are
//     themselves valid, are reported on stopLoss or targetPrice (the field
//     that is wrong relative to entryPrice): stop equal to entry, a long's
//     stop above entry, a short's stop below entry, target equal to entry, a
//     long's target below entry, a short's target above entry.
func Validate(in Input) (Params, error) {
	var (
		p Params
		v validator
	)

	switch in.Mode {
	case "stock":
	case "options":
		p.options = true
	case "":
		v.add("mode", msgRequired)
	default:
		v.add("mode", "must be stock or options")
	}
	var directionOK bool
	p.short, directionOK = v.direction(in.Direction)

	var entryOK, stopOK, targetOK bool
	p.entry, _, entryOK = v.decimal("entryPrice", in.EntryPrice, true, checkPrice)
	p.stop, _, stopOK = v.decimal("stopLoss", in.StopLoss, true, checkPrice)
	p.target, p.hasTarget, targetOK = v.decimal("targetPrice", in.TargetPrice, false, checkPrice)

	p.basis = v.basisFields("dollarRisk", in.DollarRisk, in.Balance, in.RiskPercent)
	p.buyingPower, p.hasBuyingPower, _ = v.decimal("buyingPower", in.BuyingPower, false, checkBalance)
	v.basisRule(&p.basis)

	var hasManual bool
	p.manualFees, hasManual, _ = v.decimal("manualFees", in.ManualFees, false, checkFee)
	if fs := in.FeeSchedule; fs != nil {
		p.fees = scheduleFees
		p.schedule.StockPerShareCommission, _, _ = v.decimal("feeSchedule.stockPerShareCommission", fs.StockPerShareCommission, false, checkFee)
		p.schedule.StockMinPerFill, _, _ = v.decimal("feeSchedule.stockMinPerFill", fs.StockMinPerFill, false, checkFee)
		p.schedule.StockMaxPerFill, _, _ = v.decimal("feeSchedule.stockMaxPerFill", fs.StockMaxPerFill, false, checkFee)
		p.schedule.OptionsPerContractCommission, _, _ = v.decimal("feeSchedule.optionsPerContractCommission", fs.OptionsPerContractCommission, false, checkFee)
		p.schedule.OptionsPerContractExchangeFee, _, _ = v.decimal("feeSchedule.optionsPerContractExchangeFee", fs.OptionsPerContractExchangeFee, false, checkFee)
		p.schedule.OptionsMinPerFill, _, _ = v.decimal("feeSchedule.optionsMinPerFill", fs.OptionsMinPerFill, false, checkFee)
		p.schedule.OptionsMaxPerFill, _, _ = v.decimal("feeSchedule.optionsMaxPerFill", fs.OptionsMaxPerFill, false, checkFee)
		if hasManual {
			v.add("manualFees", "cannot be combined with feeSchedule: give one fee model")
		}
	} else if hasManual {
		p.fees = manualFees
	}

	v.structure(prices{p.entry, p.stop, p.target, entryOK, stopOK, p.hasTarget && targetOK}, directionOK, p.short)

	if err := apperr.Fields(v.details); err != nil {
		return Params{}, err
	}
	return p, nil
}

// direction reads the direction field: short for "short", ok false (with
// its detail) when it is neither long nor short.
func (v *validator) direction(s string) (short, ok bool) {
	switch s {
	case "long":
		return false, true
	case "short":
		return true, true
	case "":
		v.add("direction", msgRequired)
	default:
		v.add("direction", "must be long or short")
	}
	return false, false
}

// prices are a request's entry, stop and target as parsed, each with
// whether it is present and valid.
type prices struct {
	entry, stop, target       decimal.Decimal
	entryOK, stopOK, targetOK bool
}

// structure reports the structural price errors on stopLoss or targetPrice
// (the field that is wrong relative to entryPrice), each checked only when
// the prices involved are valid and the sides only with a valid direction:
// stop equal to entry, a long's stop above entry, a short's stop below
// entry, target equal to entry, a long's target below entry, a short's
// target above entry.
func (v *validator) structure(p prices, directionOK, short bool) {
	if p.entryOK && p.stopOK {
		switch c := p.stop.Cmp(p.entry); {
		case c == 0:
			v.add("stopLoss", "must differ from entryPrice")
		case directionOK && !short && c > 0:
			v.add("stopLoss", "must be below entryPrice for a long")
		case directionOK && short && c < 0:
			v.add("stopLoss", "must be above entryPrice for a short")
		}
	}
	if p.entryOK && p.targetOK {
		switch c := p.target.Cmp(p.entry); {
		case c == 0:
			v.add("targetPrice", "must differ from entryPrice")
		case directionOK && !short && c < 0:
			v.add("targetPrice", "must be above entryPrice for a long")
		case directionOK && short && c > 0:
			v.add("targetPrice", "must be below entryPrice for a short")
		}
	}
}

// basis is a request's risk basis: an amount (dollarRisk, or the forex and
// CFD calculators' riskAmount) in the account's money, or a percent of a
// balance.
type basis struct {
	amountField string // the JSON name of the amount
	percent     bool   // balance x riskPercent / 100 rather than the amount

	amount               decimal.Decimal
	balance, riskPercent decimal.Decimal

	hasAmount, hasBalance, hasPercent bool // presence, for basisRule
}

// basisFields parses the three fields of a risk basis; basisRule then
// checks that exactly one basis was given. They are two steps so that the
// stock calculator's details keep their order (buyingPower between them).
func (v *validator) basisFields(amountField string, amount, balance, percent Field) basis {
	b := basis{amountField: amountField}
	b.amount, b.hasAmount, _ = v.decimal(amountField, amount, false, checkDollarRisk)
	b.balance, b.hasBalance, _ = v.decimal("balance", balance, false, checkBalance)
	b.riskPercent, b.hasPercent, _ = v.decimal("riskPercent", percent, false, checkPercent)
	return b
}

// basisRule requires exactly one risk basis: the amount, or balance with
// riskPercent. Both bases, and neither, are reported on the amount; half of
// the percent basis on the missing half.
func (v *validator) basisRule(b *basis) {
	switch {
	case b.hasAmount && (b.hasBalance || b.hasPercent):
		v.add(b.amountField, "cannot be combined with balance or riskPercent: give one risk basis")
	case b.hasAmount:
	case b.hasBalance && b.hasPercent:
		b.percent = true
	case b.hasBalance:
		v.add("riskPercent", "is required with balance")
	case b.hasPercent:
		v.add("balance", "is required with riskPercent")
	default:
		v.add(b.amountField, "is required, or balance together with riskPercent")
	}
}

// budget is the risk budget at full precision, with its rounded form when
// derived from a percent (derived), or a zero-size status: the percent
// basis with a balance of 0 or less has none (NothingToSizeAgainst), and a
// derived budget above 99,999,999.99, the amount's ceiling, is
// ExceedsMaximum.
func (b basis) budget() (budget decimal.Decimal, derived, status string) {
	if !b.percent {
		return b.amount, "", ""
	}
	if !b.balance.IsPositive() {
		return decimal.Zero, "", NothingToSizeAgainst
	}
	// x / 100 is exact as a shift: "full precision".
	budget = b.balance.Mul(b.riskPercent).Shift(-2)
	derived = money.Round2(budget)
	if !atMost(budget, maxDollarRisk) {
		return decimal.Zero, derived, ExceedsMaximum
	}
	return budget, derived, ""
}

// validator collects the field errors of one request.
type validator struct{ details []apperr.FieldError }

func (v *validator) add(field, msg string) {
	v.details = append(v.details, apperr.FieldError{Field: field, Message: msg})
}

// decimal parses one decimal field and checks it with check, which returns
// the error message or "". present reports a non-blank field whether or not
// it was valid (the risk basis and fee exclusivity rules go by presence);
// ok reports a present, valid value.
func (v *validator) decimal(name string, f Field, required bool, check func(decimal.Decimal) string) (d decimal.Decimal, present, ok bool) {
	if f.blank() {
		if required {
			v.add(name, msgRequired)
		}
		return decimal.Zero, false, false
	}
	if f.kind == fieldNotString {
		v.add(name, msgNotString)
		return decimal.Zero, true, false
	}
	d, err := money.Parse(f.raw)
	if err != nil {
		v.add(name, parseMessage(err))
		return decimal.Zero, true, false
	}
	if msg := check(d); msg != "" {
		v.add(name, msg)
		return decimal.Zero, true, false
	}
	return d, true, true
}

// parseMessage turns money's sentinel errors, whose text is written for
// clients, into a field message; anything else gets the generic one.
func parseMessage(err error) string {
	if errors.Is(err, money.ErrTooLong) {
		return money.ErrTooLong.Error()
	}
	return money.ErrFormat.Error()
}

func checkPrice(d decimal.Decimal) string {
	if !d.IsPositive() || !atMost(d, maxPrice) {
		return msgPrice
	}
	return ""
}

func checkDollarRisk(d decimal.Decimal) string {
	if !d.IsPositive() || !atMost(d, maxDollarRisk) {
		return msgDollar
	}
	return ""
}

func checkBalance(d decimal.Decimal) string {
	if !absAtMost(d, maxBalance) {
		return msgBalance
	}
	return ""
}

func checkPercent(d decimal.Decimal) string {
	if !d.IsPositive() || !atMost(d, hundred) {
		return msgPercent
	}
	return ""
}

func checkFee(d decimal.Decimal) string {
	if d.IsNegative() || !atMost(d, maxPrice) {
		return msgFee
	}
	return ""
}

// atMost reports d <= max for a positive max. A d with fewer integer digits
// than max is below it without a comparison; Cmp of decimals of different
// exponents allocates, and this runs for every field of every request.
func atMost(d, max decimal.Decimal) bool {
	return smallerOrder(d, max) || d.Cmp(max) <= 0
}

// absAtMost reports |d| <= max for a positive max, as atMost does.
func absAtMost(d, max decimal.Decimal) bool {
	return smallerOrder(d, max) || d.Abs().Cmp(max) <= 0
}

// smallerOrder reports that |d| has fewer integer digits than a positive
// max, so |d| < max: |d| < 10^(digits(d) + exp(d)) and
// max >= 10^(digits(max) + exp(max) - 1).
func smallerOrder(d, max decimal.Decimal) bool {
	return int64(d.NumDigits())+int64(d.Exponent()) < int64(max.NumDigits())+int64(max.Exponent())
}
