package journal

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/shopspring/decimal"
)

// The first-expiry estimate: what a strategy whose options expire on
// different dates (a calendar, a diagonal) makes on the day the first of
// them expire. The expiring legs are worth their intrinsic value then; the
// later ones are priced by Black–Scholes with the time they have left, at an
// implied volatility the trader gives.
//
// This is the one computation of the journal in float64, on purpose: a
// model value is an estimate made from estimates (a volatility, a rate),
// and binary floating point loses nothing that matters to it, where
// decimal has no exp, log or normal distribution. Prices stay exact
// decimals (the sampled prices, the strikes); values and breakevens become
// decimals, rounded, where they leave (FirstExpiryReport).

// DefaultRatePercent is the risk-free rate, in percent a year, of a model
// whose request gives none: about the yield of US Treasury bills in
// 2025-26. A calendar's estimate moves little with it (a few cents a
// contract for a month's difference in expiry).
const DefaultRatePercent = 4

// modelSamples is how many equal steps the estimate takes from 0 to twice
// the highest strike (or share price), the strikes added: 1.25% of the
// highest strike a step, finer than a chart shows.
const modelSamples = 160

// modelPlaces is the decimal places of a breakeven of the estimate: a
// price column's 8 would claim a precision the model does not have.
const modelPlaces = 4

// Model is what the first-expiry estimate needs beside the legs.
type Model struct {
	// Volatility is the annual implied volatility in percent (30 for 30%)
	// of every leg without one of its own (StrategyLeg.Volatility); zero
	// when none is given.
	Volatility decimal.Decimal
	// Rate is the annual risk-free rate in percent, continuously
	// compounded; negative rates are allowed.
	Rate decimal.Decimal
}

// ModelCurve is the estimated P&L of a strategy at its first expiry: a
// model's answer, not the exact payoff AnalyzeStrategy gives for legs that
// expire together.
type ModelCurve struct {
	Date time.Time // the first expiry
	// Points are the P&L at 0, at modelSamples equal steps up to twice the
	// highest strike or share price, at each strike and at each breakeven,
	// ascending by price.
	Points []ModelPoint
	// MaxProfit and MaxLoss are the highest P&L of the points and the
	// lowest with its sign turned, so estimates over the prices sampled;
	// nil when unlimited: the legs' calls and shares do not net to zero,
	// so the P&L keeps rising (or falling) with the underlying.
	MaxProfit, MaxLoss *float64
	// Breakevens are the prices where the P&L crosses 0, ascending, found
	// by bisection between points of opposite sign (two crossings between
	// neighbouring points are missed), rounded to modelPlaces; one past the
	// points is found by doubling the price until the sign turns.
	Breakevens []decimal.Decimal
}

// ModelPoint is the estimated P&L Value at the first expiry with the
// underlying at Price.
type ModelPoint struct {
	Price decimal.Decimal
	Value float64
}

// ErrNoVolatility is FirstExpiry's answer when an option expiring after the
// first has no implied volatility, its own or the model's.
var ErrNoVolatility = errors.New("an option expiring after the first needs an implied volatility")

// errModelRange refuses legs whose model values overflow a float64: far
// beyond the API's bounds, so a bug if a request meets it.
var errModelRange = errors.New("the model's value does not fit a float64 for these legs")

// BlackScholes is the Black–Scholes price per share of a European call
// (right "C") or put ("P") on an underlying at s that pays no dividend:
// strike k, t years to expiry, risk-free rate r and volatility sigma (a
// year, as fractions: 0.04, 0.3). At t <= 0 it is the intrinsic value; with
// s <= 0 or sigma <= 0 the underlying's future is certain and the price is
// the payoff against the strike's present value. Never below that payoff
// (rounding near 0 would otherwise give a cent's fraction below it).
func BlackScholes(right string, s, k, t, r, sigma float64) float64 {
	if t <= 0 {
		return intrinsic(right, s, k)
	}
	floor := intrinsic(right, s, k*math.Exp(-r*t)) // against the strike's present value
	if s <= 0 || sigma <= 0 {
		return floor
	}
	return math.Max(BlackScholesMerton(right, s, k, t, r, 0, sigma).Price, floor)
}

// Greeks is an option's model value per share and its sensitivities, in
// the units a trader quotes them: Theta per calendar day (of 365), Vega
// per volatility point (1%), Rho per rate point (1%).
type Greeks struct {
	Price, Delta, Gamma, Theta, Vega, Rho float64
}

// BlackScholesMerton is the Black–Scholes–Merton value and Greeks of a
// European call ("C") or put ("P") on an underlying at s paying a
// continuous dividend yield q: strike k, t years to expiry, rate r and
// volatility sigma, as fractions a year (Hull, Options, Futures, and Other
// Derivatives, ch. 17 and 19). It needs s, k, t and sigma above zero (the
// caller checks); BlackScholes covers the edges.
func BlackScholesMerton(right string, s, k, t, r, q, sigma float64) Greeks {
	v := sigma * math.Sqrt(t)
	d1 := (math.Log(s/k) + (r-q+sigma*sigma/2)*t) / v
	d2 := d1 - v
	sq, kd := s*math.Exp(-q*t), k*math.Exp(-r*t) // the underlying less its dividends, the strike's present value
	pdf := math.Exp(-d1*d1/2) / math.Sqrt(2*math.Pi)
	g := Greeks{
		Gamma: math.Exp(-q*t) * pdf / (s * v),
		Vega:  sq * pdf * math.Sqrt(t) / 100,
	}
	decay := -sq * pdf * sigma / (2 * math.Sqrt(t))
	if right == "C" {
		g.Price = sq*normCDF(d1) - kd*normCDF(d2)
		g.Delta = math.Exp(-q*t) * normCDF(d1)
		g.Theta = (decay - r*kd*normCDF(d2) + q*sq*normCDF(d1)) / 365
		g.Rho = kd * t * normCDF(d2) / 100
	} else {
		g.Price = kd*normCDF(-d2) - sq*normCDF(-d1)
		g.Delta = -math.Exp(-q*t) * normCDF(-d1)
		g.Theta = (decay + r*kd*normCDF(-d2) - q*sq*normCDF(-d1)) / 365
		g.Rho = -kd * t * normCDF(-d2) / 100
	}
	return g
}

func intrinsic(right string, s, k float64) float64 {
	if right == "C" {
		return math.Max(s-k, 0)
	}
	return math.Max(k-s, 0)
}

// normCDF is the standard normal distribution function.
func normCDF(x float64) float64 { return math.Erfc(-x/math.Sqrt2) / 2 }

// yearsBetween is the time from a to b in years of 365 days, from the
// dates' Unix seconds: a time.Duration stops at 292 years, and an expiry
// may be written up to 9999.
func yearsBetween(a, b time.Time) float64 {
	return float64(b.Unix()-a.Unix()) / (365 * 24 * 60 * 60)
}

// FirstExpiry estimates the legs' P&L at their first expiry with the model:
// each leg's value then, less its price, x sign x quantity x multiplier,
// where an option expiring that day is worth its intrinsic value, a later
// one its Black–Scholes price with the years it has left (at its own
// volatility, or the model's), and a share the underlying's price. It
// refuses the legs AnalyzeStrategy refuses, legs without an option, a
// later option without a volatility (ErrNoVolatility) and inputs whose
// values overflow a float64 (far beyond the API's bounds). It never panics.
func FirstExpiry(legs []StrategyLeg, m Model) (ModelCurve, error) {
	var first *time.Time
	for i, l := range legs {
		if err := l.check(); err != nil {
			return ModelCurve{}, fmt.Errorf("leg %d: %w", i+1, err)
		}
		if l.Volatility.IsNegative() {
			return ModelCurve{}, fmt.Errorf("leg %d: volatility must not be negative", i+1)
		}
		if l.Option != nil && (first == nil || l.Option.Expiry.Before(*first)) {
			first = &l.Option.Expiry
		}
	}
	if first == nil {
		return ModelCurve{}, errors.New("a first expiry needs an option leg")
	}
	value, err := modelValue(legs, *first, m)
	if err != nil {
		return ModelCurve{}, err
	}

	// Prices: 0 to twice the highest strike or share price, and the strikes.
	top := decimal.Zero
	var prices []decimal.Decimal
	for _, l := range legs {
		if l.Option != nil {
			top = decimal.Max(top, l.Option.Strike)
			prices = append(prices, l.Option.Strike)
		} else {
			top = decimal.Max(top, l.Price)
		}
	}
	hi := top.Mul(decimal.NewFromInt(2))
	for i := range modelSamples + 1 {
		prices = append(prices, hi.Mul(decimal.NewFromInt(int64(i))).DivRound(decimal.NewFromInt(modelSamples), 8))
	}
	sortPrices := func() {
		slices.SortFunc(prices, func(a, b decimal.Decimal) int { return a.Cmp(b) })
		prices = slices.CompactFunc(prices, func(a, b decimal.Decimal) bool { return a.Equal(b) })
	}
	sortPrices()
	values := make([]float64, len(prices))
	for i, p := range prices {
		values[i] = value(p.InexactFloat64())
		if math.IsNaN(values[i]) || math.IsInf(values[i], 0) {
			return ModelCurve{}, errModelRange
		}
	}

	// Where calls and shares net to a slope, the P&L is unlimited that way:
	// far above every strike a call moves one for one, a put not at all.
	slope := decimal.Zero
	for _, l := range legs {
		if l.Option == nil || l.Option.Right == "C" {
			slope = slope.Add(l.sign().Mul(l.units()))
		}
	}

	c := ModelCurve{Date: *first}
	for i := range prices {
		switch {
		case values[i] == 0:
			c.Breakevens = append(c.Breakevens, prices[i])
		case i+1 < len(prices) && values[i+1] != 0 && (values[i] < 0) != (values[i+1] < 0):
			c.Breakevens = append(c.Breakevens, bisect(value, prices[i].InexactFloat64(), prices[i+1].InexactFloat64()))
		case i+1 == len(prices) && slope.Sign() != 0 && (values[i] < 0) == slope.IsPositive():
			// Heading back to 0 past the last point: double until it turns.
			lo, x := prices[i].InexactFloat64(), 2*prices[i].InexactFloat64()
			for n := 0; n < 1000 && (value(x) < 0) == (values[i] < 0) && !math.IsInf(x, 0); n++ {
				lo, x = x, 2*x
			}
			if !math.IsInf(x, 0) {
				c.Breakevens = append(c.Breakevens, bisect(value, lo, x))
			}
		}
	}
	slices.SortFunc(c.Breakevens, func(a, b decimal.Decimal) int { return a.Cmp(b) })
	c.Breakevens = slices.CompactFunc(c.Breakevens, func(a, b decimal.Decimal) bool { return a.Equal(b) })
	prices = append(prices, c.Breakevens...)
	sortPrices()
	lo, high := math.Inf(1), math.Inf(-1)
	for _, p := range prices {
		v := value(p.InexactFloat64())
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return ModelCurve{}, errModelRange
		}
		c.Points = append(c.Points, ModelPoint{Price: p, Value: v})
		lo, high = math.Min(lo, v), math.Max(high, v)
	}
	if slope.Sign() <= 0 {
		c.MaxProfit = &high
	}
	if slope.Sign() >= 0 {
		loss := -lo
		c.MaxLoss = &loss
	}
	return c, nil
}

// modelValue is the function FirstExpiry samples: the legs' P&L at the
// first expiry with the underlying at s.
func modelValue(legs []StrategyLeg, first time.Time, m Model) (func(s float64) float64, error) {
	type leg struct {
		right        string // "C", "P", or "" for shares
		k, t, sigma  float64
		size, price  float64 // size: sign x quantity x multiplier
		later, share bool
	}
	r := m.Rate.InexactFloat64() / 100
	priced := make([]leg, len(legs))
	for i, l := range legs {
		p := leg{size: l.sign().Mul(l.units()).InexactFloat64(), price: l.Price.InexactFloat64(), share: l.Option == nil}
		if o := l.Option; o != nil {
			p.right, p.k = o.Right, o.Strike.InexactFloat64()
			if o.Expiry.After(first) {
				vol := l.Volatility
				if vol.IsZero() {
					vol = m.Volatility
				}
				if !vol.IsPositive() {
					return nil, ErrNoVolatility
				}
				p.later, p.t, p.sigma = true, yearsBetween(first, o.Expiry), vol.InexactFloat64()/100
			}
		}
		priced[i] = p
	}
	return func(s float64) float64 {
		sum := 0.0
		for _, p := range priced {
			v := s
			switch {
			case p.later:
				v = BlackScholes(p.right, s, p.k, p.t, r, p.sigma)
			case !p.share:
				v = intrinsic(p.right, s, p.k)
			}
			sum += p.size * (v - p.price)
		}
		return sum
	}, nil
}

// bisect finds the root of f between a and b, where f has opposite signs
// (neither 0), to a billionth of b or 200 halvings, rounded to modelPlaces.
func bisect(f func(float64) float64, a, b float64) decimal.Decimal {
	neg := f(a) < 0
	for range 200 {
		mid := a + (b-a)/2
		if b-a <= b*1e-9 || mid == a || mid == b {
			break
		}
		if (f(mid) < 0) == neg {
			a = mid
		} else {
			b = mid
		}
	}
	return decimal.NewFromFloat(a + (b-a)/2).Round(modelPlaces)
}
