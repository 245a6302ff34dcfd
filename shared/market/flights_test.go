package market

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// TestFlightsBounded: at most max answers are kept, however many keys
// one TTL sees; the expired go first, then the one expiring first, and
// the newest answer stays cached.
func TestFlightsBounded(t *testing.T) {
	var clock atomic.Int64
	start := time.Date(2025, 6, 2, 14, 0, 0, 0, time.UTC)
	clock.Store(start.UnixNano())
	c := newFlights(func() time.Time { return time.Unix(0, clock.Load()) })
	c.max = 3
	calls := map[string]int{}
	ask := func(key string) {
		t.Helper()
		v, err := c.get(context.Background(), key, errors.New("late"), func(context.Context) (any, error) {
			calls[key]++ // each flight runs before get answers, so never at once
			return key, nil
		})
		if err != nil || v != key {
			t.Fatalf("%s: %v %v", key, v, err)
		}
	}
	for _, k := range []string{"a", "b", "c"} {
		ask(k)
		clock.Add(int64(time.Second))
	}
	ask("d") // full, none expired: a, expiring first, goes
	if len(c.cache) != 3 || c.cache["a"] != nil {
		t.Fatalf("kept %d, a kept: %v", len(c.cache), c.cache["a"] != nil)
	}
	ask("d")
	ask("b")
	if calls["d"] != 1 || calls["b"] != 1 {
		t.Fatalf("calls %v: a kept answer asked again", calls)
	}
	for i := range 100 {
		ask(string(rune('e' + i)))
	}
	if len(c.cache) > 3 {
		t.Fatalf("kept %d", len(c.cache))
	}
	clock.Add(int64(c.TTL)) // every answer expired: swept, not the newest kept at their cost
	ask("z")
	if len(c.cache) != 1 {
		t.Fatalf("kept %d after expiry", len(c.cache))
	}
}
