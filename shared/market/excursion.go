package market

import (
	"time"

	"github.com/shopspring/decimal"
)

// Trade is what the excursions of a trade are measured from: its side, its
// fills' prices, its hold (Entry to Exit; to now while open) and its stop
// and target (nil when not set).
type Trade struct {
	Short        bool
	Entry, Exit  time.Time
	FillPrices   []decimal.Decimal
	Stop, Target *decimal.Decimal
}

// Excursions are a trade's maximum adverse and favourable prices, and
// which of its stop and target the price reached first after the entry.
type Excursions struct {
	MAE, MFE decimal.Decimal
	// FirstHit is "target" or "stop" (the first the price reached after
	// the entry, the stop when one bar reached both), or "" when neither
	// was reached within the bars or the trade lacks a stop or target.
	FirstHit string
}

// Outcomes of Excursions.FirstHit.
const (
	HitTarget = "target"
	HitStop   = "stop"
)

// Measure returns the excursions of t from bars of length step, ok false
// when no bar overlaps its hold.
//
// Only prices known to be inside the hold count, so a bar that straddles
// the entry or the exit is used in part: its open when the bar starts
// within the hold, its close when it ends within it, its high and low only
// when the whole bar lies within the hold (a bar containing the entry may
// have made its low before the entry). Every fill price counts. A bar that
// contains both the entry and the exit therefore adds nothing but the
// fills: at a resolution coarser than the hold the excursions are the
// fills' range, never a price the trade did not see.
//
// The first of the stop and target to be reached is read from the same
// prices in time order; when one bar's known prices reach both, the stop
// is taken (the order within a bar is unknown: the cautious reading).
func Measure(t Trade, bars []Bar, step time.Duration) (Excursions, bool) {
	low, high, seen := decimal.Zero, decimal.Zero, false
	see := func(p decimal.Decimal) {
		if !seen || p.LessThan(low) {
			low = p
		}
		if !seen || p.GreaterThan(high) {
			high = p
		}
		seen = true
	}
	var ex Excursions
	overlap := false
	for _, b := range bars {
		end := b.Time.Add(step)
		if !end.After(t.Entry) || b.Time.After(t.Exit) {
			continue
		}
		overlap = true
		var known []decimal.Decimal
		if !b.Time.Before(t.Entry) {
			known = append(known, b.Open)
		}
		if !end.After(t.Exit) {
			known = append(known, b.Close)
			if !b.Time.Before(t.Entry) {
				known = append(known, b.High, b.Low)
			}
		}
		lo, hi := decimal.Zero, decimal.Zero
		for i, p := range known {
			see(p)
			if i == 0 || p.LessThan(lo) {
				lo = p
			}
			if i == 0 || p.GreaterThan(hi) {
				hi = p
			}
		}
		if ex.FirstHit == "" && len(known) > 0 {
			ex.FirstHit = firstHit(t, lo, hi)
		}
	}
	if !overlap {
		return Excursions{}, false
	}
	for _, p := range t.FillPrices {
		see(p)
	}
	ex.MAE, ex.MFE = low, high
	if t.Short {
		ex.MAE, ex.MFE = high, low
	}
	return ex, true
}

// firstHit says which of t's stop and target the range lo..hi reaches,
// the stop when both.
func firstHit(t Trade, lo, hi decimal.Decimal) string {
	if t.Stop == nil || t.Target == nil {
		return ""
	}
	stopHit, targetHit := lo.LessThanOrEqual(*t.Stop), hi.GreaterThanOrEqual(*t.Target)
	if t.Short {
		stopHit, targetHit = hi.GreaterThanOrEqual(*t.Stop), lo.LessThanOrEqual(*t.Target)
	}
	switch {
	case stopHit:
		return HitStop
	case targetHit:
		return HitTarget
	}
	return ""
}
