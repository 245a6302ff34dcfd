// Package benchcpu adds the process's CPU time per operation to a
// benchmark's figures. On a machine shared with other work the wall time per
// op (ns/op) includes waiting for a core; the CPU time (cpu-ns/op: user and
// system time of the whole process, garbage collection included) mostly
// does not, so it is the figure to compare across runs.
package benchcpu

import "testing"

// Start notes the process's CPU time; the function it returns, called after
// the benchmark loop, reports the CPU time per operation as cpu-ns/op. Where
// the platform offers no process CPU time it reports nothing.
//
//	stop := benchcpu.Start(b)
//	for b.Loop() { ... }
//	stop()
func Start(b *testing.B) (stop func()) {
	start, ok := processCPU()
	return func() {
		end, _ := processCPU()
		if ok && b.N > 0 {
			b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
		}
	}
}
