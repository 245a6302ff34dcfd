package backup

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/backup"
	"tradejournal/shared/dayjournal"
)

// journalDays writes the daily journal's entries, their texts opened.
func (ex exporter) journalDays(ctx context.Context) error {
	w, err := ex.zw.Create(backup.EntryJournalDays, true)
	if err != nil {
		return err
	}
	lw := backup.NewLineWriter(w)
	days := dayjournal.New(ex.h.app.DB, ex.h.app.Keyring, ex.h.app.Now)
	return days.Each(ctx, ex.tx, ex.userID, func(d dayjournal.Stored) error {
		return lw.Write(backup.JournalDay{Date: d.Date.Format(time.DateOnly), Plan: d.Plan, Review: d.Review, Notes: d.Notes,
			Mood: d.Mood, TagIDs: d.TagIDs, CreatedAt: d.CreatedAt.UTC(), UpdatedAt: d.UpdatedAt.UTC(), Demo: d.Demo})
	})
}

// journalDays writes each archived day's entry through the daily journal's
// own checks, its tags mapped to their new ids.
func (rs *restorer) journalDays(ctx context.Context, tx pgx.Tx) error {
	days := dayjournal.New(rs.h.app.DB, rs.h.app.Keyring, rs.h.app.Now)
	seen := map[string]bool{}
	return backup.Lines(rs.a, backup.EntryJournalDays, backup.MaxJournalDays, func(d backup.JournalDay) error {
		date, err := dayjournal.ParseDate(d.Date)
		if err != nil {
			return invalidf("a journal entry's date %q is not a day from 1900 to 2199", d.Date)
		}
		if seen[d.Date] {
			return invalidf("two journal entries share the day %s", d.Date)
		}
		seen[d.Date] = true
		rec := dayjournal.Stored{Date: date, Plan: d.Plan, Review: d.Review, Notes: d.Notes, Mood: d.Mood,
			CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt, Demo: d.Demo}
		for _, t := range d.TagIDs {
			id, err := rs.mapped("tag", t)
			if err != nil {
				return err
			}
			rec.TagIDs = append(rec.TagIDs, id)
		}
		if err := days.Write(ctx, tx, rs.userID, rec); err != nil {
			return err
		}
		rs.count.JournalDays++
		return nil
	})
}
