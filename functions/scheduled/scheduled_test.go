package scheduled_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"tradejournal/functions/scheduled"
	"tradejournal/shared/apitest"
	"tradejournal/shared/market/markettest"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// recorder returns jobs that note their runs in ran.
func recorder(ran *[]string) []scheduled.Job {
	job := func(name string, n int, err error, soft bool) scheduled.Job {
		return scheduled.Job{Name: name, Soft: soft, Run: func(context.Context) (int, error) {
			*ran = append(*ran, name)
			return n, err
		}}
	}
	return []scheduled.Job{
		job("a", 3, nil, false),
		job("soft", 0, errors.New("offline"), true),
		job("hard", 1, errors.New("database down"), false),
		{Name: "off", Off: "not configured", Run: func(context.Context) (int, error) {
			*ran = append(*ran, "off")
			return 0, nil
		}},
		job("z", 0, nil, false),
	}
}

func TestRun(t *testing.T) {
	ctx := context.Background()

	t.Run("UnknownJobRunsNothing", func(t *testing.T) {
		var ran []string
		_, err := scheduled.Run(ctx, recorder(&ran), scheduled.Event{Jobs: []string{"a", "nope"}}, quiet)
		if err == nil || !strings.Contains(err.Error(), `unknown job "nope"`) {
			t.Fatalf("err = %v, want unknown job", err)
		}
		if len(ran) != 0 {
			t.Fatalf("ran %v before refusing", ran)
		}
	})

	t.Run("EmptyEventRunsAllAndReportsEach", func(t *testing.T) {
		var ran []string
		rep, err := scheduled.Run(ctx, recorder(&ran), scheduled.Event{}, quiet)
		if err == nil || !strings.Contains(err.Error(), "hard: database down") || strings.Contains(err.Error(), "offline") {
			t.Fatalf("err = %v, want only the hard job's failure", err)
		}
		if want := []string{"a", "soft", "hard", "z"}; !reflect.DeepEqual(ran, want) {
			t.Fatalf("ran %v, want %v (a failure does not stop later jobs; an off job never runs)", ran, want)
		}
		got := map[string]scheduled.Outcome{}
		for _, o := range rep.Jobs {
			got[o.Name] = o
		}
		if len(rep.Jobs) != 5 || got["a"].Count != 3 || got["soft"].Error != "offline" ||
			got["hard"].Error != "database down" || got["off"].Skipped != "not configured" {
			t.Fatalf("report %+v", rep)
		}
	})

	t.Run("Selection", func(t *testing.T) {
		var ran []string
		rep, err := scheduled.Run(ctx, recorder(&ran), scheduled.Event{Jobs: []string{"z", "soft"}}, quiet)
		if err != nil {
			t.Fatalf("a soft failure failed the run: %v", err)
		}
		if want := []string{"soft", "z"}; !reflect.DeepEqual(ran, want) || len(rep.Jobs) != 2 {
			t.Fatalf("ran %v (report %+v), want %v in the jobs' order", ran, rep, want)
		}
	})
}

// TestJobsOnARealDatabase runs the deployment's jobs as the scheduled
// function does, against PostgreSQL and a local stand-in for the SEC file.
func TestJobsOnARealDatabase(t *testing.T) {
	sec := markettest.NewSEC(t, markettest.TickerFile(markettest.Known))
	cfg := apitest.Config(t)
	cfg.Market.SECTickersURL = sec.FileURL()
	srv := apitest.Start(t, cfg)

	jobs := scheduled.Jobs(srv.App, &http.Client{})
	var names []string
	for _, j := range jobs {
		names = append(names, j.Name)
	}
	if want := []string{scheduled.WalletSweep, scheduled.CSVImportCleanup, scheduled.SymbolRefresh, scheduled.ImageObjectPurge, scheduled.EmailOutbox}; !reflect.DeepEqual(names, want) {
		t.Fatalf("jobs %v, want %v", names, want)
	}
	rep, err := scheduled.Run(context.Background(), jobs, scheduled.Event{}, quiet)
	if err != nil {
		t.Fatalf("run: %v (%+v)", err, rep)
	}
	for _, o := range rep.Jobs {
		if o.Error != "" {
			t.Errorf("%s: %s", o.Name, o.Error)
		}
	}
	if last := rep.Jobs[len(rep.Jobs)-1]; last.Name != scheduled.EmailOutbox || last.Skipped == "" {
		t.Errorf("email-outbox ran without email configured: %+v", last)
	}
	if sec.Calls() != 1 {
		t.Errorf("the symbol refresh fetched the ticker file %d times, want 1", sec.Calls())
	}
	var n int
	if err := srv.App.DB.QueryRow(context.Background(), `SELECT count(*) FROM symbols`).Scan(&n); err != nil || n != len(markettest.Known) {
		t.Errorf("symbols table holds %d rows (%v), want %d", n, err, len(markettest.Known))
	}
}
