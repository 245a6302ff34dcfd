package journaldays

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/auth"
	"tradejournal/shared/dayjournal"
	"tradejournal/shared/db"
	"tradejournal/shared/httpx"
	"tradejournal/shared/journal"
	"tradejournal/shared/listquery"
)

// Summary is one day of the list.
type Summary struct {
	Date     string `json:"date"`
	HasEntry bool   `json:"hasEntry"`
	Mood     *int   `json:"mood"`
	// Excerpt is the first line of the notes (else of the plan, else of
	// the review), Markdown markers at its start dropped, cut to
	// excerptChars.
	Excerpt string        `json:"excerpt"`
	Tags    []journal.Tag `json:"tags"`
	// ClosedPositions closed that day; OpenPositions were opened that day
	// and are still open (the day page's two lists).
	ClosedPositions int `json:"closedPositions"`
	OpenPositions   int `json:"openPositions"`
	// Matches are, with q, the day's notes that hold every word of it
	// (at most maxMatches); empty without q.
	Matches []Match `json:"matches"`
}

// Match is a note that matched the search, with the text around the
// first word of q.
type Match struct {
	// Field is plan, review or notes (the day's own), or position.
	Field      string  `json:"field"`
	PositionID *string `json:"positionId"`
	Symbol     *string `json:"symbol"`
	Snippet    string  `json:"snippet"`
}

// Page is one page of the list.
type Page struct {
	Items      []Summary `json:"items"`
	NextCursor *string   `json:"nextCursor"`
}

// listQuery is the list's parsed query string.
type listQuery struct {
	terms    []string // the lower-case words of q; none: no search
	from, to time.Time
	limit    int
}

// Limits of the search text.
const (
	maxQueryChars = 200
	maxQueryWords = 10
)

// parseList reads q, from, to, cursor and limit. The cursor is the last
// day of the previous page: the next page is the days before it.
func parseList(v url.Values) (listQuery, error) {
	lq := listQuery{from: dayjournal.FirstDay, to: dayjournal.LastDay}
	var p journal.Problems
	q := v.Get("q")
	switch {
	case !utf8.ValidString(q) || strings.IndexByte(q, 0) >= 0:
		p.Add("q", "must be text")
	case utf8.RuneCountInString(q) > maxQueryChars:
		p.Add("q", "must be at most 200 characters")
	default:
		lq.terms = searchTerms(q)
		if len(lq.terms) > maxQueryWords {
			p.Add("q", "must have at most 10 words")
		}
	}
	for _, d := range []struct {
		name string
		dst  *time.Time
	}{{"from", &lq.from}, {"to", &lq.to}} {
		if s := v.Get(d.name); s != "" {
			t, err := dayjournal.ParseDate(s)
			if err != nil {
				p.Add(d.name, "must be a date YYYY-MM-DD from 1900-01-01 to 2199-12-31")
				continue
			}
			*d.dst = t
		}
	}
	if lq.to.Before(lq.from) && !p.Has("from") && !p.Has("to") {
		p.Add("to", "must not be before from")
	}
	if c := v.Get("cursor"); c != "" {
		if after, ok := parseCursor(c); !ok {
			p.Merge(listquery.ErrCursor)
		} else if after.AddDate(0, 0, -1).Before(lq.to) {
			lq.to = after.AddDate(0, 0, -1)
		}
	}
	var err error
	if lq.limit, err = listquery.ParseLimit(v.Get("limit")); err != nil {
		p.Merge(err)
	}
	return lq, p.Err()
}

// encodeCursor and parseCursor make and read the opaque cursor: base64url
// of the last day's date.
func encodeCursor(date string) string { return base64.RawURLEncoding.EncodeToString([]byte(date)) }

func parseCursor(s string) (time.Time, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(raw) != len(time.DateOnly) {
		return time.Time{}, false
	}
	t, err := dayjournal.ParseDate(string(raw))
	return t, err == nil
}

// list answers GET /api/journal/days: the days with an entry or trades,
// newest first; with q, only the days with a note (the day's plan, review
// or notes, or a note of a position of that day) that holds every word of
// q, regardless of case.
func (h handler) list(w http.ResponseWriter, r *http.Request) {
	lq, err := parseList(r.URL.Query())
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	page, err := h.page(ctx, auth.CurrentUser(ctx).ID, lq)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, page)
}

func (h handler) page(ctx context.Context, userID string, lq listQuery) (Page, error) {
	tx, err := h.app.DB.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return Page{}, db.Classify(err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // read only
	var (
		rows    []dayRow
		matched map[string][]found
	)
	if len(lq.terms) == 0 {
		rows, err = days(ctx, tx, userID, lq.from, lq.to, nil, true, lq.limit+1)
	} else {
		var only []time.Time
		if matched, only, err = h.search(ctx, tx, userID, lq); err == nil && len(only) > 0 {
			// The matched days, newest first, bound the positions read.
			rows, err = days(ctx, tx, userID, only[len(only)-1], only[0], only, true, len(only))
		}
	}
	if err != nil {
		return Page{}, err
	}
	page := Page{Items: make([]Summary, 0, len(rows))}
	if len(rows) > lq.limit {
		rows = rows[:lq.limit]
		next := encodeCursor(rows[lq.limit-1].date)
		page.NextCursor = &next
	}
	if len(rows) == 0 {
		return page, nil
	}
	dates := make([]time.Time, len(rows))
	for i, d := range rows {
		dates[i], _ = time.Parse(time.DateOnly, d.date)
	}
	entries, err := h.entries(ctx, tx, userID, dates)
	if err != nil {
		return Page{}, err
	}
	tags, err := dayjournal.TagsOf(ctx, tx, userID, dates)
	if err != nil {
		return Page{}, err
	}
	for _, d := range rows {
		s := Summary{Date: d.date, HasEntry: d.entry, ClosedPositions: d.closed, OpenPositions: d.open, Tags: []journal.Tag{}, Matches: []Match{}}
		if e, ok := entries[d.date]; ok {
			s.Mood, s.Excerpt = e.mood, excerpt(e.notes, e.plan, e.review)
		}
		if t := tags[d.date]; t != nil {
			s.Tags = t
		}
		for _, f := range matched[d.date] {
			s.Matches = append(s.Matches, f.match(lq.terms[0]))
		}
		page.Items = append(page.Items, s)
	}
	return page, nil
}

// dayRow is a day with an entry or trades.
type dayRow struct {
	date         string
	closed, open int
	entry        bool
}

// Time zones are between UTC-12 and UTC+14, so the trading days from..to
// in any account's zone lie within [from - 14h, to + 1 day + 12h) in UTC:
// the bounds that let the position scans use their indexes.
const (
	maxZoneAhead  = 14 * time.Hour
	maxZoneBehind = 12 * time.Hour
)

// daysSQL lists the days of the user ($1) from $2 to $3 with an entry or
// trades: a position's day is its close's in its account's zone (as the
// statistics' byDay), or its opening's while it is open. $4 and $5 bound
// the closes in UTC, $8 and $9 the openings; $6 (if not null) keeps only
// those days; %s is the order, and $7 the limit.
const daysSQL = `SELECT to_char(day, 'YYYY-MM-DD'), sum(closed)::int, sum(open)::int, bool_or(entry) FROM (
		SELECT day, 0 AS closed, 0 AS open, true AS entry FROM journal_days WHERE user_id = $1 AND day BETWEEN $2 AND $3
		UNION ALL
		SELECT (p.closed_at AT TIME ZONE a.timezone)::date, 1, 0, false FROM positions p JOIN accounts a ON a.id = p.account_id
		WHERE p.user_id = $1 AND p.status = 'closed' AND p.closed_at >= $4 AND p.closed_at < $5
		UNION ALL
		SELECT (p.opened_at AT TIME ZONE a.timezone)::date, 0, 1, false FROM positions p JOIN accounts a ON a.id = p.account_id
		WHERE p.user_id = $1 AND p.status = 'open' AND p.opened_at >= $8 AND p.opened_at < $9
	) d WHERE day BETWEEN $2 AND $3 AND ($6::date[] IS NULL OR day = ANY($6::date[]))
	GROUP BY day ORDER BY day `

// days returns up to limit days from..to (only those of only, when not
// nil), newest first when desc, else oldest first.
func days(ctx context.Context, q db.Querier, userID string, from, to time.Time, only []time.Time, desc bool, limit int) ([]dayRow, error) {
	lo, hi := from.Add(-maxZoneAhead), to.Add(24*time.Hour+maxZoneBehind)
	closedLo, closedHi := lo, hi
	if only == nil {
		var err error
		if closedLo, closedHi, err = closeWindow(ctx, q, userID, from, to, limit, desc); err != nil {
			return nil, err
		}
	}
	order := "ASC LIMIT $7"
	if desc {
		order = "DESC LIMIT $7"
	}
	rows, err := q.Query(ctx, daysSQL+order, userID, from, to, closedLo, closedHi, only, limit, lo, hi)
	if err != nil {
		return nil, db.Classify(err)
	}
	var (
		out []dayRow
		d   dayRow
	)
	_, err = pgx.ForEachRow(rows, []any{&d.date, &d.closed, &d.open, &d.entry}, func() error {
		out = append(out, d)
		return nil
	})
	return out, db.Classify(err)
}

// A journal of years holds thousands of days with closes, and a day's
// date depends on its account's zone, which no index holds: reading them
// all to show the newest 50 costs a scan of every closed position. Instead
// closeWindow walks the closes' UTC days through the close index, one
// probe a day (a loose index scan), and narrows the closes the page reads
// to those that can fall on its days.
//
// Why 3 UTC days a day: zones lie between UTC-12 and UTC+14, so a close on
// UTC day u falls on a trading day u-1, u or u+1, and a trading day d takes
// its closes from UTC days d-1, d and d+1 at most. So the k = 3n newest UTC
// days with closes (among closes that fall on or before to) give at least
// n trading days, none before u_k - 1; every close of those n days is at
// or after u_k - 2 days. Oldest first, the mirror image.
const (
	closesDownSQL = `WITH RECURSIVE u(at) AS (
			SELECT max(closed_at) FROM positions WHERE user_id = $1 AND status = 'closed' AND closed_at >= $2 AND closed_at < $3
			UNION ALL
			SELECT (SELECT max(p.closed_at) FROM positions p WHERE p.user_id = $1 AND p.status = 'closed' AND p.closed_at >= $2
				AND p.closed_at < date_trunc('day', u.at, 'UTC'))
			FROM u WHERE u.at IS NOT NULL)
		SELECT count(*)::int, min(at) FROM (SELECT at FROM u WHERE at IS NOT NULL LIMIT $4) s`
	closesUpSQL = `WITH RECURSIVE u(at) AS (
			SELECT min(closed_at) FROM positions WHERE user_id = $1 AND status = 'closed' AND closed_at >= $2 AND closed_at < $3
			UNION ALL
			SELECT (SELECT min(p.closed_at) FROM positions p WHERE p.user_id = $1 AND p.status = 'closed' AND p.closed_at < $3
				AND p.closed_at >= date_trunc('day', u.at, 'UTC') + interval '1 day')
			FROM u WHERE u.at IS NOT NULL)
		SELECT count(*)::int, max(at) FROM (SELECT at FROM u WHERE at IS NOT NULL LIMIT $4) s`
)

// closeWindow returns the UTC bounds of the closes that can fall on the n
// newest (desc) or oldest trading days with closes from..to.
func closeWindow(ctx context.Context, q db.Querier, userID string, from, to time.Time, n int, desc bool) (lo, hi time.Time, err error) {
	lo, hi = from.Add(-maxZoneAhead), to.Add(24*time.Hour+maxZoneBehind)
	k := 3 * n
	var (
		found int
		edge  *time.Time
	)
	if desc {
		// Closes before to + 1 day - 14h fall on or before to in any zone.
		err = q.QueryRow(ctx, closesDownSQL, userID, lo, to.Add(24*time.Hour-maxZoneAhead), k).Scan(&found, &edge)
	} else {
		// Closes from from + 12h on fall on or after from in any zone.
		err = q.QueryRow(ctx, closesUpSQL, userID, from.Add(maxZoneBehind), hi, k).Scan(&found, &edge)
	}
	if err != nil || found < k || edge == nil {
		return lo, hi, db.Classify(err)
	}
	day := edge.UTC().Truncate(24 * time.Hour)
	if desc {
		lo = later(lo, day.AddDate(0, 0, -2))
	} else {
		hi = earlier(hi, day.AddDate(0, 0, 3))
	}
	return lo, hi, nil
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// neighbourSpan bounds how far the day page looks for the previous and
// the next day with an entry or trades.
const neighbourSpan = 366

// neighbours returns the nearest days before and after day that have an
// entry or trades, within neighbourSpan days.
func neighbours(ctx context.Context, q db.Querier, userID string, day time.Time) (prev, next *string, err error) {
	lo := later(day.AddDate(0, 0, -neighbourSpan), dayjournal.FirstDay)
	hi := earlier(day.AddDate(0, 0, neighbourSpan), dayjournal.LastDay)
	for _, n := range []struct {
		from, to time.Time
		desc     bool
		dst      **string
	}{{lo, day.AddDate(0, 0, -1), true, &prev}, {day.AddDate(0, 0, 1), hi, false, &next}} {
		if n.to.Before(n.from) {
			continue
		}
		rows, err := days(ctx, q, userID, n.from, n.to, nil, n.desc, 1)
		if err != nil {
			return nil, nil, err
		}
		if len(rows) == 1 {
			*n.dst = &rows[0].date
		}
	}
	return prev, next, nil
}

// entry is the part of a day's entry the list shows.
type entry struct {
	plan, review, notes string
	mood                *int
}

// entries reads and opens the entries of the given days.
func (h handler) entries(ctx context.Context, q db.Querier, userID string, dates []time.Time) (map[string]entry, error) {
	const sel = `SELECT to_char(day, 'YYYY-MM-DD'), plan, review, notes, mood FROM journal_days WHERE user_id = $1 AND day = ANY($2::date[])`
	rows, err := q.Query(ctx, sel, userID, dates)
	if err != nil {
		return nil, db.Classify(err)
	}
	out := map[string]entry{}
	var (
		date   string
		sealed [3]string
		mood   *int
	)
	_, err = pgx.ForEachRow(rows, []any{&date, &sealed[0], &sealed[1], &sealed[2], &mood}, func() error {
		e := entry{mood: mood}
		var err error
		if e.plan, e.review, e.notes, err = h.store.Open(sealed); err != nil {
			return err
		}
		out[date] = e
		return nil
	})
	return out, db.Classify(err)
}

// byNewest sorts dates (YYYY-MM-DD) newest first.
func byNewest(dates []string) {
	slices.SortFunc(dates, func(a, b string) int { return strings.Compare(b, a) })
}

// excerptChars bounds a list line.
const excerptChars = 140

// excerpt is the first non-blank line of the first non-blank text, with
// the Markdown markers at its start (headings, quotes, list bullets)
// dropped and cut to excerptChars.
func excerpt(texts ...string) string {
	for _, t := range texts {
		for line := range strings.Lines(t) {
			line = strings.TrimLeft(strings.TrimSpace(line), "#>*-+ \t")
			if line != "" {
				return cut(line, excerptChars)
			}
		}
	}
	return ""
}

// cut shortens s to at most n characters, ending in "…" when it cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
