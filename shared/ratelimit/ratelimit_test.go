package ratelimit

import (
	"context"
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestMemory(t *testing.T) {
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	m := NewMemory(c.now)
	l := Limit{Name: "register", N: 5, Per: 15 * time.Minute}
	ctx := context.Background()

	t.Run("BurstOfN", func(t *testing.T) {
		for i := range 5 {
			if ok, _ := m.Allow(ctx, l, "1.2.3.4"); !ok {
				t.Fatalf("request %d refused", i+1)
			}
		}
		ok, retry := m.Allow(ctx, l, "1.2.3.4")
		if ok {
			t.Fatal("6th request allowed")
		}
		if retry != 3*time.Minute {
			t.Fatalf("retry after %v, want 3m (one interval)", retry)
		}
	})
	t.Run("OtherKeyUnaffected", func(t *testing.T) {
		if ok, _ := m.Allow(ctx, l, "5.6.7.8"); !ok {
			t.Fatal("another client refused")
		}
	})
	t.Run("RefillsOneInterval", func(t *testing.T) {
		c.t = c.t.Add(3 * time.Minute)
		if ok, _ := m.Allow(ctx, l, "1.2.3.4"); !ok {
			t.Fatal("refused after one interval")
		}
		if ok, _ := m.Allow(ctx, l, "1.2.3.4"); ok {
			t.Fatal("two allowed after one interval")
		}
	})
	t.Run("FullWindowRestoresBurst", func(t *testing.T) {
		c.t = c.t.Add(16 * time.Minute)
		for i := range 5 {
			if ok, _ := m.Allow(ctx, l, "1.2.3.4"); !ok {
				t.Fatalf("request %d refused after the window", i+1)
			}
		}
	})
	t.Run("SweepDropsIdleKeys", func(t *testing.T) {
		c.t = c.t.Add(time.Hour)
		m.Allow(ctx, l, "9.9.9.9")
		if len(m.tat) != 1 {
			t.Fatalf("%d keys kept, want 1", len(m.tat))
		}
	})
}

func TestRetryAfterSeconds(t *testing.T) {
	for d, want := range map[time.Duration]int{0: 1, time.Millisecond: 1, time.Second: 1, 1500 * time.Millisecond: 2, 3 * time.Minute: 180} {
		if got := RetryAfterSeconds(d); got != want {
			t.Errorf("RetryAfterSeconds(%v) = %d, want %d", d, got, want)
		}
	}
}
