// Package listquery is how a list is asked for: the journal's filter
// (Filter: the positions list's SQL and the statistics' in-memory Match,
// side by side), keyset cursors and pages, and the limit every list reads.
package listquery

import (
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
	"tradejournal/shared/propfirm"
)

// Filter narrows positions the same way on every journal route: the
// positions list, performance and the dashboard. Every field combines with
// the others (AND); a list field matches any of its values. Dates are
// trading days in each position's account's time zone, inclusive; weekday
// and hour are the entry's (opened_at) in that zone.
type Filter struct {
	AccountIDs    []string
	Symbols       []string // upper case; a symbol, or the underlying of an option or future
	Status        string
	TagIDs        []string // positions with at least one of these tags
	ExcludeTagIDs []string // positions with none of these tags
	PlaybookIDs   []string // positions that follow one of these playbooks
	// Strategies are kinds of strategy (journal.StrategyName; NoStrategy for the
	// positions in no strategy): a strategy's legs match its kind.
	Strategies []string
	Side       string
	// Results are journal.ResultWin, ResultLoss and ResultBreakeven: closed
	// positions whose net P&L has that sign (open and draft ones have none).
	Results    []string
	AssetTypes []string
	Weekdays   []int      // ISO: 1 Monday to 7 Sunday
	Hours      []int      // 0 to 23
	From       *time.Time // a date (midnight UTC carrying Y-M-D)
	To         *time.Time
	// ByClose applies From and To to the close date in the positions list
	// (dateBy=closed: a calendar day's positions); the statistics always
	// date by the close.
	ByClose bool
	// PropFirm narrows to the positions of accounts with a prop-firm plan
	// (true) or without one (false); nil: any.
	PropFirm *bool
	// Phases are prop-firm plan phases (propfirm.Evaluation, Funded): the
	// positions of accounts whose plan is in one of them.
	Phases []string
}

// NoStrategy is the Filter.Strategies value of the positions in no strategy.
const NoStrategy = "none"

// maxFilterValues bounds each list of a filter.
const maxFilterValues = 50

// ParseFilter reads accountId, symbol, status, tagId, excludeTagId, playbookId, strategy,
// side, result, assetType, weekday, hour, from and to (YYYY-MM-DD), dateBy, propFirm
// (true or false) and phase from a query string.
// A list is given by repeating the parameter or separating its values with
// commas (tagId=a,b).
func ParseFilter(q url.Values) (Filter, error) {
	var f Filter
	var problems []apperr.FieldError
	bad := func(field, msg string) { problems = append(problems, apperr.FieldError{Field: field, Message: msg}) }
	list := func(name string) []string {
		var out []string
		for _, v := range q[name] {
			for _, part := range strings.Split(v, ",") {
				if part = strings.TrimSpace(part); part != "" {
					out = append(out, part)
				}
			}
		}
		if len(out) > maxFilterValues {
			bad(name, "must list at most "+strconv.Itoa(maxFilterValues)+" values")
			return nil
		}
		return out
	}
	ids := func(name, what string) []string {
		out := list(name)
		for _, v := range out {
			if !db.ValidUUID(v) {
				bad(name, "must be "+what+" ids")
				return nil
			}
		}
		return out
	}
	f.AccountIDs = ids("accountId", "account")
	f.TagIDs = ids("tagId", "tag")
	f.ExcludeTagIDs = ids("excludeTagId", "tag")
	f.PlaybookIDs = ids("playbookId", "playbook")
	for _, v := range list("symbol") {
		switch {
		case len(v) > 32:
			bad("symbol", "must be at most 32 characters")
		case !utf8.ValidString(v) || strings.ContainsRune(v, 0):
			bad("symbol", "must be text")
		default:
			f.Symbols = append(f.Symbols, strings.ToUpper(v))
		}
	}
	if v := q.Get("status"); v != "" {
		if v != journal.StatusDraft && v != journal.StatusOpen && v != journal.StatusClosed {
			bad("status", "must be draft, open or closed")
		}
		f.Status = v
	}
	if v := q.Get("side"); v != "" {
		if v != journal.SideLong && v != journal.SideShort {
			bad("side", "must be long or short")
		}
		f.Side = v
	}
	for _, v := range list("strategy") {
		if v != NoStrategy && !slices.Contains(journal.StrategyNames, journal.StrategyName(v)) {
			bad("strategy", "must be a kind of strategy (vertical, iron-condor, custom, ...) or none")
			break
		}
		f.Strategies = append(f.Strategies, v)
	}
	for _, v := range list("result") {
		if _, ok := journal.ResultSign(v); !ok {
			bad("result", "must be win, loss or breakeven")
			break
		}
		f.Results = append(f.Results, v)
	}
	for _, v := range list("assetType") {
		if !instrument.ValidAssetType(v) {
			bad("assetType", "must be "+instrument.AssetTypesText)
			break
		}
		f.AssetTypes = append(f.AssetTypes, v)
	}
	numbers := func(name string, lo, hi int, what string) []int {
		var out []int
		for _, v := range list(name) {
			n, err := strconv.Atoi(v)
			if err != nil || n < lo || n > hi {
				bad(name, what)
				return nil
			}
			out = append(out, n)
		}
		return out
	}
	f.Weekdays = numbers("weekday", 1, 7, "must be weekdays from 1 (Monday) to 7 (Sunday)")
	f.Hours = numbers("hour", 0, 23, "must be hours from 0 to 23")
	for _, d := range []struct {
		name string
		dst  **time.Time
	}{{"from", &f.From}, {"to", &f.To}} {
		if v := q.Get(d.name); v != "" {
			t, err := journal.ParseDate(v)
			if err != nil {
				bad(d.name, "must be a date YYYY-MM-DD")
				continue
			}
			*d.dst = &t
		}
	}
	if f.From != nil && f.To != nil && f.To.Before(*f.From) {
		bad("to", "must not be before from")
	}
	switch q.Get("dateBy") {
	case "", "opened":
	case "closed":
		f.ByClose = true
	default:
		bad("dateBy", "must be opened or closed")
	}
	switch v := q.Get("propFirm"); v {
	case "":
	case "true", "false":
		yes := v == "true"
		f.PropFirm = &yes
	default:
		bad("propFirm", "must be true or false")
	}
	for _, v := range list("phase") {
		if v != string(propfirm.Evaluation) && v != string(propfirm.Funded) {
			bad("phase", "must be evaluation or funded")
			break
		}
		f.Phases = append(f.Phases, v)
	}
	return f, apperr.Fields(problems)
}

// NeedsAccount reports whether f's SQL reads the account's zone (the
// caller joins accounts a).
func (f Filter) NeedsAccount() bool {
	return f.From != nil || f.To != nil || len(f.Weekdays) > 0 || len(f.Hours) > 0
}

// A filter has two forms, written side by side field by field: SQL (the
// positions list) and Match (the statistics' records, in Go).
// TestFilterFieldsInBoth fails when a field of Filter is missing from
// either; the statistics' oracle tests hold the two to one reading.

// SQL returns the filter as a WHERE fragment over positions aliased p and
// (when NeedsAccount) their accounts aliased a, appending its arguments to
// args. dateColumn is the position time the date range applies to
// ("p.opened_at" for lists, "p.closed_at" with ByClose); the range is read
// in the account's trading-day zone.
func (f Filter) SQL(args *[]any, dateColumn string) string {
	var conds []string
	arg := func(v any) string {
		*args = append(*args, v)
		return "$" + strconv.Itoa(len(*args))
	}
	if len(f.AccountIDs) > 0 {
		conds = append(conds, "p.account_id = ANY("+arg(f.AccountIDs)+"::uuid[])")
	}
	if len(f.Symbols) > 0 {
		a := arg(f.Symbols)
		conds = append(conds, "(p.symbol = ANY("+a+"::text[]) OR p.underlying = ANY("+a+"::text[]))")
	}
	if f.Status != "" {
		conds = append(conds, "p.status = "+arg(f.Status))
	}
	if len(f.TagIDs) > 0 {
		conds = append(conds, "EXISTS (SELECT 1 FROM position_tags pt WHERE pt.position_id = p.id AND pt.tag_id = ANY("+arg(f.TagIDs)+"::uuid[]))")
	}
	if len(f.ExcludeTagIDs) > 0 {
		conds = append(conds, "NOT EXISTS (SELECT 1 FROM position_tags pt WHERE pt.position_id = p.id AND pt.tag_id = ANY("+arg(f.ExcludeTagIDs)+"::uuid[]))")
	}
	if len(f.PlaybookIDs) > 0 {
		conds = append(conds, "p.playbook_id = ANY("+arg(f.PlaybookIDs)+"::uuid[])")
	}
	if len(f.Strategies) > 0 {
		var kinds []string
		var or []string
		for _, v := range f.Strategies {
			if v == NoStrategy {
				or = append(or, "p.strategy_id IS NULL")
			} else {
				kinds = append(kinds, v)
			}
		}
		if len(kinds) > 0 {
			or = append(or, "EXISTS (SELECT 1 FROM strategies s WHERE s.id = p.strategy_id AND coalesce(s.kind, 'custom') = ANY("+arg(kinds)+"::text[]))")
		}
		conds = append(conds, "("+strings.Join(or, " OR ")+")")
	}
	if f.Side != "" {
		conds = append(conds, "p.side = "+arg(f.Side))
	}
	if len(f.Results) > 0 {
		var signs []int
		for _, v := range f.Results {
			sign, _ := journal.ResultSign(v)
			signs = append(signs, sign)
		}
		conds = append(conds, "(p.status = 'closed' AND sign(p.net_pnl)::int = ANY("+arg(signs)+"::int[]))")
	}
	if len(f.AssetTypes) > 0 {
		conds = append(conds, "p.asset_type = ANY("+arg(f.AssetTypes)+"::text[])")
	}
	if len(f.Weekdays) > 0 {
		conds = append(conds, "extract(isodow FROM p.opened_at AT TIME ZONE a.timezone)::int = ANY("+arg(f.Weekdays)+"::int[])")
	}
	if len(f.Hours) > 0 {
		conds = append(conds, "extract(hour FROM p.opened_at AT TIME ZONE a.timezone)::int = ANY("+arg(f.Hours)+"::int[])")
	}
	if f.From != nil {
		conds = append(conds, "("+dateColumn+" AT TIME ZONE a.timezone)::date >= "+arg(f.From.Format(time.DateOnly))+"::date")
	}
	if f.To != nil {
		conds = append(conds, "("+dateColumn+" AT TIME ZONE a.timezone)::date <= "+arg(f.To.Format(time.DateOnly))+"::date")
	}
	const plan = "EXISTS (SELECT 1 FROM prop_firm_plans pf WHERE pf.account_id = p.account_id"
	if f.PropFirm != nil {
		cond := plan + ")"
		if !*f.PropFirm {
			cond = "NOT " + cond
		}
		conds = append(conds, cond)
	}
	if len(f.Phases) > 0 {
		conds = append(conds, plan+" AND pf.phase = ANY("+arg(f.Phases)+"::text[]))")
	}
	if len(conds) == 0 {
		return "TRUE"
	}
	return strings.Join(conds, " AND ")
}

// Candidate is a trade as Match reads it: its account, status and
// trading day (the day the caller dates it by), what it follows and is
// tagged with as the small integers Compile's lookups give, its side,
// asset type and strategy kind (NoStrategy for a position in none), its
// result (journal.ResultOf; "" when not closed), the weekday (ISO) and
// hour of its entry in its account's zone, and the phase of its account's
// prop-firm plan ("" without one). Its symbol
// is matched apart (TakesSymbol), once per distinct symbol.
type Candidate struct {
	Account   int32
	Status    string
	Day       int64 // days since 1970-01-01
	Tags      []int32
	Playbook  int32 // -1: none
	Long      bool
	AssetType string
	Strategy  string
	Result    string
	Weekday   int // 1 Monday .. 7 Sunday
	Hour      int
	Phase     string
}

// Match is a Filter compiled for trades in memory: what SQL says, for a
// Candidate.
type Match struct {
	None      bool           // nothing can match (only unknown tags, playbooks or accounts asked for)
	accounts  map[int32]bool // nil: any
	status    string         // "": any
	first     int64          // trading days from first to last
	last      int64
	symbols   map[string]bool // nil: any; a symbol, or an option's or future's underlying
	anyTags   []int32         // nil: any; else at least one of these
	noTags    []int32
	playbooks map[int32]bool  // nil: any
	kinds     map[string]bool // nil: any
	side      string          // "": any
	results   map[string]bool // nil: any
	assets    map[string]bool // nil: any
	weekdays  [8]bool
	hours     [24]bool
	byWeekday bool
	byHour    bool
	propFirm  *bool           // nil: any; else whether the account has a plan
	phases    map[string]bool // nil: any
}

// Index gives the small integer a record carries for an id (an account,
// a tag, a playbook), false for an id the journal does not have.
type Index func(id string) (int32, bool)

// Compile makes f's Match. A list of ids none of which is known matches
// nothing; unknown ids among known ones are left out.
func (f Filter) Compile(account, tag, playbook Index) Match {
	m := Match{status: f.Status, side: f.Side, first: math.MinInt64, last: math.MaxInt64, propFirm: f.PropFirm}
	known := func(ids []string, index Index) []int32 {
		list := []int32{}
		for _, id := range ids {
			if k, ok := index(id); ok {
				list = append(list, k)
			}
		}
		return list
	}
	set := func(ids []string, index Index) map[int32]bool {
		if len(ids) == 0 {
			return nil
		}
		out := map[int32]bool{}
		for _, k := range known(ids, index) {
			out[k] = true
		}
		if len(out) == 0 {
			m.None = true
		}
		return out
	}
	strs := func(list []string) map[string]bool {
		if len(list) == 0 {
			return nil
		}
		out := map[string]bool{}
		for _, v := range list {
			out[v] = true
		}
		return out
	}
	m.accounts = set(f.AccountIDs, account)
	m.playbooks = set(f.PlaybookIDs, playbook)
	if len(f.TagIDs) > 0 {
		if m.anyTags = known(f.TagIDs, tag); len(m.anyTags) == 0 {
			m.None = true
		}
	}
	m.noTags = known(f.ExcludeTagIDs, tag)
	m.symbols, m.kinds, m.assets, m.results = strs(f.Symbols), strs(f.Strategies), strs(f.AssetTypes), strs(f.Results)
	m.phases = strs(f.Phases)
	if f.From != nil {
		m.first = f.From.Unix() / 86400
	}
	if f.To != nil {
		m.last = f.To.Unix() / 86400
	}
	for _, d := range f.Weekdays {
		m.weekdays[d], m.byWeekday = true, true
	}
	for _, h := range f.Hours {
		m.hours[h], m.byHour = true, true
	}
	return m
}

// HasSymbols reports whether m narrows by symbol.
func (m *Match) HasSymbols() bool { return m.symbols != nil }

// TakesSymbol reports whether m's symbols take s (a trade's symbol or its
// underlying: either taken takes the trade).
func (m *Match) TakesSymbol(s string) bool { return m.symbols == nil || m.symbols[s] }

// HasResults reports whether m narrows by result: a record's figures
// are read before Takes.
func (m *Match) HasResults() bool { return m.results != nil }

// Days are the trading days m narrows to (math.MinInt64 and MaxInt64:
// none), days since 1970-01-01.
func (m *Match) Days() (first, last int64) { return m.first, m.last }

// Takes reports whether m keeps c, whose symbol the caller has matched.
func (m *Match) Takes(c *Candidate) bool {
	switch {
	case m.None,
		m.accounts != nil && !m.accounts[c.Account],
		m.status != "" && c.Status != m.status,
		c.Day < m.first || c.Day > m.last,
		m.playbooks != nil && (c.Playbook < 0 || !m.playbooks[c.Playbook]),
		m.side != "" && (c.Long != (m.side == journal.SideLong)),
		m.kinds != nil && !m.kinds[c.Strategy],
		m.assets != nil && !m.assets[c.AssetType],
		m.results != nil && !m.results[c.Result],
		m.byWeekday && !m.weekdays[c.Weekday],
		m.byHour && !m.hours[c.Hour],
		m.propFirm != nil && *m.propFirm != (c.Phase != ""),
		m.phases != nil && !m.phases[c.Phase],
		m.anyTags != nil && !containsAny(c.Tags, m.anyTags):
		return false
	}
	return !containsAny(c.Tags, m.noTags)
}

func containsAny(have, want []int32) bool {
	for _, h := range have {
		if slices.Contains(want, h) {
			return true
		}
	}
	return false
}
