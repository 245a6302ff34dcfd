package backup

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/auth"
	"tradejournal/shared/backup"
	"tradejournal/shared/db"
	"tradejournal/shared/encrypt"
	"tradejournal/shared/httpx"
)

// archive streams the user's journal as a backup archive. Everything is
// read in one read-only REPEATABLE READ transaction, so the archive is one
// consistent moment of the journal however long the download takes, and
// row by row into the zip, so memory stays flat whatever the journal's
// size. A failure after the first byte aborts the connection: the browser
// sees a failed download, never a truncated file that looks whole (a zip
// without its directory does not open anyway).
func (h handler) archive(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	u := auth.CurrentUser(ctx)
	tx, err := h.app.DB.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // read only
	now := h.app.Now()
	hd := w.Header()
	hd.Set("Content-Type", "application/zip")
	hd.Set("Content-Disposition", `attachment; filename="tradejournal-backup-`+now.Format("2006-01-02")+`.zip"`)
	hd.Set("Cache-Control", "no-store")
	// The zip writer buffers: the 200 goes out with its first few
	// kilobytes, so a failure before them is still a clean error answer.
	out := &sent{w: w}
	zw := backup.NewWriter(out, h.app.Config.AppVersion, now)
	ex := exporter{h: h, tx: tx, zw: zw, userID: u.ID}
	if err := ex.all(ctx); err != nil {
		if !out.any {
			hd.Del("Content-Disposition")
			httpx.Error(w, r, db.Classify(err))
			return
		}
		httpx.Logger(ctx).Warn("backup download stopped", "err", err)
		panic(http.ErrAbortHandler)
	}
}

// sent remembers whether a response body has begun.
type sent struct {
	w   io.Writer
	any bool
}

func (s *sent) Write(p []byte) (int, error) {
	s.any = true
	return s.w.Write(p)
}

type exporter struct {
	h      handler
	tx     pgx.Tx
	zw     *backup.Writer
	userID string
}

func (ex exporter) all(ctx context.Context) error {
	for _, step := range []func(context.Context) error{ex.settings, ex.brokerages, ex.accounts, ex.ledger, ex.tags,
		ex.positions, ex.rates, ex.mappings, ex.strategies, ex.journalDays, ex.playbooks, ex.positionPlaybooks, ex.tradingRules, ex.propFirmPlans, ex.expenses, ex.taxMarks, ex.dashboardLayout, ex.savedViews, ex.assistantSettings, ex.assistantPersonas, ex.assistantConversations, ex.barUploads, ex.images} {
		if err := step(ctx); err != nil {
			return err
		}
	}
	return ex.zw.Close()
}

func (ex exporter) settings(ctx context.Context) error {
	var s backup.Settings
	const q = `SELECT timezone, display_currency::text, tax_jurisdiction FROM users WHERE id = $1`
	if err := ex.tx.QueryRow(ctx, q, ex.userID).Scan(&s.Timezone, &s.DisplayCurrency, &s.TaxJurisdiction); err != nil {
		return err
	}
	w, err := ex.zw.Create(backup.EntrySettings, true)
	if err != nil {
		return err
	}
	return json.NewEncoder(w).Encode(s)
}

// lines writes the rows of q (args after the user id) into entry, one
// record a row: scan fills rec from the row's values.
func lines[T any](ctx context.Context, ex exporter, entry, q string, scan func(*T) []any, fix func(*T) error) error {
	w, err := ex.zw.Create(entry, true)
	if err != nil {
		return err
	}
	lw := backup.NewLineWriter(w)
	rows, err := ex.tx.Query(ctx, q, ex.userID)
	if err != nil {
		return err
	}
	var rec T
	_, err = pgx.ForEachRow(rows, scan(&rec), func() error {
		if fix != nil {
			if err := fix(&rec); err != nil {
				return err
			}
		}
		return lw.Write(rec)
	})
	return err
}

func (ex exporter) brokerages(ctx context.Context) error {
	const q = `SELECT id::text, name, stock_per_share_commission, stock_min_per_fill, stock_max_per_fill,
			options_per_contract_commission, options_per_contract_exchange_fee, options_min_per_fill, options_max_per_fill, created_at
		FROM brokerages WHERE user_id = $1 ORDER BY created_at, id`
	return lines(ctx, ex, backup.EntryBrokerages, q, func(b *backup.Brokerage) []any {
		return []any{&b.ID, &b.Name, &b.StockPerShareCommission, &b.StockMinPerFill, &b.StockMaxPerFill,
			&b.OptionsPerContractCommission, &b.OptionsPerContractExchangeFee, &b.OptionsMinPerFill, &b.OptionsMaxPerFill, &b.CreatedAt}
	}, nil)
}

func (ex exporter) accounts(ctx context.Context) error {
	const q = `SELECT id::text, name, currency::text, timezone, starting_balance, default_risk_percent, brokerage_id::text,
			archived, demo, created_at, tax_jurisdiction, tax_basis_reporting
		FROM accounts WHERE user_id = $1 ORDER BY created_at, id`
	return lines(ctx, ex, backup.EntryAccounts, q, func(a *backup.Account) []any {
		return []any{&a.ID, &a.Name, &a.Currency, &a.Timezone, &a.StartingBalance, &a.DefaultRiskPercent, &a.BrokerageID,
			&a.Archived, &a.Demo, &a.CreatedAt, &a.TaxJurisdiction, &a.TaxBasisReporting}
	}, nil)
}

// ledger writes the deposits and withdrawals; the rows of fills are the
// fills' and come back with them. Format version 1 knows only those two
// kinds of positive amounts, so a reconcile's adjustment is written as the
// deposit or withdrawal it amounts to, and a deleted entry and its
// reversal, which cancel, are left out: the balance restores exactly.
func (ex exporter) ledger(ctx context.Context) error {
	const q = `SELECT l.account_id::text,
			CASE WHEN l.kind = 'adjustment' THEN CASE WHEN l.amount < 0 THEN 'withdrawal' ELSE 'deposit' END ELSE l.kind END,
			abs(l.amount), l.occurred_at, l.note
		FROM ledger_entries l JOIN accounts a ON a.id = l.account_id
		WHERE a.user_id = $1 AND l.kind IN ('deposit', 'withdrawal', 'adjustment') AND l.amount <> 0
			AND l.reverses_id IS NULL AND NOT EXISTS (SELECT 1 FROM ledger_entries r WHERE r.reverses_id = l.id)
		ORDER BY l.occurred_at, l.id`
	return lines(ctx, ex, backup.EntryLedger, q, func(e *backup.LedgerEntry) []any {
		return []any{&e.AccountID, &e.Kind, &e.Amount, &e.OccurredAt, &e.Note}
	}, nil)
}

func (ex exporter) tags(ctx context.Context) error {
	const q = `SELECT id::text, name, category, demo, created_at FROM tags WHERE user_id = $1 ORDER BY created_at, id`
	return lines(ctx, ex, backup.EntryTags, q, func(t *backup.Tag) []any {
		return []any{&t.ID, &t.Name, &t.Category, &t.Demo, &t.CreatedAt}
	}, nil)
}

// positions writes each position with its fills and tag ids, the notes
// opened (the archive is the user's own copy; a restore seals them with
// the restoring instance's key). One statement: the fills and tags are
// aggregated per position, so a row is one line.
func (ex exporter) positions(ctx context.Context) error {
	const q = `SELECT p.id::text, p.account_id::text, p.symbol, p.asset_type, p.multiplier, p.side, p.stop_loss, p.target_price,
			p.notes, p.reversal_of::text, p.created_at,
			coalesce((SELECT array_agg(pt.tag_id::text ORDER BY pt.tag_id) FROM position_tags pt WHERE pt.position_id = p.id), '{}'),
			coalesce((SELECT json_agg(json_build_object('id', f.id, 'type', f.type, 'price', f.price::text,
				'quantity', f.quantity::text, 'fees', CASE WHEN f.fee_asset IS NULL THEN round(f.fees, 4) ELSE trim_scale(f.fees) END::text, 'feeEstimated', f.fee_estimated,
				'filledAt', f.filled_at, 'splitOf', f.split_of,
				'rate', CASE WHEN f.rate_given THEN f.rate::text END, 'feeAsset', f.fee_asset) ORDER BY f.filled_at, f.id)
				FROM fills f WHERE f.position_id = p.id), '[]'),
			p.mae_price, p.mfe_price, CASE WHEN p.asset_type = 'cfd' THEN coalesce(p.quote_currency, '') ELSE '' END
		FROM positions p WHERE p.user_id = $1 ORDER BY p.created_at, p.id`
	var fills []byte
	keyring := ex.h.app.Keyring
	return lines(ctx, ex, backup.EntryPositions, q, func(p *backup.Position) []any {
		return []any{&p.ID, &p.AccountID, &p.Symbol, &p.AssetType, &p.Multiplier, &p.Side, &p.StopLoss, &p.TargetPrice,
			&p.Notes, &p.ReversalOf, &p.CreatedAt, &p.TagIDs, &fills, &p.MaePrice, &p.MfePrice, &p.QuoteCurrency}
	}, func(p *backup.Position) error {
		p.Fills = nil
		if err := json.Unmarshal(fills, &p.Fills); err != nil {
			return err
		}
		for i := range p.Fills {
			p.Fills[i].FilledAt = p.Fills[i].FilledAt.UTC()
		}
		notes, err := keyring.Open(encrypt.PositionNotes, p.Notes)
		p.Notes = notes
		return err
	})
}

func (ex exporter) rates(ctx context.Context) error {
	const q = `SELECT base_currency::text, quote_currency::text, to_char(effective_date, 'YYYY-MM-DD'), rate
		FROM exchange_rates WHERE user_id = $1 ORDER BY base_currency, quote_currency, effective_date`
	return lines(ctx, ex, backup.EntryExchangeRates, q, func(x *backup.ExchangeRate) []any {
		return []any{&x.BaseCurrency, &x.QuoteCurrency, &x.EffectiveDate, &x.Rate}
	}, nil)
}

func (ex exporter) mappings(ctx context.Context) error {
	const q = `SELECT name, options FROM csv_import_mappings WHERE user_id = $1 ORDER BY created_at, id`
	return lines(ctx, ex, backup.EntryMappings, q, func(m *backup.Mapping) []any {
		return []any{&m.Name, &m.Options}
	}, nil)
}

// images writes the image records, then each image's bytes from the row
// or from the bucket, one at a time.
func (ex exporter) images(ctx context.Context) error {
	const q = `SELECT id::text, position_id::text, content_type, caption, created_at FROM position_images
		WHERE user_id = $1 ORDER BY created_at, id`
	var ids []string
	keyring := ex.h.app.Keyring
	err := lines(ctx, ex, backup.EntryImages, q, func(i *backup.Image) []any {
		return []any{&i.ID, &i.PositionID, &i.ContentType, &i.Caption, &i.CreatedAt}
	}, func(i *backup.Image) error {
		ids = append(ids, i.ID)
		caption, err := keyring.Open(encrypt.ImageCaptions, i.Caption)
		i.Caption = caption
		return err
	})
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := ex.image(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

func (ex exporter) image(ctx context.Context, id string) error {
	var (
		data []byte
		key  *string
	)
	if err := ex.tx.QueryRow(ctx, `SELECT data, storage_key FROM position_images WHERE id = $1`, id).Scan(&data, &key); err != nil {
		return err
	}
	w, err := ex.zw.Create(backup.ImageDir+id, false)
	if err != nil {
		return err
	}
	if key == nil {
		_, err = w.Write(data)
		return err
	}
	if ex.h.app.Objects == nil {
		return errNoStorage
	}
	body, _, err := ex.h.app.Objects.Get(ctx, *key)
	if err != nil {
		return err
	}
	defer body.Close()
	_, err = io.Copy(w, body)
	return err
}
