package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"tradejournal/shared/db/dbtest"
	"tradejournal/shared/testbin"
)

// startLocal starts the binary with env added, waits until its api answers
// GET /api/health, and returns the api port and the logs.
func startLocal(t *testing.T, bin string, env ...string) (*exec.Cmd, int, *testbin.SyncBuffer) {
	t.Helper()
	port := freePort(t)
	cmd := exec.Command(bin)
	// SEC_TICKERS_URL points at a closed loopback port: a test never
	// reaches the internet, and the failed refresh is a warning.
	cmd.Env = append(os.Environ(), append([]string{"DATABASE_URL=" + dbtest.URL(t), fmt.Sprintf("PORT=%d", port),
		"APP_VERSION=v9.9.9-abc123", "SEC_TICKERS_URL=http://127.0.0.1:1/company_tickers_exchange.json"}, env...)...)
	logs := &testbin.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if res, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/api/health", port)); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return cmd, port, logs
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("api did not come up\nlogs:\n%s", logs)
		}
	}
}

// stopLocal sends SIGTERM and requires a clean exit.
func stopLocal(t *testing.T, cmd *exec.Cmd, logs *testbin.SyncBuffer) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, logs)
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("still running 15 s after SIGTERM\n%s", logs)
	}
}

func get(t *testing.T, url string) (int, http.Header, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(b)
}

func refused(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		c.Close()
		return false
	}
	return true
}

func TestBinaryMetrics(t *testing.T) {
	bin := buildBinary(t)

	t.Run("enabled", func(t *testing.T) {
		mport := freePort(t)
		maddr := fmt.Sprintf("127.0.0.1:%d", mport)
		cmd, port, logs := startLocal(t, bin, "METRICS_ENABLED=true", "METRICS_HOST=127.0.0.1", fmt.Sprintf("METRICS_PORT=%d", mport))
		get(t, fmt.Sprintf("http://127.0.0.1:%d/api/auth/me", port))

		status, h, body := get(t, "http://"+maddr+"/metrics")
		if status != 200 || len(h.Values("Content-Type")) != 1 || h.Get("Content-Type") != "text/plain; version=0.0.4; charset=utf-8" {
			t.Fatalf("metrics: %d %q", status, h.Values("Content-Type"))
		}
		for _, want := range []string{
			`service_build_info{commit="abc123",version="v9.9.9-abc123"} 1`,
			`service_http_requests_total{method="GET",route="/api/health",status="200"} `,
			`service_http_requests_total{method="GET",route="/api/auth/me",status="401"} 1`,
			"service_db_up 1", "service_db_pool_max 10", "process_start_time_seconds", "go_goroutines",
		} {
			if !strings.Contains(body, want) {
				t.Errorf("exposition lacks %q:\n%s", want, body)
			}
		}
		if status, _, _ := get(t, "http://"+maddr+"/api/health"); status != 404 {
			t.Errorf("application route through the metrics listener: %d", status)
		}
		// The api itself does not serve /metrics.
		if status, _, _ := get(t, fmt.Sprintf("http://127.0.0.1:%d/metrics", port)); status != 404 {
			t.Errorf("/metrics on the api port: %d", status)
		}
		stopLocal(t, cmd, logs)
		if !refused(maddr) {
			t.Error("metrics listener still open after shutdown")
		}
		if strings.Contains(logs.String(), `"level":"ERROR"`) {
			t.Errorf("errors logged:\n%s", logs)
		}
	})

	t.Run("port in use", func(t *testing.T) {
		busy, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer busy.Close()
		mport := busy.Addr().(*net.TCPAddr).Port
		cmd, port, logs := startLocal(t, bin, "METRICS_ENABLED=true", "METRICS_HOST=127.0.0.1", fmt.Sprintf("METRICS_PORT=%d", mport))
		if status, _, body := get(t, fmt.Sprintf("http://127.0.0.1:%d/api/health", port)); status != 200 {
			t.Fatalf("api not serving: %d %s", status, body)
		}
		var errLine string
		for line := range strings.SplitSeq(logs.String(), "\n") {
			if strings.Contains(line, `"level":"ERROR"`) {
				errLine = line
			}
		}
		if !strings.Contains(errLine, "metrics") || !strings.Contains(errLine, fmt.Sprint(mport)) {
			t.Fatalf("want an error log about the metrics port, got:\n%s", logs)
		}
		stopLocal(t, cmd, logs)
	})

	t.Run("off", func(t *testing.T) {
		mport := freePort(t)
		cmd, _, logs := startLocal(t, bin, "METRICS_ENABLED=false", "METRICS_HOST=127.0.0.1", fmt.Sprintf("METRICS_PORT=%d", mport))
		if !refused(fmt.Sprintf("127.0.0.1:%d", mport)) {
			t.Error("a metrics listener exists with METRICS_ENABLED=false")
		}
		stopLocal(t, cmd, logs)
	})
}
