package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tradejournal/shared/apitest"
	"tradejournal/shared/jobs"
	"tradejournal/shared/market/markettest"
	"tradejournal/shared/testbin"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// recorder returns jobs that note their runs in ran.
func recorder(ran *[]string) []jobs.Job {
	job := func(name string, n int, err error, soft bool) jobs.Job {
		return jobs.Job{Name: name, Soft: soft, Run: func(context.Context) (int, error) {
			*ran = append(*ran, name)
			return n, err
		}}
	}
	return []jobs.Job{
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
		_, err := jobs.Run(ctx, recorder(&ran), jobs.Event{Jobs: []string{"a", "nope"}}, quiet)
		if err == nil || !strings.Contains(err.Error(), `unknown job "nope"`) {
			t.Fatalf("err = %v, want unknown job", err)
		}
		if len(ran) != 0 {
			t.Fatalf("ran %v before refusing", ran)
		}
	})

	t.Run("EmptyEventRunsAllAndReportsEach", func(t *testing.T) {
		var ran []string
		rep, err := jobs.Run(ctx, recorder(&ran), jobs.Event{}, quiet)
		if err == nil || !strings.Contains(err.Error(), "hard: database down") || strings.Contains(err.Error(), "offline") {
			t.Fatalf("err = %v, want only the hard job's failure", err)
		}
		if want := []string{"a", "soft", "hard", "z"}; !reflect.DeepEqual(ran, want) {
			t.Fatalf("ran %v, want %v (a failure does not stop later jobs; an off job never runs)", ran, want)
		}
		got := map[string]jobs.Outcome{}
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
		rep, err := jobs.Run(ctx, recorder(&ran), jobs.Event{Jobs: []string{"z", "soft"}}, quiet)
		if err != nil {
			t.Fatalf("a soft failure failed the run: %v", err)
		}
		if want := []string{"soft", "z"}; !reflect.DeepEqual(ran, want) || len(rep.Jobs) != 2 {
			t.Fatalf("ran %v (report %+v), want %v in the jobs' order", ran, rep, want)
		}
	})
}

// TestJobsOnARealDatabase runs the deployment's jobs once as the scheduled
// function does, against PostgreSQL and a local stand-in for the SEC file.
func TestJobsOnARealDatabase(t *testing.T) {
	sec := markettest.NewSEC(t, markettest.TickerFile(markettest.Known))
	cfg := apitest.Config(t)
	cfg.Market.SECTickersURL = sec.FileURL()
	srv := apitest.Start(t, cfg, nil)

	list := jobs.List(srv.App, &http.Client{})
	var names []string
	for _, j := range list {
		names = append(names, j.Name)
	}
	if want := []string{jobs.WalletSweep, jobs.CSVImportCleanup, jobs.SymbolRefresh, jobs.OptionExpiry, jobs.ExpenseCharges, jobs.BrokerSync, jobs.BarExcursions, jobs.ImageObjectPurge, jobs.EmailOutbox}; !reflect.DeepEqual(names, want) {
		t.Fatalf("jobs %v, want %v", names, want)
	}
	rep, err := jobs.Run(context.Background(), list, jobs.Event{}, quiet)
	if err != nil {
		t.Fatalf("run: %v (%+v)", err, rep)
	}
	for _, o := range rep.Jobs {
		if o.Error != "" {
			t.Errorf("%s: %s", o.Name, o.Error)
		}
	}
	if last := rep.Jobs[len(rep.Jobs)-1]; last.Name != jobs.EmailOutbox || last.Skipped == "" {
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

// logs is a JSON log kept for a test to count its lines by level.
type logs struct{ testbin.SyncBuffer }

// count is how many lines of level were logged.
func (l *logs) count(level string) int {
	return strings.Count(l.String(), `"level":"`+level+`"`)
}

func newLogger() (*slog.Logger, *logs) {
	l := &logs{}
	return slog.New(slog.NewJSONHandler(l, nil)), l
}

// waitFor polls cond for up to five seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// counter is a job that counts its runs and fails with err.
type counter struct {
	n   atomic.Int32
	err error
}

func (c *counter) run(context.Context) (int, error) {
	c.n.Add(1)
	return 0, c.err
}

func TestStart(t *testing.T) {
	log, out := newLogger()
	var ticking, hard, soft, final, off counter
	hard.err, soft.err = errors.New("database down"), errors.New("offline")
	final.err = fmt.Errorf("refused: %w", errStop)
	wake := make(chan struct{}, 1)
	var woken counter
	stop := jobs.Start(context.Background(), []jobs.Job{
		{Name: "ticking", Every: 10 * time.Millisecond, Run: ticking.run},
		{Name: "hard", Every: time.Hour, Run: hard.run},
		{Name: "soft", Every: time.Hour, Soft: true, Run: soft.run},
		{Name: "final", Every: 10 * time.Millisecond, StopOn: errStop, Run: final.run},
		{Name: "off", Every: 10 * time.Millisecond, Off: "not configured", Run: off.run},
		{Name: "woken", Every: time.Hour, Wake: wake, Run: woken.run},
	}, log)
	waitFor(t, "every job's first run", func() bool {
		return hard.n.Load() == 1 && soft.n.Load() == 1 && final.n.Load() == 1 && woken.n.Load() == 1
	})
	waitFor(t, "the ticking job's third run", func() bool { return ticking.n.Load() >= 3 })
	wake <- struct{}{}
	waitFor(t, "the woken job's second run", func() bool { return woken.n.Load() == 2 })
	time.Sleep(50 * time.Millisecond) // the final job's loop would have ticked five times
	stopped := make(chan struct{})
	go func() { stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("stop did not return")
	}
	after := ticking.n.Load()
	time.Sleep(30 * time.Millisecond)
	if ticking.n.Load() != after {
		t.Error("a job ran after stop returned")
	}
	if final.n.Load() != 1 || off.n.Load() != 0 || hard.n.Load() != 1 {
		t.Errorf("final ran %d times (want 1: its StopOn error ends it), off %d (want 0), hard %d (want 1 within its hour)",
			final.n.Load(), off.n.Load(), hard.n.Load())
	}
	// The hard failure is one warning naming the job; the soft one logs its
	// own and the runner adds nothing.
	if out.count("WARN") != 1 || !strings.Contains(out.String(), `"job":"hard"`) || out.count("ERROR") != 0 {
		t.Errorf("want one warning for the hard job:\n%s", out)
	}
}

var errStop = errors.New("stop")

// symbolJob is the deployment's symbol-refresh job with the SEC file at url.
func symbolJob(t *testing.T, url, userAgent string, log *slog.Logger) (jobs.Job, *apitest.Server) {
	t.Helper()
	cfg := apitest.Config(t)
	cfg.Market.SECTickersURL = url
	if userAgent != "" {
		cfg.Market.SECUserAgent = userAgent
	}
	srv := apitest.StartLogged(t, cfg, log, nil)
	for _, j := range jobs.List(srv.App, nil) {
		if j.Name == jobs.SymbolRefresh {
			j.Every = 10 * time.Millisecond // the loop would ask every ten milliseconds
			return j, srv
		}
	}
	t.Fatal("no symbol-refresh job")
	return jobs.Job{}, nil
}

// TestStartSymbolRefresh: the symbol refresh in the long-lived host loads
// the table once a day however often it is asked, warns (never errs) when
// offline, says once that a refused SEC_USER_AGENT stops it, and logs
// nothing when the host stops during a fetch.
func TestStartSymbolRefresh(t *testing.T) {
	t.Run("LoadsOnce", func(t *testing.T) {
		sec := markettest.NewSEC(t, markettest.TickerFile(markettest.Known))
		log, out := newLogger()
		j, srv := symbolJob(t, sec.FileURL(), "", log)
		stop := jobs.Start(context.Background(), []jobs.Job{j}, log)
		waitFor(t, "the table", func() bool {
			var n int
			_ = srv.App.DB.QueryRow(context.Background(), `SELECT count(*) FROM symbols`).Scan(&n)
			return n == len(markettest.Known)
		})
		time.Sleep(50 * time.Millisecond)
		stop()
		if sec.Calls() != 1 || out.count("WARN")+out.count("ERROR") != 0 {
			t.Fatalf("%d calls (want 1: the check is daily):\n%s", sec.Calls(), out)
		}
	})
	t.Run("OfflineWarnsOnly", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		closed := "http://" + ln.Addr().String() + "/files/company_tickers_exchange.json"
		ln.Close()
		log, out := newLogger()
		j, _ := symbolJob(t, closed, "", log)
		stop := jobs.Start(context.Background(), []jobs.Job{j}, log)
		waitFor(t, "a warning", func() bool { return out.count("WARN") > 0 })
		time.Sleep(50 * time.Millisecond) // the retry waits an hour, however often the loop asks
		stop()
		if out.count("WARN") != 1 || out.count("ERROR") != 0 {
			t.Fatalf("want one warning, no error:\n%s", out)
		}
	})
	t.Run("RefusedUserAgentReportsOnce", func(t *testing.T) {
		sec := markettest.NewSEC(t, markettest.TickerFile(markettest.Known))
		log, out := newLogger()
		j, _ := symbolJob(t, sec.FileURL(), "TradeJournal jane.doe@acme.test https://github.com/acme/tradejournal", log)
		stop := jobs.Start(context.Background(), []jobs.Job{j}, log)
		waitFor(t, "the error", func() bool { return out.count("ERROR") > 0 })
		time.Sleep(50 * time.Millisecond)
		stop()
		if out.count("ERROR") != 1 || sec.Calls() != 0 {
			t.Fatalf("errors %d, calls %d:\n%s", out.count("ERROR"), sec.Calls(), out)
		}
	})
	t.Run("StopDuringFetchLogsNothing", func(t *testing.T) {
		entered := make(chan struct{})
		release := make(chan struct{})
		defer close(release)
		var once sync.Once
		slow := markettest.NewProvider(t, func(w http.ResponseWriter, r *http.Request) {
			once.Do(func() { close(entered) })
			select {
			case <-release:
			case <-r.Context().Done():
			}
		})
		log, out := newLogger()
		j, _ := symbolJob(t, slow.URL, "", log)
		stop := jobs.Start(context.Background(), []jobs.Job{j}, log)
		<-entered
		stop()
		if out.count("WARN")+out.count("ERROR") != 0 {
			t.Fatalf("shutdown logged:\n%s", out)
		}
	})
}
