package brokerfile

import (
	"slices"
	"strings"
	"time"
	"tradejournal/shared/instrument"
)

// GroupLeg is a new position as strategy grouping reads it: its underlying
// (an option's root, a share's symbol), asset type, first fill, and the
// broker's order id of that fill ("" when the file has none).
type GroupLeg struct {
	Underlying string
	AssetType  string
	OpenedAt   time.Time
	OrderID    string
}

// GroupStrategies finds the multi-leg trades among new positions: the
// options (and shares) on one underlying opened by one order. Where a
// leg's first fill names its order (Fill.OrderID), the legs of that order
// group, whenever each filled; otherwise the legs whose first fills are at
// the same instant group, as the legs of a multi-leg order fill together.
// So two orders filled in the same second stay apart when the file names
// them. A group needs two legs or more, one of them an option; futures
// never group. Options on futures group among themselves (a vertical of two
// ES options), never with shares of a ticker that reads as their root. It answers the groups as indexes into legs, in order of
// their first index. The preview proposes these groups and the commit
// makes them strategies, so both read the same rule.
func GroupStrategies(legs []GroupLeg) [][]int {
	type key struct {
		underlying string
		onFuture   bool // futures options
		order      string
		at         time.Time // when there is no order id
	}
	// Only an underlying with an option leg can group: a file of shares
	// alone (10,000 rows) builds no map.
	optioned := map[string]bool{}
	for _, l := range legs {
		if instrument.Expires(l.AssetType) {
			optioned[l.Underlying] = true
		}
	}
	at := map[key]int{}
	var groups [][]int
	for i, l := range legs {
		if (!instrument.Expires(l.AssetType) && l.AssetType != AssetStock) || !optioned[l.Underlying] {
			continue
		}
		k := key{underlying: l.Underlying, onFuture: l.AssetType == AssetFutureOption, order: l.OrderID}
		if l.OrderID == "" {
			k.at = l.OpenedAt.UTC()
		}
		g, ok := at[k]
		if !ok {
			g = len(groups)
			at[k] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	return slices.DeleteFunc(groups, func(g []int) bool {
		return len(g) < 2 || !slices.ContainsFunc(g, func(i int) bool { return instrument.Expires(legs[i].AssetType) })
	})
}

// StrategyGroups groups the plan's new positions (not those it continues,
// nor those a reversal opens) by GroupStrategies: indexes into Positions.
func (p *Plan) StrategyGroups(fills []Fill) [][]int {
	var legs []GroupLeg
	var index []int
	for k := range p.Positions {
		pos := &p.Positions[k]
		if pos.ExistingID != "" || pos.ReversalOf > 0 || len(pos.Fills) == 0 {
			continue
		}
		underlying := pos.Symbol
		first := &fills[pos.Fills[0]]
		switch pos.AssetType {
		case AssetOption:
			if o, err := instrument.ParseOCC(pos.Symbol); err == nil {
				underlying = o.Underlying
			} else {
				underlying = strings.TrimSpace(pos.Symbol[:min(6, len(pos.Symbol))])
			}
		case AssetFutureOption:
			if o, err := instrument.ParseFutureOption(pos.Symbol, first.FilledAt, nil); err == nil {
				underlying = o.Future.Root
			}
		}
		legs = append(legs, GroupLeg{Underlying: underlying, AssetType: pos.AssetType, OpenedAt: first.FilledAt, OrderID: first.OrderID})
		index = append(index, k)
	}
	groups := GroupStrategies(legs)
	for _, g := range groups {
		for n, i := range g {
			g[n] = index[i]
		}
	}
	return groups
}
