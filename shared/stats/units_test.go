package stats

import (
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"
)

// TestNumericUnits: the hand-written decoder reads every numeric(24, 4)
// the way decimal does, in PostgreSQL's binary format as pgx encodes it,
// and refuses what the column cannot hold.
func TestNumericUnits(t *testing.T) {
	m := pgtype.NewMap()
	encode := func(d decimal.Decimal) []byte {
		b, err := m.Encode(pgtype.NumericOID, pgtype.BinaryFormatCode, pgtype.Numeric{Int: d.Coefficient(), Exp: d.Exponent(), Valid: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	values := []string{"0", "1", "-1", "0.0001", "-0.0001", "10000", "99999999999999999999.9999", "-99999999999999999999.9999",
		"123456789.1234", "0.5", "100000000", "-7000.25"}
	for range 2000 {
		n := new(big.Int).SetUint64(rnd.Uint64() >> 4)
		n.Mul(n, big.NewInt(rnd.Int64N(1e6)+1))
		if rnd.IntN(2) == 0 {
			n.Neg(n)
		}
		values = append(values, decimal.NewFromBigInt(n, -int32(rnd.IntN(5))).String())
	}
	for _, v := range values {
		d := decimal.RequireFromString(v)
		u, err := numericUnits(encode(d))
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		if got := u.decimal(); !got.Equal(d) {
			t.Fatalf("%s decoded as %s", v, got)
		}
		if u.sign() != d.Sign() {
			t.Fatalf("%s: sign %d", v, u.sign())
		}
	}
	for _, v := range []string{"0.00001", "1.23456"} {
		if _, err := numericUnits(encode(decimal.RequireFromString(v))); err == nil {
			t.Errorf("%s: more than 4 places accepted", v)
		}
	}
	nan, _ := m.Encode(pgtype.NumericOID, pgtype.BinaryFormatCode, pgtype.Numeric{NaN: true, Valid: true}, nil)
	if _, err := numericUnits(nan); err == nil {
		t.Error("NaN accepted")
	}
}

// TestUnitsArithmetic: sums, comparisons and the conversion to big.Int
// agree with big.Int's own across the 64-bit boundary.
func TestUnitsArithmetic(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		a, b := units{hi: int64(rnd.IntN(5)) - 2, lo: rnd.Uint64()}, units{hi: int64(rnd.IntN(5)) - 2, lo: rnd.Uint64()}
		ba, bb := a.setBig(new(big.Int)), b.setBig(new(big.Int))
		if got, want := a.add(b).setBig(new(big.Int)), new(big.Int).Add(ba, bb); got.Cmp(want) != 0 {
			t.Fatalf("%v + %v = %v, want %v", ba, bb, got, want)
		}
		if a.cmp(b) != ba.Cmp(bb) || a.sign() != ba.Sign() {
			t.Fatalf("cmp or sign of %v and %v", ba, bb)
		}
	}
}

// TestTradingDay: the offset-period shortcut gives the date time.In gives,
// for closes in time order across DST changes and odd offsets.
func TestTradingDay(t *testing.T) {
	for _, zone := range []string{"America/New_York", "Europe/Berlin", "Asia/Tokyo", "Pacific/Chatham", "America/Santiago", "Asia/Kolkata", "UTC"} {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		z := tradingDay{loc: loc}
		at := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
		rnd := rand.New(rand.NewPCG(5, 6))
		for range 20000 {
			at = at.Add(time.Duration(rnd.IntN(7200)) * time.Second)
			want := at.In(loc).Format(time.DateOnly)
			if got := dateOf(z.of(at.UnixMicro())); got != want {
				t.Fatalf("%s %s: %s, want %s", zone, at, got, want)
			}
		}
	}
}

// TestUnitsSub: a - b + b is a, across the carry between the halves.
func TestUnitsSub(t *testing.T) {
	for _, tc := range [][2]units{
		{{lo: 5}, {lo: 7}},
		{{hi: 1, lo: 0}, {lo: 1}},
		{{hi: -1, lo: ^uint64(0)}, {hi: 0, lo: 1 << 63}},
		{{hi: 3, lo: 1 << 62}, {hi: -2, lo: ^uint64(0)}},
	} {
		a, b := tc[0], tc[1]
		if got := a.sub(b).add(b); got != a {
			t.Errorf("%v - %v + %v = %v", a, b, b, got)
		}
		if a.sub(a).sign() != 0 {
			t.Errorf("%v - itself is not 0", a)
		}
	}
	if (units{lo: 5}).sub(units{lo: 7}).sign() != -1 {
		t.Error("5 - 7 is not negative")
	}
}
