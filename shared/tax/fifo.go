package tax

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// term1256 is the Term of a Section 1256 lot.
const term1256 = "1256"

// washWindow is the number of days before and after a loss sale in which
// an acquisition washes it (IRC 1091: a 61-day period).
const washWindow = 30

// piece is an open position's part with one basis: the shares (or
// contracts) one fill opened, or the part of them split off by a partial
// close, a wash sale replacement or a year-end mark.
type piece struct {
	src   *trade // the fill that opened it
	short bool
	qty   decimal.Decimal
	// amount is the cost with fees of a long, the proceeds net of fees of
	// a short, in the report's currency.
	amount decimal.Decimal
	// carried is a wash loss disallowed on another lot and added to this
	// piece's basis (washedFrom names that lot; wash indexes its record).
	carried    decimal.Decimal
	washedFrom string
	wash       int
	// replaced: the piece has absorbed a washed loss; it can absorb no
	// other (a share replaces one loss only).
	replaced bool
	holdFrom time.Time  // start of the holding period: the open date, moved back by a wash
	markedOn *time.Time // the last year-end mark that reset its basis (1256)
	gaps     []gap
}

// take splits q off p (all of it when q is p's quantity) and returns the
// part; p keeps the rest.
func (p *piece) take(q decimal.Decimal) *piece {
	part := *p
	part.qty = q
	part.amount = share(p.amount, q, p.qty)
	part.carried = share(p.carried, q, p.qty)
	p.amount = p.amount.Sub(part.amount)
	p.carried = p.carried.Sub(part.carried)
	p.qty = p.qty.Sub(q)
	part.gaps = slices.Clone(p.gaps)
	return &part
}

// bookKey names a FIFO queue: lots never cross accounts.
type bookKey struct{ account, instrument string }

// claim is a washed loss still looking for replacement shares bought after
// the sale.
type claim struct {
	rec        *lotRec
	short      bool
	qty        decimal.Decimal // the loss lot's quantity
	loss       decimal.Decimal // positive
	replaced   decimal.Decimal // the quantity replaced so far
	washed     decimal.Decimal // the loss disallowed so far
	holdDays   int             // the sold shares' holding period, carried to replacements
	sold       time.Time
	instrument string
	exclude    []string // fills of the lot sold: never its own replacement
}

// engine runs the FIFO rules over every trade in time order: US (wash
// sales, Section 1256 marks) or other (FIFO only).
type engine struct {
	req    Request
	cur    string
	us     bool
	trades []*trade
	books  map[bookKey][]*piece
	keys   []bookKey // the books in the order they opened, for stable output
	// byInstrument is keys by instrument: a loss looks for replacements
	// only in its own instrument's books (one per account), not in every
	// book of a journal of thousands of symbols.
	byInstrument map[string][]bookKey
	recs         []*lotRec
	washes       []WashSale
	claims       []*claim
	seq          map[string]int
	marked       int // the last year whose year end was marked
	// yearEndGaps are the report year's contracts open at its end without
	// a mark: there is no lot to carry them.
	yearEndGaps []gap
}

func newEngine(req Request, cur string, trades []*trade) *engine {
	e := &engine{req: req, cur: cur, us: req.Jurisdiction == US, trades: trades,
		books: map[bookKey][]*piece{}, byInstrument: map[string][]bookKey{}, seq: map[string]int{}}
	e.marked = req.Year // no trades: no year end to mark
	if len(trades) > 0 {
		e.marked = trades[0].date.Year() - 1
	}
	return e
}

func (e *engine) run() {
	for _, t := range e.trades {
		e.markThrough(t.date.Year() - 1)
		e.trade(t)
	}
	e.markThrough(e.req.Year)
}

// trade books one fill: it first closes what is open on the other side of
// its book (FIFO), then opens a piece with the rest.
func (e *engine) trade(t *trade) {
	key := bookKey{t.Account, t.Instrument}
	book, known := e.books[key]
	if !known {
		e.keys = append(e.keys, key)
		e.byInstrument[key.instrument] = append(e.byInstrument[key.instrument], key)
	}
	closesShort := t.Side == Buy
	left := t.Quantity
	gross, fees := t.gross, t.fees
	var closed []*lotRec
	var fills []string
	for left.IsPositive() && len(book) > 0 && book[0].short == closesShort {
		p := book[0]
		q := decimal.Min(left, p.qty)
		part := p.take(q)
		if p.qty.IsZero() {
			book = book[1:]
		}
		g, f := share(gross, q, left), share(fees, q, left)
		gross, fees, left = gross.Sub(g), fees.Sub(f), left.Sub(q)
		rec := e.close(t, part, g, f)
		closed = append(closed, rec)
		fills = append(fills, part.src.ID)
	}
	e.books[key] = book
	if e.us {
		for _, rec := range closed {
			if rec.Term != term1256 && rec.Proceeds.LessThan(rec.Basis) {
				e.washLoss(rec, fills)
			}
		}
	}
	if !left.IsPositive() {
		return
	}
	p := &piece{src: t, short: t.Side == Sell, qty: left, holdFrom: t.date, wash: -1, gaps: slices.Clone(t.gaps)}
	if p.short {
		p.amount = gross.Sub(fees)
	} else {
		p.amount = gross.Add(fees)
	}
	e.books[key] = append(e.books[key], p)
	if e.us && !t.Section1256 {
		e.replaceForward(key, p)
	}
}

// close makes the lot of part closed by fill t, whose share of the fill's
// amounts is gross and fees.
func (e *engine) close(t *trade, part *piece, gross, fees decimal.Decimal) *lotRec {
	rec := e.newLot(t.ID, part, t.date)
	rec.gaps = addGaps(rec.gaps, t.gaps...)
	m := Match{Rule: "fifo", Quantity: part.qty, WashAdjustment: part.carried, WashedFrom: part.washedFrom}
	if part.markedOn != nil {
		m.Rule = "year-end mark"
	}
	if part.short {
		// A short sale is reported when it is closed: the purchase that
		// closes it makes the basis, its date is both dates of the lot.
		rec.Short = true
		rec.DisposalFills = []string{part.src.ID}
		rec.Proceeds = part.amount
		rec.Basis = gross.Add(fees).Add(part.carried)
		rec.Acquired = t.date.Format(dateLayout)
		m.FillID, m.Account, m.Date = t.ID, t.Account, t.date.Format(dateLayout)
	} else {
		rec.DisposalFills = []string{t.ID}
		rec.Proceeds = gross.Sub(fees)
		rec.Basis = part.amount.Add(part.carried)
		rec.Acquired = part.holdFrom.Format(dateLayout)
		m.FillID, m.Account, m.Date = part.src.ID, part.src.Account, part.src.date.Format(dateLayout)
	}
	m.Cost = rec.Basis
	if part.markedOn != nil {
		m.Date = part.markedOn.Format(dateLayout)
	}
	rec.Matches = []Match{m}
	rec.Term = e.term(part, t.date)
	if part.wash >= 0 {
		w := &e.washes[part.wash]
		w.ReplacementLots = append(w.ReplacementLots, rec.ID)
	}
	return rec
}

// newLot starts the lot of part disposed of on sold, named after the fill
// that closed it.
func (e *engine) newLot(fill string, part *piece, sold time.Time) *lotRec {
	e.seq[fill]++
	src := part.src
	rec := &lotRec{sold: sold, gaps: slices.Clone(part.gaps)}
	rec.Lot = Lot{
		ID:          fmt.Sprintf("%s/%d", fill, e.seq[fill]),
		Description: describe(src.Trade, part.qty),
		Instrument:  src.Instrument,
		Underlying:  src.Underlying,
		AssetType:   src.AssetType,
		Account:     src.Account,
		Quantity:    part.qty,
		Sold:        sold.Format(dateLayout),
		Rule:        "fifo",
		Section1256: e.us && src.Section1256,
	}
	e.recs = append(e.recs, rec)
	return rec
}

// term is the US holding period of part sold on sold: more than a year
// (counted from the day after acquisition) is long-term; a lot sold on its
// anniversary is short-term; a short sale is short-term. Section 1256
// contracts are 60/40 whatever the holding; other countries have no term.
func (e *engine) term(part *piece, sold time.Time) string {
	switch {
	case !e.us:
		return ""
	case part.src.Section1256:
		return term1256
	case part.short || !sold.After(anniversary(part.holdFrom)):
		return "short"
	}
	return "long"
}

// anniversary is the same calendar date a year later; 29 February's is 28
// February (the year after a leap day has none).
func anniversary(d time.Time) time.Time {
	a := time.Date(d.Year()+1, d.Month(), d.Day(), 0, 0, 0, 0, time.UTC)
	if a.Month() != d.Month() {
		a = time.Date(d.Year()+1, d.Month()+1, 0, 0, 0, 0, 0, time.UTC)
	}
	return a
}

// washLoss applies IRC 1091 to a loss lot: replacement acquisitions of the
// same instrument (any account) within 30 days before the sale that are
// still held are taken first, earliest first; what is not replaced yet
// waits for purchases in the 30 days after. The lot's own fills never
// replace it. A long loss is replaced by purchases (long pieces), a loss
// closing a short sale by short sales opened within the window (Pub 550:
// "another short sale of substantially identical stock").
func (e *engine) washLoss(rec *lotRec, exclude []string) {
	c := &claim{rec: rec, short: rec.Short, qty: rec.Quantity, loss: rec.Basis.Sub(rec.Proceeds),
		sold: rec.sold, instrument: rec.Instrument, exclude: exclude}
	if !c.short {
		acq, _ := time.Parse(dateLayout, rec.Acquired)
		c.holdDays = days(acq, rec.sold)
	}
	type cand struct {
		key bookKey
		p   *piece
	}
	var cands []cand
	for _, k := range e.byInstrument[rec.Instrument] {
		for _, p := range e.books[k] {
			if p.short == c.short && !p.replaced && days(p.src.date, c.sold) <= washWindow && !slices.Contains(exclude, p.src.ID) {
				cands = append(cands, cand{k, p})
			}
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return a.p.src.idx - b.p.src.idx })
	for _, cd := range cands {
		if !c.replaced.LessThan(c.qty) {
			return
		}
		e.absorb(c, cd.key, cd.p)
	}
	if c.replaced.LessThan(c.qty) {
		e.claims = append(e.claims, c)
	}
}

// replaceForward lets a new piece replace the losses of the last 30 days
// still waiting for replacement shares, earliest loss first.
func (e *engine) replaceForward(key bookKey, p *piece) {
	live := e.claims[:0]
	for _, c := range e.claims {
		if days(c.sold, p.src.date) <= washWindow && c.replaced.LessThan(c.qty) {
			live = append(live, c)
		}
	}
	e.claims = live
	for _, c := range e.claims {
		if c.instrument != p.src.Instrument || c.short != p.short || p.replaced {
			continue
		}
		// A piece partly replaced is split: the unreplaced rest stays
		// after it in the book and may replace the next loss.
		p = e.absorb(c, key, p)
		if p == nil {
			return
		}
	}
}

// absorb makes (part of) p the replacement of claim c, carrying the
// disallowed loss into its basis and the sold shares' holding period to it.
// It returns what is left of p unreplaced, or nil.
func (e *engine) absorb(c *claim, key bookKey, p *piece) *piece {
	q := decimal.Min(c.qty.Sub(c.replaced), p.qty)
	book := e.books[key]
	i := slices.Index(book, p)
	r := p
	var rest *piece
	if q.LessThan(p.qty) {
		r = p.take(q)
		rest = p
		book = slices.Insert(book, i, r)
		e.books[key] = book
	}
	c.replaced = c.replaced.Add(q)
	// Pro rata by quantity, rounded on the running total so the parts add
	// up to the whole loss once every share is replaced.
	washed := share(c.loss, c.replaced, c.qty)
	amount := washed.Sub(c.washed)
	c.washed = washed

	rec := c.rec
	r.carried = r.carried.Add(amount)
	r.replaced = true
	r.washedFrom = rec.ID
	r.wash = len(e.washes)
	if !r.short {
		r.holdFrom = r.src.date.AddDate(0, 0, -c.holdDays)
	}
	r.gaps = addGaps(r.gaps, rec.gaps...)
	rec.AdjustmentCode = "W"
	rec.Adjustment = rec.Adjustment.Add(amount)
	date := r.src.date.Format(dateLayout)
	rec.WashedTo = append(rec.WashedTo, WashTarget{FillID: r.src.ID, Account: r.src.Account, Date: date, Quantity: q, Amount: amount})
	e.washes = append(e.washes, WashSale{
		LossLot: rec.ID, Instrument: rec.Instrument, Account: rec.Account, Sold: rec.Sold,
		ReplacementFill: r.src.ID, ReplacementAccount: r.src.Account, ReplacementDate: date,
		Quantity: q, Disallowed: amount, DaysBetween: days(c.sold, r.src.date),
		ProRata: q.LessThan(c.qty), ReplacementLots: []string{},
	})
	return rest
}

// washesOf returns the wash sales whose loss lot was sold in the period.
func (e *engine) washesOf(from, to time.Time) []WashSale {
	out := []WashSale{}
	for _, w := range e.washes {
		d, _ := time.Parse(dateLayout, w.Sold)
		if !d.Before(from) && !d.After(to) {
			out = append(out, w)
		}
	}
	return out
}

// markThrough marks the Section 1256 contracts open at each year end up to
// and including year (US only).
func (e *engine) markThrough(year int) {
	if !e.us {
		return
	}
	for e.marked < year {
		e.marked++
		e.yearEnd(e.marked)
	}
}

// yearEnd treats every Section 1256 contract open at the end of year as
// sold at its mark on the last business day: the gain is that year's, and
// the mark becomes the contract's basis (or, for a short, its proceeds).
// A contract without a mark is left as it is and named in the report.
func (e *engine) yearEnd(year int) {
	day := lastBusinessDay(year)
	for _, k := range e.keys {
		for _, p := range e.books[k] {
			if !p.src.Section1256 {
				continue
			}
			price, ok := e.mark(year, p.src.Instrument)
			if !ok {
				g := gap{kind: MissingMark, day: day, instrument: p.src.Instrument, account: p.src.Account, qty: p.qty}
				p.gaps = addGaps(p.gaps, g)
				if year == e.req.Year {
					e.yearEndGaps = append(e.yearEndGaps, g)
				}
				continue
			}
			factor, g := convert(e.req.Rates, p.src.Currency, e.cur, day)
			value := price.Mul(p.qty).Mul(p.src.Multiplier).Mul(factor).Round(places)
			rec := e.newLot(fmt.Sprintf("mark-%d/%s", year, p.src.ID), p, day)
			rec.MarkToMarket = true
			rec.Mark = &price
			rec.DisposalFills = []string{}
			rec.Rule = "year-end mark"
			rec.Term = term1256
			if g != nil {
				g.instrument, g.account = p.src.Instrument, p.src.Account
				rec.gaps = addGaps(rec.gaps, *g)
				p.gaps = addGaps(p.gaps, *g)
			}
			m := Match{Rule: "fifo", FillID: p.src.ID, Account: p.src.Account, Date: p.src.date.Format(dateLayout), Quantity: p.qty}
			if p.markedOn != nil {
				m.Rule, m.Date = "year-end mark", p.markedOn.Format(dateLayout)
			}
			if p.short {
				rec.Short = true
				rec.Proceeds, rec.Basis = p.amount, value
				rec.Acquired = day.Format(dateLayout)
			} else {
				rec.Proceeds, rec.Basis = value, p.amount
				rec.Acquired = p.holdFrom.Format(dateLayout)
			}
			m.Cost = rec.Basis
			rec.Matches = []Match{m}
			p.amount = value
			d := day
			p.markedOn = &d
		}
	}
}

// mark is the year-end price of instrument: Marks for the report's year,
// MarksByYear for any year.
func (e *engine) mark(year int, instrument string) (decimal.Decimal, bool) {
	if year == e.req.Year {
		if v, ok := e.req.Marks[instrument]; ok {
			return v, true
		}
	}
	v, ok := e.req.MarksByYear[year][instrument]
	return v, ok
}

// lastBusinessDay is the last weekday of December: the day exchange
// settlement prices mark open Section 1256 contracts. Exchange holidays
// other than weekends are not known here.
func lastBusinessDay(year int) time.Time {
	d := time.Date(year, time.December, 31, 0, 0, 0, 0, time.UTC)
	for d.Weekday() == time.Saturday || d.Weekday() == time.Sunday {
		d = d.AddDate(0, 0, -1)
	}
	return d
}

// box is the Form 8949 box of a lot of term in an account reported so.
func box(term string, b BasisReporting) string {
	boxes := "ABC"
	if term == "long" {
		boxes = "DEF"
	}
	switch b {
	case BasisNotReported:
		return boxes[1:2]
	case NoForm1099B:
		return boxes[2:3]
	}
	return boxes[:1]
}

// possiblyIdentical lists US losses (before any wash adjustment, 1256
// excepted) with a purchase of another instrument on the same underlying
// within 30 days of the sale (for a short sale's loss: a sale), one entry
// per loss and instrument naming the nearest purchase. They are listed for
// the taxpayer to judge, never washed.
func possiblyIdentical(lots []Lot, trades []*trade) []PossiblyIdentical {
	out := []PossiblyIdentical{}
	// The trades of each underlying, in time order (trades are sorted):
	// a loss looks only at its 61-day window.
	byUnderlying := map[string][]*trade{}
	for _, t := range trades {
		if t.Underlying != "" {
			u := strings.ToUpper(t.Underlying)
			byUnderlying[u] = append(byUnderlying[u], t)
		}
	}
	for _, l := range lots {
		if l.Section1256 || l.Underlying == "" || !l.Proceeds.LessThan(l.Basis) {
			continue
		}
		sold, _ := time.Parse(dateLayout, l.Sold)
		side := Buy
		if l.Short {
			side = Sell
		}
		near := byUnderlying[strings.ToUpper(l.Underlying)]
		first := sold.AddDate(0, 0, -washWindow)
		i, _ := slices.BinarySearchFunc(near, first, func(t *trade, day time.Time) int { return t.date.Compare(day) })
		at := map[string]int{} // other instrument -> its entry in out
		for _, t := range near[i:] {
			d := days(sold, t.date)
			if d > washWindow {
				break
			}
			if t.Instrument == l.Instrument || t.Side != side {
				continue
			}
			if j, ok := at[t.Instrument]; ok {
				p := &out[j]
				p.Purchases++
				if abs(d) < abs(p.DaysBetween) {
					p.FillID, p.Account, p.Date, p.DaysBetween = t.ID, t.Account, t.date.Format(dateLayout), d
				}
				continue
			}
			at[t.Instrument] = len(out)
			out = append(out, PossiblyIdentical{LossLot: l.ID, Instrument: l.Instrument, Sold: l.Sold,
				Loss: l.Basis.Sub(l.Proceeds), Other: t.Instrument, FillID: t.ID, Account: t.Account,
				Date: t.date.Format(dateLayout), DaysBetween: d, Purchases: 1})
		}
	}
	return out
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
