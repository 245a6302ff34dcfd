package sizing

import (
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"
)

// TestQuotientsMatchDecimal holds the int64 fast paths to decimal's own
// DivRound and QuoRem, on both sides of the 18-digit limit, every sign and
// exact halves.
func TestQuotientsMatchDecimal(t *testing.T) {
	d := decimal.RequireFromString
	pairs := [][2]decimal.Decimal{
		{d("1"), d("3")}, {d("2"), d("3")}, {d("-2"), d("3")}, {d("2"), d("-3")}, {d("-2"), d("-3")},
		{d("0.005"), d("1")}, {d("-0.005"), d("1")}, {d("0.004999"), d("1")}, {d("0.015"), d("1")},
		{d("100"), d("0.01")}, {d("0.9"), d("0.3")}, {d("0"), d("7")},
		{d("999999999999999999"), d("1")}, {d("999999999999999999"), d("0.1")}, // 18 digits, then over
		{d("1"), d("0.00000000000000001")}, {d("99999999.99"), d("0.00000000000000000001")},
		{d("123456789012345678901234"), d("7")}, {d("5"), d("123456789012345678901234")},
		{d("1e-20"), d("3")}, {d("12345"), d("1e15")},
	}
	r := rand.New(rand.NewPCG(7, 11))
	for range 20000 {
		pair := [2]decimal.Decimal{}
		for i := range pair {
			c := r.Int64N(pow10[1+r.IntN(maxInt64Digits)])
			if i == 1 && c == 0 {
				c = 1
			}
			if r.IntN(4) == 0 {
				c = -c
			}
			pair[i] = decimal.New(c, int32(r.IntN(25)-12))
		}
		pairs = append(pairs, pair)
	}
	for _, p := range pairs {
		a, b := p[0], p[1]
		for places := int32(0); places <= 4; places++ {
			if got, want := divRound(a, b, places), a.DivRound(b, places); !got.Equal(want) {
				t.Fatalf("divRound(%s, %s, %d) = %s, want %s", a, b, places, got, want)
			}
		}
		if a.Sign() >= 0 && b.Sign() > 0 {
			want, _ := a.QuoRem(b, 0)
			if got := floorDiv(a, b); !got.Equal(want) {
				t.Fatalf("floorDiv(%s, %s) = %s, want %s", a, b, got, want)
			}
		}
	}
}
