package stats

import (
	"encoding/binary"
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

// unitsOfInt is v ten-thousandths.
func unitsOfInt(v int64) units { return units{hi: v >> 63, lo: uint64(v)} }

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

// wide is a 320-bit two's complement integer (little-endian words), what
// the walks compute with: a converted total's values are net P&L (below
// 2^80 ten-thousandths: numeric(24, 4)) times a factor's coefficient
// scaled to the lowest exponent of the factors (below 2^160: a rate is
// numeric(30, 12), an inverse one has 30 places), and their sums over
// fewer than 2^47 closes stay below 2^287. Walking them as big.Int cost
// the unfiltered report 26 ms of its CPU time; these cost nanoseconds a
// close, and the currencies' own series share the one walk.
type wide [5]uint64

// wideOf is u sign-extended.
func wideOf(u units) wide {
	ext := uint64(u.hi >> 63)
	return wide{u.lo, uint64(u.hi), ext, ext, ext}
}

func (a *wide) add(b *wide) {
	var c uint64
	for i := range a {
		a[i], c = bits.Add64(a[i], b[i], c)
	}
}

func (a *wide) sub(b *wide) {
	var c uint64
	for i := range a {
		a[i], c = bits.Sub64(a[i], b[i], c)
	}
}

func (a *wide) sign() int {
	switch {
	case int64(a[4]) < 0:
		return -1
	case *a == wide{}:
		return 0
	}
	return 1
}

func (a *wide) cmp(b *wide) int {
	if x, y := int64(a[4]), int64(b[4]); x != y {
		if x < y {
			return -1
		}
		return 1
	}
	for i := 3; i >= 0; i-- {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

func (a *wide) decimalExp(exp int32) decimal.Decimal {
	v := *a
	neg := v.sign() < 0
	if neg {
		var z wide
		z.sub(&v)
		v = z
	}
	var b [40]byte
	for i, w := range v {
		binary.BigEndian.PutUint64(b[32-8*i:], w)
	}
	z := new(big.Int).SetBytes(b[:])
	if neg {
		z.Neg(z)
	}
	return decimal.NewFromBigInt(z, exp)
}

// mulWide is u x m, m below 2^192 (three words, little-endian).
func (u units) mulWide(m [3]uint64) wide {
	neg := u.hi < 0
	if neg {
		u = units{hi: ^u.hi, lo: ^u.lo}.add(units{lo: 1})
	}
	x := [2]uint64{u.lo, uint64(u.hi)}
	var p wide
	for i, xi := range x {
		var carry uint64
		for j, mj := range m {
			hi, lo := bits.Mul64(xi, mj)
			var c uint64
			lo, c = bits.Add64(lo, carry, 0)
			hi += c
			p[i+j], c = bits.Add64(p[i+j], lo, 0)
			carry = hi + c
		}
		p[i+len(m)] += carry
	}
	if neg {
		var z wide
		z.sub(&p)
		p = z
	}
	return p
}
