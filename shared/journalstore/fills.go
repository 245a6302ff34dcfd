package journalstore

import (
	"context"
	"slices"
	"strconv"
	"time"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
)

// AddFill records a fill of the user's position and derives its run again:
// an exit past the open quantity reverses it, an entry after its close
// reopens it, a fill dated inside its life is taken in time order. The run
// is locked for the whole transaction, so concurrent fills of one position
// are applied one after another and the ledger and balance stay exact.
func (s *Store) AddFill(ctx context.Context, userID, positionID string, in journal.FillInput) (Result, error) {
	if !db.ValidUUID(positionID) {
		return Result{}, apperr.ErrNotFound
	}
	now := s.now()
	var res Result
	err := s.write(ctx, userID, func(w *writeTx) error {
		ru, err := lockRun(ctx, w, userID, positionID)
		if err != nil {
			return err
		}
		var p journal.Problems
		v := journal.ValidateFill(&p, "", in, ru.inst.assetType, now)
		if err := p.Err(); err != nil {
			return err
		}
		me := slices.IndexFunc(ru.members, func(m *member) bool { return m.id == positionID })
		if len(ru.members[me].fills) >= journal.MaxFills {
			return apperr.Invalid("fills", "a position holds at most "+strconv.Itoa(journal.MaxFills)+" fills")
		}
		e := &execution{Execution: journal.Execution{Buy: journal.IsBuy(ru.members[me].side, v.Type), Price: v.Price,
			Quantity: v.Quantity, Fees: v.Fees, FilledAt: v.FilledAt, Rate: v.Rate, FeeAsset: v.FeeAsset}, member: me, rank: typeRank(v.Type), req: -1,
			estimate: !v.FeesGiven, rateGiven: v.Rate != nil}
		if err := estimateFees(ctx, w, ru.inst.accountID, ru.inst.assetType, []*execution{e}); err != nil {
			return err
		}
		ru.execs = append(ru.execs, e)
		ru.newIDs()
		return s.rederive(ctx, w, ru, e.ids[0], func() string { return ru.survivorOf(positionID, e.ids[0]) }, &res)
	})
	return res, err
}

// rederive derives a locked run again (written names the request's fill
// in its problems), writes it, and answers with the position answer picks.
func (s *Store) rederive(ctx context.Context, w *writeTx, ru *run, written string, answer func() string, res *Result) error {
	if err := ru.derive(written); err != nil {
		return err
	}
	b := w.batch()
	c, err := w.writeRuns(ctx, b, []*run{ru})
	if err != nil {
		return err
	}
	if err := s.answer(b.b, w, answer(), c, res); err != nil {
		return err
	}
	return b.flush(ctx)
}

// survivorOf returns the position to answer a fill write with: the one
// holding the fill (its closing part, for a reversal), else the one asked
// for if it is still there, else the run's first.
func (ru *run) survivorOf(positionID, fillID string) string {
	if h := ru.holder(fillID); h != "" {
		return h
	}
	return ru.survivor(positionID)
}

// UpdateFill changes a fill. Absent fields keep their value. fees: a value
// sets it; null asks for an estimate from the account's brokerage; absent
// keeps it, except that an estimated fee is estimated again when the
// quantity changes.
//
// A fill that is one part of a reversal edits the whole trade: its price,
// time and type apply to both parts, and a quantity or fees given are the
// trade's (the view's tradeQuantity and tradeFees). The run is then derived
// again, which moves, makes or undoes the split.
func (s *Store) UpdateFill(ctx context.Context, userID, positionID, fillID string, in journal.FillInput) (Result, error) {
	if !db.ValidUUID(positionID) || !db.ValidUUID(fillID) {
		return Result{}, apperr.ErrNotFound
	}
	now := s.now()
	var res Result
	err := s.write(ctx, userID, func(w *writeTx) error {
		ru, err := lockRun(ctx, w, userID, positionID)
		if err != nil {
			return err
		}
		me := slices.IndexFunc(ru.members, func(m *member) bool { return m.id == positionID })
		fi := slices.IndexFunc(ru.members[me].fills, func(f storedFill) bool { return f.ID == fillID })
		if fi < 0 {
			return apperr.ErrNotFound
		}
		cur := ru.members[me].fills[fi]
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
		perContract := instrument.Contracts(ru.inst.assetType)
		var p journal.Problems
		v := journal.ValidateFill(&p, "", merged, ru.inst.assetType, now)
		if err := p.Err(); err != nil {
			return err
		}
		// On a part of a reversal the quantity and fees are the trade's
		// (both parts'), as the view's tradeQuantity and tradeFees show.
		e := ru.find(fillID)
		qty := e.Quantity
		if in.Quantity.Set {
			qty = v.Quantity
		}
		fees, estimated := v.Fees, false
		switch {
		case v.FeesGiven:
		case in.Fees.Set || e.FeeEstimated && !qty.Equal(e.Quantity):
			schedule, err := FeeSchedule(ctx, w, ru.inst.accountID)
			if err != nil {
				return err
			}
			fees, estimated = journal.EstimateFee(schedule, perContract, qty)
		default:
			fees, estimated = e.Fees, e.FeeEstimated
		}
		e.Buy = journal.IsBuy(ru.members[me].side, v.Type)
		e.Price, e.FilledAt, e.Quantity, e.Fees, e.FeeEstimated = v.Price, v.FilledAt, qty, fees, estimated
		e.member, e.rank = me, typeRank(v.Type)
		if in.Fees.Set { // a fee typed in is in its asset, else the account's currency
			e.FeeAsset = v.FeeAsset
		}
		if in.Rate.Set { // null or "" lets the journal find it again
			e.Rate, e.rateGiven = v.Rate, v.Rate != nil
		}
		return s.rederive(ctx, w, ru, fillID, func() string { return ru.survivorOf(positionID, e.ids[0]) }, &res)
	})
	return res, err
}

// DeleteFill deletes a fill (both parts, when it is one part of a
// reversal) and derives the run again. What remains must still make
// positions (an exit cannot be left without its entry): otherwise 400 and
// nothing changes.
func (s *Store) DeleteFill(ctx context.Context, userID, positionID, fillID string) (Result, error) {
	if !db.ValidUUID(positionID) || !db.ValidUUID(fillID) {
		return Result{}, apperr.ErrNotFound
	}
	var res Result
	err := s.write(ctx, userID, func(w *writeTx) error {
		ru, err := lockRun(ctx, w, userID, positionID)
		if err != nil {
			return err
		}
		me := slices.IndexFunc(ru.members, func(m *member) bool { return m.id == positionID })
		if !slices.ContainsFunc(ru.members[me].fills, func(f storedFill) bool { return f.ID == fillID }) {
			return apperr.ErrNotFound
		}
		e := ru.find(fillID)
		ru.execs = slices.DeleteFunc(ru.execs, func(x *execution) bool { return x == e })
		// Without its last fill a position stays, a draft.
		return s.rederive(ctx, w, ru, "", func() string { return ru.survivor(positionID) }, &res)
	})
	return res, err
}
