package rules

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/fx"
	"tradejournal/shared/fx/fxdb"
	"tradejournal/shared/httpx"
	"tradejournal/shared/journal"
	"tradejournal/shared/journalstore"
	"tradejournal/shared/listquery"
	"tradejournal/shared/rules"
	"tradejournal/shared/stats"
)

// MaxDays bounds a compliance request's range: a year, leap day included.
const MaxDays = 366

// Compliance is the body of GET /api/rules/compliance, the days last
// (writeCompliance).
type Compliance struct {
	summary
	// Days is every trading day of the range (a position opened or closed
	// there, in its account's trading-day zone), in date order, with the
	// enabled rules' outcome; a day without a judged rule has a null score.
	Days []rules.Day `json:"days"`
}

// summary is the answer but its days.
type summary struct {
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
var complianceFilters = []string{"symbol", "status", "tagId", "excludeTagId", "side", "result", "assetType", "weekday", "hour", "dateBy"}

// query is a compliance request: the range (From and To set) and
// accounts, and whether the days and the trades are answered.
type query struct {
	filter       listquery.Filter
	days, trades bool
}

// parseQuery reads from and to (required, at most MaxDays apart) and
// accountId through the journal's shared filter, and days (true unless
// "false").
func parseQuery(q url.Values) (query, error) {
	f, err := listquery.ParseFilter(q)
	if err != nil {
		return query{}, err
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
	for _, name := range []string{"days", "trades"} {
		if v := q.Get(name); v != "" && v != "true" && v != "false" {
			p.Add(name, "must be true or false")
		}
	}
	return query{filter: f, days: q.Get("days") != "false", trades: q.Get("trades") == "true"}, p.Err()
}

// compliance answers each trading day's compliance with the caller's
// enabled rules from..to, and the breakdown of the days' results.
func (h handler) compliance(w http.ResponseWriter, r *http.Request) {
	q, err := parseQuery(r.URL.Query())
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	out, err := complianceOf(ctx, h.app.DB, auth.CurrentUser(ctx), q, h.app.Now())
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	head, err := json.Marshal(out.summary)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	writeCompliance(w, head, out.Days)
}

// writeCompliance writes the answer of its summary's JSON (head) and its
// days, as httpx.JSON would but a day at a time through a small buffer: a
// year of a busy journal's days is megabytes (10 MB in
// BenchmarkCompliance), and httpx.JSON's one buffer of them, grown and
// copied, cost a request more Go CPU than reading and judging its trades.
// A day encodes without error (strings, numbers, slices); a write error is
// the client gone.
func writeCompliance(w http.ResponseWriter, head []byte, days []rules.Day) {
	httpx.JSONHeader(w, http.StatusOK)
	b := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(b)
	b.Write(head[:len(head)-1]) // its closing brace
	b.WriteString(`,"days":[`)
	for i, d := range days {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := enc.Encode(d); err != nil {
			return
		}
	}
	b.WriteString("]}\n")
	b.Flush()
}

// complianceOf judges the days of q and groups the statistics' days by
// the outcome. Without q.days the days are left out (their counts and the
// breakdown stay): a year of a busy journal's violations is megabytes the
// dashboard's breakdown does not show.
func complianceOf(ctx context.Context, pool db.TxBeginner, u auth.User, q query, now time.Time) (Compliance, error) {
	f := q.filter
	// The statistics read while the rules judge: a connection and a core
	// each.
	var (
		rep    stats.Report
		repErr error
		done   = make(chan struct{})
	)
	go func() {
		defer close(done)
		rep, repErr = stats.Compute(ctx, pool, u, listquery.Filter{AccountIDs: f.AccountIDs, From: f.From, To: f.To}, false, now)
	}()
	j, err := judge(ctx, pool, u, f, now, q.trades, q.days || q.trades)
	<-done
	if err != nil {
		return Compliance{}, err
	}
	if repErr != nil {
		return Compliance{}, repErr
	}
	out := Compliance{summary: summary{From: f.From.Format(time.DateOnly), To: f.To.Format(time.DateOnly)}, Days: []rules.Day{}}
	if q.trades {
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
	if !q.days {
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
// of f's window (journalstore.RuleTrades) and what converting their money
// takes, and evaluates them; the days come back for the whole window, in
// date order. With closes the window reaches the close of every trade
// opened in it (throughClose): a trade is judged on every day it touched,
// whatever range was asked. Without words the days' violations are left
// out (rules.Outcomes).
func judge(ctx context.Context, pool db.TxBeginner, u auth.User, f listquery.Filter, now time.Time, closes, words bool) (judged, error) {
	display := ""
	if u.DisplayCurrency != nil {
		display = *u.DisplayCurrency
	}
	tx, err := pool.BeginTx(ctx, db.Snapshot)
	if err != nil {
		return judged{}, db.Classify(err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // read-only: nothing to undo
	stored, err := readRules(ctx, tx, u.ID, true)
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
		needs.Details = needs.Details || s.TagID != nil ||
			slices.Contains(s.Params.Fields, "tag") || slices.Contains(s.Params.Fields, "screenshot")
		needs.Markets = needs.Markets || s.Type == rules.AllowedMarkets
		needs.Direction = needs.Direction || s.Type == rules.AllowedDirection
		needs.Notes = needs.Notes || slices.Contains(s.Params.Fields, "notes")
		week = week || s.Type == rules.MaxWeeklyLoss || s.Type == rules.CooldownAfterLoss
	}
	from, to := window(f, week)
	if closes {
		last, err := journalstore.RuleTradesLastClose(ctx, tx, u.ID, f.AccountIDs, from, to)
		if err != nil {
			return judged{}, err
		}
		to = throughClose(f, to, last)
	}
	j.trades, err = journalstore.RuleTrades(ctx, tx, u.ID, f.AccountIDs, from, to, needs)
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

// window is the UTC instants that hold the trading days from f.From to
// f.To in any zone (UTC-12 to UTC+14), so that every trade of those days
// is read; Evaluate dates them exactly. With week it starts 8 days
// earlier: the week's closes before f.From and a cooldown's losses (at
// most a day before) are read too.
func window(f listquery.Filter, week bool) (from, to time.Time) {
	back := -1
	if week {
		back = -9
	}
	return f.From.AddDate(0, 0, back), f.To.AddDate(0, 0, 2)
}

// throughClose is the end of a window (to) moved on to hold the trading
// day of last, a close, in any zone, as window holds f.To's; at most
// MaxDays past f.To: a trade closed later is judged "kept so far" on its
// close, like an open one.
func throughClose(f listquery.Filter, to time.Time, last *time.Time) time.Time {
	if last == nil {
		return to
	}
	y, m, d := last.UTC().Date()
	end := time.Date(y, m, d, 0, 0, 0, 0, time.UTC).AddDate(0, 0, 2)
	if most := f.To.AddDate(0, 0, MaxDays+2); end.After(most) {
		end = most
	}
	if end.After(to) {
		return end
	}
	return to
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
	broken := map[string]bool{}
	for _, d := range j.days {
		for _, v := range d.Violations {
			if v.StrategyID != nil {
				broken[*v.StrategyID] = true
			} else {
				broken[v.PositionIDs[0]] = true
			}
		}
	}
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
		if broken[p.ID] {
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

// positionCompliance answers the compliance of a position's trade (its
// strategy's, for a leg) with the enabled rules, judged over the trading
// days from its first entry to its close (today while open) in its
// account's zone, the last MaxDays of them; a draft has no trade (null).
func (h handler) positionCompliance(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	u := auth.CurrentUser(ctx)
	id := r.PathValue("positionId")
	if !db.ValidUUID(id) {
		httpx.NotFound(w, r)
		return
	}
	var (
		tradeID, tz    string
		opened, closed *time.Time
	)
	if err := h.app.DB.QueryRow(ctx, positionTradeSQL, id, u.ID).Scan(&tradeID, &tz, &opened, &closed); err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	out := struct {
		Trade *TradeCompliance `json:"trade"`
	}{}
	if opened == nil {
		httpx.JSON(w, http.StatusOK, out)
		return
	}
	zone, err := time.LoadLocation(tz)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	end := h.app.Now()
	if closed != nil {
		end = *closed
	}
	day := func(t time.Time) time.Time {
		y, m, d := t.In(zone).Date()
		return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	}
	from, to := day(*opened), day(end)
	if earliest := to.AddDate(0, 0, 1-MaxDays); from.Before(earliest) {
		from = earliest
	}
	j, err := judge(ctx, h.app.DB, u, listquery.Filter{From: &from, To: &to}, h.app.Now(), false, true)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	if i := slices.IndexFunc(j.trades, func(p rules.Position) bool { return p.ID == tradeID }); i >= 0 {
		t := tradeOf(&j.trades[i], rules.TradeScores(j.engine, j.trades[i:i+1], j.days)[0])
		out.Trade = &t
	}
	httpx.JSON(w, http.StatusOK, out)
}
