package brokerfile

import (
	"cmp"
	"slices"

	"github.com/shopspring/decimal"
)

// Paired trades. A round-trip export (a row per closed trade, or per
// matched buy and sell: Tradovate's Performance report, ProjectX, the
// generic layout) writes a scaled trade as several rows: one per pair of
// an entry and an exit, a fill split across the rows that pair it. Its
// positions are the ones the same fills give read as executions (the
// broker's Orders or Fills report), by this rule:
//
//   - The rows of one account and instrument are read as the fills they
//     pair, in time order; a position is open from the running quantity
//     leaving zero to its return to zero. So rows whose holdings overlap
//     in time (the running position does not return to flat between them)
//     are one position; rows that only touch (one's exit at the instant of
//     the next one's entry) are two.
//   - A fill several rows share is one fill: the same fill id where the
//     file names fills (Tradovate's buyFillId and sellFillId), else the
//     same side, instant and price. An exit and an entry of opposite
//     directions that are one fill (a sell that closed a long and opened a
//     short) are a reversal, split as the Orders report's fill is.
//   - At one instant, exits of earlier entries come first, then the rows
//     that open and close in that instant (each its entry, then its exit),
//     then entries of later exits.
//   - A hedged account (a long and a short of the instrument open at the
//     same time, which a netting account cannot hold) keeps its longs and
//     its shorts apart: each direction is read on its own.
//
// Each stretch from flat to flat is one unit (Fill.Trip, its first row):
// Build reads it on its own, never continuing a position open in the
// journal, and skips it as a duplicate only when the journal has all its
// fills.

// Tie classes: the order of a round trip's fills at one instant.
const (
	tieExit      = iota // an exit of an earlier entry (or a reversal's fill)
	tieQuick            // a row that opens and closes in the instant: its entry, then its exit
	tieEntry            // an entry whose exit is later
	tieReversalK        // merge key of tieExit and tieEntry: one fill, a reversal
)

// joinTrips applies the rule to a file's round-trip fills (in file order:
// each row's entry then its exit, Trip its row). It returns the fills left
// after merging the ones rows share, in time order (ties by the rule), each
// Trip the first row of its unit. Fills that are not such pairs are
// returned as they are.
func joinTrips(fills []Fill) []Fill {
	if len(fills)%2 != 0 {
		return fills
	}
	class := make([]int, len(fills))
	for i := 0; i < len(fills); i += 2 {
		e, x := &fills[i], &fills[i+1]
		if e.Trip == 0 || x.Trip != e.Trip || e.Effect != EffectOpen || x.Effect != EffectClose || x.FilledAt.Before(e.FilledAt) {
			return fills // not a round trip's pair of fills: nothing to join
		}
		class[i], class[i+1] = tieEntry, tieExit
		if x.FilledAt.Equal(e.FilledAt) {
			class[i], class[i+1] = tieQuick, tieQuick
		}
	}
	order := make([]int, len(fills))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(fills[a].FilledAt.Compare(fills[b].FilledAt), cmp.Compare(class[a], class[b]), cmp.Compare(fills[a].Row, fills[b].Row),
			cmp.Compare(a, b))
	})

	// The units: per account and instrument, or per direction too in a
	// hedged account.
	type unitKey struct {
		account, symbol, asset, side string
	}
	keyOf := func(i int) unitKey {
		f := &fills[i-i%2] // the row's entry: its side is the direction's
		return unitKey{account: f.Account, symbol: f.Symbol, asset: f.AssetType}
	}
	hedged := hedgedInstruments(fills)
	unitOf := func(i int) unitKey {
		k := keyOf(i)
		if hedged[k.account+"\x00"+k.symbol+"\x00"+k.asset] {
			k.side = fills[i-i%2].Side
		}
		return k
	}

	// Shared fills, merged into the first of them at each instant.
	type shareKey struct {
		unit        unitKey
		side, fill  string
		price       string
		tie         int
		microsecond int64
	}
	first := map[shareKey]int{}
	drop := make([]bool, len(fills))
	for _, i := range order {
		f := &fills[i]
		tie := class[i]
		if tie == tieExit || tie == tieEntry {
			tie = tieReversalK
		}
		k := shareKey{unit: unitOf(i), side: f.Side, fill: f.fillID, tie: tie, microsecond: f.FilledAt.UnixMicro()}
		if f.fillID == "" {
			k.price = f.Price.String()
		}
		j, ok := first[k]
		if !ok {
			first[k] = i
			continue
		}
		g := &fills[j]
		qty, fees := g.Quantity.Add(f.Quantity), g.Fees.Add(f.Fees)
		if !g.Price.Equal(f.Price) || qty.GreaterThan(maxQuantity) || fees.GreaterThan(maxFee) || !sameMoney(g, f) {
			continue // not one fill after all, or too large for one: kept apart
		}
		g.Quantity, g.Fees, g.FeesGiven = qty, fees, g.FeesGiven || f.FeesGiven
		g.profit = addProfit(g.profit, f.profit)
		if g.Effect != f.Effect {
			g.Effect = "" // closes one position and opens the opposite one
		}
		drop[i] = true
	}

	// Units from flat to flat, named by their first row.
	type run struct {
		qty  decimal.Decimal
		trip int
	}
	runs := map[unitKey]*run{}
	out := make([]Fill, 0, len(fills))
	for _, i := range order {
		if drop[i] {
			continue
		}
		f := fills[i]
		k := unitOf(i)
		r := runs[k]
		if r == nil {
			r = &run{}
			runs[k] = r
		}
		if r.qty.IsZero() {
			r.trip = f.Row
		}
		f.Trip = r.trip
		if f.Side == Buy {
			r.qty = r.qty.Add(f.Quantity)
		} else {
			r.qty = r.qty.Sub(f.Quantity)
		}
		out = append(out, f)
	}
	return out
}

// hedgedInstruments names (account, symbol and asset type joined by NUL)
// the instruments of the file that held a long and a short at the same
// time: two rows of opposite directions whose holdings overlap.
func hedgedInstruments(fills []Fill) map[string]bool {
	type span struct {
		long     bool
		from, to int64
	}
	spans := map[string][]span{}
	for i := 0; i < len(fills); i += 2 {
		e, x := &fills[i], &fills[i+1]
		k := e.Account + "\x00" + e.Symbol + "\x00" + e.AssetType
		spans[k] = append(spans[k], span{long: e.Side == Buy, from: e.FilledAt.UnixMicro(), to: x.FilledAt.UnixMicro()})
	}
	out := map[string]bool{}
	for k, ss := range spans {
		// Longs and shorts by start: a short that starts before the latest
		// end of the longs started so far overlaps one of them (and the
		// reverse).
		slices.SortFunc(ss, func(a, b span) int { return cmp.Compare(a.from, b.from) })
		var longTo, shortTo int64 = -1 << 62, -1 << 62
		for _, s := range ss {
			if s.long && s.from < shortTo || !s.long && s.from < longTo {
				out[k] = true
				break
			}
			if s.long {
				longTo = max(longTo, s.to)
			} else {
				shortTo = max(shortTo, s.to)
			}
		}
	}
	return out
}

// sameMoney reports two fills whose rate, quote currency and fee asset
// agree: only such fills merge (fees of one asset, one rate).
func sameMoney(a, b *Fill) bool {
	sameRate := a.Rate == nil && b.Rate == nil || a.Rate != nil && b.Rate != nil && a.Rate.Equal(*b.Rate)
	return sameRate && a.Quote == b.Quote && a.FeeAsset == b.FeeAsset
}
