package instrument

import (
	"errors"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Option is an option contract as its OCC symbol spells it.
type Option struct {
	Underlying string          // the OCC root, "AAPL"
	Expiry     time.Time       // the expiration date (midnight UTC)
	Right      string          // "C" (call) or "P" (put)
	Strike     decimal.Decimal // in the underlying's currency
}

// Symbol is the canonical 21-character OCC symbol: the root padded with
// spaces to 6, YYMMDD, C or P, and the strike x 1000 in 8 digits.
func (o Option) Symbol() string {
	strike := o.Strike.Shift(3).IntPart()
	digits := decimal.NewFromInt(strike).String()
	return o.Underlying + strings.Repeat(" ", 6-len(o.Underlying)) + o.Expiry.Format("060102") + o.Right +
		strings.Repeat("0", 8-len(digits)) + digits
}

// ErrOCC is ParseOCC's one error; its text is written for a client.
var ErrOCC = errors.New(`must be an OCC option symbol such as "AAPL  240119C00190000" (root, YYMMDD, C or P, strike x 1000 in 8 digits)`)

// ParseOCC reads an OCC option symbol: a root of 1 to 6 letters or digits
// (starting with a letter; adjusted contracts add a digit, "AAPL1"), padded
// with spaces (to 6 characters, or fewer) or not padded at all
// ("AAPL240119C00190000"),
// then the expiry YYMMDD (20YY), C or P, and the strike x 1000 in exactly 8
// digits. Letters may be lowercase. The strike must be above zero and the
// date must exist.
func ParseOCC(s string) (Option, error) {
	s = strings.ToUpper(strings.TrimSpace(s))
	if len(s) < 16 || len(s) > 21 {
		return Option{}, ErrOCC
	}
	tail := s[len(s)-15:]
	root := strings.TrimRight(s[:len(s)-15], " ")
	if root == "" || len(root) > 6 || root[0] < 'A' || root[0] > 'Z' {
		return Option{}, ErrOCC
	}
	for _, c := range []byte(root) {
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return Option{}, ErrOCC
		}
	}
	date, right, strike := tail[:6], tail[6:7], tail[7:]
	if right != "C" && right != "P" || !allDigits(date) || !allDigits(strike) {
		return Option{}, ErrOCC
	}
	expiry, err := time.Parse("20060102", "20"+date)
	if err != nil {
		return Option{}, ErrOCC
	}
	k, err := decimal.NewFromString(strike)
	if err != nil || !k.IsPositive() {
		return Option{}, ErrOCC
	}
	return Option{Underlying: root, Expiry: expiry, Right: right, Strike: k.Shift(-3)}, nil
}

func allDigits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}
