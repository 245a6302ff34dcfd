package stats

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"

	"tradejournal/shared/journal"
	"tradejournal/shared/money"
)

// A strategy (migration 0032: legs that are positions of their own) counts
// as one trade: its legs' records in closed_trades are passed over, and the
// strategy, once every leg is closed, is one record of its own, closed at
// its last leg's close (journal.OutcomeOf). Its legs are read here, whole
// and whatever their close day, because a roll closes legs long before the
// strategy: its sums need them all, and the window of days narrows only the
// strategies' own closes. A journal without strategies pays one empty
// query.

// strategyLegsSQL is every leg of the user's strategies, a strategy's legs
// together in the order of their opening.
const strategyLegsSQL = `SELECT s.id, s.account_id, s.planned_risk::text, p.id, p.status, p.side, p.asset_type,
	coalesce(p.underlying, p.symbol), p.opened_at, p.closed_at, p.entry_quantity::text, p.open_quantity::text,
	p.avg_entry_price::text, p.multiplier::text, to_char(p.option_expiry, 'YYYY-MM-DD'), p.option_right,
	p.option_strike::text, p.gross_pnl::text, p.fees::text, p.net_pnl::text,
	array(SELECT pt.tag_id FROM position_tags pt WHERE pt.position_id = p.id ORDER BY pt.tag_id), p.playbook_id,
	array(SELECT pc.criterion_id FROM position_criteria pc WHERE pc.position_id = p.id ORDER BY pc.criterion_id)
FROM strategies s JOIN positions p ON p.strategy_id = s.id
WHERE s.user_id = $1 ORDER BY s.id, p.opened_at NULLS LAST, p.id`

// strategyTrade is a closed strategy as one trade: what its record holds.
type strategyTrade struct {
	id                 [16]byte
	account            int32 // index into journalRows.accounts
	at, opened         int64 // the last leg's close and the first leg's opening: Unix microseconds
	long               bool  // opened for a debit (or, without a price, its first leg long)
	kind, underlying   string
	net, gross, fees   units
	r                  units
	hasR               bool
	quantity, notional float64 // the legs' entry quantities and costs, summed
	tags, met          []int32 // indexes into journalRows.tags and .criteria
	playbook           int32   // the first leg's with one, -1 for none
}

// strategyLeg is one row of strategyLegsSQL.
type strategyLeg struct {
	strategy, account, id           [16]byte
	plannedRisk                     *string
	status, side, asset, underlying string
	openedAt, closedAt              *time.Time
	entryQty, openQty               string
	avgEntry                        *string
	multiplier                      string
	expiry, right, strike           *string
	gross, fees, net                string
	tags                            []pgtype.UUID
	playbook                        pgtype.UUID
	met                             []pgtype.UUID
}

// readStrategies reads the user's strategies into j: every leg's id (its
// own record is passed over) and the closed strategies as trades.
func readStrategies(ctx context.Context, tx pgx.Tx, userID string, j *journalRows) error {
	rows, _ := tx.Query(ctx, strategyLegsSQL, userID)
	var (
		l    strategyLeg
		legs []strategyLeg
	)
	if _, err := pgx.ForEachRow(rows, []any{&l.strategy, &l.account, &l.plannedRisk, &l.id, &l.status, &l.side, &l.asset,
		&l.underlying, &l.openedAt, &l.closedAt, &l.entryQty, &l.openQty, &l.avgEntry, &l.multiplier, &l.expiry, &l.right,
		&l.strike, &l.gross, &l.fees, &l.net, &l.tags, &l.playbook, &l.met}, func() error {
		if len(legs) > 0 && legs[0].strategy != l.strategy {
			j.addStrategy(legs)
			legs = legs[:0]
		}
		legs = append(legs, l)
		return nil
	}); err != nil {
		return err
	}
	if len(legs) > 0 {
		j.addStrategy(legs)
	}
	return nil
}

// addStrategy adds one strategy's legs (all read) to j.
func (j *journalRows) addStrategy(legs []strategyLeg) {
	if j.legs == nil {
		j.legs = map[[16]byte]bool{}
	}
	positions := make([]journal.StrategyPosition, len(legs))
	for i, l := range legs {
		j.legs[l.id] = true
		positions[i] = l.position()
	}
	var risk *decimal.Decimal
	if r := legs[0].plannedRisk; r != nil {
		v := decimal.RequireFromString(*r)
		risk = &v
	}
	o := journal.OutcomeOf(positions, risk)
	account, ok := j.accountIDs[legs[0].account]
	if o.Status != journal.StatusClosed || o.ClosedAt == nil || !ok {
		return
	}
	t := strategyTrade{id: legs[0].strategy, account: account, at: o.ClosedAt.UnixMicro(), opened: o.OpenedAt.UnixMicro(),
		underlying: legs[0].underlying, kind: string(journal.StrategyCustom), long: legs[0].side == journal.SideLong,
		net: unitsOf(o.Net), gross: unitsOf(o.Gross), fees: unitsOf(o.Fees), playbook: -1}
	if a := o.Analysis; a != nil {
		t.kind, t.long = string(a.Name), !a.NetDebit.IsNegative()
	}
	if o.R != nil {
		t.r, t.hasR = unitsOf(decimal.RequireFromString(money.RoundN(*o.R, 4))), true
	}
	for i, l := range legs {
		t.quantity += positions[i].EntryQuantity.InexactFloat64()
		if p := positions[i].AvgEntryPrice; p != nil {
			t.notional += p.Mul(positions[i].EntryQuantity).Mul(positions[i].Multiplier).InexactFloat64()
		}
		for _, id := range l.tags {
			if k, ok := j.tagIndex[id.Bytes]; ok && !slices.Contains(t.tags, k) {
				t.tags = append(t.tags, k)
			}
		}
		if k, ok := j.bookIndex[l.playbook.Bytes]; l.playbook.Valid && ok && t.playbook < 0 {
			t.playbook = k
		}
	}
	slices.Sort(t.tags)
	for _, l := range legs { // the criteria of its playbook that any leg met
		for _, id := range l.met {
			if k, ok := j.critIndex[id.Bytes]; ok && t.playbook >= 0 && j.criteria[k].playbook == t.playbook && !slices.Contains(t.met, k) {
				t.met = append(t.met, k)
			}
		}
	}
	j.strategies = append(j.strategies, t)
}

// position is the leg as journal.OutcomeOf reads it.
func (l *strategyLeg) position() journal.StrategyPosition {
	p := journal.StrategyPosition{Status: l.status, Side: l.side, OpenedAt: l.openedAt, ClosedAt: l.closedAt,
		EntryQuantity: decimal.RequireFromString(l.entryQty), OpenQuantity: decimal.RequireFromString(l.openQty),
		Multiplier: decimal.RequireFromString(l.multiplier),
		Gross:      decimal.RequireFromString(l.gross), Fees: decimal.RequireFromString(l.fees), Net: decimal.RequireFromString(l.net)}
	if l.avgEntry != nil {
		v := decimal.RequireFromString(*l.avgEntry)
		p.AvgEntryPrice = &v
	}
	if l.asset == journal.AssetOption {
		p.Unread = true
		if l.expiry != nil && l.right != nil && l.strike != nil {
			expiry, err := time.Parse(time.DateOnly, *l.expiry)
			strike, err2 := decimal.NewFromString(*l.strike)
			if err == nil && err2 == nil {
				p.Option, p.Unread = &journal.Option{Underlying: l.underlying, Expiry: expiry, Right: *l.right, Strike: strike}, false
			}
		}
	}
	return p
}

// strategyRecords appends the closed strategies of the filter (their
// account among accounts, nil for any; their trading day within
// [firstDay, lastDay]) to the list and merges them into the close order.
func (d *decoder) strategyRecords(accounts map[int32]bool, firstDay, lastDay int64) {
	out := d.out
	var added []int32
	option := d.intern([]byte(journal.AssetOption))
	for k := range d.journal.strategies {
		t := &d.journal.strategies[k]
		if accounts != nil && !accounts[t.account] {
			continue
		}
		a := &d.journal.accounts[t.account]
		c, i := out.list.next()
		*c = closed{id: t.id, at: t.at, opened: t.opened, day: a.day.of(t.at), entry: a.entry.local(t.opened),
			net: t.net, gross: t.gross, fees: t.fees, r: t.r, hasR: t.hasR, quantity: t.quantity, notional: t.notional,
			account: t.account, assetType: option, long: t.long, playbook: t.playbook}
		c.symbol = d.intern([]byte(t.underlying))
		c.underlying = c.symbol
		c.strategy = 1 + d.intern([]byte(t.kind))
		c.tagStart, c.tagCount = int32(len(out.tags)), int32(len(t.tags))
		out.tags = append(out.tags, t.tags...)
		c.metStart, c.metCount = int32(len(out.met)), int32(len(t.met))
		out.met = append(out.met, t.met...)
		if c.day < firstDay || c.day > lastDay || !d.filter.takes(c, d) {
			out.tags, out.met = out.tags[:c.tagStart], out.met[:c.metStart]
			out.list.drop()
			continue
		}
		added = append(added, i)
	}
	if len(added) == 0 {
		return
	}
	slices.SortFunc(added, func(x, y int32) int {
		a, b := out.list.at(x), out.list.at(y)
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(string(a.id[:]), string(b.id[:])))
	})
	order := make([]int32, 0, len(out.order)+len(added))
	for len(out.order) > 0 && len(added) > 0 {
		if before(out.list.at(added[0]), out.list.at(out.order[0])) {
			order, added = append(order, added[0]), added[1:]
		} else {
			order, out.order = append(order, out.order[0]), out.order[1:]
		}
	}
	out.order = append(append(order, out.order...), added...)
}
