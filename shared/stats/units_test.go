package stats

import (
	"math/big"
	"math/rand/v2"
	"testing"
	"time"
	"tradejournal/shared/listquery"

	"github.com/shopspring/decimal"
)

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

// TestWide: products and sums of wide integers agree with big.Int, and
// they order and convert as big.Int does.
func TestWide(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	toBig := func(w wide) *big.Int { return w.decimalExp(0).BigInt() }
	word := func() uint64 { return rng.Uint64() >> rng.IntN(64) }
	for range 2000 {
		var u units
		switch rng.IntN(3) {
		case 0:
			u = units{lo: word()}
		case 1:
			u = units{lo: rng.Uint64(), hi: int64(rng.Uint64() >> 38)} // up to 2^90
		default:
			u = units{lo: rng.Uint64() >> 20}
		}
		if rng.IntN(2) == 0 {
			u = units{hi: ^u.hi, lo: ^u.lo}.add(units{lo: 1})
		}
		m := [3]uint64{rng.Uint64(), word(), rng.Uint64() >> 32} // below 2^160
		mb := new(big.Int)
		for i := 2; i >= 0; i-- {
			mb.Lsh(mb, 64).Or(mb, new(big.Int).SetUint64(m[i]))
		}
		want := new(big.Int).Mul(u.setBig(new(big.Int)), mb)
		p := u.mulWide(m)
		if got := toBig(p); got.Cmp(want) != 0 {
			t.Fatalf("%v x %v = %v, want %v", u.setBig(new(big.Int)), mb, got, want)
		}
		q := wideOf(units{lo: rng.Uint64(), hi: -int64(rng.IntN(3))})
		sum, diff := p, p
		sum.add(&q)
		diff.sub(&q)
		if toBig(sum).Cmp(new(big.Int).Add(want, toBig(q))) != 0 || toBig(diff).Cmp(new(big.Int).Sub(want, toBig(q))) != 0 {
			t.Fatal("add or sub")
		}
		if p.cmp(&q) != want.Cmp(toBig(q)) || p.sign() != want.Sign() {
			t.Fatal("cmp or sign")
		}
	}
}

// TestWalkTotal: the converted total walks what the currency's series
// walks, scaled by its factor; a factor past a rate column's is refused.
func TestWalkTotal(t *testing.T) {
	j := journalRows{currencies: []string{"EUR"}, accounts: []account{{}}}
	fd := newFold(j, listquery.Filter{}.Compile(nil, nil, nil), false)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 500 {
		fd.items.add(walkItem{at: int64(i) * 1e6, net: units{lo: uint64(rng.Int64N(2e6))}.sub(units{lo: 1e6})})
	}
	own, err := walkSeries(fd, map[string]decimal.Decimal{"EUR": decimal.RequireFromString("1.5")}, "USD")
	if err != nil {
		t.Fatal(err)
	}
	eur, total := own["EUR"], own[totalSeries]
	f := decimal.RequireFromString("1.5")
	if !eur.maxDrawdown.Mul(f).Equal(total.maxDrawdown) || eur.winStreak != total.winStreak || len(eur.curve) != len(total.curve) ||
		!eur.curve[7].cum.Mul(f).Equal(total.curve[7].cum) || *eur.ddEnd != *total.ddEnd {
		t.Fatalf("EUR %+v, total %+v", eur.maxDrawdown, total.maxDrawdown)
	}
	if _, err := walkTotal(fd, map[string]decimal.Decimal{"EUR": decimal.New(3, 60)}); err == nil {
		t.Fatal("a factor of 3e60 walked")
	}
}
