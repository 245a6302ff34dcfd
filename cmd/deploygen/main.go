// Command deploygen writes the deployment files that follow the code:
// template.yaml's route-group functions (from functions.All), and
// docs/configuration.md and .env.example (from shared/config). Run it from
// the repository root after adding a route, a route group or a variable:
//
//	go run ./cmd/deploygen
//
// deploy's tests fail until the committed files match what it writes.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"tradejournal/deploy"
)

func main() {
	root := flag.String("root", ".", "repository root")
	flag.Parse()
	if err := run(*root); err != nil {
		fmt.Fprintln(os.Stderr, "deploygen:", err)
		os.Exit(1)
	}
}

func run(root string) error {
	groups, closeApp, err := deploy.RouteGroups()
	if err != nil {
		return err
	}
	defer closeApp()
	files, err := deploy.Generate(root, groups)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		path := filepath.Join(root, name)
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, files[name]) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			return err
		}
		fmt.Println("wrote", name)
	}
	return nil
}
