// Package dbtest gives tests a real, freshly migrated PostgreSQL database of
// their own. TEST_DATABASE_URL points at a server the test command started
// (make test); nothing in the tests mocks the database.
package dbtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tradejournal/shared/db"
)

// URL creates an empty database, applies the migrations and returns its URL.
// The database is dropped when the test ends.
func URL(tb testing.TB) string {
	tb.Helper()
	u := Empty(tb)
	migrateOrFail(tb, u)
	return u
}

func migrateOrFail(tb testing.TB, u string) {
	tb.Helper()
	if _, err := db.Migrate(context.Background(), u); err != nil {
		tb.Fatalf("migrate: %v", err)
	}
}

// Empty creates a database with no migrations applied (what a fresh install
// starts from) and returns its URL. The database is dropped when the test ends.
func Empty(tb testing.TB) string {
	tb.Helper()
	admin := os.Getenv("TEST_DATABASE_URL")
	if admin == "" {
		tb.Fatal("TEST_DATABASE_URL is not set: run the tests with `make test`, which starts PostgreSQL")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		tb.Fatalf("connect to the test server: %v", err)
	}
	defer conn.Close(ctx)

	var b [8]byte
	_, _ = rand.Read(b[:])
	name := "tj_test_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		tb.Fatalf("create database: %v", err)
	}
	tb.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), admin)
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		_, _ = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})

	u, err := url.Parse(admin)
	if err != nil {
		tb.Fatalf("parse TEST_DATABASE_URL: %v", err)
	}
	u.Path = "/" + name
	return u.String()
}

// New returns a pool on a fresh migrated database, closed when the test ends.
func New(tb testing.TB) *pgxpool.Pool {
	tb.Helper()
	pool, err := db.Open(context.Background(), URL(tb), db.Options{PoolSize: 10})
	if err != nil {
		tb.Fatalf("open pool: %v", err)
	}
	tb.Cleanup(pool.Close)
	return pool
}
