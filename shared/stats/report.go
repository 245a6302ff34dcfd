package stats

import (
	"cmp"
	"maps"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
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
	Currency string         `json:"currency"`
	Summary  Summary        `json:"summary"`
	ByDay    []DayBucket    `json:"byDay"`
	ByWeek   []WeekBucket   `json:"byWeek"`
	ByMonth  []MonthBucket  `json:"byMonth"`
	ByYear   []YearBucket   `json:"byYear"`
	BySymbol []SymbolBucket `json:"bySymbol"` // empty unless asked for
	// ByUnderlying groups an option or future with its underlying; a stock
	// is its own.
	ByUnderlying []SymbolBucket    `json:"byUnderlying"`
	ByTag        []TagBucket       `json:"byTag"`
	ByWeekday    []WeekdayBucket   `json:"byWeekday"`
	ByHour       []HourBucket      `json:"byHour"`
	ByHoldTime   []HoldTimeBucket  `json:"byHoldTime"`
	BySide       []SideBucket      `json:"bySide"`
	ByAssetType  []AssetTypeBucket `json:"byAssetType"`
	ByPlaybook   []PlaybookBucket  `json:"byPlaybook"`
	ByCriterion  []CriterionBucket `json:"byCriterion"`
	// ByStrategy is by what a strategy is (its structure's kind: vertical,
	// iron-condor, ...; each strategy one trade), with the positions in no
	// strategy under a null kind.
	ByStrategy    []StrategyBucket `json:"byStrategy"`
	RDistribution []RBucket        `json:"rDistribution"`
	WinnersLosers WinnersLosers    `json:"winnersLosers"`
	EquityCurve   []Point          `json:"equityCurve"`
	Excursions    Excursions       `json:"excursions"`
	ExitAnalysis  ExitAnalysis     `json:"exitAnalysis"`
}

// Excursions are the maximum adverse (MAE) and favourable (MFE)
// excursions of the trades that have one: typed, else measured from price
// bars to the trade's close. A forex, crypto or CFD trade (priced in a
// currency apart from its account's) counts at its first entry's rate,
// and not without one; a strategy has none here.
type Excursions struct {
	MAE ExcursionStats `json:"mae"`
	MFE ExcursionStats `json:"mfe"`
}

// ExcursionStats are one kind of excursion over the trades with one: the
// money at the excursion's price (the move from the average entry x entry
// quantity x multiplier, negative against the trade; 4 places each), its
// average and its percentiles, and its R (the money over the trade's
// initial risk, 2 places each), over the trades with an initial risk.
type ExcursionStats struct {
	Trades        int64       `json:"trades"`
	AverageMoney  *string     `json:"averageMoney"`
	Percentiles   Percentiles `json:"percentiles"`
	RTrades       int64       `json:"rTrades"`
	AverageR      *string     `json:"averageR"`
	RDistribution []RBucket   `json:"rDistribution"`
}

// Percentiles of some money, nearest rank: the p-th is the value at rank
// ceil(p/100 x n) of the n values in ascending order; null without values.
type Percentiles struct {
	P10 *string `json:"p10"`
	P25 *string `json:"p25"`
	P50 *string `json:"p50"`
	P75 *string `json:"p75"`
	P90 *string `json:"p90"`
}

// ExitAnalysis is how the trades' exits compare with what the price
// offered. Every P&L here is gross (before fees), as the excursions are.
type ExitAnalysis struct {
	// MFEKept is the trades with an MFE: their gross P&L beside their MFE's
	// money, and the share of it they kept (100 x gross P&L / MFE money, a
	// percent with 2 places; null when the MFE money adds up to 0).
	MFEKept MFEKept `json:"mfeKept"`
	// HoldToTarget is the trades whose price bars reached the target
	// before the stop: their gross P&L beside what an exit at the target
	// would have made. HoldToStop is those whose bars reached the stop
	// first, beside what an exit at the stop would have made.
	HoldToTarget HeldTo `json:"holdToTarget"`
	HoldToStop   HeldTo `json:"holdToStop"`
}

// MFEKept is MFE kept over the trades with an MFE.
type MFEKept struct {
	Trades   int64   `json:"trades"`
	GrossPnl string  `json:"grossPnl"`
	Mfe      string  `json:"mfe"`
	Share    *string `json:"share"`
}

// HeldTo is the trades that reached a level first: their gross P&L and the
// money an exit at that level would have made.
type HeldTo struct {
	Trades   int64  `json:"trades"`
	GrossPnl string `json:"grossPnl"`
	AtLevel  string `json:"atLevel"`
}

// Summary holds the headline statistics over closed positions. Money is a
// 4-place string; rates are percents of trades with 2 places; a figure that
// does not exist (no wins, no losses, no trades) is null.
type Summary struct {
	Trades        int64   `json:"trades"`
	Wins          int64   `json:"wins"`
	Losses        int64   `json:"losses"`
	Breakevens    int64   `json:"breakevens"`
	WinRate       *string `json:"winRate"`
	LossRate      *string `json:"lossRate"`
	BreakevenRate *string `json:"breakevenRate"`
	NetPnl        string  `json:"netPnl"`
	GrossPnl      string  `json:"grossPnl"`
	Fees          string  `json:"fees"`
	GrossWins     string  `json:"grossWins"`
	GrossLosses   string  `json:"grossLosses"`
	AverageWin    *string `json:"averageWin"`
	AverageLoss   *string `json:"averageLoss"`
	ProfitFactor  *string `json:"profitFactor"`
	Expectancy    *string `json:"expectancy"`
	AverageR      *string `json:"averageR"`
	RTrades       int64   `json:"rTrades"`
	SQN           *string `json:"sqn"`
	LargestWin    *string `json:"largestWin"`
	LargestLoss   *string `json:"largestLoss"`
	MaxDrawdown   string  `json:"maxDrawdown"`
	// The largest drawdown's peak (null: the starting 0), trough, and the
	// first close back at the peak (null: not yet).
	MaxDrawdownStart     *time.Time `json:"maxDrawdownStart"`
	MaxDrawdownEnd       *time.Time `json:"maxDrawdownEnd"`
	MaxDrawdownRecovered *time.Time `json:"maxDrawdownRecovered"`
	LongestWinStreak     int64      `json:"longestWinStreak"`
	LongestLossStreak    int64      `json:"longestLossStreak"`
}

// Bucket is the figures of one calendar day.
type Bucket struct {
	Trades  int64   `json:"trades"`
	Wins    int64   `json:"wins"`
	Losses  int64   `json:"losses"`
	WinRate *string `json:"winRate"`
	NetPnl  string  `json:"netPnl"`
}

// Breakdown is the figures of one entry of a breakdown: a day's, and the
// average R over the entry's positions with one (RTrades) and the profit
// factor.
type Breakdown struct {
	Bucket
	AverageR     *string `json:"averageR"`
	RTrades      int64   `json:"rTrades"`
	ProfitFactor *string `json:"profitFactor"`
}

// DayBucket is one trading day: the calendar date of the close in the
// account's trading-day zone.
type DayBucket struct {
	Date string `json:"date"`
	Bucket
}

// WeekBucket is one ISO week of trading days ("2024-W05").
type WeekBucket struct {
	Week string `json:"week"`
	Breakdown
}

// MonthBucket is one calendar month of trading days ("2024-05").
type MonthBucket struct {
	Month string `json:"month"`
	Breakdown
}

// YearBucket is one year of trading days ("2024").
type YearBucket struct {
	Year string `json:"year"`
	Breakdown
}

// SymbolBucket is one symbol, or one underlying.
type SymbolBucket struct {
	Symbol string `json:"symbol"`
	Breakdown
}

// TagBucket is one tag; a position with several tags counts in each.
type TagBucket struct {
	TagID    string `json:"tagId"`
	Name     string `json:"name"`
	Category string `json:"category"`
	Breakdown
}

// WeekdayBucket is the positions entered on one ISO weekday (1 Monday)
// in their account's zone.
type WeekdayBucket struct {
	Weekday int `json:"weekday"`
	Breakdown
}

// HourBucket is the positions entered in one hour (0 to 23) of the day in
// their account's zone.
type HourBucket struct {
	Hour int `json:"hour"`
	Breakdown
}

// HoldTimeBucket is the positions held for a time in one range (from
// entry to close): lt1m, 1m-5m, 5m-15m, 15m-1h, 1h-4h, 4h-1d, 1d-1w, gte1w.
type HoldTimeBucket struct {
	Bucket string `json:"bucket"`
	Breakdown
}

// SideBucket is the long, or the short, positions.
type SideBucket struct {
	Side string `json:"side"`
	Breakdown
}

// AssetTypeBucket is the positions of one asset type.
type AssetTypeBucket struct {
	AssetType string `json:"assetType"`
	Breakdown
}

// PlaybookBucket is the positions that followed one playbook, or (a null
// PlaybookID, an empty Name) no playbook.
type PlaybookBucket struct {
	PlaybookID *string `json:"playbookId"`
	Name       string  `json:"name"`
	Breakdown
}

// StrategyBucket is one kind of strategy (journal.StrategyName), or null
// for the positions in no strategy.
type StrategyBucket struct {
	Strategy *string `json:"strategy"`
	Breakdown
}

// CriterionBucket sets, among the positions that followed a criterion's
// playbook, those that met the criterion beside those that missed it.
type CriterionBucket struct {
	CriterionID string    `json:"criterionId"`
	Text        string    `json:"text"`
	PlaybookID  string    `json:"playbookId"`
	Playbook    string    `json:"playbook"` // the playbook's name
	Met         Breakdown `json:"met"`
	Missed      Breakdown `json:"missed"`
}

// RBucket counts the positions whose R multiple is in [From, To) (null:
// unbounded).
type RBucket struct {
	From   *string `json:"from"`
	To     *string `json:"to"`
	Trades int64   `json:"trades"`
}

// WinnersLosers sets the winners beside the losers.
type WinnersLosers struct {
	Winners Sizes `json:"winners"`
	Losers  Sizes `json:"losers"`
	// PayoffRatio is the average win over the absolute average loss.
	PayoffRatio *string `json:"payoffRatio"`
}

// Sizes are the averages of a group of positions (null without one): how
// long they were held, their entry quantity and its cost (approximate).
type Sizes struct {
	Trades             int64   `json:"trades"`
	AverageHoldSeconds *int64  `json:"averageHoldSeconds"`
	AverageQuantity    *string `json:"averageQuantity"`
	AverageNotional    *string `json:"averageNotional"`
}

// Point is one point of the equity curve: the cumulative net P&L after the
// position closed at ClosedAt, the Trade-th close (1 for the first: a
// curve drawn by trade number), and the deepest drawdown (<= 0, below the
// running peak) since the point before.
type Point struct {
	ClosedAt         time.Time `json:"closedAt"`
	Trade            int64     `json:"trade"`
	CumulativeNetPnl string    `json:"cumulativeNetPnl"`
	Drawdown         string    `json:"drawdown"`
}

// aggRow is one currency's summary sums: every headline figure is derived
// from them.
type aggRow struct {
	bucketAgg
	gross, fees decimal.Decimal
	hi, lo      decimal.NullDecimal
	rSq         float64 // squared R multiples, for the SQN
}

// curvePoint is one point of an equity curve.
type curvePoint struct {
	closedAt      time.Time
	trade         int64
	cum, drawdown decimal.Decimal
}

// seriesStats are the figures of a series that depend on order.
type seriesStats struct {
	trades                      int64
	maxDrawdown                 decimal.Decimal
	ddStart, ddEnd, ddRecovered *time.Time
	winStreak, lossStreak       int64
	curve                       []curvePoint
}

// The breakdowns, by kind: each maps its entries' keys to their sums.
const (
	kindDay = iota
	kindWeek
	kindMonth
	kindYear
	kindSymbol
	kindUnderlying
	kindTag
	kindWeekday
	kindHour
	kindHold
	kindSide
	kindAsset
	kindPlaybook // keyed by playbook id, "" for none
	kindMet      // keyed by criterion id
	kindMissed
	kindStrategy // keyed by the strategy engine's kind, "" for a position in no strategy
	kinds
)

// currencyRaw is one currency's figures, folded, before assembly.
type currencyRaw struct {
	summary    aggRow
	breakdowns [kinds]map[string]bucketAgg
	tags       map[string]tag // by id, for the tag breakdown's names
	rBuckets   [len(rBounds) + 1]int64
	winners    sizes
	losers     sizes
	mae, mfe   excursionRaw
	exits      [3]exitRaw // kept, target, stop
}

// excursionRaw is excursionSums in decimals, its values sorted.
type excursionRaw struct {
	money, rSum decimal.Decimal
	values      []int64 // ten-thousandths, ascending
	rCount      int64
	rBuckets    [len(rBounds) + 1]int64
}

func excursionRawOf(e *excursionSums) excursionRaw {
	slices.Sort(e.values)
	return excursionRaw{money: e.money.decimal(), rSum: e.rSum.decimal(), values: e.values, rCount: e.rCount, rBuckets: e.rBuckets}
}

// exitRaw is an exitGroup in decimals.
type exitRaw struct {
	trades        int64
	gross, beside decimal.Decimal
}

func exitRawOf(g *exitGroup) exitRaw {
	return exitRaw{trades: g.trades, gross: g.gross.decimal(), beside: g.beside.decimal()}
}

// raw is every figure folded, before assembly and formatting.
type raw struct {
	currencies map[string]*currencyRaw
	series     map[string]seriesStats // by currency, and "*"
	playbooks  []playbook             // the user's, for the breakdowns' names
	criteria   []criterion
}

func newRaw() raw {
	return raw{currencies: map[string]*currencyRaw{}, series: map[string]seriesStats{}}
}

// totalSeries is the series name of the converted total.
const totalSeries = "*"

// build turns the aggregates into the report: one block per currency, and
// the total in display (converted with factors, the spot factors of the
// currencies that have a rate) when display is set and every currency
// present has a factor. Sums convert exactly (a sum of converted amounts is
// the converted sum); only the order-dependent figures (drawdown, streaks,
// the curve) need the per-position "*" series. R multiples are no money:
// they are never converted.
func build(r raw, display string, factors map[string]decimal.Decimal) Report {
	rep := Report{MissingPairs: []string{}, ByCurrency: []Block{}}
	currencies := slices.Sorted(maps.Keys(r.currencies))
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
	rep.ByCurrency = make([]Block, len(currencies))
	for i, c := range currencies {
		rep.ByCurrency[i] = block(c, r, []string{c}, func(string) decimal.Decimal { return one }, c)
	}
	if total {
		b := block(display, r, currencies, func(c string) decimal.Decimal { return factors[c] }, totalSeries)
		rep.Total = &b
	}
	return rep
}

// block assembles the figures of the currencies of from, each scaled by
// factor, as one block named name; series names the ordered series. An
// amount is multiplied only when its factor is not 1.
func block(name string, r raw, from []string, factor func(string) decimal.Decimal, series string) Block {
	var (
		sum       aggRow
		merged    [kinds]map[string]bucketAgg
		tags      = map[string]tag{}
		rBuckets  [len(rBounds) + 1]int64
		win, loss sizes
		exits     [3]exitRaw
		excursion [2]excursionRaw // mae, mfe: the money scaled, values not kept
		values    [2][]scaled     // each currency's values, for the percentiles
	)
	// One currency at its own value: its breakdowns as they are (only
	// read, here and by the total's block).
	direct := len(from) == 1 && factor(from[0]).Equal(one)
	for k := range merged {
		if direct {
			merged[k] = r.currencies[from[0]].breakdowns[k]
		} else {
			merged[k] = map[string]bucketAgg{}
		}
	}
	for _, c := range from {
		cr := r.currencies[c]
		f := factor(c)
		unit := f.Equal(one)
		sum = sum.merge(cr.summary.scale(f, unit))
		if !direct {
			for k := range merged {
				for key, a := range cr.breakdowns[k] {
					merged[k][key] = merged[k][key].merge(a.scale(f, unit))
				}
			}
		}
		maps.Copy(tags, cr.tags)
		for i, n := range cr.rBuckets {
			rBuckets[i] += n
		}
		fl := f.InexactFloat64()
		win = win.merge(cr.winners, fl)
		loss = loss.merge(cr.losers, fl)
		for i, g := range cr.exits {
			exits[i] = exitRaw{trades: exits[i].trades + g.trades, gross: exits[i].gross.Add(mul(g.gross, f)),
				beside: exits[i].beside.Add(mul(g.beside, f))}
		}
		for i, e := range []*excursionRaw{&cr.mae, &cr.mfe} {
			x := &excursion[i]
			x.money, x.rSum, x.rCount = x.money.Add(mul(e.money, f)), x.rSum.Add(e.rSum), x.rCount+e.rCount
			for k, n := range e.rBuckets {
				x.rBuckets[k] += n
			}
			values[i] = append(values[i], scaled{values: e.values, f: f, approx: fl})
		}
	}
	s := r.series[series]
	b := Block{
		Currency:     name,
		Summary:      summary(sum, s),
		ByDay:        make([]DayBucket, 0, len(merged[kindDay])),
		BySymbol:     bestFirst(merged[kindSymbol]),
		ByUnderlying: bestFirst(merged[kindUnderlying]),
		EquityCurve:  make([]Point, 0, len(s.curve)),
	}
	for _, k := range slices.Sorted(maps.Keys(merged[kindDay])) {
		b.ByDay = append(b.ByDay, DayBucket{Date: k, Bucket: merged[kindDay][k].bucket()})
	}
	b.ByWeek = keyed(merged[kindWeek], strings.Compare, func(k string, d Breakdown) WeekBucket { return WeekBucket{k, d} })
	b.ByMonth = keyed(merged[kindMonth], strings.Compare, func(k string, d Breakdown) MonthBucket { return MonthBucket{k, d} })
	b.ByYear = keyed(merged[kindYear], strings.Compare, func(k string, d Breakdown) YearBucket { return YearBucket{k, d} })
	b.ByWeekday = keyed(merged[kindWeekday], byNumber, func(k string, d Breakdown) WeekdayBucket { return WeekdayBucket{number(k), d} })
	b.ByHour = keyed(merged[kindHour], byNumber, func(k string, d Breakdown) HourBucket { return HourBucket{number(k), d} })
	b.ByHoldTime = keyed(merged[kindHold], byHold, func(k string, d Breakdown) HoldTimeBucket { return HoldTimeBucket{k, d} })
	b.BySide = keyed(merged[kindSide], strings.Compare, func(k string, d Breakdown) SideBucket { return SideBucket{k, d} })
	b.ByAssetType = keyed(merged[kindAsset], strings.Compare, func(k string, d Breakdown) AssetTypeBucket { return AssetTypeBucket{k, d} })
	b.ByPlaybook, b.ByCriterion = byPlaybook(r, merged[kindPlaybook]), byCriterion(r, merged[kindMet], merged[kindMissed])
	b.ByStrategy = byStrategy(merged[kindStrategy])
	// The breakdown by tag: best net P&L first, then by name and id.
	ts := make([]tagAgg, 0, len(merged[kindTag]))
	for id, a := range merged[kindTag] {
		a.approx = approx(a.net)
		ts = append(ts, tagAgg{tags[id], a})
	}
	slices.SortFunc(ts, func(x, y tagAgg) int {
		return cmp.Or(y.cmpNet(&x.bucketAgg), cmp.Compare(x.name, y.name), cmp.Compare(x.id, y.id))
	})
	b.ByTag = make([]TagBucket, 0, len(ts))
	for _, t := range ts {
		b.ByTag = append(b.ByTag, TagBucket{TagID: t.id, Name: t.name, Category: t.category, Breakdown: t.breakdown()})
	}
	b.RDistribution = rDistribution(rBuckets)
	for i, st := range []*ExcursionStats{&b.Excursions.MAE, &b.Excursions.MFE} {
		x := &excursion[i]
		n, pick := mergedScaled(values[i])
		*st = ExcursionStats{Trades: int64(n), AverageMoney: ratio(x.money, decimal.NewFromInt(int64(n))),
			Percentiles: percentiles(n, pick), RTrades: x.rCount, AverageR: ratio(x.rSum, decimal.NewFromInt(x.rCount)),
			RDistribution: rDistribution(x.rBuckets)}
	}
	kept := exits[0]
	b.ExitAnalysis = ExitAnalysis{MFEKept: MFEKept{Trades: kept.trades, GrossPnl: amount(kept.gross), Mfe: amount(kept.beside)}}
	if !kept.beside.IsZero() {
		v := money.RoundN(kept.gross.Mul(hundred).DivRound(kept.beside, fx.Places), 2)
		b.ExitAnalysis.MFEKept.Share = &v
	}
	for i, h := range []*HeldTo{&b.ExitAnalysis.HoldToTarget, &b.ExitAnalysis.HoldToStop} {
		g := exits[1+i]
		*h = HeldTo{Trades: g.trades, GrossPnl: amount(g.gross), AtLevel: amount(g.beside)}
	}
	b.WinnersLosers = WinnersLosers{Winners: win.averages(), Losers: loss.averages()}
	if sum.wins > 0 && sum.losses > 0 {
		avgWin := sum.winSum.DivRound(decimal.NewFromInt(sum.wins), 16)
		avgLoss := sum.lossSum.DivRound(decimal.NewFromInt(sum.losses), 16)
		b.WinnersLosers.PayoffRatio = ratio(avgWin, avgLoss.Abs())
	}
	for _, p := range s.curve {
		b.EquityCurve = append(b.EquityCurve, Point{ClosedAt: p.closedAt.UTC(), Trade: p.trade, CumulativeNetPnl: amount(p.cum), Drawdown: amount(p.drawdown)})
	}
	return b
}

var hundred = decimal.NewFromInt(100)

// scaled is one currency's values (ten-thousandths), ascending, each to
// be multiplied by f (> 0, so the order holds; approx is f as a float).
type scaled struct {
	values []int64
	f      decimal.Decimal
	approx float64
}

// mergedScaled is how many values the lists hold and pick, the k-th smallest
// (from 0) of them all scaled: a merge of the sorted lists, walked as far
// as k, so pick must be asked for ascending k. Values are compared by
// their floats where those tell them apart (a relative 1e-12), exactly
// otherwise; only the values picked are made decimals.
func mergedScaled(lists []scaled) (int, func(k int) decimal.Decimal) {
	n := 0
	for _, l := range lists {
		n += len(l.values)
	}
	exact := func(l, k int) decimal.Decimal { return mul(decimal.New(lists[l].values[k], -4), lists[l].f) }
	if len(lists) == 1 {
		return n, func(k int) decimal.Decimal { return exact(0, k) }
	}
	at := make([]int, len(lists)) // each list's next value
	walked := 0                   // values passed
	less := func(a, b int) bool {
		x, y := float64(lists[a].values[at[a]])*lists[a].approx, float64(lists[b].values[at[b]])*lists[b].approx
		if d := x - y; math.Abs(d) > 1e-12*max(math.Abs(x), math.Abs(y)) {
			return d < 0
		}
		return exact(a, at[a]).LessThan(exact(b, at[b]))
	}
	return n, func(k int) decimal.Decimal {
		for {
			next := -1
			for l := range lists {
				if at[l] < len(lists[l].values) && (next < 0 || less(l, next)) {
					next = l
				}
			}
			if walked == k {
				return exact(next, at[next])
			}
			at[next]++
			walked++
		}
	}
}

// rDistribution is the R distribution of counts by rBounds' buckets.
func rDistribution(counts [len(rBounds) + 1]int64) []RBucket {
	out := make([]RBucket, 0, len(counts))
	for i, n := range counts {
		var from, to *string
		if i > 0 {
			v := strconv.FormatInt(rBounds[i-1], 10)
			from = &v
		}
		if i < len(rBounds) {
			v := strconv.FormatInt(rBounds[i], 10)
			to = &v
		}
		out = append(out, RBucket{From: from, To: to, Trades: n})
	}
	return out
}

// percentiles are the nearest-rank percentiles of n values ascending,
// the k-th (from 0) given by pick.
func percentiles(n int, pick func(k int) decimal.Decimal) Percentiles {
	var out Percentiles
	if n == 0 {
		return out
	}
	for _, p := range []struct {
		pct int
		dst **string
	}{{10, &out.P10}, {25, &out.P25}, {50, &out.P50}, {75, &out.P75}, {90, &out.P90}} {
		rank := (p.pct*n + 99) / 100 // ceil(p/100 x n), at least 1
		v := amount(pick(rank - 1))
		*p.dst = &v
	}
	return out
}

// byPlaybook is the breakdown by playbook: best net P&L first, then by
// name (no playbook's is empty).
func byPlaybook(r raw, m map[string]bucketAgg) []PlaybookBucket {
	names := make(map[string]string, len(r.playbooks))
	for _, p := range r.playbooks {
		names[p.id] = p.name
	}
	return ranked(m, func(x, y string) int { return cmp.Or(cmp.Compare(names[x], names[y]), cmp.Compare(x, y)) },
		func(k string, d Breakdown) PlaybookBucket {
			e := PlaybookBucket{Name: names[k], Breakdown: d}
			if k != "" {
				e.PlaybookID = &k
			}
			return e
		})
}

// byStrategy is the breakdown by strategy kind: best net P&L first, then
// by kind (no strategy's is empty, and null in the answer).
func byStrategy(m map[string]bucketAgg) []StrategyBucket {
	return ranked(m, strings.Compare, func(k string, d Breakdown) StrategyBucket {
		e := StrategyBucket{Breakdown: d}
		if k != "" {
			e.Strategy = &k
		}
		return e
	})
}

// ranked is a breakdown's entries best net P&L first, ties in the order
// of tie over their keys.
func ranked[T any](m map[string]bucketAgg, tie func(x, y string) int, entry func(string, Breakdown) T) []T {
	keys := slices.Collect(maps.Keys(m))
	aggs := make(map[string]*bucketAgg, len(m))
	for _, k := range keys {
		a := m[k]
		a.approx = approx(a.net)
		aggs[k] = &a
	}
	slices.SortFunc(keys, func(x, y string) int { return cmp.Or(aggs[y].cmpNet(aggs[x]), tie(x, y)) })
	out := make([]T, 0, len(keys))
	for _, k := range keys {
		out = append(out, entry(k, aggs[k].breakdown()))
	}
	return out
}

// byCriterion is the breakdown by criterion, met against missed: the
// criteria of every playbook with a position in the block, by playbook
// name, then in checklist order.
func byCriterion(r raw, met, missed map[string]bucketAgg) []CriterionBucket {
	out := []CriterionBucket{}
	for _, c := range r.criteria {
		m, ok1 := met[c.id]
		x, ok2 := missed[c.id]
		if !ok1 && !ok2 {
			continue
		}
		p := r.playbooks[c.playbook]
		out = append(out, CriterionBucket{CriterionID: c.id, Text: c.text, PlaybookID: p.id, Playbook: p.name,
			Met: m.breakdown(), Missed: x.breakdown()})
	}
	// Stable: the criteria are in checklist order within a playbook.
	slices.SortStableFunc(out, func(a, b CriterionBucket) int {
		return cmp.Or(cmp.Compare(a.Playbook, b.Playbook), cmp.Compare(a.PlaybookID, b.PlaybookID))
	})
	return out
}

// keyed is a breakdown's entries in the order of their keys.
func keyed[T any](m map[string]bucketAgg, order func(a, b string) int, entry func(string, Breakdown) T) []T {
	out := make([]T, 0, len(m))
	for _, k := range slices.SortedFunc(maps.Keys(m), order) {
		out = append(out, entry(k, m[k].breakdown()))
	}
	return out
}

func number(k string) int {
	n, _ := strconv.Atoi(k)
	return n
}

func byNumber(a, b string) int { return cmp.Compare(number(a), number(b)) }

func byHold(a, b string) int {
	at := func(k string) int {
		return slices.IndexFunc(holdBuckets[:], func(h struct {
			key   string
			below int64
		}) bool {
			return h.key == k
		})
	}
	return cmp.Compare(at(a), at(b))
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
		out = append(out, SymbolBucket{Symbol: names[k.i], Breakdown: aggs[k.i].breakdown()})
	}
	return out
}

var one = decimal.NewFromInt(1)

// bucketAgg is one breakdown entry being added up: money in the block's
// currency, R multiples as they are. approx, set before sorting, is net as
// a float: it orders entries without exact arithmetic wherever the floats
// tell them apart.
type bucketAgg struct {
	trades, wins, losses, rCount int64
	net, winSum, lossSum, rSum   decimal.Decimal
	approx                       float64
}

// aggOf is a tally as decimals.
func aggOf(t *tally) bucketAgg {
	return bucketAgg{trades: t.trades, wins: t.wins, losses: t.losses, rCount: t.rCount,
		net: t.net.decimal(), winSum: t.winSum.decimal(), lossSum: t.lossSum.decimal(), rSum: t.rSum.decimal()}
}

func (a bucketAgg) merge(b bucketAgg) bucketAgg {
	return bucketAgg{trades: a.trades + b.trades, wins: a.wins + b.wins, losses: a.losses + b.losses, rCount: a.rCount + b.rCount,
		net: add(a.net, b.net), winSum: add(a.winSum, b.winSum), lossSum: add(a.lossSum, b.lossSum), rSum: add(a.rSum, b.rSum)}
}

// scale converts a's money by factor f (> 0); unit says f is 1.
func (a bucketAgg) scale(f decimal.Decimal, unit bool) bucketAgg {
	if !unit {
		a.net, a.winSum, a.lossSum = mul(a.net, f), mul(a.winSum, f), mul(a.lossSum, f)
	}
	return a
}

// add and mul are decimal's, without its allocation when an operand is
// zero (a day's entry carries only its net P&L: the other sums are 0).
func add(a, b decimal.Decimal) decimal.Decimal {
	switch {
	case b.IsZero():
		return a
	case a.IsZero():
		return b
	}
	return a.Add(b)
}

func mul(a, f decimal.Decimal) decimal.Decimal {
	if a.IsZero() {
		return a
	}
	return a.Mul(f)
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

func (a bucketAgg) bucket() Bucket {
	return Bucket{Trades: a.trades, Wins: a.wins, Losses: a.losses, WinRate: percent(a.wins, a.trades), NetPnl: amount(a.net)}
}

func (a bucketAgg) breakdown() Breakdown {
	d := Breakdown{Bucket: a.bucket(), AverageR: ratio(a.rSum, decimal.NewFromInt(a.rCount)), RTrades: a.rCount}
	if a.losses > 0 {
		d.ProfitFactor = ratio(a.winSum, a.lossSum.Abs())
	}
	return d
}

type tagAgg struct {
	tag
	bucketAgg
}

// scale converts the money of a by factor f (> 0, so the largest net P&L
// stays the largest); unit says f is 1.
func (a aggRow) scale(f decimal.Decimal, unit bool) aggRow {
	if unit {
		return a
	}
	a.bucketAgg = a.bucketAgg.scale(f, false)
	a.gross, a.fees = a.gross.Mul(f), a.fees.Mul(f)
	if a.hi.Valid {
		a.hi.Decimal = a.hi.Decimal.Mul(f)
	}
	if a.lo.Valid {
		a.lo.Decimal = a.lo.Decimal.Mul(f)
	}
	return a
}

// merge adds two groups: counts and sums add, the extremes are kept.
func (a aggRow) merge(b aggRow) aggRow {
	out := aggRow{bucketAgg: a.bucketAgg.merge(b.bucketAgg), gross: a.gross.Add(b.gross), fees: a.fees.Add(b.fees),
		hi: a.hi, lo: a.lo, rSq: a.rSq + b.rSq}
	if b.hi.Valid && (!out.hi.Valid || b.hi.Decimal.GreaterThan(out.hi.Decimal)) {
		out.hi = b.hi
	}
	if b.lo.Valid && (!out.lo.Valid || b.lo.Decimal.LessThan(out.lo.Decimal)) {
		out.lo = b.lo
	}
	return out
}

// merge adds b, its notional converted by factor f.
func (a sizes) merge(b sizes, f float64) sizes {
	return sizes{trades: a.trades + b.trades, holdSeconds: a.holdSeconds + b.holdSeconds,
		quantity: a.quantity + b.quantity, notional: a.notional + b.notional*f}
}

func (a sizes) averages() Sizes {
	out := Sizes{Trades: a.trades}
	if a.trades == 0 {
		return out
	}
	hold := a.holdSeconds / a.trades
	n := float64(a.trades)
	q, c := strconv.FormatFloat(a.quantity/n, 'f', 4, 64), strconv.FormatFloat(a.notional/n, 'f', 4, 64)
	out.AverageHoldSeconds, out.AverageQuantity, out.AverageNotional = &hold, &q, &c
	return out
}

// summary derives the headline figures from a group's sums:
//   - win, loss and breakeven rate: wins, losses, breakevens (net == 0) as
//     a percent of trades;
//   - average win and loss: the winners' (losers') net P&L over their count;
//   - profit factor: the winners' net P&L over the absolute losers' net
//     P&L, null without a loss;
//   - expectancy: net P&L per trade;
//   - average R over the positions that have an R multiple (rTrades);
//   - SQN (Van Tharp's system quality number): sqrt(min(rTrades, 100)) x
//     the mean R over its sample standard deviation, null for fewer than 2
//     R multiples or none that differ.
func summary(a aggRow, s seriesStats) Summary {
	breakevens := a.trades - a.wins - a.losses
	out := Summary{
		Trades: a.trades, Wins: a.wins, Losses: a.losses, Breakevens: breakevens,
		WinRate: percent(a.wins, a.trades), LossRate: percent(a.losses, a.trades), BreakevenRate: percent(breakevens, a.trades),
		NetPnl: amount(a.net), GrossPnl: amount(a.gross), Fees: amount(a.fees),
		GrossWins: amount(a.winSum), GrossLosses: amount(a.lossSum),
		AverageWin: ratio(a.winSum, decimal.NewFromInt(a.wins)), AverageLoss: ratio(a.lossSum, decimal.NewFromInt(a.losses)),
		Expectancy: ratio(a.net, decimal.NewFromInt(a.trades)),
		AverageR:   ratio(a.rSum, decimal.NewFromInt(a.rCount)), RTrades: a.rCount, SQN: sqn(a),
		MaxDrawdown:      amount(s.maxDrawdown),
		MaxDrawdownStart: s.ddStart, MaxDrawdownEnd: s.ddEnd, MaxDrawdownRecovered: s.ddRecovered,
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

func sqn(a aggRow) *string {
	if a.rCount < 2 {
		return nil
	}
	n := float64(a.rCount)
	mean := a.rSum.InexactFloat64() / n
	variance := (a.rSq - n*mean*mean) / (n - 1)
	if variance <= 1e-12 {
		return nil
	}
	v := strconv.FormatFloat(math.Sqrt(min(n, 100))*mean/math.Sqrt(variance), 'f', 2, 64)
	return &v
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
