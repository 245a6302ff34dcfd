package journal

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"tradejournal/shared/instrument"

	"github.com/shopspring/decimal"
)

var (
	exp1 = time.Date(2024, 1, 19, 0, 0, 0, 0, time.UTC)
	exp2 = time.Date(2024, 2, 16, 0, 0, 0, 0, time.UTC)
)

// opt is an option leg of qty standard contracts expiring on exp1.
func opt(side, right, strike, qty, price string) StrategyLeg {
	return StrategyLeg{Option: &instrument.Option{Underlying: "XYZ", Expiry: exp1, Right: right, Strike: d(strike)}, Side: side, Quantity: d(qty), Price: d(price)}
}

func optAt(expiry time.Time, side, right, strike, qty, price string) StrategyLeg {
	l := opt(side, right, strike, qty, price)
	l.Option.Expiry = expiry
	return l
}

func shares(side, qty, price string) StrategyLeg {
	return StrategyLeg{Side: side, Quantity: d(qty), Price: d(price)}
}

const (
	Lg = SideLong
	Sh = SideShort
)

// TestAnalyzeStrategy checks each named strategy against figures worked
// out by hand (standard contracts: x100). maxProfit and maxLoss "" mean
// unlimited; noPayoff marks several expiries (no figures at expiry).
func TestAnalyzeStrategy(t *testing.T) {
	cases := []struct {
		name                 string
		legs                 []StrategyLeg
		strategy             StrategyName
		label                string
		debit                string
		maxProfit, maxLoss   string
		breakevens           []string
		noPayoff             bool
		payoffAt, payoffWant string // one more point checked by hand
	}{
		// 3.00 x 100 paid; above 100 gains 100 a point: breakeven 100 + 3.
		{name: "LongCall", legs: []StrategyLeg{opt(Lg, "C", "100", "1", "3")},
			strategy: StrategySingle, label: "Long call", debit: "300", maxProfit: "", maxLoss: "300", breakevens: []string{"103"},
			payoffAt: "110", payoffWant: "700"},
		// 2.00 x 100 received; at 0 the put is worth 50: -(50-2) x 100 = -4800.
		{name: "ShortPut", legs: []StrategyLeg{opt(Sh, "P", "50", "1", "2")},
			strategy: StrategySingle, label: "Short put", debit: "-200", maxProfit: "200", maxLoss: "4800", breakevens: []string{"48"}},
		// (5 - 2) x 100 = 300 paid; width 10: max profit (10 - 3) x 100 = 700; breakeven 100 + 3.
		{name: "BullCallVertical", legs: []StrategyLeg{opt(Lg, "C", "100", "1", "5"), opt(Sh, "C", "110", "1", "2")},
			strategy: StrategyVertical, label: "Bull call vertical (debit)", debit: "300", maxProfit: "700", maxLoss: "300", breakevens: []string{"103"},
			payoffAt: "105", payoffWant: "200"},
		// (4 - 2) x 100 = 200 received; width 5: max loss (5 - 2) x 100 = 300; breakeven 100 - 2.
		{name: "BullPutVertical", legs: []StrategyLeg{opt(Sh, "P", "100", "1", "4"), opt(Lg, "P", "95", "1", "2")},
			strategy: StrategyVertical, label: "Bull put vertical (credit)", debit: "-200", maxProfit: "200", maxLoss: "300", breakevens: []string{"98"}},
		// (5 - 2) x 100 = 300 received; width 5: max loss 200; breakeven 100 + 3.
		{name: "BearCallVertical", legs: []StrategyLeg{opt(Sh, "C", "100", "1", "5"), opt(Lg, "C", "105", "1", "2")},
			strategy: StrategyVertical, label: "Bear call vertical (credit)", debit: "-300", maxProfit: "300", maxLoss: "200", breakevens: []string{"103"}},
		// (5 - 2.5) x 100 = 250 paid; width 5: max profit 250; breakeven 100 - 2.5.
		{name: "BearPutVertical", legs: []StrategyLeg{opt(Lg, "P", "100", "1", "5"), opt(Sh, "P", "95", "1", "2.5")},
			strategy: StrategyVertical, label: "Bear put vertical (debit)", debit: "250", maxProfit: "250", maxLoss: "250", breakevens: []string{"97.5"}},
		// (4 + 3) x 100 = 700 paid; breakevens 100 -/+ 7.
		{name: "LongStraddle", legs: []StrategyLeg{opt(Lg, "C", "100", "1", "4"), opt(Lg, "P", "100", "1", "3")},
			strategy: StrategyStraddle, label: "Long straddle", debit: "700", maxProfit: "", maxLoss: "700", breakevens: []string{"93", "107"},
			payoffAt: "0", payoffWant: "9300"},
		// (4 + 3) x 100 = 700 received; at 0: 700 - 100 x 100 = -9300.
		{name: "ShortStraddle", legs: []StrategyLeg{opt(Sh, "C", "100", "1", "4"), opt(Sh, "P", "100", "1", "3")},
			strategy: StrategyStraddle, label: "Short straddle", debit: "-700", maxProfit: "700", maxLoss: "", breakevens: []string{"93", "107"}},
		// (2 + 1.5) x 100 = 350 received; breakevens 95 - 3.5 and 105 + 3.5; the calls make the loss unlimited.
		{name: "ShortStrangle", legs: []StrategyLeg{opt(Sh, "P", "95", "1", "2"), opt(Sh, "C", "105", "1", "1.5")},
			strategy: StrategyStrangle, label: "Short strangle", debit: "-350", maxProfit: "350", maxLoss: "", breakevens: []string{"91.5", "108.5"}},
		// 2 contracts: (1 + 1.2) x 200 = 440 paid; breakevens 90 - 2.2 and 110 + 2.2.
		{name: "LongStrangle", legs: []StrategyLeg{opt(Lg, "P", "90", "2", "1"), opt(Lg, "C", "110", "2", "1.2")},
			strategy: StrategyStrangle, label: "Long strangle", debit: "440", maxProfit: "", maxLoss: "440", breakevens: []string{"87.8", "112.2"}},
		// Credit 2.5 + 2.4 - 1 - 0.9 = 3.0 (300); wings 5: max loss (5 - 3) x 100 = 200; breakevens 95 - 3, 105 + 3.
		{name: "ShortIronCondor", legs: []StrategyLeg{opt(Lg, "P", "90", "1", "1"), opt(Sh, "P", "95", "1", "2.5"), opt(Sh, "C", "105", "1", "2.4"), opt(Lg, "C", "110", "1", "0.9")},
			strategy: StrategyIronCondor, label: "Short iron condor", debit: "-300", maxProfit: "300", maxLoss: "200", breakevens: []string{"92", "108"},
			payoffAt: "100", payoffWant: "300"},
		// Put wing 10, call wing 5; credit 2.5 + 2.4 - 0.5 - 0.9 = 3.5 (350): the wider wing loses (10 - 3.5) x 100 = 650.
		{name: "IronCondorUnequalWings", legs: []StrategyLeg{opt(Lg, "P", "85", "1", "0.5"), opt(Sh, "P", "95", "1", "2.5"), opt(Sh, "C", "105", "1", "2.4"), opt(Lg, "C", "110", "1", "0.9")},
			strategy: StrategyIronCondor, label: "Short iron condor (unequal wings)", debit: "-350", maxProfit: "350", maxLoss: "650", breakevens: []string{"91.5", "108.5"},
			payoffAt: "120", payoffWant: "-150"},
		// Paid 2.5 + 2.4 - 1 - 0.9 = 3 (300); the wings pay 5 - 3 = 2 (200) at either end.
		{name: "LongIronCondor", legs: []StrategyLeg{opt(Sh, "P", "90", "1", "1"), opt(Lg, "P", "95", "1", "2.5"), opt(Lg, "C", "105", "1", "2.4"), opt(Sh, "C", "110", "1", "0.9")},
			strategy: StrategyIronCondor, label: "Long iron condor", debit: "300", maxProfit: "200", maxLoss: "300", breakevens: []string{"92", "108"}},
		// Credit 4 + 4.2 - 1 - 1.2 = 6 (600); wings 10: max loss (10 - 6) x 100 = 400; breakevens 100 -/+ 6.
		{name: "ShortIronButterfly", legs: []StrategyLeg{opt(Lg, "P", "90", "1", "1"), opt(Sh, "P", "100", "1", "4"), opt(Sh, "C", "100", "1", "4.2"), opt(Lg, "C", "110", "1", "1.2")},
			strategy: StrategyIronButterfly, label: "Short iron butterfly", debit: "-600", maxProfit: "600", maxLoss: "400", breakevens: []string{"94", "106"}},
		// Paid 12 + 1 - 2 x 5 = 3 (300); at 100: 10 x 100 - 300 = 700; breakevens 90 + 3, 110 - 3.
		{name: "LongCallButterfly", legs: []StrategyLeg{opt(Lg, "C", "90", "1", "12"), opt(Sh, "C", "100", "2", "5"), opt(Lg, "C", "110", "1", "1")},
			strategy: StrategyButterfly, label: "Long call butterfly", debit: "300", maxProfit: "700", maxLoss: "300", breakevens: []string{"93", "107"}},
		// Wings 10 and 15. Paid 12 + 0.5 - 2 x 5 = 2.5 (250). At 110 and above: -250.
		// At 100: the 110 put is worth 10: 1000 - 250 = 750. At 85 and below:
		// 110p 25 (2500) - 2 x 100p 15 (3000) - 250 = -750. Breakevens: from 750 at
		// 100 falling 100 a point, 100 + 7.5; from -750 at 85 rising 100 a point, 85 + 7.5.
		{name: "BrokenWingPutButterfly", legs: []StrategyLeg{opt(Lg, "P", "110", "1", "12"), opt(Sh, "P", "100", "2", "5"), opt(Lg, "P", "85", "1", "0.5")},
			strategy: StrategyButterfly, label: "Long put broken-wing butterfly", debit: "250", maxProfit: "750", maxLoss: "750", breakevens: []string{"92.5", "107.5"}},
		// 100 shares at 50 = 5000 less 200 for the call: 4800. At 55 and above: 500 + 200 = 700;
		// at 0: -5000 + 200 = -4800; breakeven 50 - 2.
		{name: "CoveredCall", legs: []StrategyLeg{shares(Lg, "100", "50"), opt(Sh, "C", "55", "1", "2")},
			strategy: StrategyCoveredCall, label: "Covered call", debit: "4800", maxProfit: "700", maxLoss: "4800", breakevens: []string{"48"}},
		// 5000 + 100 - 150 = 4950. Up to the call: 500 + 50 = 550; down to the put: -500 + 50 = -450; breakeven 50 - 0.5.
		{name: "Collar", legs: []StrategyLeg{shares(Lg, "100", "50"), opt(Lg, "P", "45", "1", "1"), opt(Sh, "C", "55", "1", "1.5")},
			strategy: StrategyCollar, label: "Collar", debit: "4950", maxProfit: "550", maxLoss: "450", breakevens: []string{"49.5"}},
		// 1 long 100 call at 5, 2 short 110 calls at 3: 600 - 500 = 100 received. At 100 and below: +100;
		// at 110: 1000 + 100 = 1100; above it falls 100 a point: breakeven 110 + 11.
		{name: "CallRatioSpread", legs: []StrategyLeg{opt(Lg, "C", "100", "1", "5"), opt(Sh, "C", "110", "2", "3")},
			strategy: StrategyRatio, label: "Call ratio spread 1x2", debit: "-100", maxProfit: "1100", maxLoss: "", breakevens: []string{"121"}},
		// 2 long 95 puts at 2, 3 short 90 puts at 1: 400 - 300 = 100 paid. At 95 and above: -100; at 90: 1000 - 100 = 900;
		// below it rises 100 a point less 300: falls 100 a point, so 90 - 9 = 81; at 0: 900 - 9000 = -8100.
		// Between 90 and 95 it falls 200 a point from 900: 90 + 4.5.
		{name: "PutRatioSpread", legs: []StrategyLeg{opt(Lg, "P", "95", "2", "2"), opt(Sh, "P", "90", "3", "1")},
			strategy: StrategyRatio, label: "Put ratio spread 3x2", debit: "100", maxProfit: "900", maxLoss: "8100", breakevens: []string{"81", "94.5"}},
		// Paid 3.5 - 2 = 1.5 (150); no figures at expiry.
		{name: "LongCallCalendar", legs: []StrategyLeg{opt(Sh, "C", "100", "1", "2"), optAt(exp2, Lg, "C", "100", "1", "3.5")},
			strategy: StrategyCalendar, label: "Long call calendar", debit: "150", noPayoff: true},
		{name: "ShortPutCalendar", legs: []StrategyLeg{opt(Lg, "P", "100", "1", "2"), optAt(exp2, Sh, "P", "100", "1", "3.5")},
			strategy: StrategyCalendar, label: "Short put calendar", debit: "-150", noPayoff: true},
		// Paid 7 - 2 = 5 (500).
		{name: "LongCallDiagonal", legs: []StrategyLeg{optAt(exp2, Lg, "C", "95", "1", "7"), opt(Sh, "C", "100", "1", "2")},
			strategy: StrategyDiagonal, label: "Long call diagonal", debit: "500", noPayoff: true},
		// 100 shares at 50: breakeven 50, the loss stops at 0.
		{name: "LongShares", legs: []StrategyLeg{shares(Lg, "100", "50")},
			strategy: StrategySingle, label: "Long shares", debit: "5000", maxProfit: "", maxLoss: "5000", breakevens: []string{"50"}},
		// Two long 100 calls of 1 each are one leg of 2: a vertical.
		{name: "SplitLegsMerge", legs: []StrategyLeg{opt(Lg, "C", "100", "1", "5"), opt(Lg, "C", "100", "1", "5"), opt(Sh, "C", "110", "2", "2")},
			strategy: StrategyVertical, label: "Bull call vertical (debit)", debit: "600", maxProfit: "1400", maxLoss: "600", breakevens: []string{"103"}},
		// A protective put is not on the list: custom, with figures all the same. 5000 + 200 paid;
		// below 45: -500 - 200 = -700; breakeven 52.
		{name: "ProtectivePutIsCustom", legs: []StrategyLeg{shares(Lg, "100", "50"), opt(Lg, "P", "45", "1", "2")},
			strategy: StrategyCustom, label: "Custom", debit: "5200", maxProfit: "", maxLoss: "700", breakevens: []string{"52"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := AnalyzeStrategy(c.legs)
			if err != nil {
				t.Fatal(err)
			}
			if s.Name != c.strategy || s.Label != c.label {
				t.Errorf("name %q %q, want %q %q", s.Name, s.Label, c.strategy, c.label)
			}
			if !s.NetDebit.Equal(d(c.debit)) {
				t.Errorf("net debit %s, want %s", s.NetDebit, c.debit)
			}
			if c.noPayoff {
				if s.Payoff != nil || s.NoPayoff == "" || s.MaxProfit != nil || s.MaxLoss != nil || s.Breakevens != nil {
					t.Errorf("figures at expiry for several expiries: %+v", s)
				}
				return
			}
			if s.Payoff == nil {
				t.Fatalf("no payoff: %s", s.NoPayoff)
			}
			checkBound(t, "max profit", s.MaxProfit, c.maxProfit)
			checkBound(t, "max loss", s.MaxLoss, c.maxLoss)
			var got []string
			for _, b := range s.Breakevens {
				got = append(got, b.String())
			}
			if strings.Join(got, " ") != strings.Join(c.breakevens, " ") {
				t.Errorf("breakevens %v, want %v", got, c.breakevens)
			}
			if c.payoffAt != "" {
				if v := s.Payoff.At(d(c.payoffAt)); !v.Equal(d(c.payoffWant)) {
					t.Errorf("payoff at %s = %s, want %s", c.payoffAt, v, c.payoffWant)
				}
			}
		})
	}
}

func checkBound(t *testing.T, what string, got *decimal.Decimal, want string) {
	t.Helper()
	switch {
	case want == "" && got != nil:
		t.Errorf("%s %s, want unlimited", what, got)
	case want != "" && got == nil:
		t.Errorf("%s unlimited, want %s", what, want)
	case want != "" && !got.Equal(d(want)):
		t.Errorf("%s %s, want %s", what, got, want)
	}
}

// TestRecogniseNearMisses: legs that look like a named strategy but break
// one of its rules are custom; the decisions on unequal wings and sizes.
func TestRecogniseNearMisses(t *testing.T) {
	mini := func(l StrategyLeg) StrategyLeg { l.Multiplier = d("10"); return l }
	cases := []struct {
		name  string
		legs  []StrategyLeg
		want  StrategyName
		label string
	}{
		{"TwoLongCalls", []StrategyLeg{opt(Lg, "C", "100", "1", "5"), opt(Lg, "C", "110", "1", "2")}, StrategyCustom, "Custom"},
		{"GutsStrangle", []StrategyLeg{opt(Lg, "P", "110", "1", "11"), opt(Lg, "C", "100", "1", "11")}, StrategyCustom, "Custom"},
		{"StraddleUnequalSizes", []StrategyLeg{opt(Lg, "P", "100", "1", "3"), opt(Lg, "C", "100", "2", "3")}, StrategyCustom, "Custom"},
		{"StraddleOppositeSides", []StrategyLeg{opt(Lg, "P", "100", "1", "3"), opt(Sh, "C", "100", "1", "3")}, StrategyCustom, "Custom"},
		{"StrangleTwoExpiries", []StrategyLeg{opt(Lg, "P", "95", "1", "3"), optAt(exp2, Lg, "C", "105", "1", "3")}, StrategyCustom, "Custom"},
		{"CalendarUnequalSizes", []StrategyLeg{opt(Sh, "C", "100", "1", "2"), optAt(exp2, Lg, "C", "100", "2", "3")}, StrategyCustom, "Custom"},
		{"SameContractLongAndShort", []StrategyLeg{opt(Lg, "C", "100", "1", "5"), opt(Sh, "C", "100", "1", "5")}, StrategyCustom, "Custom"},
		{"ButterflyOneOneOne", []StrategyLeg{opt(Lg, "C", "90", "1", "12"), opt(Sh, "C", "100", "1", "5"), opt(Lg, "C", "110", "1", "1")}, StrategyCustom, "Custom"},
		{"ButterflyMixedRights", []StrategyLeg{opt(Lg, "C", "90", "1", "12"), opt(Sh, "P", "100", "2", "5"), opt(Lg, "C", "110", "1", "1")}, StrategyCustom, "Custom"},
		{"ButterflyWingsOnBothSides", []StrategyLeg{opt(Lg, "C", "90", "1", "12"), opt(Sh, "C", "100", "2", "5"), opt(Sh, "C", "110", "1", "1")}, StrategyCustom, "Custom"},
		{"ShortCallButterfly", []StrategyLeg{opt(Sh, "C", "90", "1", "12"), opt(Lg, "C", "100", "2", "5"), opt(Sh, "C", "110", "1", "1")}, StrategyButterfly, "Short call butterfly"},
		{"CondorOfFourCalls", []StrategyLeg{opt(Lg, "C", "90", "1", "12"), opt(Sh, "C", "95", "1", "8"), opt(Sh, "C", "105", "1", "3"), opt(Lg, "C", "110", "1", "1")}, StrategyCustom, "Custom"},
		{"IronCondorUnequalSizes", []StrategyLeg{opt(Lg, "P", "90", "1", "1"), opt(Sh, "P", "95", "2", "2.5"), opt(Sh, "C", "105", "1", "2.4"), opt(Lg, "C", "110", "1", "0.9")}, StrategyCustom, "Custom"},
		{"IronCondorCrossedBody", []StrategyLeg{opt(Lg, "P", "90", "1", "1"), opt(Sh, "P", "106", "1", "2.5"), opt(Sh, "C", "105", "1", "2.4"), opt(Lg, "C", "110", "1", "0.9")}, StrategyCustom, "Custom"},
		{"IronCondorInnerSidesDiffer", []StrategyLeg{opt(Lg, "P", "90", "1", "1"), opt(Sh, "P", "95", "1", "2.5"), opt(Lg, "C", "105", "1", "2.4"), opt(Sh, "C", "110", "1", "0.9")}, StrategyCustom, "Custom"},
		{"IronCondorTwoExpiries", []StrategyLeg{opt(Lg, "P", "90", "1", "1"), opt(Sh, "P", "95", "1", "2.5"), opt(Sh, "C", "105", "1", "2.4"), optAt(exp2, Lg, "C", "110", "1", "0.9")}, StrategyCustom, "Custom"},
		{"IronButterflyUnequalWings", []StrategyLeg{opt(Lg, "P", "95", "1", "1"), opt(Sh, "P", "100", "1", "4"), opt(Sh, "C", "100", "1", "4.2"), opt(Lg, "C", "110", "1", "1.2")}, StrategyIronButterfly, "Short iron butterfly (unequal wings)"},
		{"PartlyCoveredCall", []StrategyLeg{shares(Lg, "200", "50"), opt(Sh, "C", "55", "1", "2")}, StrategyCustom, "Custom"},
		{"CoveredPutIsCustom", []StrategyLeg{shares(Sh, "100", "50"), opt(Sh, "P", "45", "1", "2")}, StrategyCustom, "Custom"},
		{"CollarPutAboveCall", []StrategyLeg{shares(Lg, "100", "50"), opt(Lg, "P", "55", "1", "6"), opt(Sh, "C", "45", "1", "6")}, StrategyCustom, "Custom"},
		{"CollarLongCall", []StrategyLeg{shares(Lg, "100", "50"), opt(Lg, "P", "45", "1", "1"), opt(Lg, "C", "55", "1", "1")}, StrategyCustom, "Custom"},
		{"ShortShares", []StrategyLeg{shares(Sh, "10", "50")}, StrategySingle, "Short shares"},
		{"LongAndShortShares", []StrategyLeg{shares(Sh, "10", "50"), shares(Lg, "10", "50")}, StrategyCustom, "Custom"},
		// Sizes are compared in shares: 10 mini contracts (x10) match one standard contract.
		{"VerticalOfStandardAndMini", []StrategyLeg{opt(Lg, "C", "100", "1", "5"), mini(opt(Sh, "C", "110", "10", "2"))}, StrategyVertical, "Bull call vertical (debit)"},
		{"MiniOnTheSameStrike", []StrategyLeg{opt(Lg, "C", "100", "1", "5"), mini(opt(Sh, "C", "100", "10", "5"))}, StrategyCustom, "Custom"},
		{"EvenVertical", []StrategyLeg{opt(Lg, "C", "100", "1", "3"), opt(Sh, "C", "110", "1", "3")}, StrategyVertical, "Bull call vertical (even)"},
		{"NineLegs", func() []StrategyLeg {
			var legs []StrategyLeg
			for k := 80; k < 125; k += 5 {
				legs = append(legs, opt(Lg, "C", decimal.NewFromInt(int64(k)).String(), "1", "1"))
			}
			return legs
		}(), StrategyCustom, "Custom"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := AnalyzeStrategy(c.legs)
			if err != nil {
				t.Fatal(err)
			}
			if s.Name != c.want || s.Label != c.label {
				t.Errorf("got %q %q, want %q %q", s.Name, s.Label, c.want, c.label)
			}
		})
	}
}

func TestAnalyzeStrategyRefuses(t *testing.T) {
	bad := func(f func(*StrategyLeg)) []StrategyLeg {
		l := opt(Lg, "C", "100", "1", "5")
		f(&l)
		return []StrategyLeg{l}
	}
	for name, legs := range map[string][]StrategyLeg{
		"NoLegs":         nil,
		"Side":           bad(func(l *StrategyLeg) { l.Side = "up" }),
		"ZeroQuantity":   bad(func(l *StrategyLeg) { l.Quantity = decimal.Zero }),
		"NegativePrice":  bad(func(l *StrategyLeg) { l.Price = d("-1") }),
		"Right":          bad(func(l *StrategyLeg) { l.Option.Right = "X" }),
		"ZeroStrike":     bad(func(l *StrategyLeg) { l.Option.Strike = decimal.Zero }),
		"NegativeMultip": bad(func(l *StrategyLeg) { l.Multiplier = d("-100") }),
	} {
		if _, err := AnalyzeStrategy(legs); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// referenceValue is a leg's payoff at expiry written out afresh, to check
// the engine against.
func referenceValue(l StrategyLeg, s decimal.Decimal) decimal.Decimal {
	worth := s
	if o := l.Option; o != nil {
		worth = decimal.Zero
		if o.Right == "C" && s.GreaterThan(o.Strike) {
			worth = s.Sub(o.Strike)
		}
		if o.Right == "P" && s.LessThan(o.Strike) {
			worth = o.Strike.Sub(s)
		}
	}
	v := worth.Sub(l.Price).Mul(l.Quantity).Mul(l.mult())
	if l.Side == SideShort {
		return v.Neg()
	}
	return v
}

// randomLegs draws 1 to 6 legs on one expiry: shares or standard options
// at strikes 80 to 120, 1 to 3 contracts (or 1 to 300 shares), prices in cents.
func randomLegs(r *rand.Rand) []StrategyLeg {
	legs := make([]StrategyLeg, 1+r.IntN(6))
	for i := range legs {
		side := Lg
		if r.IntN(2) == 0 {
			side = Sh
		}
		price := decimal.New(int64(1+r.IntN(2000)), -2)
		switch r.IntN(5) {
		case 0:
			legs[i] = StrategyLeg{Side: side, Quantity: decimal.NewFromInt(int64(1 + r.IntN(300))), Price: price.Add(d("50"))}
		default:
			right := "C"
			if r.IntN(2) == 0 {
				right = "P"
			}
			strike := decimal.NewFromInt(int64(80 + 5*r.IntN(9)))
			legs[i] = StrategyLeg{Option: &instrument.Option{Expiry: exp1, Right: right, Strike: strike}, Side: side,
				Quantity: decimal.NewFromInt(int64(1 + r.IntN(3))), Price: price}
		}
	}
	return legs
}

// TestStrategyProperties: on random legs, the payoff equals the sum of the
// legs' payoffs at every breakpoint and between them; max profit and loss
// are the extremes of the payoff (and unlimited exactly when it keeps
// rising or falling); the payoff is 0 at each breakeven and keeps one sign
// between them; and the realised P&L of the legs (Compute, leg by leg)
// equals the strategy's net value at close less its net debit and fees.
func TestStrategyProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 2026))
	for range 2000 {
		legs := randomLegs(r)
		s, err := AnalyzeStrategy(legs)
		if err != nil {
			t.Fatal(err)
		}
		checkConsistent(t, legs, s, func(p decimal.Decimal) decimal.Decimal {
			sum := decimal.Zero
			for _, l := range legs {
				sum = sum.Add(referenceValue(l, p))
			}
			return sum
		})

		// Realised P&L: each leg opened at its price and closed at a random
		// price with random fees, through Compute, against the strategy's sums.
		var (
			trades []Trade
			closed = make([]StrategyLeg, len(legs))
			fees   = decimal.Zero
			legNet = decimal.Zero
		)
		for i, l := range legs {
			exit := decimal.New(int64(1+r.IntN(4000)), -2)
			fee := decimal.New(int64(r.IntN(300)), -2)
			tr := Trade{Side: l.Side, Multiplier: l.mult(), Fills: []Fill{
				{Type: FillEntry, Price: l.Price, Quantity: l.Quantity, Fees: fee, FilledAt: t0},
				{Type: FillExit, Price: exit, Quantity: l.Quantity, FilledAt: t0.Add(time.Hour)},
			}}
			trades = append(trades, tr)
			f, err := Compute(tr)
			if err != nil {
				t.Fatal(err)
			}
			legNet = legNet.Add(f.NetPnL)
			closed[i] = l
			closed[i].Price = exit
			fees = fees.Add(fee)
		}
		gross, gotFees, net, err := StrategyPnL(trades)
		if err != nil {
			t.Fatal(err)
		}
		want := NetDebit(closed).Sub(NetDebit(legs))
		if !gross.Equal(want) || !gotFees.Equal(fees) || !net.Equal(want.Sub(fees)) || !net.Equal(legNet) {
			t.Fatalf("P&L gross %s fees %s net %s; want gross %s fees %s, legs' net %s", gross, gotFees, net, want, fees, legNet)
		}
	}
}

// checkConsistent checks an analysis against a payoff function ref: the
// values at the breakpoints, between them and beyond the last; the bounds;
// the breakevens. Closing every leg at its value at expiry makes the
// payoff through NetDebit as well.
func checkConsistent(t *testing.T, legs []StrategyLeg, s Strategy, ref func(decimal.Decimal) decimal.Decimal) {
	t.Helper()
	if s.Payoff == nil {
		t.Fatalf("no payoff for one expiry: %s", s.NoPayoff)
	}
	p := *s.Payoff
	pts := p.Points
	if !pts[0].Price.IsZero() {
		t.Fatalf("first breakpoint %s, want 0", pts[0].Price)
	}
	last := pts[len(pts)-1].Price
	probes := []decimal.Decimal{last.Add(d("1")), last.Mul(d("10")).Add(d("1000"))}
	for i, pt := range pts {
		probes = append(probes, pt.Price)
		if i > 0 {
			probes = append(probes, pt.Price.Add(pts[i-1].Price).Div(d("2")))
			if !pt.Price.GreaterThan(pts[i-1].Price) {
				t.Fatalf("breakpoints not ascending: %v", pts)
			}
		}
	}
	hi, lo := pts[0].Value, pts[0].Value
	for _, x := range probes {
		got, want := p.At(x), ref(x)
		if !got.Equal(want) {
			t.Fatalf("payoff at %s = %s, legs say %s (%+v)", x, got, want, legs)
		}
		atExpiry := make([]StrategyLeg, len(legs))
		for i, l := range legs {
			atExpiry[i] = l
			atExpiry[i].Price = referenceValue(StrategyLeg{Option: l.Option, Side: SideLong, Quantity: d("1"), Multiplier: l.Multiplier}, x).Div(l.mult())
		}
		if v := NetDebit(atExpiry).Sub(NetDebit(legs)); !v.Equal(want) {
			t.Fatalf("closing at expiry value at %s: %s, payoff %s", x, v, want)
		}
		hi, lo = decimal.Max(hi, got), decimal.Min(lo, got)
	}
	far := p.At(last.Mul(d("10")).Add(d("1000")))
	atLast := p.At(last)
	switch {
	case s.MaxProfit == nil && !far.GreaterThan(atLast):
		t.Fatalf("unlimited profit, but the payoff does not rise past %s", last)
	case s.MaxProfit != nil && !s.MaxProfit.Equal(hi):
		t.Fatalf("max profit %s, highest payoff %s", s.MaxProfit, hi)
	case s.MaxLoss == nil && !far.LessThan(atLast):
		t.Fatalf("unlimited loss, but the payoff does not fall past %s", last)
	case s.MaxLoss != nil && !s.MaxLoss.Equal(lo.Neg()):
		t.Fatalf("max loss %s, lowest payoff %s", s.MaxLoss, lo)
	}
	// Zero at each breakeven (within the rounding of a root to 8 places:
	// slope x 0.5e-8), and one sign strictly between consecutive ones.
	edges := append([]decimal.Decimal{decimal.Zero}, s.Breakevens...)
	edges = append(edges, last.Mul(d("10")).Add(d("1000")))
	for i, b := range s.Breakevens {
		v := p.At(b)
		slope := d("0")
		for _, l := range legs {
			slope = slope.Add(l.slopeFrom(b).Abs()).Add(l.slopeFrom(b.Sub(d("0.00000001"))).Abs())
		}
		if v.Abs().GreaterThan(slope.Mul(d("0.00000001"))) {
			t.Fatalf("payoff at breakeven %s is %s", b, v)
		}
		if i > 0 && !b.GreaterThan(s.Breakevens[i-1]) {
			t.Fatalf("breakevens not ascending: %v", s.Breakevens)
		}
	}
	for i := 0; i+1 < len(edges); i++ {
		sign := 0
		for _, pt := range pts {
			x := pt.Price
			if !x.GreaterThan(edges[i]) || !x.LessThan(edges[i+1]) {
				continue
			}
			v := p.At(x).Sign()
			if sign != 0 && v != sign {
				t.Fatalf("payoff changes sign between breakevens %s and %s without a breakeven (%+v)", edges[i], edges[i+1], legs)
			}
			sign = v
		}
	}
}

// TestStrategyReport: the points of the response are 0, the strikes, the
// breakevens and half as far again as the highest of them or of a share
// price; money to 2 places, prices exact.
func TestStrategyReport(t *testing.T) {
	for _, c := range []struct {
		name string
		legs []StrategyLeg
		want string
	}{
		// 100 shares at 50: -5000 at 0, 0 at 50, +2500 at 75.
		{"Shares", []StrategyLeg{shares(Lg, "100", "50")}, "0:-5000.00 50:0.00 75:2500.00"},
		// Long call at 3.333: breakeven 103.333, past it 1.5 x 103.333 = 154.9995.
		{"LongCall", []StrategyLeg{opt(Lg, "C", "100", "1", "3.333")}, "0:-333.30 100:-333.30 103.333:0.00 154.9995:5166.65"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := AnalyzeStrategy(c.legs)
			if err != nil {
				t.Fatal(err)
			}
			out, err := StrategyReport(c.legs, s, Model{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range out.Payoff {
				got = append(got, p.Price+":"+p.Value)
			}
			if strings.Join(got, " ") != c.want {
				t.Errorf("points %s, want %s", strings.Join(got, " "), c.want)
			}
		})
	}
}
