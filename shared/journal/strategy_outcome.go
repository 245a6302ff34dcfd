package journal

import (
	"time"
	"tradejournal/shared/instrument"

	"github.com/shopspring/decimal"
)

// A strategy's outcome: what its legs, each a position of its own, make
// together. The strategies API, the statistics (which count a strategy as
// one trade) and the trading rules all read it here, so they agree on the
// status, the times and the sums; the API and the statistics on the
// structure's name and the R too.

// LegTotals is one leg as a strategy's totals read it: its status, its
// opening (nil: a draft, no fill yet), its close (nil while open) and its
// money.
type LegTotals struct {
	Status             string
	OpenedAt, ClosedAt *time.Time
	Gross, Fees, Net   decimal.Decimal
}

// StrategyTotals are what a strategy's legs make as one trade.
type StrategyTotals struct {
	// Status: draft while no leg has a fill, open while one is open,
	// closed when every leg is (a draft leg neither opens nor keeps it
	// open).
	Status string
	// OpenedAt is the first leg's opening; ClosedAt the last leg's close,
	// once closed (nil before).
	OpenedAt, ClosedAt *time.Time
	Gross, Fees, Net   decimal.Decimal
}

// TotalsOf adds up a strategy's legs.
func TotalsOf(legs []LegTotals) StrategyTotals {
	out := StrategyTotals{Status: StatusDraft}
	open := false
	for _, l := range legs {
		out.Gross, out.Fees, out.Net = out.Gross.Add(l.Gross), out.Fees.Add(l.Fees), out.Net.Add(l.Net)
		if l.Status == StatusOpen {
			open = true
		}
		if l.OpenedAt != nil && (out.OpenedAt == nil || l.OpenedAt.Before(*out.OpenedAt)) {
			out.OpenedAt = l.OpenedAt
		}
		if l.ClosedAt != nil && (out.ClosedAt == nil || l.ClosedAt.After(*out.ClosedAt)) {
			out.ClosedAt = l.ClosedAt
		}
	}
	switch {
	case open:
		out.Status, out.ClosedAt = StatusOpen, nil
	case out.OpenedAt != nil:
		out.Status = StatusClosed
	default:
		out.ClosedAt = nil
	}
	return out
}

// StrategyPosition is one leg of a strategy as its outcome reads it.
type StrategyPosition struct {
	LegTotals
	Side          string
	EntryQuantity decimal.Decimal
	OpenQuantity  decimal.Decimal
	AvgEntryPrice *decimal.Decimal // nil before the first entry fill
	Multiplier    decimal.Decimal
	// instrument.Option is the leg's contract, nil for shares. Unread marks an
	// option whose contract could not be read: its money counts, its
	// structure does not.
	Option *instrument.Option
	Unread bool
}

// StrategyOutcome is what the legs make together.
type StrategyOutcome struct {
	StrategyTotals
	// Analysis is the engine's reading of the structure (nil: no leg with
	// a price): the legs open now, or for a closed strategy those opened
	// in its first minute, at their entry quantity.
	Analysis *Strategy
	// Risk is the planned risk, or the defined max loss without one (nil:
	// neither); R the net P&L over it, nil until closed.
	Risk, R *decimal.Decimal
}

// openingWindow is how long after a strategy's first fill a leg still
// belongs to its opening structure: the legs of one multi-leg order fill
// within it; a leg added later is a roll or an adjustment.
const openingWindow = time.Minute

// OutcomeOf computes a strategy's outcome from its legs and the trader's
// planned risk (nil: none).
func OutcomeOf(legs []StrategyPosition, plannedRisk *decimal.Decimal) StrategyOutcome {
	totals := make([]LegTotals, len(legs))
	for i := range legs {
		totals[i] = legs[i].LegTotals
	}
	out := StrategyOutcome{StrategyTotals: TotalsOf(totals)}
	var structure []StrategyLeg
	for _, l := range legs {
		qty := l.OpenQuantity
		if out.Status != StatusOpen {
			if l.OpenedAt == nil || out.OpenedAt == nil || l.OpenedAt.Sub(*out.OpenedAt) > openingWindow {
				continue
			}
			qty = l.EntryQuantity
		} else if l.Status != StatusOpen {
			continue
		}
		if l.AvgEntryPrice == nil || l.Unread || !qty.IsPositive() {
			continue
		}
		structure = append(structure, StrategyLeg{Option: l.Option, Side: l.Side, Quantity: qty, Price: *l.AvgEntryPrice, Multiplier: l.Multiplier})
	}
	if len(structure) > 0 {
		if a, err := AnalyzeStrategy(structure); err == nil { // stored positions: valid by construction
			out.Analysis = &a
		}
	}
	out.Risk = plannedRisk
	if out.Risk == nil && out.Analysis != nil && out.Analysis.MaxLoss != nil && out.Analysis.MaxLoss.IsPositive() {
		out.Risk = out.Analysis.MaxLoss
	}
	if out.Status == StatusClosed && out.Risk != nil && out.Risk.IsPositive() {
		r := out.Net.DivRound(*out.Risk, 8)
		out.R = &r
	}
	return out
}
