package lambdahost_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"tradejournal/shared/httpx"
	"tradejournal/shared/lambdahost"
)

// A Function URL invocation streams: the status and headers come back
// first, each event can be read while the handler still runs, flushing
// through every wrapper succeeds, the session cookie of the event's
// cookies field reaches the handler, and Set-Cookie goes back as cookies.
func TestStreamingHandler(t *testing.T) {
	release := make(chan struct{})
	h := httpx.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie("session")
		if err != nil || c.Value != "abc" {
			t.Errorf("cookie %v, %v", c, err)
		}
		if r.Method != http.MethodPost || r.URL.Path != "/api/assistant/conversations/new/messages/stream" {
			t.Errorf("request %s %s", r.Method, r.URL.Path)
		}
		http.SetCookie(w, &http.Cookie{Name: "seen", Value: "1"})
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "event: delta\n\n")
		if err := http.NewResponseController(w).Flush(); err != nil {
			t.Errorf("flush: %v", err)
		}
		<-release
		io.WriteString(w, "event: done\n\n")
	}), slog.New(slog.DiscardHandler), nil)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req := &events.LambdaFunctionURLRequest{
		RawPath: "/api/assistant/conversations/new/messages/stream",
		Cookies: []string{"session=abc", "other=x"},
		Headers: map[string]string{"content-type": "application/json"},
		Body:    `{"content":"q","idempotencyKey":"k"}`,
		RequestContext: events.LambdaFunctionURLRequestContext{DomainName: "abc.lambda-url.eu-west-1.on.aws",
			HTTP: events.LambdaFunctionURLRequestContextHTTPDescription{Method: "POST", SourceIP: "203.0.113.9"}},
	}
	res, err := lambdahost.StreamingHandler(h)(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || res.Headers["Content-Type"] != "text/event-stream" || len(res.Cookies) != 1 || res.Cookies[0] != "seen=1" {
		t.Fatalf("status %d headers %v cookies %v", res.StatusCode, res.Headers, res.Cookies)
	}
	first := make([]byte, len("event: delta\n\n"))
	if _, err := io.ReadFull(res.Body, first); err != nil || string(first) != "event: delta\n\n" {
		t.Fatalf("first %q %v", first, err)
	}
	close(release)
	rest, err := io.ReadAll(res.Body)
	if err != nil || string(rest) != "event: done\n\n" {
		t.Fatalf("rest %q %v", rest, err)
	}
}
