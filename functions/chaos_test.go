package functions_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/db/dbtest"
)

// load runs reads (and a few writes) from several clients until stop is
// closed, counting answers by status; a transport error counts as 0.
type load struct {
	mu     sync.Mutex
	counts map[string]int // "GET 200", "POST 503", ...
	wg     sync.WaitGroup
	stop   chan struct{}
	writes atomic.Int64
}

func startLoad(c *apitest.Client, clients int, accountID string) *load {
	l := &load{counts: map[string]int{}, stop: make(chan struct{})}
	reads := []string{"/api/positions", "/api/accounts", "/api/auth/me", "/api/accounts/" + accountID, "/api/dashboard/totals"}
	for i := range clients {
		l.wg.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-l.stop:
					return
				default:
				}
				method, path, body := "GET", reads[(i+n)%len(reads)], any(nil)
				if n%10 == 9 {
					method, path = "POST", "/api/tags"
					body = map[string]string{"name": fmt.Sprintf("t%d-%d", i, l.writes.Add(1))}
				}
				status := 0
				if res, err := c.Open(context.Background(), method, path, body); err == nil {
					_, _ = io.Copy(io.Discard, res.Body)
					res.Body.Close()
					status = res.StatusCode
				}
				l.mu.Lock()
				l.counts[fmt.Sprintf("%s %d", method, status)]++
				l.mu.Unlock()
			}
		})
	}
	return l
}

func (l *load) finish() map[string]int {
	close(l.stop)
	l.wg.Wait()
	return l.counts
}

// TestChaosDatabaseRestartUnderLoad restarts PostgreSQL (pg_ctl restart
// -m fast: every backend ends with 57P01, the server is down for a moment)
// and then kills every backend of the api (pg_terminate_backend) under
// steady load. No request may get a 500 or a broken connection: a dead
// pooled connection is a 503 (only while the server is really down) or,
// for a read, a retry on a fresh connection.
func TestChaosDatabaseRestartUnderLoad(t *testing.T) {
	cluster := dbtest.StartCluster(t)
	srv := apitest.StartOnDB(t, apitest.Config(t), cluster.URL, functions.All)
	c := srv.Client(t)
	c.Register("chaos@example.com", "correct horse battery")
	r := c.Do("POST", "/api/accounts", map[string]any{"name": "Main", "currency": "USD", "startingBalance": "1000"})
	accountID, _ := r.JSON["account"].(map[string]any)["id"].(string)
	if accountID == "" {
		t.Fatalf("account: %d %s", r.Status, r.Body)
	}

	check := func(t *testing.T, phase string, counts map[string]int, readsMay503 bool) {
		t.Helper()
		total := 0
		for k, n := range counts {
			total += n
			switch {
			case strings.HasSuffix(k, " 0"), strings.HasPrefix(k, "GET 5") && !(readsMay503 && k == "GET 503"),
				strings.HasSuffix(k, " 500"), strings.HasSuffix(k, " 502"), strings.HasSuffix(k, " 504"):
				t.Errorf("%s: %d answers %q", phase, n, k)
			}
		}
		if counts["GET 200"] == 0 {
			t.Errorf("%s: no read succeeded", phase)
		}
		t.Logf("%s: %d requests: %v", phase, total, counts)
	}

	t.Run("Restart", func(t *testing.T) {
		l := startLoad(c, 8, accountID)
		time.Sleep(500 * time.Millisecond)
		cluster.Restart(t)
		time.Sleep(time.Second)
		check(t, "restart", l.finish(), true)
	})

	t.Run("KilledBackends", func(t *testing.T) {
		l := startLoad(c, 8, accountID)
		time.Sleep(300 * time.Millisecond)
		admin, err := pgx.Connect(context.Background(), cluster.URL)
		if err != nil {
			t.Fatal(err)
		}
		defer admin.Close(context.Background())
		for range 3 {
			if _, err := admin.Exec(context.Background(), `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
				WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`); err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond)
		}
		// The server never went down: every read is answered, none with 503.
		check(t, "killed backends", l.finish(), false)
	})
}
