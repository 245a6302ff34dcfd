package journalstore

import (
	"bytes"
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"

	"tradejournal/shared/db"
	"tradejournal/shared/journal"
	"tradejournal/shared/rules"
)

// The trading rules (shared/rules) judge trades, read here: a position in
// no strategy, or a strategy as one trade of all its legs, its money in
// its account's currency. A strategy's entries are its legs', its close
// and net P&L journal.TotalsOf's (as the statistics' record of it,
// strategyRecord's), its risk and max profit those the store's settle
// analysed.

// ruleWindow picks the positions p opened or closed in [$2, $3) in the
// accounts $4 (NULL: every account); ruleStrategies is the strategies of
// those in one. Each statement below names the window in full: a CTE of
// it, read twice, was estimated at 1% of its rows and joined to the fills
// by one index scan a position (twice the time of a hash join).
//
// With $5 the window holds the positions open across its start too (the
// open exposure rule counts them).
const (
	ruleWindow = `p.user_id = $1 AND ($4::uuid[] IS NULL OR p.account_id = ANY($4::uuid[]))
	AND ((p.opened_at >= $2 AND p.opened_at < $3) OR (p.status = 'closed' AND p.closed_at >= $2 AND p.closed_at < $3)
		OR ($5 AND p.opened_at < $2 AND (p.status = 'open' OR p.closed_at >= $3)))`
	ruleStrategies = `(SELECT p.strategy_id FROM positions p WHERE ` + ruleWindow + ` AND p.strategy_id IS NOT NULL)`
)

// ruleTradesSQL is the window's trades: its positions in no strategy, and
// every strategy with a leg there, its legs in opening order. Numbers come
// in binary (db's numeric codec): parsing their text was a third of the
// reading's Go CPU (BenchmarkCompliance). The columns only some rules
// judge are read when asked for (each $n is a constant of the statement's
// plan, so an unasked one is not computed): with $6 the underlying (a
// strategy's is its symbol, the first leg's) and the asset types (a
// strategy's legs', each once); with $7 the direction (a
// strategy's the statistics': opened for a debit is long); with $8
// whether it has notes.
const ruleTradesSQL = `SELECT p.id, p.id::text, NULL::text[], p.account_id, p.symbol, NULL::text, p.multiplier,
	p.stop_loss, p.target_price, p.initial_risk, NULL::numeric, p.closed_at, p.net_pnl,
	NULL::text[], NULL::timestamptz[], NULL::timestamptz[], NULL::numeric[],
	CASE WHEN $6 THEN p.underlying END, CASE WHEN $6 THEN ARRAY[p.asset_type] END, $7 AND p.side = 'short', $8 AND p.notes <> ''
FROM positions p WHERE ` + ruleWindow + ` AND p.strategy_id IS NULL
UNION ALL
SELECT s.id, s.id::text, array_agg(l.id::text ORDER BY l.opened_at NULLS LAST, l.id), s.account_id,
	(array_agg(coalesce(l.underlying, l.symbol) ORDER BY l.opened_at NULLS LAST, l.id))[1], coalesce(s.label, ''), NULL,
	NULL, NULL, s.risk, s.max_profit, NULL, NULL,
	array_agg(l.status), array_agg(l.opened_at), array_agg(l.closed_at), array_agg(l.net_pnl),
	NULL, CASE WHEN $6 THEN array_agg(DISTINCT l.asset_type) END,
	$7 AND NOT coalesce(s.opened_long, true), $8 AND bool_or(l.notes <> '')
FROM strategies s JOIN positions l ON l.strategy_id = s.id
WHERE s.id IN ` + ruleStrategies + `
GROUP BY s.id`

// ruleDetailsSQL is the tags (a tag id) and the screenshots (NULL, one a
// position with any) of the window's trades, each with its trade (the
// strategy of a leg). Joined here rather than read by a subquery a
// trade: 21,000 of those cost PostgreSQL 130 ms of the benchmark's
// year, these joins 20.
const ruleDetailsSQL = `SELECT p.id, t.tag_id::text FROM positions p JOIN position_tags t ON t.position_id = p.id
WHERE ` + ruleWindow + ` AND p.strategy_id IS NULL
UNION ALL
SELECT l.strategy_id, t.tag_id::text FROM positions l JOIN position_tags t ON t.position_id = l.id
WHERE l.strategy_id IN ` + ruleStrategies + `
UNION ALL
SELECT p.id, NULL FROM positions p WHERE ` + ruleWindow + ` AND p.strategy_id IS NULL
	AND EXISTS (SELECT 1 FROM position_images i WHERE i.position_id = p.id)
UNION ALL
SELECT l.strategy_id, NULL FROM positions l WHERE l.strategy_id IN ` + ruleStrategies + `
	AND EXISTS (SELECT 1 FROM position_images i WHERE i.position_id = l.id)`

// ruleEntriesSQL is the entry fills of the window's trades, each with its
// trade (the strategy of a leg) and, in a strategy, its leg's multiplier;
// with $6 a position's exit fills before its close too (exit true; no
// price: the rules take their time and quantity; the close takes off the
// rest), not a strategy's legs'.
const ruleEntriesSQL = `SELECT p.id, f.id, f.filled_at, CASE WHEN f.type = 'entry' THEN f.price END, f.quantity, NULL::numeric, f.type = 'exit'
FROM positions p JOIN fills f ON f.position_id = p.id AND (f.type = 'entry' OR $6 AND (p.closed_at IS NULL OR f.filled_at < p.closed_at))
WHERE ` + ruleWindow + ` AND p.strategy_id IS NULL
UNION ALL
SELECT l.strategy_id, f.id, f.filled_at, f.price, f.quantity, l.multiplier, false
FROM positions l JOIN fills f ON f.position_id = l.id AND f.type = 'entry'
WHERE l.strategy_id IN ` + ruleStrategies

// ruleAccountsSQL is the user's accounts; with $3, each one's balance at
// $2 (its balance less every ledger entry from $2 on).
const ruleAccountsSQL = `SELECT a.id, a.id::text, a.currency::text, a.timezone,
	CASE WHEN $3 THEN a.balance - coalesce((SELECT sum(l.amount) FROM ledger_entries l
		WHERE l.account_id = a.id AND l.occurred_at >= $2), 0) END
FROM accounts a WHERE a.user_id = $1`

// ruleLedgerSQL is the ledger of the accounts $4 (NULL: every account)
// from $2 to $3 summed by trading day in the account's zone, a day's sum
// (NULL: none) by one index-only range scan of
// ledger_entries_account_amount_idx: grouping the rows by their day in
// the zone cost three times as much.
const ruleLedgerSQL = `SELECT a.id, d.day, (SELECT sum(l.amount) FROM ledger_entries l
	WHERE l.account_id = a.id AND l.occurred_at >= greatest(d.start, $2) AND l.occurred_at < least(d.next, $3))
FROM accounts a CROSS JOIN LATERAL (
	SELECT g::date AS day, g::timestamp AT TIME ZONE a.timezone AS start, (g::timestamp + interval '1 day') AT TIME ZONE a.timezone AS next
	FROM generate_series(($2 AT TIME ZONE a.timezone)::date, ($3 AT TIME ZONE a.timezone)::date, interval '1 day') g) d
WHERE a.user_id = $1 AND ($4::uuid[] IS NULL OR a.id = ANY($4::uuid[]))
ORDER BY 1, 2`

// ruleLastCloseSQL is the latest close of the trades with a position
// opened in [$2, $3) in the accounts $4 (NULL: every account): a
// strategy's legs' too.
const ruleLastCloseSQL = `SELECT max(x.closed_at) FROM positions p
	JOIN positions x ON x.id = p.id OR (p.strategy_id IS NOT NULL AND x.strategy_id = p.strategy_id)
WHERE p.user_id = $1 AND ($4::uuid[] IS NULL OR p.account_id = ANY($4::uuid[])) AND p.opened_at >= $2 AND p.opened_at < $3`

// RuleTradesLastClose is the latest close of the user's trades opened in
// [from, to) in the accounts accountIDs (nil: every account); nil when
// none closed. A trade is judged on the day of its close too: a read for
// the trades opened in a range reaches that far.
func RuleTradesLastClose(ctx context.Context, q db.Querier, userID string, accountIDs []string, from, to time.Time) (*time.Time, error) {
	var last *time.Time
	err := q.QueryRow(ctx, ruleLastCloseSQL, userID, from, to, accountsParam(accountIDs)).Scan(&last)
	return last, db.Classify(err)
}

// ruleAccount is an account as its trades carry it and, when balances
// are read, its balance at the window's end and start, and at the end of
// each trading day of the window with a ledger entry, in date order.
type ruleAccount struct {
	id, currency string
	zone         *time.Location
	end, start   decimal.Decimal
	days         []ruleDay
}

type ruleDay struct {
	date    time.Time // UTC midnight of the date
	balance decimal.Decimal
}

// RuleNeeds are what a RuleTrades read adds for the rules that need it.
type RuleNeeds struct {
	// Balances: a trade opened in the window has the Balance its account
	// had at the start of the trading day of its first entry: the balance
	// less every ledger entry from that day's start on (deposits,
	// withdrawals, realized P&L, fees).
	Balances bool
	// Open: the trades open across the window's start are read too.
	Open bool
	// Exits: a position's Exits before its close are read.
	Exits bool
	// Details: HasTag, HasScreenshot and TagIDs are read.
	Details bool
	// Markets: Underlying and AssetTypes are read.
	Markets bool
	// Direction: Short is read.
	Direction bool
	// Notes: HasNotes is read.
	Notes bool
}

// RuleTrades reads the user's trades with an opening or a close in [from,
// to) in the accounts accountIDs (nil: every account), in no order, for
// shared/rules: the entries of each in time order, a position without an
// entry (a draft) no trade; and what needs asks for.
//
// tx is a read-only repeatable-read transaction: the statements go in one
// round trip and read one snapshot. JIT compilation is off for them: a
// journal whose joins are estimated past jit_above_cost paid more to
// compile them (1.9 s) than to run them.
func RuleTrades(ctx context.Context, tx batcher, userID string, accountIDs []string, from, to time.Time, needs RuleNeeds) ([]rules.Position, error) {
	balances := needs.Balances
	accounts := accountsParam(accountIDs)
	b := &pgx.Batch{}
	b.Queue(`SET LOCAL jit = off`)
	b.Queue(ruleAccountsSQL, userID, to, balances)
	b.Queue(ruleEntriesSQL, userID, from, to, accounts, needs.Open, needs.Exits)
	b.Queue(ruleTradesSQL, userID, from, to, accounts, needs.Open, needs.Markets, needs.Direction, needs.Notes)
	if needs.Details {
		b.Queue(ruleDetailsSQL, userID, from, to, accounts, needs.Open)
	}
	if balances {
		b.Queue(ruleLedgerSQL, userID, from, to, accounts)
	}
	br := tx.SendBatch(ctx, b)
	defer br.Close() //nolint:errcheck // the reads' errors are returned
	if _, err := br.Exec(); err != nil {
		return nil, db.Classify(err)
	}
	byKey, err := readRuleAccounts(br)
	if err != nil {
		return nil, err
	}
	entries, index, err := readRuleEntries(br)
	if err != nil {
		return nil, err
	}
	out, err := readRuleTrades(br, byKey, entries, index, needs.Markets)
	if err != nil {
		return nil, err
	}
	if needs.Details {
		if err := readRuleDetails(br, out, index); err != nil {
			return nil, err
		}
	}
	if !balances {
		return out, nil
	}
	if err := readRuleLedger(br, byKey); err != nil {
		return nil, err
	}
	byID := make(map[string]*ruleAccount, len(byKey))
	for _, a := range byKey {
		byID[a.id] = a
	}
	for i := range out {
		setBalance(&out[i], from, byID[out[i].AccountID])
	}
	return out, nil
}

// accountsParam is accountIDs as the statements take them: NULL for
// every account.
func accountsParam(accountIDs []string) any {
	if len(accountIDs) == 0 {
		return nil
	}
	return accountIDs
}

func readRuleAccounts(br pgx.BatchResults) (map[pgtype.UUID]*ruleAccount, error) {
	rows, err := br.Query()
	if err != nil {
		return nil, db.Classify(err)
	}
	out := map[pgtype.UUID]*ruleAccount{}
	var (
		key         pgtype.UUID
		id, cur, tz string
		balance     *decimal.Decimal
	)
	_, err = pgx.ForEachRow(rows, []any{&key, &id, &cur, &tz, &balance}, func() error {
		zone, err := time.LoadLocation(tz)
		if err != nil {
			return err
		}
		a := &ruleAccount{id: id, currency: cur, zone: zone}
		if balance != nil {
			a.end = *balance
		}
		out[key] = a
		return nil
	})
	return out, db.Classify(err)
}

// ruleEntry is an entry (or an exit) fill and its id, which orders the
// fills of one instant.
type ruleEntry struct {
	id   [16]byte
	fill rules.Fill
	exit bool
}

// readRuleEntries reads the entries (and exits) of each trade, numbering
// the trades in the order they come (index): a trade without an entry (a
// draft) is none.
func readRuleEntries(br pgx.BatchResults) ([][]ruleEntry, map[pgtype.UUID]int, error) {
	rows, err := br.Query()
	if err != nil {
		return nil, nil, db.Classify(err)
	}
	var (
		byTrade [][]ruleEntry
		index   = map[pgtype.UUID]int{}
		key, id pgtype.UUID
		at      time.Time
		price   *decimal.Decimal
		qty     decimal.Decimal
		mult    *decimal.Decimal
		exit    bool
	)
	_, err = pgx.ForEachRow(rows, []any{&key, &id, &at, &price, &qty, &mult, &exit}, func() error {
		n, ok := index[key]
		if !ok {
			n = len(byTrade)
			index[key] = n
			byTrade = append(byTrade, nil)
		}
		e := ruleEntry{id: id.Bytes, fill: rules.Fill{At: at, Quantity: qty}, exit: exit}
		if price != nil {
			e.fill.Price = *price
		}
		if mult != nil {
			e.fill.Multiplier = *mult
		}
		byTrade[n] = append(byTrade[n], e)
		return nil
	})
	return byTrade, index, db.Classify(err)
}

// readRuleTrades reads the trades with an entry into a list made once, at
// their number, and sets their entries in time order, in one list made at
// its length too: growing lists of the benchmark's 21,000 trades (280
// bytes each) and their 42,000 entries were a third of the reading's Go
// CPU (BenchmarkCompliance).
func readRuleTrades(br pgx.BatchResults, accounts map[pgtype.UUID]*ruleAccount, entries [][]ruleEntry, index map[pgtype.UUID]int, markets bool) ([]rules.Position, error) {
	rows, err := br.Query()
	if err != nil {
		return nil, db.Classify(err)
	}
	var (
		out                           = make([]rules.Position, len(index))
		key, account                  pgtype.UUID
		p                             rules.Position
		label                         *string
		mult, stop, target, risk, rwd *decimal.Decimal
		net                           *decimal.Decimal
		// A strategy's legs: status, opening, close and net P&L.
		statuses       []string
		opened, closed []*time.Time
		nets           []decimal.Decimal
		underlying     *string
	)
	_, err = pgx.ForEachRow(rows, []any{&key, &p.ID, &p.Legs, &account, &p.Symbol, &label, &mult,
		&stop, &target, &risk, &rwd, &p.ClosedAt, &net, &statuses, &opened, &closed, &nets,
		&underlying, &p.AssetTypes, &p.Short, &p.HasNotes}, func() error {
		n, ok := index[key]
		if !ok {
			return nil // a draft
		}
		a := accounts[account]
		t := &out[n]
		*t = p
		t.AccountID, t.Currency, t.Zone = a.id, a.currency, a.zone
		if underlying != nil {
			t.Underlying = *underlying
		}
		if label != nil {
			if markets {
				t.Underlying = t.Symbol
			}
			t.Symbol = strategyName(t.Symbol, *label)
		}
		if mult != nil {
			t.Multiplier = *mult
		}
		if p.Legs != nil {
			legs := make([]journal.LegTotals, len(statuses))
			for i := range legs {
				legs[i] = journal.LegTotals{Status: statuses[i], OpenedAt: opened[i], ClosedAt: closed[i], Net: nets[i]}
			}
			totals := journal.TotalsOf(legs)
			t.ClosedAt, t.Net = totals.ClosedAt, totals.Net
		} else {
			t.Net = *net
		}
		t.Stop, t.Target, t.InitialRisk, t.Reward = nullable(stop), nullable(target), nullable(risk), nullable(rwd)
		return nil
	})
	if err != nil {
		return nil, db.Classify(err)
	}
	total := 0
	for _, es := range entries {
		total += len(es)
	}
	fills := make([]rules.Fill, 0, total)
	for n, es := range entries {
		slices.SortFunc(es, func(a, b ruleEntry) int {
			return cmp.Or(a.fill.At.Compare(b.fill.At), bytes.Compare(a.id[:], b.id[:]))
		})
		start := len(fills)
		for _, e := range es {
			if !e.exit {
				fills = append(fills, e.fill)
			}
		}
		out[n].Entries = fills[start:len(fills):len(fills)]
		start = len(fills)
		for _, e := range es {
			if e.exit {
				fills = append(fills, e.fill)
			}
		}
		if len(fills) > start {
			out[n].Exits = fills[start:len(fills):len(fills)]
		}
	}
	return out, nil
}

// readRuleDetails sets the trades' tags and whether they have a
// screenshot (a strategy: any leg's, each tag once).
func readRuleDetails(br pgx.BatchResults, out []rules.Position, index map[pgtype.UUID]int) error {
	rows, err := br.Query()
	if err != nil {
		return db.Classify(err)
	}
	var (
		key pgtype.UUID
		tag *string
	)
	_, err = pgx.ForEachRow(rows, []any{&key, &tag}, func() error {
		n, ok := index[key]
		if !ok {
			return nil // a draft
		}
		t := &out[n]
		switch {
		case tag == nil:
			t.HasScreenshot = true
		case !slices.Contains(t.TagIDs, *tag):
			t.TagIDs = append(t.TagIDs, *tag)
			t.HasTag = true
		}
		return nil
	})
	return db.Classify(err)
}

// strategyName is a strategy as a violation names it: its underlying and
// the engine's label ("SPY short iron condor"), or "SPY strategy".
func strategyName(underlying, label string) string {
	if label == "" {
		return underlying + " strategy"
	}
	return underlying + " " + strings.ToLower(label[:1]) + label[1:]
}

// readRuleLedger sets each account's balance at the end of the window's
// days from its balance at the window's end and the days' sums.
func readRuleLedger(br pgx.BatchResults, accounts map[pgtype.UUID]*ruleAccount) error {
	rows, err := br.Query()
	if err != nil {
		return db.Classify(err)
	}
	var (
		key  pgtype.UUID
		date time.Time
		sum  *decimal.Decimal
	)
	_, err = pgx.ForEachRow(rows, []any{&key, &date, &sum}, func() error {
		if sum != nil {
			a := accounts[key]
			a.days = append(a.days, ruleDay{date: date, balance: *sum})
		}
		return nil
	})
	if err != nil {
		return db.Classify(err)
	}
	for _, a := range accounts {
		// The days hold their sums: the balance at the window's start is
		// the balance at its end less all of them.
		a.start = a.end
		for _, day := range a.days {
			a.start = a.start.Sub(day.balance)
		}
		sum := a.start
		for i := range a.days {
			sum = sum.Add(a.days[i].balance)
			a.days[i].balance = sum
		}
	}
	return nil
}

// setBalance sets p's Balance, when p opened at or after from: its
// account's balance at the end of the last day with a ledger entry
// before the trading day of p's first entry.
func setBalance(p *rules.Position, from time.Time, a *ruleAccount) {
	first := p.Entries[0].At
	if first.Before(from) {
		return
	}
	y, m, d := first.In(a.zone).Date()
	day := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	n, _ := slices.BinarySearchFunc(a.days, day, func(x ruleDay, t time.Time) int { return x.date.Compare(t) })
	b := a.start
	if n > 0 {
		b = a.days[n-1].balance
	}
	p.Balance = decimal.NullDecimal{Decimal: b, Valid: true}
}

// nullable is a numeric column read as a pointer (nil: NULL), as the
// rules take it.
func nullable(v *decimal.Decimal) decimal.NullDecimal {
	if v == nil {
		return decimal.NullDecimal{}
	}
	return decimal.NullDecimal{Decimal: *v, Valid: true}
}
