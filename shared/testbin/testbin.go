// Package testbin finds the tool binaries that tests start for real
// (stripe-mock, minio), which `make test-deps` installs with go install.
package testbin

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Find looks for name on PATH, in GOBIN, and in GOPATH/bin (by default
// ~/go/bin), where go install puts it. The error says where it looked and
// how to install it.
func Find(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	var dirs []string
	if gobin := os.Getenv("GOBIN"); gobin != "" {
		dirs = append(dirs, gobin)
	}
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
			gopath = strings.TrimSpace(string(out))
		}
	}
	if gopath == "" {
		if home, err := os.UserHomeDir(); err == nil {
			gopath = filepath.Join(home, "go")
		}
	}
	for _, p := range filepath.SplitList(gopath) {
		dirs = append(dirs, filepath.Join(p, "bin"))
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", errors.New(name + " is not installed (looked on PATH and in " + strings.Join(dirs, ", ") +
		"): run the tests with `make test`, whose test-deps step installs it")
}
