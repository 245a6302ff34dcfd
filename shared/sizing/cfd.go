package sizing

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/instrument"
)

// CFDInput is the request body of POST /api/calculator/cfd.
type CFDInput struct {
	Symbol          string `json:"symbol"`
	AccountCurrency string `json:"accountCurrency"`
	// QuoteCurrency is the currency the CFD is priced in and PointValue is
	// in; absent, the account currency (or, with ConversionRate, one left
	// unnamed).
	QuoteCurrency  string `json:"quoteCurrency,omitempty"`
	PointValue     Field  `json:"pointValue"`
	Direction      string `json:"direction"`
	EntryPrice     Field  `json:"entryPrice"`
	StopLoss       Field  `json:"stopLoss"`
	TargetPrice    Field  `json:"targetPrice,omitzero"`
	RiskAmount     Field  `json:"riskAmount,omitzero"`
	Balance        Field  `json:"balance,omitzero"`
	RiskPercent    Field  `json:"riskPercent,omitzero"`
	ConversionRate Field  `json:"conversionRate,omitzero"`
	ContractStep   Field  `json:"contractStep,omitzero"`
}

// CFDParams is a validated CFD request; only ValidateCFD makes one other
// than the zero value, which CalculateCFD still answers.
type CFDParams struct {
	stepped
	symbol, account, quote string
}

// CFDOutput is the response body of POST /api/calculator/cfd. Money figures
// are in the account currency, rounded half away from zero to 2 places;
// points and contracts are exact.
type CFDOutput struct {
	Symbol          string `json:"symbol"`
	AccountCurrency string `json:"accountCurrency"`
	QuoteCurrency   string `json:"quoteCurrency,omitempty"`
	PointValue      string `json:"pointValue"` // as given, in the quote currency
	StopPoints      string `json:"stopPoints"`
	RiskPerContract string `json:"riskPerContract"`
	// ConversionRate is the value of 1 unit of the quote currency in the
	// account currency; ConversionSource is RateQuote (1: the same
	// currency) or RateGiven.
	ConversionRate   string `json:"conversionRate"`
	ConversionSource string `json:"conversionSource"`
	Contracts        string `json:"contracts"`
	PositionValue    string `json:"positionValue"`
	ActualRisk       string `json:"actualRisk"`
	RiskBudget       string `json:"riskBudget,omitempty"`
	RewardPoints     string `json:"rewardPoints,omitempty"`
	Reward           string `json:"reward,omitempty"`
	RiskRewardRatio  string `json:"riskRewardRatio,omitempty"`
	SizingStatus     string `json:"sizingStatus,omitempty"`
}

// ValidateCFD checks a CFD request: the stock calculator's rules for the
// prices and the risk basis (riskAmount in place of dollarRisk), a symbol
// of free text (1 to 32 characters, for the answer only), accountCurrency
// and the optional quoteCurrency as ISO 4217 codes, pointValue (the value
// of a 1-point move of one contract, in the quote currency) greater than
// 0 and at most 9999999.99, contractStep as the forex lotStep. A
// conversionRate (the value of 1 unit of the quote currency in the account
// currency) is required when quoteCurrency names another currency than the
// account's, refused when it names the account's own, and optional without
// quoteCurrency (then it converts a point value in an unnamed currency).
func ValidateCFD(in CFDInput) (CFDParams, error) {
	var (
		p CFDParams
		v validator
	)
	p.symbol = strings.TrimSpace(in.Symbol)
	switch {
	case p.symbol == "":
		v.add("symbol", msgRequired)
	case utf8.RuneCountInString(p.symbol) > instrument.MaxSymbol || !utf8.ValidString(p.symbol):
		v.add("symbol", "must be at most 32 characters")
	case strings.ContainsFunc(p.symbol, unicode.IsControl):
		v.add("symbol", "must not hold control characters")
	}
	var accountOK bool
	p.account, accountOK = v.currency("accountCurrency", in.AccountCurrency)
	quoteOK := true
	if strings.TrimSpace(in.QuoteCurrency) != "" {
		p.quote, quoteOK = v.currency("quoteCurrency", in.QuoteCurrency)
	}
	p.perLot, _, _ = v.decimal("pointValue", in.PointValue, true, checkPrice)

	f := steppedFields{Direction: in.Direction, EntryPrice: in.EntryPrice, StopLoss: in.StopLoss, TargetPrice: in.TargetPrice,
		RiskAmount: in.RiskAmount, Balance: in.Balance, RiskPercent: in.RiskPercent,
		ConversionRate: in.ConversionRate, Step: in.ContractStep, stepField: "contractStep"}
	var (
		rate            decimal.Decimal
		hasRate, rateOK bool
	)
	perLot := p.perLot
	p.stepped, rate, hasRate, rateOK = v.stepped(&f)
	p.perLot = perLot

	one := decimal.NewFromInt(1)
	p.rateNum, p.rateDen, p.rateSource = one, one, RateQuote
	switch {
	case !accountOK || !quoteOK:
	case p.quote == "" && hasRate:
		p.rateNum, p.rateSource = rate, RateGiven
	case p.quote == "" || p.quote == p.account:
		if rateOK {
			v.add("conversionRate", "must be left out: the point value is in the account currency "+p.account+", so the rate is 1")
		}
	case !hasRate:
		v.add("conversionRate", "is required (the value of 1 "+p.quote+" in "+p.account+", since the point value is in "+p.quote+")")
	default:
		p.rateNum, p.rateSource = rate, RateGiven
	}
	v.steppedStructure(p.stepped, f)

	if err := apperr.Fields(v.details); err != nil {
		return CFDParams{}, err
	}
	return p, nil
}

// CalculateCFD sizes a CFD position: contracts, a whole number of contract
// steps, the most whose loss at the stop (|entry - stop| x contracts x
// pointValue x rate) is within the risk budget. It never fails: a size of
// 0 comes with a SizingStatus.
func CalculateCFD(p CFDParams) CFDOutput {
	z := p.size()
	f := p.figures(z)
	out := CFDOutput{
		Symbol:           p.symbol,
		AccountCurrency:  p.account,
		QuoteCurrency:    p.quote,
		PointValue:       p.perLot.String(),
		StopPoints:       z.stopRaw.String(),
		RiskPerContract:  p.inAccount(z.stopRaw.Mul(p.perLot)),
		ConversionRate:   p.rateText(),
		ConversionSource: p.rateSource,
		Contracts:        z.lots.StringFixed(fracPlaces(p.step)),
		PositionValue:    f.positionValue,
		ActualRisk:       f.actualRisk,
		RiskBudget:       z.budget,
		SizingStatus:     z.status,
	}
	if p.hasTarget {
		out.RewardPoints = f.rewardRaw.String()
		out.Reward = f.reward
		out.RiskRewardRatio = f.ratio
	}
	return out
}
