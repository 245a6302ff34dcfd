package backup

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/backup"
	"tradejournal/shared/db"
	"tradejournal/shared/encrypt"
	"tradejournal/shared/httpx"
	"tradejournal/shared/journalstore"
	"tradejournal/shared/money"
	"tradejournal/shared/objectstore"
	"tradejournal/shared/tax"
)

// MaxArchiveBytes caps a restore's upload (compressed). The web proxy's
// MAX_UPLOAD_SIZE must allow it for /api/backup/restore (docs/deployment.md).
const MaxArchiveBytes = 1 << 30

// Images as the positions route group takes them.
const (
	maxImageBytes     = 5 << 20
	maxImagesPerTrade = 20
)

// Restored counts what a restore wrote.
type Restored struct {
	Accounts      int `json:"accounts"`
	Positions     int `json:"positions"`
	Fills         int `json:"fills"`
	Tags          int `json:"tags"`
	LedgerEntries int `json:"ledgerEntries"`
	Images        int `json:"images"`
	ExchangeRates int `json:"exchangeRates"`
	JournalDays   int `json:"journalDays"`
	Playbooks     int `json:"playbooks"`
	// ExpenseCategories and Expenses are the user's own categories and the
	// expense definitions; ExpenseCharges the charges recorded again from
	// them, up to today.
	ExpenseCategories int `json:"expenseCategories"`
	Expenses          int `json:"expenses"`
	ExpenseCharges    int `json:"expenseCharges"`
	// TaxMarks are the tax report's year-end marks.
	TaxMarks int `json:"taxMarks"`
	// SavedViews are the dashboard's saved views (its layout is a setting,
	// restored with them, not counted).
	SavedViews int `json:"savedViews"`
	// AssistantPersonas and AssistantConversations are the assistant's
	// personas of the user's own and conversations (with their messages);
	// AssistantToolCalls the tool calls of their turns. The consent is a
	// setting, restored with them, not counted.
	AssistantPersonas      int `json:"assistantPersonas"`
	AssistantConversations int `json:"assistantConversations"`
	AssistantToolCalls     int `json:"assistantToolCalls"`
	// BarUploads are the symbols with uploaded price bars.
	BarUploads int `json:"barUploads"`
}

type restoredEnvelope struct {
	Restored Restored `json:"restored"`
}

var (
	errNotEmpty = apperr.New(apperr.JournalNotEmpty, "Your journal already holds data. A backup restores only into an empty journal, "+
		"so nothing is restored twice: restore into a new account, or delete this journal's accounts, tags, fee schedules, day entries, expenses "+
		"and assistant personas and conversations first.")
	errMediaType = apperr.New(apperr.UnsupportedMedia, "send the backup file as the body, with Content-Type application/zip")
	errTooLarge  = apperr.New(apperr.PayloadTooLarge, "a backup may be at most %d bytes", MaxArchiveBytes)
)

// restore reads a backup archive (the request body) into the user's empty
// journal. The body is spooled to a temporary file (a zip is read from its
// end), checked whole (backup.Open), then written in one transaction; the
// images it put in the bucket are deleted again when that fails.
func (h handler) restore(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	userID := auth.CurrentUser(ctx).ID
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/zip" && mt != "application/octet-stream" {
		httpx.Error(w, r, errMediaType)
		return
	}
	// The cheap refusal first: a second restore is answered before its
	// upload is read.
	if empty, err := journalEmpty(ctx, h.app.DB, userID); err != nil || !empty {
		httpx.Error(w, r, firstErr(err, errNotEmpty))
		return
	}
	f, err := os.CreateTemp("", "tradejournal-restore-*.zip")
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	defer os.Remove(f.Name())
	defer f.Close()
	size, err := io.Copy(f, http.MaxBytesReader(w, r.Body, MaxArchiveBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			err = errTooLarge
		} else {
			err = apperr.New(apperr.InvalidBackup, "The upload was cut off before the whole file arrived; try again.")
		}
		httpx.Error(w, r, err)
		return
	}
	a, err := backup.Open(f, size, backup.DefaultLimits)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	rs := restorer{h: h, a: a, userID: userID, ids: map[string]string{}}
	err = db.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		return h.store.Restore(ctx, tx, userID, func(j *journalstore.Restorer) error {
			rs.journal = j
			return rs.all(ctx, tx)
		})
	})
	if err != nil {
		rs.discardObjects(context.WithoutCancel(ctx))
		httpx.Error(w, r, inconsistent(err))
		return
	}
	httpx.JSON(w, http.StatusCreated, restoredEnvelope{rs.count})
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// journalEmpty reports whether the user has no accounts, tags, fee
// schedules, exchange rates, saved CSV mappings, playbooks, journal day
// entries, trading rules, expenses, expense categories, saved views,
// assistant personas or assistant conversations of their own: what a restore brings (a dashboard layout, like the time
// zone, is a setting the archive's replaces).
func journalEmpty(ctx context.Context, q db.Querier, userID string) (bool, error) {
	const sql = `SELECT NOT EXISTS (SELECT 1 FROM accounts WHERE user_id = $1)
		AND NOT EXISTS (SELECT 1 FROM tags WHERE user_id = $1)
		AND NOT EXISTS (SELECT 1 FROM playbooks WHERE user_id = $1)
		AND NOT EXISTS (SELECT 1 FROM brokerages WHERE user_id = $1)
		AND NOT EXISTS (SELECT 1 FROM exchange_rates WHERE user_id = $1)
		AND NOT EXISTS (SELECT 1 FROM csv_import_mappings WHERE user_id = $1)
		AND NOT EXISTS (SELECT 1 FROM journal_days WHERE user_id = $1)
		AND NOT EXISTS (SELECT 1 FROM trading_rules WHERE user_id = $1)
		AND NOT EXISTS (SELECT 1 FROM expenses WHERE user_id = $1)
		AND NOT EXISTS (SELECT 1 FROM expense_categories WHERE user_id = $1)
		AND NOT EXISTS (SELECT 1 FROM saved_views WHERE user_id = $1)
		AND NOT EXISTS (SELECT 1 FROM assistant_personas WHERE user_id = $1)
		AND NOT EXISTS (SELECT 1 FROM assistant_conversations WHERE user_id = $1)`
	var empty bool
	err := q.QueryRow(ctx, sql, userID).Scan(&empty)
	return empty, db.Classify(err)
}

// inconsistent turns what the journal refuses of a backup's records (a
// store's validation, a constraint of the schema) into INVALID_BACKUP:
// the fault is the file's, not a form's.
func inconsistent(err error) error {
	if e, ok := apperr.As(err); ok && e.Code == apperr.Validation {
		return apperr.New(apperr.InvalidBackup, "This backup is not consistent (%s). Nothing was restored.", e.Message)
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) && (strings.HasPrefix(pg.Code, "22") || strings.HasPrefix(pg.Code, "23")) {
		return apperr.New(apperr.InvalidBackup, "This backup is not consistent (a record breaks a rule of the journal). Nothing was restored.")
	}
	return err
}

func invalidf(format string, args ...any) error {
	return apperr.New(apperr.InvalidBackup, "This backup is not consistent ("+format+"). Nothing was restored.", args...)
}

// restorer writes one archive; ids maps every archived id to its new one.
// The journal's records (positions, ledger, strategies, what positions
// follow, excursions) go through the journal store's Restorer, which
// derives their figures and settles the derived rows once at the end.
type restorer struct {
	h       handler
	a       *backup.Archive
	userID  string
	journal *journalstore.Restorer
	ids     map[string]string
	count   Restored
	objects []string // keys put in the bucket, deleted again on failure
}

func (rs *restorer) all(ctx context.Context, tx pgx.Tx) error {
	// The user's row lock (the one account, tag and fee schedule
	// creations take) serialises a restore with them and with a second
	// restore; the emptiness is checked again under it.
	var locked bool
	if err := tx.QueryRow(ctx, `SELECT true FROM users WHERE id = $1 FOR NO KEY UPDATE`, rs.userID).Scan(&locked); err != nil {
		return db.Classify(err)
	}
	if empty, err := journalEmpty(ctx, tx, rs.userID); err != nil || !empty {
		return firstErr(err, errNotEmpty)
	}
	// The rates come before the positions: a forex, crypto or CFD fill
	// converts at the stored rate of its day, as it did when written.
	for _, step := range []func(context.Context, pgx.Tx) error{rs.settings, rs.brokerages, rs.accounts, rs.ledger, rs.tags,
		rs.rates, rs.positions, rs.images, rs.mappings, rs.strategies, rs.journalDays, rs.playbooks, rs.positionPlaybooks, rs.tradingRules, rs.propFirmPlans, rs.expenses, rs.taxMarks,
		rs.dashboardLayout, rs.savedViews, rs.assistantSettings, rs.assistantPersonas, rs.assistantConversations, rs.barUploads} {
		if err := step(ctx, tx); err != nil {
			return err
		}
	}
	return nil
}

// mapped returns the new id of an archived one, or an inconsistency.
func (rs *restorer) mapped(what, id string) (string, error) {
	if n, ok := rs.ids[what+":"+id]; ok {
		return n, nil
	}
	return "", invalidf("a record names %s %q, which the backup does not hold", what, id)
}

func (rs *restorer) settings(ctx context.Context, tx pgx.Tx) error {
	if !rs.a.Has(backup.EntrySettings) {
		return nil
	}
	var s backup.Settings
	if err := backup.Lines(rs.a, backup.EntrySettings, 1, func(v backup.Settings) error { s = v; return nil }); err != nil {
		return err
	}
	if msg := auth.CheckTimezone(s.Timezone); msg != "" {
		return invalidf("its time zone %s", msg)
	}
	if s.DisplayCurrency != nil && !money.ValidCurrency(*s.DisplayCurrency) {
		return invalidf("its display currency is not a currency code")
	}
	if s.TaxJurisdiction != nil && !validJurisdiction(*s.TaxJurisdiction) {
		return invalidf("its tax jurisdiction is not us, uk or other")
	}
	_, err := tx.Exec(ctx, `UPDATE users SET timezone = $2, display_currency = $3, tax_jurisdiction = $4 WHERE id = $1`,
		rs.userID, s.Timezone, s.DisplayCurrency, s.TaxJurisdiction)
	return err
}

func (rs *restorer) brokerages(ctx context.Context, tx pgx.Tx) error {
	return backup.Lines(rs.a, backup.EntryBrokerages, backup.MaxBrokerages, func(b backup.Brokerage) error {
		const ins = `INSERT INTO brokerages (user_id, name, stock_per_share_commission, stock_min_per_fill, stock_max_per_fill,
				options_per_contract_commission, options_per_contract_exchange_fee, options_min_per_fill, options_max_per_fill, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id::text`
		var id string
		if err := tx.QueryRow(ctx, ins, rs.userID, b.Name, b.StockPerShareCommission, b.StockMinPerFill, b.StockMaxPerFill,
			b.OptionsPerContractCommission, b.OptionsPerContractExchangeFee, b.OptionsMinPerFill, b.OptionsMaxPerFill, b.CreatedAt).Scan(&id); err != nil {
			return err
		}
		rs.ids["brokerage:"+b.ID] = id
		return nil
	})
}

func (rs *restorer) accounts(ctx context.Context, tx pgx.Tx) error {
	return backup.Lines(rs.a, backup.EntryAccounts, backup.MaxAccounts, func(a backup.Account) error {
		if msg := auth.CheckTimezone(a.Timezone); msg != "" {
			return invalidf("account %q: its time zone %s", a.Name, msg)
		}
		brokerage := a.BrokerageID
		if brokerage != nil {
			if n, ok := rs.ids["brokerage:"+*brokerage]; ok {
				brokerage = &n
			} else if !builtIn(ctx, tx, *brokerage) {
				return invalidf("account %q names a fee schedule the backup does not hold", a.Name)
			}
		}
		if a.TaxJurisdiction != nil && !validJurisdiction(*a.TaxJurisdiction) {
			return invalidf("account %q: its tax jurisdiction is not us, uk or other", a.Name)
		}
		reporting := tax.BasisReporting(a.TaxBasisReporting)
		switch reporting {
		case "":
			reporting = tax.BasisReported
		case tax.BasisReported, tax.BasisNotReported, tax.NoForm1099B:
		default:
			return invalidf("account %q: its basis reporting is not reported, not_reported or none", a.Name)
		}
		const ins = `INSERT INTO accounts (user_id, name, currency, timezone, starting_balance, balance, default_risk_percent,
				brokerage_id, archived, demo, created_at, tax_jurisdiction, tax_basis_reporting)
			VALUES ($1, $2, $3, $4, $5, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id::text`
		var id string
		if err := tx.QueryRow(ctx, ins, rs.userID, a.Name, a.Currency, a.Timezone, a.StartingBalance, a.DefaultRiskPercent,
			brokerage, a.Archived, a.Demo, a.CreatedAt, a.TaxJurisdiction, string(reporting)).Scan(&id); err != nil {
			return err
		}
		rs.ids["account:"+a.ID] = id
		rs.count.Accounts++
		return nil
	})
}

// builtIn reports whether id is one of every instance's fee schedules.
func builtIn(ctx context.Context, tx pgx.Tx, id string) bool {
	if !db.ValidUUID(id) {
		return false
	}
	var ok bool
	return tx.QueryRow(ctx, `SELECT true FROM brokerages WHERE id = $1 AND user_id IS NULL`, id).Scan(&ok) == nil
}

// ledger records the deposits and withdrawals through the journal store,
// which moves the balances.
func (rs *restorer) ledger(ctx context.Context, tx pgx.Tx) error {
	byAccount := map[string][]journalstore.LedgerEntry{}
	var order []string
	err := backup.Lines(rs.a, backup.EntryLedger, backup.MaxLedgerEntries, func(e backup.LedgerEntry) error {
		account, err := rs.mapped("account", e.AccountID)
		if err != nil {
			return err
		}
		if (e.Kind != "deposit" && e.Kind != "withdrawal") || !e.Amount.IsPositive() || len([]rune(e.Note)) > 500 {
			return invalidf("a ledger entry is not a deposit or withdrawal of a positive amount")
		}
		if _, seen := byAccount[account]; !seen {
			order = append(order, account)
		}
		byAccount[account] = append(byAccount[account], journalstore.LedgerEntry{Kind: e.Kind, Amount: e.Amount, At: e.OccurredAt, Note: e.Note})
		rs.count.LedgerEntries++
		return nil
	})
	if err != nil {
		return err
	}
	for _, account := range order {
		if err := rs.journal.LedgerEntries(ctx, account, byAccount[account]); err != nil {
			return err
		}
	}
	return nil
}

func (rs *restorer) tags(ctx context.Context, tx pgx.Tx) error {
	return backup.Lines(rs.a, backup.EntryTags, backup.MaxTags, func(t backup.Tag) error {
		const ins = `INSERT INTO tags (user_id, name, category, demo, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id::text`
		var id string
		if err := tx.QueryRow(ctx, ins, rs.userID, t.Name, t.Category, t.Demo, t.CreatedAt).Scan(&id); err != nil {
			return err
		}
		rs.ids["tag:"+t.ID] = id
		rs.count.Tags++
		return nil
	})
}

// positions reads every position, links them into runs by reversalOf and
// writes the runs through the journal store, which derives the figures,
// the ledger rows of the fills and the balances again.
func (rs *restorer) positions(ctx context.Context, tx pgx.Tx) error {
	var all []backup.Position
	byID := map[string]int{}
	next := map[string]int{} // a position's successor in its run
	fills := 0
	err := backup.Lines(rs.a, backup.EntryPositions, backup.MaxPositions, func(p backup.Position) error {
		if _, dup := byID[p.ID]; dup || p.ID == "" {
			return invalidf("two positions share the id %q", p.ID)
		}
		if fills += len(p.Fills); fills > backup.MaxPositions*5 {
			return invalidf("more fills than a restore accepts")
		}
		byID[p.ID] = len(all)
		all = append(all, p)
		return nil
	})
	if err != nil {
		return err
	}
	for i, p := range all {
		if p.ReversalOf == nil {
			continue
		}
		prev, ok := byID[*p.ReversalOf]
		if _, taken := next[*p.ReversalOf]; !ok || taken {
			return invalidf("position %q continues a position the backup does not hold", p.ID)
		}
		next[all[prev].ID] = i
	}
	var (
		runs    []journalstore.RestoredRun
		members [][]int
		placed  int
	)
	for i, p := range all {
		if p.ReversalOf != nil {
			continue
		}
		run := journalstore.RestoredRun{Symbol: p.Symbol, AssetType: p.AssetType, Multiplier: p.Multiplier, Quote: p.QuoteCurrency}
		if run.AccountID, err = rs.mapped("account", p.AccountID); err != nil {
			return err
		}
		var idx []int
		for k, ok := i, true; ok; k, ok = next[all[k].ID] {
			m := all[k]
			if m.AccountID != p.AccountID || m.Symbol != p.Symbol || m.AssetType != p.AssetType || !m.Multiplier.Equal(p.Multiplier) {
				return invalidf("position %q is in a run of another instrument", m.ID)
			}
			rp, err := rs.position(m)
			if err != nil {
				return err
			}
			run.Positions = append(run.Positions, rp)
			idx = append(idx, k)
		}
		placed += len(idx)
		runs = append(runs, run)
		members = append(members, idx)
	}
	if placed != len(all) {
		return invalidf("positions continue each other in a circle")
	}
	ids, err := rs.journal.Runs(ctx, runs)
	if err != nil {
		return err
	}
	for r, idx := range members {
		for k, i := range idx {
			rs.ids["position:"+all[i].ID] = ids[r][k]
		}
	}
	rs.count.Positions, rs.count.Fills = len(all), fills
	return rs.excursions(ctx, all)
}

// position is an archived position with its tags' new ids.
func (rs *restorer) position(p backup.Position) (journalstore.RestoredPosition, error) {
	out := journalstore.RestoredPosition{Side: p.Side, StopLoss: p.StopLoss, TargetPrice: p.TargetPrice, Notes: p.Notes}
	for _, t := range p.TagIDs {
		id, err := rs.mapped("tag", t)
		if err != nil {
			return out, err
		}
		out.TagIDs = append(out.TagIDs, id)
	}
	for _, f := range p.Fills {
		rf := journalstore.RestoredFill{ID: f.ID, Type: f.Type, Price: f.Price, Quantity: f.Quantity, Fees: f.Fees,
			FeeEstimated: f.FeeEstimated, FilledAt: f.FilledAt, Rate: f.Rate, FeeAsset: f.FeeAsset}
		if f.SplitOf != nil {
			rf.SplitOf = *f.SplitOf
		}
		out.Fills = append(out.Fills, rf)
	}
	return out, nil
}

// images writes each image: into the bucket under a new key when object
// storage is on (remembered, so a failed restore deletes it again), else
// inline.
func (rs *restorer) images(ctx context.Context, tx pgx.Tx) error {
	perPosition := map[string]int{}
	return backup.Lines(rs.a, backup.EntryImages, backup.MaxImages, func(img backup.Image) error {
		position, err := rs.mapped("position", img.PositionID)
		if err != nil {
			return err
		}
		if perPosition[position]++; perPosition[position] > maxImagesPerTrade {
			return invalidf("a position holds more than %d images", maxImagesPerTrade)
		}
		if !rs.a.Has(backup.ImageDir + img.ID) {
			return invalidf("the image %q is missing", img.ID)
		}
		data, err := rs.a.Read(backup.ImageDir + img.ID)
		if err != nil {
			return err
		}
		if len(data) == 0 || len(data) > maxImageBytes {
			return invalidf("an image is empty or larger than 5 MiB")
		}
		// The bytes must be the image type the record names (PNG, JPEG or
		// WebP, as an upload's are sniffed), so nothing else is ever served
		// as an image.
		if http.DetectContentType(data) != img.ContentType {
			return invalidf("the image %q is not the %s it claims to be", img.ID, img.ContentType)
		}
		inline, key := data, (*string)(nil)
		if rs.h.app.Objects != nil {
			k := objectstore.NewKey()
			if err := rs.h.app.Objects.Put(ctx, k, img.ContentType, data); err != nil {
				httpx.Logger(ctx).Warn("restore: image upload to object storage failed", "err", err)
				return errStorageUnavailable
			}
			rs.objects = append(rs.objects, k)
			inline, key = nil, &k
		}
		const ins = `INSERT INTO position_images (user_id, position_id, content_type, size_bytes, data, storage_key, caption, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`
		if _, err := tx.Exec(ctx, ins, rs.userID, position, img.ContentType, len(data), inline, key,
			rs.h.app.Keyring.Seal(encrypt.ImageCaptions, img.Caption), img.CreatedAt); err != nil {
			return err
		}
		rs.count.Images++
		return nil
	})
}

func (rs *restorer) rates(ctx context.Context, tx pgx.Tx) error {
	var rows [][]any
	err := backup.Lines(rs.a, backup.EntryExchangeRates, backup.MaxExchangeRates, func(x backup.ExchangeRate) error {
		day, err := time.Parse(time.DateOnly, x.EffectiveDate)
		if err != nil {
			return invalidf("an exchange rate's date %q is not a date", x.EffectiveDate)
		}
		rows = append(rows, []any{rs.userID, x.BaseCurrency, x.QuoteCurrency, day, x.Rate})
		return nil
	})
	if err != nil || len(rows) == 0 {
		return err
	}
	rs.count.ExchangeRates = len(rows)
	_, err = tx.CopyFrom(ctx, pgx.Identifier{"exchange_rates"}, []string{"user_id", "base_currency", "quote_currency", "effective_date", "rate"},
		pgx.CopyFromRows(rows))
	return err
}

func (rs *restorer) mappings(ctx context.Context, tx pgx.Tx) error {
	now := rs.h.app.Now()
	return backup.Lines(rs.a, backup.EntryMappings, backup.MaxMappings, func(m backup.Mapping) error {
		const ins = `INSERT INTO csv_import_mappings (user_id, name, options, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)`
		_, err := tx.Exec(ctx, ins, rs.userID, m.Name, m.Options, now)
		return err
	})
}

// discardObjects deletes the images a failed restore put in the bucket,
// queueing them first so the purge job retries what the store refuses now.
func (rs *restorer) discardObjects(ctx context.Context) {
	if len(rs.objects) == 0 {
		return
	}
	if _, err := rs.h.app.DB.Exec(ctx, `INSERT INTO object_deletions (storage_key) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING`,
		rs.objects); err != nil {
		httpx.Logger(ctx).Warn("restore: image objects could not be queued for deletion", "err", err)
	}
	if _, err := objectstore.Purge(ctx, rs.h.app.DB, rs.h.app.Objects, rs.objects); err != nil {
		httpx.Logger(ctx).Warn("restore: image objects not deleted yet; the purge job retries", "err", err)
	}
}
