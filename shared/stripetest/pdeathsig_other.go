//go:build !linux

package stripetest

import "os/exec"

// setParentDeathSignal is Linux-only; elsewhere Main's cleanup stops
// stripe-mock.
func setParentDeathSignal(*exec.Cmd) {}
