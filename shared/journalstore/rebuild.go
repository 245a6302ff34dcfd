package journalstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tradejournal/shared/db"
)

// Migrate applies the schema's migrations (db.Migrate), then rebuilds the
// derived rows of every journal a migration queued (journal_rebuilds):
// rows of an older record layout are encoded again in Go, which no SQL
// migration can do. It is the migrate step of every host: `local
// migrate`, the api's start, the function platform's migration function.
func Migrate(ctx context.Context, url string) ([]string, error) {
	applied, err := db.Migrate(ctx, url)
	if err != nil {
		return applied, err
	}
	pool, err := db.Open(ctx, url, db.Options{PoolSize: 2})
	if err != nil {
		return applied, err
	}
	defer pool.Close()
	_, err = RebuildQueued(ctx, pool)
	return applied, err
}

// RebuildQueued rebuilds the journals queued in journal_rebuilds, one
// transaction each, and returns how many. Two processes may run it at
// once: each journal's rebuild takes its queue row first (SKIP LOCKED).
func RebuildQueued(ctx context.Context, pool *pgxpool.Pool) (int, error) {
	s := New(pool, nil, time.Now)
	n := 0
	for {
		var user string
		err := s.write(ctx, "", func(w *writeTx) error {
			err := w.QueryRow(ctx, `SELECT user_id::text FROM journal_rebuilds FOR UPDATE SKIP LOCKED LIMIT 1`).Scan(&user)
			if err != nil {
				return err
			}
			w.userID = user
			if err := w.everything(ctx); err != nil {
				return err
			}
			_, err = w.Exec(ctx, `DELETE FROM journal_rebuilds WHERE user_id = $1`, user)
			return err
		})
		switch {
		case err == pgx.ErrNoRows:
			return n, nil
		case err != nil:
			return n, fmt.Errorf("rebuild the derived rows of journal %s: %w", user, db.Classify(err))
		}
		n++
	}
}

// Rebuild brings every derived row of the user's journal up to date from
// its positions: for journals written without the store (the benchmarks'
// seeder).
func Rebuild(ctx context.Context, pool *pgxpool.Pool, userID string) error {
	return New(pool, nil, time.Now).write(ctx, userID, func(w *writeTx) error { return w.everything(ctx) })
}

// everything makes the write touch every derived row of its user's
// journal: every strategy, every closed_trades row (those stored and those
// the positions make), and every balance, summed again from the ledger
// under the accounts' locks.
func (w *writeTx) everything(ctx context.Context) error {
	const balances = `WITH a AS (SELECT id FROM accounts WHERE user_id = $1 ORDER BY id FOR NO KEY UPDATE)
		UPDATE accounts SET balance = starting_balance
			+ coalesce((SELECT sum(l.amount) FROM ledger_entries l WHERE l.account_id = accounts.id), 0)
		WHERE id IN (SELECT id FROM a)`
	if _, err := w.Exec(ctx, balances, w.userID); err != nil {
		return classify(err)
	}
	rows, err := w.Query(ctx, `SELECT id::text, account_id::text FROM strategies WHERE user_id = $1`, w.userID)
	if err != nil {
		return classify(err)
	}
	var id, account string
	if _, err := pgx.ForEachRow(rows, []any{&id, &account}, func() error {
		w.touchStrategy(id, account)
		return nil
	}); err != nil {
		return classify(err)
	}
	keys, err := allKeys(ctx, w, w.userID)
	if err != nil {
		return err
	}
	rows, err = w.Query(ctx, `SELECT account_id::text, day FROM closed_trades WHERE user_id = $1`, w.userID)
	if err != nil {
		return classify(err)
	}
	var k closedKey
	if _, err := pgx.ForEachRow(rows, []any{&k.account, &k.day}, func() error {
		keys[closedKey{k.account, utcDay(k.day)}] = struct{}{}
		return nil
	}); err != nil {
		return classify(err)
	}
	for k := range keys {
		w.keys[k] = struct{}{}
	}
	return nil
}

// derivedSQL is every derived row of user $1 as text: its closed_trades
// rows, its strategies' analysis and its accounts' balances.
const derivedSQL = `SELECT
	coalesce((SELECT string_agg(day || ' ' || account_id || ' ' || trades || ' ' || encode(packed, 'hex'), E'\n' ORDER BY day, account_id)
		FROM closed_trades WHERE user_id = $1), ''),
	coalesce((SELECT string_agg(concat_ws(' ', id, kind, label, opened_long, risk, max_profit, r_multiple), E'\n' ORDER BY id)
		FROM strategies WHERE user_id = $1), ''),
	coalesce((SELECT string_agg(id || ' ' || balance, E'\n' ORDER BY id) FROM accounts WHERE user_id = $1), '')`

func at(lines []string, k int) string {
	if k < len(lines) {
		return lines[k]
	}
	return "(none)"
}

// errRolledBack ends RebuildDiff's write without committing it.
var errRolledBack = errors.New("rolled back")

// RebuildDiff rebuilds the user's derived rows in a write it rolls back,
// and says how the stored rows differ from the rebuilt ones ("" when they
// do not): the tests hold every write to it.
func RebuildDiff(ctx context.Context, pool *pgxpool.Pool, userID string) (string, error) {
	var diff string
	err := New(pool, nil, time.Now).write(ctx, userID, func(w *writeTx) error {
		var before [3]string
		if err := w.QueryRow(ctx, derivedSQL, userID).Scan(&before[0], &before[1], &before[2]); err != nil {
			return classify(err)
		}
		w.then(func(ctx context.Context) error {
			var after [3]string
			if err := w.QueryRow(ctx, derivedSQL, userID).Scan(&after[0], &after[1], &after[2]); err != nil {
				return classify(err)
			}
			for i, what := range []string{"closed_trades", "strategies", "balances"} {
				stored, rebuilt := strings.Split(before[i], "\n"), strings.Split(after[i], "\n")
				for k := range max(len(stored), len(rebuilt)) {
					if a, b := at(stored, k), at(rebuilt, k); a != b {
						diff += fmt.Sprintf("%s differ from a rebuild at row %d:\nstored  %.1000s\nrebuilt %.1000s\n", what, k, a, b)
						break
					}
				}
			}
			return errRolledBack
		})
		return w.everything(ctx)
	})
	if err == errRolledBack {
		err = nil
	}
	return diff, err
}
