// Command lambda applies the embedded database migrations on AWS Lambda: the
// deploy step of the function platform (docs/deployment.md), invoked once
// per release, never on a cold start. It uses DIRECT_DATABASE_URL when set,
// because the migration lock is a session-level advisory lock that a
// transaction-mode pooler such as RDS Proxy cannot hold.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"tradejournal/shared/app"
	"tradejournal/shared/config"
	"tradejournal/shared/journalstore"
)

// result is the invocation's answer: the migration files applied, in order
// (empty when the schema was current).
type result struct {
	Applied []string `json:"applied"`
}

func main() {
	cfg, err := config.Load()
	if err != nil {
		slog.Error("configuration", "err", err)
		os.Exit(1)
	}
	log := app.NewLogger(cfg.LogLevel)
	lambda.Start(func(ctx context.Context) (result, error) {
		applied, err := journalstore.Migrate(ctx, cfg.DB.MigrationURL())
		if applied == nil {
			applied = []string{}
		}
		if err != nil {
			log.Error("migrations failed", "applied", applied, "err", err)
			return result{Applied: applied}, err
		}
		log.Info("migrations applied", "files", applied)
		return result{Applied: applied}, nil
	})
}
