package fx

import (
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func rate(id, base, quote, date, value string) Rate {
	return Rate{ID: id, Base: base, Quote: quote, Date: day(date), Value: dec(value)}
}

func ptr(s string) *decimal.Decimal {
	d := dec(s)
	return &d
}

func TestSpot(t *testing.T) {
	rates := []Rate{
		rate("1", "EUR", "USD", "2024-01-01", "1.10"),
		rate("2", "EUR", "USD", "2024-03-01", "1.20"),
		rate("3", "EUR", "USD", "2024-06-01", "1.30"), // in the future on most test days
		rate("4", "USD", "JPY", "2024-01-01", "150"),
		rate("5", "GBP", "USD", "2024-05-01", "1.25"),
		rate("6", "USD", "GBP", "2024-01-01", "0.5"), // reverse of GBP/USD, older
		rate("7", "USD", "CHF", "2024-02-01", "3"),
	}
	for _, tc := range []struct {
		name, from, to, on string
		want               string // "" when there is no rate
	}{
		{"SameCurrency", "USD", "USD", "2024-01-01", "1"},
		{"SameCurrencyNoRates", "XYZ", "XYZ", "1900-01-01", "1"},
		{"DirectLatestOnOrBefore", "EUR", "USD", "2024-04-15", "1.20"},
		{"DirectOnEffectiveDay", "EUR", "USD", "2024-03-01", "1.20"},
		{"DirectDayBefore", "EUR", "USD", "2024-02-29", "1.10"},
		{"DirectLaterRateInForce", "EUR", "USD", "2024-06-01", "1.30"},
		{"BeforeFirstRate", "EUR", "USD", "2023-12-31", ""},
		{"InverseOfReverse", "JPY", "USD", "2024-02-01", "0.006666666666666666666666666667"},
		{"InverseOfTerminatingRate", "CHF", "USD", "2024-02-01", "0.333333333333333333333333333333"},
		{"InverseBeforeItsDate", "CHF", "USD", "2024-01-31", ""},
		{"DirectWinsOverNewerReverse", "USD", "GBP", "2024-05-02", "0.5"},
		{"ReverseWhenDirectNotYetInForce", "GBP", "USD", "2024-04-30", "2"},
		{"UnknownPair", "EUR", "JPY", "2024-05-01", ""},
		{"NoTransitiveConversion", "EUR", "GBP", "2024-05-01", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Spot(rates, tc.from, tc.to, day(tc.on))
			if tc.want == "" {
				if ok {
					t.Fatalf("Spot = %s, want no rate", got)
				}
				return
			}
			if !ok || !got.Equal(dec(tc.want)) {
				t.Fatalf("Spot = %s (%v), want %s", got, ok, tc.want)
			}
		})
	}
}

func TestTotal(t *testing.T) {
	rates := []Rate{
		rate("1", "EUR", "USD", "2024-01-01", "1.0850"),
		rate("2", "USD", "JPY", "2024-01-01", "149.5"),
		rate("3", "GBP", "USD", "2024-01-01", "1.27"),
		rate("4", "USD", "CHF", "2024-01-01", "3"),
	}
	on := day("2024-06-01")
	for _, tc := range []struct {
		name    string
		amounts []Amount
		to      string
		want    string // "" when the total is null
		missing []string
	}{
		{"Empty", nil, "USD", "0.0000", nil},
		{"SameCurrency", []Amount{{"USD", dec("100.12345")}}, "USD", "100.1235", nil},
		{"Direct", []Amount{{"EUR", dec("1000")}}, "USD", "1085.0000", nil},
		{"Inverse", []Amount{{"JPY", dec("14950")}}, "USD", "100.0000", nil},
		{"Mixed", []Amount{{"USD", dec("10")}, {"EUR", dec("10")}, {"JPY", dec("1495")}}, "USD", "30.8500", nil},
		{"NegativeBalance", []Amount{{"EUR", dec("-1000")}, {"USD", dec("500")}}, "USD", "-585.0000", nil},
		// Rounded once, after the sum: three thirds of a dollar are a dollar.
		{"RoundsOnceAfterSum", []Amount{{"CHF", dec("1")}, {"CHF", dec("1")}, {"CHF", dec("1")}}, "USD", "1.0000", nil},
		{"HalfUp", []Amount{{"USD", dec("0.00005")}}, "USD", "0.0001", nil},
		{"HalfUpNegative", []Amount{{"USD", dec("-0.00005")}}, "USD", "-0.0001", nil},
		{"BelowHalf", []Amount{{"USD", dec("0.000049999")}}, "USD", "0.0000", nil},
		{"OneMissing", []Amount{{"USD", dec("1")}, {"AUD", dec("1")}}, "USD", "", []string{"AUD/USD"}},
		{"MissingSortedUnique", []Amount{{"SEK", dec("1")}, {"AUD", dec("1")}, {"SEK", dec("2")}, {"EUR", dec("1")}}, "USD", "", []string{"AUD/USD", "SEK/USD"}},
		{"ZeroAmountStillNeedsPair", []Amount{{"AUD", decimal.Zero}}, "USD", "", []string{"AUD/USD"}},
		{"IntoOtherDisplay", []Amount{{"USD", dec("2")}, {"EUR", dec("1")}}, "EUR", "2.8433", nil},
		{"InverseIntoEUR", []Amount{{"USD", dec("108.5")}}, "EUR", "100.0000", nil},
		{"IntoEURMissing", []Amount{{"JPY", dec("1")}, {"GBP", dec("1")}}, "EUR", "", []string{"GBP/EUR", "JPY/EUR"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, missing, ok := Total(tc.amounts, rates, tc.to, on)
			if tc.want == "" {
				if ok || !slices.Equal(missing, tc.missing) {
					t.Fatalf("Total = %s %v %v, want missing %v", got, missing, ok, tc.missing)
				}
				return
			}
			if !ok || got.StringFixed(Places) != tc.want || len(missing) != 0 || missing == nil {
				t.Fatalf("Total = %s %v %v, want %s", got.StringFixed(Places), missing, ok, tc.want)
			}
		})
	}
}

func TestTotalInverseIsExactEnough(t *testing.T) {
	// 1/3 to 30 places times the largest balance the schema holds is still
	// within 5e-16 of the exact quotient: nowhere near the 4th place.
	rates := []Rate{rate("1", "USD", "CHF", "2024-01-01", "3")}
	got, _, ok := Total([]Amount{{"CHF", dec("99999999999999.9999")}}, rates, "USD", day("2024-01-02"))
	if !ok || got.StringFixed(Places) != "33333333333333.3333" {
		t.Fatalf("Total = %s", got)
	}
}

func TestApply(t *testing.T) {
	rates := []Rate{
		rate("1", "EUR", "USD", "2024-01-01", "1.1"),
		rate("2", "EUR", "USD", "2024-02-01", "1.2"),
	}
	up := rate("", "EUR", "USD", "2024-02-01", "1.5")
	got := Apply(rates, Change{Upsert: &up})
	if len(got) != 2 || !got[1].Value.Equal(dec("1.5")) || !got[0].Value.Equal(dec("1.1")) {
		t.Fatalf("upsert of an existing day: %+v", got)
	}
	add := rate("", "EUR", "USD", "2024-03-01", "1.6")
	if got := Apply(rates, Change{Upsert: &add}); len(got) != 3 {
		t.Fatalf("upsert of a new day: %+v", got)
	}
	if got := Apply(rates, Change{DeleteID: "2"}); len(got) != 1 || got[0].ID != "1" {
		t.Fatalf("delete: %+v", got)
	}
	if got := Apply(rates, Change{DeleteID: "9"}); len(got) != 2 {
		t.Fatalf("delete of an unknown id: %+v", got)
	}
	if !rates[1].Value.Equal(dec("1.2")) || len(rates) != 2 {
		t.Fatal("Apply changed its input")
	}
}

func TestPreviewChange(t *testing.T) {
	rates := []Rate{
		rate("r1", "EUR", "USD", "2024-01-01", "1.00"),
		rate("r2", "EUR", "USD", "2024-05-01", "1.10"),
		rate("r3", "GBP", "USD", "2024-01-01", "1.25"),
	}
	on := day("2024-06-01")
	amounts := []Amount{{"USD", dec("1000")}, {"EUR", dec("1000")}}
	up := func(base, quote, date, value string) Change {
		r := rate("", base, quote, date, value)
		return Change{Upsert: &r}
	}
	for _, tc := range []struct {
		name          string
		amounts       []Amount
		to            string
		change        Change
		before, after string // "" for null
		exceeds       bool
	}{
		{"NoDisplayCurrency", amounts, "", up("EUR", "USD", "2024-06-01", "5"), "", "", false},
		{"SmallMove", amounts, "USD", up("EUR", "USD", "2024-06-01", "1.15"), "2100.0000", "2150.0000", false},
		{"ExactlyFivePercentIsNotMore", amounts, "USD", up("EUR", "USD", "2024-06-01", "1.205"), "2100.0000", "2205.0000", false},
		{"JustOverFivePercent", amounts, "USD", up("EUR", "USD", "2024-06-01", "1.2051"), "2100.0000", "2205.1000", true},
		{"LargeDrop", amounts, "USD", up("EUR", "USD", "2024-06-01", "0.5"), "2100.0000", "1500.0000", true},
		{"FutureRateChangesNothing", amounts, "USD", up("EUR", "USD", "2024-07-01", "9"), "2100.0000", "2100.0000", false},
		{"OlderRateChangesNothing", amounts, "USD", up("EUR", "USD", "2024-03-01", "9"), "2100.0000", "2100.0000", false},
		{"ReplaceRateInForce", amounts, "USD", up("EUR", "USD", "2024-05-01", "1.11"), "2100.0000", "2110.0000", false},
		{"DeleteLatestFallsBack", amounts, "USD", Change{DeleteID: "r2"}, "2100.0000", "2000.0000", false},
		{"DeleteOnlyRateMakesNull", []Amount{{"GBP", dec("100")}}, "USD", Change{DeleteID: "r3"}, "125.0000", "", true},
		{"UpsertFillsMissingPair", []Amount{{"JPY", dec("1500")}}, "USD", up("USD", "JPY", "2024-06-01", "150"), "", "10.0000", true},
		{"StillMissing", []Amount{{"JPY", dec("1500")}, {"AUD", dec("1")}}, "USD", up("USD", "JPY", "2024-06-01", "150"), "", "", false},
		{"BeforeZero", []Amount{{"USD", dec("0")}, {"EUR", dec("0")}}, "USD", up("EUR", "USD", "2024-06-01", "3"), "0.0000", "0.0000", false},
		{"BeforeZeroAfterNull", []Amount{{"GBP", dec("0")}}, "USD", Change{DeleteID: "r3"}, "0.0000", "", true},
		{"NegativeTotal", []Amount{{"USD", dec("-1000")}, {"EUR", dec("100")}}, "USD", up("EUR", "USD", "2024-06-01", "2"), "-890.0000", "-800.0000", true},
		{"NoAccounts", nil, "USD", up("EUR", "USD", "2024-06-01", "2"), "0.0000", "0.0000", false},
		{"DeleteUnknownIDChangesNothing", amounts, "USD", Change{DeleteID: "nope"}, "2100.0000", "2100.0000", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := PreviewChange(tc.amounts, rates, tc.to, on, tc.change)
			check := func(what string, got *decimal.Decimal, want string) {
				t.Helper()
				switch {
				case want == "" && got != nil:
					t.Fatalf("%s = %s, want null", what, got)
				case want != "" && (got == nil || got.StringFixed(Places) != want):
					t.Fatalf("%s = %v, want %s", what, got, want)
				}
			}
			check("before", p.Before, tc.before)
			check("after", p.After, tc.after)
			if p.ExceedsThreshold != tc.exceeds {
				t.Fatalf("exceedsThreshold = %v, want %v", p.ExceedsThreshold, tc.exceeds)
			}
		})
	}
}

func TestExceedsThreshold(t *testing.T) {
	for _, tc := range []struct {
		before, after string // "" for nil
		want          bool
	}{
		{"", "", false},
		{"", "0", true},
		{"0", "", true},
		{"100", "", true},
		{"0", "0", false},
		{"0", "1000000", false},
		{"100", "105", false},
		{"100", "105.0001", true},
		{"100", "95", false},
		{"100", "94.9999", true},
		{"-100", "-105", false},
		{"-100", "-105.0001", true},
		{"-100", "100", true},
		{"0.0001", "0.0002", true},
	} {
		var b, a *decimal.Decimal
		if tc.before != "" {
			b = ptr(tc.before)
		}
		if tc.after != "" {
			a = ptr(tc.after)
		}
		if got := ExceedsThreshold(b, a); got != tc.want {
			t.Errorf("ExceedsThreshold(%q, %q) = %v, want %v", tc.before, tc.after, got, tc.want)
		}
	}
}

func TestFactors(t *testing.T) {
	rates := []Rate{rate("1", "EUR", "USD", "2024-01-01", "1.1")}
	f, missing := Factors([]Amount{{"EUR", dec("1")}, {"USD", dec("2")}, {"GBP", dec("3")}}, rates, "USD", day("2024-01-01"))
	if !f["EUR"].Equal(dec("1.1")) || !f["USD"].Equal(dec("1")) || len(f) != 2 || !slices.Equal(missing, []string{"GBP/USD"}) {
		t.Fatalf("Factors = %v %v", f, missing)
	}
}

func TestToday(t *testing.T) {
	now := time.Date(2024, 3, 10, 2, 30, 0, 0, time.UTC)
	for zone, want := range map[string]string{
		"UTC":                "2024-03-10",
		"":                   "2024-03-10",
		"Mars/Olympus":       "2024-03-10",
		"America/New_York":   "2024-03-09",
		"Asia/Tokyo":         "2024-03-10",
		"Pacific/Kiritimati": "2024-03-10",
		"Pacific/Pago_Pago":  "2024-03-09",
	} {
		if got := Today(now, zone).Format(time.DateOnly); got != want {
			t.Errorf("Today(%s) = %s, want %s", zone, got, want)
		}
	}
}
