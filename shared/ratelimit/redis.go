package ratelimit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// gcraScript is GCRA in one round trip, atomic on the server and timed by
// the server's clock, so every api instance shares one schedule per key.
// KEYS[1] the key; ARGV[1] the emission interval, ARGV[2] the period (ms).
// Returns {allowed (0|1), wait ms}.
var gcraScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local allow_at = tat + interval - period
if now < allow_at then return {0, allow_at - now} end
local new_tat = tat + interval
redis.call('SET', KEYS[1], new_tat, 'PX', new_tat - now + 1)
return {1, 0}
`)

// storeTimeout bounds one call to the store: a slow store must not slow
// the request it guards.
const storeTimeout = 250 * time.Millisecond

// Redis shares limits across api instances through a Redis-compatible
// store (STORE_URL). When the store does not answer, it never fails the
// request: it decides locally with each limit's Fallback, and returns to the
// store as soon as it answers again.
type Redis struct {
	client *redis.Client
	local  *Memory
	log    *slog.Logger

	mu   sync.Mutex
	down bool
}

// NewRedis connects lazily to the store at url. The URL holds a password,
// so it never appears in an error or a log line.
func NewRedis(url string, now func() time.Time, log *slog.Logger) (*Redis, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, errors.New("STORE_URL is not a valid redis:// or rediss:// URL")
	}
	opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout = storeTimeout, storeTimeout, storeTimeout
	opt.MaxRetries = 0
	return &Redis{client: redis.NewClient(opt), local: NewMemory(now), log: log}, nil
}

// Close releases the store's connections.
func (r *Redis) Close() error { return r.client.Close() }

// Allow implements Limiter.
func (r *Redis) Allow(ctx context.Context, l Limit, key string) (bool, time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	interval := l.Per / time.Duration(l.N)
	res, err := gcraScript.Run(ctx, r.client, []string{storeKey(l, key)}, interval.Milliseconds(), l.Per.Milliseconds()).Int64Slice()
	if err != nil || len(res) != 2 {
		r.setDown(true, err)
		fallback := l
		if l.Fallback > 0 {
			fallback.N = l.Fallback
		}
		return r.local.Allow(ctx, fallback, key)
	}
	r.setDown(false, nil)
	return res[0] == 1, time.Duration(res[1]) * time.Millisecond
}

// setDown logs each change between the shared store and the local fallback
// once, not on every request.
func (r *Redis) setDown(down bool, cause error) {
	r.mu.Lock()
	changed := r.down != down
	r.down = down
	r.mu.Unlock()
	switch {
	case changed && down:
		r.log.Warn("rate-limit store unreachable; limiting locally until it answers", "err", errorKind(cause))
	case changed:
		r.log.Info("rate-limit store answers again; limits are shared")
	}
}

// errorKind names a store failure without its text, which may echo the
// store's address.
func errorKind(err error) string {
	var netErr interface{ Timeout() bool }
	switch {
	case errors.As(err, &netErr) && netErr.Timeout(), errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case err == nil:
		return "unexpected reply"
	}
	return "connection failed"
}

// storeKey hashes the key: some are email addresses, which have no place
// in a shared cache.
func storeKey(l Limit, key string) string {
	sum := sha256.Sum256([]byte(key))
	return "tj:rl:" + l.Name + ":" + hex.EncodeToString(sum[:16])
}
