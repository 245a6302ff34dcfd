package journalstore

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/db"
	"tradejournal/shared/journal"
	"tradejournal/shared/money"
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
	if err := lockAccounts(ctx, tx, accounts); err != nil {
		return err
	}
	if err := adjustBalances(ctx, tx, deltas); err != nil {
		return err
	}
	if err := analyseStrategies(ctx, tx, userID, accounts, keys); err != nil {
		return err
	}
	return refreshClosed(ctx, tx, userID, keys)
}

// lockAccounts locks the accounts' rows in id order (accounts sorted).
func lockAccounts(ctx context.Context, tx pgx.Tx, accounts []string) error {
	const lock = `SELECT 1 FROM accounts WHERE id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE`
	_, err := tx.Exec(ctx, lock, accounts)
	return classify(err)
}

// refreshClosed rewrites the closed_trades rows of keys.
func refreshClosed(ctx context.Context, tx pgx.Tx, userID string, keys closedKeys) error {
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

// A closed strategy is one record in closed_trades (migration 0033), with
// what the strategy engine makes of its legs kept on its row: the kind,
// whether it opened long (for a debit), its R. The triggers of migration
// 0033 mark a strategy stale whenever a leg's row changes, a leg comes or
// goes, or its planned risk changes; every write ends by analysing the
// stale strategies of the accounts it locked, and the rows of their legs'
// closes join the rows it refreshes. Kept rather than computed at each
// report: reading every leg and running the engine there cost an options
// journal of 5,000 strategies 250 ms of CPU a report (docs/performance.md).

// strategyLegsSQL is the legs of strategies $1 with their strategy's
// planned risk, a strategy's legs together.
const strategyLegsSQL = `SELECT s.id::text, s.planned_risk::text, ` + SummaryColumns + `
	FROM strategies s JOIN positions p ON p.strategy_id = s.id WHERE s.id = ANY($1::uuid[]) ORDER BY s.id, p.opened_at NULLS LAST, p.id`

// analyseStrategies analyses the user's stale strategies of accounts
// (locked by the caller) and adds their legs' closed_trades rows to keys.
func analyseStrategies(ctx context.Context, tx pgx.Tx, userID string, accounts []string, keys closedKeys) error {
	rows, err := tx.Query(ctx, `SELECT id::text FROM strategies WHERE user_id = $1 AND NOT analysed AND account_id = ANY($2::uuid[])
		FOR NO KEY UPDATE`, userID, accounts)
	if err != nil {
		return classify(err)
	}
	stale, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(stale) == 0 {
		return classify(err)
	}
	type analysis struct {
		risk *string
		legs []journal.StrategyPosition
	}
	byID := map[string]*analysis{}
	var (
		id   string
		risk *string
		leg  Summary
	)
	rows, err = tx.Query(ctx, strategyLegsSQL, stale)
	if err != nil {
		return classify(err)
	}
	if _, err := pgx.ForEachRow(rows, append([]any{&id, &risk}, ScanSummary(&leg)...), func() error {
		a := byID[id]
		if a == nil {
			a = &analysis{risk: risk}
			byID[id] = a
		}
		a.legs = append(a.legs, strategyPosition(leg))
		keys.add(leg.AccountID, leg.ClosedAt)
		return nil
	}); err != nil {
		return classify(err)
	}
	n := len(stale)
	kinds, labels, long := make([]*string, n), make([]*string, n), make([]*bool, n)
	risks, profits, rs := make([]*string, n), make([]*string, n), make([]*string, n)
	round := func(d *decimal.Decimal) *string {
		if d == nil {
			return nil
		}
		v := money.RoundN(*d, 4)
		return &v
	}
	for i, id := range stale {
		a := byID[id]
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
	_, err = tx.Exec(ctx, `UPDATE strategies s SET analysed = true, kind = x.kind, label = x.label, opened_long = x.long,
			risk = x.risk, max_profit = x.profit, r_multiple = x.r
		FROM unnest($1::uuid[], $2::text[], $3::text[], $4::boolean[], $5::numeric[], $6::numeric[], $7::numeric[])
			AS x(id, kind, label, long, risk, profit, r) WHERE s.id = x.id`,
		stale, kinds, labels, long, risks, profits, rs)
	return classify(err)
}

// AnalyseStrategies brings the user's stale strategies up to date, and
// their records in the statistics: the journal's reads call it first
// (ExpiringFirst), for the strategies no write has analysed since they
// went stale (every one, after migration 0033).
func (s *Store) AnalyseStrategies(ctx context.Context, userID string) error {
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT account_id::text FROM strategies WHERE user_id = $1 AND NOT analysed ORDER BY 1`, userID)
	if err != nil {
		return classify(err)
	}
	accounts, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(accounts) == 0 {
		return classify(err)
	}
	return db.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		keys := closedKeys{}
		if err := lockAccounts(ctx, tx, accounts); err != nil {
			return err
		}
		if err := analyseStrategies(ctx, tx, userID, accounts, keys); err != nil {
			return err
		}
		return refreshClosed(ctx, tx, userID, keys)
	})
}

// legKeys adds the closed_trades rows of a strategy's closed legs to keys:
// before its legs change or it is deleted, the rows its record or its legs
// leave.
func legKeys(ctx context.Context, tx pgx.Tx, strategyID string, keys closedKeys) error {
	return closeKeys(ctx, tx, keys, `strategy_id = $1`, strategyID)
}

// closeKeys adds to keys the closed_trades rows of the closed positions a
// condition on positions (its one argument arg) picks.
func closeKeys(ctx context.Context, tx pgx.Tx, keys closedKeys, where string, arg any) error {
	rows, err := tx.Query(ctx, `SELECT account_id::text, closed_at FROM positions WHERE `+where+` AND closed_at IS NOT NULL`, arg)
	if err != nil {
		return classify(err)
	}
	var account string
	var at *time.Time
	_, err = pgx.ForEachRow(rows, []any{&account, &at}, func() error {
		keys.add(account, at)
		return nil
	})
	return classify(err)
}
