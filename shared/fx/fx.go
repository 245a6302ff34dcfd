// Package fx is currency conversion with a user's own exchange rates: the
// spot rate of a pair on a day, balances converted into the display
// currency, the pairs that have no rate, and the before/after arithmetic of
// the exchange-rate preview. Pure functions of values: no clock, no
// database, no HTTP.
package fx

import (
	"slices"
	"time"

	"github.com/shopspring/decimal"
)

// Places is the number of decimal places of a converted total: the total is
// rounded half away from zero ("half-up" on the magnitude, the way
// money.RoundN rounds) to 4 places.
const Places = 4

// inversePlaces bounds 1/rate, the factor of an inverse pair. An error of at
// most 5e-31 per unit converted is far below the 4 places of any figure
// shown, for every amount the schema can hold (numeric(24,4)).
const inversePlaces = 30

// Threshold is the relative move of the converted total from which a
// proposed rate change warrants explicit confirmation: more than 5%.
var Threshold = decimal.New(5, -2)

// Rate is one stored exchange rate: from Date on, 1 Base is worth Value
// Quote.
type Rate struct {
	ID    string
	Base  string
	Quote string
	// Date is the effective date: a calendar day, midnight UTC carrying
	// Y-M-D (as journal.ParseDate returns it).
	Date  time.Time
	Value decimal.Decimal
}

// Amount is a sum of money in one currency.
type Amount struct {
	Currency string
	Value    decimal.Decimal
}

// Pair names a conversion the way the API lists a missing one: "EUR/USD"
// for 1 EUR in USD.
func Pair(from, to string) string { return from + "/" + to }

// Spot returns the factor that converts an amount of from into to on day:
// 1 from = factor to. from == to is 1. Otherwise the direct rate (base from,
// quote to) with the latest effective date on or before day wins; only when
// there is no such direct rate is the reverse pair's latest rate on or
// before day used, inverted (1/rate, to 30 places). ok is false when neither
// exists. Rates dated after day are not yet in force and never count.
func Spot(rates []Rate, from, to string, day time.Time) (factor decimal.Decimal, ok bool) {
	if from == to {
		return decimal.NewFromInt(1), true
	}
	if r, ok := latest(rates, from, to, day); ok {
		return r.Value, true
	}
	if r, ok := latest(rates, to, from, day); ok && r.Value.Sign() > 0 {
		return decimal.NewFromInt(1).DivRound(r.Value, inversePlaces), true
	}
	return decimal.Decimal{}, false
}

// latest returns the rate of base/quote with the latest date on or before
// day. The schema keeps one rate per (base, quote, date), so there are no
// ties; should a list hold two anyway, the later one in the list wins.
func latest(rates []Rate, base, quote string, day time.Time) (Rate, bool) {
	var best Rate
	found := false
	for _, r := range rates {
		if r.Base != base || r.Quote != quote || r.Date.After(day) {
			continue
		}
		if !found || !r.Date.Before(best.Date) {
			best, found = r, true
		}
	}
	return best, found
}

// Factors returns the spot factor into to of every currency of amounts, and
// the pairs that have no rate, sorted and without repeats. A currency needs
// its pair whatever its amount, zero included: a new, empty account in a
// new currency asks for its rate before its first trade makes the total
// disappear.
func Factors(amounts []Amount, rates []Rate, to string, day time.Time) (map[string]decimal.Decimal, []string) {
	factors := make(map[string]decimal.Decimal, len(amounts))
	var missing []string
	for _, a := range amounts {
		if _, done := factors[a.Currency]; done {
			continue
		}
		if f, ok := Spot(rates, a.Currency, to, day); ok {
			factors[a.Currency] = f
		} else if p := Pair(a.Currency, to); !slices.Contains(missing, p) {
			missing = append(missing, p)
		}
	}
	slices.Sort(missing)
	return factors, missing
}

// Total converts every amount into to with the spot rate of day and sums
// them at full precision, then rounds once, half-up to 4 places. When any
// pair has no rate, ok is false, total is zero and missing lists the pairs
// ("EUR/USD"), sorted. No amounts at all total 0.
func Total(amounts []Amount, rates []Rate, to string, day time.Time) (total decimal.Decimal, missing []string, ok bool) {
	factors, missing := Factors(amounts, rates, to, day)
	if len(missing) > 0 {
		return decimal.Zero, missing, false
	}
	sum := decimal.Zero
	for _, a := range amounts {
		sum = sum.Add(a.Value.Mul(factors[a.Currency]))
	}
	return sum.Round(Places), []string{}, true
}

// Change is a proposed change to a user's rates: an upsert (one rate per
// base, quote and date: it replaces the rate of that day, or adds one) or
// the deletion of the rate with DeleteID. Exactly one is set; neither is no
// change.
type Change struct {
	Upsert   *Rate
	DeleteID string
}

// Apply returns rates with the change made, leaving rates as it was.
func Apply(rates []Rate, c Change) []Rate {
	out := make([]Rate, 0, len(rates)+1)
	for _, r := range rates {
		switch {
		case c.DeleteID != "" && r.ID == c.DeleteID:
			continue
		case c.Upsert != nil && r.Base == c.Upsert.Base && r.Quote == c.Upsert.Quote && r.Date.Equal(c.Upsert.Date):
			continue // replaced below
		}
		out = append(out, r)
	}
	if c.Upsert != nil {
		out = append(out, *c.Upsert)
	}
	return out
}

// Preview is the dashboard total before and after a proposed change. A nil
// total is one that cannot be computed (a pair without a rate, or no
// display currency).
type Preview struct {
	Before, After    *decimal.Decimal
	ExceedsThreshold bool
}

// PreviewChange computes the converted total of amounts into to on day with
// rates as they are, and with the change applied, in memory. With no
// display currency (to == "") both totals are nil and the threshold is not
// exceeded.
func PreviewChange(amounts []Amount, rates []Rate, to string, day time.Time, c Change) Preview {
	if to == "" {
		return Preview{}
	}
	total := func(rs []Rate) *decimal.Decimal {
		t, _, ok := Total(amounts, rs, to, day)
		if !ok {
			return nil
		}
		return &t
	}
	p := Preview{Before: total(rates), After: total(Apply(rates, c))}
	p.ExceedsThreshold = ExceedsThreshold(p.Before, p.After)
	return p
}

// ExceedsThreshold reports whether a move from before to after warrants
// explicit confirmation: when both exist, before is not zero and
// |after - before| / |before| > 5%; or when exactly one of the two is nil
// (a total appears or disappears). It compares the rounded totals the
// client is shown, without dividing: |after - before| > 0.05 x |before|.
func ExceedsThreshold(before, after *decimal.Decimal) bool {
	switch {
	case before == nil && after == nil:
		return false
	case before == nil || after == nil:
		return true
	case before.IsZero():
		return false
	}
	return after.Sub(*before).Abs().GreaterThan(before.Abs().Mul(Threshold))
}

// Today is the calendar day of now in the IANA zone (midnight UTC carrying
// that Y-M-D): the day whose rates are in force for a user whose reporting
// zone it is. An unknown zone reads as UTC.
func Today(now time.Time, zone string) time.Time {
	loc, err := time.LoadLocation(zone)
	if err != nil || zone == "" {
		loc = time.UTC
	}
	y, m, d := now.In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}
