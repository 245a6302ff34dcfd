package journalstore

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
)

// Measured is what price bars said of a closed position: its maximum
// adverse and favourable prices, which of its stop and target the price
// reached first ("target", "stop" or "none"), and where the bars came
// from (a provider's name, or "uploaded"). A position measured without
// bars has no Source and no prices.
type Measured struct {
	MAE, MFE *decimal.Decimal
	FirstHit string
	Source   string
}

// RecordMeasured stores m as the user's closed position's measured
// excursions, taken to its close at closedAt. It writes nothing, and
// answers false, when the position is no longer closed at closedAt (a
// fill changed while it was measured): the excursions job measures it
// again. Typed excursions (mae_price, mfe_price) are left as they are:
// they win over measured ones wherever both are shown. It counts as the
// job's attempt too (RecordAttempt).
func (s *Store) RecordMeasured(ctx context.Context, userID, id string, closedAt time.Time, m Measured) (bool, error) {
	if !db.ValidUUID(id) {
		return false, apperr.ErrNotFound
	}
	var written bool
	err := s.write(ctx, userID, func(w *writeTx) error {
		if err := w.lockPosition(ctx, id); err != nil {
			return err
		}
		var source, hit *string
		if m.Source != "" {
			source, hit = &m.Source, &m.FirstHit
		}
		const q = `UPDATE positions SET bars_mae_price = $3, bars_mfe_price = $4, bars_first_hit = $5, bars_source = $6,
				bars_measured_at = $7, bars_attempted_at = $7, bars_closed_at = closed_at
			WHERE id = $1 AND status = 'closed' AND closed_at = $2`
		tag, err := w.Exec(ctx, q, id, closedAt, m.MAE, m.MFE, hit, source, s.now())
		if err != nil {
			return classify(err)
		}
		written = tag.RowsAffected() == 1
		return nil
	})
	return written, err
}

// RecordAttempt notes that the excursions job looked the user's position's
// bars up at at and got no answer it could record (its provider failed):
// Unmeasured answers the least recently tried first, so a position whose
// provider keeps failing does not hold every run's batch. Job state, not
// journal data: no write of the journal's.
func (s *Store) RecordAttempt(ctx context.Context, userID, id string, at time.Time) error {
	const q = `UPDATE positions SET bars_attempted_at = $3 WHERE id = $1 AND user_id = $2`
	_, err := s.pool.Exec(ctx, q, id, userID, at)
	return classify(err)
}

// Unmeasured is a closed position whose excursions are due a measure.
type Unmeasured struct {
	UserID, PositionID string
}

// Unmeasured returns up to limit closed positions of every user whose
// excursions are due a measure, least recently tried first (never tried
// first; RecordAttempt), then oldest close first: never measured to
// their close, or measured without provider bars (none, or uploaded ones)
// before the user uploaded bars of their symbol (an option's and a
// futures option's: its underlying; barsSymbol).
func (s *Store) Unmeasured(ctx context.Context, limit int) ([]Unmeasured, error) {
	// positions_unmeasured (migrations 0053, 0063) holds the first kind;
	// the second is found from the few uploads.
	const q = `(SELECT user_id::text, id::text, bars_attempted_at, closed_at FROM positions
			WHERE status = 'closed' AND bars_closed_at IS DISTINCT FROM closed_at
			ORDER BY bars_attempted_at NULLS FIRST, closed_at, id LIMIT $1)
		UNION
		(SELECT p.user_id::text, p.id::text, p.bars_attempted_at, p.closed_at FROM bar_uploads u JOIN positions p ON p.user_id = u.user_id
			WHERE p.status = 'closed' AND p.bars_closed_at = p.closed_at AND p.bars_measured_at < u.uploaded_at
				AND (p.bars_source IS NULL OR p.bars_source = 'uploaded')
				AND u.symbol = ` + barsSymbol + `
			ORDER BY p.bars_attempted_at NULLS FIRST, p.closed_at, p.id LIMIT $1)
		ORDER BY 3 NULLS FIRST, 4, 2 LIMIT $1`
	rows, err := s.pool.Query(ctx, q, limit)
	if err != nil {
		return nil, classify(err)
	}
	var (
		u        Unmeasured
		tried    *time.Time
		closedAt time.Time
		out      []Unmeasured
	)
	_, err = pgx.ForEachRow(rows, []any{&u.UserID, &u.PositionID, &tried, &closedAt}, func() error {
		out = append(out, u)
		return nil
	})
	return out, classify(err)
}
