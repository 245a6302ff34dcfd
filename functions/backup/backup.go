// Package backup is the route group for taking a journal out and putting
// it back: the positions as CSV in the layout the import reads back
// (brokerfile's "tradejournal-export" preset), the full backup archive
// (shared/backup), streamed, and its restore into an empty journal.
//
// It streams (httpx.Group.Streaming): a backup of a large journal is
// larger than the function platform's buffered answers allow.
package backup

import (
	"context"
	"encoding/csv"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/app"
	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/httpx"
	"tradejournal/shared/journalstore"
	"tradejournal/shared/ratelimit"
)

type handler struct {
	app   *app.App
	store *journalstore.Store
}

// Limits of the heavy routes, per user: a backup reads the whole journal,
// a restore writes one.
var (
	archiveLimit = ratelimit.Limit{Name: "backup-archive", N: 10, Per: time.Hour}
	restoreLimit = ratelimit.Limit{Name: "backup-restore", N: 10, Per: time.Hour}
)

// Group returns the backup route group.
func Group(a *app.App) httpx.Group {
	h := handler{app: a, store: journalstore.New(a.DB, a.Keyring, a.Now)}
	req := a.Sessions.Require
	return httpx.Group{
		Name:      "backup",
		Mounts:    []string{"/api/backup/"},
		Streaming: true,
		Routes: []httpx.Route{
			{Pattern: "GET /api/backup/positions.csv", Handler: req(h.positionsCSV)},
			{Pattern: "GET /api/backup/archive", Handler: req(auth.LimitPerUser(h.app.Limiter, archiveLimit, h.archive))},
			{Pattern: "POST /api/backup/restore", Handler: req(auth.LimitPerUser(h.app.Limiter, restoreLimit, h.restore))},
		},
	}
}

var errStorageUnavailable = apperr.New(apperr.ServiceUnavailable, "image storage is not reachable; try again shortly")

// errNoStorage stops a backup whose images are in a bucket this instance
// no longer has configured.
var errNoStorage = apperr.New(apperr.ServiceUnavailable, "an image is in object storage, but OBJECT_STORAGE_* is no longer configured")

// csvHeader is the export's header: the columns of brokerfile's
// "tradejournal-export" preset, so the import detects and reads it.
var csvHeader = []string{"Account", "Filled At", "Symbol", "Asset Type", "Side", "Quantity", "Price", "Fees", "Fee Asset", "Rate",
	"Multiplier"}

// positionsCSV streams the user's fills, one execution a row, oldest
// first, in the layout the CSV import reads back: importing it into an
// empty account gives the same positions, fills and figures (a reversal's
// two parts are one row again, as the broker reported it; the import splits
// it the same way). ?accountId= limits it to one account. Notes, tags,
// stops and images are the backup's, not this file's.
func (h handler) positionsCSV(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	userID := auth.CurrentUser(ctx).ID
	account := r.URL.Query().Get("accountId")
	if account != "" && !db.ValidUUID(account) {
		httpx.Error(w, r, apperr.Invalid("accountId", "must be one of your accounts"))
		return
	}
	if account != "" {
		var ok bool
		err := h.app.DB.QueryRow(ctx, `SELECT true FROM accounts WHERE id = $1 AND user_id = $2`, account, userID).Scan(&ok)
		if err != nil {
			httpx.Error(w, r, db.Classify(err))
			return
		}
	}
	// A CFD in a currency of its own is written as OANDA writes one
	// (GER40_EUR); a fee in a coin as charged, with its coin; a rate only
	// when given (the import finds the others again); the multiplier of
	// the instruments whose multiplier is the trader's.
	const q = `SELECT a.name, f.filled_at,
			CASE WHEN p.asset_type = 'cfd' AND p.quote_currency IS NOT NULL THEN p.symbol || '_' || p.quote_currency ELSE p.symbol END,
			p.asset_type, CASE WHEN (p.side = 'long') = (f.type = 'entry') THEN 'Buy' ELSE 'Sell' END,
			trim_scale(f.quantity + coalesce(o.quantity, 0))::text, trim_scale(f.price)::text,
			CASE WHEN f.fee_asset IS NULL THEN round(f.fees + coalesce(o.fees, 0), 4) ELSE trim_scale(f.fees + coalesce(o.fees, 0)) END::text,
			coalesce(f.fee_asset, ''), CASE WHEN f.rate_given THEN trim_scale(f.rate)::text ELSE '' END,
			CASE WHEN p.asset_type IN ('future', 'future_option', 'cfd', 'crypto') THEN trim_scale(p.multiplier)::text ELSE '' END
		FROM positions p JOIN accounts a ON a.id = p.account_id JOIN fills f ON f.position_id = p.id
			LEFT JOIN fills o ON o.split_of = f.id
		WHERE p.user_id = $1 AND ($2::uuid IS NULL OR p.account_id = $2) AND f.split_of IS NULL
		ORDER BY f.filled_at, p.opened_at, f.type = 'exit', f.id`
	var accountArg *string
	if account != "" {
		accountArg = &account
	}
	tx, err := h.app.DB.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // read only
	rows, err := tx.Query(ctx, q, userID, accountArg)
	if err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	defer rows.Close()
	hd := w.Header()
	hd.Set("Content-Type", "text/csv; charset=utf-8")
	hd.Set("Content-Disposition", `attachment; filename="tradejournal-positions-`+h.app.Now().Format("2006-01-02")+`.csv"`)
	hd.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	cw := csv.NewWriter(w)
	_ = cw.Write(csvHeader)
	var (
		rec [11]string
		at  time.Time
	)
	_, err = pgx.ForEachRow(rows, []any{&rec[0], &at, &rec[2], &rec[3], &rec[4], &rec[5], &rec[6], &rec[7], &rec[8], &rec[9], &rec[10]}, func() error {
		rec[1] = at.UTC().Format(time.RFC3339Nano)
		return cw.Write(rec[:])
	})
	cw.Flush()
	if err == nil {
		err = cw.Error()
	}
	if err != nil {
		httpx.Logger(ctx).Warn("positions CSV stopped", "err", err)
		panic(http.ErrAbortHandler)
	}
}
