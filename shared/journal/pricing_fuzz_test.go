package journal

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// lastDay is the last expiry a request can write: ~7975 years after exp1.
var lastDay = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)

// FuzzFirstExpiry estimates the legs of fuzzLegs at a volatility of 0 to
// 500% (0: none given) and a rate of -5 to 25%, the API's bounds. It never
// panics; without a volatility for a later option it says so
// (ErrNoVolatility), with one it answers every value finite, its points
// ascending from 0, its bounds holding every point, its breakevens points;
// and the response writes as JSON. The seeds run as a test with go test.
func FuzzFirstExpiry(f *testing.F) {
	f.Add([]byte{5, 100, 1, 0, 200, 9, 100, 1, 1, 94}, uint16(3000), int16(400))        // call calendar
	f.Add([]byte{9, 95, 1, 2, 188, 5, 100, 1, 0, 200}, uint16(1), int16(-500))          // diagonal, tiny volatility
	f.Add([]byte{6, 100, 1, 0, 200, 74, 100, 1, 1, 94}, uint16(0), int16(0))            // put calendar, the leg's own 80%
	f.Add([]byte{5, 100, 9, 0, 200, 9, 100, 1, 1, 94}, uint16(50000), int16(2500))      // ratio, 500%
	f.Add([]byte{0, 99, 0, 19, 136, 133, 255, 9, 255, 255}, uint16(50000), int16(-500)) // shares and a call in 9999
	f.Add([]byte{5, 100, 1, 0, 0, 9, 100, 1, 0, 0}, uint16(3000), int16(0))             // zero prices
	f.Fuzz(func(t *testing.T, data []byte, vol uint16, rate int16) {
		legs := fuzzLegs(data)
		m := Model{Volatility: decimal.New(int64(vol%50001), -2), Rate: decimal.New(int64(rate)%2501, -2)}
		if m.Rate.LessThan(decimal.NewFromInt(-5)) {
			m.Rate = m.Rate.Neg()
		}
		c, err := FirstExpiry(legs, m)
		options := 0
		for _, l := range legs {
			if l.Option != nil {
				options++
			}
		}
		switch {
		case options == 0:
			if err == nil {
				t.Fatal("no option leg, no error")
			}
			return
		case errors.Is(err, ErrNoVolatility):
			if m.Volatility.IsPositive() {
				t.Fatalf("asks for a volatility it has: %+v", legs)
			}
			return
		case err != nil:
			t.Fatal(err)
		}
		if len(c.Points) < modelSamples || !c.Points[0].Price.IsZero() {
			t.Fatalf("%d points from %s", len(c.Points), c.Points[0].Price)
		}
		for i, p := range c.Points {
			if math.IsNaN(p.Value) || math.IsInf(p.Value, 0) {
				t.Fatalf("at %s: %g", p.Price, p.Value)
			}
			if i > 0 && !p.Price.GreaterThan(c.Points[i-1].Price) {
				t.Fatalf("points not ascending at %s", p.Price)
			}
			if c.MaxProfit != nil && p.Value > *c.MaxProfit || c.MaxLoss != nil && p.Value < -*c.MaxLoss {
				t.Fatalf("at %s: %g, outside the bounds %v %v", p.Price, p.Value, c.MaxProfit, c.MaxLoss)
			}
		}
		for i, b := range c.Breakevens {
			if i > 0 && !b.GreaterThan(c.Breakevens[i-1]) {
				t.Fatalf("breakevens not ascending: %v", c.Breakevens)
			}
		}
		if _, err := json.Marshal(FirstExpiryReport(c, m)); err != nil {
			t.Fatal(err)
		}
	})
}
