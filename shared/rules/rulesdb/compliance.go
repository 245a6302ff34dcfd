package rulesdb

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/fx"
	"tradejournal/shared/fx/fxdb"
	"tradejournal/shared/journalstore"
	"tradejournal/shared/listquery"
	"tradejournal/shared/rules"
	"tradejournal/shared/stats"
)

// MaxDays bounds a compliance request's range: a year, leap day included.
const MaxDays = 366

// Report is a range's compliance: the body of GET /api/rules/compliance
// (its Summary, then its days).
type Report struct {
	Summary
	// Days is every trading day of the range (a position opened or closed
	// there, in its account's trading-day zone), in date order, with the
	// enabled rules' outcome; a day without a judged rule has a null score.
	Days []rules.Day `json:"days"`
}

// Summary is the report but its days.
type Summary struct {
	From       string    `json:"from"`
	To         string    `json:"to"`
	DaysKept   int       `json:"daysKept"`
	DaysBroken int       `json:"daysBroken"`
	Breakdown  Breakdown `json:"breakdown"`
	// TradeBreakdown sets the trades that kept every rule beside those
	// that broke one (trades=true only: the trades list's screen shows it).
	TradeBreakdown *TradeBreakdown `json:"tradeBreakdown,omitempty"`
	// Trades is each trade opened in the range with its compliance, by
	// opening (trades=true only).
	Trades []TradeCompliance `json:"trades,omitempty"`
}

// TradeBreakdown is the figures of the closed trades opened in the range
// that kept every rule in their scope beside those that broke one (a
// violation names them, on any day), per account currency, and in the
// display currency when each of those converts (the statistics' spot
// factors of today).
type TradeBreakdown struct {
	ByCurrency []TradeBlock `json:"byCurrency"`
	Total      *TradeBlock  `json:"total"`
}

// TradeBlock is the trade breakdown in one currency.
type TradeBlock struct {
	Currency string       `json:"currency"`
	Kept     stats.Bucket `json:"kept"`
	Broken   stats.Bucket `json:"broken"`
}

// TradeCompliance is one trade (a position, or a strategy of its legs)
// and its compliance with the enabled rules.
type TradeCompliance struct {
	// ID is the position's, or the strategy's.
	ID          string   `json:"id"`
	PositionIDs []string `json:"positionIds"`
	StrategyID  *string  `json:"strategyId"`
	Symbol      string   `json:"symbol"`
	AccountID   string   `json:"accountId"`
	Currency    string   `json:"currency"`
	// NetPnl is the closed trade's, in its account's currency; null while open.
	NetPnl *string `json:"netPnl"`
	rules.Trade
	// Note says, in words, how a trade open longer than MaxDays was judged
	// (PositionCompliance); "" otherwise.
	Note string `json:"note,omitempty"`
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

// Query is a compliance question: the trading days From to To (each a
// date's midnight in UTC, To at most MaxDays-1 days after From), of the
// accounts AccountIDs (nil: every account); with Days the days are
// answered, with Trades each trade opened in the range and the trade
// breakdown.
type Query struct {
	From, To     time.Time
	AccountIDs   []string
	Days, Trades bool
}

// Compliance judges u's trading days q.From to q.To with u's enabled rules
// at now and groups the statistics' days by the outcome. Without q.Days
// the days are left out (their counts and the breakdown stay): a year of a
// busy journal's violations is megabytes the dashboard's breakdown does
// not show. A range longer than MaxDays is a validation error.
func Compliance(ctx context.Context, pool db.TxBeginner, u auth.User, q Query, now time.Time) (Report, error) {
	if q.To.Before(q.From) {
		return Report{}, apperr.Invalid("to", "must be on or after from")
	}
	if q.To.Sub(q.From) >= MaxDays*24*time.Hour {
		return Report{}, apperr.Invalid("to", "must be at most 366 days after from")
	}
	// The statistics read while the rules judge: a connection and a core
	// each.
	var (
		rep    stats.Report
		repErr error
		done   = make(chan struct{})
	)
	go func() {
		defer close(done)
		rep, repErr = stats.Compute(ctx, pool, u, listquery.Filter{AccountIDs: q.AccountIDs, From: &q.From, To: &q.To}, false, now)
	}()
	j, err := judge(ctx, pool, u, q.AccountIDs, q.From, q.To, now, q.Trades, q.Days || q.Trades)
	<-done
	if err != nil {
		return Report{}, err
	}
	if repErr != nil {
		return Report{}, repErr
	}
	out := Report{Summary: Summary{From: q.From.Format(time.DateOnly), To: q.To.Format(time.DateOnly)}, Days: []rules.Day{}}
	if q.Trades {
		tb := tradeBreakdown(j, out.From, out.To)
		out.TradeBreakdown = &tb
		scores := rules.TradeScores(j.engine, j.trades, j.days)
		var picked []int
		for i, t := range scores {
			if t.Date >= out.From && t.Date <= out.To {
				picked = append(picked, i)
			}
		}
		slices.SortFunc(picked, func(a, b int) int {
			return cmp.Or(j.trades[a].Entries[0].At.Compare(j.trades[b].Entries[0].At), cmp.Compare(j.trades[a].ID, j.trades[b].ID))
		})
		out.Trades = make([]TradeCompliance, len(picked))
		for k, i := range picked {
			out.Trades[k] = tradeOf(&j.trades[i], scores[i])
		}
	}
	for _, d := range j.days {
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
	out.Breakdown, err = breakdown(rep, out.Days, j.stored)
	if !q.Days {
		out.Days = []rules.Day{}
	}
	return out, err
}

// judged is a judging: the enabled rules as stored and as the engine
// takes them, the trades read, the days, and the money's conversion.
type judged struct {
	stored []Rule
	engine []rules.Rule
	trades []rules.Position
	days   []rules.Day
	money  rules.Money
}

// judge reads, in one read-only snapshot, the enabled rules, the trades
// of the window of the days from to to (journalstore.RuleTrades) and what converting their money
// takes, and evaluates them; the days come back for the whole window, in
// date order. With closes the window reaches the close of every trade
// opened in it (throughClose): a trade is judged on every day it touched,
// whatever range was asked. Without words the days' violations are left
// out (rules.Outcomes).
func judge(ctx context.Context, pool db.TxBeginner, u auth.User, accountIDs []string, from, to, now time.Time, closes, words bool) (judged, error) {
	display := ""
	if u.DisplayCurrency != nil {
		display = *u.DisplayCurrency
	}
	tx, err := pool.BeginTx(ctx, db.Snapshot)
	if err != nil {
		return judged{}, db.Classify(err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // read-only: nothing to undo
	stored, err := Read(ctx, tx, u.ID, true)
	if err != nil {
		return judged{}, err
	}
	j := judged{stored: stored, engine: make([]rules.Rule, len(stored)), money: rules.Money{Display: display}}
	var needs journalstore.RuleNeeds
	week := false
	for i, s := range stored {
		j.engine[i] = rules.Rule{ID: s.ID, Type: s.Type, Params: s.Params, Weight: s.Weight}
		if s.AccountID != nil {
			j.engine[i].AccountID = *s.AccountID
		}
		if s.TagID != nil {
			j.engine[i].TagID = *s.TagID
		}
		needs.Balances = needs.Balances || s.Type == rules.MaxRiskPerTrade && s.Params.Percent != nil
		needs.Open = needs.Open || s.Type == rules.MaxOpenExposure
		needs.Exits = needs.Exits || s.Type == rules.MaxOpenExposure
		needs.Details = needs.Details || s.TagID != nil ||
			slices.Contains(s.Params.Fields, "tag") || slices.Contains(s.Params.Fields, "screenshot")
		needs.Markets = needs.Markets || s.Type == rules.AllowedMarkets
		needs.Direction = needs.Direction || s.Type == rules.AllowedDirection
		needs.Notes = needs.Notes || slices.Contains(s.Params.Fields, "notes")
		week = week || s.Type == rules.MaxWeeklyLoss || s.Type == rules.CooldownAfterLoss
	}
	start, end := window(from, to, week)
	if closes {
		last, err := journalstore.RuleTradesLastClose(ctx, tx, u.ID, accountIDs, start, end)
		if err != nil {
			return judged{}, err
		}
		end = throughClose(to, end, last)
	}
	j.trades, err = journalstore.RuleTrades(ctx, tx, u.ID, accountIDs, start, end, needs)
	if err != nil {
		return judged{}, err
	}
	if display != "" {
		// The statistics' conversion: the spot factors of today.
		day := fx.Today(now, u.Timezone)
		snap, err := fxdb.Load(ctx, tx, fxdb.Query{UserID: u.ID, Display: display, Day: day, Keep: 1})
		if err != nil {
			return judged{}, err
		}
		j.money.Factors, _ = fx.Factors(snap.Balances, snap.Rates, display, day)
	}
	if words {
		j.days = rules.Evaluate(j.engine, j.trades, j.money)
	} else {
		j.days = rules.Outcomes(j.engine, j.trades, j.money)
	}
	return j, nil
}

// window is the UTC instants that hold the trading days from to to in
// any zone (UTC-12 to UTC+14), so that every trade of those days is read;
// Evaluate dates them exactly. With week it starts 8 days earlier: the
// week's closes before from and a cooldown's losses (at most a day
// before) are read too.
func window(from, to time.Time, week bool) (start, end time.Time) {
	back := -1
	if week {
		back = -9
	}
	return from.AddDate(0, 0, back), to.AddDate(0, 0, 2)
}

// throughClose is the end of a window moved on to hold the trading day
// of last, a close, in any zone, as window holds to's; at most MaxDays
// past to: a trade closed later is judged "kept so far" on its close,
// like an open one.
func throughClose(to, end time.Time, last *time.Time) time.Time {
	if last == nil {
		return end
	}
	y, m, d := last.UTC().Date()
	through := time.Date(y, m, d, 0, 0, 0, 0, time.UTC).AddDate(0, 0, 2)
	if most := to.AddDate(0, 0, MaxDays+2); through.After(most) {
		through = most
	}
	if through.After(end) {
		return through
	}
	return end
}

// tradeOf is a trade's compliance with its position or strategy.
func tradeOf(p *rules.Position, t rules.Trade) TradeCompliance {
	out := TradeCompliance{ID: p.ID, PositionIDs: p.Legs, Symbol: p.Symbol, AccountID: p.AccountID, Currency: p.Currency, Trade: t}
	if p.Legs == nil {
		out.PositionIDs = []string{p.ID}
	} else {
		out.StrategyID = &p.ID
	}
	if p.ClosedAt != nil {
		n := p.Net.StringFixed(4)
		out.NetPnl = &n
	}
	return out
}

// tradeBreakdown sums the net P&L of j's closed trades opened from..to
// (dates), by whether a violation names them.
func tradeBreakdown(j judged, from, to string) TradeBreakdown {
	broken := rules.BrokenTrades(j.days)
	type nets struct{ kept, broken []decimal.Decimal }
	byCurrency := map[string]*nets{}
	var total nets
	converts := j.money.Display != ""
	for i := range j.trades {
		p := &j.trades[i]
		if p.ClosedAt == nil || len(p.Entries) == 0 {
			continue
		}
		if d := p.Entries[0].At.In(p.Zone).Format(time.DateOnly); d < from || d > to {
			continue
		}
		n := byCurrency[p.Currency]
		if n == nil {
			n = &nets{}
			byCurrency[p.Currency] = n
		}
		f, ok := j.money.Factors[p.Currency]
		converts = converts && ok
		if len(broken[p.ID]) > 0 {
			n.broken = append(n.broken, p.Net)
			total.broken = append(total.broken, p.Net.Mul(f))
		} else {
			n.kept = append(n.kept, p.Net)
			total.kept = append(total.kept, p.Net.Mul(f))
		}
	}
	out := TradeBreakdown{ByCurrency: []TradeBlock{}}
	for _, c := range slices.Sorted(maps.Keys(byCurrency)) {
		n := byCurrency[c]
		out.ByCurrency = append(out.ByCurrency, TradeBlock{Currency: c, Kept: stats.SumNets(n.kept), Broken: stats.SumNets(n.broken)})
	}
	if converts {
		out.Total = &TradeBlock{Currency: j.money.Display, Kept: stats.SumNets(total.kept), Broken: stats.SumNets(total.broken)}
	}
	return out
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

// positionTradeSQL is a position's trade (its strategy, for a leg): its
// account's zone, its first entry, and its close (NULL while a leg is
// open).
const positionTradeSQL = `SELECT coalesce(p.strategy_id, p.id)::text, a.timezone,
	(SELECT min(x.opened_at) FROM positions x WHERE x.id = p.id OR x.strategy_id = p.strategy_id),
	(SELECT CASE WHEN bool_and(x.status = 'closed') THEN max(x.closed_at) END FROM positions x WHERE x.id = p.id OR x.strategy_id = p.strategy_id)
FROM positions p JOIN accounts a ON a.id = p.account_id WHERE p.id = $1 AND p.user_id = $2`

// PositionCompliance is the compliance of a position's trade (its
// strategy's, for a leg) with u's enabled rules at now, judged over the
// trading days from its first entry to its close (today while open) in its
// account's zone; nil for a draft (no trade). A trade open longer than
// MaxDays is judged on the day of its first entry and the day of its close
// only (each with the trades of its own days), with a Note saying so:
// reading every day between would be years of the journal, and only those
// two days judge it (but a later entry's cooldown or open exposure). A
// position that is not u's is apperr.ErrNotFound.
func PositionCompliance(ctx context.Context, pool db.TxBeginner, u auth.User, positionID string, now time.Time) (*TradeCompliance, error) {
	if !db.ValidUUID(positionID) {
		return nil, apperr.ErrNotFound
	}
	var (
		tradeID, tz    string
		opened, closed *time.Time
	)
	err := db.InSnapshot(ctx, pool, func(tx pgx.Tx) error {
		return db.Classify(tx.QueryRow(ctx, positionTradeSQL, positionID, u.ID).Scan(&tradeID, &tz, &opened, &closed))
	})
	if err != nil {
		return nil, err
	}
	if opened == nil {
		return nil, nil
	}
	end := now
	if closed != nil {
		end = *closed
	}
	first, last := fx.Today(*opened, tz), fx.Today(end, tz)
	spans, note := [][2]time.Time{{first, last}}, ""
	if n := int(last.Sub(first).Hours()/24) + 1; n > MaxDays {
		spans = [][2]time.Time{{first, first}}
		note = fmt.Sprintf("Open %d days: judged on the day of its first entry (%s) only.", n, first.Format(time.DateOnly))
		if closed != nil {
			spans = append(spans, [2]time.Time{last, last})
			note = fmt.Sprintf("Open %d days: judged on the day of its first entry (%s) and the day of its close (%s), not the days between.",
				n, first.Format(time.DateOnly), last.Format(time.DateOnly))
		}
	}
	var (
		trade  *rules.Position
		engine []rules.Rule
		days   []rules.Day
	)
	for _, sp := range spans {
		j, err := judge(ctx, pool, u, nil, sp[0], sp[1], now, false, true)
		if err != nil {
			return nil, err
		}
		from, to := sp[0].Format(time.DateOnly), sp[1].Format(time.DateOnly)
		for _, d := range j.days {
			if d.Date >= from && d.Date <= to {
				days = append(days, d)
			}
		}
		if i := slices.IndexFunc(j.trades, func(p rules.Position) bool { return p.ID == tradeID }); i >= 0 && trade == nil {
			trade, engine = &j.trades[i], j.engine
		}
	}
	if trade == nil {
		return nil, nil
	}
	t := tradeOf(trade, rules.TradeScores(engine, []rules.Position{*trade}, days)[0])
	t.Note = note
	return &t, nil
}
