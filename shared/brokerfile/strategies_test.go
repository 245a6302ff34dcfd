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
		{"SPY", AssetOption, at}, // 0: a vertical with 1
		{"SPY", AssetOption, at},
		{"AAPL", AssetStock, at}, // 2: a covered call with 3
		{"AAPL", AssetOption, at},
		{"MSFT", AssetStock, at}, // 4, 5: shares alone
		{"MSFT", AssetStock, at},
		{"SPY", AssetOption, at.Add(time.Second)}, // 6: a second later
		{"ES", AssetFuture, at},                   // 7, 8: futures never
		{"ES", AssetFuture, at},
		{"QQQ", AssetOption, at.In(time.FixedZone("EDT", -4*3600))}, // 9, 10: one instant in two zones
		{"QQQ", AssetOption, at},
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
