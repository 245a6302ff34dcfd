package ratelimit_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"tradejournal/shared/ratelimit"
	"tradejournal/shared/redistest"
)

func newRedis(t *testing.T, url string, logs *bytes.Buffer) *ratelimit.Redis {
	t.Helper()
	r, err := ratelimit.NewRedis(url, time.Now, slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestRedisSharedAcrossInstances(t *testing.T) {
	srv := redistest.Start(t)
	var logs bytes.Buffer
	a, b := newRedis(t, srv.URL, &logs), newRedis(t, srv.URL, &logs)
	l := ratelimit.Limit{Name: "register", N: 5, Per: 15 * time.Minute, Fallback: 3}
	ctx := context.Background()
	for i, lim := range []ratelimit.Limiter{a, b, a, b, a} {
		if ok, _ := lim.Allow(ctx, l, "198.51.100.7"); !ok {
			t.Fatalf("request %d refused", i+1)
		}
	}
	for _, lim := range []ratelimit.Limiter{a, b} {
		ok, wait := lim.Allow(ctx, l, "198.51.100.7")
		if ok {
			t.Fatal("6th request across two instances allowed")
		}
		if wait < 2*time.Minute || wait > 3*time.Minute {
			t.Fatalf("wait %v, want about 3m", wait)
		}
	}
	if ok, _ := a.Allow(ctx, l, "198.51.100.8"); !ok {
		t.Fatal("another client refused")
	}
}

func TestRedisFallsBackAndReturns(t *testing.T) {
	srv := redistest.Start(t)
	var logs bytes.Buffer
	r := newRedis(t, srv.URL, &logs)
	l := ratelimit.Limit{Name: "register", N: 5, Per: 15 * time.Minute, Fallback: 3}
	ctx := context.Background()

	srv.Stop()
	for i := range 3 {
		if ok, _ := r.Allow(ctx, l, "client"); !ok {
			t.Fatalf("fallback request %d refused", i+1)
		}
	}
	if ok, _ := r.Allow(ctx, l, "client"); ok {
		t.Fatal("4th request allowed while the store is down: the fallback limit is 3")
	}
	if n := strings.Count(logs.String(), "unreachable"); n != 1 {
		t.Fatalf("outage logged %d times, want once:\n%s", n, logs.String())
	}
	if strings.Contains(logs.String(), srv.URL) || strings.Contains(logs.String(), "127.0.0.1") {
		t.Fatalf("log names the store address:\n%s", logs.String())
	}

	srv.Restart() // an empty store: the shared count starts again
	for i := range 5 {
		if ok, _ := r.Allow(ctx, l, "client"); !ok {
			t.Fatalf("request %d refused after the store came back", i+1)
		}
	}
	if ok, _ := r.Allow(ctx, l, "client"); ok {
		t.Fatal("6th request allowed with the store back")
	}
	if !strings.Contains(logs.String(), "answers again") {
		t.Fatalf("recovery not logged:\n%s", logs.String())
	}
}

func TestRedisBadURL(t *testing.T) {
	_, err := ratelimit.NewRedis("http://user:hunter2@host", time.Now, slog.Default())
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("err %v", err)
	}
}

func TestRedisKeysHoldNoEmail(t *testing.T) {
	srv := redistest.Start(t)
	r := newRedis(t, srv.URL, &bytes.Buffer{})
	r.Allow(context.Background(), ratelimit.Limit{Name: "login-email", N: 10, Per: time.Minute}, "someone@example.com")
	opt, _ := redis.ParseURL(srv.URL)
	keys, err := redis.NewClient(opt).Keys(context.Background(), "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 || strings.Contains(keys[0], "example.com") {
		t.Fatalf("keys %v", keys)
	}
}
