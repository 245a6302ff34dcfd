package stats

import (
	"math"
	"slices"
	"time"
	"tradejournal/shared/listquery"
)

// The statistics are folded in Go from the closed trades, each read once
// (store.go reads them): every sum as a trade is read (sums.add), then
// every order-dependent figure over the trades in close order (walk).
// report.go turns them into the response. Breakdowns whose keys are few
// and known (weekday, hour, hold range, side, tag, playbook, criterion,
// string) are arrays indexed by small integers, not maps.

// fold is a report being read: the journal, the compiled filter, the
// strings read, each currency's sums, and the trades in close order.
type fold struct {
	journal     journalRows
	filter      listquery.Match
	withSymbols bool
	strings     []string         // asset types, symbols, underlyings, strategy kinds
	index       map[string]int32 // a string's index into strings
	sums        []*sums          // by currency (journalRows.currencies)
	items       itemList         // the trades read, in close order
	scratch     []walkItem
}

// itemList holds the trades read in chunks: appending never copies what is
// read (a slice of 100,000 grown by append copied and zeroed 16 MB a
// report, a fifth of its CPU time).
type itemList struct {
	chunks [][]walkItem
	n      int
}

const chunkBits = 12

func (l *itemList) at(i int) *walkItem { return &l.chunks[i>>chunkBits][i&(1<<chunkBits-1)] }

func (l *itemList) add(it walkItem) {
	if l.n>>chunkBits == len(l.chunks) {
		l.chunks = append(l.chunks, make([]walkItem, 1<<chunkBits))
	}
	*l.at(l.n) = it
	l.n++
}

// all yields the items in order.
func (l *itemList) all(yield func(*walkItem) bool) {
	for i := range l.n {
		if !yield(l.at(i)) {
			return
		}
	}
}

// walkItem is what the walks read of a trade.
type walkItem struct {
	at  int64 // closed_at, Unix µs
	net units
	cur int32 // index into journalRows.currencies
}

func newFold(j journalRows, f listquery.Match, withSymbols bool) *fold {
	fd := &fold{journal: j, filter: f, withSymbols: withSymbols, index: map[string]int32{}, sums: make([]*sums, len(j.currencies))}
	for i := range fd.sums {
		fd.sums[i] = newSums(j, withSymbols)
	}
	return fd
}

// str is the index of a row's string, added if new.
func (fd *fold) str(raw []byte) int32 {
	i, ok := fd.index[string(raw)]
	if !ok {
		i = int32(len(fd.strings))
		s := string(raw)
		fd.strings = append(fd.strings, s)
		fd.index[s] = i
	}
	return i
}

// add counts c, which the filter took.
func (fd *fold) add(c *closed) {
	cur := fd.journal.accounts[c.account].currency
	fd.sums[cur].add(c, fd.journal.playbooks)
	fd.items.add(walkItem{at: c.at, net: c.net, cur: int32(cur)})
}

// order puts the trades of one UTC day in close order: its rows' items
// (each row's in close order, from the index in runs on, the rows in
// account order) merged, a tie going to the row first.
func (fd *fold) order(runs []int) {
	if len(runs) < 2 {
		return
	}
	l := &fd.items
	ends := make([]int, len(runs))
	for k := range runs {
		ends[k] = l.n
		if k+1 < len(runs) {
			ends[k] = runs[k+1]
		}
	}
	base := runs[0]
	out := fd.scratch[:0]
	for {
		best := -1
		for k := range runs {
			if runs[k] < ends[k] && (best < 0 || l.at(runs[k]).at < l.at(runs[best]).at) {
				best = k
			}
		}
		if best < 0 {
			break
		}
		out = append(out, *l.at(runs[best]))
		runs[best]++
	}
	for i, it := range out {
		*l.at(base + i) = it
	}
	fd.scratch = out
}

// sums are the order-independent figures of one currency: the summary's
// sums and the breakdowns' tallies.
type sums struct {
	all    tally
	gross  units
	fees   units
	hi, lo units   // the largest and smallest net P&L (all.trades > 0)
	rSq    float64 // the sum of squared R multiples, for the SQN

	days        dayTallies // by trading day of the close
	symbols     []tally    // by string index: by symbol (nil: not asked for),
	underlyings []tally    // by underlying,
	assets      []tally    // by asset type,
	strategies  []tally    // and by a strategy's kind (positions: all less these)
	tags        []tally    // by tag, an index into the tags read
	playbooks   []tally    // by playbook, an index into the playbooks read (none: all less these)
	met, missed []tally    // by criterion, an index into the criteria read
	weekdays    [8]tally   // by ISO weekday of the entry, 1..7
	hours       [24]tally  // by hour of the entry
	holds       [len(holdBuckets)]tally
	sides       [2]tally // long, short
	rBuckets    [len(rBounds) + 1]int64
	winners     sizes
	losers      sizes
	mae, mfe    excursionSums
	exits       exitSums
}

// excursionSums add up the adverse (or favourable) excursions of the
// trades that have one: their money, each kept for the percentiles
// (sorted once, at the report), and their R; in ten-thousandths.
type excursionSums struct {
	money    units
	values   []int64
	rSum     units
	rCount   int64
	rBuckets [len(rBounds) + 1]int64
}

func (e *excursionSums) add(money int64, r *int64) {
	e.money = e.money.add(unitsOfInt(money))
	e.values = append(e.values, money)
	if r != nil {
		u := unitsOfInt(*r)
		e.rSum = e.rSum.add(u)
		e.rCount++
		e.rBuckets[rBucket(u)]++
	}
}

// exitSums are the exit analysis: how much of their MFE the trades with
// one kept (their gross P&L beside the MFE's money), and, for the trades
// whose bars reached the target (stop) first, their gross P&L beside what
// an exit there would have made.
type exitSums struct {
	kept         exitGroup
	target, stop exitGroup
}

// exitGroup is some trades' gross P&L and the money they are set beside.
type exitGroup struct {
	trades        int64
	gross, beside units
}

func (g *exitGroup) add(gross, beside units) {
	g.trades++
	g.gross, g.beside = g.gross.add(gross), g.beside.add(beside)
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

// grown is the tally of index i of ts, grown to hold it (the strings are
// read as the trades are).
func grown(ts *[]tally, i int32) *tally {
	if int(i) >= len(*ts) {
		*ts = append(*ts, make([]tally, int(i)+1-len(*ts))...)
	}
	return &(*ts)[i]
}

// dayTallies are tallies by day (days since 1970-01-01) from first on:
// the trades come in close order, so the slice grows at its end (and by a
// day at its start at most, a western zone's day before the first UTC
// day read).
type dayTallies struct {
	first int64
	t     []tally
}

func (d *dayTallies) at(day int64) *tally {
	switch {
	case len(d.t) == 0:
		d.first = day
	case day < d.first:
		d.t = append(make([]tally, d.first-day), d.t...)
		d.first = day
	}
	return grown(&d.t, int32(day-d.first))
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

// newSums makes the sums of a journal's j tags, playbooks and criteria;
// withSymbols asks for the breakdown by symbol.
func newSums(j journalRows, withSymbols bool) *sums {
	s := &sums{tags: make([]tally, len(j.tags)), playbooks: make([]tally, len(j.playbooks)),
		met: make([]tally, len(j.criteria)), missed: make([]tally, len(j.criteria))}
	if withSymbols {
		s.symbols = []tally{}
	}
	return s
}

// add counts c in s; books are the playbooks read.
func (s *sums) add(c *closed, books []playbook) {
	if s.all.trades == 0 || c.net.cmp(s.hi) > 0 {
		s.hi = c.net
	}
	if s.all.trades == 0 || c.net.cmp(s.lo) < 0 {
		s.lo = c.net
	}
	s.all.add(c)
	s.gross, s.fees = s.gross.add(c.gross), s.fees.add(c.fees)
	s.days.at(c.day).add(c)
	if s.symbols != nil {
		grown(&s.symbols, c.symbol).add(c)
	}
	grown(&s.underlyings, c.underlying).add(c)
	grown(&s.assets, c.assetType).add(c)
	if c.strategy > 0 {
		grown(&s.strategies, c.strategy-1).add(c)
	}
	for _, t := range c.tags {
		s.tags[t].add(c)
	}
	// The positions without a playbook are not counted one by one: they
	// are all the others (raw), so a journal without playbooks pays
	// nothing a close.
	if c.playbook >= 0 {
		s.playbooks[c.playbook].add(c)
		for _, k := range books[c.playbook].criteria {
			if slices.Contains(c.met, k) {
				s.met[k].add(c)
			} else {
				s.missed[k].add(c)
			}
		}
	}
	s.weekdays[c.weekday].add(c)
	s.hours[c.hour].add(c)
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
		s.rBuckets[rBucket(c.r)]++
		r := c.r.float()
		s.rSq += r * r
	}
	if c.flags&(flagMAE|flagMFE|flagHitTarget|flagHitStop) != 0 {
		s.addExcursions(c)
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

// rBucket is the index of the R distribution's bucket of r.
func rBucket(r units) int {
	b := 0
	for b < len(rBounds) && r.cmp(units{lo: uint64(rBounds[b] * 10000), hi: rBounds[b] >> 63}) >= 0 {
		b++
	}
	return b
}

// addExcursions counts c's excursions and first hit.
func (s *sums) addExcursions(c *closed) {
	var maeR, mfeR *int64
	if c.flags&flagExcursionR != 0 {
		maeR, mfeR = &c.maeR, &c.mfeR
	}
	if c.flags&flagMAE != 0 {
		s.mae.add(c.mae, maeR)
	}
	if c.flags&flagMFE != 0 {
		s.mfe.add(c.mfe, mfeR)
		s.exits.kept.add(c.gross, unitsOfInt(c.mfe))
	}
	switch {
	case c.flags&flagHitTarget != 0:
		s.exits.target.add(c.gross, unitsOfInt(c.atHit))
	case c.flags&flagHitStop != 0:
		s.exits.stop.add(c.gross, unitsOfInt(c.atHit))
	}
}

// walk folds the order-dependent figures of one series (an account
// currency, or every trade converted into the display currency) over its
// closes in close order:
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
	cum, peak, maxDrawdown, deepest        wide
	peakAt                                 int64 // the close that made the peak; noTime for the starting 0
	ddPeak                                 wide
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
func (w *walk) step(at int64, v *wide) {
	w.i++
	w.cum.add(v)
	if w.cum.cmp(&w.peak) > 0 {
		w.peak = w.cum
		w.peakAt = at
	}
	if w.ddEnd != noTime && w.ddRecovered == noTime && w.cum.cmp(&w.ddPeak) >= 0 {
		w.ddRecovered = at
	}
	dd := w.peak
	dd.sub(&w.cum)
	if dd.cmp(&w.maxDrawdown) > 0 {
		w.maxDrawdown = dd
		w.ddPeak = w.peak
		w.ddStart, w.ddEnd, w.ddRecovered = w.peakAt, at, noTime
	}
	if dd.cmp(&w.deepest) > 0 {
		w.deepest = dd
	}
	switch v.sign() {
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
		var drawdown wide
		drawdown.sub(&w.deepest)
		w.curve = append(w.curve, curvePoint{closedAt: time.UnixMicro(at).UTC(), trade: w.i, cum: w.cum.decimalExp(w.exp),
			drawdown: drawdown.decimalExp(w.exp)})
		w.deepest = wide{}
	}
}

// stats is what the walk found.
func (w *walk) stats() seriesStats {
	return seriesStats{trades: w.i, maxDrawdown: w.maxDrawdown.decimalExp(w.exp),
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
