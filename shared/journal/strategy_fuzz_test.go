package journal

import (
	"testing"
	"tradejournal/shared/instrument"

	"github.com/shopspring/decimal"
)

// FuzzAnalyzeStrategy reads up to 8 legs from the bytes, 5 a leg
// (fuzzLegs): kind and flags (shares, call or put; short; a later expiry; a
// mini contract of 10), strike, contracts, and a price in cents (0 to
// 655.35). The engine
// never panics, and with one expiry its payoff, bounds and breakevens agree
// with the legs' own payoffs (checkConsistent); with two it gives none.
// The seeds below run as a test with every go test.
func FuzzAnalyzeStrategy(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 100, 1, 1, 44})                                                        // long call
	f.Add([]byte{1, 100, 1, 1, 244, 5, 110, 1, 0, 200})                                    // call vertical
	f.Add([]byte{2, 90, 1, 0, 100, 6, 95, 1, 0, 250, 5, 105, 1, 0, 240, 1, 110, 1, 0, 90}) // iron condor
	f.Add([]byte{0, 0, 99, 19, 136, 5, 55, 1, 0, 200})                                     // covered call
	f.Add([]byte{1, 90, 1, 4, 176, 5, 100, 2, 1, 244, 1, 110, 1, 0, 100})                  // butterfly
	f.Add([]byte{5, 100, 1, 0, 200, 9, 100, 1, 1, 94})                                     // calendar
	f.Add([]byte{17, 100, 9, 0, 1, 1, 100, 0, 0, 0, 6, 3, 2, 0, 0})                        // mini, zero prices
	f.Fuzz(func(t *testing.T, data []byte) {
		legs := fuzzLegs(data)
		s, err := AnalyzeStrategy(legs)
		if len(legs) == 0 {
			if err == nil {
				t.Fatal("no legs, no error")
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if s.Name == "" || s.Label == "" {
			t.Fatalf("no name: %+v", s)
		}
		if !oneExpiry(legs) {
			if s.Payoff != nil || s.NoPayoff == "" || s.MaxProfit != nil || s.MaxLoss != nil || s.Breakevens != nil {
				t.Fatalf("figures at expiry for two expiries: %+v", s)
			}
			return
		}
		checkConsistent(t, legs, s, func(p decimal.Decimal) decimal.Decimal {
			sum := decimal.Zero
			for _, l := range legs {
				sum = sum.Add(referenceValue(l, p))
			}
			return sum
		})
	})
}

// fuzzLegs reads up to 8 legs from data, 5 bytes a leg, as
// FuzzAnalyzeStrategy describes; for FuzzFirstExpiry, a leg's first byte
// with 64 set gives an option its own volatility (80%), with 128 the last
// expiry a request can write (9999-12-31).
func fuzzLegs(data []byte) []StrategyLeg {
	var legs []StrategyLeg
	for i := 0; i+5 <= len(data) && len(legs) < 8; i += 5 {
		b := data[i : i+5]
		l := StrategyLeg{Side: SideLong, Quantity: decimal.NewFromInt(int64(1 + b[2]%10)),
			Price: decimal.New(int64(b[3])<<8|int64(b[4]), -2)}
		if b[0]&4 != 0 {
			l.Side = SideShort
		}
		if b[0]&16 != 0 {
			l.Multiplier = decimal.NewFromInt(10)
		}
		switch b[0] % 4 {
		case 0, 3:
			l.Quantity = l.Quantity.Mul(decimal.NewFromInt(int64(b[1]) + 1))
			l.Multiplier = decimal.Zero
		default:
			right := "C"
			if b[0]%4 == 2 {
				right = "P"
			}
			expiry := exp1
			switch {
			case b[0]&128 != 0:
				expiry = lastDay
			case b[0]&8 != 0:
				expiry = exp2
			}
			l.Option = &instrument.Option{Expiry: expiry, Right: right, Strike: decimal.New(int64(b[1])+1, -int32(b[0]>>5&1))}
			if b[0]&64 != 0 {
				l.Volatility = decimal.NewFromInt(80)
			}
		}
		legs = append(legs, l)
	}
	return legs
}
