package brokerfile

import (
	"slices"
	"testing"
	"time"
)

// TestGroupStrategies: legs on one underlying opened at one instant group
// when one is an option; shares alone, futures, other instants or other
// underlyings do not.
func TestGroupStrategies(t *testing.T) {
	at := time.Date(2025, 5, 1, 14, 15, 0, 0, time.UTC)
	legs := []GroupLeg{
		{Underlying: "SPY", AssetType: AssetOption, OpenedAt: at}, // 0: a vertical with 1
		{Underlying: "SPY", AssetType: AssetOption, OpenedAt: at},
		{Underlying: "AAPL", AssetType: AssetStock, OpenedAt: at}, // 2: a covered call with 3
		{Underlying: "AAPL", AssetType: AssetOption, OpenedAt: at},
		{Underlying: "MSFT", AssetType: AssetStock, OpenedAt: at}, // 4, 5: shares alone
		{Underlying: "MSFT", AssetType: AssetStock, OpenedAt: at},
		{Underlying: "SPY", AssetType: AssetOption, OpenedAt: at.Add(time.Second)}, // 6: a second later
		{Underlying: "ES", AssetType: AssetFuture, OpenedAt: at},                   // 7, 8: futures never
		{Underlying: "ES", AssetType: AssetFuture, OpenedAt: at},
		{Underlying: "QQQ", AssetType: AssetOption, OpenedAt: at.In(time.FixedZone("EDT", -4*3600))}, // 9, 10: one instant in two zones
		{Underlying: "QQQ", AssetType: AssetOption, OpenedAt: at},
	}
	got := GroupStrategies(legs)
	want := [][]int{{0, 1}, {2, 3}, {9, 10}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("groups %v, want %v", got, want)
	}
	if g := GroupStrategies(nil); len(g) != 0 {
		t.Fatalf("no legs: %v", g)
	}
}

// TestGroupStrategiesByOrder: where the legs name their order, the order
// groups them: two orders filled in the same second stay apart, the legs of
// one order filled seconds apart come together, and a leg without an id
// still groups by time with the others without one.
func TestGroupStrategiesByOrder(t *testing.T) {
	at := time.Date(2025, 5, 1, 14, 15, 0, 0, time.UTC)
	legs := []GroupLeg{
		{Underlying: "SPY", AssetType: AssetOption, OpenedAt: at, OrderID: "7001"}, // 0, 2: one order a second apart
		{Underlying: "SPY", AssetType: AssetOption, OpenedAt: at, OrderID: "7002"}, // 1, 3: another order, the same second
		{Underlying: "SPY", AssetType: AssetOption, OpenedAt: at.Add(time.Second), OrderID: "7001"},
		{Underlying: "SPY", AssetType: AssetOption, OpenedAt: at, OrderID: "7002"},
		{Underlying: "SPY", AssetType: AssetOption, OpenedAt: at, OrderID: "7003"}, // 4: an order of one leg
		{Underlying: "SPY", AssetType: AssetOption, OpenedAt: at},                  // 5, 6: no ids, one instant
		{Underlying: "SPY", AssetType: AssetOption, OpenedAt: at},
		{Underlying: "QQQ", AssetType: AssetOption, OpenedAt: at, OrderID: "7001"}, // 7: the id on another underlying
		{Underlying: "AAPL", AssetType: AssetStock, OpenedAt: at, OrderID: "8000"}, // 8, 9: a covered call of one order
		{Underlying: "AAPL", AssetType: AssetOption, OpenedAt: at.Add(2 * time.Second), OrderID: "8000"},
	}
	got := GroupStrategies(legs)
	want := [][]int{{0, 2}, {1, 3}, {5, 6}, {8, 9}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("groups %v, want %v", got, want)
	}
}
