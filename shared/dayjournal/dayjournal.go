// Package dayjournal is the daily journal: one entry per user and trading
// day, with a pre-market plan, a review and free notes (Markdown source,
// which the web renders without raw HTML), a mood and day tags of the
// user's own. It validates entries, seals their texts at rest
// (encrypt.JournalDay*, when ENCRYPTION_KEY is set) and owns every read
// and write of the journal_days tables: functions/journaldays serves it,
// functions/backup carries it in the archive and back.
//
// A day is a calendar date read the way the statistics' byDay and the
// positions list's dateBy=closed read one: a position's trading day in its
// account's zone. The entry itself is just the date.
package dayjournal

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
	"tradejournal/shared/encrypt"
	"tradejournal/shared/journal"
	"tradejournal/shared/journalstore"
)

// Limits of an entry.
const (
	MaxTextChars = journal.MaxNotesChars // each of plan, review and notes, as a position's notes
	MinMood      = 1                     // awful
	MaxMood      = 5                     // great
)

// The days a journal takes (the column's CHECK): wide enough for any
// trading history and any plan ahead, narrow enough that no date
// arithmetic on them leaves PostgreSQL's range.
var (
	FirstDay = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)
	LastDay  = time.Date(2199, 12, 31, 0, 0, 0, 0, time.UTC)
)

// ErrDate answers a date that is not a journal day.
var ErrDate = apperr.Invalid("date", "must be a date YYYY-MM-DD from 1900-01-01 to 2199-12-31")

// ParseDate reads a journal day, YYYY-MM-DD from FirstDay to LastDay
// (midnight UTC carrying the date); anything else is ErrDate.
func ParseDate(s string) (time.Time, error) {
	t, err := journal.ParseDate(s)
	if err != nil || t.Before(FirstDay) || t.After(LastDay) {
		return time.Time{}, ErrDate
	}
	return t, nil
}

// Entry is a day's entry as the API shows it. A day without one shows
// empty texts, no mood, no tags and a null updatedAt.
type Entry struct {
	Date      string        `json:"date"`
	Plan      string        `json:"plan"`
	Review    string        `json:"review"`
	Notes     string        `json:"notes"`
	Mood      *int          `json:"mood"`
	Tags      []journal.Tag `json:"tags"`
	UpdatedAt *time.Time    `json:"updatedAt"`
}

// Input is the body of a PUT: the whole entry. The three texts and the tag
// list are required (a client that sends only the notes must not clear
// the plan by accident); mood may be null or left out (no mood).
type Input struct {
	Plan   *string  `json:"plan"`
	Review *string  `json:"review"`
	Notes  *string  `json:"notes"`
	Mood   *int     `json:"mood"`
	TagIDs []string `json:"tagIds"`
}

// Stored is an entry as the backup archive carries it: plaintext, with the
// tags by id and its own times.
type Stored struct {
	Date      time.Time
	Plan      string
	Review    string
	Notes     string
	Mood      *int
	TagIDs    []string
	CreatedAt time.Time
	UpdatedAt time.Time
	// Demo marks the demo journal's entry, which its removal takes; a
	// write of the user's (a PUT) leaves it unmarked: the day is theirs.
	Demo bool
}

// empty reports whether an entry holds nothing worth keeping: a day's row
// goes once its texts are blank and it has no mood and no tags.
func (s Stored) empty() bool {
	return strings.TrimSpace(s.Plan) == "" && strings.TrimSpace(s.Review) == "" && strings.TrimSpace(s.Notes) == "" &&
		s.Mood == nil && len(s.TagIDs) == 0
}

// validate checks an entry's fields (not yet whether its tags are the
// user's) and drops repeated tag ids.
func (s *Stored) validate() error {
	var p journal.Problems
	for _, f := range []struct{ name, text string }{{"plan", s.Plan}, {"review", s.Review}, {"notes", s.Notes}} {
		p.Merge(journal.Text(f.name, f.text, MaxTextChars))
	}
	if s.Mood != nil && (*s.Mood < MinMood || *s.Mood > MaxMood) {
		p.Add("mood", "must be from 1 (awful) to 5 (great), or null")
	}
	return p.Err()
}

// Store reads and writes the user's journal days.
type Store struct {
	pool    *pgxpool.Pool
	keyring *encrypt.Keyring
	now     func() time.Time
}

// New returns the store over pool; k seals the texts (nil: plaintext), now
// stamps updatedAt.
func New(pool *pgxpool.Pool, k *encrypt.Keyring, now func() time.Time) *Store {
	return &Store{pool: pool, keyring: k, now: now}
}

// Get returns the user's entry of day, or the empty entry.
func (s *Store) Get(ctx context.Context, userID string, day time.Time) (Entry, error) {
	return s.get(ctx, s.pool, userID, day)
}

func (s *Store) get(ctx context.Context, q db.Querier, userID string, day time.Time) (Entry, error) {
	const sel = `SELECT plan, review, notes, mood, updated_at FROM journal_days WHERE user_id = $1 AND day = $2`
	e := Entry{Date: day.Format(time.DateOnly), Tags: []journal.Tag{}}
	var (
		sealed [3]string
		mood   *int
		at     time.Time
	)
	err := q.QueryRow(ctx, sel, userID, day).Scan(&sealed[0], &sealed[1], &sealed[2], &mood, &at)
	if errors.Is(err, pgx.ErrNoRows) {
		return e, nil
	}
	if err != nil {
		return Entry{}, db.Classify(err)
	}
	if e.Plan, e.Review, e.Notes, err = s.Open(sealed); err != nil {
		return Entry{}, err
	}
	e.Mood, e.UpdatedAt = mood, &at
	tags, err := TagsOf(ctx, q, userID, []time.Time{day})
	if err != nil {
		return Entry{}, err
	}
	if t := tags[e.Date]; t != nil {
		e.Tags = t
	}
	return e, nil
}

// Put replaces the user's entry of day with in, in one transaction, and
// returns it as stored. An entry left empty (blank texts, no mood, no
// tags) is deleted: a day is in the journal for what it holds.
func (s *Store) Put(ctx context.Context, userID string, day time.Time, in Input) (Entry, error) {
	var p journal.Problems
	for _, f := range []struct {
		name string
		v    *string
	}{{"plan", in.Plan}, {"review", in.Review}, {"notes", in.Notes}} {
		if f.v == nil {
			p.Add(f.name, "is required (send an empty text to clear it)")
		}
	}
	if in.TagIDs == nil {
		p.Add("tagIds", "is required (an empty list removes every tag)")
	}
	if err := p.Err(); err != nil {
		return Entry{}, err
	}
	now := s.now()
	rec := Stored{Date: day, Plan: *in.Plan, Review: *in.Review, Notes: *in.Notes, Mood: in.Mood, TagIDs: in.TagIDs, CreatedAt: now, UpdatedAt: now}
	var out Entry
	err := db.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if err := s.Write(ctx, tx, userID, rec); err != nil {
			return err
		}
		var err error
		out, err = s.get(ctx, tx, userID, day)
		return err
	})
	return out, err
}

// Write validates rec and writes it as the user's entry of its day inside
// tx (the caller's transaction: a PUT's, or a restore's), keeping the
// entry's first createdAt. The tags must be the user's. It takes rec's
// demo mark: the demo journal's day entry, once the user writes in it,
// stays when the demo is removed.
func (s *Store) Write(ctx context.Context, tx pgx.Tx, userID string, rec Stored) error {
	if err := rec.validate(); err != nil {
		return err
	}
	if rec.Date.Before(FirstDay) || rec.Date.After(LastDay) {
		return ErrDate
	}
	tagIDs, err := journalstore.CheckTagIDs(ctx, tx, userID, rec.TagIDs)
	if err != nil {
		return err
	}
	rec.TagIDs = tagIDs
	if rec.empty() {
		_, err := tx.Exec(ctx, `DELETE FROM journal_days WHERE user_id = $1 AND day = $2`, userID, rec.Date)
		return db.Classify(err)
	}
	const upsert = `INSERT INTO journal_days (user_id, day, plan, review, notes, mood, created_at, updated_at, demo)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (user_id, day) DO UPDATE
		SET plan = EXCLUDED.plan, review = EXCLUDED.review, notes = EXCLUDED.notes, mood = EXCLUDED.mood, updated_at = EXCLUDED.updated_at,
			demo = EXCLUDED.demo`
	k := s.keyring
	if _, err := tx.Exec(ctx, upsert, userID, rec.Date, k.Seal(encrypt.JournalDayPlans, rec.Plan), k.Seal(encrypt.JournalDayReviews, rec.Review),
		k.Seal(encrypt.JournalDayNotes, rec.Notes), rec.Mood, rec.CreatedAt, rec.UpdatedAt, rec.Demo); err != nil {
		return db.Classify(err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM journal_day_tags WHERE user_id = $1 AND day = $2`, userID, rec.Date); err != nil {
		return db.Classify(err)
	}
	if len(tagIDs) > 0 {
		const ins = `INSERT INTO journal_day_tags (user_id, day, tag_id) SELECT $1, $2, unnest($3::uuid[])`
		if _, err := tx.Exec(ctx, ins, userID, rec.Date, tagIDs); err != nil {
			return db.Classify(err)
		}
	}
	return nil
}

// Delete deletes the user's entry of day; none is apperr.ErrNotFound.
func (s *Store) Delete(ctx context.Context, userID string, day time.Time) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM journal_days WHERE user_id = $1 AND day = $2`, userID, day)
	if err != nil {
		return db.Classify(err)
	}
	if tag.RowsAffected() == 0 {
		return apperr.ErrNotFound
	}
	return nil
}

// Each calls fn with each of the user's entries, oldest first, opened,
// read through q (the backup's read-only transaction).
func (s *Store) Each(ctx context.Context, q db.Querier, userID string, fn func(Stored) error) error {
	const sel = `SELECT j.day, j.plan, j.review, j.notes, j.mood, j.created_at, j.updated_at, j.demo,
			coalesce((SELECT array_agg(t.tag_id::text ORDER BY t.tag_id) FROM journal_day_tags t
				WHERE t.user_id = j.user_id AND t.day = j.day), '{}')
		FROM journal_days j WHERE j.user_id = $1 ORDER BY j.day`
	rows, err := q.Query(ctx, sel, userID)
	if err != nil {
		return db.Classify(err)
	}
	var (
		rec    Stored
		sealed [3]string
	)
	_, err = pgx.ForEachRow(rows, []any{&rec.Date, &sealed[0], &sealed[1], &sealed[2], &rec.Mood, &rec.CreatedAt, &rec.UpdatedAt, &rec.Demo, &rec.TagIDs}, func() error {
		var err error
		if rec.Plan, rec.Review, rec.Notes, err = s.Open(sealed); err != nil {
			return err
		}
		return fn(rec)
	})
	return err
}

// Open returns the plaintexts of a row's sealed plan, review and notes
// (for the rows a caller reads itself: the list's search).
func (s *Store) Open(sealed [3]string) (plan, review, notes string, err error) {
	if plan, err = s.keyring.Open(encrypt.JournalDayPlans, sealed[0]); err != nil {
		return
	}
	if review, err = s.keyring.Open(encrypt.JournalDayReviews, sealed[1]); err != nil {
		return
	}
	notes, err = s.keyring.Open(encrypt.JournalDayNotes, sealed[2])
	return
}

// TagsOf returns the tags of the user's given days, by the day's date
// (YYYY-MM-DD), each day's by name.
func TagsOf(ctx context.Context, q db.Querier, userID string, days []time.Time) (map[string][]journal.Tag, error) {
	const sel = `SELECT to_char(dt.day, 'YYYY-MM-DD'), t.id::text, t.name, t.category
		FROM journal_day_tags dt JOIN tags t ON t.id = dt.tag_id
		WHERE dt.user_id = $1 AND dt.day = ANY($2::date[]) ORDER BY lower(t.name), t.id`
	rows, err := q.Query(ctx, sel, userID, days)
	if err != nil {
		return nil, db.Classify(err)
	}
	out := map[string][]journal.Tag{}
	var (
		day string
		t   journal.Tag
	)
	_, err = pgx.ForEachRow(rows, []any{&day, &t.ID, &t.Name, &t.Category}, func() error {
		out[day] = append(out[day], t)
		return nil
	})
	return out, db.Classify(err)
}
