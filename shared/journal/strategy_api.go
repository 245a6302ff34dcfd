package journal

import (
	"fmt"
	"slices"

	"github.com/shopspring/decimal"

	"tradejournal/shared/money"
)

// MaxStrategyLegs bounds the legs of one strategy: the largest named one
// (an iron condor) has 4, a collar 3 and shares; 8 leaves room for
// adjustments without making the analysis a bulk calculator.
const MaxStrategyLegs = 8

// StrategyInput is the request body of POST /api/calculator/strategy.
type StrategyInput struct {
	Legs []StrategyLegInput `json:"legs"`
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
}

// ValidateStrategy checks a request and returns its legs, or a
// VALIDATION_ERROR naming every bad field ("legs[2].strike"). Rules beyond
// each field's format and bounds: 1 to MaxStrategyLegs legs; an option has
// a symbol or both strike and expiry, never both; a symbol's right agrees
// with a type given beside it; every symbol names one underlying; contracts
// are whole; a multiplier (default 100) applies to options only.
func ValidateStrategy(in StrategyInput) ([]StrategyLeg, error) {
	var p Problems
	if len(in.Legs) == 0 || len(in.Legs) > MaxStrategyLegs {
		p.Add("legs", fmt.Sprintf("must hold 1 to %d legs", MaxStrategyLegs))
		return nil, p.Err()
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
			}{{"symbol", l.Symbol != ""}, {"strike", !l.Strike.Blank()}, {"expiry", l.Expiry != ""}, {"multiplier", !l.Multiplier.Blank()}} {
				if g.given {
					p.Add(f+g.name, "applies only to an option leg")
				}
			}
			continue
		}
		o := &Option{Right: right}
		switch {
		case l.Symbol != "":
			parsed, err := ParseOCC(l.Symbol)
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
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return legs, nil
}

// StrategyOutput is the response body of POST /api/calculator/strategy.
// Money figures are rounded half away from zero to 2 places; prices
// (breakevens, payoff prices) are exact. maxProfit and maxLoss are absent
// when unlimited, and, with every figure at expiry, when the legs expire on
// different dates (payoffUndefined then says why).
type StrategyOutput struct {
	Name            StrategyName        `json:"name"`
	Label           string              `json:"label"`
	NetDebit        string              `json:"netDebit"`
	MaxProfit       string              `json:"maxProfit,omitempty"`
	MaxLoss         string              `json:"maxLoss,omitempty"`
	Breakevens      []string            `json:"breakevens,omitempty"`
	Payoff          []PayoffPointOutput `json:"payoff,omitempty"`
	PayoffUndefined string              `json:"payoffUndefined,omitempty"`
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
func StrategyReport(legs []StrategyLeg, s Strategy) StrategyOutput {
	out := StrategyOutput{Name: s.Name, Label: s.Label, NetDebit: money.Round2(s.NetDebit), PayoffUndefined: s.NoPayoff}
	if s.Payoff == nil {
		return out
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
	return out
}
