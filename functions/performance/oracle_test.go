package performance_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/apitest"
	"tradejournal/shared/fx"
)

// The oracle: every figure of GET /api/performance recomputed by the test
// itself, with plain loops over the positions read back from the tables,
// and compared with what the route answers. Conversion factors come from
// fx.Spot (they are an input of the statistics, not one of them).

// oraclePos is a position as the tables hold it.
type oraclePos struct {
	id, account, currency, zone, symbol, status string
	underlying, side, assetType                 string
	openedAt, closedAt                          time.Time
	quantity, notional                          float64
	net, gross, fees                            decimal.Decimal
	r                                           *decimal.Decimal
	tags                                        []string
	playbook                                    string   // "" for none
	met                                         []string // the criteria of its playbook it ticked
	strategy                                    string   // a leg's strategy id; a merged strategy's kind; "" for neither
	mae, mfe                                    *oracleExcursion
	hit                                         string // target or stop: the first the bars reached
	atHit                                       decimal.Decimal
	phase                                       string // of the account's prop-firm plan, "" for none
}

// oracleExcursion is the money (and R) at a price the trade reached.
type oracleExcursion struct {
	money decimal.Decimal
	r     *decimal.Decimal
}

type oracleTag struct{ id, name, category string }

// oracleBook is a playbook with its criteria in checklist order.
type oracleBook struct {
	id, name string
	criteria [][2]string // id, text
}

// oracleJournal is what a report is computed from.
type oracleJournal struct {
	positions []oraclePos
	tags      map[string]oracleTag
	books     map[string]oracleBook
	rates     []fx.Rate
	display   string
	zone      string // the user's reporting zone
}

// journalOf reads a user's positions (a strategy's legs merged into one:
// strategiesOf), tags, rates, display currency and reporting zone.
func journalOf(t *testing.T, srv *apitest.Server, c *apitest.Client, userID string) oracleJournal {
	t.Helper()
	var (
		ps      []oraclePos
		tags    map[string]oracleTag
		rates   []fx.Rate
		display string
		zone    string
	)
	ctx := context.Background()
	rows, err := srv.App.DB.Query(ctx, `
		SELECT p.id::text, p.account_id::text, a.currency::text, a.timezone, p.symbol, p.status,
			coalesce(p.underlying, p.symbol), p.side, p.asset_type, coalesce(p.opened_at, p.closed_at, 'epoch'),
			p.entry_quantity::float8, coalesce(p.avg_entry_price * p.entry_quantity * p.multiplier, 0)::float8,
			coalesce(p.closed_at, 'epoch'), p.net_pnl, p.gross_pnl, p.fees, p.r_multiple,
			array(SELECT pt.tag_id::text FROM position_tags pt WHERE pt.position_id = p.id),
			coalesce(p.playbook_id::text, ''), array(SELECT pc.criterion_id::text FROM position_criteria pc WHERE pc.position_id = p.id),
			coalesce(p.strategy_id::text, ''),
			p.avg_entry_price, p.entry_quantity, p.multiplier, p.initial_risk, p.stop_loss, p.target_price,
			p.mae_price, p.mfe_price, p.bars_mae_price, p.bars_mfe_price, coalesce(p.bars_first_hit, ''),
			coalesce(p.bars_closed_at = p.closed_at, false),
			coalesce((SELECT pf.phase FROM prop_firm_plans pf WHERE pf.account_id = p.account_id), ''),
			(SELECT f.rate FROM fills f WHERE f.position_id = p.id AND f.type = 'entry' ORDER BY f.filled_at, f.id LIMIT 1)
		FROM positions p JOIN accounts a ON a.id = p.account_id WHERE p.user_id = $1`, userID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var (
			p                          oraclePos
			avg, risk, stop, target    *decimal.Decimal
			qty, mult                  decimal.Decimal
			mae, mfe, barsMAE, barsMFE *decimal.Decimal
			firstRate                  *decimal.Decimal
			hit                        string
			measured                   bool
		)
		if err := rows.Scan(&p.id, &p.account, &p.currency, &p.zone, &p.symbol, &p.status, &p.underlying, &p.side, &p.assetType,
			&p.openedAt, &p.quantity, &p.notional, &p.closedAt,
			&p.net, &p.gross, &p.fees, &p.r, &p.tags, &p.playbook, &p.met, &p.strategy,
			&avg, &qty, &mult, &risk, &stop, &target, &mae, &mfe, &barsMAE, &barsMFE, &hit, &measured, &p.phase, &firstRate); err != nil {
			t.Fatal(err)
		}
		// Typed excursions win; measured ones count only when measured to
		// the current close; a trade priced apart from its account's
		// currency converts at its first entry's rate, and has none without.
		if !measured {
			barsMAE, barsMFE, hit = nil, nil, ""
		}
		quoted := p.assetType == "forex" || p.assetType == "crypto" || p.assetType == "cfd"
		if avg != nil && (!quoted || firstRate != nil) {
			at := func(price *decimal.Decimal) *oracleExcursion {
				if price == nil {
					return nil
				}
				move := price.Sub(*avg)
				if p.side == "short" {
					move = move.Neg()
				}
				money := move.Mul(qty).Mul(mult)
				if quoted {
					money = money.Mul(*firstRate)
				}
				e := &oracleExcursion{money: money.Round(4)}
				if risk != nil && risk.Sign() > 0 {
					v := e.money.DivRound(*risk, 2)
					e.r = &v
				}
				return e
			}
			p.mae, p.mfe = at(mae), at(mfe)
			if p.mae == nil {
				p.mae = at(barsMAE)
			}
			if p.mfe == nil {
				p.mfe = at(barsMFE)
			}
			level := map[string]*decimal.Decimal{"target": target, "stop": stop}[hit]
			if e := at(level); e != nil {
				p.hit, p.atHit = hit, e.money
			}
		}
		ps = append(ps, p)
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	ps = strategiesOf(t, c, ps)
	tags = map[string]oracleTag{}
	rows, _ = srv.App.DB.Query(ctx, `SELECT id::text, name, category FROM tags WHERE user_id = $1`, userID)
	for rows.Next() {
		var g oracleTag
		if err := rows.Scan(&g.id, &g.name, &g.category); err != nil {
			t.Fatal(err)
		}
		tags[g.id] = g
	}
	books := map[string]oracleBook{}
	rows, _ = srv.App.DB.Query(ctx, `SELECT id::text, name FROM playbooks WHERE user_id = $1`, userID)
	for rows.Next() {
		var b oracleBook
		if err := rows.Scan(&b.id, &b.name); err != nil {
			t.Fatal(err)
		}
		books[b.id] = b
	}
	rows, _ = srv.App.DB.Query(ctx, `SELECT c.playbook_id::text, c.id::text, c.text FROM playbook_criteria c
		JOIN playbooks b ON b.id = c.playbook_id WHERE b.user_id = $1 ORDER BY c.sort_order, c.id`, userID)
	for rows.Next() {
		var book, id, text string
		if err := rows.Scan(&book, &id, &text); err != nil {
			t.Fatal(err)
		}
		b := books[book]
		b.criteria = append(b.criteria, [2]string{id, text})
		books[book] = b
	}
	rows, _ = srv.App.DB.Query(ctx, `SELECT id::text, base_currency::text, quote_currency::text, effective_date, rate
		FROM exchange_rates WHERE user_id = $1`, userID)
	for rows.Next() {
		var r fx.Rate
		if err := rows.Scan(&r.ID, &r.Base, &r.Quote, &r.Date, &r.Value); err != nil {
			t.Fatal(err)
		}
		rates = append(rates, r)
	}
	var d *string
	if err := srv.App.DB.QueryRow(ctx, `SELECT display_currency::text, timezone FROM users WHERE id = $1`, userID).Scan(&d, &zone); err != nil {
		t.Fatal(err)
	}
	if d != nil {
		display = *d
	}
	return oracleJournal{ps, tags, books, rates, display, zone}
}

// strategiesOf merges each strategy's legs into one position, in plain
// loops: a strategy is one trade once no leg is open and one is closed,
// closed at its last close, opened at its first opening, its sums the
// legs', its tags any leg's, its playbook the first leg's (in opening
// order) with one, and the criteria of that playbook any leg met. Its kind,
// R and direction (a debit is long) are the strategy engine's, read from
// the strategies' own route; without a kind it is custom, without a net
// debit its first leg's side.
func strategiesOf(t *testing.T, c *apitest.Client, ps []oraclePos) []oraclePos {
	t.Helper()
	legs := map[string][]oraclePos{}
	var out []oraclePos
	for _, p := range ps {
		if p.strategy == "" {
			out = append(out, p)
		} else {
			legs[p.strategy] = append(legs[p.strategy], p)
		}
	}
	for id, ls := range legs {
		slices.SortFunc(ls, func(a, b oraclePos) int { return cmp.Or(a.openedAt.Compare(b.openedAt), strings.Compare(a.id, b.id)) })
		if slices.ContainsFunc(ls, func(p oraclePos) bool { return p.status == "open" }) ||
			!slices.ContainsFunc(ls, func(p oraclePos) bool { return p.status == "closed" }) {
			continue
		}
		var body struct {
			Strategy struct {
				Kind      *string `json:"kind"`
				NetDebit  *string `json:"netDebit"`
				RMultiple *string `json:"rMultiple"`
				Status    string  `json:"status"`
			} `json:"strategy"`
		}
		if err := json.Unmarshal(apitest.Must(t, c.Do("GET", "/api/strategies/"+id, nil), 200).Body, &body); err != nil {
			t.Fatal(err)
		}
		api := body.Strategy
		if api.Status != "closed" {
			t.Fatalf("strategy %s is %s to its route, closed to the oracle", id, api.Status)
		}
		m := oraclePos{id: id, account: ls[0].account, currency: ls[0].currency, zone: ls[0].zone, symbol: ls[0].underlying,
			underlying: ls[0].underlying, status: "closed", side: ls[0].side, assetType: "option", openedAt: ls[0].openedAt,
			strategy: "custom", playbook: "", phase: ls[0].phase}
		if api.Kind != nil {
			m.strategy = *api.Kind
		}
		if api.NetDebit != nil {
			m.side = "long"
			if decimal.RequireFromString(*api.NetDebit).IsNegative() {
				m.side = "short"
			}
		}
		if api.RMultiple != nil {
			r := decimal.RequireFromString(*api.RMultiple)
			m.r = &r
		}
		for _, l := range ls {
			m.net, m.gross, m.fees = m.net.Add(l.net), m.gross.Add(l.gross), m.fees.Add(l.fees)
			m.quantity, m.notional = m.quantity+l.quantity, m.notional+l.notional
			if l.status == "closed" && l.closedAt.After(m.closedAt) {
				m.closedAt = l.closedAt
			}
			for _, g := range l.tags {
				if !slices.Contains(m.tags, g) {
					m.tags = append(m.tags, g)
				}
			}
			if m.playbook == "" {
				m.playbook = l.playbook
			}
		}
		for _, l := range ls {
			if l.playbook == m.playbook {
				for _, c := range l.met {
					if !slices.Contains(m.met, c) {
						m.met = append(m.met, c)
					}
				}
			}
		}
		out = append(out, m)
	}
	return out
}

// tradingDay is the calendar date of the close in the account's zone.
func tradingDay(t *testing.T, p oraclePos) string {
	return p.closedAt.In(zoneOf(t, p)).Format(time.DateOnly)
}

func zoneOf(t *testing.T, p oraclePos) *time.Location {
	loc, ok := zones.Load(p.zone)
	if !ok {
		l, err := time.LoadLocation(p.zone)
		if err != nil {
			t.Fatal(err)
		}
		loc, _ = zones.LoadOrStore(p.zone, l)
	}
	return loc.(*time.Location)
}

// inFilter is the plain reading of the journal's filter (query) for p:
// every parameter combines, a list (repeated, or comma-separated) takes any
// of its values, a symbol is the position's or its underlying, weekday and
// hour are the entry's in the account's zone.
func inFilter(t *testing.T, q url.Values, p oraclePos) bool {
	list := func(name string) []string {
		var out []string
		for _, v := range q[name] {
			for _, x := range strings.Split(v, ",") {
				if x = strings.TrimSpace(x); x != "" {
					out = append(out, x)
				}
			}
		}
		return out
	}
	anyOf := func(name string, ok func(string) bool) bool {
		vs := list(name)
		return len(vs) == 0 || slices.ContainsFunc(vs, ok)
	}
	entry := p.openedAt.In(zoneOf(t, p))
	weekday := int(entry.Weekday())
	if weekday == 0 {
		weekday = 7
	}
	day := tradingDay(t, p)
	return anyOf("accountId", func(v string) bool { return v == p.account }) &&
		anyOf("symbol", func(v string) bool { v = strings.ToUpper(v); return v == p.symbol || v == p.underlying }) &&
		anyOf("tagId", func(v string) bool { return slices.Contains(p.tags, v) }) &&
		!slices.ContainsFunc(list("excludeTagId"), func(v string) bool { return slices.Contains(p.tags, v) }) &&
		anyOf("playbookId", func(v string) bool { return v == p.playbook }) &&
		anyOf("strategy", func(v string) bool { return v == p.strategy || v == "none" && p.strategy == "" }) &&
		anyOf("side", func(v string) bool { return v == p.side }) &&
		anyOf("result", func(v string) bool { return p.status == "closed" && v == oracleResult(p.net) }) &&
		anyOf("assetType", func(v string) bool { return v == p.assetType }) &&
		anyOf("weekday", func(v string) bool { return v == fmt.Sprint(weekday) }) &&
		anyOf("hour", func(v string) bool { return v == fmt.Sprint(entry.Hour()) }) &&
		anyOf("phase", func(v string) bool { return v == p.phase }) &&
		(q.Get("propFirm") == "" || (q.Get("propFirm") == "true") == (p.phase != "")) &&
		(q.Get("status") == "" || q.Get("status") == p.status) &&
		(q.Get("from") == "" || day >= q.Get("from")) && (q.Get("to") == "" || day <= q.Get("to"))
}

// oracleResult is a closed trade's result by its net P&L: above zero a
// win, below a loss, exactly zero breakeven.
func oracleResult(net decimal.Decimal) string {
	switch {
	case net.IsPositive():
		return "win"
	case net.IsNegative():
		return "loss"
	}
	return "breakeven"
}

var zones sync.Map // zone name to *time.Location

// expectedReport is the response the route must give for query.
func expectedReport(t *testing.T, j oracleJournal, query string, now time.Time) map[string]any {
	t.Helper()
	ps, tags, books, rates, display, zone := j.positions, j.tags, j.books, j.rates, j.display, j.zone
	q, _ := url.ParseQuery(strings.TrimPrefix(query, "?"))
	var in []oraclePos
	for _, p := range ps {
		if p.status == "closed" && inFilter(t, q, p) {
			in = append(in, p)
		}
	}
	// Close order: closed_at, then the account, then the position's (or
	// strategy's) id (PostgreSQL orders uuids as their lowercase text does).
	slices.SortFunc(in, func(a, b oraclePos) int {
		return cmp.Or(a.closedAt.Compare(b.closedAt), strings.Compare(a.account, b.account), strings.Compare(a.id, b.id))
	})
	byCurrency := map[string][]oraclePos{}
	for _, p := range in {
		byCurrency[p.currency] = append(byCurrency[p.currency], p)
	}
	one := decimal.NewFromInt(1)
	blocks := []any{}
	for _, c := range slices.Sorted(maps.Keys(byCurrency)) {
		blocks = append(blocks, expectedBlock(t, c, byCurrency[c], tags, books, func(string) decimal.Decimal { return one }))
	}
	out := map[string]any{"displayCurrency": nil, "missingPairs": []any{}, "byCurrency": blocks, "total": nil}
	if display == "" {
		return out
	}
	out["displayCurrency"] = display
	day := fx.Today(now, zone)
	factors := map[string]decimal.Decimal{}
	missing := []any{}
	for _, c := range slices.Sorted(maps.Keys(byCurrency)) {
		if f, ok := fx.Spot(rates, c, display, day); ok {
			factors[c] = f
		} else {
			missing = append(missing, c+"/"+display)
		}
	}
	out["missingPairs"] = missing
	if len(missing) == 0 {
		out["total"] = expectedBlock(t, display, in, tags, books, func(c string) decimal.Decimal { return factors[c] })
	}
	return out
}

type oracleBucket struct {
	trades, wins, losses, rTrades int64
	net, winSum, lossSum, rSum    decimal.Decimal
}

// add counts a position of net P&L v (in the block's currency) and R
// multiple r.
func (b *oracleBucket) add(v decimal.Decimal, r *decimal.Decimal) {
	b.trades++
	b.net = b.net.Add(v)
	if v.IsPositive() {
		b.wins++
		b.winSum = b.winSum.Add(v)
	} else if v.IsNegative() {
		b.losses++
		b.lossSum = b.lossSum.Add(v)
	}
	if r != nil {
		b.rTrades++
		b.rSum = b.rSum.Add(*r)
	}
}

func oraclePercent(n, d int64) any {
	if d == 0 {
		return nil
	}
	return decimal.NewFromInt(100*n).DivRound(decimal.NewFromInt(d), 2).StringFixed(2)
}

func oracleRatio(n, d decimal.Decimal) any {
	if d.IsZero() {
		return nil
	}
	return n.DivRound(d, 4).StringFixed(4)
}

func (b oracleBucket) fields(m map[string]any) map[string]any {
	m["trades"], m["wins"], m["losses"] = b.trades, b.wins, b.losses
	m["winRate"], m["netPnl"] = oraclePercent(b.wins, b.trades), b.net.StringFixed(4)
	return m
}

// breakdown is fields and the breakdowns' own: average R and profit factor.
func (b oracleBucket) breakdown(m map[string]any) map[string]any {
	b.fields(m)
	m["averageR"], m["rTrades"], m["profitFactor"] = oracleRatio(b.rSum, decimal.NewFromInt(b.rTrades)), b.rTrades, nil
	if b.losses > 0 {
		m["profitFactor"] = oracleRatio(b.winSum, b.lossSum.Abs())
	}
	return m
}

// oracleHold names the hold-time range of d.
func oracleHold(d time.Duration) string {
	for _, h := range []struct {
		key   string
		below time.Duration
	}{{"lt1m", time.Minute}, {"1m-5m", 5 * time.Minute}, {"5m-15m", 15 * time.Minute}, {"15m-1h", time.Hour},
		{"1h-4h", 4 * time.Hour}, {"4h-1d", 24 * time.Hour}, {"1d-1w", 7 * 24 * time.Hour}} {
		if d < h.below {
			return h.key
		}
	}
	return "gte1w"
}

// oracleSizes are what the winners (or the losers) held, added up as the
// route does: in close order within a currency, then currency by currency.
type oracleSizes struct {
	trades, hold       int64
	quantity, notional float64
}

func (z oracleSizes) out() map[string]any {
	m := map[string]any{"trades": z.trades, "averageHoldSeconds": nil, "averageQuantity": nil, "averageNotional": nil}
	if z.trades > 0 {
		n := float64(z.trades)
		m["averageHoldSeconds"] = z.hold / z.trades
		m["averageQuantity"] = strconv.FormatFloat(z.quantity/n, 'f', 4, 64)
		m["averageNotional"] = strconv.FormatFloat(z.notional/n, 'f', 4, 64)
	}
	return m
}

// expectedBlock is the block of ps (in close order), each amount
// multiplied by factor(its currency).
func expectedBlock(t *testing.T, name string, ps []oraclePos, tags map[string]oracleTag, books map[string]oracleBook,
	factor func(string) decimal.Decimal) map[string]any {
	var (
		sum                                oracleBucket
		gross, fees                        decimal.Decimal
		largest, smallest                  *decimal.Decimal
		cum, peak, maxDD, deepest          decimal.Decimal
		peakAt, ddStart, ddEnd, ddBack     any = nil, nil, nil, nil
		ddPeak                             decimal.Decimal
		winRun, lossRun, winBest, lossBest int64
		curve                              = []any{}
		kinds                              = map[string]map[string]*oracleBucket{}
		rDist                              = make([]int64, 8)
		// the float sums, per currency in close order as the route adds them
		rSq             = map[string]float64{}
		winners, losers = map[string]*oracleSizes{}, map[string]*oracleSizes{}
		excursions      [2]oracleExcursions // mae, mfe
		exits           = map[string]*oracleExit{"mfeKept": {}, "holdToTarget": {}, "holdToStop": {}}
	)
	bucketOf := func(kind, k string) *oracleBucket {
		if kinds[kind] == nil {
			kinds[kind] = map[string]*oracleBucket{}
		}
		if kinds[kind][k] == nil {
			kinds[kind][k] = &oracleBucket{}
		}
		return kinds[kind][k]
	}
	stamp := func(at time.Time) any {
		b, _ := json.Marshal(at.UTC())
		return strings.Trim(string(b), `"`)
	}
	k := max(1, (len(ps)+999)/1000)
	for i, p := range ps {
		f := factor(p.currency)
		v := p.net.Mul(f)
		sum.add(v, p.r)
		gross, fees = gross.Add(p.gross.Mul(f)), fees.Add(p.fees.Mul(f))
		if largest == nil || v.GreaterThan(*largest) {
			largest = &v
		}
		if smallest == nil || v.LessThan(*smallest) {
			smallest = &v
		}
		day := tradingDay(t, p)
		d, _ := time.Parse(time.DateOnly, day)
		y, w := d.ISOWeek()
		entry := p.openedAt.In(zoneOf(t, p))
		weekday := int(entry.Weekday())
		if weekday == 0 {
			weekday = 7
		}
		for kind, key := range map[string]string{"day": day, "week": fmt.Sprintf("%04d-W%02d", y, w), "month": day[:7], "year": day[:4],
			"symbol": p.symbol, "underlying": p.underlying, "weekday": fmt.Sprint(weekday), "hour": fmt.Sprint(entry.Hour()),
			"hold": oracleHold(p.closedAt.Sub(p.openedAt)), "side": p.side, "asset": p.assetType, "strategy": p.strategy} {
			bucketOf(kind, key).add(v, p.r)
		}
		for _, g := range p.tags {
			if _, ok := tags[g]; ok {
				bucketOf("tag", g).add(v, p.r)
			}
		}
		// A position counts in its playbook, and in each of the playbook's
		// criteria as met (ticked) or missed.
		bucketOf("playbook", p.playbook).add(v, p.r)
		for _, c := range books[p.playbook].criteria {
			if slices.Contains(p.met, c[0]) {
				bucketOf("met", c[0]).add(v, p.r)
			} else {
				bucketOf("missed", c[0]).add(v, p.r)
			}
		}
		for i, e := range []*oracleExcursion{p.mae, p.mfe} {
			if e == nil {
				continue
			}
			x := &excursions[i]
			x.values = append(x.values, e.money.Mul(f))
			x.money = x.money.Add(e.money.Mul(f))
			if e.r != nil {
				x.rN++
				x.rSum = x.rSum.Add(*e.r)
				x.dist[oracleRBucket(*e.r)]++
			}
		}
		if p.mfe != nil {
			exits["mfeKept"].add(p.gross.Mul(f), p.mfe.money.Mul(f))
		}
		if p.hit != "" {
			exits[map[string]string{"target": "holdToTarget", "stop": "holdToStop"}[p.hit]].add(p.gross.Mul(f), p.atHit.Mul(f))
		}
		if p.r != nil {
			rDist[oracleRBucket(*p.r)]++
			x := p.r.InexactFloat64()
			rSq[p.currency] += x * x
		}
		if v.Sign() != 0 {
			group := winners
			if v.IsNegative() {
				group = losers
			}
			z := group[p.currency]
			if z == nil {
				z = &oracleSizes{}
				group[p.currency] = z
			}
			z.trades++
			z.hold += max(0, int64(p.closedAt.Sub(p.openedAt)/time.Second))
			z.quantity += p.quantity
			z.notional += p.notional
		}
		cum = cum.Add(v)
		if cum.GreaterThan(peak) {
			peak, peakAt = cum, stamp(p.closedAt)
		}
		if ddEnd != nil && ddBack == nil && cum.GreaterThanOrEqual(ddPeak) {
			ddBack = stamp(p.closedAt)
		}
		if dd := peak.Sub(cum); dd.GreaterThan(maxDD) {
			maxDD, ddPeak, ddStart, ddEnd, ddBack = dd, peak, peakAt, stamp(p.closedAt), nil
		}
		deepest = decimal.Max(deepest, peak.Sub(cum))
		switch v.Sign() {
		case 1:
			winRun, lossRun = winRun+1, 0
		case -1:
			winRun, lossRun = 0, lossRun+1
		default:
			winRun, lossRun = 0, 0
		}
		winBest, lossBest = max(winBest, winRun), max(lossBest, lossRun)
		if (i+1)%k == 0 || i == len(ps)-1 {
			curve = append(curve, map[string]any{"closedAt": stamp(p.closedAt), "trade": float64(i + 1), "cumulativeNetPnl": cum.StringFixed(4),
				"drawdown": deepest.Neg().StringFixed(4)})
			deepest = decimal.Zero
		}
	}
	// SQN and the sizes: float sums per currency, then currency by currency
	// in the order of their names, as the route adds them.
	var sq float64
	var win, loss oracleSizes
	for _, c := range slices.Sorted(maps.Keys(rSq)) {
		sq += rSq[c]
	}
	for _, c := range slices.Sorted(maps.Keys(winners)) {
		z, f := winners[c], factor(c).InexactFloat64()
		win = oracleSizes{win.trades + z.trades, win.hold + z.hold, win.quantity + z.quantity, win.notional + z.notional*f}
	}
	for _, c := range slices.Sorted(maps.Keys(losers)) {
		z, f := losers[c], factor(c).InexactFloat64()
		loss = oracleSizes{loss.trades + z.trades, loss.hold + z.hold, loss.quantity + z.quantity, loss.notional + z.notional*f}
	}
	var sqn any
	if n := float64(sum.rTrades); sum.rTrades >= 2 {
		mean := sum.rSum.InexactFloat64() / n
		if variance := (sq - n*mean*mean) / (n - 1); variance > 1e-12 {
			sqn = strconv.FormatFloat(math.Sqrt(min(n, 100))*mean/math.Sqrt(variance), 'f', 2, 64)
		}
	}
	summary := map[string]any{
		"trades": sum.trades, "wins": sum.wins, "losses": sum.losses, "breakevens": sum.trades - sum.wins - sum.losses,
		"winRate": oraclePercent(sum.wins, sum.trades), "lossRate": oraclePercent(sum.losses, sum.trades),
		"breakevenRate": oraclePercent(sum.trades-sum.wins-sum.losses, sum.trades),
		"netPnl":        sum.net.StringFixed(4), "grossPnl": gross.StringFixed(4), "fees": fees.StringFixed(4),
		"grossWins": sum.winSum.StringFixed(4), "grossLosses": sum.lossSum.StringFixed(4),
		"averageWin": oracleRatio(sum.winSum, decimal.NewFromInt(sum.wins)), "averageLoss": oracleRatio(sum.lossSum, decimal.NewFromInt(sum.losses)),
		"profitFactor": nil, "expectancy": oracleRatio(sum.net, decimal.NewFromInt(sum.trades)),
		"averageR": oracleRatio(sum.rSum, decimal.NewFromInt(sum.rTrades)), "rTrades": sum.rTrades, "sqn": sqn,
		"largestWin": nil, "largestLoss": nil, "maxDrawdown": maxDD.StringFixed(4),
		"maxDrawdownStart": ddStart, "maxDrawdownEnd": ddEnd, "maxDrawdownRecovered": ddBack,
		"longestWinStreak": winBest, "longestLossStreak": lossBest,
	}
	if sum.losses > 0 {
		summary["profitFactor"] = oracleRatio(sum.winSum, sum.lossSum.Abs())
	}
	if largest != nil && largest.IsPositive() {
		summary["largestWin"] = largest.StringFixed(4)
	}
	if smallest != nil && smallest.IsNegative() {
		summary["largestLoss"] = smallest.StringFixed(4)
	}
	ascending := func(kind, field string, key func(string) any, order func(a, b string) int) []any {
		out := []any{}
		for _, k := range slices.SortedFunc(maps.Keys(kinds[kind]), order) {
			m := map[string]any{field: key(k)}
			if kind == "day" {
				out = append(out, kinds[kind][k].fields(m))
			} else {
				out = append(out, kinds[kind][k].breakdown(m))
			}
		}
		return out
	}
	text := func(k string) any { return k }
	num := func(k string) any { n, _ := strconv.Atoi(k); return n }
	byNum := func(a, b string) int { x, _ := strconv.Atoi(a); y, _ := strconv.Atoi(b); return cmp.Compare(x, y) }
	holds := []string{"lt1m", "1m-5m", "5m-15m", "15m-1h", "1h-4h", "4h-1d", "1d-1w", "gte1w"}
	byHold := func(a, b string) int { return cmp.Compare(slices.Index(holds, a), slices.Index(holds, b)) }
	// Best net P&L first; ties by symbol, or by tag name then id.
	bestFirst := func(kind string) []any {
		symbols := kinds[kind]
		syms := slices.SortedFunc(maps.Keys(symbols), func(a, b string) int {
			return cmp.Or(symbols[b].net.Cmp(symbols[a].net), strings.Compare(a, b))
		})
		out := []any{}
		for _, s := range syms {
			out = append(out, symbols[s].breakdown(map[string]any{"symbol": s}))
		}
		return out
	}
	tagBuckets := kinds["tag"]
	ids := slices.SortedFunc(maps.Keys(tagBuckets), func(a, b string) int {
		return cmp.Or(tagBuckets[b].net.Cmp(tagBuckets[a].net), strings.Compare(tags[a].name, tags[b].name), strings.Compare(a, b))
	})
	byTag := []any{}
	for _, id := range ids {
		byTag = append(byTag, tagBuckets[id].breakdown(map[string]any{"tagId": id, "name": tags[id].name, "category": tags[id].category}))
	}
	// By playbook: best net P&L first, then by name ("" for none), then id.
	bookBuckets := kinds["playbook"]
	byPlaybook := []any{}
	for _, id := range slices.SortedFunc(maps.Keys(bookBuckets), func(a, b string) int {
		return cmp.Or(bookBuckets[b].net.Cmp(bookBuckets[a].net), strings.Compare(books[a].name, books[b].name), strings.Compare(a, b))
	}) {
		var bookID any
		if id != "" {
			bookID = id
		}
		byPlaybook = append(byPlaybook, bookBuckets[id].breakdown(map[string]any{"playbookId": bookID, "name": books[id].name}))
	}
	// By strategy kind: best net P&L first, then by kind ("" for no
	// strategy, null in the answer).
	strategyBuckets := kinds["strategy"]
	byStrategy := []any{}
	for _, k := range slices.SortedFunc(maps.Keys(strategyBuckets), func(a, b string) int {
		return cmp.Or(strategyBuckets[b].net.Cmp(strategyBuckets[a].net), strings.Compare(a, b))
	}) {
		var kind any
		if k != "" {
			kind = k
		}
		byStrategy = append(byStrategy, strategyBuckets[k].breakdown(map[string]any{"strategy": kind}))
	}
	// By criterion: the playbooks with a position, by name then id, each
	// criterion in checklist order, met beside missed.
	byCriterion := []any{}
	for _, id := range slices.SortedFunc(maps.Keys(books), func(a, b string) int {
		return cmp.Or(strings.Compare(books[a].name, books[b].name), strings.Compare(a, b))
	}) {
		if bookBuckets[id] == nil {
			continue
		}
		for _, c := range books[id].criteria {
			met, missed := kinds["met"][c[0]], kinds["missed"][c[0]]
			if met == nil {
				met = &oracleBucket{}
			}
			if missed == nil {
				missed = &oracleBucket{}
			}
			byCriterion = append(byCriterion, map[string]any{"criterionId": c[0], "text": c[1], "playbookId": id, "playbook": books[id].name,
				"met": met.breakdown(map[string]any{}), "missed": missed.breakdown(map[string]any{})})
		}
	}
	rDistribution := oracleRDistribution(rDist)
	excursion := map[string]any{}
	for i, name := range []string{"mae", "mfe"} {
		x := &excursions[i]
		n := int64(len(x.values))
		slices.SortFunc(x.values, decimal.Decimal.Cmp)
		percentiles := map[string]any{}
		for _, pct := range []int{10, 25, 50, 75, 90} {
			var v any
			if n > 0 {
				rank := int(math.Ceil(float64(pct) * float64(n) / 100))
				v = x.values[rank-1].StringFixed(4)
			}
			percentiles[fmt.Sprintf("p%d", pct)] = v
		}
		excursion[name] = map[string]any{"trades": n, "averageMoney": oracleRatio(x.money, decimal.NewFromInt(n)), "percentiles": percentiles,
			"rTrades": x.rN, "averageR": oracleRatio(x.rSum, decimal.NewFromInt(x.rN)), "rDistribution": oracleRDistribution(x.dist[:])}
	}
	exitAnalysis := map[string]any{}
	for name, e := range exits {
		m := map[string]any{"trades": e.trades, "grossPnl": e.gross.StringFixed(4)}
		if name == "mfeKept" {
			m["mfe"] = e.beside.StringFixed(4)
			m["share"] = nil
			if !e.beside.IsZero() {
				m["share"] = e.gross.Mul(decimal.NewFromInt(100)).DivRound(e.beside, 4).StringFixed(2)
			}
		} else {
			m["atLevel"] = e.beside.StringFixed(4)
		}
		exitAnalysis[name] = m
	}
	winnersLosers := map[string]any{"winners": win.out(), "losers": loss.out(), "payoffRatio": nil}
	if sum.wins > 0 && sum.losses > 0 {
		avgWin := sum.winSum.DivRound(decimal.NewFromInt(sum.wins), 16)
		avgLoss := sum.lossSum.DivRound(decimal.NewFromInt(sum.losses), 16)
		winnersLosers["payoffRatio"] = oracleRatio(avgWin, avgLoss.Abs())
	}
	return map[string]any{"currency": name, "summary": summary,
		"byDay": ascending("day", "date", text, strings.Compare), "byWeek": ascending("week", "week", text, strings.Compare),
		"byMonth": ascending("month", "month", text, strings.Compare), "byYear": ascending("year", "year", text, strings.Compare),
		"bySymbol": bestFirst("symbol"), "byUnderlying": bestFirst("underlying"), "byTag": byTag,
		"byWeekday": ascending("weekday", "weekday", num, byNum), "byHour": ascending("hour", "hour", num, byNum),
		"byHoldTime": ascending("hold", "bucket", text, byHold), "bySide": ascending("side", "side", text, strings.Compare),
		"byAssetType": ascending("asset", "assetType", text, strings.Compare),
		"byPlaybook":  byPlaybook, "byCriterion": byCriterion, "byStrategy": byStrategy,
		"rDistribution": rDistribution, "winnersLosers": winnersLosers, "equityCurve": curve,
		"excursions": excursion, "exitAnalysis": exitAnalysis}
}

// oracleExcursions add up one kind of excursion of a block.
type oracleExcursions struct {
	values      []decimal.Decimal
	money, rSum decimal.Decimal
	rN          int64
	dist        [8]int64
}

// oracleExit is some trades' gross P&L and the money set beside it.
type oracleExit struct {
	trades        int64
	gross, beside decimal.Decimal
}

func (e *oracleExit) add(gross, beside decimal.Decimal) {
	e.trades++
	e.gross, e.beside = e.gross.Add(gross), e.beside.Add(beside)
}

// oracleRBucket is the index of r's R bucket: below -3, [-3, -2), ..., 3 and above.
func oracleRBucket(r decimal.Decimal) int {
	b := 0
	for b < 7 && r.GreaterThanOrEqual(decimal.NewFromInt(int64(b-3))) {
		b++
	}
	return b
}

func oracleRDistribution(counts []int64) []any {
	out := []any{}
	for i, n := range counts {
		var from, to any
		if i > 0 {
			from = fmt.Sprint(i - 4)
		}
		if i < 7 {
			to = fmt.Sprint(i - 3)
		}
		out = append(out, map[string]any{"from": from, "to": to, "trades": n})
	}
	return out
}

// checkReport compares the route's answer to each query with the
// oracle's over the user's journal as it is now.
func checkReport(t *testing.T, srv *apitest.Server, c *apitest.Client, userID string, now time.Time, queries ...string) {
	t.Helper()
	j := journalOf(t, srv, c, userID)
	for _, q := range queries {
		checkQuery(t, c, j, q, now)
	}
}

func checkQuery(t *testing.T, c *apitest.Client, j oracleJournal, query string, now time.Time) {
	t.Helper()
	r := c.Do("GET", "/api/performance"+query, nil)
	if r.Status != 200 {
		t.Fatalf("%s: %d %s", query, r.Status, r.Body)
	}
	var got any
	if err := json.Unmarshal(r.Body, &got); err != nil {
		t.Fatal(err)
	}
	var want any
	b, err := json.Marshal(expectedReport(t, j, query, now))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if path, g, w, ok := firstDifference("", got, want); !ok {
		t.Fatalf("GET /api/performance%s: %s is %v, the recomputation gives %v", query, path, g, w)
	}
}

// firstDifference finds the first place where two decoded JSON values
// differ.
func firstDifference(path string, got, want any) (string, any, any, bool) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return path, got, want, false
		}
		for _, k := range slices.Sorted(maps.Keys(w)) {
			if p, x, y, ok := firstDifference(path+"."+k, g[k], w[k]); !ok {
				return p, x, y, false
			}
		}
		return "", nil, nil, true
	case []any:
		g, ok := got.([]any)
		if !ok {
			return path, got, want, false
		}
		for i := range min(len(g), len(w)) {
			if p, x, y, ok := firstDifference(fmt.Sprintf("%s[%d]", path, i), g[i], w[i]); !ok {
				return p, x, y, false
			}
		}
		if len(g) != len(w) {
			return path + " length", len(g), len(w), false
		}
		return "", nil, nil, true
	}
	return path, got, want, reflect.DeepEqual(got, want)
}
