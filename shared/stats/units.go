package stats

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"math/bits"

	"github.com/shopspring/decimal"
)

// units is an amount of money, or an R multiple, in ten-thousandths: every
// figure the statistics read is a numeric(24, 4) column, so it is an
// integer count of 0.0001. It is a 128-bit two's complement integer: a
// value holds at most 24 digits (< 2^80) and a sum of fewer than 2^47 of
// them stays far inside 2^127, so adding never overflows.
//
// Why not decimal.Decimal: folding 100,000 positions with shopspring's
// arithmetic (a big.Int allocated by every Add) and scanning them through
// its sql.Scanner cost 350 ms of Go CPU against the 60 ms target
// (docs/performance.md); these integers cost a few nanoseconds a row. Every
// figure leaves as a decimal.Decimal (decimal, below) before any division
// or formatting.
type units struct {
	hi int64
	lo uint64
}

func (a units) add(b units) units {
	lo, carry := bits.Add64(a.lo, b.lo, 0)
	return units{hi: a.hi + b.hi + int64(carry), lo: lo}
}

// sub is a - b.
func (a units) sub(b units) units {
	lo, borrow := bits.Sub64(a.lo, b.lo, 0)
	return units{hi: a.hi - b.hi - int64(borrow), lo: lo}
}

func (a units) sign() int {
	switch {
	case a.hi < 0:
		return -1
	case a.hi == 0 && a.lo == 0:
		return 0
	}
	return 1
}

func (a units) cmp(b units) int {
	switch {
	case a.hi < b.hi:
		return -1
	case a.hi > b.hi:
		return 1
	case a.lo < b.lo:
		return -1
	case a.lo > b.lo:
		return 1
	}
	return 0
}

// setBig sets z to a and returns it, without allocating when a fits in 64
// bits.
func (a units) setBig(z *big.Int) *big.Int {
	if (a.hi == 0 && a.lo < 1<<63) || (a.hi == -1 && a.lo >= 1<<63) {
		return z.SetInt64(int64(a.lo))
	}
	neg := a.hi < 0
	m := a
	if neg {
		m = units{hi: ^a.hi, lo: ^a.lo}.add(units{lo: 1})
	}
	var hi, lo big.Int
	hi.SetUint64(uint64(m.hi))
	z.Lsh(&hi, 64).Or(z, lo.SetUint64(m.lo))
	if neg {
		z.Neg(z)
	}
	return z
}

// float is a as a float64 (for the SQN, a statistic of R multiples, not
// money).
func (a units) float() float64 {
	if (a.hi == 0 && a.lo < 1<<63) || (a.hi == -1 && a.lo >= 1<<63) {
		return float64(int64(a.lo)) / 1e4
	}
	f, _ := new(big.Float).SetInt(a.setBig(new(big.Int))).Float64()
	return f / 1e4
}

// decimal is a as a decimal, exponent -4.
func (a units) decimal() decimal.Decimal { return a.decimalExp(-4) }

// decimalExp is a as a count of 10^exp.
func (a units) decimalExp(exp int32) decimal.Decimal {
	return decimal.NewFromBigInt(a.setBig(new(big.Int)), exp)
}

// bitLen is the bits of a's magnitude.
func (a units) bitLen() int {
	if a.hi < 0 {
		a = units{hi: ^a.hi, lo: ^a.lo}.add(units{lo: 1})
	}
	if a.hi != 0 {
		return 64 + bits.Len64(uint64(a.hi))
	}
	return bits.Len64(a.lo)
}

// mulSmall is a x m; the caller has made sure the product fits.
func (a units) mulSmall(m uint64) units {
	neg := a.hi < 0
	if neg {
		a = units{hi: ^a.hi, lo: ^a.lo}.add(units{lo: 1})
	}
	hi, lo := bits.Mul64(a.lo, m)
	p := units{hi: int64(hi + uint64(a.hi)*m), lo: lo}
	if neg {
		p = units{hi: ^p.hi, lo: ^p.lo}.add(units{lo: 1})
	}
	return p
}

var errNotFinite = errors.New("numeric is not a finite number")

// numericUnits reads PostgreSQL's binary numeric (numeric_send: int16
// ndigits, int16 weight, uint16 sign, uint16 dscale, then ndigits base-10000
// digits, the first worth 10000^weight) as units. A value with a nonzero
// digit beyond 4 places is refused: numeric(24, 4) never holds one.
//
// Hand-written because pgx's numeric decoding allocates a big.Int a value:
// 94 ms of Go CPU for the 400,000 numerics of 100,000 positions, against
// 20 ms for the whole raw stream (docs/performance.md).
func numericUnits(b []byte) (units, error) {
	if len(b) < 8 {
		return units{}, fmt.Errorf("numeric of %d bytes", len(b))
	}
	n := int(binary.BigEndian.Uint16(b[0:]))
	weight := int(int16(binary.BigEndian.Uint16(b[2:])))
	sign := binary.BigEndian.Uint16(b[4:])
	if sign != 0 && sign != 0x4000 {
		return units{}, errNotFinite
	}
	if len(b) != 8+2*n {
		return units{}, fmt.Errorf("numeric of %d bytes for %d digits", len(b), n)
	}
	// digit i is worth 10000^(weight-i) units of 1, so 10000^(weight-i+1)
	// units of 0.0001: the last one 10000^(weight-n+2).
	scale := weight - n + 2
	if scale < 0 {
		return units{}, fmt.Errorf("numeric with more than 4 places")
	}
	if n+scale > 8 { // 10000^8 = 10^32 > any numeric(24, 4) in units
		return units{}, fmt.Errorf("numeric too large")
	}
	var hi, lo uint64
	mul := func(m uint64) {
		carry, l := bits.Mul64(lo, m)
		hi, lo = hi*m+carry, l
	}
	for i := range n {
		mul(10000)
		var c uint64
		lo, c = bits.Add64(lo, uint64(binary.BigEndian.Uint16(b[8+2*i:])), 0)
		hi += c
	}
	for range scale {
		mul(10000)
	}
	u := units{hi: int64(hi), lo: lo}
	if sign == 0x4000 {
		u = units{hi: ^u.hi, lo: ^u.lo}.add(units{lo: 1})
	}
	return u, nil
}
