package instrument

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// FutureOption is an option on a futures contract: its underlying future,
// its last trading day, right and strike. Its multiplier is the future's
// point value: one point of premium is worth what one point of the future
// is (an ES option at 50.25 costs 50.25 x 50 = $2,512.50).
type FutureOption struct {
	Future Future
	Expiry time.Time       // the last trading day (midnight UTC)
	Right  string          // "C" or "P"
	Strike decimal.Decimal // in the future's price units
}

// Symbol is the canonical symbol: "./", the future's canonical contract, a
// space, the expiry YYMMDD, C or P and the strike as written ("./ESZ24
// 241220C5000"). The exchange's series code (EW4, E2C) is not part of it:
// the future, expiry, right and strike say the same contract, so a fill
// recorded from "./ESZ4 EW4X4 241122C5900" and one typed as
// "./ESZ24 241122C5900" are one position.
func (o FutureOption) Symbol() string {
	return "./" + o.Future.Symbol() + " " + o.Expiry.Format("060102") + o.Right + o.Strike.String()
}

// Label is how a person says the contract: "ES Dec 2024 5000 call".
func (o FutureOption) Label() string {
	right := "call"
	if o.Right == "P" {
		right = "put"
	}
	return o.Future.Root + " " + o.Future.Month.Format("Jan 2006") + " " + o.Strike.String() + " " + right
}

// FutureOptionForms lists the forms ParseFutureOption reads, for messages.
const FutureOptionForms = `"./ESZ24 241220C5000" (the future, expiry YYMMDD, C or P, strike), ` +
	`"./ESZ4 EW4X4 241122C5900" (tastytrade), "./ESZ24C5000", "/ESZ4 C5000", "ESZ24 P4800" ` +
	`(no expiry: an equity index future's quarterly option, or the expiry given), ` +
	`"./EW4X24C5900" (a CME series code) or "/ESZ24 /EW4X24 5900 CALL" (thinkorswim)`

// ErrFutureOption is ParseFutureOption's error for text that is not a
// futures option; its text is written for a client.
var ErrFutureOption = errors.New("must be a futures option such as " + FutureOptionForms)

// ExpiryProblem is ParseFutureOption's error for a contract whose expiry
// cannot be known or does not fit it; its text is written for a client.
type ExpiryProblem struct{ Msg string }

func (e *ExpiryProblem) Error() string { return e.Msg }

var (
	// rightStrike is a right and strike at the end of a token, after the
	// code or the expiry they belong to: "ESZ24C5000", "241122C5900", "C5000".
	rightStrike = regexp.MustCompile(`^(.*?)([CP])([0-9]{1,10}(?:\.[0-9]{1,8})?)$`)
	yymmdd      = regexp.MustCompile(`^[0-9]{6}$`)
	strikeText  = regexp.MustCompile(`^[0-9]{1,10}(?:\.[0-9]{1,8})?$`)
	// code is a futures or series code: a root, a month code and a year.
	code = regexp.MustCompile(`^[A-Z0-9]{1,5}[FGHJKMNQUVXZ][0-9]{1,2}$`)
)

// ParseFutureOption reads a futures option in the forms the platforms write
// (FutureOptionForms): a leading "./", "." or "/" and exchange suffixes
// (":XCME") are dropped, letters may be lowercase. A one-digit year is read
// as ParseFuture reads it, from ref. The expiry is the one written (YYMMDD),
// else expiry when given (an expiry column, the API's field), else what the
// CME series code says (EW4X24: the fourth Friday of November 2024), else,
// for an equity index future, its quarterly option's (the third Friday of
// the contract month). A contract whose expiry none of them gives is an
// *ExpiryProblem, never a guess; so is an expiry after the future's month.
func ParseFutureOption(s string, ref time.Time, expiry *time.Time) (FutureOption, error) {
	tokens := strings.Fields(strings.ToUpper(s))
	if len(tokens) == 0 || len(tokens) > 12 || len(s) > 96 {
		return FutureOption{}, ErrFutureOption
	}
	for i, t := range tokens {
		t = strings.TrimPrefix(strings.TrimPrefix(t, "."), "/")
		if j := strings.IndexByte(t, ':'); j > 0 {
			t = t[:j]
		}
		tokens[i] = t
	}
	var right, strike, date string
	var codes []string
	if last := tokens[len(tokens)-1]; last == "CALL" || last == "PUT" {
		// thinkorswim: "/ESZ24 /EW4X24 5900 CALL", or its description
		// "/ESZ24:XCME 1/50 DEC 24 (EW4) /EW4X24:XCME 5900 CALL".
		if len(tokens) < 3 || !strikeText.MatchString(tokens[len(tokens)-2]) {
			return FutureOption{}, ErrFutureOption
		}
		right, strike = last[:1], tokens[len(tokens)-2]
		for _, t := range tokens[:len(tokens)-2] {
			if code.MatchString(t) {
				codes = append(codes, t)
			}
		}
	} else {
		m := rightStrike.FindStringSubmatch(last)
		if m == nil {
			return FutureOption{}, ErrFutureOption
		}
		right, strike = m[2], m[3]
		codes = tokens[:len(tokens)-1]
		switch {
		case yymmdd.MatchString(m[1]):
			date = m[1]
		case m[1] != "":
			codes = append(codes, m[1])
		}
	}
	if len(codes) == 0 || len(codes) > 2 {
		return FutureOption{}, ErrFutureOption
	}
	k, err := decimal.NewFromString(strike)
	if err != nil || !k.IsPositive() {
		return FutureOption{}, ErrFutureOption
	}
	var written time.Time
	if date != "" {
		if written, err = time.Parse("20060102", "20"+date); err != nil {
			return FutureOption{}, ErrFutureOption
		}
		ref = written // a one-digit year is the first from the expiry's on
	}
	fut, ser, err := futureAndSeries(codes, ref)
	if err != nil {
		return FutureOption{}, err
	}
	o := FutureOption{Future: fut, Right: right, Strike: k}
	switch {
	case date != "":
		o.Expiry = written
	case expiry != nil:
		y, m, d := expiry.Date()
		o.Expiry = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	case ser != nil:
		d, err := ser.expiry()
		if err != nil {
			return FutureOption{}, err
		}
		o.Expiry = d
	default:
		q, ok := seriesCodes[fut.Root]
		if !ok {
			return FutureOption{}, &ExpiryProblem{fmt.Sprintf("%q names no expiry, and the options on %s futures have no one expiry rule here: write the expiry (YYMMDD, as in \"./%s 241220C5000\") or give it in its own field", strings.TrimSpace(s), fut.Root, fut.Symbol())}
		}
		d, _ := series{rule: q, month: fut.Month}.expiry()
		o.Expiry = d
	}
	if len(o.Symbol()) > MaxSymbol {
		return FutureOption{}, ErrFutureOption
	}
	if o.Expiry.Year() < 2000 || o.Expiry.Year() > 2099 || !o.Expiry.Before(fut.Month.AddDate(0, 1, 0)) {
		return FutureOption{}, &ExpiryProblem{fmt.Sprintf("the expiry %s is after the contract month of %s, which an option on it cannot be", o.Expiry.Format(time.DateOnly), fut.Symbol())}
	}
	return o, nil
}

// futureAndSeries reads the codes before the right and strike: the future
// and a series code ("ESZ4", "EW4X4"), the two joined as tastytrade writes
// them ("MESM6EXK6"), the future alone, or a series code alone, whose
// future is the product's next quarterly contract (EW4X24: ESZ24).
func futureAndSeries(codes []string, ref time.Time) (Future, *series, error) {
	if len(codes) == 2 {
		f, err := ParseFuture(codes[0], ref)
		if err != nil || !code.MatchString(codes[1]) {
			return Future{}, nil, ErrFutureOption
		}
		s, _ := parseSeries(codes[1], ref)
		if s != nil && s.rule.root != f.Root {
			return Future{}, nil, &ExpiryProblem{fmt.Sprintf("the series %s is an option on %s futures, not on %s", codes[1], s.rule.root, f.Symbol())}
		}
		return f, s, nil
	}
	c := codes[0]
	// Joined: the future ends at a year digit that a series code (which
	// starts with a letter) follows.
	for i := 3; i < len(c)-2; i++ {
		if c[i-1] < '0' || c[i-1] > '9' || c[i] < 'A' || c[i] > 'Z' || !code.MatchString(c[i:]) {
			continue
		}
		if f, err := ParseFuture(c[:i], ref); err == nil {
			s, _ := parseSeries(c[i:], ref)
			if s != nil && s.rule.root != f.Root {
				s = nil
			}
			return f, s, nil
		}
	}
	if s, ok := parseSeries(c, ref); ok && s.rule.kind != quarterly {
		return s.future(), s, nil
	}
	f, err := ParseFuture(c, ref)
	if err != nil {
		return Future{}, nil, ErrFutureOption
	}
	return f, nil, nil
}

// The ways a CME equity index option series expires.
const (
	quarterly  = iota // the third Friday of the month, with the future
	endOfMonth        // the last weekday of the month
	weekly            // the nth given weekday of the month
)

// seriesRule is one option series: the future root it is written on and
// how its expiry falls in the month its code names.
type seriesRule struct {
	root    string
	kind    int
	n       int // weekly: which of the month's weekdays, 1 to 5
	weekday time.Weekday
}

// seriesCodes are the CME series codes of the equity index options the
// retail platforms trade, by code without month and year: the quarterly
// options (the root's own code), the end-of-month ones (EW, EX, QNE), the
// Friday weeklies (EW1-EW4, EX1-EX4, QN1-QN4) and the Monday to Thursday
// weeklies (E1A ... E5D, X1A ... X5D, Q1A ... Q5D). Expiries fall on
// weekdays as listed; an exchange holiday that moves one is not known here
// (only the expiry job's timing depends on it, never P&L).
var seriesCodes = func() map[string]seriesRule {
	m := map[string]seriesRule{}
	for _, root := range []string{"ES", "MES", "NQ", "MNQ", "RTY", "M2K", "YM", "MYM"} {
		m[root] = seriesRule{root: root, kind: quarterly}
	}
	for _, f := range []struct{ root, eom, friday, daily string }{
		{"ES", "EW", "EW", "E"}, {"MES", "EX", "EX", "X"}, {"NQ", "QNE", "QN", "Q"},
	} {
		m[f.eom] = seriesRule{root: f.root, kind: endOfMonth}
		for n := 1; n <= 4; n++ {
			m[fmt.Sprintf("%s%d", f.friday, n)] = seriesRule{root: f.root, kind: weekly, n: n, weekday: time.Friday}
		}
		for n := 1; n <= 5; n++ {
			for i, day := range "ABCD" {
				m[fmt.Sprintf("%s%d%c", f.daily, n, day)] = seriesRule{root: f.root, kind: weekly, n: n, weekday: time.Monday + time.Weekday(i)}
			}
		}
	}
	return m
}()

// series is a series code read: its rule and the month it names.
type series struct {
	rule  seriesRule
	month time.Time
}

// parseSeries reads a series code ("EW4X24", "E2CF6") of seriesCodes.
func parseSeries(c string, ref time.Time) (*series, bool) {
	f, err := ParseFuture(c, ref) // the same shape: a prefix, a month code, a year
	if err != nil {
		return nil, false
	}
	r, ok := seriesCodes[f.Root]
	if !ok {
		return nil, false
	}
	return &series{rule: r, month: f.Month}, true
}

// future is the contract a series is written on: the first quarterly
// month (March, June, September, December) from the series' month on.
func (s series) future() Future {
	m := s.month
	for m.Month()%3 != 0 {
		m = m.AddDate(0, 1, 0)
	}
	return Future{Root: s.rule.root, Month: m}
}

// expiry is the series' last trading day in its month.
func (s series) expiry() (time.Time, error) {
	m := s.month
	switch s.rule.kind {
	case endOfMonth:
		d := m.AddDate(0, 1, -1)
		for d.Weekday() == time.Saturday || d.Weekday() == time.Sunday {
			d = d.AddDate(0, 0, -1)
		}
		return d, nil
	case quarterly:
		return nthWeekday(m, 3, time.Friday), nil
	}
	d := nthWeekday(m, s.rule.n, s.rule.weekday)
	if d.Month() != m.Month() {
		return time.Time{}, &ExpiryProblem{fmt.Sprintf("%s %s has no %s number %d", s.rule.root, m.Format("Jan 2006"), s.rule.weekday, s.rule.n)}
	}
	return d, nil
}

// nthWeekday is the nth weekday of the month m starts (it may fall in the
// next month when n is 5).
func nthWeekday(m time.Time, n int, day time.Weekday) time.Time {
	first := m.AddDate(0, 0, (int(day)-int(m.Weekday())+7)%7)
	return first.AddDate(0, 0, 7*(n-1))
}
