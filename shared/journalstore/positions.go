package journalstore

import (
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
	"tradejournal/shared/encrypt"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
)

// NewPosition is the body of POST /api/positions.
type NewPosition struct {
	AccountID  *string       `json:"accountId"`
	Symbol     *string       `json:"symbol"`
	AssetType  *string       `json:"assetType"`
	Multiplier journal.Field `json:"multiplier,omitzero"` // futures, CFDs, crypto contracts; see multiplierInput
	// QuoteCurrency is a CFD's currency when it is not the account's.
	QuoteCurrency *string             `json:"quoteCurrency"`
	Side          *string             `json:"side"`
	StopLoss      journal.Field       `json:"stopLoss,omitzero"`
	TargetPrice   journal.Field       `json:"targetPrice,omitzero"`
	Notes         *string             `json:"notes"`
	Fills         []journal.FillInput `json:"fills"`
	TagIDs        []string            `json:"tagIds"`
}

// PositionPatch is the body of PATCH /api/positions/{positionId}: absent
// fields keep their value; null (or "") clears stopLoss and targetPrice.
type PositionPatch struct {
	AccountID  *string       `json:"accountId"`
	Symbol     *string       `json:"symbol"`
	AssetType  *string       `json:"assetType"`
	Multiplier journal.Field `json:"multiplier,omitzero"`
	// QuoteCurrency is a CFD's currency; "" for the account's.
	QuoteCurrency *string       `json:"quoteCurrency"`
	Side          *string       `json:"side"`
	StopLoss      journal.Field `json:"stopLoss,omitzero"`
	TargetPrice   journal.Field `json:"targetPrice,omitzero"`
	Notes         *string       `json:"notes"`
	// MaePrice and MfePrice are the trade's maximum adverse and favourable
	// excursions as prices; null (or "") clears them.
	MaePrice journal.Field `json:"maePrice,omitzero"`
	MfePrice journal.Field `json:"mfePrice,omitzero"`
}

// CreatePosition records a position with its fills and tags. Fees not given
// are estimated from the account's brokerage. Fills that cross zero split
// into the position and the opposite one (journal.Derive): the answer is
// the position asked for, and the changes name the ones a reversal opened.
func (s *Store) CreatePosition(ctx context.Context, userID string, in NewPosition) (Result, error) {
	ru, err := s.newRun(userID, in)
	if err != nil {
		return Result{}, err
	}
	var res Result
	err = s.write(ctx, userID, func(w *writeTx) error {
		b := w.batch()
		c, err := s.createRuns(ctx, w, b, []*run{ru})
		if err != nil {
			return err
		}
		// The position asked for is not news to its creator.
		c.Opened = slices.DeleteFunc(c.Opened, func(id string) bool { return id == ru.placed[0].id })
		if err := s.answer(b.b, w, ru.placed[0].id, c, &res); err != nil {
			return err
		}
		return b.flush(ctx)
	})
	return res, err
}

// CreatePositions records several positions in one transaction, each as
// CreatePosition would (a journal loaded in one go, like the demo
// journal), and returns their ids. A problem with any refuses them all,
// its fields prefixed with the position's index ("positions[3].symbol").
func (s *Store) CreatePositions(ctx context.Context, userID string, ins []NewPosition) ([]string, error) {
	runs := make([]*run, len(ins))
	for i, in := range ins {
		ru, err := s.newRun(userID, in)
		if e, ok := apperr.As(err); ok && e.Code == apperr.Validation {
			for k := range e.Details {
				e.Details[k].Field = "positions[" + strconv.Itoa(i) + "]." + e.Details[k].Field
			}
			return nil, e
		}
		if err != nil {
			return nil, err
		}
		runs[i] = ru
	}
	ids := make([]string, len(runs))
	err := s.write(ctx, userID, func(w *writeTx) error {
		b := w.batch()
		if _, err := s.createRuns(ctx, w, b, runs); err != nil {
			return err
		}
		for i, ru := range runs {
			ids[i] = ru.placed[0].id
		}
		return b.flush(ctx)
	})
	return ids, err
}

// newRun validates a position to create and derives its fills in memory:
// an exit before any entry is a 400 naming the fill before anything is
// read or written.
func (s *Store) newRun(userID string, in NewPosition) (*run, error) {
	now := s.now()
	var p journal.Problems
	accountID := ""
	switch {
	case in.AccountID == nil:
		p.Add("accountId", "is required")
	case !db.ValidUUID(*in.AccountID):
		p.Add("accountId", "must be one of your accounts")
	default:
		accountID = *in.AccountID
	}
	assetType, symbol := "", ""
	if in.AssetType != nil {
		assetType = *in.AssetType
	}
	if in.Symbol != nil {
		symbol = *in.Symbol
	}
	var fills []journal.FillValues
	if len(in.Fills) > journal.MaxFills {
		p.Add("fills", "must hold at most "+strconv.Itoa(journal.MaxFills)+" fills")
	} else {
		for i, f := range in.Fills {
			fills = append(fills, journal.ValidateFill(&p, "fills["+strconv.Itoa(i)+"].", f, assetType, now))
		}
	}
	// A future's one-digit year is read from when it was first traded.
	traded := now
	for _, f := range fills {
		if !f.FilledAt.IsZero() && f.FilledAt.Before(traded) {
			traded = f.FilledAt
		}
	}
	given := multiplierInput(&p, in.Multiplier)
	inst, err := instrument.Parse(assetType, symbol, traded)
	if err != nil {
		p.Merge(err)
	} else {
		p.Merge(inst.SettleMultiplier(given))
		p.Merge(inst.SettleQuote(in.QuoteCurrency))
	}
	side := validSide(&p, in.Side, true)
	fields := newFields{requested: in.TagIDs}
	if d, ok := p.Decimal("stopLoss", in.StopLoss, journal.PriceRule); ok {
		fields.stop = &d
	}
	if d, ok := p.Decimal("targetPrice", in.TargetPrice, journal.PriceRule); ok {
		fields.target = &d
	}
	notes := ""
	if in.Notes != nil {
		p.Merge(journal.Text("notes", *in.Notes, journal.MaxNotesChars))
		notes = *in.Notes
	}
	fields.tagIDs = validTagIDs(&p, in.TagIDs)
	if err := p.Err(); err != nil {
		return nil, err
	}
	fields.notes = s.keyring.Seal(encrypt.PositionNotes, notes)

	ru := &run{side: side, first: &fields, inst: newRunInstrument(userID, accountID, inst)}
	for i, f := range fills {
		ru.execs = append(ru.execs, &execution{Execution: journal.Execution{Buy: journal.IsBuy(side, f.Type), Price: f.Price,
			Quantity: f.Quantity, Fees: f.Fees, FilledAt: f.FilledAt, Rate: f.Rate, FeeAsset: f.FeeAsset}, rank: typeRank(f.Type), req: i,
			estimate: !f.FeesGiven, rateGiven: f.Rate != nil})
	}
	if err := ru.derive(""); err != nil {
		return nil, err
	}
	return ru, nil
}

// createRuns queues the write of new runs into b (writeRuns): it locks
// their accounts and checks their tags (answered when b is sent: an
// account or a tag not the user's rolls the write back), estimates the
// fees not given, names the rows and writes them.
func (s *Store) createRuns(ctx context.Context, w *writeTx, b *batchWriter, runs []*run) (Changes, error) {
	locked := map[string]bool{}
	for _, ru := range runs {
		if a := ru.inst.accountID; !locked[a] {
			if err := lockAccount(b.b, w.userID, a); err != nil {
				return Changes{}, err
			}
			locked[a] = true
		}
		checkTags(b.b, w.userID, ru.first.requested, ru.first.tagIDs)
		if err := estimateFees(ctx, w, ru.inst.accountID, ru.inst.assetType, ru.execs); err != nil {
			return Changes{}, err
		}
		ru.newIDs()
		if err := ru.derive(""); err != nil {
			return Changes{}, err
		}
	}
	return w.writeRuns(ctx, b, runs)
}

// estimateFees charges the executions whose fee was not given from the
// account's fee schedule (none: 0) and marks them estimated.
func estimateFees(ctx context.Context, q db.Querier, accountID, assetType string, execs []*execution) error {
	if !slices.ContainsFunc(execs, func(e *execution) bool { return e.estimate }) {
		return nil
	}
	schedule, err := FeeSchedule(ctx, q, accountID)
	if err != nil {
		return err
	}
	for _, e := range execs {
		if e.estimate {
			e.Fees, e.FeeEstimated = journal.EstimateFee(schedule, instrument.Contracts(assetType), e.Quantity)
		}
	}
	return nil
}

// answer queues the read of the position written, in the transaction,
// into b, read into res once b is sent.
func (s *Store) answer(b *pgx.Batch, w *writeTx, id string, c Changes, res *Result) error {
	for _, l := range []*[]string{&c.Opened, &c.Closed, &c.Reopened, &c.Removed} {
		if *l == nil {
			*l = []string{}
		}
	}
	res.Changes = c
	return loadPosition(b, s.keyring, w.userID, id, s.now(), &res.Position)
}

// UpdatePosition changes a position's own fields and derives its run again
// (a new side, stop, asset type or account changes its figures; a new
// account moves the ledger rows and both balances). The account and the
// instrument are the run's: a change to one position changes every
// position of its run.
func (s *Store) UpdatePosition(ctx context.Context, userID, id string, in PositionPatch) (Result, error) {
	if !db.ValidUUID(id) {
		return Result{}, apperr.ErrNotFound
	}
	var p journal.Problems
	if in.AccountID != nil && !db.ValidUUID(*in.AccountID) {
		p.Add("accountId", "must be one of your accounts")
	}
	side := validSide(&p, in.Side, false)
	var stop, target *decimal.Decimal
	if d, ok := p.Decimal("stopLoss", in.StopLoss, journal.PriceRule); ok {
		stop = &d
	}
	if d, ok := p.Decimal("targetPrice", in.TargetPrice, journal.PriceRule); ok {
		target = &d
	}
	var mae, mfe *decimal.Decimal
	if d, ok := p.Decimal("maePrice", in.MaePrice, journal.PriceRule); ok {
		mae = &d
	}
	if d, ok := p.Decimal("mfePrice", in.MfePrice, journal.PriceRule); ok {
		mfe = &d
	}
	if in.Notes != nil {
		p.Merge(journal.Text("notes", *in.Notes, journal.MaxNotesChars))
	}
	if in.AssetType != nil && !instrument.ValidAssetType(*in.AssetType) {
		p.Add("assetType", "must be "+instrument.AssetTypesText)
	}
	given := multiplierInput(&p, in.Multiplier)
	if err := p.Err(); err != nil {
		return Result{}, err
	}
	var sealedNotes *string
	if in.Notes != nil {
		sealed := s.keyring.Seal(encrypt.PositionNotes, *in.Notes)
		sealedNotes = &sealed
	}

	var res Result
	err := s.write(ctx, userID, func(w *writeTx) error {
		ru, err := lockRun(ctx, w, userID, id)
		if err != nil {
			return err
		}
		me := slices.IndexFunc(ru.members, func(m *member) bool { return m.id == id })
		cur := ru.inst
		var openedAt *time.Time
		const q = `SELECT min(opened_at) FROM positions WHERE id = ANY($1::uuid[])`
		if err := w.QueryRow(ctx, q, ru.ids()).Scan(&openedAt); err != nil {
			return db.Classify(err)
		}
		assetType, symbol := cur.assetType, cur.symbol
		if in.AssetType != nil {
			assetType = *in.AssetType
		}
		if in.Symbol != nil {
			symbol = *in.Symbol
		}
		traded := s.now()
		if openedAt != nil {
			traded = *openedAt
		}
		inst, err := instrument.Parse(assetType, symbol, traded)
		if err != nil {
			return err
		}
		// A future (or a futures option) keeps the multiplier it was given
		// while its root stays (a roll from ESZ24 to ESH25 of a custom
		// point value).
		if f := inst.Contract(); given == nil && f != nil && cur.assetType == assetType &&
			cur.columns.Underlying != nil && *cur.columns.Underlying == f.Root {
			given = &cur.multiplier
		}
		// A CFD or a crypto contract keeps its value per point while it stays one.
		if given == nil && cur.assetType == assetType && (assetType == instrument.AssetCFD || assetType == instrument.AssetCrypto) {
			given = &cur.multiplier
		}
		if err := inst.SettleMultiplier(given); err != nil {
			return err
		}
		// A CFD keeps its currency unless the patch names another.
		quote := in.QuoteCurrency
		if quote == nil && assetType == instrument.AssetCFD && cur.assetType == instrument.AssetCFD {
			quote = &cur.quote
		}
		if err := inst.SettleQuote(quote); err != nil {
			return err
		}
		if instrument.Contracts(assetType) && !instrument.Contracts(cur.assetType) && ru.fractional() {
			return apperr.Invalid("assetType", "options, futures and futures options trade in whole contracts, and this position has fills of fractional quantities")
		}
		accountID := cur.accountID
		if in.AccountID != nil && *in.AccountID != cur.accountID {
			accountID = *in.AccountID
			if err := w.lockAccount(ctx, accountID); err != nil {
				return err
			}
		}
		if err := keepsStrategy(ctx, w, ru.ids(), cur, accountID, inst); err != nil {
			return err
		}
		ru.inst = newRunInstrument(userID, accountID, inst)
		if side != "" && side != ru.members[me].side {
			ru.members[me].side = side
			ru.execs = nil
			ru.executions() // the fills keep their types: their directions turn
		}
		if in.StopLoss.Set {
			ru.members[me].stop = stop
		}
		if err := ru.derive(""); err != nil {
			return err
		}
		// The run's shared columns first: the ledger rows the write
		// rewrites are the new account's.
		c := inst.Columns()
		const shared = `UPDATE positions SET account_id = $2, symbol = $3, asset_type = $4, underlying = $5,
				option_expiry = $6, option_right = $7, option_strike = $8, contract_month = $9, multiplier = $10,
				base_currency = $11, quote_currency = $12, updated_at = now()
			WHERE id = ANY($1::uuid[])`
		if _, err := w.Exec(ctx, shared, ru.ids(), accountID, inst.Symbol, assetType, c.Underlying, c.Expiry, c.Right,
			c.Strike, c.ContractMonth, inst.Multiplier, db.NullIfEmpty(ru.inst.base), db.NullIfEmpty(ru.inst.quote)); err != nil {
			return classify(err)
		}
		if in.StopLoss.Set || in.TargetPrice.Set {
			// A stop or target moved makes the bars' measure stale (which
			// of the two the price reached first): the position goes back
			// to the excursions job.
			const moved = `UPDATE positions SET ` + forgetMeasure + `
				WHERE id = $1 AND ($2 AND $3::numeric IS DISTINCT FROM stop_loss OR $4 AND $5::numeric IS DISTINCT FROM target_price)`
			if _, err := w.Exec(ctx, moved, id, in.StopLoss.Set, stop, in.TargetPrice.Set, target); err != nil {
				return classify(err)
			}
		}
		const own = `UPDATE positions SET stop_loss = CASE WHEN $2 THEN $3 ELSE stop_loss END,
				target_price = CASE WHEN $4 THEN $5 ELSE target_price END, notes = coalesce($6, notes),
				mae_price = CASE WHEN $7 THEN $8 ELSE mae_price END, mfe_price = CASE WHEN $9 THEN $10 ELSE mfe_price END
			WHERE id = $1`
		if _, err := w.Exec(ctx, own, id, in.StopLoss.Set, stop, in.TargetPrice.Set, target, sealedNotes,
			in.MaePrice.Set, mae, in.MfePrice.Set, mfe); err != nil {
			return classify(err)
		}
		b := w.batch()
		ch, err := w.writeRuns(ctx, b, []*run{ru})
		if err != nil {
			return err
		}
		if in.MaePrice.Set || in.MfePrice.Set {
			// Checked against the entry as written, so a refusal rolls
			// the whole patch back.
			checkExcursions(b.b, ru.survivor(id))
		}
		if err := s.answer(b.b, w, ru.survivor(id), ch, &res); err != nil {
			return err
		}
		return b.flush(ctx)
	})
	return res, err
}

// checkExcursions queues the check of a position's MAE and MFE prices
// against its side and its fills' prices (journal.CheckExcursions).
func checkExcursions(b *pgx.Batch, id string) {
	const sql = `SELECT p.side, min(f.price), max(f.price), p.mae_price, p.mfe_price
		FROM positions p LEFT JOIN fills f ON f.position_id = p.id WHERE p.id = $1 GROUP BY p.id`
	b.Queue(sql, id).QueryRow(func(row pgx.Row) error {
		var (
			side                string
			low, high, mae, mfe *decimal.Decimal
		)
		if err := row.Scan(&side, &low, &high, &mae, &mfe); err != nil {
			return db.Classify(err)
		}
		return journal.CheckExcursions(side, low, high, mae, mfe)
	})
}

// ids returns the run's stored position ids.
func (ru *run) ids() []string {
	ids := make([]string, len(ru.members))
	for i, m := range ru.members {
		ids[i] = m.id
	}
	return ids
}

// fractional reports whether a fill of the run has a fractional quantity.
func (ru *run) fractional() bool {
	return slices.ContainsFunc(ru.execs, func(e *execution) bool { return !e.Quantity.Equal(e.Quantity.Truncate(0)) })
}

// survivor returns id if the derivation kept that position, else the
// run's first position.
func (ru *run) survivor(id string) string {
	for _, p := range ru.placed {
		if p.id == id {
			return id
		}
	}
	return ru.placed[0].id
}

// DeletePosition deletes the user's position with its fills, tags, images
// and ledger rows, takes its ledger's sum off the account's balance, and
// returns the storage keys of its images (deleted once this commits). The
// rest of its run stays: a reversal's opening part in the next position
// becomes a fill of its own, and that position starts a run.
func (s *Store) DeletePosition(ctx context.Context, userID, id string) ([]string, error) {
	if !db.ValidUUID(id) {
		return nil, apperr.ErrNotFound
	}
	var keys []string
	err := s.write(ctx, userID, func(w *writeTx) error {
		if err := w.lockPosition(ctx, id); err != nil {
			return err
		}
		const q = `SELECT storage_key FROM position_images WHERE position_id = $1 AND storage_key IS NOT NULL`
		rows, err := w.Query(ctx, q, id)
		if err != nil {
			return db.Classify(err)
		}
		if keys, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
			return db.Classify(err)
		}
		b := &pgx.Batch{}
		w.deleteLedger(b, []string{id})
		b.Queue(`DELETE FROM positions WHERE id = $1`, id)
		return w.send(ctx, b)
	})
	return keys, err
}

// SetTags replaces a position's tags with the given list (empty clears).
func (s *Store) SetTags(ctx context.Context, userID, id string, tagIDs []string) (Result, error) {
	if !db.ValidUUID(id) {
		return Result{}, apperr.ErrNotFound
	}
	var p journal.Problems
	if tagIDs == nil {
		p.Add("tagIds", "is required (an empty list removes every tag)")
	}
	ids := validTagIDs(&p, tagIDs)
	if err := p.Err(); err != nil {
		return Result{}, err
	}
	var res Result
	err := s.write(ctx, userID, func(w *writeTx) error {
		if err := w.lockPosition(ctx, id); err != nil {
			return err
		}
		b := &pgx.Batch{}
		checkTags(b, userID, tagIDs, ids)
		b.Queue(`DELETE FROM position_tags WHERE position_id = $1`, id)
		if len(ids) > 0 {
			b.Queue(`INSERT INTO position_tags (position_id, tag_id) SELECT $1, unnest($2::uuid[])`, id, ids)
		}
		b.Queue(`UPDATE positions SET updated_at = now() WHERE id = $1`, id)
		if err := s.answer(b, w, id, Changes{}, &res); err != nil {
			return err
		}
		return w.send(ctx, b)
	})
	return res, err
}

// DeleteTag deletes the user's tag and takes it off every position (the
// positions locked first, so their statistics' rows are refreshed); a
// malformed, missing or foreign id is apperr.ErrNotFound.
func (s *Store) DeleteTag(ctx context.Context, userID, tagID string) error {
	if !db.ValidUUID(tagID) {
		return apperr.ErrNotFound
	}
	return s.write(ctx, userID, func(w *writeTx) error {
		if _, err := w.lockPositions(ctx, `p.id IN (SELECT position_id FROM position_tags WHERE tag_id = $2)`, tagID); err != nil {
			return err
		}
		return db.DeleteOwned(ctx, w, "tags", tagID, userID)
	})
}

// LockPosition locks the user's position for the rest of tx (SELECT ... FOR
// UPDATE); a position that does not exist or is not the user's is
// apperr.ErrNotFound. Writes to a position's images take it too, so they
// run one after the other with the journal's writes.
func LockPosition(ctx context.Context, q db.Querier, userID, positionID string) error {
	if !db.ValidUUID(positionID) {
		return apperr.ErrNotFound
	}
	var ok bool
	err := q.QueryRow(ctx, `SELECT true FROM positions WHERE id = $1 AND user_id = $2 FOR UPDATE`, positionID, userID).Scan(&ok)
	return db.Classify(err)
}

// multiplierInput reads the multiplier field of a create or a patch: a
// future's point value, a decimal string ("0.5"), required for a root
// without a built-in one; absent or null leaves it to the root's table
// value (instrument.Instrument.SettleMultiplier).
func multiplierInput(p *journal.Problems, f journal.Field) *decimal.Decimal {
	if d, ok := p.Decimal("multiplier", f, journal.MultiplierRule); ok {
		return &d
	}
	return nil
}

func validSide(p *journal.Problems, side *string, required bool) string {
	switch {
	case side == nil:
		if required {
			p.Add("side", "is required")
		}
	case *side == journal.SideLong, *side == journal.SideShort:
		return *side
	default:
		p.Add("side", "must be long or short")
	}
	return ""
}

// validTagIDs checks a tag id list's shape and drops repeats.
func validTagIDs(p *journal.Problems, ids []string) []string {
	if len(ids) > journal.MaxTagsPerItem {
		p.Add("tagIds", "must hold at most "+strconv.Itoa(journal.MaxTagsPerItem)+" tags")
		return nil
	}
	seen := map[string]bool{}
	out := make([]string, 0, len(ids))
	for i, id := range ids {
		if !db.ValidUUID(id) {
			p.Add("tagIds["+strconv.Itoa(i)+"]", "must be a tag id")
			continue
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// checkTags queues the check that tag ids are the user's: when b is sent,
// those that are not are refused, each named by its index in the request.
func checkTags(b *pgx.Batch, userID string, requested, ids []string) {
	if len(ids) == 0 {
		return
	}
	b.Queue(`SELECT id::text FROM tags WHERE id = ANY($1::uuid[]) AND user_id = $2`, ids, userID).Query(func(rows pgx.Rows) error {
		found, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil || len(found) == len(ids) {
			return err
		}
		mine := map[string]bool{}
		for _, id := range found {
			mine[id] = true
		}
		var p journal.Problems
		for i, id := range requested {
			if !mine[id] {
				p.Add("tagIds["+strconv.Itoa(i)+"]", "is not one of your tags")
			}
		}
		return p.Err()
	})
}

// keepsStrategy refuses a change that would take a strategy's leg (among
// ids) out of what a strategy holds: one account, one underlying, no
// futures (setLegs has the same rules).
func keepsStrategy(ctx context.Context, q db.Querier, ids []string, cur runInstrument, accountID string, inst instrument.Instrument) error {
	underlying := func(symbol string, u *string) string {
		if u != nil {
			return *u
		}
		return symbol
	}
	c := inst.Columns()
	sameUnderlying := underlying(cur.symbol, cur.columns.Underlying) == underlying(inst.Symbol, c.Underlying)
	if accountID == cur.accountID && sameUnderlying && inst.Future == nil {
		return nil
	}
	var leg bool
	if err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM positions WHERE id = ANY($1::uuid[]) AND strategy_id IS NOT NULL)`, ids).Scan(&leg); err != nil || !leg {
		return classify(err)
	}
	const why = "cannot change: the position is a leg of a strategy, whose legs share one account and underlying; take it out of the strategy first"
	switch {
	case accountID != cur.accountID:
		return apperr.Invalid("accountId", why)
	case inst.Future != nil:
		return apperr.Invalid("assetType", "cannot be future: the position is a leg of a strategy, which holds options and their underlying's shares")
	default:
		return apperr.Invalid("symbol", why)
	}
}
