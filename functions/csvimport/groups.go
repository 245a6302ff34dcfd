package csvimport

import (
	"errors"
	"strconv"

	"tradejournal/shared/brokerfile"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
	"tradejournal/shared/journalstore"
)

// What a preview stages for each of its positions besides the fill that
// opens a new one (migrations/0034).
const (
	openingContinued = -1 // it continues an open position of the journal
	openingReversal  = -2 // a reversal of another position opens it
)

// openingFills lists a part's positions for the staged row, in the
// preview's order: the fill that opens each new one (its index counted
// across the staged parts: offset is the part's first), or what else it is.
func openingFills(plan *brokerfile.Plan, offset int) []int {
	out := make([]int, len(plan.Positions))
	for k, p := range plan.Positions {
		switch {
		case p.ExistingID != "" || len(p.Fills) == 0:
			out[k] = openingContinued
		case p.ReversalOf > 0:
			out[k] = openingReversal
		default:
			out[k] = offset + p.Fills[0]
		}
	}
	return out
}

// errStagedPositions answers a staged row whose positions do not fit its
// fills: only a corrupt row (the preview writes both).
var errStagedPositions = errors.New("csvimport: staged positions do not fit the staged fills")

// chosenGroups checks the trader's grouping (the commit's strategies:
// groups of indexes into the preview's positions) against the preview as
// staged, and answers it per part: each group as the fills (indexes into
// the part's fills) that open its positions, an empty list for a part
// without one. A strategy is two or more new positions of one account and
// one underlying, none of them a future (the rule of the strategies API),
// each in one strategy at most. Every problem is named by its path in
// the request (strategies[1][0]).
func chosenGroups(groups [][]int, opening []int, parts []brokerfile.Part) ([][][]int, error) {
	starts := make([]int, len(parts)+1)
	for i, pt := range parts {
		starts[i+1] = starts[i] + len(pt.Fills)
	}
	out := make([][][]int, len(parts))
	for i := range out {
		out[i] = [][]int{}
	}
	var p journal.Problems
	used := map[int]string{} // a position's first place in the request
	for g, group := range groups {
		field := "strategies[" + strconv.Itoa(g) + "]"
		if len(group) < 2 || len(group) > journalstore.MaxStrategyLegs {
			p.Add(field, "must hold 2 to "+strconv.Itoa(journalstore.MaxStrategyLegs)+" positions: a position on its own is not grouped")
			continue
		}
		var (
			part, first      = -1, ""
			under, underFrom string
			fills            = make([]int, 0, len(group))
		)
		for n, i := range group {
			at := field + "[" + strconv.Itoa(n) + "]"
			if i < 0 || i >= len(opening) {
				p.Add(at, "is not a position of the preview: it lists "+strconv.Itoa(len(opening))+", numbered from 0")
				continue
			}
			if was, ok := used[i]; ok {
				p.Add(at, "is in "+was+" already: a position is a leg of one strategy at most")
				continue
			}
			used[i] = at
			switch opening[i] {
			case openingContinued:
				p.Add(at, "continues a position your journal holds: only positions the file opens are grouped here (group it under Strategies after the import)")
				continue
			case openingReversal:
				p.Add(at, "is opened by the reversal of another position: only positions the file opens on their own are grouped here")
				continue
			}
			pt, fill, ok := locate(starts, opening[i])
			if !ok {
				return nil, errStagedPositions
			}
			u, future, err := underlyingOf(&parts[pt].Fills[fill])
			if err != nil {
				return nil, err
			}
			switch {
			case future:
				p.Add(at, "is a future: a strategy holds options and their underlying's shares")
			case part < 0:
				part, first, under, underFrom = pt, at, u, at
			case pt != part:
				p.Add(at, "goes to another account than "+first+": a strategy's legs are in one account")
			case u != under:
				p.Add(at, "is on "+u+", not "+under+" as "+underFrom+": a strategy's legs share one underlying")
			}
			fills = append(fills, fill)
		}
		if part >= 0 {
			out[part] = append(out[part], fills)
		}
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// locate finds a fill counted across the parts (starts: each part's first,
// then the total): its part and its index there.
func locate(starts []int, fill int) (int, int, bool) {
	for pt := 0; pt+1 < len(starts); pt++ {
		if fill >= starts[pt] && fill < starts[pt+1] {
			return pt, fill - starts[pt], true
		}
	}
	return 0, 0, false
}

// underlyingOf is what a strategy's legs share: an option's underlying, a
// share's symbol (the positions' coalesce(underlying, symbol)).
func underlyingOf(f *brokerfile.Fill) (string, bool, error) {
	inst, err := instrument.Parse(f.AssetType, f.Symbol, f.FilledAt)
	switch {
	case err != nil:
		return "", false, err // Parse made these symbols: they parse
	case inst.Future != nil:
		return "", true, nil
	case inst.Option != nil:
		return inst.Option.Underlying, false, nil
	}
	return inst.Symbol, false, nil
}
