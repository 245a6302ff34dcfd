package journaldays_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/encrypt"
	"tradejournal/shared/journal/journaltest"
)

// largeJournal is a large journal behind a running API with ENCRYPTION_KEY
// set: journaltest's 100,000 closed positions (about 4.75 years), every
// one with notes of 150 to 250 characters, and an entry (plan, review and
// notes) for each of its trading days, all sealed.
type largeJournal struct {
	srv       *apitest.Server
	handler   http.Handler
	cookie    *http.Cookie
	positions int
	days      int
	middle    string // a day in the middle of the journal
}

// notesWords make the seeded notes: position i's notes cycle through them,
// and one position in 10,000 says "zebra" (a rare word).
var notesWords = strings.Fields(`waited for the pullback to VWAP then entered on the reclaim, sized down after two losers,
	scaled out into strength, moved the stop to break even, chased the open and paid for it, the plan said wait for the
	retest, gap and go above premarket high, faded the first push, volume dried up at the highs, news caught me off guard`)

func seedLarge(tb testing.TB) largeJournal {
	tb.Helper()
	cfg := apitest.Config(tb)
	cfg.Encryption.Key = bytes.Repeat([]byte{7}, 32)
	srv := apitest.Start(tb, cfg, functions.All)
	c := srv.Client(tb)
	r := c.Register("large@example.com", "password1")
	userID := r.JSON["user"].(map[string]any)["id"].(string)
	var opt journaltest.Options
	if n, err := strconv.Atoi(os.Getenv("TJ_SPEED_POSITIONS")); err == nil {
		opt.Positions = n // a smaller set for a quick look
	}
	start := time.Now()
	ds, err := journaltest.Seed(context.Background(), srv.App.DB, userID, opt)
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	k := srv.App.Keyring
	// Notes for every position, and an entry for every day with a close.
	err = pgxTx(ctx, srv, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT id::text FROM positions WHERE user_id = $1 ORDER BY opened_at`, userID)
		if err != nil {
			return err
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		notes := make([][]any, len(ids))
		for i, id := range ids {
			text := seededText(i, 150+i%100)
			if i%10_000 == 5_000 {
				text += " zebra crossing"
			}
			notes[i] = []any{id, k.Seal(encrypt.PositionNotes, text)}
		}
		if _, err := tx.Exec(ctx, `CREATE TEMP TABLE seeded_notes (id uuid, notes text) ON COMMIT DROP`); err != nil {
			return err
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"seeded_notes"}, []string{"id", "notes"}, pgx.CopyFromRows(notes)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE positions p SET notes = s.notes FROM seeded_notes s WHERE p.id = s.id`); err != nil {
			return err
		}
		rows, err = tx.Query(ctx, `SELECT DISTINCT (closed_at AT TIME ZONE 'America/New_York')::date FROM positions WHERE user_id = $1`, userID)
		if err != nil {
			return err
		}
		days, err := pgx.CollectRows(rows, pgx.RowTo[time.Time])
		if err != nil {
			return err
		}
		entries := make([][]any, len(days))
		for i, d := range days {
			entries[i] = []any{userID, d, k.Seal(encrypt.JournalDayPlans, seededText(i, 300)), k.Seal(encrypt.JournalDayReviews, seededText(i+3, 300)),
				k.Seal(encrypt.JournalDayNotes, seededText(i+7, 600))}
		}
		_, err = tx.CopyFrom(ctx, pgx.Identifier{"journal_days"}, []string{"user_id", "day", "plan", "review", "notes"}, pgx.CopyFromRows(entries))
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := srv.App.DB.Exec(ctx, `ANALYZE positions, journal_days`); err != nil {
		tb.Fatal(err)
	}
	var (
		days   int
		middle string
	)
	const q = `SELECT count(*), to_char(percentile_disc(0.5) WITHIN GROUP (ORDER BY day), 'YYYY-MM-DD') FROM journal_days`
	if err := srv.App.DB.QueryRow(ctx, q).Scan(&days, &middle); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("seeded %d positions with notes and %d journal days in %s", ds.Positions, days, time.Since(start).Round(time.Millisecond))
	cookies := (&http.Response{Header: r.Header}).Cookies()
	return largeJournal{srv: srv, handler: apitest.Handler(srv.App, functions.All), cookie: cookies[0], positions: ds.Positions, days: days, middle: middle}
}

func pgxTx(ctx context.Context, srv *apitest.Server, fn func(pgx.Tx) error) error {
	tx, err := srv.App.DB.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op after Commit
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// seededText is about n characters of notesWords from word i on.
func seededText(i, n int) string {
	var b strings.Builder
	for w := i; b.Len() < n; w++ {
		b.WriteString(notesWords[w%len(notesWords)])
		b.WriteByte(' ')
	}
	return b.String()
}

// get serves one request in-process: the route's server time, session
// check included.
func (l largeJournal) get(tb testing.TB, path string) string {
	req := httptest.NewRequest("GET", path, nil)
	req.AddCookie(l.cookie)
	rec := httptest.NewRecorder()
	l.handler.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		tb.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body.String())
	}
	return rec.Body.String()
}

// BenchmarkJournalDays reports the median and p95 server time of the days
// list, its search and a day page on the large journal (every note sealed),
// for docs/journal.md. It seeds for about half a minute:
//
//	go test -run '^$' -bench JournalDays -benchtime 1x -v ./functions/journaldays/
func BenchmarkJournalDays(b *testing.B) {
	l := seedLarge(b)
	const runs = 20
	var report strings.Builder
	fmt.Fprintf(&report, "\n%d positions with notes, %d journal days, all sealed\n%-22s %8s %8s  (server time of %d requests each, ms)\n",
		l.positions, l.days, "request", "p50", "p95", runs)
	for _, c := range []struct{ name, path, want string }{
		{"list, first page", "/api/journal/days", `"items":[{`},
		{"day page", "/api/journal/days/" + l.middle, `"previousDate":"2`},
		{"search, rare word", "/api/journal/days?q=zebra", `"field":"position"`},
		{"search, two words", "/api/journal/days?q=" + url.QueryEscape("chased open"), `"matches":[{`},
		{"search, no match", "/api/journal/days?q=nowhere", `"items":[]`},
		{"search, one month", "/api/journal/days?q=vwap&from=" + l.middle[:8] + "01&to=" + l.middle[:8] + "28", `"matches":[{`},
	} {
		times := make([]time.Duration, runs)
		for i := range times {
			start := time.Now()
			body := l.get(b, c.path)
			times[i] = time.Since(start)
			if i == 0 && !strings.Contains(body, c.want) {
				b.Fatalf("%s: %.300s", c.name, body)
			}
		}
		slices.Sort(times)
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		fmt.Fprintf(&report, "%-22s %8.1f %8.1f\n", c.name, ms(times[runs/2]), ms(times[runs*95/100]))
	}
	b.Log(report.String())
}
