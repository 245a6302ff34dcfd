package journalstore

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Rederive derives the runs of positions again from their stored fills, as
// every write does after changing them (the tests change fills with SQL).
func Rederive(ctx context.Context, tx pgx.Tx, positionIDs ...string) error {
	for _, id := range positionIDs {
		var user string
		if err := tx.QueryRow(ctx, `SELECT user_id::text FROM positions WHERE id = $1`, id).Scan(&user); err != nil {
			return classify(err)
		}
		err := within(ctx, tx, user, nil, func(w *writeTx) error {
			ru, err := lockRun(ctx, w, user, id)
			if err != nil {
				return err
			}
			if err := ru.derive(""); err != nil {
				return err
			}
			b := w.batch()
			if _, err := w.writeRuns(ctx, b, []*run{ru}); err != nil {
				return err
			}
			return b.flush(ctx)
		})
		if err != nil {
			return err
		}
	}
	return nil
}
