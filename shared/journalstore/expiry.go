package journalstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/apperr"
	"tradejournal/shared/journal"
)

// expiryZone is where US listed options expire: trading in an expiring
// series ends at 16:00 New York time on its expiry date.
var expiryZone = mustZone("America/New_York")

func mustZone(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err) // time/tzdata is embedded: only a misspelt name gets here
	}
	return loc
}

// ExpiryMoment is when an option of that expiry date stops trading, the
// time its worthless exit is dated: 16:00 New York time that day.
func ExpiryMoment(expiry time.Time) time.Time {
	return time.Date(expiry.Year(), expiry.Month(), expiry.Day(), 16, 0, 0, 0, expiryZone)
}

// expiryToday is the New York date at now, at midnight UTC as an
// option_expiry date reads.
func expiryToday(now time.Time) time.Time {
	ny := now.In(expiryZone)
	return time.Date(ny.Year(), ny.Month(), ny.Day(), 0, 0, 0, 0, time.UTC)
}

// dueForExpiry is the one rule of what ExpireDue closes, and so of what
// AwaitingExpiry says: an open option whose expiry day is over in New
// York (the trader had that evening to record the real close) and with no
// fill dated after its expiry moment (something the trader entered
// knowingly, an assignment recorded by hand, say). lastFill is the
// position's latest fill.
func dueForExpiry(expiry, lastFill, now time.Time) bool {
	return expiry.Before(expiryToday(now)) && !lastFill.After(ExpiryMoment(expiry))
}

// ExpireDue closes the options of every user that are due (dueForExpiry),
// the option-expiry job (shared/jobs): each gets an exit of its open
// quantity at price 0 and no fee, dated at its expiry moment, written by
// AddFill like any fill, so the P&L, the ledger, the balance and the
// statistics' rows move with it. It returns how many it closed. An option
// that finished in the money was exercised or assigned, not worthless: the
// trader corrects the exit's price, or records the assignment, which takes
// this exit back.
//
// Runs may overlap (two hosts, a slow run): AddFill locks the position, and
// a second writer finding nothing open is refused and skips it. One
// position that cannot be closed does not hold back the others.
func (s *Store) ExpireDue(ctx context.Context) (int, error) {
	now := s.now()
	// positions_open_options_idx (migration 0040) holds only open options
	// and futures options.
	rows, err := s.pool.Query(ctx, `SELECT p.user_id::text, `+SummaryColumns+` FROM positions p
		WHERE p.status = 'open' AND p.asset_type IN ('option', 'future_option') AND p.option_expiry < $1
		ORDER BY p.option_expiry, p.id`, expiryToday(now))
	if err != nil {
		return 0, classify(err)
	}
	type option struct {
		userID string
		Summary
	}
	var (
		o   option
		due []option
	)
	if _, err := pgx.ForEachRow(rows, append([]any{&o.userID}, ScanSummary(&o.Summary)...), func() error {
		if o.SetAwaitingExpiry(now); o.AwaitingExpiry {
			due = append(due, o)
		}
		return nil
	}); err != nil {
		return 0, classify(err)
	}
	exit := journal.FillExit
	var (
		closed int
		failed []error
	)
	for _, o := range due {
		expiry, err := time.Parse(time.DateOnly, *o.OptionExpiry)
		if err != nil {
			return closed, err
		}
		at := ExpiryMoment(expiry).UTC().Format(time.RFC3339)
		_, err = s.AddFill(ctx, o.userID, o.ID, journal.FillInput{Type: &exit, Price: journal.S("0"),
			Quantity: journal.S(o.OpenQuantity), Fees: journal.S("0"), FilledAt: &at})
		if ae, ok := apperr.As(err); ok && (ae.Code == apperr.Validation || ae.Code == apperr.NotFound || ae.Code == apperr.Conflict) {
			continue // closed by another run meanwhile, or deleted: nothing left to expire
		}
		if err != nil {
			if ctx.Err() != nil {
				return closed, ctx.Err()
			}
			failed = append(failed, fmt.Errorf("expire position %s: %w", o.ID, err))
			continue
		}
		closed++
	}
	return closed, errors.Join(failed...)
}
