package sizing

import (
	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/instrument"
)

// ForexInput is the request body of POST /api/calculator/forex. Decimal
// fields are JSON strings, as the stock calculator's.
type ForexInput struct {
	Pair            string `json:"pair"`
	AccountCurrency string `json:"accountCurrency"`
	Direction       string `json:"direction"`
	EntryPrice      Field  `json:"entryPrice"`
	StopLoss        Field  `json:"stopLoss"`
	TargetPrice     Field  `json:"targetPrice,omitzero"`
	RiskAmount      Field  `json:"riskAmount,omitzero"`
	Balance         Field  `json:"balance,omitzero"`
	RiskPercent     Field  `json:"riskPercent,omitzero"`
	ConversionRate  Field  `json:"conversionRate,omitzero"`
	LotStep         Field  `json:"lotStep,omitzero"`
}

// ForexParams is a validated forex request; only ValidateForex makes one
// other than the zero value, which CalculateForex still answers.
type ForexParams struct {
	stepped
	pair    instrument.Pair
	account string
}

// ForexOutput is the response body of POST /api/calculator/forex. Money
// figures are in the account currency, rounded half away from zero to 2
// places; pips, units and lot counts are exact. Omitted fields are absent,
// never null.
type ForexOutput struct {
	Pair            string `json:"pair"` // canonical, "EUR/USD"
	QuoteCurrency   string `json:"quoteCurrency"`
	AccountCurrency string `json:"accountCurrency"`
	PipSize         string `json:"pipSize"`
	LotUnits        string `json:"lotUnits"` // units of the base in one standard lot
	StopPips        string `json:"stopPips"`
	PipValuePerLot  string `json:"pipValuePerLot"`
	// ConversionRate is the value of 1 unit of the quote currency in the
	// account currency; ConversionSource says where it came from
	// (RateQuote, RateBase, RateGiven).
	ConversionRate   string `json:"conversionRate"`
	ConversionSource string `json:"conversionSource"`
	Units            string `json:"units"`
	Lots             string `json:"lots"`
	MiniLots         string `json:"miniLots"`
	MicroLots        string `json:"microLots"`
	PositionValue    string `json:"positionValue"`
	ActualRisk       string `json:"actualRisk"`
	// RiskBudget is riskAmount, or balance x riskPercent / 100; absent on
	// the percent basis with a balance of 0 or less.
	RiskBudget string `json:"riskBudget,omitempty"`
	// With a target price.
	RewardPips      string `json:"rewardPips,omitempty"`
	Reward          string `json:"reward,omitempty"`
	RiskRewardRatio string `json:"riskRewardRatio,omitempty"`
	// Only on a zero-size outcome: NothingToSizeAgainst or ExceedsMaximum.
	SizingStatus string `json:"sizingStatus,omitempty"`
}

// ValidateForex checks a forex request and returns its parameters, or a
// VALIDATION_ERROR whose details name every bad field, in the order of
// ForexInput's fields. Beyond the stock calculator's rules (prices, the
// risk basis with riskAmount in place of dollarRisk, the structural price
// errors):
//   - pair is any form instrument.ParseForex reads, accountCurrency an
//     ISO 4217 code;
//   - conversionRate is the value of 1 unit of the pair's quote currency in
//     the account currency. It is required when the account currency is
//     neither of the pair's (its message names the rate: "the value of 1
//     GBP in USD"), and refused when it is one of them: the rate is then 1
//     (the quote) or 1 / entryPrice (the base), and a second figure for it
//     could only disagree;
//   - lotStep, default 0.01, is greater than 0 and at most 100 with at most
//     5 decimal places.
func ValidateForex(in ForexInput) (ForexParams, error) {
	var (
		p ForexParams
		v validator
	)
	pairOK := true
	if in.Pair == "" {
		pairOK = false
		v.add("pair", msgRequired)
	} else if pair, err := instrument.ParseForex(in.Pair); err != nil {
		pairOK = false
		v.add("pair", err.Error())
	} else {
		p.pair = pair
	}
	var accountOK bool
	p.account, accountOK = v.currency("accountCurrency", in.AccountCurrency)

	f := steppedFields{Direction: in.Direction, EntryPrice: in.EntryPrice, StopLoss: in.StopLoss, TargetPrice: in.TargetPrice,
		RiskAmount: in.RiskAmount, Balance: in.Balance, RiskPercent: in.RiskPercent,
		ConversionRate: in.ConversionRate, Step: in.LotStep, stepField: "lotStep"}
	var (
		rate            decimal.Decimal
		hasRate, rateOK bool
	)
	p.stepped, rate, hasRate, rateOK = v.stepped(&f)
	p.perLot = p.pair.LotUnits()

	one := decimal.NewFromInt(1)
	if pairOK && accountOK {
		switch p.account {
		case p.pair.Quote:
			p.rateNum, p.rateDen, p.rateSource = one, one, RateQuote
			if rateOK {
				v.add("conversionRate", "must be left out: the account currency "+p.account+" is the pair's quote currency, so the rate is 1")
			}
		case p.pair.Base:
			p.rateNum, p.rateDen, p.rateSource = one, p.entry, RateBase
			if rateOK {
				v.add("conversionRate", "must be left out: the account currency "+p.account+" is the pair's base currency, so the rate is 1/entryPrice")
			}
		default:
			p.rateNum, p.rateDen, p.rateSource = rate, one, RateGiven
			if !hasRate {
				v.add("conversionRate", "is required (the value of 1 "+p.pair.Quote+" in "+p.account+
					", since the account currency is neither of the pair's)")
			}
		}
	}
	v.steppedStructure(p.stepped, f)

	if err := apperr.Fields(v.details); err != nil {
		return ForexParams{}, err
	}
	return p, nil
}

// CalculateForex sizes a forex position: units = lots x LotUnits, lots a
// whole number of lot steps, the largest whose loss at the stop
// (|entry - stop| x units x rate) is within the risk budget. The pip value
// of a standard lot is PipSize x LotUnits x rate. It never fails: a size
// of 0 comes with a SizingStatus (as Calculate's).
func CalculateForex(p ForexParams) ForexOutput {
	z := p.size()
	pip := p.pair.PipSize()
	f := p.figures(z)
	units := z.lots.Mul(p.perLot)
	out := ForexOutput{
		Pair:             p.pair.Symbol(),
		QuoteCurrency:    p.pair.Quote,
		AccountCurrency:  p.account,
		PipSize:          pip.String(),
		LotUnits:         p.perLot.String(),
		StopPips:         pips(z.stopRaw, pip),
		PipValuePerLot:   p.inAccount(pip.Mul(p.perLot)),
		ConversionRate:   p.rateText(),
		ConversionSource: p.rateSource,
		Units:            units.String(),
		Lots:             z.lots.StringFixed(max(2, fracPlaces(p.step))),
		MiniLots:         z.lots.Shift(1).String(),
		MicroLots:        z.lots.Shift(2).String(),
		PositionValue:    f.positionValue,
		ActualRisk:       f.actualRisk,
		RiskBudget:       z.budget,
		SizingStatus:     z.status,
	}
	if p.hasTarget {
		out.RewardPips = pips(f.rewardRaw, pip)
		out.Reward = f.reward
		out.RiskRewardRatio = f.ratio
	}
	return out
}

// pips is a price distance in pips, exactly: the pip size is a power of
// ten, so the division is a shift.
func pips(distance, pip decimal.Decimal) string {
	if pip.IsZero() {
		return "0" // only the zero value
	}
	return distance.Shift(-pip.Exponent()).String()
}
