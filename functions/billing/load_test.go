package billing_test

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
)

// BenchmarkWebhookLoad is the webhook's load test: signed
// checkout.session.completed events (each crediting a pack) sent over
// loopback HTTP to the full local host stack at a fixed rate of 200 events
// a second, open loop (a slow answer does not slow the sender down), and
// the latency of each delivery measured at the client. The target is a p99
// under 20 ms. b.N is the number of events; run it for 10 seconds with
//
//	go test -run '^$' -bench WebhookLoad -benchtime 2000x ./functions/billing
//
// One event in ten is a replay of an earlier one (the processor retries),
// and the events spread over 20 users, so wallets see concurrent credits.
func BenchmarkWebhookLoad(b *testing.B) {
	const rate = 200 // events per second
	cfg := apitest.Config(b)
	cfg.Billing.SecretKey = testSecretKey
	cfg.Billing.WebhookSecret = testWebhookSecret
	srv := apitest.Start(b, cfg, functions.All)

	users := make([]string, 20)
	for i := range users {
		if err := srv.App.DB.QueryRow(bg, `INSERT INTO users (email, password_hash) VALUES ($1, 'x') RETURNING id::text`,
			fmt.Sprintf("load%d@example.com", i)).Scan(&users[i]); err != nil {
			b.Fatal(err)
		}
	}
	// Sign every event up front: the clock measures the server only.
	type delivery struct{ payload, header string }
	now := time.Now()
	deliveries := make([]delivery, b.N)
	for i := range deliveries {
		n := i
		if i%10 == 9 {
			n = i - 5 // a replay
		}
		p := eventJSON(b, fmt.Sprintf("evt_load_%d", n), "checkout.session.completed", now,
			checkoutSession(fmt.Sprintf("cs_load_%d", n), users[n%len(users)], "starter", "paid", 500))
		deliveries[i] = delivery{string(p), sign(p, testWebhookSecret, now)}
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	url := srv.URL + "/api/billing/webhook"
	// Warm the connection pools on both sides.
	for range 20 {
		req, _ := http.NewRequest("POST", url, strings.NewReader("{}"))
		if res, err := client.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
	}

	lat := make([]time.Duration, b.N)
	var wg sync.WaitGroup
	var failures sync.Map
	tick := time.NewTicker(time.Second / rate)
	defer tick.Stop()
	b.ResetTimer()
	for i := range deliveries {
		<-tick.C
		wg.Go(func() {
			req, _ := http.NewRequest("POST", url, strings.NewReader(deliveries[i].payload))
			req.Header.Set("Content-Type", "application/json; charset=utf-8")
			req.Header.Set("Stripe-Signature", deliveries[i].header)
			t := time.Now()
			res, err := client.Do(req)
			if err != nil {
				failures.Store(i, err.Error())
				return
			}
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			lat[i] = time.Since(t)
			if res.StatusCode != 200 {
				failures.Store(i, res.Status)
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	failures.Range(func(k, v any) bool {
		b.Errorf("event %v: %v", k, v)
		return false
	})

	var credited int64
	if err := srv.App.DB.QueryRow(bg, `SELECT COALESCE(sum(balance), 0) FROM wallets`).Scan(&credited); err != nil {
		b.Fatal(err)
	}
	unique := b.N - b.N/10
	if credited != int64(unique)*5_000_000 {
		b.Errorf("credited %d credits for %d unique events, want %d", credited, unique, int64(unique)*5_000_000)
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(int(float64(len(lat))*p), len(lat)-1)].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
	b.ReportMetric(rate, "events/s")
}
