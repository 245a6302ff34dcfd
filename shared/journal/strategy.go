package journal

import (
	"errors"
	"fmt"
	"slices"
	"tradejournal/shared/instrument"

	"github.com/shopspring/decimal"
)

// The strategy engine: what a set of option legs (and the underlying's
// shares) is called, what opening it costs, and what it pays at expiry.
// Pure decimal arithmetic on values; no HTTP, no database.
//
// Conventions:
//   - Price is per share: an option's premium as quoted (1.25), a share's
//     price. Quantity counts contracts for an option and shares for the
//     underlying. A contract controls Multiplier shares (instrument.OptionMultiplier
//     for standard contracts; 1 for shares).
//   - Side: a long leg was bought (it costs its price), a short leg was sold
//     (it brings its price in). In the sums a long leg counts +1, a short
//     leg -1.
//   - Money figures (NetDebit, payoff values, max profit and loss) are in
//     the underlying's currency for the whole position: price x quantity x
//     multiplier, exact, never rounded.

// StrategyLeg is one leg of a multi-leg position: an option contract, or shares of
// its underlying (instrument.Option nil).
type StrategyLeg struct {
	Option     *instrument.Option // the contract (right, strike, expiry); nil for shares
	Side       string             // SideLong or SideShort
	Quantity   decimal.Decimal    // contracts (option) or shares; above 0
	Price      decimal.Decimal    // per share: the premium paid or received, or the share price; 0 or above
	Multiplier decimal.Decimal    // shares per contract; zero means instrument.OptionMultiplier for an option, 1 for shares
	// Volatility is the option's implied volatility in percent a year for
	// the first-expiry estimate (FirstExpiry); zero: the Model's.
	Volatility decimal.Decimal
}

// StrategyName is what a set of legs is recognised as, by structure alone.
type StrategyName string

// The recognised strategies. Anything else is StrategyCustom.
const (
	StrategySingle        StrategyName = "single-leg"
	StrategyVertical      StrategyName = "vertical"
	StrategyCalendar      StrategyName = "calendar"
	StrategyDiagonal      StrategyName = "diagonal"
	StrategyStraddle      StrategyName = "straddle"
	StrategyStrangle      StrategyName = "strangle"
	StrategyIronCondor    StrategyName = "iron-condor"
	StrategyIronButterfly StrategyName = "iron-butterfly"
	StrategyButterfly     StrategyName = "butterfly"
	StrategyCoveredCall   StrategyName = "covered-call"
	StrategyCollar        StrategyName = "collar"
	StrategyRatio         StrategyName = "ratio-spread"
	StrategyCustom        StrategyName = "custom"
)

// StrategyNames are every StrategyName, in the order above.
var StrategyNames = []StrategyName{StrategySingle, StrategyVertical, StrategyCalendar, StrategyDiagonal, StrategyStraddle,
	StrategyStrangle, StrategyIronCondor, StrategyIronButterfly, StrategyButterfly, StrategyCoveredCall, StrategyCollar,
	StrategyRatio, StrategyCustom}

// Strategy is the analysis of a set of legs.
type Strategy struct {
	Name StrategyName
	// Label names it as a trader says it: "Short iron condor", "Bull call
	// vertical (debit)", "Long call broken-wing butterfly".
	Label string
	// NetDebit is what opening the legs costs: above 0 a debit (paid),
	// below 0 a credit (received).
	NetDebit decimal.Decimal
	// Payoff is the P&L at expiry, or nil when the options expire on
	// different dates (NoPayoff says why): then the payoff at the first
	// expiry depends on what the later legs are still worth, which only a
	// pricing model can estimate (FirstExpiry, given a volatility).
	Payoff   *Payoff
	NoPayoff string
	// MaxProfit is the highest payoff at expiry; MaxLoss the lowest payoff
	// with its sign turned, so a loss is a positive amount (0 or below
	// means no price at expiry loses). nil means unlimited (the payoff
	// keeps rising, or falling, as the underlying rises) or no Payoff.
	MaxProfit *decimal.Decimal
	MaxLoss   *decimal.Decimal
	// Breakevens are the underlying prices at expiry where the payoff is 0,
	// ascending. Exact when the root has at most 8 decimal places (as
	// always when the contracts in the legs are in a 1:1 ratio), otherwise
	// rounded half away from zero to 8.
	Breakevens []decimal.Decimal
}

// Payoff is the P&L at expiry as a function of the underlying price S >= 0:
// piecewise linear with its breakpoints at 0 and at each distinct strike.
// Slopes[i] is its slope from Points[i] to the next point (past the last
// point: for every higher price), so At is exact: no division.
type Payoff struct {
	Points []PayoffPoint
	Slopes []decimal.Decimal
}

// PayoffPoint is the payoff Value at expiry with the underlying at Price.
type PayoffPoint struct {
	Price, Value decimal.Decimal
}

// At is the payoff at expiry with the underlying at s (s >= 0; below 0 the
// first segment is extended).
func (p Payoff) At(s decimal.Decimal) decimal.Decimal {
	i := 0
	for i+1 < len(p.Points) && p.Points[i+1].Price.LessThanOrEqual(s) {
		i++
	}
	return p.Points[i].Value.Add(p.Slopes[i].Mul(s.Sub(p.Points[i].Price)))
}

// breakevenPlaces bounds the decimal places of a breakeven whose exact
// value does not terminate (a ratio of 3 contracts to 2): a price column
// keeps 8.
const breakevenPlaces = 8

// AnalyzeStrategy recognises the legs' strategy and computes its figures.
// It refuses (a plain error; callers validate their input first) no legs,
// a side other than long or short, a quantity not above 0, a negative
// price, an option without a C or P right or with a strike not above 0, and
// a negative multiplier. It never panics.
func AnalyzeStrategy(legs []StrategyLeg) (Strategy, error) {
	if len(legs) == 0 {
		return Strategy{}, errors.New("a strategy needs at least one leg")
	}
	for i, l := range legs {
		if err := l.check(); err != nil {
			return Strategy{}, fmt.Errorf("leg %d: %w", i+1, err)
		}
	}
	s := Strategy{NetDebit: NetDebit(legs)}
	s.Name, s.Label = recognise(legs, s.NetDebit)
	if !oneExpiry(legs) {
		s.NoPayoff = "the options expire on different dates: what they pay at the first expiry depends on what the later options are still worth then, which only a pricing model can estimate"
		return s, nil
	}
	p := payoff(legs)
	s.Payoff = &p
	last := p.Slopes[len(p.Slopes)-1]
	lo, hi := p.Points[0].Value, p.Points[0].Value
	for _, pt := range p.Points {
		lo, hi = decimal.Min(lo, pt.Value), decimal.Max(hi, pt.Value)
	}
	if last.Sign() <= 0 {
		s.MaxProfit = &hi
	}
	if last.Sign() >= 0 {
		loss := lo.Neg()
		s.MaxLoss = &loss
	}
	s.Breakevens = breakevens(p)
	return s, nil
}

func (l StrategyLeg) check() error {
	switch {
	case l.Side != SideLong && l.Side != SideShort:
		return errors.New("side must be long or short")
	case !l.Quantity.IsPositive():
		return errors.New("quantity must be greater than 0")
	case l.Price.IsNegative():
		return errors.New("price must not be negative")
	case l.Multiplier.IsNegative():
		return errors.New("multiplier must not be negative")
	case l.Option != nil && l.Option.Right != "C" && l.Option.Right != "P":
		return errors.New("right must be C or P")
	case l.Option != nil && !l.Option.Strike.IsPositive():
		return errors.New("strike must be greater than 0")
	}
	return nil
}

// sign is +1 for a long leg, -1 for a short one.
func (l StrategyLeg) sign() decimal.Decimal {
	if l.Side == SideShort {
		return decimal.NewFromInt(-1)
	}
	return decimal.NewFromInt(1)
}

func (l StrategyLeg) mult() decimal.Decimal {
	switch {
	case !l.Multiplier.IsZero():
		return l.Multiplier
	case l.Option != nil:
		return decimal.NewFromInt(instrument.OptionMultiplier)
	}
	return decimal.NewFromInt(1)
}

// units is the leg's size in shares: quantity x multiplier. Ratios are
// compared in units, so a mini contract (multiplier 10) is a tenth of a
// standard one, and 100 shares cover one standard call.
func (l StrategyLeg) units() decimal.Decimal { return l.Quantity.Mul(l.mult()) }

// NetDebit is the cost of opening the legs at their prices: the sum of
// sign x quantity x multiplier x price (long +1, short -1). Above 0 a
// debit, below 0 a credit. The legs' value at closing prices is the same
// sum with those prices, so a strategy's P&L before fees is
// NetDebit(at close) - NetDebit(at open).
func NetDebit(legs []StrategyLeg) decimal.Decimal {
	sum := decimal.Zero
	for _, l := range legs {
		sum = sum.Add(l.sign().Mul(l.units()).Mul(l.Price))
	}
	return sum
}

// ValueAt is one leg's payoff at expiry with the underlying at s: its
// value then (intrinsic value of an option, s for a share) less its price,
// x sign x quantity x multiplier.
func (l StrategyLeg) ValueAt(s decimal.Decimal) decimal.Decimal {
	v := s
	if o := l.Option; o != nil {
		if o.Right == "C" {
			v = decimal.Max(s.Sub(o.Strike), decimal.Zero)
		} else {
			v = decimal.Max(o.Strike.Sub(s), decimal.Zero)
		}
	}
	return l.sign().Mul(l.units()).Mul(v.Sub(l.Price))
}

// slopeFrom is the leg's payoff slope for prices just above s.
func (l StrategyLeg) slopeFrom(s decimal.Decimal) decimal.Decimal {
	d := decimal.NewFromInt(1) // a share moves one for one
	if o := l.Option; o != nil {
		switch {
		case o.Right == "C" && s.GreaterThanOrEqual(o.Strike):
		case o.Right == "P" && s.LessThan(o.Strike):
			d = decimal.NewFromInt(-1)
		default:
			d = decimal.Zero
		}
	}
	return l.sign().Mul(l.units()).Mul(d)
}

// oneExpiry reports that every option leg expires on the same date.
func oneExpiry(legs []StrategyLeg) bool {
	var first *instrument.Option
	for _, l := range legs {
		if l.Option == nil {
			continue
		}
		if first == nil {
			first = l.Option
		} else if !l.Option.Expiry.Equal(first.Expiry) {
			return false
		}
	}
	return true
}

// payoff builds the piecewise-linear payoff at the breakpoints 0 and each
// distinct strike, ascending.
func payoff(legs []StrategyLeg) Payoff {
	prices := []decimal.Decimal{decimal.Zero}
	for _, l := range legs {
		if l.Option != nil {
			prices = append(prices, l.Option.Strike)
		}
	}
	slices.SortFunc(prices, func(a, b decimal.Decimal) int { return a.Cmp(b) })
	prices = slices.CompactFunc(prices, func(a, b decimal.Decimal) bool { return a.Equal(b) })
	p := Payoff{Points: make([]PayoffPoint, len(prices)), Slopes: make([]decimal.Decimal, len(prices))}
	for i, s := range prices {
		v, slope := decimal.Zero, decimal.Zero
		for _, l := range legs {
			v = v.Add(l.ValueAt(s))
			slope = slope.Add(l.slopeFrom(s))
		}
		p.Points[i] = PayoffPoint{Price: s, Value: v}
		p.Slopes[i] = slope
	}
	return p
}

// breakevens are the payoff's zeros: each breakpoint where it is 0, and
// each root strictly inside a segment where it changes sign (or on the last
// segment, heading to 0).
func breakevens(p Payoff) []decimal.Decimal {
	var out []decimal.Decimal
	root := func(i int) decimal.Decimal {
		return p.Points[i].Price.Sub(p.Points[i].Value.DivRound(p.Slopes[i], breakevenPlaces))
	}
	for i, pt := range p.Points {
		v := pt.Value.Sign()
		if v == 0 {
			out = append(out, pt.Price)
			continue
		}
		if i+1 < len(p.Points) {
			if next := p.Points[i+1].Value.Sign(); next != 0 && next != v {
				out = append(out, root(i))
			}
		} else if s := p.Slopes[i].Sign(); s != 0 && s != v {
			out = append(out, root(i))
		}
	}
	return out
}

// StrategyPnL is a multi-leg position's realised P&L: the sum of its legs'
// figures, each leg a Trade of its own contract, side, multiplier and
// fills, computed by Compute as any position is. The error is the first
// leg's that Compute refuses.
func StrategyPnL(legs []Trade) (gross, fees, net decimal.Decimal, err error) {
	for i, t := range legs {
		f, err := Compute(t)
		if err != nil {
			return decimal.Zero, decimal.Zero, decimal.Zero, fmt.Errorf("leg %d: %w", i+1, err)
		}
		gross, fees, net = gross.Add(f.GrossPnL), fees.Add(f.Fees), net.Add(f.NetPnL)
	}
	return gross, fees, net, nil
}
