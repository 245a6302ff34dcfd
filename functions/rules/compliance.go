package rules

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"

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
// accounts, and whether the days are answered.
type query struct {
	filter listquery.Filter
	days   bool
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
	days := q.Get("days")
	if days != "" && days != "true" && days != "false" {
		p.Add("days", "must be true or false")
	}
	return query{filter: f, days: days != "false"}, p.Err()
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
	stored, days, err := judge(ctx, pool, u, f, now)
	<-done
	if err != nil {
		return Compliance{}, err
	}
	if repErr != nil {
		return Compliance{}, repErr
	}
	out := Compliance{summary: summary{From: f.From.Format(time.DateOnly), To: f.To.Format(time.DateOnly)}, Days: []rules.Day{}}
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
	out.Breakdown, err = breakdown(rep, out.Days, stored)
	if !q.days {
		out.Days = []rules.Day{}
	}
	return out, err
}

// judge reads, in one read-only snapshot, the enabled rules, the trades
// of f's window (journalstore.RuleTrades) and what converting their money
// takes, and evaluates them; the days come back for the whole window, in
// date order.
func judge(ctx context.Context, pool db.TxBeginner, u auth.User, f listquery.Filter, now time.Time) ([]Rule, []rules.Day, error) {
	display := ""
	if u.DisplayCurrency != nil {
		display = *u.DisplayCurrency
	}
	tx, err := pool.BeginTx(ctx, db.Snapshot)
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
	trades, err := journalstore.RuleTrades(ctx, tx, u.ID, f.AccountIDs, from, to, needBalance)
	if err != nil {
		return nil, nil, err
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
	return stored, rules.Evaluate(engine, trades, money), nil
}

// window is the UTC instants that hold the trading days from f.From to
// f.To in any zone (UTC-12 to UTC+14), so that every trade of those days
// is read; Evaluate dates them exactly.
func window(f listquery.Filter) (from, to time.Time) {
	return f.From.AddDate(0, 0, -1), f.To.AddDate(0, 0, 2)
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
