package market

import (
	"context"
	"errors"
	"sync"
	"time"
)

// maxCached bounds the answers a cache keeps: a quote's key is any valid
// symbol and a window's any span, so within one TTL the traders of an
// instance can ask for more keys than are worth keeping.
const maxCached = 1024

// flights is the cache every route's provider call goes through: each
// key's answer is kept for TTL (an error for ErrorTTL; "no such symbol"
// for TTL), and concurrent look-ups of one key share one call, so a burst
// of users costs one call. A call is bounded by Timeout (504 past it) and
// runs detached from the request that started it, so one caller leaving
// does not fail the others waiting on it. At most max answers are kept:
// past it the expired go, then the one expiring first. No provider client
// caches (httpSource and Quotes send every call), so this is the only
// thing between a burst of traders and a provider's rate limit.
//
// Without a cache (cache nil: NewUncachedFeeds, the excursions job's)
// every look-up is one call bounded by Timeout.
type flights struct {
	now func() time.Time

	Timeout  time.Duration
	TTL      time.Duration
	ErrorTTL time.Duration

	mu    sync.Mutex
	cache map[string]*flight // nil: no cache
	max   int
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
	return flights{now: now, Timeout: DefaultQuoteTimeout, TTL: DefaultQuoteTTL, ErrorTTL: DefaultQuoteErrorTTL,
		cache: map[string]*flight{}, max: maxCached}
}

// get answers the cached or shared answer of key, starting fetch when
// there is none; late when ctx ends before the answer (the caller's own
// deadline: the words of the provider it waited for).
func (c *flights) get(ctx context.Context, key string, late error, fetch func(context.Context) (any, error)) (any, error) {
	if c.cache == nil {
		ctx, cancel := context.WithTimeout(ctx, c.Timeout)
		defer cancel()
		return fetch(ctx)
	}
	c.mu.Lock()
	now := c.now()
	f := c.cache[key]
	if f == nil || f.finished && !now.Before(f.expires) {
		c.makeRoom(now)
		f = &flight{done: make(chan struct{})}
		c.cache[key] = f
		go c.run(f, fetch)
	}
	c.mu.Unlock()

	select {
	case <-f.done:
		return f.value, f.err
	case <-ctx.Done():
		return nil, late
	}
}

// makeRoom drops the expired answers once max are kept, and then, when
// still full, the answer expiring first (a call in flight only when every
// entry is one: its callers still get its answer, it is just not kept);
// under c.mu.
func (c *flights) makeRoom(now time.Time) {
	if len(c.cache) < c.max {
		return
	}
	victim := ""
	for k, f := range c.cache {
		switch {
		case f.finished && !now.Before(f.expires):
			delete(c.cache, k)
		case victim == "":
			victim = k
		case f.finished && (!c.cache[victim].finished || f.expires.Before(c.cache[victim].expires)):
			victim = k
		}
	}
	if len(c.cache) >= c.max {
		delete(c.cache, victim)
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
