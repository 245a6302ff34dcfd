package market

import (
	"context"
	"errors"
	"sync"
	"time"
)

// flights is the cache every provider call goes through: each key's answer
// is kept for TTL (an error for ErrorTTL; "no such symbol" for TTL), and
// concurrent look-ups of one key share one call, so a burst of users costs
// one call. A call is bounded by Timeout (504 past it) and runs detached
// from the request that started it, so one caller leaving does not fail
// the others waiting on it. Expired answers are swept once more than
// sweepAbove are kept, so the cache stays bounded by what one TTL sees.
type flights struct {
	now func() time.Time

	Timeout  time.Duration
	TTL      time.Duration
	ErrorTTL time.Duration

	mu    sync.Mutex
	cache map[string]*flight
}

// flight is one provider call and, once done, its cached answer.
type flight struct {
	done     chan struct{}
	finished bool      // under flights.mu
	expires  time.Time // under flights.mu, once finished
	value    any       // a Quote or []Bar, readable once done is closed
	err      error
}

func newFlights(now func() time.Time) flights {
	return flights{now: now, Timeout: DefaultQuoteTimeout, TTL: DefaultQuoteTTL, ErrorTTL: DefaultQuoteErrorTTL, cache: map[string]*flight{}}
}

// get answers the cached or shared answer of key, starting fetch when
// there is none.
func (c *flights) get(ctx context.Context, key string, fetch func(context.Context) (any, error)) (any, error) {
	c.mu.Lock()
	now := c.now()
	f := c.cache[key]
	if f == nil || f.finished && !now.Before(f.expires) {
		if len(c.cache) >= sweepAbove {
			c.sweep(now)
		}
		f = &flight{done: make(chan struct{})}
		c.cache[key] = f
		go c.run(f, fetch)
	}
	c.mu.Unlock()

	select {
	case <-f.done:
		return f.value, f.err
	case <-ctx.Done():
		return nil, ErrQuoteTimeout
	}
}

// sweep drops expired answers; under c.mu.
func (c *flights) sweep(now time.Time) {
	for k, f := range c.cache {
		if f.finished && !now.Before(f.expires) {
			delete(c.cache, k)
		}
	}
}

func (c *flights) run(f *flight, fetch func(context.Context) (any, error)) {
	ctx, cancel := context.WithTimeout(context.Background(), c.Timeout)
	defer cancel()
	value, err := fetch(ctx)
	ttl := c.TTL
	if err != nil && !errors.Is(err, ErrNoQuote) {
		ttl = c.ErrorTTL
	}
	c.mu.Lock()
	f.value, f.err = value, err
	f.finished, f.expires = true, c.now().Add(ttl)
	c.mu.Unlock()
	close(f.done)
}
