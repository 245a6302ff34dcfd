package apitest

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// CPUMeter reads the CPU time of this process (the server's handlers and
// the benchmark's client) and of the PostgreSQL backends serving the
// pool's database: the load-independent measure on a shared machine.
type CPUMeter struct {
	tb   testing.TB
	pool *pgxpool.Pool
}

// CPUMark is a reading of a CPUMeter.
type CPUMark struct{ proc, backends time.Duration }

// NewCPUMeter returns the meter of this process and of pool's database.
func NewCPUMeter(tb testing.TB, pool *pgxpool.Pool) CPUMeter { return CPUMeter{tb, pool} }

// Mark reads the CPU times now.
func (c CPUMeter) Mark() CPUMark {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		c.tb.Fatal(err)
	}
	proc := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	rows, err := c.pool.Query(context.Background(), `SELECT pid FROM pg_stat_activity WHERE datname = current_database()`)
	if err != nil {
		c.tb.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		c.tb.Fatal(err)
	}
	var backends time.Duration
	for _, pid := range pids {
		backends += backendCPU(int(pid))
	}
	return CPUMark{proc, backends}
}

// Since is the CPU time spent since m (backends that closed meanwhile are
// not counted: the warmed pool keeps its connections).
func (c CPUMeter) Since(m CPUMark) (proc, backends time.Duration) {
	now := c.Mark()
	return now.proc - m.proc, now.backends - m.backends
}

// backendCPU is the user+system CPU time of a process from /proc (in clock
// ticks of 10 ms), or 0 where /proc does not show it.
func backendCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 > len(s) {
		return 0
	}
	f := strings.Fields(s[i+2:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.Atoi(f[11])
	k, _ := strconv.Atoi(f[12])
	return time.Duration(u+k) * 10 * time.Millisecond
}
