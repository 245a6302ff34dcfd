package journalstore

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"

	"tradejournal/shared/db"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
	"tradejournal/shared/money"
	"tradejournal/shared/stats"
)

// The statistics read closed trades from closed_trades: one row per
// account and UTC day of close, its closes packed by stats.EncodeRow. A
// position in no strategy is one record in the row of its close; a
// strategy, once no leg is open, is one record in the row of its last
// leg's close, and its legs have none. Every write refreshes the rows it
// touched, before and after, in its transaction (writeTx.settle), from
// the positions as they are then: the rows are always what Rebuilt makes
// of the journal.

// closedKey is one row of closed_trades: an account and a UTC day.
type closedKey struct {
	account string
	day     time.Time // midnight UTC
}

// closedKeys are the rows a write touches.
type closedKeys map[closedKey]struct{}

// add names the row of a position of account closed at closedAt; an
// unclosed position (nil) has none.
func (k closedKeys) add(account string, closedAt *time.Time) {
	if closedAt == nil {
		return
	}
	k[closedKey{account, utcDay(*closedAt)}] = struct{}{}
}

func utcDay(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// closedRow is a closed_trades row as written.
type closedRow struct {
	key    closedKey
	trades int
	packed []byte
}

// closedSQL reads what the rows of keys ($2 accounts, $3 days, of user
// $1) hold: the closed positions of those days in no strategy but those
// the write made ($4: their records are in memory, madeRecord), and every
// leg of the strategies with a leg closed there (a strategy's record is
// in the row of its last close, which may be another day's). Each day is
// an index range scan of its own, and each strategy's legs an index scan
// of theirs: OFFSET 0 keeps the planner from flattening them into joins,
// which it costs, not knowing the days, as scans of every position (with
// JIT compilation, such a plan cost a create 1.3 s of PostgreSQL CPU in
// the 100,000-position journal), and so settle may run its generic plan.
const closedSQL = `WITH k AS (SELECT DISTINCT a, d FROM unnest($2::uuid[], $3::date[]) AS k(a, d)),
	closes AS MATERIALIZED (
		SELECT c.id, c.strategy_id FROM k CROSS JOIN LATERAL (
			SELECT p.id, p.strategy_id FROM positions p
			WHERE p.user_id = $1 AND p.status = 'closed' AND NOT p.awaiting_rate AND p.account_id = k.a
				AND p.closed_at >= k.d::timestamp AT TIME ZONE 'UTC' AND p.closed_at < (k.d + 1)::timestamp AT TIME ZONE 'UTC'
			OFFSET 0) c),
	picked AS (
		(SELECT id FROM closes WHERE strategy_id IS NULL EXCEPT ALL SELECT unnest($4::uuid[]))
		UNION ALL
		SELECT l.id FROM (SELECT DISTINCT strategy_id FROM closes WHERE strategy_id IS NOT NULL) s
			CROSS JOIN LATERAL (SELECT l.id FROM positions l WHERE l.strategy_id = s.strategy_id OFFSET 0) l)
	SELECT ` + recordColumns + ` FROM picked JOIN positions p ON p.id = picked.id LEFT JOIN strategies s ON s.id = p.strategy_id`

// recordColumns are what a record is made of, for a position p and its
// strategy s (NULLs when it is in none).
const recordColumns = `p.id, p.account_id::text, p.status, p.closed_at, p.opened_at, p.side,
	p.asset_type, p.symbol, p.underlying,
	coalesce((SELECT array_agg(pt.tag_id ORDER BY pt.tag_id) FROM position_tags pt WHERE pt.position_id = p.id), '{}'),
	p.playbook_id,
	coalesce((SELECT array_agg(pc.criterion_id ORDER BY pc.criterion_id) FROM position_criteria pc WHERE pc.position_id = p.id), '{}'),
	p.net_pnl, p.gross_pnl, p.fees, p.r_multiple, p.entry_quantity, p.avg_entry_price, p.multiplier,
	s.id, coalesce(s.kind, 'custom'), coalesce(s.opened_long, true), s.r_multiple,
	p.initial_risk, p.stop_loss, p.target_price,
	coalesce(p.mae_price, CASE WHEN p.bars_closed_at = p.closed_at THEN p.bars_mae_price END),
	coalesce(p.mfe_price, CASE WHEN p.bars_closed_at = p.closed_at THEN p.bars_mfe_price END),
	CASE WHEN p.bars_closed_at = p.closed_at THEN p.bars_first_hit END,
	` + FirstEntryRate

// FirstEntryRate is, in SQL, a position p's first entry's rate when its
// asset type is priced apart from its account's currency
// (instrument.QuotedApart; journal.Figures.FirstRate), else NULL: its
// initial risk and excursions convert at it. Only those positions' fills
// are read.
const FirstEntryRate = `CASE WHEN p.asset_type IN ('` + instrument.AssetForex + `', '` + instrument.AssetCrypto + `', '` + instrument.AssetCFD + `') THEN
	(SELECT f.rate FROM fills f WHERE f.position_id = p.id AND f.type = 'entry' ORDER BY f.filled_at, f.id LIMIT 1) END`

// The excursions a record carries are the typed ones, else those measured
// from bars to the position's current close (a measure to an earlier
// close is stale), and the first hit only from such a measure.

// recordRow is a row of recordColumns, or a position as the write made
// it (madeRecord).
type recordRow struct {
	id                  [16]byte
	account, status     string
	closedAt            *time.Time
	openedAt            *time.Time
	side, asset, symbol string
	underlying          *string
	tags                [][16]byte
	playbook            *[16]byte
	met                 [][16]byte
	net, gross, fees    decimal.Decimal
	r                   *decimal.Decimal
	quantity            decimal.Decimal
	avgEntry            *decimal.Decimal
	multiplier          decimal.Decimal
	strategy            *[16]byte
	kind                string
	openedLong          bool
	strategyR           *decimal.Decimal
	risk, stop, target  *decimal.Decimal
	mae, mfe            *decimal.Decimal // the prices
	firstHit            *string          // target, stop or none
	firstRate           *decimal.Decimal // a quoted trade's first entry's (journal.Figures.FirstRate)
}

func (r *recordRow) dest() []any {
	return []any{&r.id, &r.account, &r.status, &r.closedAt, &r.openedAt, &r.side, &r.asset, &r.symbol, &r.underlying, &r.tags,
		&r.playbook, &r.met, &r.net, &r.gross, &r.fees, &r.r, &r.quantity, &r.avgEntry, &r.multiplier, &r.strategy, &r.kind,
		&r.openedLong, &r.strategyR, &r.risk, &r.stop, &r.target, &r.mae, &r.mfe, &r.firstHit, &r.firstRate}
}

// opened is when the position opened (its close, for one that never did).
func (r *recordRow) opened() time.Time {
	if r.openedAt != nil {
		return *r.openedAt
	}
	return *r.closedAt
}

// und is the position's underlying, or its symbol when it has none.
func (r *recordRow) und() string {
	if r.underlying != nil {
		return *r.underlying
	}
	return r.symbol
}

// notional is what the position's entries cost: average entry price x
// quantity x multiplier.
func (r *recordRow) notional() decimal.Decimal {
	if r.avgEntry == nil {
		return decimal.Decimal{}
	}
	return r.avgEntry.Mul(r.quantity).Mul(r.multiplier)
}

// madeRecord is the recordRow of a closed position the write creates, in
// no strategy (writeRuns: its row as it copies it, with its tags).
func madeRecord(in runInstrument, p *placedPosition) *recordRow {
	f := p.figures
	r := &recordRow{id: copyUUID(p.id).Bytes, account: in.accountID, status: f.Status, closedAt: f.ClosedAt, openedAt: f.OpenedAt,
		side: p.side, asset: in.assetType, symbol: in.symbol, underlying: in.columns.Underlying, net: f.NetPnL, gross: f.GrossPnL,
		fees: f.Fees, r: f.RMultiple, quantity: f.EntryQuantity, avgEntry: f.AvgEntryPrice, multiplier: in.multiplier}
	if p.fields != nil {
		for _, t := range p.fields.tagIDs {
			r.tags = append(r.tags, copyUUID(t).Bytes)
		}
		r.tags = sortedIDs(r.tags)
	}
	return r
}

// keyed is a record with what orders it in its row: its close, then the
// id of its position or strategy.
type keyed struct {
	id  [16]byte
	rec stats.Record
}

// records are what the rows being refreshed hold, by row: a row that
// holds nothing maps to none.
type records map[closedKey][]keyed

// readRecords queues the read of what the user's rows of keys hold now,
// the records of positions the write made (made, by id) taken as they
// are; the records are there once the batch is sent.
func readRecords(b *pgx.Batch, userID string, keys closedKeys, made map[string]*recordRow) records {
	out := make(records, len(keys))
	if len(keys) == 0 {
		return out
	}
	accounts, days := make([]string, 0, len(keys)), make([]time.Time, 0, len(keys))
	for k := range keys {
		out[k] = nil
		accounts, days = append(accounts, k.account), append(days, k.day)
	}
	ids := make([]pgtype.UUID, 0, len(made)) // not [16]byte: the simple protocol has no text form of it
	for _, r := range made {
		ids = append(ids, pgtype.UUID{Bytes: r.id, Valid: true})
		if k := (closedKey{r.account, utcDay(*r.closedAt)}); hasKey(out, k) {
			out[k] = append(out[k], keyed{r.id, positionRecord(r)})
		}
	}
	b.Queue(closedSQL, userID, accounts, days, ids).Query(func(rows pgx.Rows) error {
		legs := map[[16]byte][]recordRow{}
		var r recordRow
		if _, err := pgx.ForEachRow(rows, r.dest(), func() error {
			if r.strategy != nil {
				legs[*r.strategy] = append(legs[*r.strategy], r)
				return nil
			}
			k := closedKey{r.account, utcDay(*r.closedAt)}
			out[k] = append(out[k], keyed{r.id, positionRecord(&r)})
			return nil
		}); err != nil {
			return err
		}
		for id, ls := range legs {
			rec, ok := strategyRecord(ls)
			if !ok {
				continue
			}
			if k := (closedKey{ls[0].account, utcDay(rec.ClosedAt)}); hasKey(out, k) {
				out[k] = append(out[k], keyed{id, rec})
			}
		}
		for _, recs := range out {
			slices.SortFunc(recs, func(a, b keyed) int {
				return cmp.Or(a.rec.ClosedAt.Compare(b.rec.ClosedAt), bytes.Compare(a.id[:], b.id[:]))
			})
		}
		return nil
	})
	return out
}

// hasKey reports whether the rows being refreshed include k: a strategy
// whose last close is in a row not refreshed is left in it.
func hasKey(m records, k closedKey) bool {
	_, ok := m[k]
	return ok
}

// positionRecord is the record of a closed position in no strategy.
func positionRecord(r *recordRow) stats.Record {
	quantity, _ := r.quantity.Float64()
	notional, _ := r.notional().Float64()
	rec := stats.Record{ClosedAt: *r.closedAt, OpenedAt: r.opened(), Short: r.side == journal.SideShort,
		AssetType: r.asset, Symbol: r.symbol, Underlying: r.und(), Tags: r.tags, Playbook: r.playbook, Met: r.met,
		Net: r.net, Gross: r.gross, Fees: r.fees, R: r.r, Quantity: quantity, Notional: notional}
	r.excursions(&rec)
	return rec
}

// excursions sets rec's excursions and the money at its first hit, as the
// position's review figures them (journal.ExcursionAt): a trade priced in
// a currency apart from its account's at its first entry's rate, and none
// without one. One the record cannot hold (a price typed far off) is left
// out rather than fail the write.
func (r *recordRow) excursions(rec *stats.Record) {
	if r.avgEntry == nil || instrument.QuotedApart(r.asset) && r.firstRate == nil {
		return
	}
	at := func(price *decimal.Decimal) *stats.Excursion {
		e := journal.ExcursionAt(r.side, *r.avgEntry, r.quantity, r.multiplier, r.firstRate, r.risk, price)
		if e == nil || !stats.ExcursionFits(e.Amount) || e.R != nil && !stats.ExcursionFits(*e.R) {
			return nil
		}
		return &stats.Excursion{Money: e.Amount, R: e.R}
	}
	rec.MAE, rec.MFE = at(r.mae), at(r.mfe)
	var level *decimal.Decimal
	if r.firstHit != nil {
		switch *r.firstHit {
		case stats.HitTarget:
			level = r.target
		case stats.HitStop:
			level = r.stop
		}
	}
	if e := at(level); e != nil {
		rec.FirstHit, rec.AtHit = *r.firstHit, e.Money
	}
}

// strategyRecord is the record of a strategy whose legs (one account and
// underlying) make a closed trade (journal.TotalsOf: its status, first
// opening, last close and sums); ok is false while it is not. Its draft
// legs have no part in it; of the others: short when it opened for a
// credit, asset type option (future_option for options on a future) on
// its underlying, any leg's tags, the first leg's playbook (in opening
// order) and the criteria of it any leg following it met, the strategy
// engine's kind and R as the last write analysed them.
func strategyRecord(legs []recordRow) (stats.Record, bool) {
	legs = slices.DeleteFunc(legs, func(l recordRow) bool { return l.status == journal.StatusDraft })
	totals := make([]journal.LegTotals, len(legs))
	for i := range legs {
		l := &legs[i]
		opened := l.opened()
		totals[i] = journal.LegTotals{Status: l.status, OpenedAt: &opened, ClosedAt: l.closedAt, Gross: l.gross, Fees: l.fees, Net: l.net}
	}
	t := journal.TotalsOf(totals)
	if t.Status != journal.StatusClosed {
		return stats.Record{}, false
	}
	slices.SortFunc(legs, func(a, b recordRow) int {
		return cmp.Or(a.opened().Compare(b.opened()), bytes.Compare(a.id[:], b.id[:]))
	})
	first := &legs[0]
	out := stats.Record{ClosedAt: *t.ClosedAt, OpenedAt: *t.OpenedAt, Short: !first.openedLong,
		AssetType: instrument.AssetOption, Symbol: first.und(), Strategy: first.kind, R: first.strategyR,
		Net: t.Net, Gross: t.Gross, Fees: t.Fees}
	if slices.ContainsFunc(legs, func(l recordRow) bool { return l.asset == instrument.AssetFutureOption }) {
		out.AssetType = instrument.AssetFutureOption
	}
	var quantity, notional decimal.Decimal
	for i := range legs {
		l := &legs[i]
		out.Symbol = min(out.Symbol, l.und())
		out.Tags = append(out.Tags, l.tags...)
		if out.Playbook == nil && l.playbook != nil {
			out.Playbook = l.playbook
		}
		quantity, notional = quantity.Add(l.quantity), notional.Add(l.notional())
	}
	out.Underlying = out.Symbol
	out.Tags = sortedIDs(out.Tags)
	if out.Playbook != nil {
		for i := range legs {
			if l := &legs[i]; l.playbook != nil && *l.playbook == *out.Playbook {
				out.Met = append(out.Met, l.met...)
			}
		}
		out.Met = sortedIDs(out.Met)
	}
	out.Quantity, _ = quantity.Float64()
	out.Notional, _ = notional.Float64()
	return out, true
}

func sortedIDs(ids [][16]byte) [][16]byte {
	slices.SortFunc(ids, func(a, b [16]byte) int { return bytes.Compare(a[:], b[:]) })
	return slices.Compact(ids)
}

// encodeRows packs what readRecords read into rows; a key without
// records is a row of no trades (deleted by writeRows).
func encodeRows(recs records) ([]closedRow, error) {
	out := make([]closedRow, 0, len(recs))
	for k, rs := range recs {
		row := closedRow{key: k, trades: len(rs)}
		if len(rs) > 0 {
			list := make([]stats.Record, len(rs))
			for i := range rs {
				list[i] = rs[i].rec
			}
			var err error
			if row.packed, err = stats.EncodeRow(k.day, list); err != nil {
				return nil, fmt.Errorf("closed trades of %s on %s: %w", k.account, k.day.Format(time.DateOnly), err)
			}
		}
		out = append(out, row)
	}
	return out, nil
}

// writeRows writes the user's rows in one statement: those with trades
// inserted or replaced, those without deleted.
func writeRows(ctx context.Context, q db.Querier, userID string, rows []closedRow) error {
	if len(rows) == 0 {
		return nil
	}
	accounts, days := make([]string, len(rows)), make([]time.Time, len(rows))
	trades, packed := make([]int32, len(rows)), make([][]byte, len(rows))
	for i, r := range rows {
		accounts[i], days[i], trades[i], packed[i] = r.key.account, r.key.day, int32(r.trades), r.packed
	}
	const q1 = `WITH r AS (SELECT * FROM unnest($2::uuid[], $3::date[], $4::int[], $5::bytea[]) AS r(a, d, n, packed)),
		gone AS (DELETE FROM closed_trades c USING r WHERE r.n = 0 AND c.user_id = $1 AND c.account_id = r.a AND c.day = r.d)
		INSERT INTO closed_trades (user_id, day, account_id, trades, packed) SELECT $1, d, a, n, packed FROM r WHERE n > 0
		ON CONFLICT (user_id, day, account_id) DO UPDATE SET trades = EXCLUDED.trades, packed = EXCLUDED.packed`
	_, err := q.Exec(ctx, q1, userID, accounts, days, trades, packed)
	return classify(err)
}

// allKeys is every row the user's journal has closes for.
func allKeys(ctx context.Context, q db.Querier, userID string) (closedKeys, error) {
	rows, err := q.Query(ctx, `SELECT DISTINCT account_id::text, (closed_at AT TIME ZONE 'UTC')::date
		FROM positions WHERE user_id = $1 AND status = 'closed'`, userID)
	if err != nil {
		return nil, classify(err)
	}
	keys := closedKeys{}
	var k closedKey
	_, err = pgx.ForEachRow(rows, []any{&k.account, &k.day}, func() error {
		keys[closedKey{k.account, utcDay(k.day)}] = struct{}{}
		return nil
	})
	return keys, classify(err)
}

// The strategy engine's analysis of a strategy (its kind and label,
// whether it opened long, its risk, max profit and R) is kept on the
// strategy for its record and for the rules, which judge a strategy as
// one trade. Every write that may change it (a leg's row, a leg added or
// taken out, a new planned risk) touches the strategy, and its settle
// analyses it again. Kept rather than computed at each report: reading
// every leg and running the engine there cost an options journal of 5,000
// strategies 250 ms of CPU a report (docs/performance.md).

// strategyLegsSQL is the legs of strategies $1 with their strategy's
// planned risk, a strategy's legs together.
const strategyLegsSQL = `SELECT s.id::text, s.planned_risk::text, ` + SummaryColumns + `
	FROM strategies s JOIN positions p ON p.strategy_id = s.id WHERE s.id = ANY($1::uuid[]) ORDER BY s.id, p.opened_at NULLS LAST, p.id`

// legAnalysis is a strategy's legs, in opening order, and its planned risk.
type legAnalysis struct {
	risk *string
	legs []journal.StrategyPosition
}

// strategyLegs are the legs of the strategies ids, by strategy, once the
// batch that reads them is sent; a strategy deleted meanwhile has none.
type strategyLegs struct {
	ids  []string
	byID map[string]*legAnalysis
}

// readLegs queues the read of the legs of the strategies ids (whose
// accounts the caller has locked), each leg's closed_trades row joining
// keys.
func readLegs(b *pgx.Batch, ids []string, keys closedKeys) *strategyLegs {
	l := &strategyLegs{ids: ids, byID: map[string]*legAnalysis{}}
	b.Queue(strategyLegsSQL, ids).Query(func(rows pgx.Rows) error {
		var (
			id   string
			risk *string
			leg  Summary
		)
		_, err := pgx.ForEachRow(rows, append([]any{&id, &risk}, ScanSummary(&leg)...), func() error {
			a := l.byID[id]
			if a == nil {
				a = &legAnalysis{risk: risk}
				l.byID[id] = a
			}
			a.legs = append(a.legs, strategyPosition(leg))
			keys.add(leg.AccountID, leg.ClosedAt)
			return nil
		})
		return err
	})
	return l
}

// analyse queues the update of the strategies read by readLegs with the
// strategy engine's analysis of their legs. A strategy with no legs left
// is skipped.
func analyse(b *pgx.Batch, l *strategyLegs) {
	n := len(l.ids)
	kinds, labels, long := make([]*string, n), make([]*string, n), make([]*bool, n)
	risks, profits, rs := make([]*string, n), make([]*string, n), make([]*string, n)
	round := func(d *decimal.Decimal) *string {
		if d == nil {
			return nil
		}
		v := money.RoundN(*d, 4)
		return &v
	}
	for i, id := range l.ids {
		a := l.byID[id]
		if a == nil { // no legs left
			continue
		}
		var planned *decimal.Decimal
		if a.risk != nil {
			v := decimal.RequireFromString(*a.risk)
			planned = &v
		}
		o := journal.OutcomeOf(a.legs, planned)
		opened := a.legs[0].Side == journal.SideLong
		if an := o.Analysis; an != nil {
			kind := string(an.Name)
			kinds[i], labels[i], opened, profits[i] = &kind, &an.Label, !an.NetDebit.IsNegative(), round(an.MaxProfit)
		}
		long[i], risks[i], rs[i] = &opened, round(o.Risk), round(o.R)
	}
	b.Queue(`UPDATE strategies s SET kind = x.kind, label = x.label, opened_long = x.long,
			risk = x.risk, max_profit = x.profit, r_multiple = x.r
		FROM unnest($1::uuid[], $2::text[], $3::text[], $4::boolean[], $5::numeric[], $6::numeric[], $7::numeric[])
			AS x(id, kind, label, long, risk, profit, r) WHERE s.id = x.id`,
		l.ids, kinds, labels, long, risks, profits, rs)
}
