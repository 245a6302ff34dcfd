// Package s3test runs a real S3-compatible server for a test: MinIO, built
// from the Go module proxy by `make test-deps`, on a loopback port of
// 3500-3599 with its data in the test's temporary directory. MinIO checks
// every request's SigV4 signature, so the tests exercise the signer, not a
// store that accepts anything.
package s3test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"tradejournal/shared/config"
	"tradejournal/shared/objectstore"
	"tradejournal/shared/testbin"
)

// Credentials of the test server's root user.
const (
	AccessKeyID     = "tjtestaccess"
	SecretAccessKey = "tjtestsecret-0123456789"
	Bucket          = "trade-journal-images"
	// Domain is the server's virtual-host domain: with Dialer, a request to
	// http://<bucket>.s3.test:<port>/key reaches the server as
	// virtual-hosted style.
	Domain = "s3.test"
)

// Server is one MinIO process.
type Server struct {
	URL  string
	port int
	cmd  *exec.Cmd
}

// Start runs MinIO until the test ends, with Bucket created.
func Start(tb testing.TB) *Server {
	tb.Helper()
	bin, err := testbin.Find("minio")
	if err != nil {
		tb.Fatal(err)
	}
	dir := tb.TempDir()
	// A port of 3500-3599 from a random start; one another process took
	// between the probe and MinIO's bind makes MinIO exit, and the next
	// port is tried.
	first := rand.IntN(100)
	for i := range 100 {
		port := 3500 + (first+i)%100
		if s := try(tb, bin, filepath.Join(dir, fmt.Sprint(port)), port); s != nil {
			tb.Cleanup(s.stop)
			c, err := objectstore.New(s.Config(), nil)
			if err != nil {
				tb.Fatal(err)
			}
			// MinIO may call itself ready a moment before it takes writes
			// (503 XMinioServerNotInitialized).
			for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
				err := c.CreateBucket(context.Background())
				if err == nil {
					return s
				}
				if time.Now().After(deadline) {
					tb.Fatalf("create bucket: %v", err)
				}
			}
		}
	}
	tb.Fatal("minio: no free port in 3500-3599")
	return nil
}

// try starts MinIO on port and waits for it to answer, or returns nil.
func try(tb testing.TB, bin, dataDir string, port int) *Server {
	tb.Helper()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil
	}
	ln.Close()
	cmd := exec.Command(bin, "server", dataDir, "--address", addr, "--quiet")
	cmd.Env = []string{"MINIO_ROOT_USER=" + AccessKeyID, "MINIO_ROOT_PASSWORD=" + SecretAccessKey,
		"MINIO_BROWSER=off", "MINIO_UPDATE=off", "MINIO_DOMAIN=" + Domain, "HOME=" + dataDir}
	testbin.DieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		tb.Fatalf("minio: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	s := &Server{URL: "http://" + addr, port: port, cmd: cmd}
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		select {
		case <-exited:
			return nil // the port was taken after all
		default:
		}
		if res, err := http.Get(s.URL + "/minio/health/ready"); err == nil {
			res.Body.Close()
			// Ready, and still ours: a MinIO that lost the port to another
			// process has exited by the time any server there is ready.
			select {
			case <-exited:
				return nil
			default:
			}
			if res.StatusCode == http.StatusOK {
				return s
			}
		}
	}
	_ = cmd.Process.Kill()
	tb.Fatal("minio did not answer within 60 s")
	return nil
}

// stop kills MinIO; the goroutine of try reaps it.
func (s *Server) stop() { _ = s.cmd.Process.Kill() }

// Config is the object storage configuration that reaches the server
// (path-style, as MinIO on an IP address needs).
func (s *Server) Config() config.ObjectStorage {
	return config.ObjectStorage{Endpoint: s.URL, Bucket: Bucket, AccessKeyID: AccessKeyID,
		SecretAccessKey: SecretAccessKey, ForcePathStyle: true}
}

// VirtualHostConfig is Config for virtual-hosted style, with the endpoint
// under Domain; only HTTPClient can reach it.
func (s *Server) VirtualHostConfig() config.ObjectStorage {
	c := s.Config()
	c.Endpoint = fmt.Sprintf("http://%s:%d", Domain, s.port)
	c.ForcePathStyle = false
	return c
}

// HTTPClient dials every host to the server, so names under Domain need
// no DNS.
func (s *Server) HTTPClient() *http.Client {
	addr := fmt.Sprintf("127.0.0.1:%d", s.port)
	var d net.Dialer
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}}}
}
