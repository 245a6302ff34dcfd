//go:build unix

package benchcpu

import (
	"testing"
	"time"
)

// TestProcessCPUCounts: busy work shows as CPU time; a sleep hardly does.
func TestProcessCPUCounts(t *testing.T) {
	before, ok := processCPU()
	if !ok {
		t.Fatal("no process CPU time: getrusage failed")
	}
	// Spin until 20 ms of CPU are counted; on a loaded machine that takes
	// longer than 20 ms of wall time, but never 10 s.
	for deadline := time.Now().Add(10 * time.Second); ; {
		now, _ := processCPU()
		if now-before >= 20*time.Millisecond {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("10 s of spinning counted %v of CPU", now-before)
		}
	}
	busy, _ := processCPU()
	time.Sleep(100 * time.Millisecond)
	idle, _ := processCPU()
	if idle-busy > 25*time.Millisecond {
		t.Fatalf("a 100 ms sleep counted %v of CPU", idle-busy)
	}
}
