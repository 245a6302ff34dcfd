//go:build !unix

package benchcpu

import "time"

func processCPU() (time.Duration, bool) { return 0, false }
