package journalstore

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
	"tradejournal/shared/market"
)

// barsSymbol is, in SQL, the symbol a position p's bars are kept under:
// tradebars.Instrument's rule (an option's and a futures option's
// underlying; a stock's and an option's uppercased).
const barsSymbol = `CASE WHEN p.asset_type = 'option' THEN upper(coalesce(p.underlying, p.symbol))
	WHEN p.asset_type = 'future_option' THEN coalesce(p.underlying, p.symbol)
	WHEN p.asset_type = 'stock' THEN upper(p.symbol) ELSE p.symbol END`

// forgetMeasure sets a position back to never measured from bars (the
// excursions job's queue, Unmeasured): its bars' figures went stale.
const forgetMeasure = `bars_mae_price = NULL, bars_mfe_price = NULL, bars_first_hit = NULL, bars_source = NULL,
	bars_measured_at = NULL, bars_closed_at = NULL`

// Bounds of one user's uploaded bars: the symbols, and the bars across
// them (ten full files), so one account cannot fill the database.
const (
	maxUploadedSymbols = 200
	MaxUploadedBars    = 1_000_000
)

// SaveBarUpload replaces the user's bars of symbol with bars
// (market.ParseBarsCSV's, oldest first, of length step). Positions
// measured before it are measured again by the excursions job
// (Unmeasured).
func (s *Store) SaveBarUpload(ctx context.Context, userID, symbol string, bars []market.Bar, step time.Duration, now time.Time) (market.Upload, error) {
	var up market.Upload
	err := s.write(ctx, userID, func(w *writeTx) error {
		const lock = `SELECT id FROM users WHERE id = $1 FOR UPDATE`
		if _, err := w.Exec(ctx, lock, userID); err != nil {
			return classify(err)
		}
		var err error
		up, err = saveBarUpload(ctx, w, symbol, bars, step, now)
		return err
	})
	return up, err
}

// BarUpload writes a backup's uploaded bars of symbol (market.CheckBars'd
// by the caller), uploaded at uploadedAt, within the user's bounds.
func (r *Restorer) BarUpload(ctx context.Context, symbol string, bars []market.Bar, step time.Duration, uploadedAt time.Time) error {
	_, err := saveBarUpload(ctx, r.w, symbol, bars, step, uploadedAt)
	return err
}

// saveBarUpload is SaveBarUpload in w, whose user row is locked.
func saveBarUpload(ctx context.Context, w *writeTx, symbol string, bars []market.Bar, step time.Duration, at time.Time) (market.Upload, error) {
	up := market.Upload{Symbol: symbol, StepSeconds: int64(step / time.Second), BarCount: len(bars), FirstAt: bars[0].Time,
		LastAt: bars[len(bars)-1].Time, UploadedAt: at.UTC()}
	const count = `SELECT count(*), coalesce(sum(bar_count), 0) FROM bar_uploads WHERE user_id = $1 AND symbol <> $2`
	var symbols, kept int
	if err := w.QueryRow(ctx, count, w.userID, symbol).Scan(&symbols, &kept); err != nil {
		return up, classify(err)
	}
	if symbols >= maxUploadedSymbols {
		return up, apperr.Invalid("file", "you keep bars of 200 symbols already: delete the bars of one you no longer review first")
	}
	if kept+len(bars) > MaxUploadedBars {
		return up, apperr.Invalid("file", fmt.Sprintf("you keep %d bars of other symbols, and with these %d you would pass the %d one account may keep: "+
			"delete the bars of a symbol you no longer review, or upload a shorter span or a coarser resolution", kept, len(bars), MaxUploadedBars))
	}
	const del = `DELETE FROM bar_uploads WHERE user_id = $1 AND symbol = $2`
	const ins = `INSERT INTO bar_uploads (user_id, symbol, step_seconds, bar_count, first_at, last_at, uploaded_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`
	if _, err := w.Exec(ctx, del, w.userID, symbol); err != nil {
		return up, classify(err)
	}
	if _, err := w.Exec(ctx, ins, w.userID, symbol, up.StepSeconds, up.BarCount, up.FirstAt, up.LastAt, up.UploadedAt); err != nil {
		return up, classify(err)
	}
	_, err := w.CopyFrom(ctx, pgx.Identifier{"uploaded_bars"}, []string{"user_id", "symbol", "at", "open", "high", "low", "close", "volume"},
		pgx.CopyFromSlice(len(bars), func(i int) ([]any, error) {
			b := bars[i]
			return []any{w.userID, symbol, b.Time, b.Open, b.High, b.Low, b.Close, b.Volume}, nil
		}))
	return up, classify(err)
}

// EachBarUpload calls fn with each of the user's uploads and its bars,
// read in q (a backup's transaction), symbol by symbol.
func EachBarUpload(ctx context.Context, q db.Querier, userID string, fn func(market.Upload, []market.Bar) error) error {
	const uploads = `SELECT symbol, step_seconds, bar_count, first_at, last_at, uploaded_at FROM bar_uploads WHERE user_id = $1 ORDER BY symbol`
	rows, err := q.Query(ctx, uploads, userID)
	if err != nil {
		return classify(err)
	}
	var (
		u   market.Upload
		all []market.Upload
	)
	if _, err := pgx.ForEachRow(rows, []any{&u.Symbol, &u.StepSeconds, &u.BarCount, &u.FirstAt, &u.LastAt, &u.UploadedAt}, func() error {
		all = append(all, u)
		return nil
	}); err != nil {
		return classify(err)
	}
	const barsQ = `SELECT at, open, high, low, close, volume FROM uploaded_bars WHERE user_id = $1 AND symbol = $2 ORDER BY at`
	for _, u := range all {
		rows, err := q.Query(ctx, barsQ, userID, u.Symbol)
		if err != nil {
			return classify(err)
		}
		bars := make([]market.Bar, 0, u.BarCount)
		var b market.Bar
		if _, err := pgx.ForEachRow(rows, []any{&b.Time, &b.Open, &b.High, &b.Low, &b.Close, &b.Volume}, func() error {
			b.Time = b.Time.UTC()
			bars = append(bars, b)
			return nil
		}); err != nil {
			return classify(err)
		}
		if err := fn(u, bars); err != nil {
			return err
		}
	}
	return nil
}

// DeleteBarUpload deletes the user's bars of symbol, and the excursions
// measured from them (the excursions job measures those positions again,
// from a provider or without bars); a symbol without them is
// apperr.ErrNotFound.
func (s *Store) DeleteBarUpload(ctx context.Context, userID, symbol string) error {
	return s.write(ctx, userID, func(w *writeTx) error {
		const del = `DELETE FROM bar_uploads WHERE user_id = $1 AND symbol = $2`
		tag, err := w.Exec(ctx, del, userID, symbol)
		if err != nil {
			return classify(err)
		}
		if tag.RowsAffected() == 0 {
			return apperr.ErrNotFound
		}
		ids, err := w.lockPositions(ctx, `p.bars_source = 'uploaded' AND `+barsSymbol+` = $2`, symbol)
		if err != nil || len(ids) == 0 {
			return err
		}
		const forget = `UPDATE positions SET ` + forgetMeasure + ` WHERE id = ANY($1::uuid[])`
		_, err = w.Exec(ctx, forget, ids)
		return classify(err)
	})
}
