package testbin

import (
	"os/exec"
	"syscall"
)

// DieWithParent asks the kernel to kill cmd's process if the test binary
// dies without running its cleanup (a panic, a test timeout).
func DieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
