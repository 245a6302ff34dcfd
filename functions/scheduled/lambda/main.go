// Command lambda runs the periodic clean-up jobs (package scheduled) on AWS
// Lambda, invoked by the schedule events of template.yaml. The input
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

	"tradejournal/functions/scheduled"
	"tradejournal/shared/app"
	"tradejournal/shared/config"
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
	jobs := scheduled.Jobs(a, &http.Client{Timeout: time.Minute})
	lambda.Start(func(ctx context.Context, ev scheduled.Event) (scheduled.Report, error) {
		return scheduled.Run(ctx, jobs, ev, log)
	})
}
