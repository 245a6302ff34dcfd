// Package stripetest gives a test package a real stripe-mock, the payment
// processor's official mock server, started on a free loopback port by the
// test binary itself (as shared/db/dbtest gives it PostgreSQL). Nothing in
// the tests fakes the processor's API: stripe-go talks HTTP to stripe-mock
// through its backend configuration (PAYMENT_API_BASE_URL).
//
// A package that uses it runs its tests through Main:
//
//	func TestMain(m *testing.M) { os.Exit(stripetest.Main(m)) }
//
// and asks for the server's URL in each test that needs it:
//
//	cfg.Billing.APIBaseURL = stripetest.URL(t)
//
// stripe-mock loads the whole API description at start (about ten seconds),
// so Main starts it once per test binary, in the background while the first
// tests run, and stops it when they are done. STRIPE_MOCK_URL, when set,
// points at an already running stripe-mock instead.
//
// The binary is `go install github.com/stripe/stripe-mock@<version>`, which
// `make test` (its test-deps step) installs when missing.
package stripetest

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"tradejournal/shared/testbin"
)

// startTimeout bounds how long stripe-mock may take to listen. It loads a
// large API description; a loaded machine running many test binaries at
// once needs far more than its usual ten seconds.
const startTimeout = 3 * time.Minute

// server is the test binary's one stripe-mock.
var server struct {
	once  sync.Once
	ready chan struct{} // closed when url or err is set
	url   string
	err   error
	cmd   *exec.Cmd
	main  bool // Main was called
}

// Main runs the package's tests with stripe-mock started in the background
// and returns the exit code for os.Exit. It stops stripe-mock afterwards.
// A run of benchmarks only (-run '^$' -bench ...) starts it on first use
// instead, so its start-up does not steal CPU from the measurements.
func Main(m *testing.M) int {
	server.main = true
	flag.Parse()
	if f := flag.Lookup("test.run"); f == nil || f.Value.String() != "^$" {
		start()
	}
	code := m.Run()
	stop()
	return code
}

// URL returns the base URL of the running stripe-mock ("http://127.0.0.1:port"),
// waiting for it to finish starting. It fails the test if stripe-mock is not
// installed or does not start.
func URL(tb testing.TB) string {
	tb.Helper()
	if !server.main {
		tb.Fatal("stripetest: the package's TestMain must call stripetest.Main(m), which starts and stops stripe-mock")
	}
	start()
	<-server.ready
	if server.err != nil {
		tb.Fatalf("stripetest: %v", server.err)
	}
	return server.url
}

func start() {
	server.once.Do(func() {
		server.ready = make(chan struct{})
		if u := os.Getenv("STRIPE_MOCK_URL"); u != "" {
			server.url = strings.TrimRight(u, "/")
			close(server.ready)
			return
		}
		bin, err := binary()
		if err != nil {
			server.err = err
			close(server.ready)
			return
		}
		go launch(bin)
	})
}

// launch starts stripe-mock on free loopback ports (HTTP, and HTTPS, which
// it always opens and which would otherwise take the fixed port 12112) and
// reads its announcement of the HTTP address.
func launch(bin string) {
	defer close(server.ready)
	cmd := exec.Command(bin, "-http-addr", "127.0.0.1:", "-https-addr", "127.0.0.1:")
	testbin.DieWithParent(cmd)
	out, err := cmd.StdoutPipe()
	if err != nil {
		server.err = err
		return
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		server.err = fmt.Errorf("start %s: %v", bin, err)
		return
	}
	server.cmd = cmd

	found := make(chan string, 1)
	var seen strings.Builder
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			if addr, ok := strings.CutPrefix(line, "Listening for HTTP at address: "); ok {
				found <- strings.TrimSpace(addr)
				break
			}
			if seen.Len() < 4096 {
				seen.WriteString(line + "\n")
			}
		}
		close(found)
		_, _ = io.Copy(io.Discard, out) // keep the pipe drained
	}()
	select {
	case addr, ok := <-found:
		if !ok {
			server.err = fmt.Errorf("stripe-mock exited before listening; its output:\n%s", seen.String())
			return
		}
		server.url = "http://" + addr
	case <-time.After(startTimeout):
		server.err = fmt.Errorf("stripe-mock did not listen within %s", startTimeout)
	}
}

func stop() {
	if server.ready == nil {
		return
	}
	<-server.ready
	if server.cmd != nil && server.cmd.Process != nil {
		_ = server.cmd.Process.Kill()
		_ = server.cmd.Wait()
	}
}

// binary finds stripe-mock where go install puts it.
func binary() (string, error) { return testbin.Find("stripe-mock") }
