// Package positions is the route group of the journal's positions: the
// positions themselves, their fills (from which every figure is derived),
// their tags and their images, and the filtered, keyset-paginated list.
//
// Every write that touches fills runs in one transaction that locks the
// position row, writes, and calls journal.Recompute, which rewrites the
// position's figures, its ledger rows and the account balance. Every record
// is scoped to its owner: another user's id, a missing id and a malformed id
// are the same codeless 404.
package positions

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/app"
	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/encrypt"
	"tradejournal/shared/httpx"
	"tradejournal/shared/journal"
	"tradejournal/shared/sizing"
)

type handler struct{ app *app.App }

// Group returns the positions route group.
func Group(a *app.App) httpx.Group {
	h := handler{app: a}
	require := a.Sessions.Require
	return httpx.Group{
		Name:   "positions",
		Mounts: []string{"/api/positions", "/api/positions/"},
		Routes: []httpx.Route{
			{Pattern: "GET /api/positions", Handler: require(h.list)},
			{Pattern: "POST /api/positions", Handler: require(h.create)},
			{Pattern: "GET /api/positions/{positionId}", Handler: require(h.get)},
			{Pattern: "PATCH /api/positions/{positionId}", Handler: require(h.update)},
			{Pattern: "DELETE /api/positions/{positionId}", Handler: require(h.delete)},
			{Pattern: "POST /api/positions/{positionId}/fills", Handler: require(h.addFill)},
			{Pattern: "PATCH /api/positions/{positionId}/fills/{fillId}", Handler: require(h.updateFill)},
			{Pattern: "DELETE /api/positions/{positionId}/fills/{fillId}", Handler: require(h.deleteFill)},
			{Pattern: "PUT /api/positions/{positionId}/tags", Handler: require(h.setTags)},
			{Pattern: "GET /api/positions/{positionId}/images", Handler: require(h.listImages)},
			{Pattern: "POST /api/positions/{positionId}/images", Handler: require(h.addImage)},
			{Pattern: "GET /api/positions/{positionId}/images/{imageId}", Handler: require(h.getImage)},
			{Pattern: "DELETE /api/positions/{positionId}/images/{imageId}", Handler: require(h.deleteImage)},
		},
	}
}

// createRequest is the body of POST /api/positions.
type createRequest struct {
	AccountID   *string             `json:"accountId"`
	Symbol      *string             `json:"symbol"`
	AssetType   *string             `json:"assetType"`
	Multiplier  journal.Field       `json:"multiplier,omitzero"` // futures only; see multiplierInput
	Side        *string             `json:"side"`
	StopLoss    journal.Field       `json:"stopLoss,omitzero"`
	TargetPrice journal.Field       `json:"targetPrice,omitzero"`
	Notes       *string             `json:"notes"`
	Fills       []journal.FillInput `json:"fills"`
	TagIDs      []string            `json:"tagIds"`
}

// fillProblem turns Compute's and Recompute's *journal.FillError into a
// VALIDATION_ERROR whose detail names a request field (field decides
// which); anything else passes through.
func fillProblem(err error, field func(fe *journal.FillError) string) error {
	var fe *journal.FillError
	if !errors.As(err, &fe) {
		return err
	}
	f := field(fe)
	return &apperr.Error{Code: apperr.Validation, Message: fe.Message,
		Details: []apperr.FieldError{{Field: f, Message: fe.Message}}}
}

// otherFills names a fill error "fills" unless it is about the fill the
// request wrote, which it names by the fill field.
func otherFills(written string) func(*journal.FillError) string {
	return func(fe *journal.FillError) string {
		if written != "" && fe.FillID == written {
			return fe.Field
		}
		return "fills"
	}
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
		if !journal.ValidUUID(id) {
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

// checkTags refuses tag ids that are not the user's, naming each by its
// index in the request.
func checkTags(ctx context.Context, q db.Querier, userID string, requested, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	rows, err := q.Query(ctx, `SELECT id::text FROM tags WHERE id = ANY($1::uuid[]) AND user_id = $2`, ids, userID)
	if err != nil {
		return db.Classify(err)
	}
	found, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return db.Classify(err)
	}
	if len(found) == len(ids) {
		return nil
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
}

// checkAccount takes a key-share lock on the user's account (so a
// concurrent account delete waits and then counts this position) and
// refuses an account that is not theirs.
func checkAccount(ctx context.Context, tx pgx.Tx, userID, accountID string) error {
	var ok bool
	const sql = `SELECT true FROM accounts WHERE id = $1 AND user_id = $2 FOR KEY SHARE`
	err := tx.QueryRow(ctx, sql, accountID, userID).Scan(&ok)
	if errors.Is(err, pgx.ErrNoRows) {
		return apperr.Invalid("accountId", "must be one of your accounts")
	}
	return db.Classify(err)
}

// create records a position, with its fills and tags if given, in one
// transaction. Fees not given are estimated from the account's brokerage.
func (h handler) create(w http.ResponseWriter, r *http.Request) {
	var in createRequest
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	now := h.app.Now()
	var p journal.Problems
	accountID := ""
	switch {
	case in.AccountID == nil:
		p.Add("accountId", "is required")
	case !journal.ValidUUID(*in.AccountID):
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
			fills = append(fills, journal.ValidateFill(&p, "fills["+strconv.Itoa(i)+"].", f, journal.Contracts(assetType), now))
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
	inst, field, msg := journal.ParseInstrument(assetType, symbol, traded)
	if msg != "" {
		p.Add(field, msg)
	} else if msg := inst.SettleMultiplier(given); msg != "" {
		p.Add("multiplier", msg)
	}
	side := validSide(&p, in.Side, true)
	stop, stopOK := p.Decimal("stopLoss", in.StopLoss, journal.PriceRule)
	target, targetOK := p.Decimal("targetPrice", in.TargetPrice, journal.PriceRule)
	notes := ""
	if in.Notes != nil {
		if msg := journal.Text(*in.Notes, journal.MaxNotesChars); msg != "" {
			p.Add("notes", msg)
		}
		notes = *in.Notes
	}
	tagIDs := validTagIDs(&p, in.TagIDs)
	if err := p.Err(); err != nil {
		httpx.Error(w, r, err)
		return
	}
	var stopPtr, targetPtr *decimal.Decimal
	if stopOK {
		stopPtr = &stop
	}
	if targetOK {
		targetPtr = &target
	}
	// The arithmetic first, in memory: an exit past the open quantity is a
	// 400 naming the fill before anything is written.
	trade := journal.Trade{Side: side, Multiplier: inst.Multiplier, StopLoss: stopPtr}
	for _, f := range fills {
		trade.Fills = append(trade.Fills, journal.Fill{Type: f.Type, Price: f.Price, Quantity: f.Quantity, Fees: f.Fees, FilledAt: f.FilledAt})
	}
	byIndex := func(fe *journal.FillError) string { return "fills[" + strconv.Itoa(fe.Index) + "]." + fe.Field }
	if _, err := journal.Compute(trade); err != nil {
		httpx.Error(w, r, fillProblem(err, byIndex))
		return
	}

	ctx := r.Context()
	userID := auth.CurrentUser(ctx).ID
	var pos Position
	err := journal.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		if err := checkAccount(ctx, tx, userID, accountID); err != nil {
			return err
		}
		if err := checkTags(ctx, tx, userID, in.TagIDs, tagIDs); err != nil {
			return err
		}
		c := inst.Columns()
		const ins = `INSERT INTO positions (user_id, account_id, symbol, asset_type, underlying, option_expiry,
				option_right, option_strike, contract_month, multiplier, side, stop_loss, target_price, notes)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING id::text`
		var id string
		if err := tx.QueryRow(ctx, ins, userID, accountID, inst.Symbol, assetType, c.Underlying, c.Expiry, c.Right, c.Strike,
			c.ContractMonth, inst.Multiplier, side, stopPtr, targetPtr, h.app.Keyring.Seal(encrypt.PositionNotes, notes)).Scan(&id); err != nil {
			return journal.Classify(err)
		}
		if _, err := insertFills(ctx, tx, id, accountID, journal.Contracts(assetType), fills); err != nil {
			return err
		}
		if len(tagIDs) > 0 {
			const tagQ = `INSERT INTO position_tags (position_id, tag_id) SELECT $1, unnest($2::uuid[])`
			if _, err := tx.Exec(ctx, tagQ, id, tagIDs); err != nil {
				return db.Classify(err)
			}
		}
		if err := journal.Recompute(ctx, tx, id); err != nil {
			return fillProblem(err, otherFills(""))
		}
		var err error
		pos, err = loadPosition(ctx, tx, h.app.Keyring, userID, id)
		return err
	})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusCreated, positionEnvelope{pos})
}

// multiplierInput reads the multiplier field of a create or a patch: a
// future's point value, a decimal string ("0.5"), required for a root
// without a built-in one; absent or null leaves it to the root's table
// value (journal.Instrument.SettleMultiplier).
func multiplierInput(p *journal.Problems, f journal.Field) *decimal.Decimal {
	if d, ok := p.Decimal("multiplier", f, journal.MultiplierRule); ok {
		return &d
	}
	return nil
}

// insertFills writes fills of a position, estimating the fees not given from
// the account's fee schedule (perContract: journal.Contracts), and returns
// the new fills' ids.
func insertFills(ctx context.Context, tx pgx.Tx, positionID, accountID string, perContract bool, fills []journal.FillValues) ([]string, error) {
	if len(fills) == 0 {
		return nil, nil
	}
	var schedule *sizing.FeeSchedule
	if slices.ContainsFunc(fills, func(f journal.FillValues) bool { return !f.FeesGiven }) {
		var err error
		if schedule, err = journal.FeeSchedule(ctx, tx, accountID); err != nil {
			return nil, err
		}
	}
	var (
		types     = make([]string, len(fills))
		prices    = make([]decimal.Decimal, len(fills))
		qtys      = make([]decimal.Decimal, len(fills))
		fees      = make([]decimal.Decimal, len(fills))
		estimated = make([]bool, len(fills))
		times     = make([]time.Time, len(fills))
	)
	for i, f := range fills {
		types[i], prices[i], qtys[i], fees[i], times[i] = f.Type, f.Price, f.Quantity, f.Fees, f.FilledAt
		if !f.FeesGiven {
			fees[i], estimated[i] = journal.EstimateFee(schedule, perContract, f.Quantity)
		}
	}
	const ins = `INSERT INTO fills (position_id, type, price, quantity, fees, fee_estimated, filled_at)
		SELECT $1, f.type, f.price, f.quantity, f.fees, f.fee_estimated, f.filled_at
		FROM unnest($2::text[], $3::numeric[], $4::numeric[], $5::numeric[], $6::boolean[], $7::timestamptz[])
			AS f(type, price, quantity, fees, fee_estimated, filled_at)
		RETURNING id::text`
	rows, err := tx.Query(ctx, ins, positionID, types, prices, qtys, fees, estimated, times)
	if err != nil {
		return nil, journal.Classify(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return ids, journal.Classify(err)
}

func (h handler) get(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p, err := loadPosition(ctx, h.app.DB, h.app.Keyring, auth.CurrentUser(ctx).ID, r.PathValue("positionId"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, positionEnvelope{p})
}

// updateRequest is the body of PATCH /api/positions/{positionId}: absent
// fields keep their value; null (or "") clears stopLoss and targetPrice.
type updateRequest struct {
	AccountID   *string       `json:"accountId"`
	Symbol      *string       `json:"symbol"`
	AssetType   *string       `json:"assetType"`
	Multiplier  journal.Field `json:"multiplier,omitzero"`
	Side        *string       `json:"side"`
	StopLoss    journal.Field `json:"stopLoss,omitzero"`
	TargetPrice journal.Field `json:"targetPrice,omitzero"`
	Notes       *string       `json:"notes"`
}

// update changes a position's own fields and recomputes its figures (a new
// side, stop, asset type or account changes them; a new account moves its
// ledger rows and both balances).
func (h handler) update(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	userID, id := auth.CurrentUser(ctx).ID, r.PathValue("positionId")
	if !journal.ValidUUID(id) {
		httpx.NotFound(w, r)
		return
	}
	var in updateRequest
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	var p journal.Problems
	if in.AccountID != nil && !journal.ValidUUID(*in.AccountID) {
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
	if in.Notes != nil {
		if msg := journal.Text(*in.Notes, journal.MaxNotesChars); msg != "" {
			p.Add("notes", msg)
		}
	}
	if in.AssetType != nil && *in.AssetType != journal.AssetStock && *in.AssetType != journal.AssetOption && *in.AssetType != journal.AssetFuture {
		p.Add("assetType", "must be stock, option or future")
	}
	given := multiplierInput(&p, in.Multiplier)
	if err := p.Err(); err != nil {
		httpx.Error(w, r, err)
		return
	}

	var pos Position
	var sealedNotes *string
	if in.Notes != nil {
		sealed := h.app.Keyring.Seal(encrypt.PositionNotes, *in.Notes)
		sealedNotes = &sealed
	}
	err := journal.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		hdr, err := journal.LockPosition(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		var (
			symbol   string
			root     *string
			openedAt *time.Time
		)
		const cur = `SELECT symbol, underlying, opened_at FROM positions WHERE id = $1`
		if err := tx.QueryRow(ctx, cur, id).Scan(&symbol, &root, &openedAt); err != nil {
			return db.Classify(err)
		}
		assetType := hdr.AssetType
		if in.AssetType != nil {
			assetType = *in.AssetType
		}
		if in.Symbol != nil {
			symbol = *in.Symbol
		}
		traded := h.app.Now()
		if openedAt != nil {
			traded = *openedAt
		}
		inst, field, msg := journal.ParseInstrument(assetType, symbol, traded)
		if msg != "" {
			return apperr.Invalid(field, msg)
		}
		// A future keeps the multiplier it was given while its root stays
		// (a roll from ESZ24 to ESH25 of a custom point value).
		if given == nil && inst.Future != nil && hdr.AssetType == journal.AssetFuture && root != nil && *root == inst.Future.Root {
			given = &hdr.Multiplier
		}
		if msg := inst.SettleMultiplier(given); msg != "" {
			return apperr.Invalid("multiplier", msg)
		}
		if journal.Contracts(assetType) && !journal.Contracts(hdr.AssetType) {
			var fractional bool
			const q = `SELECT EXISTS (SELECT 1 FROM fills WHERE position_id = $1 AND quantity <> trunc(quantity))`
			if err := tx.QueryRow(ctx, q, id).Scan(&fractional); err != nil {
				return db.Classify(err)
			}
			if fractional {
				return apperr.Invalid("assetType", "options and futures trade in whole contracts, and this position has fills of fractional quantities")
			}
		}
		accountID := hdr.AccountID
		if in.AccountID != nil && *in.AccountID != hdr.AccountID {
			accountID = *in.AccountID
			if err := checkAccount(ctx, tx, userID, accountID); err != nil {
				return err
			}
		}
		c := inst.Columns()
		const upd = `UPDATE positions SET account_id = $2, symbol = $3, asset_type = $4, underlying = $5,
				option_expiry = $6, option_right = $7, option_strike = $8, contract_month = $9, multiplier = $10,
				side = coalesce($11, side),
				stop_loss = CASE WHEN $12 THEN $13 ELSE stop_loss END,
				target_price = CASE WHEN $14 THEN $15 ELSE target_price END,
				notes = coalesce($16, notes), updated_at = now()
			WHERE id = $1`
		var sidePtr *string
		if side != "" {
			sidePtr = &side
		}
		if _, err := tx.Exec(ctx, upd, id, accountID, inst.Symbol, assetType, c.Underlying, c.Expiry, c.Right, c.Strike,
			c.ContractMonth, inst.Multiplier, sidePtr, in.StopLoss.Set, stop, in.TargetPrice.Set, target, sealedNotes); err != nil {
			return journal.Classify(err)
		}
		if err := journal.Recompute(ctx, tx, id); err != nil {
			return fillProblem(err, otherFills(""))
		}
		pos, err = loadPosition(ctx, tx, h.app.Keyring, userID, id)
		return err
	})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, positionEnvelope{pos})
}

// delete deletes a position with its fills, tags, images and ledger rows;
// the account balance loses what the ledger rows held.
func (h handler) delete(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	userID, id := auth.CurrentUser(ctx).ID, r.PathValue("positionId")
	if !journal.ValidUUID(id) {
		httpx.NotFound(w, r)
		return
	}
	var storageKeys []string
	err := journal.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		// The images go with the position; the delete trigger queues their
		// objects, which are deleted once this commits.
		const q = `SELECT storage_key FROM position_images WHERE position_id = $1 AND user_id = $2 AND storage_key IS NOT NULL`
		rows, err := tx.Query(ctx, q, id, userID)
		if err != nil {
			return db.Classify(err)
		}
		if storageKeys, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
			return db.Classify(err)
		}
		return journal.DeletePosition(ctx, tx, userID, id)
	})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	if len(storageKeys) > 0 {
		h.deleteObjects(ctx, storageKeys)
	}
	httpx.NoContent(w)
}

// addFill records a fill. The position row is locked for the whole
// transaction, so concurrent fills of one position are applied one after
// another and the ledger and balance stay exact.
func (h handler) addFill(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	userID, id := auth.CurrentUser(ctx).ID, r.PathValue("positionId")
	if !journal.ValidUUID(id) {
		httpx.NotFound(w, r)
		return
	}
	var in journal.FillInput
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	now := h.app.Now()
	var pos Position
	err := journal.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		hdr, err := journal.LockPosition(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		var p journal.Problems
		v := journal.ValidateFill(&p, "", in, journal.Contracts(hdr.AssetType), now)
		if err := p.Err(); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM fills WHERE position_id = $1`, id).Scan(&n); err != nil {
			return db.Classify(err)
		}
		if n >= journal.MaxFills {
			return apperr.Invalid("fills", "a position holds at most "+strconv.Itoa(journal.MaxFills)+" fills")
		}
		ids, err := insertFills(ctx, tx, id, hdr.AccountID, journal.Contracts(hdr.AssetType), []journal.FillValues{v})
		if err != nil {
			return err
		}
		if err := journal.Recompute(ctx, tx, id); err != nil {
			return fillProblem(err, otherFills(ids[0]))
		}
		pos, err = loadPosition(ctx, tx, h.app.Keyring, userID, id)
		return err
	})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusCreated, positionEnvelope{pos})
}

// updateFill changes a fill. Absent fields keep their value. fees: a value
// sets it; null asks for an estimate from the account's brokerage; absent
// keeps it, except that an estimated fee is estimated again when the
// quantity changes.
func (h handler) updateFill(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	userID, id, fillID := auth.CurrentUser(ctx).ID, r.PathValue("positionId"), r.PathValue("fillId")
	if !journal.ValidUUID(id) || !journal.ValidUUID(fillID) {
		httpx.NotFound(w, r)
		return
	}
	var in journal.FillInput
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	now := h.app.Now()
	var pos Position
	err := journal.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		hdr, err := journal.LockPosition(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		var (
			cur       journal.Fill
			estimated bool
		)
		const q = `SELECT type, price, quantity, fees, fee_estimated, filled_at FROM fills WHERE id = $1 AND position_id = $2`
		if err := tx.QueryRow(ctx, q, fillID, id).Scan(&cur.Type, &cur.Price, &cur.Quantity, &cur.Fees, &estimated, &cur.FilledAt); err != nil {
			return db.Classify(err)
		}
		// Merge: what the request leaves out is what the fill holds.
		merged := in
		if merged.Type == nil {
			merged.Type = &cur.Type
		}
		if !merged.Price.Set {
			merged.Price = journal.S(cur.Price.String())
		}
		if !merged.Quantity.Set {
			merged.Quantity = journal.S(cur.Quantity.String())
		}
		if merged.FilledAt == nil {
			at := cur.FilledAt.Format(time.RFC3339Nano)
			merged.FilledAt = &at
		}
		perContract := journal.Contracts(hdr.AssetType)
		var p journal.Problems
		v := journal.ValidateFill(&p, "", merged, perContract, now)
		if err := p.Err(); err != nil {
			return err
		}
		feeEstimated := false
		switch {
		case v.FeesGiven:
		case in.Fees.Set || estimated && !v.Quantity.Equal(cur.Quantity):
			s, err := journal.FeeSchedule(ctx, tx, hdr.AccountID)
			if err != nil {
				return err
			}
			v.Fees, feeEstimated = journal.EstimateFee(s, perContract, v.Quantity)
		default:
			v.Fees, feeEstimated = cur.Fees, estimated
		}
		// The fill's ledger rows are rewritten by Recompute.
		const upd = `UPDATE fills SET type = $3, price = $4, quantity = $5, fees = $6, fee_estimated = $7, filled_at = $8
			WHERE id = $1 AND position_id = $2`
		if _, err := tx.Exec(ctx, upd, fillID, id, v.Type, v.Price, v.Quantity, v.Fees, feeEstimated, v.FilledAt); err != nil {
			return journal.Classify(err)
		}
		if err := journal.Recompute(ctx, tx, id); err != nil {
			return fillProblem(err, otherFills(fillID))
		}
		pos, err = loadPosition(ctx, tx, h.app.Keyring, userID, id)
		return err
	})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, positionEnvelope{pos})
}

// deleteFill deletes a fill. What remains must still make a position (an
// exit cannot be left without its entry): otherwise 400 and nothing changes.
func (h handler) deleteFill(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	userID, id, fillID := auth.CurrentUser(ctx).ID, r.PathValue("positionId"), r.PathValue("fillId")
	var pos Position
	err := journal.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		if _, err := journal.LockPosition(ctx, tx, userID, id); err != nil {
			return err
		}
		if err := journal.DeleteFill(ctx, tx, id, fillID); err != nil {
			return err
		}
		if err := journal.Recompute(ctx, tx, id); err != nil {
			return fillProblem(err, otherFills(""))
		}
		var err error
		pos, err = loadPosition(ctx, tx, h.app.Keyring, userID, id)
		return err
	})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, positionEnvelope{pos})
}

type tagsRequest struct {
	TagIDs []string `json:"tagIds"`
}

// setTags replaces a position's tags with the given list (empty clears).
func (h handler) setTags(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	userID, id := auth.CurrentUser(ctx).ID, r.PathValue("positionId")
	if !journal.ValidUUID(id) {
		httpx.NotFound(w, r)
		return
	}
	var in tagsRequest
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	var p journal.Problems
	if in.TagIDs == nil {
		p.Add("tagIds", "is required (an empty list removes every tag)")
	}
	ids := validTagIDs(&p, in.TagIDs)
	if err := p.Err(); err != nil {
		httpx.Error(w, r, err)
		return
	}
	var pos Position
	err := journal.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		if _, err := journal.LockPosition(ctx, tx, userID, id); err != nil {
			return err
		}
		if err := checkTags(ctx, tx, userID, in.TagIDs, ids); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM position_tags WHERE position_id = $1`, id); err != nil {
			return db.Classify(err)
		}
		if len(ids) > 0 {
			const ins = `INSERT INTO position_tags (position_id, tag_id) SELECT $1, unnest($2::uuid[])`
			if _, err := tx.Exec(ctx, ins, id, ids); err != nil {
				return db.Classify(err)
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE positions SET updated_at = now() WHERE id = $1`, id); err != nil {
			return db.Classify(err)
		}
		var err error
		pos, err = loadPosition(ctx, tx, h.app.Keyring, userID, id)
		return err
	})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, positionEnvelope{pos})
}
