package tax

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/fx"
)

// places is the precision of every amount of a report: cents (pence). Each
// trade's amounts are converted and rounded once; every later split rounds
// one part and gives the other the rest, so lots add up to the trades
// exactly and no cent appears or disappears.
const places = 2

// dateLayout is how a report writes a date.
const dateLayout = "2006-01-02"

// various is the acquisition date of a lot whose basis has several dates.
const various = "VARIOUS"

// trade is a validated Trade with what every rule needs of it: its date in
// the taxpayer's zone and its amounts in the report's currency.
type trade struct {
	Trade
	idx   int       // the order after sorting: ties at one instant keep the request's order
	date  time.Time // the civil date in the zone, as midnight UTC
	gross decimal.Decimal
	fees  decimal.Decimal
	gaps  []gap // an exchange rate this trade lacks
}

// gap is one missing input behind a figure.
type gap struct {
	kind       string
	pair       string
	day        time.Time
	instrument string
	account    string
	qty        decimal.Decimal
}

// Compute builds the report of req.Year under req.Jurisdiction's rules.
// It returns an apperr VALIDATION_ERROR naming the field for a request that
// cannot be computed (an unknown jurisdiction, a trade without a quantity);
// data that only makes a figure wrong (a missing rate or mark) is listed in
// Report.Missing instead.
func Compute(req Request) (Report, error) {
	cur, err := validate(&req)
	if err != nil {
		return Report{}, err
	}
	trades := prepare(req, cur)
	from, to := period(req.Jurisdiction, req.Year)
	r := Report{
		Jurisdiction:      req.Jurisdiction,
		Year:              req.Year,
		From:              from.Format(dateLayout),
		To:                to.Format(dateLayout),
		Currency:          cur,
		Lots:              []Lot{},
		WashSales:         []WashSale{},
		PossiblyIdentical: []PossiblyIdentical{},
		Missing:           []Missing{},
	}
	var recs []*lotRec
	var extra []gap
	switch req.Jurisdiction {
	case UK:
		r.Method = "same day, 30 days, Section 104 pool"
		recs = matchUK(trades)
	default:
		r.Method = "FIFO"
		e := newEngine(req, cur, trades)
		e.run()
		recs, extra = e.recs, e.yearEndGaps
		if req.Jurisdiction == US {
			r.WashSales = e.washesOf(from, to)
		}
	}
	var gaps []gap
	for _, rec := range recs {
		if rec.sold.Before(from) || rec.sold.After(to) {
			continue
		}
		if len(rec.gaps) > 0 {
			rec.Incomplete = true
			gaps = addGaps(gaps, rec.gaps...)
		}
		rec.Gain = rec.Proceeds.Sub(rec.Basis).Add(rec.Adjustment)
		if req.Jurisdiction == US && rec.Term != term1256 {
			rec.Box = box(rec.Term, req.Reporting[rec.Account])
		}
		r.Lots = append(r.Lots, rec.Lot)
	}
	if req.Jurisdiction == US {
		r.PossiblyIdentical = possiblyIdentical(r.Lots, trades)
		r.Section1256 = section1256(r.Lots)
	}
	r.Totals = totals(req.Jurisdiction, r.Lots)
	r.Missing = missing(append(gaps, extra...))
	return r, nil
}

// validate checks the request and returns the report's currency.
func validate(req *Request) (string, error) {
	var bad []apperr.FieldError
	add := func(field, msg string) { bad = append(bad, apperr.FieldError{Field: field, Message: msg}) }
	cur := strings.ToUpper(strings.TrimSpace(req.Currency))
	switch req.Jurisdiction {
	case US, UK:
		want := "USD"
		if req.Jurisdiction == UK {
			want = "GBP"
		}
		if cur == "" {
			cur = want
		} else if cur != want {
			add("currency", "must be "+want+" for jurisdiction "+string(req.Jurisdiction))
		}
	case Other:
		if cur == "" {
			add("currency", "is required for jurisdiction other")
		}
	default:
		add("jurisdiction", "must be us, uk or other")
	}
	if req.Year < 1900 || req.Year > 9998 {
		add("year", "must be between 1900 and 9998")
	}
	if req.Zone == nil {
		add("zone", "is required")
	}
	for acct, b := range req.Reporting {
		if b != "" && b != BasisReported && b != BasisNotReported && b != NoForm1099B {
			add("reporting."+acct, "must be reported, not_reported or none")
		}
	}
	seen := make(map[string]bool, len(req.Trades))
	for i, t := range req.Trades {
		f := func(name string) string { return fmt.Sprintf("trades[%d].%s", i, name) }
		switch {
		case t.ID == "":
			add(f("id"), "is required")
		case seen[t.ID]:
			add(f("id"), "is used by two trades")
		}
		seen[t.ID] = true
		if t.Account == "" {
			add(f("account"), "is required")
		}
		if t.Instrument == "" {
			add(f("instrument"), "is required")
		}
		if t.Side != Buy && t.Side != Sell {
			add(f("side"), "must be buy or sell")
		}
		if t.Time.IsZero() || t.Time.Year() < 1900 || t.Time.Year() > 9998 {
			add(f("time"), "must be a time between the years 1900 and 9998")
		}
		if !t.Quantity.IsPositive() {
			add(f("quantity"), "must be greater than 0")
		}
		if !t.Multiplier.IsPositive() {
			add(f("multiplier"), "must be greater than 0")
		}
		if t.Price.IsNegative() {
			add(f("price"), "must not be negative")
		}
		if t.Fees.IsNegative() {
			add(f("fees"), "must not be negative")
		}
		if strings.TrimSpace(t.Currency) == "" {
			add(f("currency"), "is required")
		}
	}
	return cur, apperr.Fields(bad)
}

// prepare sorts the trades by time (a tie keeps the request's order) and
// converts their amounts into cur at their own date's rate. A missing rate
// leaves the amount at zero and names the gap, so the lots it reaches are
// marked incomplete and the report lists the pair and day.
func prepare(req Request, cur string) []*trade {
	out := make([]*trade, len(req.Trades))
	for i, t := range req.Trades {
		t.Currency = strings.ToUpper(strings.TrimSpace(t.Currency))
		out[i] = &trade{Trade: t, date: civil(t.Time, req.Zone)}
	}
	slices.SortStableFunc(out, func(a, b *trade) int { return a.Time.Compare(b.Time) })
	for i, t := range out {
		t.idx = i
		value := t.Price.Mul(t.Quantity).Mul(t.Multiplier)
		factor, g := convert(req.Rates, t.Currency, cur, t.date)
		if g != nil {
			g.instrument, g.account = t.Instrument, t.Account
			t.gaps = addGaps(t.gaps, *g)
		}
		t.gross = value.Mul(factor).Round(places)
		t.fees = t.Fees.Mul(factor).Round(places)
	}
	return out
}

// convert returns the factor from one currency into another on day, or a
// zero factor and the gap when there is no rate.
func convert(rates []fx.Rate, from, to string, day time.Time) (decimal.Decimal, *gap) {
	f, ok := fx.Spot(rates, from, to, day)
	if !ok {
		return decimal.Zero, &gap{kind: MissingRate, pair: fx.Pair(from, to), day: day}
	}
	return f, nil
}

// civil is t's calendar date in loc, as midnight UTC (the form fx.Rate
// dates take).
func civil(t time.Time, loc *time.Location) time.Time {
	y, m, d := t.In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// period is the first and last day of the tax year.
func period(j Jurisdiction, year int) (time.Time, time.Time) {
	if j == UK {
		return time.Date(year, time.April, 6, 0, 0, 0, 0, time.UTC), time.Date(year+1, time.April, 5, 0, 0, 0, 0, time.UTC)
	}
	return time.Date(year, time.January, 1, 0, 0, 0, 0, time.UTC), time.Date(year, time.December, 31, 0, 0, 0, 0, time.UTC)
}

// days is the number of calendar days from a to b (civil dates).
func days(a, b time.Time) int { return int(b.Sub(a).Hours() / 24) }

// share is amount's part for q of total, rounded to cents; the whole
// amount when q is the total, so the last part takes what rounding left.
func share(amount, q, total decimal.Decimal) decimal.Decimal {
	if q.Equal(total) {
		return amount
	}
	return amount.Mul(q).DivRound(total, places)
}

// lotRec is a lot while it is built: its sale date as a time and the gaps
// behind its figures.
type lotRec struct {
	Lot
	sold time.Time
	gaps []gap
}

// addGaps adds to dst the gaps it does not name yet: a gap reaches a
// figure through many paths (a wash chain, the UK pool) but is one
// problem.
func addGaps(dst []gap, src ...gap) []gap {
	for _, g := range src {
		if !slices.ContainsFunc(dst, g.same) {
			dst = append(dst, g)
		}
	}
	return dst
}

// same reports whether two gaps are one problem: a rate of one pair and
// day, or a mark or match of one instrument, account and day.
func (g gap) same(o gap) bool {
	if g.kind != o.kind || !g.day.Equal(o.day) {
		return false
	}
	if g.kind == MissingRate {
		return g.pair == o.pair
	}
	return g.instrument == o.instrument && g.account == o.account
}

// missing groups the gaps into the report's list: one entry per pair with
// its days, one per mark or unmatched disposal, in a stable order.
func missing(gaps []gap) []Missing {
	out := []Missing{}
	rateDays := map[string][]string{}
	var pairs []string
	seen := map[string]bool{}
	for _, g := range gaps {
		day := g.day.Format(dateLayout)
		switch g.kind {
		case MissingRate:
			if _, ok := rateDays[g.pair]; !ok {
				pairs = append(pairs, g.pair)
			}
			if !slices.Contains(rateDays[g.pair], day) {
				rateDays[g.pair] = append(rateDays[g.pair], day)
			}
		default:
			key := g.kind + "|" + g.instrument + "|" + g.account + "|" + day
			if seen[key] {
				continue
			}
			seen[key] = true
			q := g.qty
			m := Missing{Kind: g.kind, Instrument: g.instrument, Account: g.account, Date: day, Quantity: &q}
			if g.kind == MissingMark {
				m.Message = fmt.Sprintf("no year-end mark for %s (%s open in account %s on %s): its Section 1256 gain is not marked to market", g.instrument, q, g.account, day)
			} else {
				m.Message = fmt.Sprintf("%s %s disposed of on %s has no acquisition to match yet: its cost is incomplete", q, g.instrument, day)
			}
			out = append(out, m)
		}
	}
	slices.Sort(pairs)
	rates := make([]Missing, 0, len(pairs))
	for _, p := range pairs {
		ds := rateDays[p]
		slices.Sort(ds)
		rates = append(rates, Missing{Kind: MissingRate, Pair: p, Days: ds,
			Message: fmt.Sprintf("no %s exchange rate on or before %s: amounts of those days count as 0", p, strings.Join(ds, ", "))})
	}
	return append(rates, out...)
}
