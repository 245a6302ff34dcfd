// Package jobs is the one list of background jobs and the one runner both
// hosts use (the shape of miniflux's internal/cli/daemon.go and
// internal/worker): cmd/local runs every job in the background with Start,
// each on its own interval; the scheduled function
// (functions/scheduled/lambda) runs the jobs an event names once with Run.
// Every job is safe to run from several processes at once and to run late;
// each decides for itself what is due, so a schedule only bounds how stale
// things may get.
//
// Adding a job: give the package that owns the work an exported function
// that takes a context (and the pool, clock or configuration it needs) and
// returns what it handled, add a Job for it to List, and a schedule event
// for its name to template.yaml (deploy/template_test.go fails while a job
// is never scheduled).
package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"tradejournal/shared/app"
	"tradejournal/shared/brokersync"
	"tradejournal/shared/expenses"
	"tradejournal/shared/journalstore"
	"tradejournal/shared/market"
	"tradejournal/shared/objectstore"
	"tradejournal/shared/staging"
	"tradejournal/shared/tradebars"
	"tradejournal/shared/wallet"
)

// Job names, as the schedule events of template.yaml list them.
const (
	WalletSweep      = "wallet-sweep"       // expired credit reservations
	CSVImportCleanup = "csv-import-cleanup" // expired staged previews and orphaned committing imports
	SymbolRefresh    = "symbol-refresh"     // the SEC ticker table (daily; the job knows when it is due)
	EmailOutbox      = "email-outbox"       // verification and reset mail waiting in the outbox
	ImageObjectPurge = "image-object-purge" // bucket objects of deleted images (object storage only)
	OptionExpiry     = "option-expiry"      // options still open after their expiry day, closed at 0
	ExpenseCharges   = "expense-charges"    // recurring expenses' charges that fell due since they were written
	BrokerSync       = "broker-sync"        // broker connections due a sync (each knows when it is due)
	BarExcursions    = "bar-excursions"     // closed positions' MAE and MFE measured from price bars, a batch a run
)

// Job is one background job.
type Job struct {
	Name string
	// Run does the work and returns how many items it handled.
	Run func(ctx context.Context) (int, error)
	// Every is how often a long-lived host runs the job (Start); the
	// function platform's cadence is template.yaml's.
	Every time.Duration
	// Wake, when set, runs the job at once in a long-lived host between two
	// ticks (the outbox is nudged when new mail is queued).
	Wake <-chan struct{}
	// Soft marks a job whose failure is a warning, not a failed invocation:
	// the symbol refresh logs its own warning when the public file cannot
	// be fetched and is retried by the next run.
	Soft bool
	// Off, when set, is why the job does nothing on this deployment (its
	// feature is not configured); it is reported as skipped.
	Off string
	// StopOn, when a failure is this error, ends the job's loop in Start:
	// the job cannot succeed until the configuration changes (a refused
	// SEC_USER_AGENT), so the host says so once, not every interval.
	StopOn error
}

// Intervals of the long-lived host.
const (
	sweepEvery  = time.Minute       // reservations, staged imports, image objects
	outboxEvery = 10 * time.Second  // queued mail; new mail wakes the job at once
	symbolEvery = market.RetryEvery // the refresh itself decides whether the daily check is due
	// expiryEvery bounds how long an expired option waits, shown as
	// awaiting expiry, before it is closed: template.yaml's rate too.
	expiryEvery = 15 * time.Minute
	// chargesEvery bounds how long after midnight (in the user's zone) a
	// recurring expense's new charge waits before it counts: template.yaml's
	// rate too.
	chargesEvery = time.Hour
	// brokerSyncEvery bounds how late a connection's sync starts once it
	// is due (brokersync decides that): template.yaml's rate too.
	brokerSyncEvery = 15 * time.Minute
	// excursionsEvery spaces the excursions job's batches (tradebars.JobCalls
	// provider calls a run) to within a free plan's limits: template.yaml's
	// rate too.
	excursionsEvery = 10 * time.Minute
)

// List returns every job of the deployment a describes, in the order Run
// runs them. client fetches the public ticker file (nil: the default
// client).
func List(a *app.App, client *http.Client) []Job {
	httpClient := &http.Client{}
	feeds := market.NewUncachedFeeds(a.Config.Market, httpClient, a.Now, a.Log)
	bars := tradebars.New(feeds, a.DB, journalstore.New(a.DB, a.Keyring, a.Now))
	jobs := []Job{
		{Name: WalletSweep, Every: sweepEvery, Run: func(ctx context.Context) (int, error) {
			return wallet.SweepExpired(ctx, a.DB, a.Now())
		}},
		{Name: CSVImportCleanup, Every: sweepEvery, Run: func(ctx context.Context) (int, error) {
			s, err := staging.Cleanup(ctx, a.DB, a.Config.CSVImport, a.Now())
			return int(s.Expired + s.Orphaned), err
		}},
		{Name: SymbolRefresh, Every: symbolEvery, Soft: true, StopOn: market.ErrCodeHostUserAgent, Run: func(ctx context.Context) (int, error) {
			return 0, market.RefreshSymbols(ctx, a.DB, client, a.Config.Market, a.Now(), a.Log)
		}},
		{Name: OptionExpiry, Every: expiryEvery, Run: journalstore.New(a.DB, a.Keyring, a.Now).ExpireDue},
		{Name: ExpenseCharges, Every: chargesEvery, Run: expenses.New(a.DB, a.Now).MaterialiseDue},
		{Name: BrokerSync, Every: brokerSyncEvery, Run: brokersync.New(a.DB, a.Keyring, a.Now, a.Config.BrokerSync, nil).SyncDue},
		// Soft: a provider's refusal (its limit, a bad key) is logged as a
		// warning, and the next run picks up where this one stopped.
		{Name: BarExcursions, Every: excursionsEvery, Soft: true, Run: func(ctx context.Context) (int, error) {
			return bars.MeasureDue(ctx, a.Now())
		}},
	}
	purge := Job{Name: ImageObjectPurge, Off: "object storage is not configured"}
	if a.Objects != nil {
		purge = Job{Name: ImageObjectPurge, Every: sweepEvery, Run: func(ctx context.Context) (int, error) {
			return objectstore.PurgeQueued(ctx, a.DB, a.Objects)
		}}
	}
	mail := Job{Name: EmailOutbox, Off: "email is not configured"}
	if a.Outbox != nil {
		mail = Job{Name: EmailOutbox, Every: outboxEvery, Wake: a.Outbox.Nudged(), Run: a.Outbox.DeliverDue}
	}
	return append(jobs, purge, mail)
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

// Run runs the jobs ev names once, in the order of jobs, each to completion
// even when an earlier one failed: the scheduled function's runner. It fails
// when ev names a job that does not exist (before running anything) or when
// a job that is not Soft failed.
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
		out := Outcome{Name: j.Name, Skipped: j.Off}
		if j.Off == "" {
			start := time.Now()
			n, err := j.Run(ctx)
			out.Count, out.Millis = n, time.Since(start).Milliseconds()
			if err != nil {
				out.Error = err.Error()
			}
			switch {
			case err != nil && !j.Soft:
				failed = append(failed, fmt.Errorf("%s: %w", j.Name, err))
				log.Error("scheduled job failed", "job", j.Name, "err", err)
			case err == nil:
				log.Info("scheduled job done", "job", j.Name, "count", n, "ms", out.Millis)
			}
		}
		rep.Jobs = append(rep.Jobs, out)
	}
	return rep, errors.Join(failed...)
}

// Start runs every job that is not Off in the background, each at once and
// then every Every (and on each Wake) until ctx ends or stop is called: the
// long-lived host's runner. A failure is a warning and the job runs again at
// its next tick (a Soft job logs its own); its StopOn error ends that job's
// loop. stop cancels the loops and waits for them, so the caller
// can close the pool afterwards.
func Start(ctx context.Context, jobs []Job, log *slog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, j := range jobs {
		if j.Off != "" {
			continue
		}
		wg.Go(func() { loop(ctx, j, log) })
	}
	return func() { cancel(); wg.Wait() }
}

// loop is one job's life under Start.
func loop(ctx context.Context, j Job, log *slog.Logger) {
	t := time.NewTicker(j.Every)
	defer t.Stop()
	for {
		_, err := j.Run(ctx)
		switch {
		case err == nil || ctx.Err() != nil:
		case j.StopOn != nil && errors.Is(err, j.StopOn):
			return
		case !j.Soft:
			log.Warn("background job failed; it runs again at its next tick", "job", j.Name, "every", j.Every, "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-j.Wake:
		}
	}
}
