package journal

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/instrument"
	"tradejournal/shared/money"
)

// MaxStrategyLegs bounds the legs of one strategy: the largest named one
// (an iron condor) has 4, a collar 3 and shares; 8 leaves room for
// adjustments without making the analysis a bulk calculator.
const MaxStrategyLegs = 8

// StrategyInput is the request body of POST /api/calculator/strategy.
// Volatility and Rate, in percent a year, are the model's for the estimate
// at the first expiry of legs that expire on different dates (FirstExpiry).
type StrategyInput struct {
	Legs       []StrategyLegInput `json:"legs"`
	Volatility Field              `json:"volatility,omitzero"` // implied, of every option leg without its own
	Rate       Field              `json:"rate,omitzero"`       // risk-free; DefaultRatePercent when left out
}

// StrategyLegInput is one leg of the request: an option given by type,
// strike and expiry, or by its OCC symbol (which says all three), or shares
// of the underlying (type "shares"). Decimals are JSON strings.
type StrategyLegInput struct {
	Type       string `json:"type,omitempty"`   // call, put or shares; may be left out with a symbol
	Symbol     string `json:"symbol,omitempty"` // an OCC option symbol, instead of strike and expiry
	Strike     Field  `json:"strike,omitzero"`
	Expiry     string `json:"expiry,omitempty"` // YYYY-MM-DD
	Side       string `json:"side"`             // long (bought) or short (sold)
	Quantity   Field  `json:"quantity"`         // contracts, or shares
	Price      Field  `json:"price"`            // per share
	Multiplier Field  `json:"multiplier,omitzero"`
	Volatility Field  `json:"volatility,omitzero"` // implied, percent a year: this leg's, over the request's
}

// VolatilityRule bounds an implied volatility in percent a year: above 0,
// and at most 500, beyond what even a meme stock's options are quoted at.
var VolatilityRule = DecimalRule{MinOpen: true, Max: decimal.NewFromInt(500), Places: 4,
	Message: "must be greater than 0 and at most 500 (percent a year, 30 for 30%)"}

// RateRule bounds a risk-free rate in percent a year: the negative rates
// some central banks have set, up to 25.
var RateRule = DecimalRule{Min: decimal.NewFromInt(-5), Max: decimal.NewFromInt(25), Places: 4,
	Message: "must be between -5 and 25 (percent a year)"}

// ValidateStrategy checks a request and returns its legs and model, or a
// VALIDATION_ERROR naming every bad field ("legs[2].strike", "rate").
// Rules beyond each field's format and bounds: 1 to MaxStrategyLegs legs;
// an option has a symbol or both strike and expiry, never both; a symbol's
// right agrees with a type given beside it; every symbol names one
// underlying; contracts are whole; a multiplier (default 100) and a
// volatility apply to options only.
func ValidateStrategy(in StrategyInput) ([]StrategyLeg, Model, error) {
	var p Problems
	m := Model{Rate: decimal.NewFromInt(DefaultRatePercent)}
	m.Volatility, _ = p.Decimal("volatility", in.Volatility, VolatilityRule)
	if r, ok := p.Decimal("rate", in.Rate, RateRule); ok {
		m.Rate = r
	}
	if len(in.Legs) == 0 || len(in.Legs) > MaxStrategyLegs {
		p.Add("legs", fmt.Sprintf("must hold 1 to %d legs", MaxStrategyLegs))
		return nil, Model{}, p.Err()
	}
	legs := make([]StrategyLeg, len(in.Legs))
	underlying := ""
	for i, l := range in.Legs {
		f := fmt.Sprintf("legs[%d].", i)
		leg := &legs[i]
		switch l.Side {
		case SideLong, SideShort:
			leg.Side = l.Side
		case "":
			p.Add(f+"side", "is required")
		default:
			p.Add(f+"side", "must be long or short")
		}
		leg.Quantity, _ = p.RequiredDecimal(f+"quantity", l.Quantity, QuantityRule)
		leg.Price, _ = p.RequiredDecimal(f+"price", l.Price, PriceRule)

		var right string // "C" or "P"; "" for shares, or for an option given by its symbol alone
		switch l.Type {
		case "call":
			right = "C"
		case "put":
			right = "P"
		case "", "shares":
		default:
			p.Add(f+"type", "must be call, put or shares")
			continue
		}
		if l.Type == "shares" {
			for _, g := range []struct {
				name  string
				given bool
			}{{"symbol", l.Symbol != ""}, {"strike", !l.Strike.Blank()}, {"expiry", l.Expiry != ""}, {"multiplier", !l.Multiplier.Blank()}, {"volatility", !l.Volatility.Blank()}} {
				if g.given {
					p.Add(f+g.name, "applies only to an option leg")
				}
			}
			continue
		}
		o := &instrument.Option{Right: right}
		switch {
		case l.Symbol != "":
			parsed, err := instrument.ParseOCC(l.Symbol)
			switch {
			case err != nil:
				p.Add(f+"symbol", err.Error())
			case right != "" && parsed.Right != right:
				p.Add(f+"type", "must match the symbol, which is a "+rightWord(StrategyLeg{Option: &parsed}))
			case underlying != "" && parsed.Underlying != underlying:
				p.Add(f+"symbol", "must be on the same underlying as the other legs ("+underlying+")")
			default:
				*o, underlying = parsed, parsed.Underlying
			}
			if !l.Strike.Blank() || l.Expiry != "" {
				p.Add(f+"symbol", "cannot be combined with strike or expiry: give the symbol, or the strike and expiry")
			}
		case right == "":
			p.Add(f+"type", "is required: call, put or shares (or give an option symbol)")
			continue
		default:
			o.Strike, _ = p.RequiredDecimal(f+"strike", l.Strike, PriceRule)
			if l.Expiry == "" {
				p.Add(f+"expiry", "is required")
			} else if t, err := ParseDate(l.Expiry); err != nil {
				p.Add(f+"expiry", "must be a date like 2024-01-19")
			} else {
				o.Expiry = t
			}
		}
		leg.Option = o
		if leg.Quantity.IsPositive() && !leg.Quantity.IsInteger() {
			p.Add(f+"quantity", "must be a whole number of contracts")
		}
		leg.Multiplier, _ = p.Decimal(f+"multiplier", l.Multiplier, MultiplierRule)
		leg.Volatility, _ = p.Decimal(f+"volatility", l.Volatility, VolatilityRule)
	}
	if err := p.Err(); err != nil {
		return nil, Model{}, err
	}
	return legs, m, nil
}

// StrategyOutput is the response body of POST /api/calculator/strategy.
// Money figures are rounded half away from zero to 2 places; prices
// (breakevens, payoff prices) are exact. maxProfit and maxLoss are absent
// when unlimited, and, with every figure at expiry, when the legs expire on
// different dates (payoffUndefined then says why). For those, FirstExpiry
// is the model's estimate at the first expiry when the request gave a
// volatility (payoffUndefined then asks for one).
type StrategyOutput struct {
	Name            StrategyName        `json:"name"`
	Label           string              `json:"label"`
	NetDebit        string              `json:"netDebit"`
	MaxProfit       string              `json:"maxProfit,omitempty"`
	MaxLoss         string              `json:"maxLoss,omitempty"`
	Breakevens      []string            `json:"breakevens,omitempty"`
	Payoff          []PayoffPointOutput `json:"payoff,omitempty"`
	PayoffUndefined string              `json:"payoffUndefined,omitempty"`
	FirstExpiry     *FirstExpiryOutput  `json:"firstExpiry,omitempty"`
}

// FirstExpiryOutput is a ModelCurve in the response: money to 2 places,
// sampled prices exact, breakevens to modelPlaces; the model's inputs
// (percent a year) beside it, as a chart labels them. Volatility is absent
// when every later option gave its own.
type FirstExpiryOutput struct {
	Date       string              `json:"date"`
	Volatility string              `json:"volatility,omitempty"`
	Rate       string              `json:"rate"`
	MaxProfit  string              `json:"maxProfit,omitempty"`
	MaxLoss    string              `json:"maxLoss,omitempty"`
	Breakevens []string            `json:"breakevens,omitempty"`
	Points     []PayoffPointOutput `json:"points"`
}

// PayoffPointOutput is one point of the payoff at expiry.
type PayoffPointOutput struct {
	Price string `json:"price"`
	Value string `json:"value"`
}

// StrategyReport writes an analysis as the response. Its payoff points,
// joined by straight lines, are the payoff exactly: 0, each strike, each
// breakeven, and one point past them all (half as far again as the highest
// strike, breakeven or share price) for the last segment's direction.
// Without a payoff at expiry it adds the model's estimate at the first
// expiry (FirstExpiryReport), or asks for the volatility that needs. Its
// error is FirstExpiry's other than ErrNoVolatility, which the API's bounds
// rule out.
func StrategyReport(legs []StrategyLeg, s Strategy, m Model) (StrategyOutput, error) {
	out := StrategyOutput{Name: s.Name, Label: s.Label, NetDebit: money.Round2(s.NetDebit), PayoffUndefined: s.NoPayoff}
	if s.Payoff == nil {
		c, err := FirstExpiry(legs, m)
		switch {
		case errors.Is(err, ErrNoVolatility):
			out.PayoffUndefined += ": give an implied volatility (volatility) for the model's estimate at the first expiry"
		case err != nil:
			return StrategyOutput{}, err
		default:
			out.FirstExpiry = FirstExpiryReport(c, m)
		}
		return out, nil
	}
	if s.MaxProfit != nil {
		out.MaxProfit = money.Round2(*s.MaxProfit)
	}
	if s.MaxLoss != nil {
		out.MaxLoss = money.Round2(*s.MaxLoss)
	}
	prices := slices.Clone(s.Breakevens)
	top := decimal.Zero
	for _, pt := range s.Payoff.Points {
		prices = append(prices, pt.Price)
	}
	for _, l := range legs {
		if l.Option == nil {
			top = decimal.Max(top, l.Price)
		}
	}
	for _, x := range prices {
		top = decimal.Max(top, x)
	}
	prices = append(prices, top.Mul(decimal.RequireFromString("1.5")))
	slices.SortFunc(prices, func(a, b decimal.Decimal) int { return a.Cmp(b) })
	prices = slices.CompactFunc(prices, func(a, b decimal.Decimal) bool { return a.Equal(b) })
	for _, x := range prices {
		out.Payoff = append(out.Payoff, PayoffPointOutput{Price: x.String(), Value: money.Round2(s.Payoff.At(x))})
	}
	for _, b := range s.Breakevens {
		out.Breakevens = append(out.Breakevens, b.String())
	}
	return out, nil
}

// FirstExpiryReport writes a model's curve for the response.
func FirstExpiryReport(c ModelCurve, m Model) *FirstExpiryOutput {
	out := &FirstExpiryOutput{Date: c.Date.Format(time.DateOnly), Rate: m.Rate.String(), Points: make([]PayoffPointOutput, len(c.Points))}
	if m.Volatility.IsPositive() {
		out.Volatility = m.Volatility.String()
	}
	amount := func(v float64) string { return money.Round2(decimal.NewFromFloat(v)) }
	if c.MaxProfit != nil {
		out.MaxProfit = amount(*c.MaxProfit)
	}
	if c.MaxLoss != nil {
		out.MaxLoss = amount(*c.MaxLoss)
	}
	for _, b := range c.Breakevens {
		out.Breakevens = append(out.Breakevens, b.String())
	}
	for i, p := range c.Points {
		out.Points[i] = PayoffPointOutput{Price: p.Price.String(), Value: amount(p.Value)}
	}
	return out
}
