package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestMakeBuildStampsTheCheckout: `make build` without BUILD_VERSION stamps
// the checkout's `git describe --always --dirty`, so a local build reports
// a version rather than "unknown".
func TestMakeBuildStampsTheCheckout(t *testing.T) {
	describe, err := exec.Command("git", "describe", "--always", "--dirty").Output()
	if err != nil {
		t.Fatalf("git describe: %v (the tests run in a git checkout)", err)
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatal("make is not installed: the README's commands need it") // the tests run under make test
	}
	cmd := exec.Command("make", "-C", "../..", "-n", "--no-print-directory", "build")
	// BUILD_VERSION unset, as in a plain `make build`.
	cmd.Env = slices.DeleteFunc(cmd.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "BUILD_VERSION=") })
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make -n build: %v\n%s", err, out)
	}
	want := "-X tradejournal/shared/buildinfo.Version=" + strings.TrimSpace(string(describe)) + "'"
	if !strings.Contains(string(out), want) {
		t.Fatalf("make build does not stamp the checkout: want %q in\n%s", want, out)
	}
}
