package instrument

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"tradejournal/shared/apperr"

	"github.com/shopspring/decimal"
)

// Future is a futures contract as its symbol spells it.
type Future struct {
	Root  string    // the product, "ES"
	Month time.Time // the first day of the contract month (UTC)
}

// monthCodes are the exchanges' contract month letters, January to December.
const monthCodes = "FGHJKMNQUVXZ"

// Symbol is the canonical contract symbol: root, month code and two-digit
// year ("ESZ24"), whatever form it was read from.
func (f Future) Symbol() string {
	return f.Root + string(monthCodes[f.Month.Month()-1]) + f.Month.Format("06")
}

// PointValue is the built-in point value of the contract's root (the
// currency amount one point of price moves one contract), and whether the
// root has one.
func (f Future) PointValue() (decimal.Decimal, bool) {
	v, ok := pointValues[f.Root]
	return v, ok
}

// ErrFuture is ParseFuture's one error; its text is written for a client.
var ErrFuture = errors.New(`must be a futures contract such as "ESZ24", "ESZ4" or "/ESZ24" (root of 1 to 4 letters or digits, month code F G H J K M N Q U V X Z, year)`)

// ParseFuture reads a futures contract symbol: an optional "/" (as
// thinkorswim writes it), a root of 1 to 4 letters or digits ("ES", "MNQ",
// "6E", "M2K"), a month code, and a year of 2 digits (20YY) or 1. A one-digit
// year names the first year ending in that digit from the year before ref
// on: a file traded in 2024 means 2024 by "ESZ4", 2030 by "ESZ0"; ref is
// when the contract was traded (the first fill), or now. Contracts of
// 2000 to 2099 only (the canonical two digits say no more). Letters may be
// lowercase; an exchange suffix after a colon ("/ESZ24:XCME") is dropped.
func ParseFuture(s string, ref time.Time) (Future, error) {
	s = strings.ToUpper(strings.TrimSpace(s))
	s = strings.TrimPrefix(s, "/")
	if i := strings.IndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	digits := len(s)
	for digits > 0 && s[digits-1] >= '0' && s[digits-1] <= '9' {
		digits--
	}
	yearDigits := len(s) - digits
	if yearDigits < 1 || yearDigits > 2 || digits < 2 || digits > 5 {
		return Future{}, ErrFuture
	}
	month := strings.IndexByte(monthCodes, s[digits-1])
	root := s[:digits-1]
	if month < 0 {
		return Future{}, ErrFuture
	}
	for _, c := range []byte(root) {
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return Future{}, ErrFuture
		}
	}
	year := 0
	for _, c := range []byte(s[digits:]) {
		year = year*10 + int(c-'0')
	}
	if yearDigits == 2 {
		year += 2000
	} else {
		from := ref.UTC().Year() - 1
		year = from + ((year-from)%10+10)%10
	}
	if year < 2000 || year > 2099 {
		return Future{}, ErrFuture // the canonical two digits could not say it
	}
	return Future{Root: root, Month: time.Date(year, time.Month(month+1), 1, 0, 0, 0, 0, time.UTC)}, nil
}

// pointValues are the point values of common CME Group (CME, CBOT, NYMEX,
// COMEX) and Cboe futures, in US dollars a point of the quoted price. A
// root that is not here needs its multiplier given.
var pointValues = func() map[string]decimal.Decimal {
	table := map[string]string{
		// Equity indexes.
		"ES": "50", "MES": "5", "NQ": "20", "MNQ": "2", "YM": "5", "MYM": "0.5",
		"RTY": "50", "M2K": "5", "EMD": "100", "NKD": "5",
		// Energy (NYMEX).
		"CL": "1000", "MCL": "100", "QM": "500", "NG": "10000", "QG": "2500",
		"RB": "42000", "HO": "42000",
		// Metals (COMEX, NYMEX).
		"GC": "100", "MGC": "10", "SI": "5000", "SIL": "1000", "HG": "25000",
		"MHG": "2500", "PL": "50", "PA": "100",
		// Interest rates (CBOT): points of par.
		"ZB": "1000", "UB": "1000", "ZN": "1000", "TN": "1000", "ZF": "1000",
		"ZT": "2000",
		// Grains and livestock (CBOT, CME): cents a bushel or a pound.
		"ZC": "50", "ZS": "50", "ZW": "50", "ZL": "600", "ZM": "100",
		"LE": "400", "HE": "400", "GF": "500",
		// Currencies (CME): US dollars per unit of the currency.
		"6E": "125000", "M6E": "12500", "6J": "12500000", "6B": "62500",
		"6A": "100000", "6C": "100000", "6S": "125000", "6N": "100000",
		"6M": "500000",
		// Volatility and crypto.
		"VX": "1000", "BTC": "5", "MBT": "0.1", "ETH": "50", "MET": "0.1",
	}
	m := make(map[string]decimal.Decimal, len(table))
	for root, v := range table {
		m[root] = decimal.RequireFromString(v)
	}
	return m
}()

// SettleMultiplier sets a future's or a futures option's multiplier: given
// (a client's value, which wins), else the root's built-in point value.
// With neither it returns a problem of the multiplier field. A CFD's or a
// crypto contract's given multiplier is its value per point (a CFD on an
// index: the currency amount one point moves one contract), else 1. Stocks,
// options and forex have theirs fixed (a forex quantity is in units).
func (in *Instrument) SettleMultiplier(given *decimal.Decimal) error {
	f := in.Contract()
	switch {
	case (in.AssetType == AssetCFD || in.AssetType == AssetCrypto) && given != nil:
		in.Multiplier = *given
		return nil
	case f == nil && given != nil:
		return apperr.Invalid("multiplier", "applies only to futures, futures options, CFDs and crypto contracts (stocks and forex have 1, options 100)")
	case f == nil:
		return nil
	case given != nil:
		in.Multiplier = *given
		return nil
	}
	v, ok := f.PointValue()
	if !ok {
		return apperr.Invalid("multiplier", fmt.Sprintf("is required for a future of root %s, which has no built-in point value (the amount one point of price moves one contract)", f.Root))
	}
	in.Multiplier = v
	return nil
}
