package csvimport

import (
	"context"
	"time"

	"tradejournal/shared/app"
)

// CleanupInterval is how often cmd/local's timer runs Cleanup.
const CleanupInterval = time.Minute

// RunCleanup runs Cleanup every interval until ctx ends: the local host's
// timer (cmd/local starts it with its background helper). Each run uses the
// App's clock, so a test can move time. Failures are logged as warnings.
func RunCleanup(ctx context.Context, a *app.App, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if s, err := Cleanup(ctx, a.DB, a.Config.CSVImport, a.Now()); err != nil {
			if ctx.Err() != nil {
				return
			}
			a.Log.Warn("csv import clean-up", "err", err)
		} else if s.Expired > 0 || s.Orphaned > 0 {
			a.Log.Info("csv import clean-up", "expired", s.Expired, "orphaned", s.Orphaned)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Scheduled is the clean-up as a scheduled function on the function
// platform runs it (an EventBridge schedule invoking a function that calls
// it once per event): one sweep with the App's clock.
func Scheduled(a *app.App) func(context.Context) (Swept, error) {
	return func(ctx context.Context) (Swept, error) {
		return Cleanup(ctx, a.DB, a.Config.CSVImport, a.Now())
	}
}
