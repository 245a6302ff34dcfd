//go:build !linux

package testbin

import "os/exec"

// DieWithParent is Linux-only; elsewhere the tests' cleanup stops the
// process.
func DieWithParent(*exec.Cmd) {}
