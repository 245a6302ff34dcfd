package backup

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/backup"
	"tradejournal/shared/journalstore"
	"tradejournal/shared/market"
)

// barUploads writes the user's uploaded bars, a symbol a line.
func (ex exporter) barUploads(ctx context.Context) error {
	w, err := ex.zw.Create(backup.EntryBarUploads, true)
	if err != nil {
		return err
	}
	lw := backup.NewLineWriter(w)
	return journalstore.EachBarUpload(ctx, ex.tx, ex.userID, func(u market.Upload, bars []market.Bar) error {
		return lw.Write(backup.BarUpload{Symbol: u.Symbol, StepSeconds: u.StepSeconds, UploadedAt: u.UploadedAt.UTC(), Bars: bars})
	})
}

// barUploads writes each archived symbol's bars through the journal
// store, held to what an upload may be (market.ValidStep,
// market.CheckBars, the user's bounds).
func (rs *restorer) barUploads(ctx context.Context, _ pgx.Tx) error {
	seen, total := map[string]bool{}, 0
	return backup.Lines(rs.a, backup.EntryBarUploads, backup.MaxBarUploads, func(u backup.BarUpload) error {
		step := time.Duration(u.StepSeconds) * time.Second
		switch {
		case u.Symbol == "" || len(u.Symbol) > 64:
			return invalidf("uploaded bars name a symbol of %d characters, not 1 to 64", len(u.Symbol))
		case seen[u.Symbol]:
			return invalidf("two uploads of bars share the symbol %q", u.Symbol)
		case !market.ValidStep(step):
			return invalidf("the uploaded bars of %q are %d seconds long, not whole minutes that divide a week", u.Symbol, u.StepSeconds)
		case len(u.Bars) == 0:
			return invalidf("the upload of %q holds no bars", u.Symbol)
		}
		if err := market.CheckBars(u.Bars, market.MaxUploadRows); err != nil {
			return invalidf("the uploaded bars of %q are not usable: %v", u.Symbol, err)
		}
		if total += len(u.Bars); total > journalstore.MaxUploadedBars {
			return invalidf("it holds more than the %d uploaded bars one account may keep", journalstore.MaxUploadedBars)
		}
		seen[u.Symbol] = true
		if err := rs.journal.BarUpload(ctx, u.Symbol, u.Bars, step, u.UploadedAt); err != nil {
			return err
		}
		rs.count.BarUploads++
		return nil
	})
}
