// Command lambda runs the background jobs (shared/jobs) on AWS Lambda,
// invoked by the schedule events of template.yaml. The input
// {"jobs": ["wallet-sweep"]} picks jobs; {} or a plain scheduled event runs
// them all.
package main

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/lambda"

	"tradejournal/shared/app"
	"tradejournal/shared/config"
	"tradejournal/shared/jobs"
)

func main() {
	cfg, err := config.Load()
	if err != nil {
		slog.Error("configuration", "err", err)
		os.Exit(1)
	}
	log := app.NewLogger(cfg.LogLevel)
	a, err := app.New(context.Background(), cfg, log, app.SystemClock)
	if err != nil {
		log.Error("start", "err", err)
		os.Exit(1)
	}
	list := jobs.List(a, &http.Client{Timeout: time.Minute})
	lambda.Start(func(ctx context.Context, ev jobs.Event) (jobs.Report, error) {
		return jobs.Run(ctx, list, ev, log)
	})
}
