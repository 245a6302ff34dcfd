// Package journal is the trading journal's domain: a position's figures
// from its fills (Compute), reversals, fees, the review figures, the
// strategy engine (what legs make, their payoff and pricing), and the
// checks of what a trader types. It has no SQL: the journal store
// (shared/journalstore) writes what it computes; the instruments a
// position trades are shared/instrument's, the lists' queries
// shared/listquery's.
package journal

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/shopspring/decimal"
)

// The values of a position's side, a fill's type and a position's status,
// as stored and as the API writes them.
const (
	SideLong  = "long"
	SideShort = "short"

	FillEntry = "entry"
	FillExit  = "exit"

	StatusDraft  = "draft"
	StatusOpen   = "open"
	StatusClosed = "closed"
)

// Fill is one execution of a position: an entry (buy to open a long, sell
// short to open a short) or an exit. Quantity counts shares, or contracts
// for options and futures.
type Fill struct {
	ID       string
	Type     string // FillEntry or FillExit
	Price    decimal.Decimal
	Quantity decimal.Decimal
	Fees     decimal.Decimal
	FilledAt time.Time
	// Rate converts the trade's quote currency into the account's at this
	// fill: 1 unit of quote is Rate units of the account's currency. Nil
	// when the trade is in the account's currency (Trade.Quoted false) or,
	// for a quoted trade, when no rate is known yet.
	Rate *decimal.Decimal
	// FeeAsset is the coin or currency Fees is in when it is not the
	// account's (a crypto fee in the base, the quote or BNB), and FeeRate 1
	// unit of it in the account's currency (nil while unknown: the trade
	// then awaits a rate). "" for a fee in the account's currency.
	FeeAsset string
	FeeRate  *decimal.Decimal
}

// Trade is what a position's figures are computed from.
type Trade struct {
	Side       string          // SideLong or SideShort
	Multiplier decimal.Decimal // 1 for stock, instrument.OptionMultiplier for options, a future's point value
	StopLoss   *decimal.Decimal
	Fills      []Fill // any order: Compute orders them by time
	// Quoted says the instrument's prices (and so its P&L) are in a quote
	// currency apart from the account's (forex, crypto, CFDs): each exit's
	// P&L is converted at its fill's Rate. Its fees may be negative (a swap
	// credited, funding received, a maker rebate).
	Quoted bool
}

// Figures are a position's derived values: everything the journal shows
// that is computed from fills and never typed in.
type Figures struct {
	Status   string
	OpenedAt *time.Time // the first fill
	ClosedAt *time.Time // the exit that last brought the quantity back to zero, while it is there

	EntryQuantity decimal.Decimal
	ExitQuantity  decimal.Decimal
	OpenQuantity  decimal.Decimal // EntryQuantity - ExitQuantity, never negative

	AvgEntryPrice *decimal.Decimal // volume-weighted, 10 places; nil without entries
	AvgExitPrice  *decimal.Decimal // nil without exits
	// OpenCost is the average cost of the open quantity (the cost basis
	// over it, 10 places): the average entry until a partial exit and a
	// scale-in re-average what is still open. Nil when nothing is open.
	OpenCost *decimal.Decimal

	GrossPnL decimal.Decimal // realised, 4 places (x multiplier), in the account's currency
	Fees     decimal.Decimal // every fill's fees, in the account's currency
	NetPnL   decimal.Decimal // GrossPnL - Fees

	// QuoteGross is a quoted trade's realised P&L in its quote currency, 4
	// places (rounded once, not summed from the rounded exits); nil for a
	// trade in the account's currency.
	QuoteGross *decimal.Decimal
	// AwaitingRate says a quoted trade has an exit without a rate: its
	// figures in the account's currency leave that exit's P&L out until a
	// rate is known (the journal store looks one up on every write).
	AwaitingRate bool
	// FirstRate is a quoted trade's first entry's rate (nil without one,
	// and for a trade in its account's currency): its initial risk and its
	// excursions are in the account's currency at it.
	FirstRate *decimal.Decimal

	// InitialRisk is |avg entry - stop| x entry quantity x multiplier, 4
	// places, when a stop is set and there is an entry; a quoted trade's
	// converted at its first entry's rate (nil without one).
	InitialRisk *decimal.Decimal
	// RMultiple is NetPnL / InitialRisk, 4 places, once the position is
	// closed and its initial risk is above zero.
	RMultiple *decimal.Decimal

	// Realized holds, at the index of each exit fill in Trade.Fills, the
	// realised gross P&L that exit booked (4 places); zero for entries. The
	// values add up to GrossPnL exactly, so the ledger's realised rows of a
	// position sum to its gross P&L.
	Realized []decimal.Decimal
	// FillFees holds each fill's fee in the account's currency (a fee in
	// another asset converted at its FeeRate, 4 places; 0 while it has
	// none), at the fill's index: they add up to Fees.
	FillFees []decimal.Decimal
}

// FillError says why a position's fills do not make a position: an exit
// before any entry, an exit larger than the quantity still open, a fill
// after the position went back to zero, or a fill value out of range. It
// names the fill.
type FillError struct {
	PositionID string // set by Recompute
	Index      int    // the fill's index in Trade.Fills
	FillID     string
	Field      string // the fill field at fault: "type", "price", "quantity", "fees" or "filledAt"
	Message    string // for a client: says what is wrong and names the fill
}

func (e *FillError) Error() string { return e.Message }

// Compute derives a position's figures from its fills by the average-cost
// method. Fills are taken in time order; at the same instant entries go
// before exits (a file with minute-precision times that buys and sells
// within one minute is a round trip, not an exit before the entry), and
// otherwise the given order is kept.
//
//   - An exit realises (exit price - average cost) x quantity x multiplier
//     for a long, the negative for a short. The average cost is the open
//     cost basis over the open quantity; it moves only with entries, so a
//     scale-in after a partial exit re-averages what is still open.
//   - The exit that closes the position takes the whole remaining cost
//     basis, so a closed position's gross P&L is exactly its sum of exit
//     values minus entry values (x multiplier): no rounding drift.
//   - Realised amounts are rounded half away from zero to 4 places as a
//     running total, so the per-exit amounts add up to the gross P&L.
//   - A quoted trade's (Trade.Quoted) exit realises that amount times the
//     exit's Rate, in the account's currency; an exit without one books
//     nothing and marks the figures AwaitingRate.
//
// A position that went back to zero reopens with an entry dated after its
// close (the trader added to it again, or a missed fill was entered late):
// it is open again and its close time goes. Derive never hands Compute
// anything else after a close: an opposite trade there opens the other side.
//
// It refuses, with a *FillError naming the fill: an exit when nothing is
// open (including an exit dated before the first entry), an exit larger than
// the open quantity (Derive splits those into a close and a reversal before
// Compute sees them), an entry price or a quantity that is not positive, an
// exit price below zero (0 is an option that expired worthless), or fees
// below zero. A bad side or multiplier is a plain error. It never panics.
func Compute(t Trade) (Figures, error) {
	if t.Side != SideLong && t.Side != SideShort {
		return Figures{}, errors.New("side must be long or short")
	}
	if !t.Multiplier.IsPositive() {
		return Figures{}, errors.New("multiplier must be positive")
	}
	mult := t.Multiplier

	order := make([]int, len(t.Fills))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		fa, fb := &t.Fills[a], &t.Fills[b]
		if c := fa.FilledAt.Compare(fb.FilledAt); c != 0 {
			return c
		}
		return typeRank(fa.Type) - typeRank(fb.Type)
	})

	f := Figures{
		Status:   StatusDraft,
		Realized: make([]decimal.Decimal, len(t.Fills)),
		FillFees: make([]decimal.Decimal, len(t.Fills)),
	}
	var (
		open, basis           decimal.Decimal // open quantity and its cost
		entryValue, exitValue decimal.Decimal
		realized, booked      decimal.Decimal // exact running total, and its rounded part already booked
		quoteGross            decimal.Decimal // a quoted trade's exact P&L in its quote currency
		firstRate             *decimal.Decimal
		closed                bool
	)
	for _, i := range order {
		fill := &t.Fills[i]
		bad := func(field, format string, args ...any) error {
			return &FillError{Index: i, FillID: fill.ID, Field: field, Message: describe(fill) + ": " + fmt.Sprintf(format, args...)}
		}
		switch {
		case fill.Type != FillEntry && fill.Type != FillExit:
			return Figures{}, bad("type", "type must be entry or exit")
		case fill.Price.IsNegative() || fill.Type == FillEntry && fill.Price.IsZero():
			return Figures{}, bad("price", "an entry's price must be greater than 0, an exit's at least 0")
		case !fill.Quantity.IsPositive():
			return Figures{}, bad("quantity", "quantity must be greater than 0")
		case fill.Fees.IsNegative() && !t.Quoted:
			return Figures{}, bad("fees", "fees must not be negative")
		}
		if f.OpenedAt == nil {
			at := fill.FilledAt
			f.OpenedAt = &at
			firstRate = fill.Rate
			if t.Quoted {
				f.FirstRate = fill.Rate
			}
		}
		value := fill.Price.Mul(fill.Quantity)
		fee := fill.Fees
		switch {
		case fill.FeeAsset == "":
			fee = fee.Round(4) // the API takes 4 places; the column keeps a coin's 18
		case fill.FeeRate == nil:
			f.AwaitingRate, fee = true, decimal.Zero
		default:
			fee = fee.Mul(*fill.FeeRate).Round(4)
		}
		f.FillFees[i] = fee
		f.Fees = f.Fees.Add(fee)

		if fill.Type == FillEntry {
			closed, f.ClosedAt = false, nil // an entry after the close reopens
			open = open.Add(fill.Quantity)
			basis = basis.Add(value)
			f.EntryQuantity = f.EntryQuantity.Add(fill.Quantity)
			entryValue = entryValue.Add(value)
			continue
		}

		if open.IsZero() {
			if closed {
				return Figures{}, bad("filledAt", "nothing is open at this time: the position was closed at %s",
					f.ClosedAt.UTC().Format(time.RFC3339))
			}
			return Figures{}, bad("filledAt", "an exit cannot come before the position's first entry")
		}
		if fill.Quantity.GreaterThan(open) {
			return Figures{}, bad("quantity", "the exit of %s exceeds the open quantity of %s", fill.Quantity.String(), open.String())
		}
		removed := basis // the closing exit takes all that is left
		if fill.Quantity.LessThan(open) {
			removed = basis.Mul(fill.Quantity).DivRound(open, 16)
		}
		basis = basis.Sub(removed)
		open = open.Sub(fill.Quantity)
		f.ExitQuantity = f.ExitQuantity.Add(fill.Quantity)
		exitValue = exitValue.Add(value)

		gain := value.Sub(removed)
		if t.Side == SideShort {
			gain = gain.Neg()
		}
		switch {
		case !t.Quoted:
			realized = realized.Add(gain.Mul(mult))
		case fill.Rate == nil:
			f.AwaitingRate = true
		default:
			realized = realized.Add(gain.Mul(mult).Mul(*fill.Rate))
		}
		quoteGross = quoteGross.Add(gain.Mul(mult))
		total := realized.Round(4)
		f.Realized[i] = total.Sub(booked)
		booked = total

		if open.IsZero() {
			closed = true
			at := fill.FilledAt
			f.ClosedAt = &at
		}
	}

	for i := range f.Realized {
		f.Realized[i] = normalize4(f.Realized[i])
	}
	f.OpenQuantity = open
	if open.IsPositive() {
		cost := basis.DivRound(open, 10)
		f.OpenCost = &cost
	}
	f.GrossPnL = normalize4(booked)
	if t.Quoted {
		q := normalize4(quoteGross.Round(4))
		f.QuoteGross = &q
	}
	f.Fees = normalize4(f.Fees)
	f.NetPnL = f.GrossPnL.Sub(f.Fees)
	switch {
	case len(t.Fills) == 0:
		f.Status = StatusDraft
	case closed:
		f.Status = StatusClosed
	default:
		f.Status = StatusOpen
	}
	if f.EntryQuantity.IsPositive() {
		avg := entryValue.DivRound(f.EntryQuantity, 10)
		f.AvgEntryPrice = &avg
		if t.StopLoss != nil && (!t.Quoted || firstRate != nil) {
			// |avg entry - stop| x qty is |entry value - stop x qty|: exact.
			risk := entryValue.Sub(t.StopLoss.Mul(f.EntryQuantity)).Abs().Mul(mult)
			if t.Quoted {
				risk = risk.Mul(*firstRate)
			}
			risk = risk.Round(4)
			f.InitialRisk = &risk
		}
	}
	if f.ExitQuantity.IsPositive() {
		avg := exitValue.DivRound(f.ExitQuantity, 10)
		f.AvgExitPrice = &avg
	}
	if closed && f.InitialRisk != nil && f.InitialRisk.IsPositive() {
		r := f.NetPnL.DivRound(*f.InitialRisk, 4)
		f.RMultiple = &r
	}
	return f, nil
}

// normalize4 gives d at least 4 places, so figures print alike however
// they were reached. Values with more places (fees typed with more, which
// the API refuses) keep them.
func normalize4(d decimal.Decimal) decimal.Decimal {
	if d.Exponent() > -4 {
		return d.Round(4)
	}
	return d
}

func typeRank(t string) int {
	if t == FillEntry {
		return 0
	}
	return 1
}

// describe names a fill for a message: "exit fill 5b0c... of 50 at 2024-...".
func describe(f *Fill) string {
	name := f.Type + " fill"
	if f.Type != FillEntry && f.Type != FillExit {
		name = "fill"
	}
	if f.ID != "" {
		name += " " + f.ID
	}
	return fmt.Sprintf("%s of %s at %s", name, f.Quantity.String(), f.FilledAt.UTC().Format(time.RFC3339))
}
