package journaldays

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/db"
	"tradejournal/shared/encrypt"
)

// The search reads every note in the range and opens it in Go: notes are
// sealed at rest when ENCRYPTION_KEY is set, so PostgreSQL cannot look
// inside them, and one code path serves both. BenchmarkSearch measures it
// on a large journal (docs/journal.md has the figure).

// searchTerms are the words of q, lower case.
func searchTerms(q string) []string { return strings.Fields(strings.ToLower(q)) }

// maxMatches bounds the notes a day of the result shows.
const maxMatches = 5

// found is a note that matched, kept until its day is on the page.
type found struct {
	field              string // plan, review, notes or position
	positionID, symbol string
	text               string
}

// match is the note as the list shows it: its snippet around first (the
// first word of q).
func (f found) match(first string) Match {
	m := Match{Field: f.field, Snippet: snippet(f.text, first)}
	if f.field == "position" {
		m.PositionID, m.Symbol = &f.positionID, &f.symbol
	}
	return m
}

// search finds the days from lq.from to lq.to with a note that holds every
// term: the day's own plan, review and notes, and the notes of the
// positions of that day (closed that day, or opened that day and still
// open). It returns each matched day's notes (at most maxMatches) and the
// matched days of the page and one more, newest first.
func (h handler) search(ctx context.Context, q db.Querier, userID string, lq listQuery) (map[string][]found, []time.Time, error) {
	matched := map[string][]found{}
	add := func(date string, f found) {
		if len(matched[date]) < maxMatches {
			matched[date] = append(matched[date], f)
		}
	}
	const daysSel = `SELECT to_char(day, 'YYYY-MM-DD'), plan, review, notes FROM journal_days
		WHERE user_id = $1 AND day BETWEEN $2 AND $3`
	rows, err := q.Query(ctx, daysSel, userID, lq.from, lq.to)
	if err != nil {
		return nil, nil, db.Classify(err)
	}
	var (
		date   string
		sealed [3]string
	)
	_, err = pgx.ForEachRow(rows, []any{&date, &sealed[0], &sealed[1], &sealed[2]}, func() error {
		plan, review, notes, err := h.store.Open(sealed)
		if err != nil {
			return err
		}
		for _, f := range []found{{field: "plan", text: plan}, {field: "review", text: review}, {field: "notes", text: notes}} {
			if holdsAll(f.text, lq.terms) {
				add(date, f)
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, db.Classify(err)
	}
	// A position's day as daysSQL reads it; drafts have none. The UTC
	// bounds let a narrow range read only its positions (through the
	// indexes of closes and of open positions); the day itself is tested
	// here. Unordered: the matches are sorted, not the journal.
	const positionsSel = `SELECT to_char(((CASE WHEN p.status = 'closed' THEN p.closed_at ELSE p.opened_at END)
			AT TIME ZONE a.timezone)::date, 'YYYY-MM-DD'), p.id::text, p.symbol, p.notes
		FROM positions p JOIN accounts a ON a.id = p.account_id
		WHERE p.user_id = $1 AND p.notes <> ''
			AND (p.status = 'closed' AND p.closed_at >= $2 AND p.closed_at < $3 OR p.status = 'open' AND p.opened_at >= $2 AND p.opened_at < $3)`
	from, to := dateOf(lq.from), dateOf(lq.to)
	if rows, err = q.Query(ctx, positionsSel, userID, lq.from.Add(-maxZoneAhead), lq.to.Add(24*time.Hour+maxZoneBehind)); err != nil {
		return nil, nil, db.Classify(err)
	}
	var f found
	positions := map[string][]found{}
	_, err = pgx.ForEachRow(rows, []any{&date, &f.positionID, &f.symbol, &sealed[0]}, func() error {
		if date < from || date > to {
			return nil
		}
		text, err := h.app.Keyring.Open(encrypt.PositionNotes, sealed[0])
		if err != nil {
			return err
		}
		if holdsAll(text, lq.terms) {
			positions[date] = append(positions[date], found{field: "position", positionID: f.positionID, symbol: f.symbol, text: text})
		}
		return nil
	})
	if err != nil {
		return nil, nil, db.Classify(err)
	}
	for date, fs := range positions {
		slices.SortFunc(fs, func(a, b found) int {
			return cmp.Or(strings.Compare(a.symbol, b.symbol), strings.Compare(a.positionID, b.positionID))
		})
		for _, f := range fs {
			add(date, f)
		}
	}
	dates := slices.Collect(maps.Keys(matched))
	byNewest(dates)
	dates = dates[:min(len(dates), lq.limit+1)]
	out := make([]time.Time, len(dates))
	for i, d := range dates {
		out[i], _ = time.Parse(time.DateOnly, d)
	}
	return matched, out, nil
}

// holdsAll reports whether text holds every term (lower case), regardless
// of case.
func holdsAll(text string, terms []string) bool {
	if text == "" {
		return false
	}
	lower := strings.ToLower(text)
	for _, t := range terms {
		if !strings.Contains(lower, t) {
			return false
		}
	}
	return true
}

// A snippet shows up to snippetBefore characters before the first match
// and snippetChars in all.
const (
	snippetBefore = 40
	snippetChars  = 160
)

// snippet is the text around the first place term (lower case) occurs in
// text, on one line, "…" where it was cut; the start of text when term is
// not found.
func snippet(text, term string) string {
	at := max(indexFold(text, term), 0)
	start := at
	for n := 0; n < snippetBefore && start > 0; n++ {
		_, size := utf8.DecodeLastRuneInString(text[:start])
		start -= size
	}
	end := start
	for n := 0; n < snippetChars && end < len(text); n++ {
		_, size := utf8.DecodeRuneInString(text[end:])
		end += size
	}
	s := strings.Join(strings.Fields(text[start:end]), " ")
	if start > 0 {
		s = "…" + s
	}
	if end < len(text) {
		s += "…"
	}
	return s
}

// indexFold is the byte index in s of the first place where term (lower
// case, as strings.ToLower made it) occurs regardless of case, or -1. It
// compares rune by rune in s itself, so the index is s's even where a
// lower-case letter is longer or shorter in UTF-8 than its capital.
func indexFold(s, term string) int {
	if term == "" {
		return -1
	}
	for i := 0; i < len(s); {
		if hasPrefixFold(s[i:], term) {
			return i
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		i += n
	}
	return -1
}

func hasPrefixFold(s, prefix string) bool {
	for _, pr := range prefix {
		if s == "" {
			return false
		}
		r, n := utf8.DecodeRuneInString(s)
		if unicode.ToLower(r) != pr {
			return false
		}
		s = s[n:]
	}
	return true
}
