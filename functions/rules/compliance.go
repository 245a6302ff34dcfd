package rules

import (
	"cmp"
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/fx"
	"tradejournal/shared/fx/fxdb"
	"tradejournal/shared/httpx"
	"tradejournal/shared/journal"
	"tradejournal/shared/rules"
	"tradejournal/shared/stats"
)

// MaxDays bounds a compliance request's range: a year, leap day included.
const MaxDays = 366

// Compliance is the body of GET /api/rules/compliance.
type Compliance struct {
	From string `json:"from"`
	To   string `json:"to"`
	// Days is every trading day of the range (a position opened or closed
	// there, in its account's trading-day zone), in date order, with the
	// enabled rules' outcome; a day without a judged rule has a null score.
	Days       []rules.Day `json:"days"`
	DaysKept   int         `json:"daysKept"`
	DaysBroken int         `json:"daysBroken"`
	Breakdown  Breakdown   `json:"breakdown"`
}

// Breakdown sets the figures of the days that kept every rule beside
// those of the days that broke one, per account currency and converted
// into the display currency, as the statistics report them (their byDay
// rows grouped: only days with a close have figures).
type Breakdown struct {
	DisplayCurrency *string  `json:"displayCurrency"`
	MissingPairs    []string `json:"missingPairs"`
	ByCurrency      []Block  `json:"byCurrency"`
	Total           *Block   `json:"total"`
}

// Block is the breakdown in one currency.
type Block struct {
	Currency string   `json:"currency"`
	Kept     DayGroup `json:"kept"`
	Broken   DayGroup `json:"broken"`
	// ByRule has, for every enabled rule, the days that broke it.
	ByRule []RuleGroup `json:"byRule"`
}

// DayGroup is the figures of some days: how many had a close, and their sum.
type DayGroup struct {
	Days int `json:"days"`
	stats.Bucket
}

// RuleGroup is the days that broke one rule.
type RuleGroup struct {
	RuleID string     `json:"ruleId"`
	Type   rules.Type `json:"type"`
	DayGroup
}

// complianceFilters are the statistics' filters a compliance request
// refuses: a rule judges every trade of a day, so narrowing the trades to
// some symbols, tags or hours would judge a day that never was.
var complianceFilters = []string{"symbol", "status", "tagId", "excludeTagId", "side", "assetType", "weekday", "hour", "dateBy"}

// parseRange reads from and to (required, at most MaxDays apart) and
// accountId through the journal's shared filter.
func parseRange(q url.Values) (journal.Filter, error) {
	f, err := journal.ParseFilter(q)
	if err != nil {
		return journal.Filter{}, err
	}
	var p journal.Problems
	for _, name := range complianceFilters {
		if q.Has(name) {
			p.Add(name, "is not a filter of the rules' compliance: a rule judges every trade of a day")
		}
	}
	if f.From == nil {
		p.Add("from", "is required")
	}
	if f.To == nil {
		p.Add("to", "is required")
	}
	if f.From != nil && f.To != nil && f.To.Sub(*f.From) >= MaxDays*24*time.Hour {
		p.Add("to", "must be at most 366 days after from")
	}
	return f, p.Err()
}

// compliance answers each trading day's compliance with the caller's
// enabled rules from..to, and the breakdown of the days' results.
// days=false leaves the days out (their counts and the breakdown stay):
// a year of a busy journal's violations is megabytes the dashboard's
// breakdown does not show.
func (h handler) compliance(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f, err := parseRange(q)
	withDays := true
	switch q.Get("days") {
	case "", "true":
	case "false":
		withDays = false
	default:
		err = cmp.Or(err, error(apperr.Invalid("days", "must be true or false")))
	}
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	out, err := complianceOf(ctx, h.app.DB, auth.CurrentUser(ctx), f, h.app.Now())
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	if !withDays {
		out.Days = []rules.Day{}
	}
	httpx.JSON(w, http.StatusOK, out)
}

var readOnly = pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}

// complianceOf judges the days of f (From and To set) and groups the
// statistics' days by the outcome.
func complianceOf(ctx context.Context, pool stats.TxBeginner, u auth.User, f journal.Filter, now time.Time) (Compliance, error) {
	stored, days, err := judge(ctx, pool, u, f, now)
	if err != nil {
		return Compliance{}, err
	}
	out := Compliance{From: f.From.Format(time.DateOnly), To: f.To.Format(time.DateOnly), Days: []rules.Day{}}
	for _, d := range days {
		if d.Date < out.From || d.Date > out.To {
			continue
		}
		out.Days = append(out.Days, d)
		if d.Broken > 0 {
			out.DaysBroken++
		} else {
			out.DaysKept++
		}
	}
	rep, err := stats.Compute(ctx, pool, u, journal.Filter{AccountIDs: f.AccountIDs, From: f.From, To: f.To}, false, now)
	if err != nil {
		return Compliance{}, err
	}
	out.Breakdown, err = breakdown(rep, out.Days, stored)
	return out, err
}

// judge reads, in one read-only snapshot, the enabled rules, the positions
// of f's window and what converting their money takes, and evaluates them;
// the days come back for the whole window, in date order.
func judge(ctx context.Context, pool stats.TxBeginner, u auth.User, f journal.Filter, now time.Time) ([]Rule, []rules.Day, error) {
	display := ""
	if u.DisplayCurrency != nil {
		display = *u.DisplayCurrency
	}
	tx, err := pool.BeginTx(ctx, readOnly)
	if err != nil {
		return nil, nil, db.Classify(err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // read-only: nothing to undo
	stored, err := readRules(ctx, tx, u.ID, true)
	if err != nil {
		return nil, nil, err
	}
	engine := make([]rules.Rule, len(stored))
	needBalance := false
	for i, s := range stored {
		engine[i] = rules.Rule{ID: s.ID, Type: s.Type, Params: s.Params}
		if s.AccountID != nil {
			engine[i].AccountID = *s.AccountID
		}
		needBalance = needBalance || s.Type == rules.MaxRiskPerTrade && s.Params.Percent != nil
	}
	from, to := window(f)
	positions, err := readPositions(ctx, tx, u.ID, f.AccountIDs, from, to)
	if err != nil {
		return nil, nil, err
	}
	if needBalance {
		if err := readBalances(ctx, tx, u.ID, from, to, positions); err != nil {
			return nil, nil, err
		}
	}
	money := rules.Money{Display: display}
	if display != "" {
		// The statistics' conversion: the spot factors of today.
		day := fx.Today(now, u.Timezone)
		snap, err := fxdb.Load(ctx, tx, fxdb.Query{UserID: u.ID, Display: display, Day: day, Keep: 1})
		if err != nil {
			return nil, nil, err
		}
		money.Factors, _ = fx.Factors(snap.Balances, snap.Rates, display, day)
	}
	return stored, rules.Evaluate(engine, positions, money), nil
}

// window is the UTC instants that hold the trading days from f.From to
// f.To in any zone (UTC-12 to UTC+14), so that every position of those
// days is read; Evaluate dates them exactly.
func window(f journal.Filter) (from, to time.Time) {
	return f.From.AddDate(0, 0, -1), f.To.AddDate(0, 0, 2)
}

// positionsSQL reads, in one statement, the positions opened or closed in
// [$2, $3) with their entry fills in time order. Each branch of the OR
// has its index (positions_user_opened_idx, positions_user_closed_idx);
// a position without an entry (a draft) is no trade and not read.
const positionsSQL = `
SELECT p.id::text, p.account_id::text, a.currency::text, a.timezone, p.symbol, p.multiplier::text,
       p.stop_loss::text, p.target_price::text, p.initial_risk::text, p.closed_at, p.net_pnl::text, f.at, f.price, f.quantity,
       p.strategy_id::text
FROM positions p
JOIN accounts a ON a.id = p.account_id
CROSS JOIN LATERAL (
    SELECT array_agg(filled_at ORDER BY filled_at, id) AS at, array_agg(price::text ORDER BY filled_at, id) AS price,
           array_agg(quantity::text ORDER BY filled_at, id) AS quantity
    FROM fills WHERE position_id = p.id AND type = 'entry') f
WHERE p.user_id = $1 AND ($4::uuid[] IS NULL OR p.account_id = ANY($4::uuid[])) AND f.at IS NOT NULL
  AND ((p.opened_at >= $2 AND p.opened_at < $3) OR (p.status = 'closed' AND p.closed_at >= $2 AND p.closed_at < $3))`

// readPositions reads the positions of the window. JIT compilation is off
// for the transaction: the per-position fills make the plan's estimate
// large enough to compile it, which took longer (1.9 s) than running it.
// Numbers come as text, parsed once (pgx's numeric scan into a decimal
// goes through text as well, after a binary decode: twice the work).
func readPositions(ctx context.Context, tx pgx.Tx, userID string, accountIDs []string, from, to time.Time) ([]rules.Position, error) {
	var accounts any // NULL: every account
	if len(accountIDs) > 0 {
		accounts = accountIDs
	}
	if _, err := tx.Exec(ctx, `SET LOCAL jit = off`); err != nil {
		return nil, db.Classify(err)
	}
	rows, err := tx.Query(ctx, positionsSQL, userID, from, to, accounts)
	if err != nil {
		return nil, db.Classify(err)
	}
	zones := map[string]*time.Location{}
	var (
		p                  rules.Position
		tz, mult, net      string
		stop, target, risk *string
		at                 []time.Time
		price, qty         []string
		closed             *time.Time
		out                []rules.Position
	)
	var strategy *string
	var strategies []string // of the legs read: each judged as one trade, all its legs read apart
	_, err = pgx.ForEachRow(rows, []any{&p.ID, &p.AccountID, &p.Currency, &tz, &p.Symbol, &mult,
		&stop, &target, &risk, &closed, &net, &at, &price, &qty, &strategy}, func() error {
		if strategy != nil {
			if !slices.Contains(strategies, *strategy) {
				strategies = append(strategies, *strategy)
			}
			return nil
		}
		z, err := zoneOf(zones, tz)
		if err != nil {
			return err
		}
		q := p
		q.Zone, q.ClosedAt = z, closed
		var d decoded
		q.Multiplier, q.Net = d.number(mult), d.number(net)
		q.Stop, q.Target, q.InitialRisk = d.null(stop), d.null(target), d.null(risk)
		q.Entries = make([]rules.Fill, len(at))
		for i := range at {
			q.Entries[i] = rules.Fill{At: at[i], Price: d.number(price[i]), Quantity: d.number(qty[i])}
		}
		out = append(out, q)
		return d.err
	})
	if err != nil {
		return nil, db.Classify(err)
	}
	if len(strategies) == 0 {
		return out, nil
	}
	return readStrategies(ctx, tx, strategies, zones, out)
}

func zoneOf(zones map[string]*time.Location, name string) (*time.Location, error) {
	z, ok := zones[name]
	if !ok {
		var err error
		if z, err = time.LoadLocation(name); err != nil {
			return nil, err
		}
		zones[name] = z
	}
	return z, nil
}

// strategyLegsSQL reads every leg of strategies $1 with its entry fills,
// a strategy's legs together, with what the strategy engine made of them
// (migration 0033).
const strategyLegsSQL = `
SELECT s.id::text, s.account_id::text, a.currency::text, a.timezone, coalesce(s.label, ''), s.risk::text, s.max_profit::text,
       p.id::text, coalesce(p.underlying, p.symbol), p.multiplier::text, p.status, p.closed_at, p.net_pnl::text,
       coalesce(f.at, '{}'), coalesce(f.price, '{}'), coalesce(f.quantity, '{}')
FROM strategies s
JOIN accounts a ON a.id = s.account_id
JOIN positions p ON p.strategy_id = s.id
CROSS JOIN LATERAL (
    SELECT array_agg(filled_at ORDER BY filled_at, id) AS at, array_agg(price::text ORDER BY filled_at, id) AS price,
           array_agg(quantity::text ORDER BY filled_at, id) AS quantity
    FROM fills WHERE position_id = p.id AND type = 'entry') f
WHERE s.id = ANY($1::uuid[])
ORDER BY s.id, p.opened_at NULLS LAST, p.id`

// readStrategies appends to out each strategy as one trade (rules.Position
// with Legs): opened at its first leg's entry, closed once every leg with
// an entry is, at the last close, its net P&L theirs.
func readStrategies(ctx context.Context, tx pgx.Tx, ids []string, zones map[string]*time.Location, out []rules.Position) ([]rules.Position, error) {
	rows, err := tx.Query(ctx, strategyLegsSQL, ids)
	if err != nil {
		return nil, db.Classify(err)
	}
	var (
		id, account, currency, tz, label, leg, underlying, mult, status, net string
		risk, profit                                                         *string
		closed                                                               *time.Time
		at                                                                   []time.Time
		price, qty                                                           []string
		open                                                                 bool
	)
	var cur *rules.Position
	finish := func() {
		if cur == nil {
			return
		}
		slices.SortFunc(cur.Entries, func(a, b rules.Fill) int { return a.At.Compare(b.At) })
		if open || len(cur.Entries) == 0 {
			cur.ClosedAt = nil
		}
		if len(cur.Entries) > 0 {
			out = append(out, *cur)
		}
	}
	var d decoded
	_, err = pgx.ForEachRow(rows, []any{&id, &account, &currency, &tz, &label, &risk, &profit,
		&leg, &underlying, &mult, &status, &closed, &net, &at, &price, &qty}, func() error {
		if cur == nil || cur.ID != id {
			finish()
			z, err := zoneOf(zones, tz)
			if err != nil {
				return err
			}
			name := underlying + " strategy"
			if label != "" {
				name = underlying + " " + strings.ToLower(label[:1]) + label[1:]
			}
			cur = &rules.Position{ID: id, AccountID: account, Currency: currency, Zone: z, Symbol: name,
				InitialRisk: d.null(risk), Reward: d.null(profit), Legs: []string{}}
			open = false
		}
		cur.Legs = append(cur.Legs, leg)
		m := d.number(mult)
		for i := range at {
			cur.Entries = append(cur.Entries, rules.Fill{At: at[i], Price: d.number(price[i]), Quantity: d.number(qty[i]), Multiplier: m})
		}
		open = open || status == "open"
		if closed != nil && (cur.ClosedAt == nil || closed.After(*cur.ClosedAt)) {
			cur.ClosedAt = closed
		}
		cur.Net = cur.Net.Add(d.number(net))
		return d.err
	})
	if err != nil {
		return nil, db.Classify(err)
	}
	finish()
	return out, nil
}

// decoded parses the text of numeric columns, keeping the first error.
type decoded struct{ err error }

func (d *decoded) number(s string) decimal.Decimal {
	v, err := decimal.NewFromString(s)
	if err != nil && d.err == nil {
		d.err = err
	}
	return v
}

func (d *decoded) null(s *string) decimal.NullDecimal {
	if s == nil {
		return decimal.NullDecimal{}
	}
	return decimal.NullDecimal{Decimal: d.number(*s), Valid: true}
}

// ledgerSQL reads each account's balance at $2 (its balance less every
// ledger entry from $2 on: short for a recent range) and its ledger from
// $2 to $3 summed by trading day in the account's zone.
const ledgerSQL = `
SELECT a.id::text, NULL::date,
       a.balance - coalesce((SELECT sum(l.amount) FROM ledger_entries l WHERE l.account_id = a.id AND l.occurred_at >= $2), 0)
FROM accounts a WHERE a.user_id = $1
UNION ALL
SELECT l.account_id::text, (l.occurred_at AT TIME ZONE a.timezone)::date, sum(l.amount)
FROM ledger_entries l JOIN accounts a ON a.id = l.account_id
WHERE a.user_id = $1 AND l.occurred_at >= $2 AND l.occurred_at < $3
GROUP BY 1, 2`

// readBalances sets each position's Balance: its account's balance at the
// start of the trading day of its first entry (the starting balance and
// every ledger entry of the days before: deposits, withdrawals, realized
// P&L, fees), the balance a daily risk budget is set from. Positions
// opened before from are not judged on a day of the range: they get none.
func readBalances(ctx context.Context, tx pgx.Tx, userID string, from, to time.Time, positions []rules.Position) error {
	type day struct {
		date string
		sum  decimal.Decimal // the balance at the end of the day, once summed up
	}
	start := map[string]decimal.Decimal{}
	days := map[string][]day{}
	rows, err := tx.Query(ctx, ledgerSQL, userID, from, to)
	if err != nil {
		return db.Classify(err)
	}
	var (
		acc  string
		date *time.Time
		amt  decimal.Decimal
	)
	if _, err := pgx.ForEachRow(rows, []any{&acc, &date, &amt}, func() error {
		if date == nil {
			start[acc] = amt
		} else {
			days[acc] = append(days[acc], day{date: date.Format(time.DateOnly), sum: amt})
		}
		return nil
	}); err != nil {
		return db.Classify(err)
	}
	for acc, ds := range days {
		slices.SortFunc(ds, func(a, b day) int { return strings.Compare(a.date, b.date) })
		sum := start[acc]
		for i := range ds {
			sum = sum.Add(ds[i].sum)
			ds[i].sum = sum
		}
	}
	for i := range positions {
		p := &positions[i]
		if p.Entries[0].At.Before(from) {
			continue
		}
		ds := days[p.AccountID]
		d := p.Entries[0].At.In(p.Zone).Format(time.DateOnly)
		n, _ := slices.BinarySearchFunc(ds, d, func(x day, d string) int { return strings.Compare(x.date, d) })
		b := start[p.AccountID]
		if n > 0 {
			b = ds[n-1].sum
		}
		p.Balance = decimal.NullDecimal{Decimal: b, Valid: true}
	}
	return nil
}

// breakdown groups the report's days (in every block) by the days'
// outcome: the figures are the statistics' own (stats.SumDays).
func breakdown(rep stats.Report, days []rules.Day, stored []Rule) (Breakdown, error) {
	brokenDays := map[string]bool{}
	byRule := map[string]map[string]bool{}
	for _, d := range days {
		if d.Broken > 0 {
			brokenDays[d.Date] = true
		}
		for _, res := range d.Rules {
			if res.Status == rules.Broken {
				if byRule[res.RuleID] == nil {
					byRule[res.RuleID] = map[string]bool{}
				}
				byRule[res.RuleID][d.Date] = true
			}
		}
	}
	group := func(rows []stats.DayBucket, in func(date string) bool) (DayGroup, error) {
		var picked []stats.DayBucket
		for _, r := range rows {
			if in(r.Date) {
				picked = append(picked, r)
			}
		}
		b, err := stats.SumDays(picked)
		return DayGroup{Days: len(picked), Bucket: b}, err
	}
	block := func(b stats.Block) (Block, error) {
		out := Block{Currency: b.Currency, ByRule: []RuleGroup{}}
		var err error
		if out.Kept, err = group(b.ByDay, func(d string) bool { return !brokenDays[d] }); err != nil {
			return Block{}, err
		}
		if out.Broken, err = group(b.ByDay, func(d string) bool { return brokenDays[d] }); err != nil {
			return Block{}, err
		}
		for _, s := range stored {
			g, err := group(b.ByDay, func(d string) bool { return byRule[s.ID][d] })
			if err != nil {
				return Block{}, err
			}
			out.ByRule = append(out.ByRule, RuleGroup{RuleID: s.ID, Type: s.Type, DayGroup: g})
		}
		return out, nil
	}
	out := Breakdown{DisplayCurrency: rep.DisplayCurrency, MissingPairs: rep.MissingPairs, ByCurrency: []Block{}}
	for _, b := range rep.ByCurrency {
		bl, err := block(b)
		if err != nil {
			return Breakdown{}, err
		}
		out.ByCurrency = append(out.ByCurrency, bl)
	}
	if rep.Total != nil {
		bl, err := block(*rep.Total)
		if err != nil {
			return Breakdown{}, err
		}
		out.Total = &bl
	}
	return out, nil
}
