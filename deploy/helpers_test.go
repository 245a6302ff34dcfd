package deploy_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"
	"gopkg.in/yaml.v3"

	"tradejournal/deploy"
	"tradejournal/shared/config"
	"tradejournal/shared/httpx"
)

// root is the repository root: the tests run in deploy/.
func root(t testing.TB) string {
	t.Helper()
	r, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r, "go.mod")); err != nil {
		t.Fatalf("repository root not found at %s", r)
	}
	return r
}

func readFile(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root(t), rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// yamlFile parses a plain YAML file (no CloudFormation tags).
func yamlFile(t testing.TB, rel string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal(readFile(t, rel), &m); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	return m
}

func template(t testing.TB) map[string]any {
	t.Helper()
	tpl, err := deploy.ParseCFN(readFile(t, deploy.TemplateFile))
	if err != nil {
		t.Fatalf("%s: %v", deploy.TemplateFile, err)
	}
	return tpl
}

func routeGroups(t testing.TB) []httpx.Group {
	t.Helper()
	groups, closeApp, err := deploy.RouteGroups()
	if err != nil {
		t.Fatalf("route groups: %v", err)
	}
	t.Cleanup(closeApp)
	return groups
}

// variables returns config.Variables by name.
func variables() map[string]config.Variable {
	m := map[string]config.Variable{}
	for _, v := range config.Variables() {
		m[v.Name] = v
	}
	return m
}

func mapAt(v any, path ...string) map[string]any {
	for _, p := range path {
		m, _ := v.(map[string]any)
		v = m[p]
	}
	m, _ := v.(map[string]any)
	return m
}

// emptyDatabase creates a database with no tables (dbtest.URL migrates
// its databases; these tests watch the migrations run) and drops it when
// the test ends.
func emptyDatabase(t testing.TB) string {
	t.Helper()
	admin := os.Getenv("TEST_DATABASE_URL")
	if admin == "" {
		t.Fatal("TEST_DATABASE_URL is not set: run the tests with `make test`, which starts PostgreSQL")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("connect to the test server: %v", err)
	}
	defer conn.Close(ctx)
	name := "tj_deploy_" + hex.EncodeToString([]byte(rand.Text())[:6])
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), admin)
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		_, _ = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

func yamlUnmarshal(b []byte, v any) error { return yaml.Unmarshal(b, v) }
