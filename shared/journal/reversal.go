package journal

import (
	"slices"
	"time"

	"github.com/shopspring/decimal"
)

// Execution is one trade as the trader made it: a buy or a sell of a
// quantity at a price, with its fees. A position's fills are executions
// seen from its side (a long's entry is a buy, a short's entry a sell);
// Derive turns a run of executions back into positions.
type Execution struct {
	Buy          bool
	Price        decimal.Decimal
	Quantity     decimal.Decimal
	Fees         decimal.Decimal
	FeeEstimated bool
	FilledAt     time.Time
	Rate         *decimal.Decimal // Fill.Rate
	FeeAsset     string           // Fill.FeeAsset
	// ID names the execution in messages (a fill id; may be empty).
	ID string
	// Ref is the caller's handle on the execution (an index); Derive copies
	// it into every part it makes of the execution.
	Ref int
}

// Part says which piece of an execution a fill of a Segment is.
type Part int

const (
	Whole   Part = iota // the whole execution
	Closing             // a reversal's exit: the quantity that was open
	Opening             // a reversal's entry: the remainder, on the other side
)

// Leg is a fill of a derived position: the fill (typed for the segment's
// side), the execution it came from, and which part of it.
type Leg struct {
	Fill
	FeeEstimated bool
	Ref          int
	Part         Part
}

// Segment is one position of a derived run: its side and its fills.
type Segment struct {
	Side string
	Legs []Leg
}

// Trade returns the segment as a Trade for Compute.
func (s Segment) Trade(multiplier decimal.Decimal, stop *decimal.Decimal, quoted bool) Trade {
	t := Trade{Side: s.Side, Multiplier: multiplier, StopLoss: stop, Fills: make([]Fill, len(s.Legs)), Quoted: quoted}
	for i, l := range s.Legs {
		t.Fills[i] = l.Fill
	}
	return t
}

// Opposite is the other side.
func Opposite(side string) string {
	if side == SideLong {
		return SideShort
	}
	return SideLong
}

// IsBuy reports whether a fill of type typ on a position of side is a buy.
func IsBuy(side, typ string) bool { return (side == SideLong) == (typ == FillEntry) }

// FillType is the type of a buy or a sell on a position of side.
func FillType(side string, buy bool) string {
	if IsBuy(side, FillEntry) == buy {
		return FillEntry
	}
	return FillExit
}

// Derive groups executions of one instrument into positions, starting on
// side: the rule every write of the journal follows, manual or imported.
// Executions are taken in time order; at the same instant the given order
// is kept.
//
//   - A trade in the position's direction is an entry. After the position
//     went back to zero it reopens the same position.
//   - A trade against it is an exit while it fits the open quantity.
//   - An exit larger than the open quantity is a reversal: the position
//     closes at that fill with the quantity that was open, and the
//     opposite position opens with the remainder at the same time and price.
//     The fees are split by quantity (SplitFees).
//   - A trade against a position that is back at zero opens the opposite
//     position (a short sale after the long was sold, say).
//
// The first execution must open the first position: an exit before any
// entry is a *FillError naming it (Index is its place in execs).
func Derive(side string, execs []Execution) ([]Segment, error) {
	order := make([]int, len(execs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return execs[a].FilledAt.Compare(execs[b].FilledAt) })

	var (
		segs []Segment
		seg  = Segment{Side: side}
		open decimal.Decimal
	)
	leg := func(e *Execution, typ string, qty, fees decimal.Decimal, part Part) Leg {
		f := Fill{ID: e.ID, Type: typ, Price: e.Price, Quantity: qty, Fees: fees, FilledAt: e.FilledAt, Rate: e.Rate, FeeAsset: e.FeeAsset}
		return Leg{Fill: f, FeeEstimated: e.FeeEstimated, Ref: e.Ref, Part: part}
	}
	for _, i := range order {
		e := &execs[i]
		if IsBuy(seg.Side, FillEntry) == e.Buy {
			seg.Legs = append(seg.Legs, leg(e, FillEntry, e.Quantity, e.Fees, Whole))
			open = open.Add(e.Quantity)
			continue
		}
		switch {
		case open.IsZero() && len(seg.Legs) == 0:
			f := Fill{ID: e.ID, Type: FillType(side, e.Buy), Quantity: e.Quantity, FilledAt: e.FilledAt}
			return nil, &FillError{Index: i, FillID: e.ID, Field: "filledAt",
				Message: describe(&f) + ": an exit cannot come before the position's first entry"}
		case open.IsZero():
			segs = append(segs, seg)
			seg = Segment{Side: Opposite(seg.Side), Legs: []Leg{leg(e, FillEntry, e.Quantity, e.Fees, Whole)}}
			open = e.Quantity
		case !e.Quantity.GreaterThan(open):
			seg.Legs = append(seg.Legs, leg(e, FillExit, e.Quantity, e.Fees, Whole))
			open = open.Sub(e.Quantity)
		default:
			closing, opening := SplitFees(e.Fees, open, e.Quantity)
			seg.Legs = append(seg.Legs, leg(e, FillExit, open, closing, Closing))
			segs = append(segs, seg)
			rest := e.Quantity.Sub(open)
			seg = Segment{Side: Opposite(seg.Side), Legs: []Leg{leg(e, FillEntry, rest, opening, Opening)}}
			open = rest
		}
	}
	return append(segs, seg), nil
}

// SplitFees divides the fees of a reversal's fill between its two parts
// by quantity: the closing part pays fees x closed / quantity, rounded half
// away from zero to 4 places (a coin's fee: to its own places), and the opening
// part the rest, so the two add up to the fill's fees exactly.
func SplitFees(fees, closed, quantity decimal.Decimal) (closing, opening decimal.Decimal) {
	places := int32(4) // a coin's fee keeps its places, up to 18
	for places < 18 && !fees.Equal(fees.Truncate(places)) {
		places++
	}
	closing = fees.Mul(closed).DivRound(quantity, places+4).Round(places)
	return closing, fees.Sub(closing)
}
