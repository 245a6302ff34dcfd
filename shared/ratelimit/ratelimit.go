// Package ratelimit decides whether a keyed action may happen now. The
// in-process limiter here serves a single instance; a shared store backs the
// same interface when several api instances must share one limit.
package ratelimit

import (
	"tradejournal/shared/apperr"

	"context"
	"sync"
	"time"
)

// Limit is N events per Per, with a burst of N (GCRA).
type Limit struct {
	Name string
	N    int
	Per  time.Duration
	// Fallback, when set, replaces N while a shared store is unreachable and
	// each instance can only count its own requests.
	Fallback int
}

// Limiter is what handlers consult. Allow never fails a request: a limiter
// that cannot reach its store falls back to a local decision.
type Limiter interface {
	// Allow records one event under key and reports whether it is within
	// the limit, and if not, how long until one more would be.
	Allow(ctx context.Context, l Limit, key string) (ok bool, retryAfter time.Duration)
}

// Memory is a process-local GCRA limiter. Each key keeps one timestamp (its
// theoretical arrival time), so memory stays small under many keys; stale
// keys are swept as they are met.
type Memory struct {
	now func() time.Time

	mu        sync.Mutex
	tat       map[string]time.Time
	lastSweep time.Time
}

// NewMemory returns a process-local limiter reading time from now.
func NewMemory(now func() time.Time) *Memory {
	return &Memory{now: now, tat: map[string]time.Time{}}
}

// Allow implements Limiter.
func (m *Memory) Allow(_ context.Context, l Limit, key string) (bool, time.Duration) {
	now := m.now()
	interval := l.Per / time.Duration(l.N)
	k := l.Name + "\x00" + key

	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(now)
	tat := m.tat[k]
	if tat.Before(now) {
		tat = now
	}
	// The event fits while the schedule is at most Per-interval ahead of now.
	if allowAt := tat.Add(interval - l.Per); now.Before(allowAt) {
		return false, allowAt.Sub(now)
	}
	m.tat[k] = tat.Add(interval)
	return true, 0
}

// sweep drops keys whose schedule is in the past (they are back to a full
// burst) at most once a minute.
func (m *Memory) sweep(now time.Time) {
	if now.Sub(m.lastSweep) < time.Minute {
		return
	}
	m.lastSweep = now
	for k, tat := range m.tat {
		if tat.Before(now) {
			delete(m.tat, k)
		}
	}
}

// RetryAfterSeconds rounds a wait up to whole seconds for the Retry-After
// header, never less than 1.
func RetryAfterSeconds(d time.Duration) int {
	s := int((d + time.Second - 1) / time.Second)
	return max(s, 1)
}

// Check consults l and turns a refusal into the 429 RATE_LIMITED error with
// its Retry-After.
func Check(ctx context.Context, l Limiter, lim Limit, key string) error {
	if ok, wait := l.Allow(ctx, lim, key); !ok {
		return &apperr.Error{Code: apperr.RateLimited, Message: "too many requests; try again later", RetryAfterSeconds: RetryAfterSeconds(wait)}
	}
	return nil
}
