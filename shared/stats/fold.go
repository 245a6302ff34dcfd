package stats

import (
	"math"
	"math/big"
	"slices"
	"time"

	"github.com/shopspring/decimal"
)

// decimalOf is b (a count of 10^exp) as a decimal.
func decimalOf(b *big.Int, exp int32) decimal.Decimal { return decimal.NewFromBigInt(b, exp) }

// The statistics are folded in Go from the closed positions in close
// order, each read once (store.go reads them). This file is every sum and
// every order-dependent figure; report.go turns them into the response.

// sums are the order-independent figures of one currency: the summary's
// sums and the breakdowns' tallies.
type sums struct {
	all    tally
	gross  units
	fees   units
	hi, lo units   // the largest and smallest net P&L (all.trades > 0)
	rSq    float64 // the sum of squared R multiples, for the SQN

	days        map[int64]*tally // by trading day of the close, days since 1970-01-01
	today       *tally           // the day of the last close added
	todayKey    int64
	symbols     []tally        // by symbol (nil: not asked for),
	underlyings []tally        // by underlying, and
	assets      []tally        // by asset type: indexes into the closes' strings
	strategies  []tally        // by a strategy's kind, an index into the closes' strings (positions: all less these)
	tags        map[int]*tally // by tag, an index into the tags read
	playbooks   []tally        // by playbook, an index into the playbooks read (none: all less these)
	met, missed []tally        // by criterion, an index into the criteria read
	weekdays    [8]tally       // by ISO weekday of the entry, 1..7
	hours       [24]tally      // by hour of the entry
	holds       [len(holdBuckets)]tally
	sides       [2]tally // long, short
	rBuckets    [len(rBounds) + 1]int64
	winners     sizes
	losers      sizes
}

// sizes add up what winners (or losers) held and for how long.
type sizes struct {
	trades             int64
	holdSeconds        int64
	quantity, notional float64
}

// tally is one breakdown entry.
type tally struct {
	trades, wins, losses int64
	net                  units
	winSum, lossSum      units // the winners' and the losers' net P&L
	rSum                 units // R multiples, of rCount positions
	rCount               int64
}

func (t *tally) add(c *closed) {
	t.trades++
	t.net = t.net.add(c.net)
	switch c.net.sign() {
	case 1:
		t.wins++
		t.winSum = t.winSum.add(c.net)
	case -1:
		t.losses++
		t.lossSum = t.lossSum.add(c.net)
	}
	if c.hasR {
		t.rSum = t.rSum.add(c.r)
		t.rCount++
	}
}

// less is t without u, a part of it.
func (t tally) less(u *tally) tally {
	return tally{trades: t.trades - u.trades, wins: t.wins - u.wins, losses: t.losses - u.losses, rCount: t.rCount - u.rCount,
		net: t.net.sub(u.net), winSum: t.winSum.sub(u.winSum), lossSum: t.lossSum.sub(u.lossSum), rSum: t.rSum.sub(u.rSum)}
}

// merge adds u into t.
func (t *tally) merge(u *tally) {
	t.trades, t.wins, t.losses, t.rCount = t.trades+u.trades, t.wins+u.wins, t.losses+u.losses, t.rCount+u.rCount
	t.net, t.winSum, t.lossSum, t.rSum = t.net.add(u.net), t.winSum.add(u.winSum), t.lossSum.add(u.lossSum), t.rSum.add(u.rSum)
}

// holdBuckets are the upper bounds (exclusive, seconds) of the hold-time
// buckets; the last bucket has none.
var holdBuckets = [...]struct {
	key   string
	below int64
}{
	{"lt1m", 60}, {"1m-5m", 300}, {"5m-15m", 900}, {"15m-1h", 3600}, {"1h-4h", 4 * 3600},
	{"4h-1d", 86400}, {"1d-1w", 7 * 86400}, {"gte1w", 1 << 62},
}

// rBounds are the R multiples that separate the R distribution's
// buckets: below -3, [-3, -2), ..., [2, 3), 3 and above.
var rBounds = [...]int64{-3, -2, -1, 0, 1, 2, 3}

// newSums makes the sums of closes whose strings (symbols, underlyings,
// asset types) number strings, of a journal's j playbooks and criteria;
// withSymbols asks for the breakdown by symbol.
func newSums(strings int, j journalRows, withSymbols bool) *sums {
	s := &sums{days: map[int64]*tally{}, underlyings: make([]tally, strings), assets: make([]tally, strings),
		strategies: make([]tally, strings), tags: map[int]*tally{},
		playbooks: make([]tally, len(j.playbooks)), met: make([]tally, len(j.criteria)), missed: make([]tally, len(j.criteria))}
	if withSymbols {
		s.symbols = make([]tally, strings)
	}
	return s
}

// add counts c in s (its tags are added by addTag).
func (s *sums) add(c *closed) {
	if s.all.trades == 0 || c.net.cmp(s.hi) > 0 {
		s.hi = c.net
	}
	if s.all.trades == 0 || c.net.cmp(s.lo) < 0 {
		s.lo = c.net
	}
	s.all.add(c)
	s.gross, s.fees = s.gross.add(c.gross), s.fees.add(c.fees)
	if s.today == nil || s.todayKey != c.day { // closes come in time order: mostly the day before's
		s.today, s.todayKey = tallyOf(s.days, c.day), c.day
	}
	s.today.add(c)
	if s.symbols != nil {
		s.symbols[c.symbol].add(c)
	}
	s.underlyings[c.underlying].add(c)
	s.assets[c.assetType].add(c)
	if c.strategy > 0 {
		s.strategies[c.strategy-1].add(c)
	}
	s.weekdays[isoWeekday(c.entry)].add(c)
	s.hours[hourOf(c.entry)].add(c)
	hold := max(0, (c.at-c.opened)/1e6)
	h := 0
	for hold >= holdBuckets[h].below {
		h++
	}
	s.holds[h].add(c)
	side := 1
	if c.long {
		side = 0
	}
	s.sides[side].add(c)
	if c.hasR {
		b := 0
		for b < len(rBounds) && c.r.cmp(units{lo: uint64(rBounds[b] * 10000), hi: rBounds[b] >> 63}) >= 0 {
			b++
		}
		s.rBuckets[b]++
		r := c.r.float()
		s.rSq += r * r
	}
	var z *sizes
	switch c.net.sign() {
	case 1:
		z = &s.winners
	case -1:
		z = &s.losers
	default:
		return
	}
	z.trades++
	z.holdSeconds += hold
	z.quantity += c.quantity
	z.notional += c.notional
}

func (s *sums) addTag(tag int, c *closed) { tallyOf(s.tags, tag).add(c) }

// addPlaybook counts c, which follows a playbook, in it and in each
// criterion of it (books: the playbooks read) as met (among met, the
// criteria it ticked) or missed. The positions without a playbook are
// not counted one by one: they are all the others (raw), so a journal
// without playbooks pays nothing a close.
func (s *sums) addPlaybook(books []playbook, c *closed, met []int32) {
	s.playbooks[c.playbook].add(c)
	for _, k := range books[c.playbook].criteria {
		if slices.Contains(met, k) {
			s.met[k].add(c)
		} else {
			s.missed[k].add(c)
		}
	}
}

func tallyOf[K comparable](m map[K]*tally, k K) *tally {
	t, ok := m[k]
	if !ok {
		t = &tally{}
		m[k] = t
	}
	return t
}

// walk folds the order-dependent figures of one series (an account
// currency, or every position converted into the display currency) over
// its closes in (closed_at, id) order:
//   - cum, the cumulative net P&L, and peak, its running maximum counting
//     the starting 0: the drawdown at a close is peak - cum; the largest
//     one's peak, trough and recovery (the first close back at the peak);
//   - the running streaks of wins (net > 0) and losses (net < 0); a
//     breakeven ends both;
//   - the equity curve: cum after every k-th close, k = ceil(n/maxCurvePoints),
//     and after the last (n, the series' closes, is known before the walk),
//     each point with the deepest drawdown since the point before, so the
//     drawdown curve shows every trough.
//
// Values are integers in units of 10^exp (exp -4 for a currency; lower for
// the converted total, whose factors have more places), so every
// comparison is exact.
type walk struct {
	n, k, i                                int64
	exp                                    int32
	cum, peak, maxDrawdown, dd, deepest    big.Int
	peakAt                                 int64 // the close that made the peak; noTime for the starting 0
	ddPeak                                 big.Int
	ddStart, ddEnd, ddRecovered            int64 // the largest drawdown's peak, trough, recovery; noTime for none
	winRun, lossRun, winStreak, lossStreak int64
	curve                                  []curvePoint
}

// maxCurvePoints bounds an equity curve.
const maxCurvePoints = 1000

func newWalk(n int64, exp int32) *walk {
	k := max(1, (n+maxCurvePoints-1)/maxCurvePoints)
	return &walk{n: n, k: k, exp: exp, curve: make([]curvePoint, 0, min(n, n/k+1)),
		peakAt: noTime, ddStart: noTime, ddEnd: noTime, ddRecovered: noTime}
}

// step folds the close at at (Unix microseconds), worth v (its sign is
// the sign of its net P&L).
func (w *walk) step(at int64, v *big.Int) {
	w.i++
	w.cum.Add(&w.cum, v)
	if w.cum.Cmp(&w.peak) > 0 {
		w.peak.Set(&w.cum)
		w.peakAt = at
	}
	if w.ddEnd != noTime && w.ddRecovered == noTime && w.cum.Cmp(&w.ddPeak) >= 0 {
		w.ddRecovered = at
	}
	if w.dd.Sub(&w.peak, &w.cum); w.dd.Cmp(&w.maxDrawdown) > 0 {
		w.maxDrawdown.Set(&w.dd)
		w.ddPeak.Set(&w.peak)
		w.ddStart, w.ddEnd, w.ddRecovered = w.peakAt, at, noTime
	}
	if w.dd.Cmp(&w.deepest) > 0 {
		w.deepest.Set(&w.dd)
	}
	switch v.Sign() {
	case 1:
		w.winRun, w.lossRun = w.winRun+1, 0
		w.winStreak = max(w.winStreak, w.winRun)
	case -1:
		w.winRun, w.lossRun = 0, w.lossRun+1
		w.lossStreak = max(w.lossStreak, w.lossRun)
	default:
		w.winRun, w.lossRun = 0, 0
	}
	if w.i%w.k == 0 || w.i == w.n {
		w.curve = append(w.curve, curvePoint{closedAt: time.UnixMicro(at).UTC(), cum: decimalOf(&w.cum, w.exp),
			drawdown: decimalOf(new(big.Int).Neg(&w.deepest), w.exp)})
		w.deepest.SetInt64(0)
	}
}

// stats is what the walk found.
func (w *walk) stats() seriesStats {
	return seriesStats{trades: w.i, maxDrawdown: decimalOf(&w.maxDrawdown, w.exp),
		ddStart: timeOf(w.ddStart), ddEnd: timeOf(w.ddEnd), ddRecovered: timeOf(w.ddRecovered),
		winStreak: w.winStreak, lossStreak: w.lossStreak, curve: w.curve}
}

// noTime marks a close time not there.
const noTime = math.MinInt64

// timeOf is a close time (Unix microseconds), nil for noTime.
func timeOf(at int64) *time.Time {
	if at == noTime {
		return nil
	}
	t := time.UnixMicro(at).UTC()
	return &t
}
