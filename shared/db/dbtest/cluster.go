package dbtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Cluster is a private PostgreSQL server of one test (infra/pg.sh), for a
// test that restarts or stops the database under the API; the shared
// TEST_DATABASE_URL server must never be restarted.
type Cluster struct {
	// URL is the cluster's tradejournal database, migrated.
	URL string
	dir string
}

// StartCluster starts a fresh cluster (initdb takes a second or two),
// migrates its database and stops it when the test ends.
func StartCluster(tb testing.TB) *Cluster {
	tb.Helper()
	dir, err := os.MkdirTemp("", "tj-cluster-")
	if err != nil {
		tb.Fatal(err)
	}
	// As root the cluster belongs to the postgres user, which must reach it.
	if err := os.Chmod(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	c := &Cluster{dir: dir}
	tb.Cleanup(func() {
		_ = exec.Command(pgScript(), "stop", dir).Run()
		_ = os.RemoveAll(dir)
	})
	// Two clusters starting at once (go test runs packages in parallel) may
	// pick the same free port: the loser starts again on another.
	var out []byte
	for range 3 {
		cmd := exec.Command(pgScript(), "start", dir, "--fast")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if out, err = cmd.Output(); err == nil {
			break
		}
		err = fmt.Errorf("%w: %s", err, stderr.String())
	}
	if err != nil {
		tb.Fatalf("infra/pg.sh start: %v", err)
	}
	c.URL = strings.TrimSpace(string(out))
	migrateOrFail(tb, c.URL)
	return c
}

// Restart restarts the server the way an operator or a package upgrade
// does (pg_ctl restart -m fast): every backend is told to end (57P01) and
// the server is down until it is back up, on the same port.
func (c *Cluster) Restart(tb testing.TB) {
	tb.Helper()
	// -l: the new server's output goes to its log, not to this process's
	// pipe (which would then never close).
	c.pgCtl(tb, "restart", "-m", "fast", "-w", "-t", "60", "-l", filepath.Join(c.dir, "server.log"))
}

func (c *Cluster) pgCtl(tb testing.TB, args ...string) {
	tb.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(bins) == 0 {
		tb.Fatal("pg_ctl not found")
	}
	args = append([]string{bins[len(bins)-1], "-D", filepath.Join(c.dir, "data")}, args...)
	if os.Geteuid() == 0 {
		args = append([]string{"runuser", "-u", "postgres", "--"}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("pg_ctl %v: %v\n%s", args, err, out)
	}
}

// pgScript is infra/pg.sh of this repository.
func pgScript() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "infra", "pg.sh")
}
