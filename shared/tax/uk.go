package tax

import (
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// ukDay is one instrument's trades of one day. TCGA 1992 s105(1)(a)
// treats all of a day's acquisitions as one acquisition and all its
// disposals as one disposal; "left" is what the matching has not used yet.
type ukDay struct {
	date     time.Time
	acq      []*trade
	disp     []*trade
	acqLeft  decimal.Decimal
	costLeft decimal.Decimal // the cost (with fees) of acqLeft
	dispLeft decimal.Decimal
	lot      *lotRec // the day's disposal, when there is one
}

// matchUK applies HMRC's share identification rules (CG51560) to each
// instrument, over all accounts (the rules follow the person, not the
// account), in this order:
//
//  1. same day: a day's disposal with the same day's acquisitions;
//  2. 30 days ("bed and breakfast"): what is left, with acquisitions in
//     the 30 days after, earliest first, earlier disposals first;
//  3. the Section 104 pool: what is left, at the pool's average cost; the
//     pool holds every acquisition (or its part) the first two rules did
//     not use;
//  4. a disposal larger than the pool (a short sale) is matched with the
//     acquisitions that follow it, earliest first, before they enter the
//     pool (TCGA s105(1)(b)). Until one comes the lot is incomplete.
func matchUK(trades []*trade) []*lotRec {
	byInst := map[string][]*ukDay{}
	var order []string
	for _, t := range trades {
		ds := byInst[t.Instrument]
		if len(ds) == 0 {
			order = append(order, t.Instrument)
		}
		if len(ds) == 0 || !ds[len(ds)-1].date.Equal(t.date) {
			ds = append(ds, &ukDay{date: t.date})
		}
		d := ds[len(ds)-1]
		if t.Side == Buy {
			d.acq = append(d.acq, t)
			d.acqLeft = d.acqLeft.Add(t.Quantity)
			d.costLeft = d.costLeft.Add(t.gross).Add(t.fees)
		} else {
			d.disp = append(d.disp, t)
			d.dispLeft = d.dispLeft.Add(t.Quantity)
		}
		byInst[t.Instrument] = ds
	}
	var recs []*lotRec
	for _, inst := range order {
		recs = append(recs, matchInstrument(byInst[inst])...)
	}
	slices.SortStableFunc(recs, func(a, b *lotRec) int { return a.sold.Compare(b.sold) })
	return recs
}

func matchInstrument(ds []*ukDay) []*lotRec {
	var recs []*lotRec
	for _, d := range ds {
		if len(d.disp) > 0 {
			d.lot = newUKLot(d)
			recs = append(recs, d.lot)
		}
	}
	// 1. same day.
	for _, d := range ds {
		if d.lot != nil && d.acqLeft.IsPositive() {
			matchDays(d, d, "same day")
		}
	}
	// 2. the next 30 days.
	for i, d := range ds {
		for _, a := range ds[i+1:] {
			if !d.dispLeft.IsPositive() || days(d.date, a.date) > washWindow {
				break
			}
			if a.acqLeft.IsPositive() {
				matchDays(d, a, "30 days")
			}
		}
	}
	// 3. and 4. the pool, and short sales covered later.
	var poolQty, poolCost decimal.Decimal
	var poolGaps []gap
	var shorts []*ukDay
	for _, d := range ds {
		for len(shorts) > 0 && d.acqLeft.IsPositive() {
			s := shorts[0]
			matchDays(s, d, "later acquisition")
			if !s.dispLeft.IsPositive() {
				shorts = shorts[1:]
			}
		}
		if d.acqLeft.IsPositive() {
			poolQty, poolCost = poolQty.Add(d.acqLeft), poolCost.Add(d.costLeft)
			for _, t := range d.acq {
				poolGaps = addGaps(poolGaps, t.gaps...)
			}
			d.acqLeft, d.costLeft = decimal.Zero, decimal.Zero
		}
		if !d.dispLeft.IsPositive() {
			continue
		}
		if poolQty.IsPositive() {
			q := decimal.Min(d.dispLeft, poolQty)
			cost := share(poolCost, q, poolQty)
			pq, pc := poolQty, poolCost
			d.lot.Matches = append(d.lot.Matches, Match{Rule: "section 104", Quantity: q, Cost: cost, PoolQuantity: &pq, PoolCost: &pc})
			d.lot.Basis = d.lot.Basis.Add(cost)
			d.lot.gaps = addGaps(d.lot.gaps, poolGaps...)
			d.dispLeft = d.dispLeft.Sub(q)
			poolQty, poolCost = poolQty.Sub(q), poolCost.Sub(cost)
		}
		if d.dispLeft.IsPositive() {
			shorts = append(shorts, d)
		}
	}
	for _, s := range shorts {
		s.lot.gaps = append(s.lot.gaps, gap{kind: MissingUnmatched, day: s.date, instrument: s.lot.Instrument, account: s.lot.Account, qty: s.dispLeft})
	}
	for _, r := range recs {
		finishUKLot(r)
	}
	return recs
}

// newUKLot is the lot of day d's disposals: their proceeds net of fees; its
// basis is added by the matches.
func newUKLot(d *ukDay) *lotRec {
	first := d.disp[0]
	rec := &lotRec{sold: d.date}
	var accounts []string
	var qty, proceeds decimal.Decimal
	var fills []string
	for _, t := range d.disp {
		fills = append(fills, t.ID)
		proceeds = proceeds.Add(t.gross).Sub(t.fees)
		rec.gaps = addGaps(rec.gaps, t.gaps...)
		qty = qty.Add(t.Quantity)
		if !slices.Contains(accounts, t.Account) {
			accounts = append(accounts, t.Account)
		}
	}
	rec.Lot = Lot{
		ID: first.ID + "/1", Description: describe(first.Trade, qty), Instrument: first.Instrument,
		Underlying: first.Underlying, AssetType: first.AssetType, Account: strings.Join(accounts, ","),
		DisposalFills: fills, Quantity: qty, Proceeds: proceeds, Sold: d.date.Format(dateLayout), Matches: []Match{},
	}
	return rec
}

// matchDays matches what is left of d's disposal with what is left of a's
// acquisition under rule.
func matchDays(d, a *ukDay, rule string) {
	q := decimal.Min(d.dispLeft, a.acqLeft)
	if !q.IsPositive() {
		return
	}
	cost := share(a.costLeft, q, a.acqLeft)
	a.acqLeft, a.costLeft = a.acqLeft.Sub(q), a.costLeft.Sub(cost)
	d.dispLeft = d.dispLeft.Sub(q)
	var ids, accounts []string
	for _, t := range a.acq {
		ids = append(ids, t.ID)
		if !slices.Contains(accounts, t.Account) {
			accounts = append(accounts, t.Account)
		}
		d.lot.gaps = addGaps(d.lot.gaps, t.gaps...)
	}
	d.lot.Matches = append(d.lot.Matches, Match{Rule: rule, FillID: strings.Join(ids, ","), Account: strings.Join(accounts, ","),
		Date: a.date.Format(dateLayout), Quantity: q, Cost: cost})
	d.lot.Basis = d.lot.Basis.Add(cost)
}

// finishUKLot names the rules used and the acquisition date: the one date
// of its matches, or VARIOUS for several dates or the pool.
func finishUKLot(r *lotRec) {
	var rules, dates []string
	for _, m := range r.Matches {
		if !slices.Contains(rules, m.Rule) {
			rules = append(rules, m.Rule)
		}
		d := m.Date
		if m.Rule == "section 104" {
			d = various
		}
		if !slices.Contains(dates, d) {
			dates = append(dates, d)
		}
	}
	r.Rule = strings.Join(rules, ", ")
	switch len(dates) {
	case 0:
		r.Acquired = ""
	case 1:
		r.Acquired = dates[0]
	default:
		r.Acquired = various
	}
}
