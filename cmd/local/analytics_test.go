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

// TestBinaryPartialObjectStorage: a partial OBJECT_STORAGE_* set starts the
// api with images inline and exactly one info line naming what is unset;
// no secret reaches the logs, and nothing logs at error level.
func TestBinaryPartialObjectStorage(t *testing.T) {
	const secret = "partial-storage-secret-789"
	cmd, port, logs := startLocal(t, buildBinary(t),
		"OBJECT_STORAGE_ENDPOINT=http://127.0.0.1:1", "OBJECT_STORAGE_SECRET_ACCESS_KEY="+secret,
		"ANALYTICS_API_KEY="+analyticstest.TestKey, "ANALYTICS_HOST=http://127.0.0.1:1")
	c := &http.Client{}
	res, err := c.Post(fmt.Sprintf("http://127.0.0.1:%d/api/auth/register", port), "application/json",
		strings.NewReader(`{"email":"partial@example.com","password":"password1"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	stopLocal(t, cmd, logs)
	out := logs.String()
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "object storage") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 || !strings.Contains(lines[0], `"level":"INFO"`) || !strings.Contains(lines[0], "inline") ||
		!strings.Contains(lines[0], "OBJECT_STORAGE_BUCKET") || !strings.Contains(lines[0], "OBJECT_STORAGE_ACCESS_KEY_ID") {
		t.Fatalf("want one info line about object storage, got %q\nlogs:\n%s", lines, out)
	}
	for _, s := range []string{secret, analyticstest.TestKey} {
		if strings.Contains(out, s) {
			t.Fatalf("a secret is in the logs:\n%s", out)
		}
	}
	if strings.Contains(out, `"level":"ERROR"`) {
		t.Fatalf("an error was logged:\n%s", out)
	}
}
