// Package redistest runs a real redis-server for a test, on a free loopback
// port, that the test can stop and restart (make test installs the binary).
package redistest

import (
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// Server is one redis-server process.
type Server struct {
	tb   testing.TB
	Port int
	URL  string
	cmd  *exec.Cmd
}

// Start runs redis-server without persistence and stops it when the test ends.
func Start(tb testing.TB) *Server {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	s := &Server{tb: tb, Port: port, URL: fmt.Sprintf("redis://127.0.0.1:%d/0", port)}
	s.Restart()
	tb.Cleanup(s.Stop)
	return s
}

// Restart starts the server again on the same port.
func (s *Server) Restart() {
	s.tb.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		s.tb.Fatal("redis-server is not installed: run the tests with `make test`, which installs it")
	}
	s.cmd = exec.Command(bin, "--port", strconv.Itoa(s.Port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	if err := s.cmd.Start(); err != nil {
		s.tb.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", s.Port)); err == nil {
			c.Close()
			return
		}
	}
	s.tb.Fatal("redis-server did not start")
}

// Stop ends the server; connections to it fail until Restart.
func (s *Server) Stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
		s.cmd = nil
	}
}
