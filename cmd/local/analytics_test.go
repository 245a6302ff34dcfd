package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"tradejournal/shared/analytics"
	"tradejournal/shared/analytics/analyticstest"
)

// TestBinaryFlushesAnalyticsOnSIGTERM: an event queued just before SIGTERM
// reaches the ingestion host before the process exits (the sender's own
// schedule is 10 s away), and the backend key is in no log line.
func TestBinaryFlushesAnalyticsOnSIGTERM(t *testing.T) {
	sink := analyticstest.Start(t)
	cmd, port, logs := startLocal(t, buildBinary(t),
		"ANALYTICS_API_KEY="+analyticstest.TestKey, "ANALYTICS_HOST="+sink.URL, "ANALYTICS_ENVIRONMENT=local-test")
	res, err := http.Post(fmt.Sprintf("http://127.0.0.1:%d/api/auth/register", port), "application/json",
		strings.NewReader(`{"email":"sigterm@example.com","password":"password1"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("register: %d", res.StatusCode)
	}
	stopLocal(t, cmd, logs)
	got := sink.Named(analytics.EventSignedUp)
	if len(got) != 1 || got[0].Properties["environment"] != "local-test" {
		t.Fatalf("events at the host after SIGTERM: %+v\nlogs:\n%s", sink.Events(), logs)
	}
	if strings.Contains(logs.String(), analyticstest.TestKey) {
		t.Fatalf("the analytics key is in the logs:\n%s", logs)
	}
}
