package stats

import (
	"math/big"
	"time"

	"github.com/shopspring/decimal"
)

// decimalOf is b (a count of 10^exp) as a decimal.
func decimalOf(b *big.Int, exp int32) decimal.Decimal { return decimal.NewFromBigInt(b, exp) }

// The statistics are folded in Go from the closed positions in close
// order, each read once (store.go streams them). This file is every sum and
// every order-dependent figure; report.go turns them into the response.

// sums are the order-independent figures of one currency: the summary's
// sums and the breakdowns' buckets.
type sums struct {
	trades, wins, losses  int64
	net, gross, fees      units
	winSum, lossSum, rSum units // the winners' and the losers' net P&L; R multiples
	rCount                int64
	hi, lo                units            // the largest and smallest net P&L (trades > 0)
	days                  map[int64]*tally // by trading day, days since 1970-01-01
	symbols               []tally          // by symbol (nil: not asked for), and
	underlyings           []tally          // by underlying: indexes into the closes' strings
	tags                  map[int]*tally   // by tag, an index into the tags read
	today                 *tally           // the day of the last close added
	todayKey              int64
}

// tally is one breakdown entry: trades, wins, losses and net P&L.
type tally struct {
	trades, wins, losses int64
	net                  units
}

func (t *tally) add(net units) {
	t.trades++
	t.net = t.net.add(net)
	switch net.sign() {
	case 1:
		t.wins++
	case -1:
		t.losses++
	}
}

// newSums makes the sums of closes whose strings (symbols, underlyings)
// number strings; withSymbols asks for the breakdown by symbol.
func newSums(strings int, withSymbols bool) *sums {
	s := &sums{days: map[int64]*tally{}, underlyings: make([]tally, strings), tags: map[int]*tally{}}
	if withSymbols {
		s.symbols = make([]tally, strings)
	}
	return s
}

// add counts c in s (its tags are added later, by addTag).
func (s *sums) add(c *closed) {
	if s.trades == 0 || c.net.cmp(s.hi) > 0 {
		s.hi = c.net
	}
	if s.trades == 0 || c.net.cmp(s.lo) < 0 {
		s.lo = c.net
	}
	s.trades++
	s.net, s.gross, s.fees = s.net.add(c.net), s.gross.add(c.gross), s.fees.add(c.fees)
	switch c.net.sign() {
	case 1:
		s.wins++
		s.winSum = s.winSum.add(c.net)
	case -1:
		s.losses++
		s.lossSum = s.lossSum.add(c.net)
	}
	if c.hasR {
		s.rSum = s.rSum.add(c.r)
		s.rCount++
	}
	if s.today == nil || s.todayKey != c.day { // closes come in time order: mostly the day before's
		s.today, s.todayKey = tallyOf(s.days, c.day), c.day
	}
	s.today.add(c.net)
	if s.symbols != nil {
		s.symbols[c.symbol].add(c.net)
	}
	s.underlyings[c.underlying].add(c.net)
}

func (s *sums) addTag(tag int, net units) { tallyOf(s.tags, tag).add(net) }

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
//     the starting 0: the drawdown at a close is peak - cum;
//   - the running streaks of wins (net > 0) and losses (net < 0); a
//     breakeven ends both;
//   - the equity curve: cum after every k-th close, k = ceil(n/maxCurvePoints),
//     and after the last (n, the series' closes, is known before the walk).
//
// Values are integers in units of 10^exp (exp -4 for a currency; lower for
// the converted total, whose factors have more places), so every
// comparison is exact.
type walk struct {
	n, k, i                                int64
	exp                                    int32
	cum, peak, maxDrawdown, dd             big.Int
	winRun, lossRun, winStreak, lossStreak int64
	curve                                  []curvePoint
}

// maxCurvePoints bounds an equity curve.
const maxCurvePoints = 1000

func newWalk(n int64, exp int32) *walk {
	k := max(1, (n+maxCurvePoints-1)/maxCurvePoints)
	return &walk{n: n, k: k, exp: exp, curve: make([]curvePoint, 0, min(n, n/k+1))}
}

// step folds the close at at (Unix microseconds), worth v (its sign is
// the sign of its net P&L).
func (w *walk) step(at int64, v *big.Int) {
	w.i++
	w.cum.Add(&w.cum, v)
	if w.cum.Cmp(&w.peak) > 0 {
		w.peak.Set(&w.cum)
	} else if w.dd.Sub(&w.peak, &w.cum); w.dd.Cmp(&w.maxDrawdown) > 0 {
		w.maxDrawdown.Set(&w.dd)
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
		w.curve = append(w.curve, curvePoint{closedAt: time.UnixMicro(at).UTC(), cum: decimalOf(&w.cum, w.exp)})
	}
}

// stats is what the walk found.
func (w *walk) stats() seriesStats {
	return seriesStats{trades: w.i, maxDrawdown: decimalOf(&w.maxDrawdown, w.exp),
		winStreak: w.winStreak, lossStreak: w.lossStreak, curve: w.curve}
}
