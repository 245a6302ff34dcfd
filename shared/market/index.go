package market

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/db"
)

// MaxResults is the most a symbol search answers.
const MaxResults = 20

// DefaultCheckEvery is how often an Index asks PostgreSQL whether the
// symbol table was replaced. The question is one primary-key read; the
// reload (about 10,000 rows) happens only when the answer changed.
const DefaultCheckEvery = 10 * time.Second

// Index answers symbol searches from memory. It loads the symbols table on
// first use and reloads it when the table's generation (symbol_refresh) has
// moved, which it checks at most every CheckEvery. A refresh run by another
// process (the daily scheduled function, another instance) is therefore
// picked up within CheckEvery, without any signal between processes.
//
// Search over the full table takes microseconds; see BenchmarkSearch and the
// README's "Market data" section for the figures and why this beats asking
// PostgreSQL on every keystroke.
type Index struct {
	db  db.Querier
	now func() time.Time
	// CheckEvery bounds how stale the index may be; 0 checks on every search.
	CheckEvery time.Duration

	mu   sync.Mutex // one load or check at a time
	snap atomic.Pointer[snapshot]
}

// NewIndex returns an index over the symbols table reached through q.
func NewIndex(q db.Querier, now func() time.Time) *Index {
	return &Index{db: q, now: now, CheckEvery: DefaultCheckEvery}
}

// Search answers at most MaxResults symbols for q, best first: an exact
// ticker, then tickers starting with q, then companies with a word of their
// name starting with q; case-insensitive. Within a tier the SEC file's
// order holds (it lists the largest companies first). In tickers '.' and '-'
// are the same character (BRK.B finds BRK-B); in names punctuation separates
// words and apostrophes are ignored (at&t finds AT&T, mcdonalds finds
// McDonald's). An empty table (never refreshed, or a refused
// SEC_USER_AGENT) answers an empty list.
func (x *Index) Search(ctx context.Context, q string) ([]Symbol, error) {
	s, err := x.current(ctx)
	if err != nil {
		return nil, err
	}
	return s.search(q, MaxResults), nil
}

// Len is the number of symbols of the loaded table (loading it if needed).
func (x *Index) Len(ctx context.Context) (int, error) {
	s, err := x.current(ctx)
	if err != nil {
		return 0, err
	}
	return len(s.symbols), nil
}

// current returns a snapshot no older than CheckEvery (see fresh), when it
// can. While one caller checks or reloads, the others keep answering from
// the snapshot they have; only the very first load makes callers wait. A
// failed check keeps the old snapshot (the database may come back).
func (x *Index) current(ctx context.Context) (*snapshot, error) {
	s := x.snap.Load()
	if s.fresh(x.now(), x.CheckEvery) {
		return s, nil
	}
	if s != nil {
		if !x.mu.TryLock() {
			return s, nil
		}
	} else {
		x.mu.Lock()
	}
	defer x.mu.Unlock()
	if s = x.snap.Load(); s.fresh(x.now(), x.CheckEvery) {
		return s, nil // another caller refreshed it while this one waited
	}
	checkedAt := x.now()
	gen, err := generation(ctx, x.db)
	switch {
	case err != nil && s != nil:
		return s.checked(checkedAt, x), nil
	case err != nil:
		return nil, db.Classify(err)
	case s != nil && gen == s.generation:
		return s.checked(checkedAt, x), nil
	}
	symbols, err := loadSymbols(ctx, x.db)
	if err != nil {
		if s != nil {
			return s.checked(checkedAt, x), nil
		}
		return nil, db.Classify(err)
	}
	next := build(symbols)
	next.generation, next.checkedAt = gen, checkedAt
	x.snap.Store(next)
	return next, nil
}

// checked stores and returns a copy of s stamped as checked at t: after a
// check that found nothing new, or that failed (the database is asked again
// after CheckEvery, not on every search while it is down).
func (s *snapshot) checked(t time.Time, x *Index) *snapshot {
	next := *s
	next.checkedAt = t
	x.snap.Store(&next)
	return &next
}

func generation(ctx context.Context, q db.Querier) (int64, error) {
	var gen int64
	err := q.QueryRow(ctx, `SELECT generation FROM symbol_refresh`).Scan(&gen)
	return gen, err
}

// loadSymbols reads the table in the SEC file's order.
func loadSymbols(ctx context.Context, q db.Querier) ([]Symbol, error) {
	rows, err := q.Query(ctx, `SELECT ticker, name, exchange, cik FROM symbols ORDER BY rank, ticker`)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Symbol, error) {
		var s Symbol
		err := row.Scan(&s.Ticker, &s.Name, &s.Exchange, &s.CIK)
		return s, err
	})
	if err != nil {
		return nil, fmt.Errorf("load symbols: %w", err)
	}
	return out, nil
}

// snapshot is one immutable load of the table. symbols are in rank order,
// so a smaller index is a better rank.
type snapshot struct {
	generation int64
	checkedAt  time.Time
	symbols    []Symbol
	// tickers are (normalised ticker, symbol index), sorted by ticker.
	tickers []key
	// words are (normalised name from a word start on, symbol index),
	// sorted by text: a name prefix search is a binary search.
	words []key
}

// fresh reports whether s may answer without asking PostgreSQL. An empty
// table is always re-checked (one primary-key read), so a new instance
// serves the symbols as soon as its first refresh commits.
func (s *snapshot) fresh(now time.Time, every time.Duration) bool {
	return s != nil && len(s.symbols) > 0 && now.Sub(s.checkedAt) < every
}

type key struct {
	text string
	sym  int32
}

// build indexes symbols (already in rank order).
func build(symbols []Symbol) *snapshot {
	s := &snapshot{symbols: symbols, tickers: make([]key, len(symbols))}
	for i, sym := range symbols {
		s.tickers[i] = key{tickerKey(sym.Ticker), int32(i)}
		name := nameKey(sym.Name)
		for j := 0; j < len(name); j++ {
			if j == 0 || name[j-1] == ' ' {
				s.words = append(s.words, key{name[j:], int32(i)})
			}
		}
	}
	byText := func(keys []key) func(a, b int) bool {
		return func(a, b int) bool {
			if keys[a].text != keys[b].text {
				return keys[a].text < keys[b].text
			}
			return keys[a].sym < keys[b].sym
		}
	}
	sort.Slice(s.tickers, byText(s.tickers))
	sort.Slice(s.words, byText(s.words))
	return s
}

// tickerKey uppercases and makes '.' and '-' the same character.
func tickerKey(t string) string {
	return strings.ReplaceAll(strings.ToUpper(strings.TrimSpace(t)), ".", "-")
}

// nameKey lowercases a name, drops apostrophes and turns every run of other
// non-alphanumeric characters into one space: "AT&T Inc." becomes "at t inc".
func nameKey(name string) string {
	var b strings.Builder
	b.Grow(len(name))
	space := false
	for _, r := range name {
		switch {
		case r == '\'' || r == '’':
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
		default:
			space = true
		}
	}
	return b.String()
}

// prefixRange returns the half-open range of keys whose text starts with p.
func prefixRange(keys []key, p string) (lo, hi int) {
	lo = sort.Search(len(keys), func(i int) bool { return keys[i].text >= p })
	hi = lo + sort.Search(len(keys)-lo, func(i int) bool { return !strings.HasPrefix(keys[lo+i].text, p) })
	return lo, hi
}

func (s *snapshot) search(q string, limit int) []Symbol {
	picked := make([]int32, 0, limit)
	taken := func(i int32) bool {
		for _, p := range picked {
			if p == i {
				return true
			}
		}
		return false
	}

	// Exact tickers, then ticker prefixes: both come from one range.
	if tq := tickerKey(q); tq != "" {
		lo, hi := prefixRange(s.tickers, tq)
		for i := lo; i < hi && s.tickers[i].text == tq && len(picked) < limit; i++ {
			picked = append(picked, s.tickers[i].sym)
		}
		picked = append(picked, best(s.tickers[lo:hi], limit-len(picked), taken)...)
	}
	// Names with a word starting with q.
	if nq := nameKey(q); nq != "" && len(picked) < limit {
		lo, hi := prefixRange(s.words, nq)
		picked = append(picked, best(s.words[lo:hi], limit-len(picked), taken)...)
	}

	out := make([]Symbol, len(picked))
	for i, p := range picked {
		out[i] = s.symbols[p]
	}
	return out
}

// best returns up to n distinct symbol indices of keys, the best ranked
// (smallest) first, skipping those already taken. It keeps a sorted buffer
// of at most n, so a range of thousands costs one pass and no sort of it.
func best(keys []key, n int, taken func(int32) bool) []int32 {
	if n <= 0 {
		return nil
	}
	buf := make([]int32, 0, n)
	for _, k := range keys {
		if len(buf) == n && k.sym >= buf[n-1] {
			continue
		}
		at := sort.Search(len(buf), func(i int) bool { return buf[i] >= k.sym })
		if at < len(buf) && buf[at] == k.sym || taken(k.sym) {
			continue
		}
		if len(buf) < n {
			buf = append(buf, 0)
		}
		copy(buf[at+1:], buf[at:len(buf)-1])
		buf[at] = k.sym
	}
	return buf
}
