package journal

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"
)

// near reports |got - want| <= tol.
func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

// TestBlackScholes checks textbook values, put–call parity and the edges.
func TestBlackScholes(t *testing.T) {
	for _, c := range []struct {
		name              string
		s, k, t, r, sigma float64
		wantCall, wantPut float64
	}{
		// The usual textbook case: at the money, a year, 5%, 20%.
		{"AtTheMoney", 100, 100, 1, 0.05, 0.2, 10.4506, 5.5735},
		// Hull, Options, Futures and Other Derivatives, example 15.6: 4.76 and 0.81.
		{"Hull", 42, 40, 0.5, 0.1, 0.2, 4.7594, 0.8086},
		// No rate: the call and put at the money are equal, 0.4 x S x sigma x sqrt(t) nearly (7.97).
		{"NoRate", 100, 100, 1, 0, 0.2, 7.9656, 7.9656},
	} {
		t.Run(c.name, func(t *testing.T) {
			call, put := BlackScholes("C", c.s, c.k, c.t, c.r, c.sigma), BlackScholes("P", c.s, c.k, c.t, c.r, c.sigma)
			if !near(call, c.wantCall, 5e-5) || !near(put, c.wantPut, 5e-5) {
				t.Errorf("call %.6f put %.6f, want %.4f %.4f", call, put, c.wantCall, c.wantPut)
			}
		})
	}
	t.Run("PutCallParity", func(t *testing.T) {
		// C - P = S - K e^(-rt) for any inputs.
		r := rand.New(rand.NewPCG(7, 11))
		for range 2000 {
			s, k := 1+r.Float64()*500, 1+r.Float64()*500
			tt, rate, sigma := r.Float64()*5, r.Float64()*0.3-0.05, 0.01+r.Float64()*5
			diff := BlackScholes("C", s, k, tt, rate, sigma) - BlackScholes("P", s, k, tt, rate, sigma)
			if want := s - k*math.Exp(-rate*tt); !near(diff, want, 1e-9*(s+k)) {
				t.Fatalf("S %g K %g t %g r %g sigma %g: C - P = %g, want %g", s, k, tt, rate, sigma, diff, want)
			}
		}
	})
	t.Run("Edges", func(t *testing.T) {
		for _, c := range []struct {
			name      string
			got, want float64
		}{
			{"ExpiredCall", BlackScholes("C", 110, 100, 0, 0.05, 0.3), 10},
			{"ExpiredPut", BlackScholes("P", 110, 100, -1, 0.05, 0.3), 0},
			{"CallOnNothing", BlackScholes("C", 0, 100, 1, 0.05, 0.3), 0},
			{"PutOnNothing", BlackScholes("P", 0, 100, 1, 0.05, 0.3), 100 * math.Exp(-0.05)},
			{"NoVolatility", BlackScholes("C", 110, 100, 1, 0.05, 0), 110 - 100*math.Exp(-0.05)},
			// Unbounded volatility: a call is worth the share, a put the strike's present value.
			{"WildCall", BlackScholes("C", 50, 100, 10, 0.05, 5), 50},
			{"WildPut", BlackScholes("P", 50, 100, 10, 0.05, 5), 100 * math.Exp(-0.5)},
			// Far out of the money: never below 0.
			{"FarOut", BlackScholes("C", 1, 1000, 0.01, 0.25, 0.01), 0},
		} {
			if !near(c.got, c.want, 1e-6) {
				t.Errorf("%s: %g, want %g", c.name, c.got, c.want)
			}
		}
	})
}

// TestFirstExpiry checks the estimate of calendars and diagonals against
// properties worked out by hand; the model is 30% and 4% a year; exp2 is 28
// days after exp1.
func TestFirstExpiry(t *testing.T) {
	m := Model{Volatility: d("30"), Rate: d("4")}
	t28 := 28.0 / 365
	at := func(c ModelCurve, price string) float64 {
		t.Helper()
		for _, p := range c.Points {
			if p.Price.Equal(d(price)) {
				return p.Value
			}
		}
		t.Fatalf("no point at %s", price)
		return 0
	}
	peak := func(c ModelCurve) decimal.Decimal {
		best := c.Points[0]
		for _, p := range c.Points {
			if p.Value > best.Value {
				best = p
			}
		}
		return best.Price
	}

	t.Run("LongCallCalendar", func(t *testing.T) {
		// 3.50 - 2 paid: 150. At 0 both calls are worthless: -150. Above the
		// strike the short call's loss is the long call's gain less its time
		// value, so the P&L peaks at the strike; it never loses more than 150.
		legs := []StrategyLeg{opt(Sh, "C", "100", "1", "2"), optAt(exp2, Lg, "C", "100", "1", "3.5")}
		c, err := FirstExpiry(legs, m)
		if err != nil {
			t.Fatal(err)
		}
		if !c.Date.Equal(exp1) {
			t.Errorf("date %s, want %s", c.Date, exp1)
		}
		if v := at(c, "0"); !near(v, -150, 1e-9) {
			t.Errorf("at 0: %g, want -150", v)
		}
		// At the strike: the long call's value then, about 0.4 x 100 x 0.3 x
		// sqrt(28/365) = 3.32 plus the rate's 0.15, less the 1.50 paid.
		want := (BlackScholes("C", 100, 100, t28, 0.04, 0.3) - 1.5) * 100
		if v := at(c, "100"); !near(v, want, 1e-6) || v < 190 || v > 205 {
			t.Errorf("at 100: %g, want %g (about 197)", v, want)
		}
		if p := peak(c); !p.Equal(d("100")) {
			t.Errorf("peak at %s, want the strike", p)
		}
		if c.MaxProfit == nil || *c.MaxProfit != want {
			t.Errorf("max profit %v, want %g", c.MaxProfit, want)
		}
		if c.MaxLoss == nil || !near(*c.MaxLoss, 150, 1e-9) {
			t.Errorf("max loss %v, want the debit, 150", c.MaxLoss)
		}
		for _, p := range c.Points {
			if p.Value < -150-1e-9 || p.Value > want {
				t.Fatalf("at %s: %g, outside [-150, %g]", p.Price, p.Value, want)
			}
		}
		// Two breakevens, one each side of the strike, where the P&L is 0.
		checkModelBreakevens(t, legs, m, c, 2)
		if !c.Breakevens[0].LessThan(d("100")) || !c.Breakevens[1].GreaterThan(d("100")) {
			t.Errorf("breakevens %v, want one each side of 100", c.Breakevens)
		}
		// The points: 0 to 200 in 160 steps, the strike (already one) and the breakevens.
		if n := len(c.Points); n != modelSamples+1+2 || !c.Points[n-1].Price.Equal(d("200")) {
			t.Errorf("%d points, the last at %s", n, c.Points[n-1].Price)
		}
	})
	t.Run("LongCallDiagonal", func(t *testing.T) {
		// 7 - 2 paid: 500. At 0: -500. Far above 100 the long 95 call is
		// worth S - 95 e^(-rt) and the short one costs S - 100: the P&L
		// tends to (100 + 2 - 7 - 95 e^(-rt)) x 100, about +29.
		legs := []StrategyLeg{optAt(exp2, Lg, "C", "95", "1", "7"), opt(Sh, "C", "100", "1", "2")}
		c, err := FirstExpiry(legs, m)
		if err != nil {
			t.Fatal(err)
		}
		if c.MaxLoss == nil || !near(*c.MaxLoss, 500, 1e-9) || c.MaxProfit == nil {
			t.Errorf("max loss %v, want 500; max profit %v", c.MaxLoss, c.MaxProfit)
		}
		if p := peak(c); !p.Equal(d("100")) {
			t.Errorf("peak at %s, want the short strike", p)
		}
		far := (100 + 2 - 7 - 95*math.Exp(-0.04*t28)) * 100
		if v := at(c, "200"); !near(v, far, 0.01) {
			t.Errorf("at 200: %g, want about %g", v, far)
		}
		checkModelBreakevens(t, legs, m, c, 1)
	})
	t.Run("PutCalendarWithOwnVolatility", func(t *testing.T) {
		// Only the later leg needs a volatility; its own wins over the
		// model's, and more volatility is worth more at the strike.
		long := optAt(exp2, Lg, "P", "100", "1", "3.5")
		legs := []StrategyLeg{opt(Sh, "P", "100", "1", "2"), long}
		if _, err := FirstExpiry(legs, Model{Rate: d("4")}); !errors.Is(err, ErrNoVolatility) {
			t.Fatalf("no volatility: %v", err)
		}
		legs[1].Volatility = d("40")
		own, err := FirstExpiry(legs, Model{Rate: d("4")})
		if err != nil {
			t.Fatal(err)
		}
		over, err := FirstExpiry(legs, Model{Volatility: d("20"), Rate: d("4")})
		if err != nil {
			t.Fatal(err)
		}
		want := (BlackScholes("P", 100, 100, t28, 0.04, 0.4) - 1.5) * 100
		if a, b, low := at(own, "100"), at(over, "100"), at(atModelVolatility(t, legs[:1], long, m), "100"); !near(a, want, 1e-6) || a != b || a <= low {
			t.Errorf("at 100: %g and %g, want %g, above 30%%'s %g", a, b, want, low)
		}
	})
	t.Run("RatioIsUnlimited", func(t *testing.T) {
		// One later call bought, two near ones sold: short a call above
		// the strike, so the loss is unlimited, with a breakeven above.
		legs := []StrategyLeg{opt(Sh, "C", "100", "2", "2"), optAt(exp2, Lg, "C", "100", "1", "3.5")}
		c, err := FirstExpiry(legs, m)
		if err != nil {
			t.Fatal(err)
		}
		if c.MaxLoss != nil || c.MaxProfit == nil {
			t.Errorf("max loss %v, max profit %v; want unlimited loss", c.MaxLoss, c.MaxProfit)
		}
		checkModelBreakevens(t, legs, m, c, 1)
	})
	t.Run("BreakevenPastThePoints", func(t *testing.T) {
		// Two later calls bought at 60, one near call sold at 1: at 200 the
		// long calls are worth about 100.3 each, (2 x 40.3 - 99) x 100 =
		// -1840, rising 100 a point: a breakeven near 218.
		legs := []StrategyLeg{opt(Sh, "C", "100", "1", "1"), optAt(exp2, Lg, "C", "100", "2", "60")}
		c, err := FirstExpiry(legs, m)
		if err != nil {
			t.Fatal(err)
		}
		if c.MaxProfit != nil {
			t.Errorf("max profit %v, want unlimited", *c.MaxProfit)
		}
		checkModelBreakevens(t, legs, m, c, 1)
		if b := c.Breakevens[0].InexactFloat64(); b < 215 || b > 222 {
			t.Errorf("breakeven %g, want about 218", b)
		}
		if last := c.Points[len(c.Points)-1]; !last.Price.Equal(c.Breakevens[0]) {
			t.Errorf("last point %s, want the breakeven", last.Price)
		}
	})
	t.Run("OneExpiryIsThePayoff", func(t *testing.T) {
		// Legs expiring together: the estimate is the exact payoff, shares too.
		legs := []StrategyLeg{shares(Lg, "100", "50"), opt(Lg, "P", "45", "1", "1"), opt(Sh, "C", "55", "1", "1.5")}
		s, err := AnalyzeStrategy(legs)
		if err != nil {
			t.Fatal(err)
		}
		c, err := FirstExpiry(legs, Model{Rate: d("4")})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range c.Points {
			if want := s.Payoff.At(p.Price).InexactFloat64(); !near(p.Value, want, 1e-6) {
				t.Fatalf("at %s: %g, payoff %g", p.Price, p.Value, want)
			}
		}
		if *c.MaxProfit != s.MaxProfit.InexactFloat64() || *c.MaxLoss != s.MaxLoss.InexactFloat64() ||
			len(c.Breakevens) != 1 || !c.Breakevens[0].Equal(s.Breakevens[0]) {
			t.Errorf("model %v %v %v, payoff %s %s %v", *c.MaxProfit, *c.MaxLoss, c.Breakevens, s.MaxProfit, s.MaxLoss, s.Breakevens)
		}
	})
	t.Run("Refused", func(t *testing.T) {
		for _, legs := range [][]StrategyLeg{nil, {shares(Lg, "100", "50")}, {opt("up", "C", "100", "1", "1")}} {
			if _, err := FirstExpiry(legs, m); err == nil {
				t.Errorf("%+v: no error", legs)
			}
		}
	})
}

// atModelVolatility is the estimate of legs and later, later priced at the model's volatility, not its own.
func atModelVolatility(t *testing.T, legs []StrategyLeg, later StrategyLeg, m Model) ModelCurve {
	t.Helper()
	later.Volatility = decimal.Zero
	c, err := FirstExpiry(append(append([]StrategyLeg{}, legs...), later), m)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// checkModelBreakevens checks that there are n breakevens, ascending, each
// a point, with the P&L changing sign within the rounding of a breakeven
// (0.00005) of it.
func checkModelBreakevens(t *testing.T, legs []StrategyLeg, m Model, c ModelCurve, n int) {
	t.Helper()
	if len(c.Breakevens) != n {
		t.Fatalf("breakevens %v, want %d", c.Breakevens, n)
	}
	f, err := modelValue(legs, c.Date, m)
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range c.Breakevens {
		if i > 0 && !b.GreaterThan(c.Breakevens[i-1]) {
			t.Fatalf("breakevens not ascending: %v", c.Breakevens)
		}
		x := b.InexactFloat64()
		if lo, hi := f(x-0.00005), f(x+0.00005); (lo < 0) == (hi < 0) && lo != 0 && hi != 0 {
			t.Errorf("no sign change around breakeven %s: %g, %g", b, lo, hi)
		}
		found := false
		for _, p := range c.Points {
			found = found || p.Price.Equal(b)
		}
		if !found {
			t.Errorf("breakeven %s is not a point", b)
		}
	}
}

// TestBlackScholesMertonHull checks the model against Hull's worked
// examples (Options, Futures, and Other Derivatives): example 15.6, S=42,
// K=40, r=10%, sigma=20%, T=0.5: call 4.76, put 0.81; and the Greeks of the
// chapter 19 example, S=49, K=50, r=5%, sigma=20%, T=20 weeks (0.3846):
// call delta 0.522, gamma 0.066, theta -4.31 a year, vega 12.1 and rho 8.91
// per unit (per 1% here: 0.121, 0.0891); and a dividend yield's effect by
// put-call parity.
func TestBlackScholesMertonHull(t *testing.T) {
	call := BlackScholesMerton("C", 42, 40, 0.5, 0.1, 0, 0.2)
	put := BlackScholesMerton("P", 42, 40, 0.5, 0.1, 0, 0.2)
	if !near(call.Price, 4.76, 0.005) || !near(put.Price, 0.81, 0.005) {
		t.Fatalf("Hull 15.6: call %.4f put %.4f, want 4.76 and 0.81", call.Price, put.Price)
	}
	g := BlackScholesMerton("C", 49, 50, 0.3846, 0.05, 0, 0.2)
	for _, c := range []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"delta", g.Delta, 0.522, 0.0005},
		{"gamma", g.Gamma, 0.066, 0.0005},
		{"theta", g.Theta * 365, -4.31, 0.005},
		{"vega", g.Vega, 0.121, 0.0005},
		{"rho", g.Rho, 0.0891, 0.00005},
	} {
		if !near(c.got, c.want, c.tol) {
			t.Errorf("Hull ch. 19 %s: %.5f, want %.4f", c.name, c.got, c.want)
		}
	}
	p := BlackScholesMerton("P", 49, 50, 0.3846, 0.05, 0, 0.2)
	if !near(p.Delta, g.Delta-1, 1e-12) || !near(p.Gamma, g.Gamma, 1e-12) || !near(p.Vega, g.Vega, 1e-12) {
		t.Errorf("put Greeks %+v against call %+v", p, g)
	}
	// Parity with a dividend yield: c - p = S e^-qT - K e^-rT.
	cq := BlackScholesMerton("C", 100, 95, 1, 0.04, 0.03, 0.25)
	pq := BlackScholesMerton("P", 100, 95, 1, 0.04, 0.03, 0.25)
	if want := 100*math.Exp(-0.03) - 95*math.Exp(-0.04); !near(cq.Price-pq.Price, want, 1e-9) {
		t.Errorf("parity with dividends: %.6f, want %.6f", cq.Price-pq.Price, want)
	}
}
