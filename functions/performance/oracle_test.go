package performance_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"reflect"
	"slices"
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
	net, gross, fees                            decimal.Decimal
	r                                           *decimal.Decimal
	tags                                        []string
}

type oracleTag struct{ id, name, category string }

// oracleJournal is what a report is computed from.
type oracleJournal struct {
	positions []oraclePos
	tags      map[string]oracleTag
	rates     []fx.Rate
	display   string
	zone      string // the user's reporting zone
}

// journalOf reads a user's positions, tags, rates, display currency and
// reporting zone.
func journalOf(t *testing.T, srv *apitest.Server, userID string) oracleJournal {
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
			coalesce(p.underlying, p.symbol), p.side, p.asset_type, coalesce(p.opened_at, 'epoch'),
			coalesce(p.closed_at, 'epoch'), p.net_pnl, p.gross_pnl, p.fees, p.r_multiple,
			array(SELECT pt.tag_id::text FROM position_tags pt WHERE pt.position_id = p.id)
		FROM positions p JOIN accounts a ON a.id = p.account_id WHERE p.user_id = $1`, userID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var p oraclePos
		if err := rows.Scan(&p.id, &p.account, &p.currency, &p.zone, &p.symbol, &p.status, &p.underlying, &p.side, &p.assetType,
			&p.openedAt, &p.closedAt,
			&p.net, &p.gross, &p.fees, &p.r, &p.tags); err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	tags = map[string]oracleTag{}
	rows, _ = srv.App.DB.Query(ctx, `SELECT id::text, name, category FROM tags WHERE user_id = $1`, userID)
	for rows.Next() {
		var g oracleTag
		if err := rows.Scan(&g.id, &g.name, &g.category); err != nil {
			t.Fatal(err)
		}
		tags[g.id] = g
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
	return oracleJournal{ps, tags, rates, display, zone}
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
		anyOf("side", func(v string) bool { return v == p.side }) &&
		anyOf("assetType", func(v string) bool { return v == p.assetType }) &&
		anyOf("weekday", func(v string) bool { return v == fmt.Sprint(weekday) }) &&
		anyOf("hour", func(v string) bool { return v == fmt.Sprint(entry.Hour()) }) &&
		(q.Get("status") == "" || q.Get("status") == p.status) &&
		(q.Get("from") == "" || day >= q.Get("from")) && (q.Get("to") == "" || day <= q.Get("to"))
}

var zones sync.Map // zone name to *time.Location

// expectedReport is the response the route must give for query.
func expectedReport(t *testing.T, j oracleJournal, query string, now time.Time) map[string]any {
	t.Helper()
	ps, tags, rates, display, zone := j.positions, j.tags, j.rates, j.display, j.zone
	q, _ := url.ParseQuery(strings.TrimPrefix(query, "?"))
	var in []oraclePos
	for _, p := range ps {
		if p.status == "closed" && inFilter(t, q, p) {
			in = append(in, p)
		}
	}
	// Close order: closed_at, then id (PostgreSQL orders uuids as their
	// lowercase text does).
	slices.SortFunc(in, func(a, b oraclePos) int {
		return cmp.Or(a.closedAt.Compare(b.closedAt), strings.Compare(a.id, b.id))
	})
	byCurrency := map[string][]oraclePos{}
	for _, p := range in {
		byCurrency[p.currency] = append(byCurrency[p.currency], p)
	}
	one := decimal.NewFromInt(1)
	blocks := []any{}
	for _, c := range slices.Sorted(maps.Keys(byCurrency)) {
		blocks = append(blocks, expectedBlock(t, c, byCurrency[c], tags, func(string) decimal.Decimal { return one }))
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
		out["total"] = expectedBlock(t, display, in, tags, func(c string) decimal.Decimal { return factors[c] })
	}
	return out
}

type oracleBucket struct {
	trades, wins, losses int64
	net                  decimal.Decimal
}

func (b *oracleBucket) add(v decimal.Decimal) {
	b.trades++
	b.net = b.net.Add(v)
	if v.IsPositive() {
		b.wins++
	} else if v.IsNegative() {
		b.losses++
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

// expectedBlock is the block of ps (in close order), each amount
// multiplied by factor(its currency).
func expectedBlock(t *testing.T, name string, ps []oraclePos, tags map[string]oracleTag, factor func(string) decimal.Decimal) map[string]any {
	var (
		sum                                oracleBucket
		gross, fees, winSum, lossSum, rSum decimal.Decimal
		rCount                             int64
		largest, smallest                  *decimal.Decimal
		cum, peak, maxDD                   decimal.Decimal
		winRun, lossRun, winBest, lossBest int64
		days, months, symbols, tagBuckets  = map[string]*oracleBucket{}, map[string]*oracleBucket{}, map[string]*oracleBucket{}, map[string]*oracleBucket{}
		underlyings                        = map[string]*oracleBucket{}
		curve                              = []any{}
	)
	bucketOf := func(m map[string]*oracleBucket, k string) *oracleBucket {
		if m[k] == nil {
			m[k] = &oracleBucket{}
		}
		return m[k]
	}
	k := max(1, (len(ps)+999)/1000)
	for i, p := range ps {
		f := factor(p.currency)
		v := p.net.Mul(f)
		sum.add(v)
		gross, fees = gross.Add(p.gross.Mul(f)), fees.Add(p.fees.Mul(f))
		if v.IsPositive() {
			winSum = winSum.Add(v)
		}
		if v.IsNegative() {
			lossSum = lossSum.Add(v)
		}
		if p.r != nil {
			rSum, rCount = rSum.Add(*p.r), rCount+1
		}
		if largest == nil || v.GreaterThan(*largest) {
			largest = &v
		}
		if smallest == nil || v.LessThan(*smallest) {
			smallest = &v
		}
		day := tradingDay(t, p)
		bucketOf(days, day).add(v)
		bucketOf(months, day[:7]).add(v)
		bucketOf(symbols, p.symbol).add(v)
		bucketOf(underlyings, p.underlying).add(v)
		for _, g := range p.tags {
			if _, ok := tags[g]; ok {
				bucketOf(tagBuckets, g).add(v)
			}
		}
		cum = cum.Add(v)
		peak = decimal.Max(peak, cum)
		maxDD = decimal.Max(maxDD, peak.Sub(cum))
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
			at, _ := json.Marshal(p.closedAt.UTC())
			curve = append(curve, map[string]any{"closedAt": strings.Trim(string(at), `"`), "cumulativeNetPnl": cum.StringFixed(4)})
		}
	}
	summary := map[string]any{
		"trades": sum.trades, "wins": sum.wins, "losses": sum.losses, "breakevens": sum.trades - sum.wins - sum.losses,
		"winRate": oraclePercent(sum.wins, sum.trades), "lossRate": oraclePercent(sum.losses, sum.trades),
		"breakevenRate": oraclePercent(sum.trades-sum.wins-sum.losses, sum.trades),
		"netPnl":        sum.net.StringFixed(4), "grossPnl": gross.StringFixed(4), "fees": fees.StringFixed(4),
		"grossWins": winSum.StringFixed(4), "grossLosses": lossSum.StringFixed(4),
		"averageWin": oracleRatio(winSum, decimal.NewFromInt(sum.wins)), "averageLoss": oracleRatio(lossSum, decimal.NewFromInt(sum.losses)),
		"profitFactor": nil, "expectancy": oracleRatio(sum.net, decimal.NewFromInt(sum.trades)),
		"averageR": oracleRatio(rSum, decimal.NewFromInt(rCount)), "rTrades": rCount,
		"largestWin": nil, "largestLoss": nil, "maxDrawdown": maxDD.StringFixed(4),
		"longestWinStreak": winBest, "longestLossStreak": lossBest,
	}
	if sum.losses > 0 {
		summary["profitFactor"] = oracleRatio(winSum, lossSum.Abs())
	}
	if largest != nil && largest.IsPositive() {
		summary["largestWin"] = largest.StringFixed(4)
	}
	if smallest != nil && smallest.IsNegative() {
		summary["largestLoss"] = smallest.StringFixed(4)
	}
	byDay, byMonth := []any{}, []any{}
	for _, d := range slices.Sorted(maps.Keys(days)) {
		byDay = append(byDay, days[d].fields(map[string]any{"date": d}))
	}
	for _, m := range slices.Sorted(maps.Keys(months)) {
		byMonth = append(byMonth, months[m].fields(map[string]any{"month": m}))
	}
	// Best net P&L first; ties by symbol, or by tag name then id.
	bestFirst := func(symbols map[string]*oracleBucket) []any {
		syms := slices.SortedFunc(maps.Keys(symbols), func(a, b string) int {
			return cmp.Or(symbols[b].net.Cmp(symbols[a].net), strings.Compare(a, b))
		})
		out := []any{}
		for _, s := range syms {
			out = append(out, symbols[s].fields(map[string]any{"symbol": s}))
		}
		return out
	}
	ids := slices.SortedFunc(maps.Keys(tagBuckets), func(a, b string) int {
		return cmp.Or(tagBuckets[b].net.Cmp(tagBuckets[a].net), strings.Compare(tags[a].name, tags[b].name), strings.Compare(a, b))
	})
	byTag := []any{}
	for _, id := range ids {
		byTag = append(byTag, tagBuckets[id].fields(map[string]any{"tagId": id, "name": tags[id].name, "category": tags[id].category}))
	}
	return map[string]any{"currency": name, "summary": summary, "byDay": byDay, "byMonth": byMonth,
		"bySymbol": bestFirst(symbols), "byUnderlying": bestFirst(underlyings), "byTag": byTag, "equityCurve": curve}
}

// checkReport compares the route's answer to each query with the
// oracle's over the user's journal as it is now.
func checkReport(t *testing.T, srv *apitest.Server, c *apitest.Client, userID string, now time.Time, queries ...string) {
	t.Helper()
	j := journalOf(t, srv, userID)
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
