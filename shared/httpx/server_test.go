package httpx_test

import (
	"bufio"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"tradejournal/shared/httpx"
)

// slowServer serves a route that reads its body, behind the listener's
// timeouts shrunk for the test.
func slowServer(t *testing.T) *httptest.Server {
	t.Helper()
	timeouts := httpx.Timeouts{Header: time.Second, Body: 300 * time.Millisecond, Upload: 1500 * time.Millisecond, Response: time.Second, Idle: 5 * time.Second}
	h := httpx.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			httpx.Error(w, r, err)
			return
		}
		httpx.JSON(w, http.StatusOK, map[string]string{"status": "read"})
	}), slog.New(slog.DiscardHandler), nil)
	srv := httptest.NewUnstartedServer(nil)
	srv.Config = timeouts.Server(h, slog.New(slog.DiscardHandler))
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// sendSlowly writes head and the first part of a body, waits, then the
// rest (never, for a negative pause), and returns the status line the
// server answered.
func sendSlowly(t *testing.T, addr, contentType string, pause time.Duration) string {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	body := `{"a":"` + strings.Repeat("x", 20) + `"}`
	_, _ = io.WriteString(conn, "POST /x HTTP/1.1\r\nHost: x\r\nContent-Type: "+contentType+"\r\nContent-Length: "+
		strconv.Itoa(len(body))+"\r\n\r\n"+body[:5])
	if pause >= 0 {
		time.Sleep(pause)
		_, _ = io.WriteString(conn, body[5:])
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	return strings.TrimSpace(line)
}

// A client that sends its JSON body too slowly is cut off with 408 and
// the server keeps serving; a multipart upload gets the longer Upload
// deadline.
func TestSlowBodyIsCutOff(t *testing.T) {
	srv := slowServer(t)
	addr := srv.Listener.Addr().String()
	start := time.Now()
	if got := sendSlowly(t, addr, "application/json", -1); !strings.HasPrefix(got, "HTTP/1.1 408") {
		t.Fatalf("slow JSON body: %q", got)
	}
	if waited := time.Since(start); waited > 1500*time.Millisecond {
		t.Fatalf("cut off after %v, want about the 300 ms body deadline", waited)
	}
	if got := sendSlowly(t, addr, "application/json", 0); !strings.HasPrefix(got, "HTTP/1.1 200") {
		t.Fatalf("prompt body after a slow one: %q", got)
	}
	if got := sendSlowly(t, addr, "multipart/form-data; boundary=x", 700*time.Millisecond); !strings.HasPrefix(got, "HTTP/1.1 200") {
		t.Fatalf("upload within its deadline: %q", got)
	}
	res, err := http.Get(srv.URL + "/x")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("server after slow clients: %v %v", res, err)
	}
	res.Body.Close()
}
