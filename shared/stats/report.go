package stats

import (
	"cmp"
	"maps"
	"math"
	"math/big"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/fx"
	"tradejournal/shared/money"
)

// Report is the body of GET /api/performance.
type Report struct {
	// DisplayCurrency is the user's display currency, or null.
	DisplayCurrency *string `json:"displayCurrency"`
	// MissingPairs lists, sorted, the pairs ("EUR/USD") without a rate in
	// force today that the total needs; the total is then null.
	MissingPairs []string `json:"missingPairs"`
	// ByCurrency has one block per account currency with closed positions
	// in the filter, alphabetically; every figure in that currency.
	ByCurrency []Block `json:"byCurrency"`
	// Total is every position converted into the display currency, or null
	// without a display currency or with a missing pair.
	Total *Block `json:"total"`
}

// Block is every figure of one currency.
type Block struct {
	Currency string        `json:"currency"`
	Summary  Summary       `json:"summary"`
	ByDay    []DayBucket   `json:"byDay"`
	ByMonth  []MonthBucket `json:"byMonth"`
	// BySymbol is empty unless asked for (GET /api/performance?bySymbol=true).
	BySymbol []SymbolBucket `json:"bySymbol"`
	// ByUnderlying groups an option or future with its underlying; a stock
	// is its own.
	ByUnderlying []SymbolBucket `json:"byUnderlying"`
	ByTag        []TagBucket    `json:"byTag"`
	EquityCurve  []Point        `json:"equityCurve"`
}

// Summary holds the headline statistics over closed positions. Money is a
// 4-place string; rates are percents of trades with 2 places; a figure that
// does not exist (no wins, no losses, no trades) is null.
type Summary struct {
	Trades            int64   `json:"trades"`
	Wins              int64   `json:"wins"`
	Losses            int64   `json:"losses"`
	Breakevens        int64   `json:"breakevens"`
	WinRate           *string `json:"winRate"`
	LossRate          *string `json:"lossRate"`
	BreakevenRate     *string `json:"breakevenRate"`
	NetPnl            string  `json:"netPnl"`
	GrossPnl          string  `json:"grossPnl"`
	Fees              string  `json:"fees"`
	GrossWins         string  `json:"grossWins"`
	GrossLosses       string  `json:"grossLosses"`
	AverageWin        *string `json:"averageWin"`
	AverageLoss       *string `json:"averageLoss"`
	ProfitFactor      *string `json:"profitFactor"`
	Expectancy        *string `json:"expectancy"`
	AverageR          *string `json:"averageR"`
	RTrades           int64   `json:"rTrades"`
	LargestWin        *string `json:"largestWin"`
	LargestLoss       *string `json:"largestLoss"`
	MaxDrawdown       string  `json:"maxDrawdown"`
	LongestWinStreak  int64   `json:"longestWinStreak"`
	LongestLossStreak int64   `json:"longestLossStreak"`
}

// Bucket is the figures of one breakdown entry.
type Bucket struct {
	Trades  int64   `json:"trades"`
	Wins    int64   `json:"wins"`
	Losses  int64   `json:"losses"`
	WinRate *string `json:"winRate"`
	NetPnl  string  `json:"netPnl"`
}

// DayBucket is one trading day: the calendar date of the close in the
// account's trading-day zone.
type DayBucket struct {
	Date string `json:"date"`
	Bucket
}

// MonthBucket is one calendar month of trading days ("2024-05").
type MonthBucket struct {
	Month string `json:"month"`
	Bucket
}

// SymbolBucket is one symbol.
type SymbolBucket struct {
	Symbol string `json:"symbol"`
	Bucket
}

// TagBucket is one tag; a position with several tags counts in each.
type TagBucket struct {
	TagID    string `json:"tagId"`
	Name     string `json:"name"`
	Category string `json:"category"`
	Bucket
}

// Point is one point of the equity curve: the cumulative net P&L after the
// position closed at ClosedAt.
type Point struct {
	ClosedAt         time.Time `json:"closedAt"`
	CumulativeNetPnl string    `json:"cumulativeNetPnl"`
}

// aggRow is one group's sums: every figure is derived from them.
type aggRow struct {
	trades, wins, losses int64
	net, gross, fees     decimal.Decimal
	winSum, lossSum      decimal.Decimal // sums of the winners' and the losers' net P&L
	hi, lo               decimal.NullDecimal
	rSum                 decimal.Decimal
	rCount               int64
}

type tagRow struct {
	currency, id, name, category string
	trades, wins, losses         int64
	net                          decimal.Decimal
}

// curvePoint is one point of an equity curve.
type curvePoint struct {
	closedAt time.Time
	cum      decimal.Decimal
}

// seriesStats are the figures of a series that depend on order.
type seriesStats struct {
	trades                int64
	maxDrawdown           decimal.Decimal
	winStreak, lossStreak int64
	curve                 []curvePoint
}

// raw is every figure folded, before assembly and formatting.
type raw struct {
	summary      map[string]aggRow               // by currency
	byDay        map[string]map[string]bucketAgg // currency, "YYYY-MM-DD"
	byMonth      map[string]map[string]bucketAgg // currency, "YYYY-MM"
	bySymbol     map[string]map[string]bucketAgg
	byUnderlying map[string]map[string]bucketAgg
	tags         []tagRow
	series       map[string]seriesStats // by currency, and "*"
}

func newRaw() raw {
	return raw{
		summary: map[string]aggRow{}, byDay: map[string]map[string]bucketAgg{}, byMonth: map[string]map[string]bucketAgg{},
		bySymbol: map[string]map[string]bucketAgg{}, byUnderlying: map[string]map[string]bucketAgg{}, series: map[string]seriesStats{},
	}
}

// totalSeries is the series name of the converted total.
const totalSeries = "*"

// build turns the aggregates into the report: one block per currency, and
// the total in display (converted with factors, the spot factors of the
// currencies that have a rate) when display is set and every currency
// present has a factor. Sums convert exactly (a sum of converted amounts is
// the converted sum); only the order-dependent figures (drawdown, streaks,
// the curve) need the per-position "*" series.
func build(r raw, display string, factors map[string]decimal.Decimal) Report {
	rep := Report{MissingPairs: []string{}, ByCurrency: []Block{}}
	currencies := slices.Sorted(maps.Keys(r.summary))
	total := display != ""
	if total {
		rep.DisplayCurrency = &display
		for _, c := range currencies {
			if _, ok := factors[c]; !ok {
				rep.MissingPairs = append(rep.MissingPairs, fx.Pair(c, display))
			}
		}
		total = len(rep.MissingPairs) == 0
	}
	// The blocks only read r: each is assembled on its own goroutine.
	rep.ByCurrency = make([]Block, len(currencies))
	var wg sync.WaitGroup
	for i, c := range currencies {
		wg.Go(func() {
			rep.ByCurrency[i] = block(c, r, []string{c}, func(string) decimal.Decimal { return one }, c)
		})
	}
	if total {
		wg.Go(func() {
			b := block(display, r, currencies, func(c string) decimal.Decimal { return factors[c] }, totalSeries)
			rep.Total = &b
		})
	}
	wg.Wait()
	return rep
}

// block assembles the figures of the currencies of from, each scaled by
// factor, as one block named name; series names the ordered series. The
// breakdowns show counts and net P&L only, so only those are added up; an
// amount is multiplied only when its factor is not 1.
func block(name string, r raw, from []string, factor func(string) decimal.Decimal, series string) Block {
	var sum aggRow
	var days, months, symbols, underlyings int
	for _, c := range from {
		days, months = max(days, len(r.byDay[c])), max(months, len(r.byMonth[c]))
		symbols, underlyings = symbols+len(r.bySymbol[c]), underlyings+len(r.byUnderlying[c])
	}
	day, month := make(map[string]bucketAgg, days), make(map[string]bucketAgg, months)
	symbol, underlying := make(map[string]bucketAgg, symbols), make(map[string]bucketAgg, underlyings)
	// One currency at its own value: its breakdowns as they are (they are
	// only read, here and by the total's block at the same time).
	direct := len(from) == 1 && factor(from[0]).Equal(one)
	if direct {
		c := from[0]
		day, month, symbol, underlying = r.byDay[c], r.byMonth[c], r.bySymbol[c], r.byUnderlying[c]
	}
	tags := map[string]tagAgg{}
	for _, c := range from {
		f := factor(c)
		unit := f.Equal(one)
		sum = merge(sum, scale(r.summary[c], f))
		if !direct {
			for _, m := range []struct{ dst, src map[string]bucketAgg }{{day, r.byDay[c]}, {month, r.byMonth[c]},
				{symbol, r.bySymbol[c]}, {underlying, r.byUnderlying[c]}} {
				addScaled(m.dst, m.src, f, unit)
			}
		}
		for _, t := range r.tags {
			if t.currency != c {
				continue
			}
			net := t.net
			if !unit {
				net = net.Mul(f)
			}
			acc := tags[t.id]
			acc.id, acc.name, acc.category = t.id, t.name, t.category
			acc.bucketAgg = acc.add(t.trades, t.wins, t.losses, net)
			tags[t.id] = acc
		}
	}
	b := Block{
		Currency: name,
		Summary:  summary(sum, r.series[series]),
		ByDay:    make([]DayBucket, 0, len(day)), ByMonth: make([]MonthBucket, 0, len(month)),
		BySymbol: bestFirst(symbol), ByUnderlying: bestFirst(underlying), ByTag: make([]TagBucket, 0, len(tags)),
		EquityCurve: make([]Point, 0, len(r.series[series].curve)),
	}
	for _, k := range slices.Sorted(maps.Keys(day)) {
		b.ByDay = append(b.ByDay, DayBucket{Date: k, Bucket: day[k].bucket()})
	}
	for _, k := range slices.Sorted(maps.Keys(month)) {
		b.ByMonth = append(b.ByMonth, MonthBucket{Month: k, Bucket: month[k].bucket()})
	}
	// The breakdown by tag: best net P&L first.
	ts := make([]tagAgg, 0, len(tags))
	for _, t := range tags {
		t.approx = approx(t.net)
		ts = append(ts, t)
	}
	slices.SortFunc(ts, func(x, y tagAgg) int {
		return cmp.Or(y.cmpNet(&x.bucketAgg), cmp.Compare(x.name, y.name), cmp.Compare(x.id, y.id))
	})
	for _, t := range ts {
		b.ByTag = append(b.ByTag, TagBucket{TagID: t.id, Name: t.name, Category: t.category, Bucket: t.bucket()})
	}
	for _, p := range r.series[series].curve {
		b.EquityCurve = append(b.EquityCurve, Point{ClosedAt: p.closedAt.UTC(), CumulativeNetPnl: amount(p.cum)})
	}
	return b
}

// bestFirst is a breakdown by symbol in order: best net P&L first. The
// entries are sorted as small keys (the float of net P&L and an index),
// the exact comparison only where floats cannot tell two apart.
func bestFirst(symbol map[string]bucketAgg) []SymbolBucket {
	type symbolKey struct {
		approx float64
		i      int32
	}
	names, aggs := make([]string, 0, len(symbol)), make([]bucketAgg, 0, len(symbol))
	keys := make([]symbolKey, 0, len(symbol))
	for k, a := range symbol {
		a.approx = approx(a.net)
		keys = append(keys, symbolKey{a.approx, int32(len(aggs))})
		names, aggs = append(names, k), append(aggs, a)
	}
	slices.SortFunc(keys, func(x, y symbolKey) int {
		return cmp.Or(aggs[y.i].cmpNet(&aggs[x.i]), cmp.Compare(names[x.i], names[y.i]))
	})
	out := make([]SymbolBucket, 0, len(keys))
	for _, k := range keys {
		out = append(out, SymbolBucket{Symbol: names[k.i], Bucket: aggs[k.i].bucket()})
	}
	return out
}

var one = decimal.NewFromInt(1)

// addScaled adds the entries of src, their net P&L times f (unless unit),
// into dst.
func addScaled(dst, src map[string]bucketAgg, f decimal.Decimal, unit bool) {
	for k, a := range src {
		net := a.net
		if !unit {
			net = net.Mul(f)
		}
		dst[k] = dst[k].add(a.trades, a.wins, a.losses, net)
	}
}

// bucketAgg is one breakdown entry being added up. approx, set before
// sorting, is net as a float: it orders entries without exact arithmetic
// wherever the floats tell them apart.
type bucketAgg struct {
	trades, wins, losses int64
	net                  decimal.Decimal
	approx               float64
}

func (a bucketAgg) add(trades, wins, losses int64, net decimal.Decimal) bucketAgg {
	a.net = a.net.Add(net)
	a.trades, a.wins, a.losses = a.trades+trades, a.wins+wins, a.losses+losses
	return a
}

// approx is d as a float64 within a relative 1e-15, from its coefficient
// and exponent (decimal's own conversion goes through big.Rat, which costs
// more than the rest of the sort).
func approx(d decimal.Decimal) float64 {
	exp := int(d.Exponent())
	switch {
	case exp < -300 || exp > 300:
		return d.InexactFloat64()
	case d.NumDigits() <= 18:
		return float64(d.CoefficientInt64()) * math.Pow10(exp)
	}
	c, _ := new(big.Float).SetInt(d.Coefficient()).Float64()
	return c * math.Pow10(exp)
}

// cmpNet compares the net P&L of a and b: by their floats when those
// differ by more than any rounding of the conversion could (a relative
// 1e-12), exactly otherwise.
func (a *bucketAgg) cmpNet(b *bucketAgg) int {
	if d := a.approx - b.approx; math.Abs(d) > 1e-12*max(math.Abs(a.approx), math.Abs(b.approx)) {
		return cmp.Compare(a.approx, b.approx)
	}
	return a.net.Cmp(b.net)
}

func (a bucketAgg) bucket() Bucket { return bucket(a.trades, a.wins, a.losses, a.net) }

type tagAgg struct {
	id, name, category string
	bucketAgg
}

// scale converts the money of a by factor f (> 0, so the largest net P&L
// stays the largest).
func scale(a aggRow, f decimal.Decimal) aggRow {
	a.net, a.gross, a.fees = a.net.Mul(f), a.gross.Mul(f), a.fees.Mul(f)
	a.winSum, a.lossSum = a.winSum.Mul(f), a.lossSum.Mul(f)
	if a.hi.Valid {
		a.hi.Decimal = a.hi.Decimal.Mul(f)
	}
	if a.lo.Valid {
		a.lo.Decimal = a.lo.Decimal.Mul(f)
	}
	return a
}

// merge adds two groups: counts and sums add, the extremes are kept.
func merge(a, b aggRow) aggRow {
	out := aggRow{
		trades: a.trades + b.trades, wins: a.wins + b.wins, losses: a.losses + b.losses,
		net: a.net.Add(b.net), gross: a.gross.Add(b.gross), fees: a.fees.Add(b.fees),
		winSum: a.winSum.Add(b.winSum), lossSum: a.lossSum.Add(b.lossSum),
		rSum: a.rSum.Add(b.rSum), rCount: a.rCount + b.rCount,
		hi: a.hi, lo: a.lo,
	}
	if b.hi.Valid && (!out.hi.Valid || b.hi.Decimal.GreaterThan(out.hi.Decimal)) {
		out.hi = b.hi
	}
	if b.lo.Valid && (!out.lo.Valid || b.lo.Decimal.LessThan(out.lo.Decimal)) {
		out.lo = b.lo
	}
	return out
}

// summary derives the headline figures from a group's sums:
//   - win, loss and breakeven rate: wins, losses, breakevens (net == 0) as
//     a percent of trades;
//   - average win and loss: the winners' (losers') net P&L over their count;
//   - profit factor: the winners' net P&L over the absolute losers' net
//     P&L, null without a loss;
//   - expectancy: net P&L per trade;
//   - average R over the positions that have an R multiple (rTrades).
func summary(a aggRow, s seriesStats) Summary {
	breakevens := a.trades - a.wins - a.losses
	out := Summary{
		Trades: a.trades, Wins: a.wins, Losses: a.losses, Breakevens: breakevens,
		WinRate: percent(a.wins, a.trades), LossRate: percent(a.losses, a.trades), BreakevenRate: percent(breakevens, a.trades),
		NetPnl: amount(a.net), GrossPnl: amount(a.gross), Fees: amount(a.fees),
		GrossWins: amount(a.winSum), GrossLosses: amount(a.lossSum),
		AverageWin: ratio(a.winSum, decimal.NewFromInt(a.wins)), AverageLoss: ratio(a.lossSum, decimal.NewFromInt(a.losses)),
		Expectancy: ratio(a.net, decimal.NewFromInt(a.trades)),
		AverageR:   ratio(a.rSum, decimal.NewFromInt(a.rCount)), RTrades: a.rCount,
		MaxDrawdown:      amount(s.maxDrawdown),
		LongestWinStreak: s.winStreak, LongestLossStreak: s.lossStreak,
	}
	if a.losses > 0 {
		out.ProfitFactor = ratio(a.winSum, a.lossSum.Abs())
	}
	if a.hi.Valid && a.hi.Decimal.Sign() > 0 {
		v := amount(a.hi.Decimal)
		out.LargestWin = &v
	}
	if a.lo.Valid && a.lo.Decimal.Sign() < 0 {
		v := amount(a.lo.Decimal)
		out.LargestLoss = &v
	}
	return out
}

func bucket(trades, wins, losses int64, net decimal.Decimal) Bucket {
	return Bucket{Trades: trades, Wins: wins, Losses: losses, WinRate: percent(wins, trades), NetPnl: amount(net)}
}

// amount is a money figure: 4 places, half away from zero.
func amount(d decimal.Decimal) string { return money.RoundN(d, fx.Places) }

// ratio is n/d to 4 places, or nil when d is zero.
func ratio(n, d decimal.Decimal) *string {
	if d.IsZero() {
		return nil
	}
	s := money.RoundN(n.DivRound(d, fx.Places), fx.Places)
	return &s
}

// percent is 100 n/d to 2 places, rounded half up, or nil when d is zero
// (0 <= n <= d: counts of trades).
func percent(n, d int64) *string {
	if d == 0 {
		return nil
	}
	hundredths := (2*n*10000 + d) / (2 * d)
	frac := hundredths % 100
	s := strconv.FormatInt(hundredths/100, 10) + "." + string(rune('0'+frac/10)) + string(rune('0'+frac%10))
	return &s
}
