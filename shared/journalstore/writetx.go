package journalstore

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
)

// writeTx is one write to the journal: a transaction that records what it
// touches (positions, strategies, balance moves) and, once, before it
// commits, brings every derived row up to date: the account balances, the
// strategies' analysis and the statistics' closed_trades rows (settle). A
// write method never settles by itself, and no trigger derives anything:
// every write goes through Store.write or Store.within, the only places
// that begin one (TestWritesGoThroughWriteTx holds the package to it).
//
// What it records:
//   - a position it locks (lockPositions, lockRun): where the position's
//     record stood before the write (its account and UTC day of close, its
//     strategy), and that its state after is read at settle;
//   - a position writeRuns writes or deletes, with its state after, which
//     settle then need not read (wrote), and the record of a closed one it
//     creates, which the statistics' rows then need not read back (made);
//     a statement that changes such a position after writeRuns (its
//     strategy, its playbook) touches it again;
//   - a position it changes or creates otherwise, whose state after is
//     read at settle (touch);
//   - a strategy whose analysis may change without a position of it
//     locked (a new planned risk: touchStrategy);
//   - a balance move, with every ledger row it writes or deletes (move).
type writeTx struct {
	pgx.Tx
	userID     string
	deltas     map[string]decimal.Decimal // balance moves by account
	keys       closedKeys                 // closed_trades rows the write touches
	positions  map[string]*stateAfter     // touched positions: their state after, nil when read at settle
	made       map[string]*recordRow      // records of closed positions the write created, in no strategy
	strategies map[string]string          // strategies to analyse again, with their account
	added      int                        // positions written less positions deleted (writeRuns)
	after      []func(context.Context) error
}

// stateAfter is where a position's record stands after the write: its
// account, its close (nil while open, or when the write deleted it) and
// its strategy.
type stateAfter struct {
	account  string
	closedAt *time.Time
	strategy *string
}

// write runs fn as one write of the user's journal in a transaction of
// its own, settled and committed.
func (s *Store) write(ctx context.Context, userID string, fn func(w *writeTx) error) error {
	return db.InTx(ctx, s.pool, func(tx pgx.Tx) error { return within(ctx, tx, userID, s.growth, fn) })
}

// within runs fn as one write of the user's journal in tx, a caller's
// transaction (a restore writes the rest of the user's data in it too),
// settled before it returns. growth, when not nil, runs once fn has added
// positions, before the settle.
func within(ctx context.Context, tx pgx.Tx, userID string, growth GrowthCheck, fn func(w *writeTx) error) error {
	w := &writeTx{Tx: tx, userID: userID, deltas: map[string]decimal.Decimal{}, keys: closedKeys{},
		positions: map[string]*stateAfter{}, made: map[string]*recordRow{}, strategies: map[string]string{}}
	if err := fn(w); err != nil {
		return err
	}
	if growth != nil && w.added > 0 {
		if err := growth(ctx, tx, userID); err != nil {
			return err
		}
	}
	if err := w.settle(ctx); err != nil {
		return err
	}
	for _, f := range w.after {
		if err := f(ctx); err != nil {
			return err
		}
	}
	return nil
}

// then runs f once the write has settled, before it commits: a read of
// what the answer shows of the derived rows (a balance).
func (w *writeTx) then(f func(context.Context) error) { w.after = append(w.after, f) }

// was records where a position the write locks (to change it) stood
// before it: the closed_trades row of its close (none while open) and its
// strategy; its state after is read at settle unless writeRuns makes it.
func (w *writeTx) was(id, account string, closedAt *time.Time, strategy *string) {
	w.keys.add(account, closedAt)
	if strategy != nil {
		w.strategies[*strategy] = account
	}
	w.positions[id] = nil
	delete(w.made, id)
}

// touch records positions the write creates or changes whose state after
// is read at settle (their state before is recorded, was, or is nothing).
func (w *writeTx) touch(ids ...string) {
	for _, id := range ids {
		w.positions[id] = nil
		delete(w.made, id)
	}
}

// wrote records a position's state after the write, as writeRuns made it
// (a deleted position's is the zero stateAfter): settle need not read it.
func (w *writeTx) wrote(id string, st stateAfter) {
	w.positions[id] = &st
	delete(w.made, id)
}

// touchStrategy records a strategy whose analysis the write changes.
func (w *writeTx) touchStrategy(id, account string) { w.strategies[id] = account }

// move records that the write moves an account's balance by delta.
func (w *writeTx) move(account string, delta decimal.Decimal) {
	w.deltas[account] = w.deltas[account].Add(delta)
}

// lockPositions locks, in id order, the user's positions that where (a
// condition on positions aliased p, with args from $2 on; $1 is the user)
// selects, records where each stood (was), and returns their ids.
func (w *writeTx) lockPositions(ctx context.Context, where string, args ...any) ([]string, error) {
	rows, err := w.Query(ctx, `SELECT p.id::text, p.account_id::text, CASE WHEN p.status = 'closed' THEN p.closed_at END,
			p.strategy_id::text
		FROM positions p WHERE p.user_id = $1 AND (`+where+`) ORDER BY p.id FOR UPDATE`, append([]any{w.userID}, args...)...)
	if err != nil {
		return nil, classify(err)
	}
	var (
		ids         []string
		id, account string
		closedAt    *time.Time
		strategy    *string
	)
	_, err = pgx.ForEachRow(rows, []any{&id, &account, &closedAt, &strategy}, func() error {
		ids = append(ids, id)
		w.was(id, account, closedAt, strategy)
		return nil
	})
	return ids, classify(err)
}

// lockPosition locks one of the user's positions as lockPositions does;
// one that is not theirs is apperr.ErrNotFound.
func (w *writeTx) lockPosition(ctx context.Context, id string) error {
	ids, err := w.lockPositions(ctx, `p.id = $2`, id)
	if err == nil && len(ids) == 0 {
		return apperr.ErrNotFound
	}
	return err
}

// settle brings the derived rows up to date, once, at the end of the write:
//  1. the touched positions as they are now (as writeRuns made them, or
//     read): the rows of their closes and their strategies join what they
//     were before;
//  2. the accounts of every row and balance the write moves are locked
//     (in id order, one statement, FOR NO KEY UPDATE: two writers never
//     wait on each other in a circle, and this write's reads below come
//     after the commit of any other writer of these accounts), and the
//     balances move;
//  3. the touched strategies are analysed again (the rows of their legs'
//     closes join, since a strategy's record is in its last leg's row);
//  4. the closed_trades rows are encoded again from what they hold now.
//
// Statements that do not wait for each other's answers go together, one
// round trip: the locks, the balances and the reads of 3 (or 4, when no
// strategy is touched); the strategies' analysis and the reads of 4; the
// rows written.
func (w *writeTx) settle(ctx context.Context) error {
	if err := w.readAfter(ctx); err != nil {
		return err
	}
	for _, st := range w.positions {
		if st == nil { // deleted
			continue
		}
		w.keys.add(st.account, st.closedAt)
		if st.strategy != nil {
			w.strategies[*st.strategy] = st.account
		}
	}
	set := map[string]bool{}
	for a, d := range w.deltas {
		if !d.IsZero() {
			set[a] = true
		}
	}
	for k := range w.keys {
		set[k.account] = true
	}
	for _, a := range w.strategies {
		set[a] = true
	}
	if len(set) == 0 {
		return nil
	}
	b := &pgx.Batch{}
	b.Queue(genericPlans)
	b.Queue(`SELECT 1 FROM accounts WHERE id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE`, slices.Sorted(maps.Keys(set)))
	adjustBalances(b, w.deltas)
	if len(w.strategies) > 0 {
		legs := readLegs(b, slices.Sorted(maps.Keys(w.strategies)), w.keys)
		if err := w.send(ctx, b); err != nil {
			return err
		}
		b = &pgx.Batch{}
		analyse(b, legs)
	}
	recs := readRecords(b, w.userID, w.keys, w.made)
	if err := w.send(ctx, b); err != nil {
		return err
	}
	rows, err := encodeRows(recs)
	if err != nil {
		return err
	}
	return writeRows(ctx, w, w.userID, rows)
}

// genericPlans makes the rest of the write's transaction run its prepared
// statements on their generic plans. PostgreSQL plans a statement whose
// parameters are arrays (settle's, keyed by accounts and days) for each
// call's values, since its generic plan costs the arrays' lengths at a
// guess: closedSQL's planning cost a create 0.46 ms of PostgreSQL CPU
// against 0.15 ms for its run. The statements settle sends are planned to
// index scans whatever the values (closedSQL's fences).
const genericPlans = `SET LOCAL plan_cache_mode = force_generic_plan`

// send sends a batch whose statements' answers their queued functions read.
func (w *writeTx) send(ctx context.Context, b *pgx.Batch) error {
	return classify(w.SendBatch(ctx, b).Close())
}

// readAfter reads the state after the write of the touched positions
// writeRuns did not make (nil), in one statement; a deleted one is left
// nil, which settle reads as nothing.
func (w *writeTx) readAfter(ctx context.Context) error {
	var ids []string
	for id, st := range w.positions {
		if st == nil {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	rows, err := w.Query(ctx, `SELECT id::text, account_id::text, CASE WHEN status = 'closed' THEN closed_at END, strategy_id::text
		FROM positions WHERE id = ANY($1::uuid[])`, ids)
	if err != nil {
		return classify(err)
	}
	var (
		id string
		st stateAfter
	)
	_, err = pgx.ForEachRow(rows, []any{&id, &st.account, &st.closedAt, &st.strategy}, func() error {
		w.wrote(id, st)
		return nil
	})
	return classify(err)
}

// adjustBalances queues the move of each account's balance by its delta,
// in one statement, skipping zeros. Balances move by deltas (balance =
// balance + x), never by re-summing the ledger: under READ COMMITTED an
// UPDATE that waited for a row lock sees the row's newest version but not
// rows other transactions inserted meanwhile.
func adjustBalances(b *pgx.Batch, deltas map[string]decimal.Decimal) {
	var (
		accounts []string
		amounts  []decimal.Decimal
	)
	for _, a := range slices.Sorted(maps.Keys(deltas)) {
		if d := deltas[a]; !d.IsZero() {
			accounts, amounts = append(accounts, a), append(amounts, d)
		}
	}
	if len(accounts) == 0 {
		return
	}
	b.Queue(`UPDATE accounts a SET balance = a.balance + x.d
		FROM unnest($1::uuid[], $2::numeric[]) AS x(id, d) WHERE a.id = x.id`, accounts, amounts)
}
