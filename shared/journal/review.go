package journal

import (
	"time"

	"github.com/shopspring/decimal"
)

// Excursion is how far price went from the average entry during the trade,
// as a price, as money (price move x entry quantity x multiplier, 4 places:
// negative when against the trade) and in R (the money over the initial
// risk, 2 places; nil without a risk).
type Excursion struct {
	Price  decimal.Decimal
	Amount decimal.Decimal
	R      *decimal.Decimal
}

// ReviewFigures are the figures a trader reviews a position by, derived
// from its figures, its stop and target, and its MAE and MFE prices.
type ReviewFigures struct {
	// Hold is open to close, or open to now while the position is open;
	// nil for a draft.
	Hold *time.Duration
	// PlannedRR is the planned reward over the planned risk against the
	// average entry, 2 places: (target - entry) / (entry - stop) for a long,
	// mirrored for a short. Nil without a stop, a target or an entry, or
	// when the stop is not on the losing side of the entry. It is negative
	// when the target is on the losing side.
	PlannedRR *decimal.Decimal
	MAE, MFE  *Excursion
}

// Review derives the review figures of t's figures f at now, with the
// trade's target and hand-entered MAE and MFE prices (each may be nil).
func Review(t Trade, f Figures, target, mae, mfe *decimal.Decimal, now time.Time) ReviewFigures {
	var r ReviewFigures
	if f.OpenedAt != nil {
		end := now
		if f.Status == StatusClosed && f.ClosedAt != nil {
			end = *f.ClosedAt
		}
		hold := max(end.Sub(*f.OpenedAt), 0)
		r.Hold = &hold
	}
	if f.AvgEntryPrice == nil {
		return r
	}
	entry := *f.AvgEntryPrice
	if t.StopLoss != nil && target != nil {
		risk := entry.Sub(*t.StopLoss).Mul(direction(t.Side))
		if risk.IsPositive() {
			rr := target.Sub(entry).Mul(direction(t.Side)).DivRound(risk, 2)
			r.PlannedRR = &rr
		}
	}
	if t.Quoted && f.FirstRate == nil {
		return r // its money is in the quote currency until a rate is known
	}
	r.MAE, r.MFE = ExcursionAt(t.Side, entry, f.EntryQuantity, t.Multiplier, f.FirstRate, f.InitialRisk, mae),
		ExcursionAt(t.Side, entry, f.EntryQuantity, t.Multiplier, f.FirstRate, f.InitialRisk, mfe)
	return r
}

// direction turns a price move into a gain: +1 for a long, -1 for a short.
func direction(side string) decimal.Decimal {
	if side == SideShort {
		return decimal.NewFromInt(-1)
	}
	return decimal.NewFromInt(1)
}

// ExcursionAt is what a position of side, average entry, entry quantity
// and multiplier makes with price reached: the move from the entry as
// money in the account's currency (4 places, negative against the trade;
// a quoted trade's converted at rate, its first entry's, as its initial
// risk is; nil rate: the account's own prices) and in R over risk (2
// places; nil without a positive risk). Nil for a nil price. The review's
// excursions and the statistics' (an exit at the stop or the target too)
// are this one figure.
func ExcursionAt(side string, entry, quantity, multiplier decimal.Decimal, rate, risk, price *decimal.Decimal) *Excursion {
	if price == nil {
		return nil
	}
	amount := price.Sub(entry).Mul(direction(side)).Mul(quantity).Mul(multiplier)
	if rate != nil {
		amount = amount.Mul(*rate)
	}
	e := Excursion{Price: *price, Amount: amount.Round(4)}
	if risk != nil && risk.IsPositive() {
		rm := e.Amount.DivRound(*risk, 2)
		e.R = &rm
	}
	return &e
}

// CheckExcursions says what is wrong with a position's MAE and MFE prices
// (fields maePrice and mfePrice) against its side and its fills' prices
// (low and high: every fill traded inside the price range the position
// saw): the adverse excursion is at or beyond every fill against the
// trade (at or below the lowest for a long, at or above the highest for a
// short), the favourable one at or beyond every fill in the trade's
// favour. Without fills (a draft) only the order of the two is checked.
// Nil values are not checked.
func CheckExcursions(side string, low, high, mae, mfe *decimal.Decimal) error {
	var p Problems
	long := side != SideShort
	worse := func(a, b decimal.Decimal) bool { // a is against the trade from b
		if long {
			return a.LessThan(b)
		}
		return a.GreaterThan(b)
	}
	adverse, favourable := low, high // the fills' extremes against and for the trade
	if !long {
		adverse, favourable = high, low
	}
	if adverse != nil && mae != nil && worse(*adverse, *mae) {
		if long {
			p.Add("maePrice", "the adverse excursion of a long is at or below its lowest fill price ("+adverse.String()+")")
		} else {
			p.Add("maePrice", "the adverse excursion of a short is at or above its highest fill price ("+adverse.String()+")")
		}
	}
	if favourable != nil && mfe != nil && worse(*mfe, *favourable) {
		if long {
			p.Add("mfePrice", "the favourable excursion of a long is at or above its highest fill price ("+favourable.String()+")")
		} else {
			p.Add("mfePrice", "the favourable excursion of a short is at or below its lowest fill price ("+favourable.String()+")")
		}
	}
	if mae != nil && mfe != nil && worse(*mfe, *mae) && !p.Has("maePrice") && !p.Has("mfePrice") {
		p.Add("mfePrice", "must be on the favourable side of the adverse excursion")
	}
	return p.Err()
}

// Unrealized is the P&L of the open quantity at price: (price - average
// cost of what is open) x open quantity x multiplier, negated for a short,
// 4 places. ok is false when nothing is open.
func Unrealized(t Trade, f Figures, price decimal.Decimal) (pnl decimal.Decimal, ok bool) {
	if f.OpenQuantity.IsZero() || f.OpenCost == nil {
		return decimal.Zero, false
	}
	pnl = price.Sub(*f.OpenCost).Mul(f.OpenQuantity).Mul(t.Multiplier)
	if t.Side == SideShort {
		pnl = pnl.Neg()
	}
	return pnl.Round(4), true
}
