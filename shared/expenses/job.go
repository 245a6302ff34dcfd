package expenses

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/db"
	"tradejournal/shared/fx"
)

// jobBatch is how many due expenses one transaction of the job takes.
const jobBatch = 500

// MaterialiseDue is the expense-charges job (shared/jobs): it writes the
// charges that have fallen due since each expense was written or last
// visited, up to today in its user's reporting zone, and returns how many
// it wrote.
//
// It is safe to run late and from several processes at once: the due
// expenses are taken FOR UPDATE SKIP LOCKED (a second run, or a write of
// the expense, has the rows meanwhile and does the same work), and a
// charge already there is left alone (ON CONFLICT DO NOTHING), so no run
// writes a charge twice. The walk goes by id, so it ends whatever it
// finds not due yet.
func (s *Store) MaterialiseDue(ctx context.Context) (int, error) {
	now := s.now()
	total, after := 0, ""
	for {
		var (
			n    int
			last string
			seen int
		)
		err := db.InTx(ctx, s.pool, func(tx pgx.Tx) error {
			// The index expenses_next_charge_idx holds only the expenses
			// with a charge still to come.
			const q = `SELECT e.id::text, e.user_id::text, u.timezone, e.next_charge_on, ` + definitionColumns + `
				FROM expenses e JOIN users u ON u.id = e.user_id
				WHERE e.next_charge_on IS NOT NULL AND e.next_charge_on <= $1::date AND e.id > $2::uuid
				ORDER BY e.id LIMIT $3 FOR UPDATE OF e SKIP LOCKED`
			// Today is at most one day past UTC's in any zone; each user's
			// own today is read in Go below, as a write reads it.
			rows, err := tx.Query(ctx, q, fx.Today(now, "UTC").AddDate(0, 0, 1), nilUUID(after), jobBatch)
			if err != nil {
				return db.Classify(err)
			}
			type due struct {
				id, userID, zone string
				from             time.Time
				d                Definition
			}
			var (
				list     []due
				it       due
				category *string
			)
			scan := append([]any{&it.id, &it.userID, &it.zone, &it.from}, definitionScan(&it.d, &category)...)
			if _, err := pgx.ForEachRow(rows, scan, func() error {
				it.d.Category = ""
				if category != nil {
					it.d.Category = *category
				}
				list = append(list, it)
				return nil
			}); err != nil {
				return db.Classify(err)
			}
			seen = len(list)
			for _, x := range list {
				last = x.id
				today := fx.Today(now, x.zone)
				if x.from.After(today) {
					continue // due tomorrow in UTC, not yet in the user's zone
				}
				k, err := materialise(ctx, tx, x.userID, x.id, x.d, x.from, today)
				if err != nil {
					return err
				}
				n += k
			}
			return nil
		})
		if err != nil {
			return total, err
		}
		total += n
		if seen < jobBatch {
			return total, nil
		}
		after = last
	}
}

// nilUUID is the smallest UUID for the walk's first batch.
func nilUUID(id string) string {
	if id == "" {
		return "00000000-0000-0000-0000-000000000000"
	}
	return id
}
