// Package csvimport is the route group of the CSV import: a broker's file
// read into a staged preview (POST /api/csv-import/preview), committed to
// the journal in one transaction (POST /api/csv-import/commit), and the
// built-in presets (GET /api/csv-import/presets). The parsing and grouping
// are shared/brokerfile's; this package streams the upload, reads and writes
// the database, and keeps the staged previews' lifecycle.
//
// A preview is staged as a row of csv_import_staging (migrations/0008) that
// holds the fills read from the file, keyed by the SHA-256 of a random
// token. It expires after CSV_IMPORT_STAGING_TTL_MINUTES. A commit claims
// it atomically (state committing), writes every position, fill and ledger
// row with COPY (journal.Recompute only for positions the file continues)
// in one transaction that also deletes the row,
// so an import is written whole or not at all, and exactly once. Expired
// previews and claims orphaned by a dead process (older than
// CSV_IMPORT_CLAIM_TIMEOUT_SECONDS) are deleted by staging.Cleanup: before
// every import request, and by the csv-import-cleanup job of shared/jobs.
package csvimport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"tradejournal/shared/db"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
	"tradejournal/shared/journalstore"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/analytics"
	"tradejournal/shared/app"
	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/brokerfile"
	"tradejournal/shared/httpx"
	"tradejournal/shared/money"
	"tradejournal/shared/plans"
	"tradejournal/shared/staging"
)

type handler struct {
	app     *app.App
	journal *journalstore.Store
}

// Group returns the CSV import route group.
func Group(a *app.App) httpx.Group {
	h := handler{app: a, journal: journalstore.New(a.DB, a.Keyring, a.Now).Limit(plans.New(a.Config, a.Now).CheckPositions)}
	require := a.Sessions.Require
	return httpx.Group{
		Name:   "csvimport",
		Mounts: []string{"/api/csv-import/"},
		Routes: []httpx.Route{
			{Pattern: "GET /api/csv-import/presets", Handler: require(h.presets)},
			{Pattern: "POST /api/csv-import/preview", Handler: require(h.preview)},
			{Pattern: "POST /api/csv-import/commit", Handler: require(h.commit)},
			{Pattern: "GET /api/csv-import/mappings", Handler: require(h.listMappings)},
			{Pattern: "POST /api/csv-import/mappings", Handler: require(h.saveMapping)},
			{Pattern: "DELETE /api/csv-import/mappings/{mappingId}", Handler: require(h.deleteMapping)},
		},
	}
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// sweep is the lazy clean-up before an import request. A failure is
// logged, never answered: the request itself will meet the same database.
func (h handler) sweep(ctx context.Context) {
	s, err := staging.Cleanup(ctx, h.app.DB, h.app.Config.CSVImport, h.app.Now())
	if err != nil {
		httpx.Logger(ctx).Warn("csv import clean-up", "err", err)
		return
	}
	if s.Expired > 0 || s.Orphaned > 0 {
		httpx.Logger(ctx).Info("csv import clean-up", "expired", s.Expired, "orphaned", s.Orphaned)
	}
}

// fieldInfo describes a mappable field for the presets list.
type fieldInfo struct {
	Field    string `json:"field"`
	Required bool   `json:"required"`
}

type presetList struct {
	Items         []brokerfile.Preset    `json:"items"`
	Fields        map[string][]fieldInfo `json:"fields"`
	DateFormats   []string               `json:"dateFormats"`
	NumberFormats []string               `json:"numberFormats"`
	Limits        limits                 `json:"limits"`
}

type limits struct {
	MaxFileBytes      int64 `json:"maxFileBytes"`
	MaxRows           int   `json:"maxRows"`
	StagingTTLMinutes int64 `json:"stagingTtlMinutes"`
}

func (h handler) presets(w http.ResponseWriter, r *http.Request) {
	fields := map[string][]fieldInfo{}
	for _, shape := range []string{brokerfile.ShapeExecution, brokerfile.ShapeRoundTrip} {
		for _, f := range brokerfile.Fields(shape) {
			fields[shape] = append(fields[shape], fieldInfo{Field: f, Required: slices.Contains(brokerfile.Required(shape), f)})
		}
	}
	cfg := h.app.Config.CSVImport
	httpx.JSON(w, http.StatusOK, presetList{
		Items:         brokerfile.Presets(),
		Fields:        fields,
		DateFormats:   []string{brokerfile.DateISO, brokerfile.DateUS, brokerfile.DateEU, brokerfile.DateISODateTime},
		NumberFormats: []string{brokerfile.NumberUS, brokerfile.NumberEU},
		Limits:        limits{MaxFileBytes: cfg.MaxFileBytes, MaxRows: cfg.MaxRows, StagingTTLMinutes: int64(cfg.StagingTTL / time.Minute)},
	})
}

// maxListed bounds the errors and warnings a preview lists (their counts
// are always complete).
const maxListed = 1000

// Summary is a preview's totals. Money is a 4-place string in the
// account's currency: what the imported fills book.
type Summary struct {
	Rows               int    `json:"rows"`
	SkippedRows        int    `json:"skippedRows"`
	Fills              int    `json:"fills"`
	ImportFills        int    `json:"importFills"`
	Positions          int    `json:"positions"`
	NewPositions       int    `json:"newPositions"`
	ContinuedPositions int    `json:"continuedPositions"`
	OpenPositions      int    `json:"openPositions"`
	DuplicateFills     int    `json:"duplicateFills"`
	DuplicatesInFile   int    `json:"duplicatesInFile"`
	Reversals          int    `json:"reversals"` // fills that closed a position and opened the opposite one
	Currency           string `json:"currency"`
	GrossPnl           string `json:"grossPnl"`
	Fees               string `json:"fees"`
	NetPnl             string `json:"netPnl"`
}

// Proposed is a position the commit would write: a new one, or an open
// one of the journal that the file continues (existingPositionId).
type Proposed struct {
	// AccountID is the journal account the position is written to (a file
	// split across accounts by accountMap has several).
	AccountID          string  `json:"accountId"`
	ExistingPositionID *string `json:"existingPositionId"`
	Symbol             string  `json:"symbol"`
	AssetType          string  `json:"assetType"`
	// Multiplier is a JSON number as on the positions API: 1, 100, or a
	// future's point value.
	Multiplier    json.Number `json:"multiplier"`
	Side          string      `json:"side"`
	Status        string      `json:"status"`
	OpenedAt      *time.Time  `json:"openedAt"`
	ClosedAt      *time.Time  `json:"closedAt"`
	Fills         int         `json:"fills"` // fills the import adds
	Rows          []int       `json:"rows"`  // the file rows of those fills
	EntryQuantity string      `json:"entryQuantity"`
	ExitQuantity  string      `json:"exitQuantity"`
	OpenQuantity  string      `json:"openQuantity"`
	AvgEntryPrice *string     `json:"avgEntryPrice"`
	AvgExitPrice  *string     `json:"avgExitPrice"`
	GrossPnl      string      `json:"grossPnl"`
	Fees          string      `json:"fees"`
	NetPnl        string      `json:"netPnl"`

	// ReversalOf is the index in the preview's positions of the position
	// whose reversal opens this one, or null.
	ReversalOf *int `json:"reversalOf"`
}

// Preview is the answer of POST /api/csv-import/preview.
type Preview struct {
	// Token names the staged preview for the commit; null when it cannot
	// be committed (then nothing was staged).
	Token     *string    `json:"token"`
	ExpiresAt *time.Time `json:"expiresAt"`
	CanCommit bool       `json:"canCommit"`
	AccountID string     `json:"accountId"`
	Summary   Summary    `json:"summary"`
	Positions []Proposed `json:"positions"`
	// Strategies are the new positions opened together (by one order:
	// brokerfile.GroupStrategies) that the commit groups as strategies,
	// unless it is given the trader's own grouping or asked not to
	// (groupStrategies false).
	Strategies   []ProposedStrategy   `json:"strategies"`
	Errors       []brokerfile.Problem `json:"errors"`
	Warnings     []brokerfile.Problem `json:"warnings"`
	ErrorCount   int                  `json:"errorCount"`
	WarningCount int                  `json:"warningCount"`
	// WarningGroups are the warnings by code, in the order codes first
	// appear by row: a count and the first few.
	WarningGroups []ProblemGroup `json:"warningGroups"`
	// DetectedPresetID is the preset the file's header matches best, or
	// null; PresetID the preset read with (the client's, else the
	// detected one), null for a mapping.
	DetectedPresetID *string `json:"detectedPresetId"`
	PresetID         *string `json:"presetId"`
	// CanImportPartial: the file has rows that cannot be read (errors),
	// and the others make an import; it is staged (token), and the commit
	// writes it only with importPartial. Summary and positions are then
	// those of the rows imported; PartialRowsLeftOut counts the rows left
	// out (the errors' rows, and rows that no longer fit without them).
	CanImportPartial   bool `json:"canImportPartial"`
	PartialRowsLeftOut int  `json:"partialRowsLeftOut"`
	// FileAccounts are the values of the file's account column with their
	// rows, when it has one: a file of several accounts is imported once
	// per account (fileAccount), or split across journal accounts at once
	// (accountMap).
	FileAccounts []FileAccount `json:"fileAccounts"`
	// AccountMap echoes the options' accountMap (the file's accounts to
	// journal account ids, "" skipped), or null.
	AccountMap map[string]string `json:"accountMap"`
}

// FileAccount is an account of the file and its data rows.
type FileAccount struct {
	Account string `json:"account"`
	Rows    int    `json:"rows"`
}

func fileAccounts(m map[string]int) []FileAccount {
	out := make([]FileAccount, 0, len(m))
	for a, n := range m {
		out = append(out, FileAccount{Account: a, Rows: n})
	}
	slices.SortFunc(out, func(a, b FileAccount) int { return strings.Compare(a.Account, b.Account) })
	return out
}

// ProblemGroup is the problems of one code: how many, and the first few.
type ProblemGroup struct {
	Code  string               `json:"code"`
	Count int                  `json:"count"`
	First []brokerfile.Problem `json:"first"`
}

// groupFirst is how many problems a group lists.
const groupFirst = 3

// grouped groups problems by code, codes in the order of their first row.
func grouped(ps []brokerfile.Problem) []ProblemGroup {
	sorted := slices.Clone(ps)
	slices.SortStableFunc(sorted, func(a, b brokerfile.Problem) int { return a.Row - b.Row })
	out := []ProblemGroup{}
	at := map[string]int{}
	for _, p := range sorted {
		i, ok := at[p.Code]
		if !ok {
			i = len(out)
			at[p.Code] = i
			out = append(out, ProblemGroup{Code: p.Code})
		}
		out[i].Count++
		if len(out[i].First) < groupFirst {
			out[i].First = append(out[i].First, p)
		}
	}
	return out
}

// checkOptions refuses options that are wrong whatever the file holds
// before the file is read; a missing layout waits for detection.
func checkOptions(opts brokerfile.Options, zone string, now time.Time, maxRows int) error {
	if opts.PresetID == "" && opts.Mapping == nil {
		// The layout is detected from the file: the day of a file of
		// times only, and the instrument of one without symbols, are
		// checked against it then.
		opts.PresetID, opts.TradeDate, opts.Symbol = "generic-execution", "", ""
	}
	_, err := brokerfile.Resolve(opts, zone, now, maxRows)
	return err
}

func (h handler) preview(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	h.sweep(ctx)
	cfg := h.app.Config.CSVImport
	userID := auth.CurrentUser(ctx).ID
	now := h.app.Now()

	up, err := openUpload(w, r, cfg)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	opts, err := up.options()
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	if opts.AccountID == "" {
		httpx.Error(w, r, apperr.Invalid("accountId", "is required"))
		return
	}
	acct, err := loadAccount(ctx, h.app.DB, userID, opts.AccountID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	if err := checkOptions(opts, acct.Timezone, now, cfg.MaxRows); err != nil {
		httpx.Error(w, r, err)
		return
	}
	targets, err := loadTargets(ctx, h.app.DB, userID, acct, opts.AccountMap)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	part, err := up.next()
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	// The layout: the client's preset or mapping, else the preset detected
	// from the file's head (which the answer names either way).
	file := bufio.NewReaderSize(part, brokerfile.DetectBytes)
	head, err := file.Peek(brokerfile.DetectBytes)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		httpx.Error(w, r, up.readError(err))
		return
	}
	detected, found := brokerfile.Detect(head)
	if opts.PresetID == "" && opts.Mapping == nil && found {
		opts.PresetID = detected.PresetID
	}
	spec, err := brokerfile.Resolve(opts, acct.Timezone, now, cfg.MaxRows)
	if e, ok := apperr.As(err); ok && opts.PresetID == "" && opts.Mapping == nil {
		// No layout given and none detected: say which presets came
		// closest and what each lacks.
		for i := range e.Details {
			if e.Details[i].Field == "presetId" {
				e.Details[i].Message = brokerfile.Undetected(head)
			}
		}
	}
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	parsed, err := brokerfile.Parse(file, spec)
	if err != nil {
		httpx.Error(w, r, up.readError(err))
		return
	}
	if err := up.finish(); err != nil {
		httpx.Error(w, r, err)
		return
	}

	out := Preview{
		AccountID:    acct.ID,
		PresetID:     db.NullIfEmpty(opts.PresetID),
		FileAccounts: fileAccounts(parsed.Accounts),
		AccountMap:   spec.AccountMap(),
	}
	// Each journal account's part of the file is planned against what
	// that account holds: its fee schedule for fills without a fee, its
	// open positions the file continues, the fills it already has.
	parts := splitParts(parsed, acct, targets, spec.AccountMap())
	errs, warnings := slices.Clone(parsed.Errors), parsed.Warnings
	for _, pt := range parts {
		if err := h.planPart(ctx, userID, pt, parsed); err != nil {
			httpx.Error(w, r, err)
			return
		}
		errs = append(errs, pt.plan.Errors...)
		warnings = append(warnings, pt.warnings...)
	}
	warnings = dedupeFileProblems(warnings)
	// Rows that cannot be read: the rest may be imported on an explicit
	// confirmation (importPartial on the commit); the preview then shows
	// what the rest makes. Each part leaves out its own rows; a part that
	// cannot leave them out stops the partial import.
	partial := len(errs) > 0
	partials := make([]*brokerfile.Partial, len(parts))
	for i, pt := range parts {
		if !partial || len(pt.errs)+len(pt.plan.Errors) == 0 {
			continue
		}
		build := func(fills []brokerfile.Fill) *brokerfile.Plan {
			return brokerfile.Build(fills, pt.held, brokerfile.BuildOptions{Header: parsed.Header})
		}
		partials[i] = brokerfile.PartialImport(pt.fills, append(slices.Clone(pt.errs), pt.plan.Errors...), build)
		partial = partials[i] != nil
	}
	var total brokerfile.Summary
	staged := make([]brokerfile.Part, 0, len(parts))
	// Per position, what the commit's strategies need (openingFills):
	// fills are counted across the staged parts from offset.
	opening, offset := []int{}, 0
	writes := false
	for i, pt := range parts {
		pt.staged = pt.fills
		if partial && partials[i] != nil {
			pt.staged, pt.plan = partials[i].Fills, partials[i].Plan
		}
		addSummary(&total, pt.plan.Summary)
		writes = writes || len(pt.plan.Positions) > 0 || pt.plan.Summary.DuplicateFills > 0
		first := len(out.Positions)
		for _, p := range proposedOf(pt.staged, pt.plan, first) {
			p.AccountID = pt.acct.ID
			out.Positions = append(out.Positions, p)
		}
		out.Strategies = append(out.Strategies, proposedStrategies(pt.plan, pt.staged, first)...)
		opening = append(opening, openingFills(pt.plan, offset)...)
		offset += len(pt.staged)
		id := pt.acct.ID
		if out.AccountMap == nil {
			id = "" // the staged row's own account
		}
		staged = append(staged, brokerfile.Part{AccountID: id, Fills: pt.staged})
	}
	total.Rows, total.SkippedRows = parsed.Rows, parsed.Skipped
	out.Summary = summaryOf(total, acct.Currency)
	out.CanCommit = len(errs) == 0 && writes
	leftOut := 0
	if partial && writes {
		out.CanImportPartial, leftOut = true, rowsLeftOut(errs, parts)
		out.PartialRowsLeftOut = leftOut
	}
	if out.Positions == nil {
		out.Positions = []Proposed{}
	}
	if out.Strategies == nil {
		out.Strategies = []ProposedStrategy{}
	}
	out.Errors, out.ErrorCount = listed(errs)
	out.WarningGroups = grouped(warnings)
	out.Warnings, out.WarningCount = listed(warnings)
	if found {
		out.DetectedPresetID = &detected.PresetID
	}

	if out.CanCommit || out.CanImportPartial {
		payload := brokerfile.EncodeStaged(staged, leftOut)
		if int64(len(payload)) > cfg.MaxStagedBytes {
			httpx.Error(w, r, apperr.New(apperr.PayloadTooLarge, "the import's staged result is %d bytes, more than %d (CSV_IMPORT_MAX_STAGED_BYTES); split the file",
				len(payload), cfg.MaxStagedBytes))
			return
		}
		token, hash, err := newToken()
		if err != nil {
			httpx.Error(w, r, err)
			return
		}
		if err := stage(ctx, h.app.DB, hash, userID, acct.ID, payload, opening, now); err != nil {
			httpx.Error(w, r, err)
			return
		}
		expires := now.Add(cfg.StagingTTL).UTC()
		out.Token, out.ExpiresAt = &token, &expires
	}
	httpx.JSON(w, http.StatusOK, out)
}

// listed sorts problems by row and keeps the first maxListed.
func listed(ps []brokerfile.Problem) ([]brokerfile.Problem, int) {
	slices.SortStableFunc(ps, func(a, b brokerfile.Problem) int { return a.Row - b.Row })
	n := len(ps)
	if n > maxListed {
		ps = ps[:maxListed]
	}
	if ps == nil {
		ps = []brokerfile.Problem{}
	}
	return ps, n
}

func summaryOf(s brokerfile.Summary, currency string) Summary {
	return Summary{
		Rows: s.Rows, SkippedRows: s.SkippedRows, Fills: s.Fills, ImportFills: s.ImportFills,
		Positions: s.Positions, NewPositions: s.NewPositions, ContinuedPositions: s.ContinuedPositions,
		OpenPositions: s.OpenPositions, DuplicateFills: s.DuplicateFills, DuplicatesInFile: s.DuplicatesInFile, Reversals: s.Reversals,
		Currency: currency, GrossPnl: money.RoundN(s.GrossPnL, 4), Fees: money.RoundN(s.Fees, 4), NetPnl: money.RoundN(s.NetPnL, 4),
	}
}

// ProposedStrategy is a group of new positions the commit makes one
// strategy: their indexes in the preview's positions, and what the
// strategy engine calls the legs.
type ProposedStrategy struct {
	Positions []int  `json:"positions"`
	Label     string `json:"label"`
}

// proposedStrategies lists a part's strategy groups, its positions at
// first and after in the preview.
func proposedStrategies(plan *brokerfile.Plan, fills []brokerfile.Fill, first int) []ProposedStrategy {
	var out []ProposedStrategy
	for _, g := range plan.StrategyGroups(fills) {
		ps := ProposedStrategy{Positions: make([]int, len(g))}
		legs := make([]journal.StrategyLeg, 0, len(g))
		for n, k := range g {
			ps.Positions[n] = first + k
			p := &plan.Positions[k]
			if p.Figures.AvgEntryPrice == nil {
				continue
			}
			leg := journal.StrategyLeg{Side: p.Side, Quantity: p.Figures.EntryQuantity, Price: *p.Figures.AvgEntryPrice, Multiplier: p.Multiplier}
			if o, err := instrument.ParseOCC(p.Symbol); err == nil {
				leg.Option = &o
			}
			legs = append(legs, leg)
		}
		if a, err := journal.AnalyzeStrategy(legs); err == nil {
			ps.Label = a.Label
		}
		out = append(out, ps)
	}
	return out
}

// proposedOf lists a part's positions, its first at first in the preview.
func proposedOf(fills []brokerfile.Fill, plan *brokerfile.Plan, first int) []Proposed {
	out := make([]Proposed, 0, len(plan.Positions))
	for k := range plan.Positions {
		p := &plan.Positions[k]
		f := &p.Figures
		pr := Proposed{
			Symbol: p.Symbol, AssetType: p.AssetType, Multiplier: json.Number(p.Multiplier.String()), Side: p.Side, Status: f.Status,
			OpenedAt: f.OpenedAt, ClosedAt: f.ClosedAt, Fills: len(p.Fills),
			EntryQuantity: f.EntryQuantity.String(), ExitQuantity: f.ExitQuantity.String(), OpenQuantity: f.OpenQuantity.String(),
			GrossPnl: money.RoundN(f.GrossPnL, 4), Fees: money.RoundN(f.Fees, 4), NetPnl: money.RoundN(f.NetPnL, 4),
		}
		if p.ExistingID != "" {
			id := p.ExistingID
			pr.ExistingPositionID = &id
		}
		if p.ReversalOf > 0 {
			at := first + p.ReversalOf - 1
			pr.ReversalOf = &at
		}
		if f.AvgEntryPrice != nil {
			s := f.AvgEntryPrice.String()
			pr.AvgEntryPrice = &s
		}
		if f.AvgExitPrice != nil {
			s := f.AvgExitPrice.String()
			pr.AvgExitPrice = &s
		}
		pr.Rows = make([]int, 0, len(p.Fills))
		for _, i := range p.Fills {
			if row := fills[i].Row; len(pr.Rows) == 0 || pr.Rows[len(pr.Rows)-1] != row {
				pr.Rows = append(pr.Rows, row)
			}
		}
		out = append(out, pr)
	}
	return out
}

// commitRequest is the body of POST /api/csv-import/commit.
type commitRequest struct {
	Token             *string `json:"token"`
	ConfirmDuplicates bool    `json:"confirmDuplicates"`
	// GroupStrategies (default true) makes strategies of the legs the
	// preview proposed; false leaves them positions of their own.
	GroupStrategies *bool `json:"groupStrategies"`
	// Strategies, when given, is the trader's grouping instead of the
	// proposal: each group a strategy of the preview's positions (indexes
	// into its positions, as its strategies list them); [] makes none.
	Strategies *[][]int `json:"strategies"`
	// ImportPartial confirms a partial preview: its readable rows are
	// written, the others left out.
	ImportPartial bool `json:"importPartial"`
}

// Committed is what a commit wrote.
type Committed struct {
	AccountID          string   `json:"accountId"`
	PositionsCreated   int      `json:"positionsCreated"`
	PositionsContinued int      `json:"positionsContinued"`
	FillsCreated       int      `json:"fillsCreated"`
	DuplicatesSkipped  int      `json:"duplicatesSkipped"`
	StrategiesCreated  int      `json:"strategiesCreated"`
	PositionIDs        []string `json:"positionIds"`
	ContinuedIDs       []string `json:"continuedPositionIds"`
	Balance            string   `json:"balance"`
	RowsLeftOut        int      `json:"rowsLeftOut"` // a partial import's rows that could not be read
	// Accounts is what each journal account got (one, or several for a
	// file split by accountMap); the fields above are their totals, and
	// accountId and balance are the first one's.
	Accounts []CommittedAccount `json:"accounts"`
}

// CommittedAccount is what a commit wrote to one journal account.
type CommittedAccount struct {
	AccountID          string `json:"accountId"`
	PositionsCreated   int    `json:"positionsCreated"`
	PositionsContinued int    `json:"positionsContinued"`
	FillsCreated       int    `json:"fillsCreated"`
	Balance            string `json:"balance"`
}

type committedEnvelope struct {
	Import Committed `json:"import"`
}

func (h handler) commit(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	h.sweep(ctx)
	var in commitRequest
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if in.Token == nil || *in.Token == "" {
		httpx.Error(w, r, apperr.Invalid("token", "is required"))
		return
	}
	if len(*in.Token) > 128 {
		httpx.Error(w, r, errGone)
		return
	}
	cfg := h.app.Config.CSVImport
	userID := auth.CurrentUser(ctx).ID
	hash := hashToken(*in.Token)

	staged, err := claim(ctx, h.app.DB, hash, userID, cfg, h.app.Now())
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	out, err := h.write(ctx, userID, hash, staged, in)
	if err != nil {
		// Nothing was written: hand the preview back so it can be retried
		// while it lives.
		if rerr := release(context.WithoutCancel(ctx), h.app.DB, hash); rerr != nil {
			httpx.Logger(ctx).Warn("csv import: release claim", "err", rerr)
		}
		httpx.Error(w, r, err)
		return
	}
	// Counts only: no symbol, amount, price or file name leaves.
	h.app.Analytics.Capture(userID, analytics.EventImportCommitted, analytics.Props{
		"positionsCreated":   out.PositionsCreated,
		"positionsContinued": out.PositionsContinued,
		"fillsCreated":       out.FillsCreated,
		"duplicatesSkipped":  out.DuplicatesSkipped,
	})
	httpx.JSON(w, http.StatusCreated, committedEnvelope{out})
}

// write runs the commit's one transaction through the journal store: the
// plan against the journal as it is now, the write, the strategies (the
// trader's grouping, else the proposal unless refused), and the deletion
// of the staged row.
func (h handler) write(ctx context.Context, userID string, hash []byte, staged claimed, req commitRequest) (Committed, error) {
	confirm := req.ConfirmDuplicates
	parts, leftOut, err := brokerfile.DecodeStaged(staged.payload)
	if err != nil {
		return Committed{}, err
	}
	if leftOut > 0 && !req.ImportPartial {
		return Committed{}, apperr.Invalid("importPartial", fmt.Sprintf(
			"must be true to import this preview: %d rows of the file cannot be read and are left out", leftOut))
	}
	var chosen [][][]int
	if req.Strategies != nil {
		if chosen, err = chosenGroups(*req.Strategies, staged.opening, parts); err != nil {
			return Committed{}, err
		}
	}
	group := chosen == nil && (req.GroupStrategies == nil || *req.GroupStrategies)
	in := make([]journalstore.ImportPart, len(parts))
	for i, pt := range parts {
		in[i] = journalstore.ImportPart{AccountID: pt.AccountID, Fills: pt.Fills, GroupStrategies: group}
		if chosen != nil {
			in[i].Strategies = chosen[i]
		}
		if pt.AccountID == "" {
			in[i].AccountID = staged.accountID
		}
	}
	done, err := h.journal.ImportAccounts(ctx, userID, in, brokerfile.BuildOptions{ConfirmDuplicates: confirm},
		func(ctx context.Context, tx pgx.Tx) error {
			tag, err := tx.Exec(ctx, `DELETE FROM csv_import_staging WHERE token_hash = $1 AND state = 'committing'`, hash)
			if err != nil {
				return db.Classify(err)
			}
			if tag.RowsAffected() != 1 {
				// The clean-up took the claim for orphaned: this commit ran
				// longer than CSV_IMPORT_CLAIM_TIMEOUT_SECONDS. Roll back.
				return apperr.New(apperr.Conflict, "the commit took longer than CSV_IMPORT_CLAIM_TIMEOUT_SECONDS and was abandoned; nothing was written")
			}
			if err := plans.New(h.app.Config, h.app.Now).Check(ctx, tx, userID, plans.ImportsPerDay, 1); err != nil {
				return err
			}
			// Counted for the admin usage panel (functions/admin) and the
			// free plan's imports a day (shared/plans).
			_, err = tx.Exec(ctx, `INSERT INTO csv_imports (user_id, committed_at) VALUES ($1, $2)`, userID, h.app.Now())
			return db.Classify(err)
		})
	var planErr *journalstore.PlanError
	switch {
	case errors.As(err, &planErr):
		return Committed{}, changed(planErr.Problems)
	case err != nil:
		if e, ok := apperr.As(err); ok && e.Code == apperr.Validation {
			return Committed{}, apperr.New(apperr.Conflict, "the journal changed since the preview (%s); preview the file again", e.Message)
		}
		return Committed{}, err
	}
	out := Committed{AccountID: in[0].AccountID, Balance: money.RoundN(done[0].Balance, 4), RowsLeftOut: leftOut,
		PositionIDs: []string{}, ContinuedIDs: []string{}, Accounts: make([]CommittedAccount, len(done))}
	for i, d := range done {
		a := CommittedAccount{AccountID: in[i].AccountID, Balance: money.RoundN(d.Balance, 4),
			PositionsCreated: len(d.Created), PositionsContinued: len(d.Continued), FillsCreated: d.Fills}
		out.Accounts[i] = a
		out.PositionsCreated += a.PositionsCreated
		out.StrategiesCreated += d.Strategies
		out.PositionsContinued += a.PositionsContinued
		out.FillsCreated += a.FillsCreated
		out.PositionIDs = append(out.PositionIDs, d.Created...)
		out.ContinuedIDs = append(out.ContinuedIDs, d.Continued...)
		if !confirm {
			out.DuplicatesSkipped += d.Plan.Summary.DuplicateFills
		}
	}
	return out, nil
}

// changed answers a commit whose fills no longer fit the journal (it
// changed since the preview, or confirmed duplicates break a position).
func changed(problems []brokerfile.Problem) error {
	var b strings.Builder
	for i, p := range problems {
		if i == 3 {
			fmt.Fprintf(&b, "; and %d more", len(problems)-3)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "row %d: %s", p.Row, p.Message)
	}
	return apperr.New(apperr.Conflict, "the fills no longer fit the journal (%s); preview the file again", b.String())
}
