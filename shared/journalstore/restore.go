package journalstore

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/encrypt"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
)

// RestoredRun is one run of positions as a backup holds it (shared/backup):
// the instrument the run shares and its positions in run order, each with
// its fills as stored, so a reversal's fill is its two parts.
type RestoredRun struct {
	AccountID  string // the account's new id
	Symbol     string
	AssetType  string
	Multiplier decimal.Decimal
	Quote      string // a CFD's currency; "" for the account's
	Positions  []RestoredPosition
}

// RestoredPosition is a position's own fields and fills.
type RestoredPosition struct {
	Side        string
	StopLoss    *decimal.Decimal
	TargetPrice *decimal.Decimal
	Notes       string   // plaintext; sealed here
	TagIDs      []string // the tags' new ids
	Fills       []RestoredFill
}

// RestoredFill is a fill row. ID is the backup's own id, only to pair a
// reversal's parts: SplitOf names, on an opening part, its closing part in
// the position before.
type RestoredFill struct {
	ID           string
	Type         string
	Price        decimal.Decimal
	Quantity     decimal.Decimal
	Fees         decimal.Decimal
	FeeEstimated bool
	FilledAt     time.Time
	SplitOf      string
	Rate         *decimal.Decimal // given by the trader or the file
	FeeAsset     string           // a crypto fee's coin; "" for the account's currency
}

// Restorer writes a backup's journal: positions with their fills and
// tags, deposits and withdrawals, strategies, what positions follow and
// met, excursions. It is one write (writeTx) of the caller's restore.
type Restorer struct {
	s *Store
	w *writeTx
}

// Restore runs fn in tx, the caller's transaction (a restore writes the
// rest of the user's data in it too), with a Restorer for the journal's
// records; once fn returns, the derived rows (balances, strategies'
// analysis, the statistics' rows) are brought up to date from what it
// wrote.
func (s *Store) Restore(ctx context.Context, tx pgx.Tx, userID string, fn func(*Restorer) error) error {
	return within(ctx, tx, userID, nil, func(w *writeTx) error { return fn(&Restorer{s: s, w: w}) })
}

// Runs writes a backup's positions: each run's fills are derived and
// written by the same code as every other write, so the figures, ledger
// rows and balances are this version's, not the backup's. It returns each
// run's new position ids in run order. A run whose fills do not derive
// into the positions the backup lists (another number, other sides, other
// fills) is a VALIDATION_ERROR naming the run (field "positions[i]"): the
// backup is not consistent.
func (r *Restorer) Runs(ctx context.Context, in []RestoredRun) ([][]string, error) {
	w := r.w
	runs := make([]*run, len(in))
	locked := map[string]bool{}
	b := w.batch()
	for i, rr := range in {
		ru, err := r.s.restoredRun(w.userID, rr)
		if e, ok := apperr.As(err); ok && e.Code == apperr.Validation {
			return nil, apperr.Invalid("positions["+strconv.Itoa(i)+"]", e.Message)
		}
		if err != nil {
			return nil, err
		}
		if !locked[rr.AccountID] {
			if err := lockAccount(b.b, w.userID, rr.AccountID); err != nil {
				return nil, err
			}
			locked[rr.AccountID] = true
		}
		for _, p := range ru.placed {
			checkTags(b.b, w.userID, p.fields.tagIDs, p.fields.tagIDs)
		}
		runs[i] = ru
	}
	if _, err := w.writeRuns(ctx, b, runs); err != nil {
		return nil, err
	}
	if err := b.flush(ctx); err != nil {
		return nil, err
	}
	ids := make([][]string, len(runs))
	for i, ru := range runs {
		for _, p := range ru.placed {
			ids[i] = append(ids[i], p.id)
		}
	}
	return ids, nil
}

// restoredRun validates one run, derives it and gives each derived
// position its own fields.
func (s *Store) restoredRun(userID string, r RestoredRun) (*run, error) {
	if len(r.Positions) == 0 {
		return nil, apperr.Invalid("positions", "a run holds at least one position")
	}
	var first time.Time
	for _, p := range r.Positions {
		for _, f := range p.Fills {
			if first.IsZero() || f.FilledAt.Before(first) {
				first = f.FilledAt
			}
		}
	}
	if first.IsZero() {
		first = s.now()
	}
	inst, err := instrument.Parse(r.AssetType, r.Symbol, first)
	if err != nil {
		return nil, err
	}
	// A future, a futures option, a CFD or a crypto contract keeps its
	// point value (a root without a built-in one has only this); stocks,
	// options and forex have theirs.
	var given *decimal.Decimal
	if inst.Contract() != nil || r.AssetType == instrument.AssetCFD || r.AssetType == instrument.AssetCrypto {
		given = &r.Multiplier
	}
	if err := inst.SettleMultiplier(given); err != nil {
		return nil, err
	}
	if err := inst.SettleQuote(&r.Quote); err != nil {
		return nil, err
	}
	ru := &run{inst: newRunInstrument(userID, r.AccountID, inst)}
	fields := make([]*newFields, len(r.Positions))
	closing := map[string]*execution{}
	now := s.now()
	var p journal.Problems
	for mi, pos := range r.Positions {
		side := validSide(&p, &pos.Side, true)
		if mi == 0 {
			ru.side = side
		}
		tagIDs := validTagIDs(&p, pos.TagIDs)
		p.Merge(journal.Text("notes", pos.Notes, journal.MaxNotesChars))
		fields[mi] = &newFields{stop: pos.StopLoss, target: pos.TargetPrice, tagIDs: tagIDs,
			notes: s.keyring.Seal(encrypt.PositionNotes, pos.Notes)}
		for _, f := range pos.Fills {
			v := journal.ValidateFill(&p, "", fillInput(f), r.AssetType, now)
			if p.Err() != nil {
				return nil, p.Err()
			}
			if e := closing[f.SplitOf]; f.SplitOf != "" && e != nil {
				e.Quantity = e.Quantity.Add(v.Quantity)
				e.Fees = e.Fees.Add(v.Fees)
				e.FeeEstimated = e.FeeEstimated || f.FeeEstimated
				delete(closing, f.SplitOf)
				continue
			}
			e := &execution{Execution: journal.Execution{Buy: journal.IsBuy(side, v.Type), Price: v.Price,
				Quantity: v.Quantity, Fees: v.Fees, FeeEstimated: f.FeeEstimated, FilledAt: v.FilledAt, Rate: v.Rate, FeeAsset: v.FeeAsset},
				member: mi, rank: typeRank(v.Type), req: -1, rateGiven: v.Rate != nil}
			closing[f.ID] = e
			ru.execs = append(ru.execs, e)
		}
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	ru.first = fields[0]
	ru.newIDs()
	if err := ru.derive(""); err != nil {
		return nil, err
	}
	if len(ru.placed) != len(r.Positions) {
		return nil, apperr.Invalid("positions", "the fills make "+strconv.Itoa(len(ru.placed))+" positions, not the "+
			strconv.Itoa(len(r.Positions))+" listed")
	}
	for i := range ru.placed {
		pl, pos := &ru.placed[i], r.Positions[i]
		if pl.side != pos.Side || len(pl.legs) != len(pos.Fills) {
			return nil, apperr.Invalid("positions", "position "+strconv.Itoa(i+1)+" of the run does not match its fills")
		}
		pl.fields, pl.stop = fields[i], fields[i].stop
		if i > 0 && pl.stop != nil {
			t := journal.Trade{Side: pl.side, Multiplier: inst.Multiplier, StopLoss: pl.stop, Fills: make([]journal.Fill, len(pl.legs))}
			for k, l := range pl.legs {
				t.Fills[k] = l.Fill
			}
			if pl.figures, err = journal.Compute(t); err != nil {
				return nil, err
			}
		}
	}
	return ru, nil
}

// fillInput is a stored fill as the request form ValidateFill checks.
func fillInput(f RestoredFill) journal.FillInput {
	typ, at := f.Type, f.FilledAt.UTC().Format(time.RFC3339Nano)
	field := func(d decimal.Decimal) journal.Field { return journal.Field{Set: true, Str: d.String()} }
	in := journal.FillInput{Type: &typ, Price: field(f.Price), Quantity: field(f.Quantity), Fees: field(f.Fees), FilledAt: &at}
	if f.Rate != nil {
		in.Rate = field(*f.Rate)
	}
	if f.FeeAsset != "" {
		in.FeeAsset = &f.FeeAsset
	}
	return in
}

// LedgerEntries records a backup's deposits and withdrawals on the
// user's account and moves its balance by their sum. Amounts are
// positive, as AddLedgerEntry takes them.
func (r *Restorer) LedgerEntries(ctx context.Context, accountID string, entries []LedgerEntry) error {
	if len(entries) == 0 {
		return nil
	}
	w := r.w
	if err := w.lockAccount(ctx, accountID); err != nil {
		return err
	}
	rows := make([][]any, len(entries))
	for i, e := range entries {
		amount := e.Amount
		if e.Kind == "withdrawal" {
			amount = amount.Neg()
		}
		w.move(accountID, amount)
		rows[i] = []any{copyUUID(accountID), e.Kind, amount, e.At, e.Note}
	}
	_, err := w.CopyFrom(ctx, pgx.Identifier{"ledger_entries"}, []string{"account_id", "kind", "amount", "occurred_at", "note"},
		pgx.CopyFromRows(rows))
	return classify(err)
}

// RestoredStrategy is a strategy as a backup holds it, its legs the
// restored positions' new ids.
type RestoredStrategy struct {
	AccountID   string
	Name        string
	PlannedRisk *decimal.Decimal
	CreatedAt   time.Time
	Legs        []string
}

// ErrRestoredLegs answers a restored strategy whose legs are not restored
// positions of its account, or are in another strategy already.
var ErrRestoredLegs = errors.New("a strategy's legs are in another account, or in another strategy")

// Strategy restores a strategy and points its legs at it. The other
// rules of a strategy (one underlying, no futures) held when it was made
// and are not checked again here.
func (r *Restorer) Strategy(ctx context.Context, in RestoredStrategy) error {
	const q = `WITH s AS (INSERT INTO strategies (user_id, account_id, name, planned_risk, created_at)
			VALUES ($1, $2, $3, $4, $5) RETURNING id)
		UPDATE positions SET strategy_id = (SELECT id FROM s) WHERE id = ANY($6::uuid[]) AND account_id = $2 AND strategy_id IS NULL`
	tag, err := r.w.Exec(ctx, q, r.w.userID, in.AccountID, in.Name, in.PlannedRisk, in.CreatedAt, in.Legs)
	if err != nil {
		return classify(err)
	}
	if tag.RowsAffected() != int64(len(in.Legs)) {
		return ErrRestoredLegs
	}
	r.w.touch(in.Legs...)
	return nil
}

// Follows writes what restored positions follow and met.
func (r *Restorer) Follows(ctx context.Context, in []RestoredFollow) error {
	return restoreFollows(ctx, r.w, in)
}

// Excursion is a restored position's MAE and MFE prices.
type Excursion struct {
	PositionID string
	Mae, Mfe   *decimal.Decimal
}

// Excursions sets restored positions' MAE and MFE prices as archived, in
// one statement: the trader's own figures, kept as they were (the api
// checks their side of the entry when they are typed, not here).
func (r *Restorer) Excursions(ctx context.Context, in []Excursion) error {
	if len(in) == 0 {
		return nil
	}
	ids, mae, mfe := make([]string, len(in)), make([]*decimal.Decimal, len(in)), make([]*decimal.Decimal, len(in))
	for i, e := range in {
		ids[i], mae[i], mfe[i] = e.PositionID, e.Mae, e.Mfe
	}
	const q = `UPDATE positions p SET mae_price = x.mae, mfe_price = x.mfe
		FROM unnest($2::uuid[], $3::numeric[], $4::numeric[]) AS x(id, mae, mfe) WHERE p.id = x.id AND p.user_id = $1`
	_, err := r.w.Exec(ctx, q, r.w.userID, ids, mae, mfe)
	// Their records carry the excursions: read back at the settle, not
	// taken as the restore made them.
	r.w.touch(ids...)
	return classify(err)
}
