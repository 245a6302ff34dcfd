package stripetest

import (
	"os/exec"
	"syscall"
)

// setParentDeathSignal asks the kernel to kill stripe-mock if the test
// binary dies without running Main's cleanup (a panic, a test timeout).
func setParentDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
