package journalstore

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"
)

// The statistics read closed positions from closed_trades (migration
// 0022): one packed row per account and UTC day of close. Every write that
// can change a closed position (its figures, tags, close time or account,
// or whether it is closed at all) names the rows it touches, before and
// after, and refreshes them in its transaction (settleAccounts).

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
	y, m, d := closedAt.UTC().Date()
	k[closedKey{account, time.Date(y, m, d, 0, 0, 0, 0, time.UTC)}] = struct{}{}
}

// settleAccounts ends every write of the journal: it locks the accounts
// it changes (in id order, one statement, so that two writers never wait
// on each other in a circle and this transaction's refresh comes after
// the commit of any other writer of these accounts), moves their balances
// by deltas and refreshes the closed_trades rows of keys.
func settleAccounts(ctx context.Context, tx pgx.Tx, userID string, deltas map[string]decimal.Decimal, keys closedKeys) error {
	set := map[string]bool{}
	for a, d := range deltas {
		if !d.IsZero() {
			set[a] = true
		}
	}
	for k := range keys {
		set[k.account] = true
	}
	if len(set) == 0 {
		return nil
	}
	accounts := slices.Sorted(maps.Keys(set))
	const lock = `SELECT 1 FROM accounts WHERE id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE`
	if _, err := tx.Exec(ctx, lock, accounts); err != nil {
		return classify(err)
	}
	if err := adjustBalances(ctx, tx, deltas); err != nil {
		return err
	}
	if len(keys) == 0 {
		return nil
	}
	ids, days := make([]string, 0, len(keys)), make([]time.Time, 0, len(keys))
	for k := range keys {
		ids, days = append(ids, k.account), append(days, k.day)
	}
	_, err := tx.Exec(ctx, `SELECT closed_trades_refresh($1, $2::uuid[], $3::date[])`, userID, ids, days)
	return classify(err)
}
