// Command seedjournal writes the benchmark journal (journaltest.Seed: by
// default 100,000 closed positions with 500,000 fills in 5 accounts) for a
// user registered through the API, so a browser can sign in and read it.
//
//	go run ./infra/bench/seedjournal -database "$DATABASE_URL" -email trader@example.com
//
// web/e2e/bench-dashboard.mjs uses it to time the dashboard in Chromium.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/db"
	"tradejournal/shared/journal/journaltest"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "seedjournal:", err)
		os.Exit(1)
	}
}

func run() error {
	databaseURL := flag.String("database", os.Getenv("DATABASE_URL"), "PostgreSQL URL of the api's database")
	email := flag.String("email", "", "the registered user who gets the journal")
	positions := flag.Int("positions", 100_000, "closed positions to write")
	flag.Parse()
	if *databaseURL == "" || *email == "" {
		return errors.New("-database (or DATABASE_URL) and -email are required")
	}
	ctx := context.Background()
	pool, err := db.Open(ctx, *databaseURL, db.Options{PoolSize: 2})
	if err != nil {
		return err
	}
	defer pool.Close()

	var userID string
	err = pool.QueryRow(ctx, `SELECT id::text FROM users WHERE email = $1`, strings.ToLower(strings.TrimSpace(*email))).Scan(&userID)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("no user %s: register them through the API first", *email)
	}
	if err != nil {
		return err
	}
	start := time.Now()
	ds, err := journaltest.Seed(ctx, pool, userID, journaltest.Options{Positions: *positions})
	if err != nil {
		return err
	}
	fmt.Printf("seeded %d positions, %d fills in %d accounts in %s\n", ds.Positions, ds.Fills, len(ds.AccountIDs), time.Since(start).Round(time.Millisecond))
	return nil
}
