// Package money parses and formats the decimal strings the API carries for
// prices and amounts. JSON numbers lose precision in most clients, so every
// decimal crosses the wire as a string in one strict grammar, and every
// figure the API returns is rounded in one place.
package money

import (
	"errors"

	"github.com/shopspring/decimal"
)

// Bounds on the digits Parse accepts. They bound the cost of the arithmetic
// that follows (shopspring/decimal is arbitrary precision) far above anything
// a trade journal needs.
const (
	MaxIntDigits  = 30
	MaxFracDigits = 20
)

// The errors of Parse. Their text is short and safe to show a client as the
// message of a field error ("<field> must be a decimal string like 123.45").
var (
	ErrFormat  = errors.New("must be a decimal string like 123.45")
	ErrTooLong = errors.New("must have at most 30 digits before the decimal point and 20 after it")
)

// Parse reads a decimal string of the form -?[0-9]+(\.[0-9]+)? with at most
// MaxIntDigits integer digits (leading zeros count) and MaxFracDigits
// fraction digits. Anything else is refused rather than guessed at:
// surrounding whitespace, "+", ".5", "5.", exponents, thousands separators,
// NaN, Infinity and the empty string. Values of up to 18 digits skip
// decimal's general string parser (the common case, and the cheap one).
func Parse(s string) (decimal.Decimal, error) {
	i := 0
	neg := false
	if i < len(s) && s[i] == '-' {
		neg = true
		i++
	}
	intStart := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intDigits := i - intStart
	if intDigits == 0 {
		return decimal.Zero, ErrFormat
	}
	fracStart, fracDigits := i, 0
	if i < len(s) && s[i] == '.' {
		i++
		fracStart = i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		fracDigits = i - fracStart
		if fracDigits == 0 {
			return decimal.Zero, ErrFormat
		}
	}
	if i != len(s) {
		return decimal.Zero, ErrFormat
	}
	if intDigits > MaxIntDigits || fracDigits > MaxFracDigits {
		return decimal.Zero, ErrTooLong
	}
	if intDigits+fracDigits > 18 {
		// The grammar is a subset of NewFromString's, so this cannot fail.
		return decimal.NewFromString(s)
	}
	var v int64
	for _, c := range []byte(s[intStart : intStart+intDigits]) {
		v = v*10 + int64(c-'0')
	}
	for _, c := range []byte(s[fracStart : fracStart+fracDigits]) {
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return decimal.New(v, -int32(fracDigits)), nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// Round2 formats d rounded half away from zero to exactly 2 decimal places:
// 1.005 gives "1.01" and -1.005 gives "-1.01" (half-up on the magnitude, so
// a loss rounds the same way as the matching gain). The form of every money
// figure the API returns.
func Round2(d decimal.Decimal) string { return RoundN(d, 2) }

// RoundN is Round2 with a chosen number of places: the same string as
// d.StringFixed(places). places must be >= 0; a negative value rounds left
// of the point, as StringFixed does.
//
// It formats coefficients of up to 18 digits itself because big.Int's
// decimal conversion dominates the cost of a calculator response; the
// rounding is still decimal's.
func RoundN(d decimal.Decimal, places int32) string {
	if places < 0 || places > MaxFracDigits {
		return d.StringFixed(places)
	}
	if exp := d.Exponent(); exp > 0 || exp < -places {
		d = d.Round(places) // exponent -places from here on
	}
	if d.NumDigits() > 18 {
		return d.StringFixed(places)
	}
	return formatFixed(d.CoefficientInt64(), int(d.Exponent()+places), int(places))
}

// formatFixed writes (c followed by pad zeros) x 10^-places with exactly
// places fraction digits: formatFixed(-5, 1, 2) is "-0.50". It is string
// building only; c has at most 18 digits and pad <= places <= MaxFracDigits.
func formatFixed(c int64, pad, places int) string {
	var buf [18 + MaxFracDigits + 3]byte // digits, pad zeros, "-", ".", a leading "0"
	i := len(buf)
	u := uint64(c)
	if c < 0 {
		u = -u
	}
	next := func() byte {
		if pad > 0 {
			pad--
			return '0'
		}
		b := byte('0' + u%10)
		u /= 10
		return b
	}
	for range places {
		i--
		buf[i] = next()
	}
	if places > 0 {
		i--
		buf[i] = '.'
	}
	for {
		i--
		buf[i] = next()
		if pad == 0 && u == 0 {
			break
		}
	}
	if c < 0 {
		i--
		buf[i] = '-'
	}
	return string(buf[i:])
}
