package journal

import (
	"slices"

	"github.com/shopspring/decimal"
)

// Recognition goes by the legs' structure only (rights, strikes, expiries,
// sides and sizes), never by what a leg or position is called. Sizes are
// compared in units (quantity x multiplier, in shares), so 100 shares
// cover one standard contract. Legs on the same contract and side count as
// one leg of their summed size; the same contract both long and short is
// custom. The rules, all options of a strategy on one expiry unless said:
//
//   - single leg: one option, or shares alone.
//   - vertical: two calls or two puts, one long and one short, different
//     strikes, equal size. Bull or bear from which strike is long; debit
//     or credit from the prices (NetDebit).
//   - ratio spread: a vertical whose two sizes differ (1x2, 2x3).
//   - calendar: two calls or two puts on one strike, one long and one
//     short, equal size, different expiries; long when the later expiry is
//     the long leg. A diagonal is the same on different strikes.
//   - straddle: a call and a put on one strike, both long or both short,
//     equal size. A strangle is the same with the put's strike below the
//     call's (a put above the call is custom).
//   - butterfly: three calls or three puts at strikes K1 < K2 < K3 sized
//     1:2:1, the outer two on one side and the middle on the other. With
//     unequal wings (K2-K1 != K3-K2) it is still a butterfly, labelled
//     broken-wing: the structure and the risk profile are a butterfly's.
//   - iron condor: puts P1 < P2 and calls C1 < C2, P2 < C1, equal sizes,
//     the inner two (P2, C1) on one side and the outer two on the other
//     (short when the inner ones are short). With P2 = C1 it is an iron
//     butterfly. Unequal wings (P2-P1 != C2-C1) keep the name, labelled
//     so: the risk is still defined by the wider wing.
//   - covered call: long shares and one short call of the same size.
//   - collar: long shares, a long put and a short call, put strike below
//     the call's, each option of the shares' size.
//
// Everything else (a condor of four calls, a protective put, shares
// partly covered) is custom.
func recognise(legs []StrategyLeg, netDebit decimal.Decimal) (StrategyName, string) {
	var opts, shares []StrategyLeg
	for _, l := range merge(legs) {
		if l.Side == "" {
			return StrategyCustom, "Custom"
		}
		if l.Option == nil {
			shares = append(shares, l)
		} else {
			opts = append(opts, l)
		}
	}
	switch {
	case len(shares) == 0:
		return optionStrategy(opts, netDebit)
	case len(shares) > 1:
		return StrategyCustom, "Custom"
	case len(opts) == 0:
		return StrategySingle, sideWord(shares[0].Side) + " shares"
	}
	stock := shares[0]
	if stock.Side != SideLong {
		return StrategyCustom, "Custom"
	}
	covers := func(l StrategyLeg) bool { return l.units().Equal(stock.units()) }
	switch len(opts) {
	case 1:
		if c := opts[0]; c.Option.Right == "C" && c.Side == SideShort && covers(c) {
			return StrategyCoveredCall, "Covered call"
		}
	case 2:
		put, call := opts[0], opts[1]
		if put.Option.Right == "C" {
			put, call = call, put
		}
		if put.Option.Right == "P" && call.Option.Right == "C" && put.Side == SideLong && call.Side == SideShort &&
			covers(put) && covers(call) && put.Option.Expiry.Equal(call.Option.Expiry) &&
			put.Option.Strike.LessThan(call.Option.Strike) {
			return StrategyCollar, "Collar"
		}
	}
	return StrategyCustom, "Custom"
}

// merge sums legs on the same contract and side, in their first order. The
// same contract both long and short comes back as one leg without a side,
// which recognise calls custom.
func merge(legs []StrategyLeg) []StrategyLeg {
	var out []StrategyLeg
next:
	for _, l := range legs {
		for i := range out {
			m := &out[i]
			if !sameContract(*m, l) {
				continue
			}
			if m.Side != l.Side {
				m.Side = ""
			}
			m.Quantity = m.Quantity.Add(l.Quantity)
			continue next
		}
		out = append(out, l)
	}
	return out
}

func sameContract(a, b StrategyLeg) bool {
	if !a.mult().Equal(b.mult()) || (a.Option == nil) != (b.Option == nil) {
		return false
	}
	if a.Option == nil {
		return true
	}
	x, y := a.Option, b.Option
	return x.Right == y.Right && x.Strike.Equal(y.Strike) && x.Expiry.Equal(y.Expiry)
}

func optionStrategy(opts []StrategyLeg, netDebit decimal.Decimal) (StrategyName, string) {
	switch len(opts) {
	case 1:
		return StrategySingle, sideWord(opts[0].Side) + " " + rightWord(opts[0])
	case 2:
		return twoLegs(opts[0], opts[1], netDebit)
	case 3:
		return butterfly(opts)
	case 4:
		return ironCondor(opts)
	}
	return StrategyCustom, "Custom"
}

func twoLegs(a, b StrategyLeg, netDebit decimal.Decimal) (StrategyName, string) {
	x, y := a.Option, b.Option
	sameExpiry := x.Expiry.Equal(y.Expiry)
	sameStrike := x.Strike.Equal(y.Strike)
	equal := a.units().Equal(b.units())
	if x.Right != y.Right {
		if !sameExpiry || a.Side != b.Side || !equal {
			return StrategyCustom, "Custom"
		}
		put, call := a, b
		if x.Right == "C" {
			put, call = b, a
		}
		switch {
		case sameStrike:
			return StrategyStraddle, sideWord(a.Side) + " straddle"
		case put.Option.Strike.LessThan(call.Option.Strike):
			return StrategyStrangle, sideWord(a.Side) + " strangle"
		}
		return StrategyCustom, "Custom"
	}
	if a.Side == b.Side {
		return StrategyCustom, "Custom"
	}
	long, short := a, b
	if a.Side == SideShort {
		long, short = b, a
	}
	right := rightWord(a)
	if !sameExpiry {
		if !equal {
			return StrategyCustom, "Custom"
		}
		side := "Long"
		if long.Option.Expiry.Before(short.Option.Expiry) {
			side = "Short"
		}
		if sameStrike {
			return StrategyCalendar, side + " " + right + " calendar"
		}
		return StrategyDiagonal, side + " " + right + " diagonal"
	}
	if sameStrike {
		// Reached only by a standard and a mini contract on one strike (merge
		// joins legs of one multiplier): no named strategy.
		return StrategyCustom, "Custom"
	}
	if !equal {
		lower, higher := a, b
		if higher.Option.Strike.LessThan(lower.Option.Strike) {
			lower, higher = higher, lower
		}
		return StrategyRatio, capital(right) + " ratio spread " + ratio(lower.units(), higher.units())
	}
	// Long the lower strike, calls or puts, gains as the underlying rises.
	mood := "Bear"
	if long.Option.Strike.LessThan(short.Option.Strike) {
		mood = "Bull"
	}
	cost := "debit"
	switch netDebit.Sign() {
	case -1:
		cost = "credit"
	case 0:
		cost = "even"
	}
	return StrategyVertical, mood + " " + right + " vertical (" + cost + ")"
}

func butterfly(opts []StrategyLeg) (StrategyName, string) {
	legs := slices.Clone(opts)
	slices.SortFunc(legs, func(a, b StrategyLeg) int { return a.Option.Strike.Cmp(b.Option.Strike) })
	lo, mid, hi := legs[0], legs[1], legs[2]
	if lo.Option.Right != mid.Option.Right || mid.Option.Right != hi.Option.Right ||
		!lo.Option.Expiry.Equal(mid.Option.Expiry) || !mid.Option.Expiry.Equal(hi.Option.Expiry) ||
		lo.Side != hi.Side || lo.Side == mid.Side ||
		!lo.units().Equal(hi.units()) || !mid.units().Equal(lo.units().Add(lo.units())) ||
		lo.Option.Strike.Equal(mid.Option.Strike) || mid.Option.Strike.Equal(hi.Option.Strike) {
		return StrategyCustom, "Custom"
	}
	label := sideWord(lo.Side) + " " + rightWord(lo)
	if !mid.Option.Strike.Sub(lo.Option.Strike).Equal(hi.Option.Strike.Sub(mid.Option.Strike)) {
		label += " broken-wing"
	}
	return StrategyButterfly, label + " butterfly"
}

func ironCondor(opts []StrategyLeg) (StrategyName, string) {
	var puts, calls []StrategyLeg
	for _, l := range opts {
		if l.Option.Right == "P" {
			puts = append(puts, l)
		} else {
			calls = append(calls, l)
		}
	}
	if len(puts) != 2 || len(calls) != 2 {
		return StrategyCustom, "Custom"
	}
	byStrike := func(a, b StrategyLeg) int { return a.Option.Strike.Cmp(b.Option.Strike) }
	slices.SortFunc(puts, byStrike)
	slices.SortFunc(calls, byStrike)
	p1, p2, c1, c2 := puts[0], puts[1], calls[0], calls[1]
	u := p1.units()
	for _, l := range []StrategyLeg{p2, c1, c2} {
		if !l.units().Equal(u) || !l.Option.Expiry.Equal(p1.Option.Expiry) {
			return StrategyCustom, "Custom"
		}
	}
	if p2.Side != c1.Side || p1.Side != c2.Side || p1.Side == p2.Side ||
		!p1.Option.Strike.LessThan(p2.Option.Strike) || !c1.Option.Strike.LessThan(c2.Option.Strike) ||
		p2.Option.Strike.GreaterThan(c1.Option.Strike) {
		return StrategyCustom, "Custom"
	}
	side := "Short"
	if p2.Side == SideLong {
		side = "Long"
	}
	name, label := StrategyIronCondor, side+" iron condor"
	if p2.Option.Strike.Equal(c1.Option.Strike) {
		name, label = StrategyIronButterfly, side+" iron butterfly"
	}
	if !p2.Option.Strike.Sub(p1.Option.Strike).Equal(c2.Option.Strike.Sub(c1.Option.Strike)) {
		label += " (unequal wings)"
	}
	return name, label
}

func sideWord(side string) string {
	if side == SideShort {
		return "Short"
	}
	return "Long"
}

func rightWord(l StrategyLeg) string {
	if l.Option.Right == "C" {
		return "call"
	}
	return "put"
}

func capital(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// ratio writes two sizes as "1x2" in lowest terms when both are whole
// numbers, and as they are otherwise.
func ratio(a, b decimal.Decimal) string {
	if a.IsInteger() && b.IsInteger() && a.BigInt().IsInt64() && b.BigInt().IsInt64() {
		x, y := a.IntPart(), b.IntPart()
		g := gcd(x, y)
		return decimal.NewFromInt(x/g).String() + "x" + decimal.NewFromInt(y/g).String()
	}
	return a.String() + "x" + b.String()
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
