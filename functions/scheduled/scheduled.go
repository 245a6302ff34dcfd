// Package scheduled runs the periodic clean-up jobs where no long-lived
// process exists to run them: on the function platform, a scheduled function
// (functions/scheduled/lambda) calls Run. Every job is safe to run from
// several processes at once and to run late; each decides for itself what is
// due, so a schedule only bounds how stale things may get.
//
// Adding a job: give the package that owns the work an exported function
// that takes a context (and the pool, clock or configuration it needs) and
// returns what it handled, then add a Job for it to Jobs below, and a
// schedule event for its name to template.yaml if it needs a cadence of its
// own (deploy/template_test.go fails while a job is never scheduled).
package scheduled

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"tradejournal/functions/csvimport"
	"tradejournal/functions/positions"
	"tradejournal/shared/app"
	"tradejournal/shared/market"
	"tradejournal/shared/wallet"
)

// Job names, as the schedule events of template.yaml list them.
const (
	WalletSweep      = "wallet-sweep"       // expired credit reservations
	CSVImportCleanup = "csv-import-cleanup" // expired staged previews and orphaned committing imports
	SymbolRefresh    = "symbol-refresh"     // the SEC ticker table (daily; the job knows when it is due)
	EmailOutbox      = "email-outbox"       // verification and reset mail waiting in the outbox
	ImageObjectPurge = "image-object-purge" // bucket objects of deleted images (object storage only)
)

// Job is one clean-up job.
type Job struct {
	Name string
	// Run does the work and returns how many items it handled.
	Run func(ctx context.Context) (int, error)
	// Soft marks a job whose failure is a warning, not a failed invocation:
	// the symbol refresh logs its own warning when the public file cannot
	// be fetched and is retried by the next run.
	Soft bool
	// Off, when set, is why the job does nothing on this deployment (its
	// feature is not configured); it is reported as skipped.
	Off string
}

// Jobs returns every job of the deployment a describes. client fetches the
// public ticker file.
func Jobs(a *app.App, client *http.Client) []Job {
	jobs := []Job{
		{Name: WalletSweep, Run: func(ctx context.Context) (int, error) {
			return wallet.SweepExpired(ctx, a.DB, a.Now())
		}},
		{Name: CSVImportCleanup, Run: func(ctx context.Context) (int, error) {
			s, err := csvimport.Scheduled(a)(ctx)
			return int(s.Expired + s.Orphaned), err
		}},
		{Name: SymbolRefresh, Soft: true, Run: func(ctx context.Context) (int, error) {
			return 0, market.RefreshSymbols(ctx, a.DB, client, a.Config.Market, a.Now(), a.Log)
		}},
	}
	purge := Job{Name: ImageObjectPurge, Off: "object storage is not configured"}
	if a.Objects != nil {
		purge = Job{Name: ImageObjectPurge, Run: func(ctx context.Context) (int, error) { return positions.PurgeObjects(ctx, a) }}
	}
	jobs = append(jobs, purge)
	mail := Job{Name: EmailOutbox, Off: "email is not configured"}
	if a.Outbox != nil {
		mail = Job{Name: EmailOutbox, Run: a.Outbox.DeliverDue}
	}
	return append(jobs, mail)
}

// Event is the scheduled invocation's input: the jobs to run, or all of them
// when the list is empty (an EventBridge scheduled event without an input
// decodes to that too).
type Event struct {
	Jobs []string `json:"jobs"`
}

// Outcome is what one job did.
type Outcome struct {
	Name    string `json:"name"`
	Count   int    `json:"count"`
	Millis  int64  `json:"ms"`
	Skipped string `json:"skipped,omitempty"`
	Error   string `json:"error,omitempty"`
}

// Report is the invocation's result.
type Report struct {
	Jobs []Outcome `json:"jobs"`
}

// Run runs the jobs ev names, in the order of jobs, each to completion even
// when an earlier one failed. It fails when ev names a job that does not
// exist (before running anything) or when a job that is not Soft failed.
func Run(ctx context.Context, jobs []Job, ev Event, log *slog.Logger) (Report, error) {
	known := make([]string, len(jobs))
	for i, j := range jobs {
		known[i] = j.Name
	}
	for _, name := range ev.Jobs {
		if !slices.Contains(known, name) {
			return Report{}, fmt.Errorf("unknown job %q (jobs: %s)", name, strings.Join(known, ", "))
		}
	}
	rep := Report{Jobs: []Outcome{}}
	var failed []error
	for _, j := range jobs {
		if len(ev.Jobs) > 0 && !slices.Contains(ev.Jobs, j.Name) {
			continue
		}
		out := Outcome{Name: j.Name}
		if j.Off != "" {
			out.Skipped = j.Off
			rep.Jobs = append(rep.Jobs, out)
			continue
		}
		start := time.Now()
		n, err := j.Run(ctx)
		out.Count, out.Millis = n, time.Since(start).Milliseconds()
		switch {
		case err != nil && j.Soft:
			out.Error = err.Error()
		case err != nil:
			out.Error = err.Error()
			failed = append(failed, fmt.Errorf("%s: %w", j.Name, err))
			log.Error("scheduled job failed", "job", j.Name, "err", err)
		default:
			log.Info("scheduled job done", "job", j.Name, "count", n, "ms", out.Millis)
		}
		rep.Jobs = append(rep.Jobs, out)
	}
	return rep, errors.Join(failed...)
}
