// Package journalstore owns every write to the journal: positions, their
// fills, their tags, strategies, playbooks' ticks, the ledger and the
// account balances the ledger moves. Each exported write method is one
// write transaction (writeTx) that locks what it changes, writes, computes
// the positions' figures (shared/journal, which has no SQL) and returns
// the view, the way benbjohnson/wtf's sqlite/dial.go owns dials; the
// transaction itself brings every derived row up to date before it
// commits. Handlers decode, authorise, call a method and encode; no other
// package writes these tables, and no trigger keeps a figure for them.
//
// A position belongs to a run: the positions of one instrument linked by
// reversals (positions.reversal_of). Every write of a fill derives its
// run again from the run's executions (journal.Derive), so a reversal
// splits, an edit that moves the crossing point moves the split, and a
// fill that no longer crosses joins its parts again. Manual entry and the
// CSV import write through the same code (write, below).
//
// Lock order, everywhere: positions (by id) before accounts (by id), so
// two writers never wait on each other in a circle.
package journalstore

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
	"tradejournal/shared/encrypt"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
)

// Store is the journal's one writer.
type Store struct {
	pool    *pgxpool.Pool
	keyring *encrypt.Keyring
	now     func() time.Time
	growth  GrowthCheck
}

// GrowthCheck runs in a write that adds positions to the user's journal,
// after its rows are written and before it settles: an error refuses the
// whole write (the free plan's limit, shared/plans).
type GrowthCheck func(ctx context.Context, tx pgx.Tx, userID string) error

// Limit returns the store with check run in every write that adds
// positions. A restore does not run it: it brings back what was there.
func (s *Store) Limit(check GrowthCheck) *Store {
	c := *s
	c.growth = check
	return &c
}

// New returns the store over pool; k seals notes (nil: plaintext), now is
// the clock fill times are checked against.
func New(pool *pgxpool.Pool, k *encrypt.Keyring, now func() time.Time) *Store {
	return &Store{pool: pool, keyring: k, now: now}
}

// Position reads the user's position in full; a malformed, missing or
// foreign id is apperr.ErrNotFound.
func (s *Store) Position(ctx context.Context, userID, id string) (Position, error) {
	var p Position
	b := &pgx.Batch{}
	if err := loadPosition(b, s.keyring, userID, id, s.now(), &p); err != nil {
		return Position{}, err
	}
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return Position{}, db.Classify(err)
	}
	return p, nil
}

// ErrOutOfRange answers a write whose figures do not fit their columns
// (absurd prices times quantities, or a balance past 14 digits).
var ErrOutOfRange = apperr.Invalid("amount", "the amounts are too large to record (a figure or the account balance would exceed its range)")

// classify is db.Classify plus PostgreSQL's numeric overflow (22003) as
// ErrOutOfRange, for every statement that writes money.
func classify(err error) error {
	var pg *pgconn.PgError
	if errors.As(err, &pg) && pg.Code == "22003" {
		return ErrOutOfRange
	}
	return db.Classify(err)
}

// runInstrument is what every position of a run shares: the account and the
// instrument's columns.
type runInstrument struct {
	userID, accountID string
	symbol, assetType string
	columns           instrument.Columns
	multiplier        decimal.Decimal
	// base and quote are a pair's currencies (quote alone for a CFD in a
	// currency of its own); "" where the account's currency is the quote.
	base, quote string
}

// newRunInstrument is the run's instrument inst, held in an account.
func newRunInstrument(userID, accountID string, inst instrument.Instrument) runInstrument {
	in := runInstrument{userID: userID, accountID: accountID, symbol: inst.Symbol, assetType: inst.AssetType,
		columns: inst.Columns(), multiplier: inst.Multiplier, quote: inst.Quote}
	if inst.Pair != nil {
		in.base = inst.Pair.Base
	}
	return in
}

// quoted reports whether the run's P&L is in a quote currency converted
// into the account's (instrument.QuotedApart).
func (in runInstrument) quoted() bool { return instrument.QuotedApart(in.assetType) }

// underlying is the instrument's underlying, or its symbol when it has
// none (a stock).
func (in runInstrument) underlying() string {
	if in.columns.Underlying != nil {
		return *in.columns.Underlying
	}
	return in.symbol
}

// storedFill is a fill row.
type storedFill struct {
	journal.Fill
	estimated bool
	rateGiven bool
	splitOf   string
}

// member is a position of a run as stored, before the write.
type member struct {
	id         string
	side       string
	status     string
	account    string     // as stored: an edit may move the run
	closedAt   *time.Time // as stored
	reversalOf *string
	strategy   *string // as stored
	stop       *decimal.Decimal
	fills      []storedFill
}

// execution is a journal.Execution with the fill rows that hold it: its
// whole (or its closing part) in ids[0], its opening part in ids[1] once
// it was split; "" for a row not written yet.
type execution struct {
	journal.Execution
	ids    [2]string
	member int // the run position of ids[0], for the order at one instant
	rank   int // 0 for an entry of that position, 1 for an exit
	req    int // its index in a create's fills, for naming; -1 otherwise
	// estimate asks for a fee from the account's fee schedule (the request
	// gave none).
	estimate bool
	// rateGiven says Rate came from the trader or the broker's file: kept,
	// where a rate the store found is found again (convert).
	rateGiven bool
}

// run is one run of positions, locked, and what a write makes of it.
type run struct {
	side    string // the side of its first position
	inst    runInstrument
	members []*member // as stored, in run order; none for a new run
	execs   []*execution

	// first holds the fields of a new run's first position (a manual
	// create: its stop, target, notes and tags).
	first *newFields

	// after the derivation
	placed []placedPosition
}

// newFields are the user's own fields of a position being created.
type newFields struct {
	stop, target *decimal.Decimal
	notes        string   // sealed
	tagIDs       []string // without repeats
	requested    []string // as the request listed them, for naming problems
}

// placedPosition is a derived position: a segment with its row ids.
type placedPosition struct {
	id         string
	isNew      bool
	side       string
	reversalOf *string
	stop       *decimal.Decimal
	fields     *newFields // a created first position's own fields
	legs       []journal.Leg
	splitOf    []string // per leg: the closing part an opening part belongs to
	rateGiven  []bool   // per leg: its execution's rate was given
	figures    journal.Figures
	before     string // the stored status; "" for a new position
}

// runSQL walks the run holding position $1 of user $2: its positions in
// run order (n). Run ids first, then an outer query that uses them.
const runSQL = `WITH RECURSIVE up(id, prev, depth) AS (
		SELECT id, reversal_of, 0 FROM positions WHERE id = $1 AND user_id = $2
		UNION ALL
		SELECT p.id, p.reversal_of, up.depth + 1 FROM positions p JOIN up ON p.id = up.prev
	), down(id, n) AS (
		SELECT id, 0 FROM (SELECT id FROM up ORDER BY depth DESC LIMIT 1) root
		UNION ALL
		SELECT p.id, down.n + 1 FROM positions p JOIN down ON p.reversal_of = down.id
	)`

// runIDs returns the positions of the run holding the user's position, in
// run order; apperr.ErrNotFound when the position is not the user's.
func runIDs(ctx context.Context, q db.Querier, userID, positionID string) ([]string, error) {
	return collectIDs(q.Query(ctx, runSQL+` SELECT id::text FROM down ORDER BY n`, positionID, userID))
}

func collectIDs(rows pgx.Rows, err error) ([]string, error) {
	if err != nil {
		return nil, db.Classify(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, db.Classify(err)
	}
	if len(ids) == 0 {
		return nil, apperr.ErrNotFound
	}
	return ids, nil
}

// lockRun locks the run holding the user's position (its positions in id
// order, FOR UPDATE, found and locked by one statement) and reads it with
// its fills; the write records where each of its positions stood. A run
// that changed while its locks were taken (a concurrent write reversed or
// joined it) is locked and read again.
func lockRun(ctx context.Context, w *writeTx, userID, positionID string) (*run, error) {
	if !db.ValidUUID(positionID) {
		return nil, apperr.ErrNotFound
	}
	const lockQ = runSQL + ` SELECT p.id::text FROM positions p WHERE p.id IN (SELECT id FROM down) ORDER BY p.id FOR UPDATE OF p`
	locked, err := collectIDs(w.Query(ctx, lockQ, positionID, userID))
	if err != nil {
		return nil, err
	}
	for {
		ids, err := runIDs(ctx, w, userID, positionID)
		if err != nil {
			return nil, err
		}
		if slices.Equal(slices.Sorted(slices.Values(ids)), locked) {
			ru, err := readRun(ctx, w, ids)
			if err != nil {
				return nil, err
			}
			for _, m := range ru.members {
				var closedAt *time.Time
				if m.status == journal.StatusClosed {
					closedAt = m.closedAt
				}
				w.was(m.id, m.account, closedAt, m.strategy)
			}
			return ru, nil
		}
		const more = `SELECT id::text FROM positions WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`
		if locked, err = collectIDs(w.Query(ctx, more, ids)); err != nil {
			return nil, err
		}
	}
}

// readRun reads a locked run (position ids in run order) with its fills:
// two statements in one round trip.
func readRun(ctx context.Context, w *writeTx, ids []string) (*run, error) {
	const posQ = `SELECT id::text, user_id::text, account_id::text, symbol, asset_type, underlying, option_expiry,
			option_right, option_strike, contract_month, multiplier, side, status, stop_loss, reversal_of::text, closed_at,
			strategy_id::text, coalesce(base_currency, ''), coalesce(quote_currency, '')
		FROM positions WHERE id = ANY($1::uuid[])`
	const fillsQ = `SELECT id::text, position_id::text, type, price, quantity, fees, fee_estimated, filled_at,
			coalesce(split_of::text, ''), rate, rate_given, coalesce(fee_asset, '')
		FROM fills WHERE position_id = ANY($1::uuid[]) ORDER BY position_id, filled_at, id`
	b := &pgx.Batch{}
	b.Queue(posQ, ids)
	b.Queue(fillsQ, ids)
	br := w.SendBatch(ctx, b)
	defer br.Close() //nolint:errcheck // the reads' errors are returned
	rows, err := br.Query()
	if err != nil {
		return nil, classify(err)
	}
	type row struct {
		m    member
		inst runInstrument
	}
	byID := map[string]*row{}
	var r row
	_, err = pgx.ForEachRow(rows, []any{&r.m.id, &r.inst.userID, &r.inst.accountID, &r.inst.symbol, &r.inst.assetType,
		&r.inst.columns.Underlying, &r.inst.columns.Expiry, &r.inst.columns.Right, &r.inst.columns.Strike,
		&r.inst.columns.ContractMonth, &r.inst.multiplier, &r.m.side, &r.m.status, &r.m.stop, &r.m.reversalOf, &r.m.closedAt, &r.m.strategy,
		&r.inst.base, &r.inst.quote}, func() error {
		c := r
		c.m.account = c.inst.accountID
		byID[c.m.id] = &c
		return nil
	})
	if err != nil {
		return nil, classify(err)
	}
	if rows, err = br.Query(); err != nil {
		return nil, classify(err)
	}
	var (
		f   storedFill
		pid string
	)
	_, err = pgx.ForEachRow(rows, []any{&f.ID, &pid, &f.Type, &f.Price, &f.Quantity, &f.Fees, &f.estimated, &f.FilledAt, &f.splitOf,
		&f.Rate, &f.rateGiven, &f.FeeAsset}, func() error {
		if p := byID[pid]; p != nil {
			p.m.fills = append(p.m.fills, f)
		}
		f.Rate = nil
		return nil
	})
	if err != nil {
		return nil, classify(err)
	}
	ru := &run{}
	for i, id := range ids {
		p := byID[id]
		if i == 0 {
			ru.inst = p.inst
		}
		m := p.m
		ru.members = append(ru.members, &m)
	}
	ru.executions()
	return ru, nil
}

// executions turns the run's stored fills into executions: a reversal's
// two parts are one execution again.
func (ru *run) executions() {
	byFill := map[string]*execution{}
	var opening []storedFill
	var openingOf []int
	for mi, m := range ru.members {
		for _, f := range m.fills {
			if f.splitOf != "" {
				opening, openingOf = append(opening, f), append(openingOf, mi)
				continue
			}
			e := &execution{Execution: journal.Execution{Buy: journal.IsBuy(m.side, f.Type), Price: f.Price,
				Quantity: f.Quantity, Fees: f.Fees, FeeEstimated: f.estimated, FilledAt: f.FilledAt, ID: f.ID, Rate: f.Rate,
				FeeAsset: f.FeeAsset}, ids: [2]string{f.ID, ""}, member: mi, rank: typeRank(f.Type), req: -1, rateGiven: f.rateGiven}
			byFill[f.ID] = e
			ru.execs = append(ru.execs, e)
		}
	}
	for k, f := range opening {
		if e := byFill[f.splitOf]; e != nil && e.ids[1] == "" {
			e.Quantity = e.Quantity.Add(f.Quantity)
			e.Fees = e.Fees.Add(f.Fees)
			e.FeeEstimated = e.FeeEstimated || f.estimated
			e.ids[1] = f.ID
			continue
		}
		// Its closing part is outside the run: a whole fill of its own.
		m := ru.members[openingOf[k]]
		ru.execs = append(ru.execs, &execution{Execution: journal.Execution{Buy: journal.IsBuy(m.side, f.Type), Price: f.Price,
			Quantity: f.Quantity, Fees: f.Fees, FeeEstimated: f.estimated, FilledAt: f.FilledAt, ID: f.ID, Rate: f.Rate,
			FeeAsset: f.FeeAsset}, ids: [2]string{f.ID, ""}, member: openingOf[k], rank: typeRank(f.Type), req: -1, rateGiven: f.rateGiven})
	}
}

func typeRank(t string) int {
	if t == journal.FillEntry {
		return 0
	}
	return 1
}

// find returns the execution holding a fill row.
func (ru *run) find(fillID string) *execution {
	for _, e := range ru.execs {
		if e.ids[0] == fillID || e.ids[1] == fillID {
			return e
		}
	}
	return nil
}

// derive places the run's executions into positions (journal.Derive),
// reusing the run's positions in order and naming new ones, and computes
// every position's figures. Fills that do not make positions are a 400
// naming the fill (written: the id of the fill the request wrote, whose
// own fields are then named).
func (ru *run) derive(written string) error {
	slices.SortStableFunc(ru.execs, func(a, b *execution) int {
		if c := a.FilledAt.Compare(b.FilledAt); c != 0 {
			return c
		}
		if a.member != b.member {
			return a.member - b.member
		}
		if a.rank != b.rank {
			return a.rank - b.rank
		}
		return strings.Compare(a.ids[0], b.ids[0])
	})
	side := ru.side
	if len(ru.members) > 0 {
		side = ru.members[0].side
	}
	plain := make([]journal.Execution, len(ru.execs))
	for i, e := range ru.execs {
		plain[i] = e.Execution
		plain[i].Ref = i
	}
	segs, err := journal.Derive(side, plain)
	if err != nil {
		return ru.fillProblem(err, written, func(i int) *execution { return ru.execs[i] })
	}
	fields := ru.first
	ru.placed = ru.placed[:0]
	for si, seg := range segs {
		p := placedPosition{side: seg.Side, legs: seg.Legs, splitOf: make([]string, len(seg.Legs)), rateGiven: make([]bool, len(seg.Legs))}
		if si < len(ru.members) {
			m := ru.members[si]
			p.id, p.stop, p.before = m.id, m.stop, m.status
			p.reversalOf = m.reversalOf
		} else {
			p.id, p.isNew = db.NewUUID().String(), true
		}
		if si == 0 && fields != nil {
			p.fields, p.stop = fields, fields.stop
		}
		if si > 0 {
			prev := ru.placed[si-1].id
			p.reversalOf = &prev
		}
		for li := range p.legs {
			l := &p.legs[li]
			e := ru.execs[l.Ref]
			p.rateGiven[li] = e.rateGiven
			switch l.Part {
			case journal.Opening:
				if e.ids[1] == "" {
					e.ids[1] = db.NewUUID().String()
				}
				l.ID, p.splitOf[li] = e.ids[1], e.ids[0]
			default:
				l.ID = e.ids[0]
			}
		}
		if len(p.legs) > journal.MaxFills {
			return apperr.Invalid("fills", "a position holds at most 1000 fills")
		}
		fig, err := journal.Compute(seg.Trade(ru.inst.multiplier, p.stop, ru.inst.quoted()))
		if err != nil {
			return ru.fillProblem(err, written, func(i int) *execution { return ru.execs[seg.Legs[i].Ref] })
		}
		p.figures = fig
		ru.placed = append(ru.placed, p)
	}
	return nil
}

// newIDs gives executions not yet written their row id.
func (ru *run) newIDs() {
	for _, e := range ru.execs {
		if e.ids[0] == "" {
			e.ids[0] = db.NewUUID().String()
			e.ID = e.ids[0]
		}
	}
}

// fillProblem turns a *journal.FillError into a VALIDATION_ERROR naming
// the fill: by its index in a create's fills ("fills[2].type"), by its own
// field when it is the fill the request wrote, "fills" when it is another.
// of finds the execution of the error's index. Anything else passes through.
func (ru *run) fillProblem(err error, written string, of func(int) *execution) error {
	var fe *journal.FillError
	if !errors.As(err, &fe) {
		return err
	}
	field := "fills"
	switch e := of(fe.Index); {
	case e.req >= 0:
		field = "fills[" + strconv.Itoa(e.req) + "]." + fe.Field
	case written != "" && (e.ids[0] == written || e.ids[1] == written):
		field = fe.Field
	}
	return &apperr.Error{Code: apperr.Validation, Message: fe.Message,
		Details: []apperr.FieldError{{Field: field, Message: fe.Message}}}
}

// changes compares the stored run with its derivation.
func (ru *run) changes(c *Changes) {
	for _, p := range ru.placed {
		after := p.figures.Status
		switch {
		case p.isNew:
			c.Opened = append(c.Opened, p.id)
			if after == journal.StatusClosed {
				c.Closed = append(c.Closed, p.id)
			}
		case p.before != journal.StatusClosed && after == journal.StatusClosed:
			c.Closed = append(c.Closed, p.id)
		case p.before == journal.StatusClosed && after != journal.StatusClosed:
			c.Reopened = append(c.Reopened, p.id)
		}
	}
	for _, m := range ru.members[min(len(ru.placed), len(ru.members)):] {
		c.Removed = append(c.Removed, m.id)
	}
}

// holder returns the position that holds a fill row after the derivation
// (its whole or closing part), or "".
func (ru *run) holder(fillID string) string {
	for _, p := range ru.placed {
		for _, l := range p.legs {
			if l.ID == fillID {
				return p.id
			}
		}
	}
	return ""
}

// writeRuns brings the database to the derived state of runs, in a fixed
// number of round trips whatever their number: the path of every write
// of fills, from one typed in to a 10,000-row import. New positions,
// fills and ledger rows are inserted (insertRows: COPY when many);
// changed fills and positions are updated from arrays; the runs' old
// ledger rows go and the new ones come, and each account's balance moves
// by the difference. The statements go in one batch, broken only by a
// COPY. The runs are the write's user's, locked (lockRun) or new.
func (w *writeTx) writeRuns(ctx context.Context, b *batchWriter, runs []*run) (Changes, error) {
	var (
		c        Changes
		newPos   []newPosition
		figs     figureColumns
		gone     []string // positions no run needs any more
		oldPos   []string // positions whose ledger rows are rewritten
		ledger   []ledgerRow
		keep     = map[string]bool{}
		fillRows []newFill
		upd      fillColumns
		tagRows  []tagRow
	)
	if err := w.convert(ctx, runs); err != nil {
		return c, err
	}
	for _, ru := range runs {
		ru.changes(&c)
		stored := map[string]storedFill{}
		holder := map[string]string{}
		for _, m := range ru.members {
			oldPos = append(oldPos, m.id)
			for _, f := range m.fills {
				stored[f.ID], holder[f.ID] = f, m.id
			}
		}
		for i := len(ru.placed); i < len(ru.members); i++ {
			gone = append(gone, ru.members[i].id)
			w.wrote(ru.members[i].id, stateAfter{})
		}
		in := ru.inst
		for k := range ru.placed {
			p := &ru.placed[k]
			trade := journal.Trade{Side: p.side, Multiplier: in.multiplier, Fills: make([]journal.Fill, len(p.legs))}
			for i, l := range p.legs {
				trade.Fills[i] = l.Fill
			}
			w.move(in.accountID, addLedger(&ledger, in.accountID, p.id, trade, p.figures))
			st := stateAfter{account: in.accountID}
			if p.figures.Status == journal.StatusClosed {
				st.closedAt = p.figures.ClosedAt
			}
			if k < len(ru.members) { // derive keeps the run's positions in order
				st.strategy = ru.members[k].strategy
			}
			w.wrote(p.id, st)
			if p.isNew && st.closedAt != nil && !p.figures.AwaitingRate {
				w.made[p.id] = madeRecord(in, p)
			}
			if p.isNew {
				if p.fields != nil {
					for _, t := range p.fields.tagIDs {
						tagRows = append(tagRows, tagRow{p.id, t})
					}
				}
				newPos = append(newPos, newPosition{ru, p})
			} else {
				figs.add(p.id, p.side, p.reversalOf, p.figures)
			}
			for i, l := range p.legs {
				keep[l.ID] = true
				var split *string
				if p.splitOf[i] != "" {
					split = &p.splitOf[i]
				}
				old, ok := stored[l.ID]
				switch {
				case !ok:
					fillRows = append(fillRows, newFill{p, i})
				case holder[l.ID] != p.id || old.Type != l.Type || !old.Price.Equal(l.Price) || !old.Quantity.Equal(l.Quantity) ||
					!old.Fees.Equal(l.Fees) || old.estimated != l.FeeEstimated || !old.FilledAt.Equal(l.FilledAt) || old.splitOf != p.splitOf[i] ||
					!sameRate(old.Rate, l.Rate) || old.rateGiven != p.rateGiven[i] || !sameRate(old.FeeRate, l.FeeRate) ||
					old.FeeAsset != l.FeeAsset:
					upd.add(l.ID, p.id, l, split, p.rateGiven[i])
				}
			}
		}
	}
	var dropFills []string
	for _, ru := range runs {
		for _, m := range ru.members {
			for _, f := range m.fills {
				if !keep[f.ID] {
					dropFills = append(dropFills, f.ID)
				}
			}
		}
	}

	w.added += len(newPos) - len(gone)
	w.deleteLedger(b.b, oldPos)
	if err := insertRows(ctx, b, "positions", positionColumns, newPos, newPosition.row); err != nil {
		return c, err
	}
	if err := insertRows(ctx, b, "fills", fillColumnNames, fillRows, newFill.row); err != nil {
		return c, err
	}
	if len(upd.id) > 0 {
		const q = `UPDATE fills f SET position_id = u.position_id, type = u.type, price = u.price, quantity = u.quantity,
				fees = u.fees, fee_estimated = u.fee_estimated, filled_at = u.filled_at, split_of = u.split_of,
				rate = u.rate, rate_given = u.rate_given, fee_asset = u.fee_asset, fee_rate = u.fee_rate
			FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::numeric[], $5::numeric[], $6::numeric[], $7::boolean[],
				$8::timestamptz[], $9::uuid[], $10::numeric[], $11::boolean[], $12::text[], $13::numeric[])
				AS u(id, position_id, type, price, quantity, fees, fee_estimated, filled_at, split_of, rate, rate_given, fee_asset, fee_rate)
			WHERE f.id = u.id`
		b.b.Queue(q, upd.id, upd.position, upd.typ, upd.price, upd.qty, upd.fees, upd.estimated, upd.at, upd.splitOf,
			upd.rate, upd.rateGiven, upd.feeAsset, upd.feeRate)
	}
	if len(dropFills) > 0 {
		b.b.Queue(`DELETE FROM fills WHERE id = ANY($1::uuid[])`, dropFills)
	}
	if len(figs.id) > 0 {
		figs.update(b.b)
	}
	if len(gone) > 0 {
		b.b.Queue(`DELETE FROM positions WHERE id = ANY($1::uuid[])`, gone)
	}
	if err := insertRows(ctx, b, "position_tags", []string{"position_id", "tag_id"}, tagRows, tagRow.row); err != nil {
		return c, err
	}
	err := insertRows(ctx, b, "ledger_entries", ledgerColumns, ledger, ledgerRow.row)
	return c, err
}

// batchWriter sends a write's statements in order, queued in one batch
// until a COPY (insertRows) or the caller (flush) sends them: the caller
// queues what it reads of the write after it, one round trip.
type batchWriter struct {
	w *writeTx
	b *pgx.Batch
}

// batch returns an empty batchWriter of the write.
func (w *writeTx) batch() *batchWriter { return &batchWriter{w: w, b: &pgx.Batch{}} }

func (b *batchWriter) flush(ctx context.Context) error {
	if b.b.Len() == 0 {
		return nil
	}
	err := b.w.send(ctx, b.b)
	b.b = &pgx.Batch{}
	return err
}

// copyFrom is how many rows of a table insertRows copies rather than
// inserts. A COPY is a round trip and a statement of its own, each costlier
// than a row's INSERT in the batch: a create's three copied tables (one
// position, two fills, three ledger rows) cost it more PostgreSQL CPU
// than their rows inserted (docs/performance.md); an import's thousands go
// by COPY.
const copyFrom = 64

// insertRows inserts items, each one row of table's columns made by row:
// a few as INSERT statements in b's batch, more by COPY, sent at once after
// what b holds.
func insertRows[T any](ctx context.Context, b *batchWriter, table string, columns []string, items []T, row func(T, []any) []any) error {
	switch {
	case len(items) == 0:
		return nil
	case len(items) < copyFrom:
		params := make([]string, len(columns))
		for i := range params {
			params[i] = "$" + strconv.Itoa(i+1)
		}
		q := "INSERT INTO " + table + " (" + strings.Join(columns, ", ") + ") VALUES (" + strings.Join(params, ", ") + ")"
		for _, it := range items {
			b.b.Queue(q, row(it, nil)...)
		}
		return nil
	}
	if err := b.flush(ctx); err != nil {
		return err
	}
	_, err := b.w.CopyFrom(ctx, pgx.Identifier{table}, columns, copyRows(items, row))
	return classify(err)
}

// tagRow is a tag of a new position.
type tagRow struct{ position, tag string }

func (t tagRow) row(dst []any) []any { return append(dst, copyUUID(t.position), copyUUID(t.tag)) }

// newPosition is a position write copies in: its row is made as COPY
// sends it (copyRows), not before.
type newPosition struct {
	ru *run
	p  *placedPosition
}

func (n newPosition) row(dst []any) []any {
	in, p := n.ru.inst, n.p
	var target *decimal.Decimal
	notes := ""
	if p.fields != nil {
		target, notes = p.fields.target, p.fields.notes
	}
	f := p.figures
	return append(dst, copyUUID(p.id), copyUUID(in.userID), copyUUID(in.accountID), in.symbol, in.assetType, in.columns.Underlying,
		in.columns.Expiry, in.columns.Right, in.columns.Strike, in.columns.ContractMonth, in.multiplier, p.side, copyUUIDPtr(p.reversalOf),
		p.stop, target, notes, f.Status, f.OpenedAt, f.ClosedAt, f.EntryQuantity, f.ExitQuantity, f.OpenQuantity, f.AvgEntryPrice,
		f.AvgExitPrice, f.GrossPnL, f.Fees, f.NetPnL, f.InitialRisk, f.RMultiple, db.NullIfEmpty(in.base), db.NullIfEmpty(in.quote),
		f.QuoteGross, f.AwaitingRate)
}

// fillColumnNames are the columns of a new fill's row (newFill.row).
var fillColumnNames = []string{"id", "position_id", "type", "price", "quantity", "fees", "fee_estimated", "filled_at", "split_of",
	"rate", "rate_given", "fee_asset", "fee_rate"}

// newFill is a fill write copies in: leg i of p.
type newFill struct {
	p *placedPosition
	i int
}

func (n newFill) row(dst []any) []any {
	l := n.p.legs[n.i]
	var split *string
	if n.p.splitOf[n.i] != "" {
		split = &n.p.splitOf[n.i]
	}
	return append(dst, copyUUID(l.ID), copyUUID(n.p.id), l.Type, l.Price, l.Quantity, l.Fees, l.FeeEstimated, l.FilledAt, copyUUIDPtr(split),
		l.Rate, n.p.rateGiven[n.i], db.NullIfEmpty(l.FeeAsset), l.FeeRate)
}

// copyRows is a COPY source that makes each row as it is sent, in one
// buffer: a 10,000-row import's rows made beforehand held 15 MB at once,
// which took its commit's peak heap over the 64 MiB target.
func copyRows[T any](items []T, row func(T, []any) []any) pgx.CopyFromSource {
	var buf []any
	i := 0
	return pgx.CopyFromFunc(func() ([]any, error) {
		if i == len(items) {
			return nil, nil
		}
		buf = row(items[i], buf[:0])
		i++
		return buf, nil
	})
}

// copyUUID is a row id as COPY sends it: pgtype.UUID, which pgx writes in
// binary at once (a string makes pgx try, and fail, a binary plan before its
// text one on every value: 6% of a 10,000-row import's CPU). The ids here
// are the database's or db.NewUUID's, so they parse.
func copyUUID(s string) pgtype.UUID {
	var u pgtype.UUID
	_ = u.Scan(s)
	return u
}

func copyUUIDPtr(s *string) pgtype.UUID {
	if s == nil {
		return pgtype.UUID{}
	}
	return copyUUID(*s)
}

// positionColumns are the columns of a new position's row
// (newPosition.row): its own, then its figures.
var positionColumns = []string{"id", "user_id", "account_id", "symbol", "asset_type", "underlying", "option_expiry",
	"option_right", "option_strike", "contract_month", "multiplier", "side", "reversal_of", "stop_loss", "target_price", "notes",
	"status", "opened_at", "closed_at", "entry_quantity", "exit_quantity", "open_quantity", "avg_entry_price", "avg_exit_price",
	"gross_pnl", "fees", "net_pnl", "initial_risk", "r_multiple", "base_currency", "quote_currency", "quote_gross_pnl", "awaiting_rate"}

// fillColumns are changed fills as column arrays for one UPDATE ... FROM unnest.
type fillColumns struct {
	id, position, typ    []string
	price, qty, fees     []decimal.Decimal
	estimated, rateGiven []bool
	at                   []time.Time
	splitOf, feeAsset    []*string
	rate, feeRate        []*decimal.Decimal
}

func (c *fillColumns) add(id, position string, l journal.Leg, splitOf *string, rateGiven bool) {
	c.id, c.position, c.typ = append(c.id, id), append(c.position, position), append(c.typ, l.Type)
	c.price, c.qty, c.fees = append(c.price, l.Price), append(c.qty, l.Quantity), append(c.fees, l.Fees)
	c.estimated, c.at, c.splitOf = append(c.estimated, l.FeeEstimated), append(c.at, l.FilledAt), append(c.splitOf, splitOf)
	c.rate, c.rateGiven = append(c.rate, l.Rate), append(c.rateGiven, rateGiven)
	c.feeAsset, c.feeRate = append(c.feeAsset, db.NullIfEmpty(l.FeeAsset)), append(c.feeRate, l.FeeRate)
}

// figureColumns are positions' sides, links and Figures as column arrays
// for one UPDATE ... FROM unnest.
type figureColumns struct {
	id, side, status           []string
	reversalOf                 []*string
	openedAt, closedAt         []*time.Time
	entryQty, exitQty, openQty []decimal.Decimal
	avgEntry, avgExit          []*decimal.Decimal
	gross, fees, net           []decimal.Decimal
	risk, r, quoteGross        []*decimal.Decimal
	awaiting                   []bool
}

func (c *figureColumns) add(id, side string, reversalOf *string, f journal.Figures) {
	c.id, c.side, c.reversalOf = append(c.id, id), append(c.side, side), append(c.reversalOf, reversalOf)
	c.status = append(c.status, f.Status)
	c.openedAt = append(c.openedAt, f.OpenedAt)
	c.closedAt = append(c.closedAt, f.ClosedAt)
	c.entryQty = append(c.entryQty, f.EntryQuantity)
	c.exitQty = append(c.exitQty, f.ExitQuantity)
	c.openQty = append(c.openQty, f.OpenQuantity)
	c.avgEntry = append(c.avgEntry, f.AvgEntryPrice)
	c.avgExit = append(c.avgExit, f.AvgExitPrice)
	c.gross = append(c.gross, f.GrossPnL)
	c.fees = append(c.fees, f.Fees)
	c.net = append(c.net, f.NetPnL)
	c.risk = append(c.risk, f.InitialRisk)
	c.r = append(c.r, f.RMultiple)
	c.quoteGross = append(c.quoteGross, f.QuoteGross)
	c.awaiting = append(c.awaiting, f.AwaitingRate)
}

// update queues the update of the positions' figures.
func (c *figureColumns) update(b *pgx.Batch) {
	const upd = `UPDATE positions p SET side = u.side, reversal_of = u.reversal_of, status = u.status,
			opened_at = u.opened_at, closed_at = u.closed_at,
			entry_quantity = u.entry_quantity, exit_quantity = u.exit_quantity, open_quantity = u.open_quantity,
			avg_entry_price = u.avg_entry_price, avg_exit_price = u.avg_exit_price,
			gross_pnl = u.gross_pnl, fees = u.fees, net_pnl = u.net_pnl,
			initial_risk = u.initial_risk, r_multiple = u.r_multiple, quote_gross_pnl = u.quote_gross_pnl,
			awaiting_rate = u.awaiting_rate, updated_at = now()
		FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::timestamptz[], $6::timestamptz[], $7::numeric[],
			$8::numeric[], $9::numeric[], $10::numeric[], $11::numeric[], $12::numeric[], $13::numeric[], $14::numeric[],
			$15::numeric[], $16::numeric[], $17::numeric[], $18::boolean[])
			AS u(id, side, reversal_of, status, opened_at, closed_at, entry_quantity, exit_quantity, open_quantity,
			     avg_entry_price, avg_exit_price, gross_pnl, fees, net_pnl, initial_risk, r_multiple, quote_gross_pnl, awaiting_rate)
		WHERE p.id = u.id`
	b.Queue(upd, c.id, c.side, c.reversalOf, c.status, c.openedAt, c.closedAt, c.entryQty, c.exitQty,
		c.openQty, c.avgEntry, c.avgExit, c.gross, c.fees, c.net, c.risk, c.r, c.quoteGross, c.awaiting)
}

// sameRate reports whether two fill rates are equal (both absent, or equal
// values).
func sameRate(a, b *decimal.Decimal) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}
