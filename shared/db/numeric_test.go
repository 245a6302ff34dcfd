package db_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"tradejournal/shared/db"
	"tradejournal/shared/db/dbtest"
)

// TestSmallNumericIsPgx: every numeric PostgreSQL sends in binary that the
// fast path decodes comes out as pgx decodes it: the same value and the
// same exponent (so the same text), for random values at every scale.
func TestSmallNumericIsPgx(t *testing.T) {
	ctx := context.Background()
	pool, err := db.Open(ctx, dbtest.URL(t), db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	values := []string{"0", "0.0000", "-0.0001", "1", "10", "100", "10000", "100000000", "1.5000", "123.4567890000",
		"9999999999999999", "99999999999999.99", "-42.10", "0.00000001", "12345678.9", "1e-20", "98765432109876543210.0123456789",
		"0.123456789012345678", "-98765.000000000000000001", "170141183460469231731.687303715884105727", "340282366920938463463374607431768211455",
		"340282366920938463463374607431768211456", "9223372036854775807", "9223372036854775808", "-9223372036854775808"}
	for range 3000 {
		whole := rng.Int64N(1e12) / int64(1+rng.IntN(1e6))
		v := fmt.Sprintf("%d.%0*d", whole, 1+rng.IntN(10), rng.Int64N(1e10))
		if rng.IntN(3) == 0 {
			v = "-" + v
		}
		values = append(values, v)
	}
	fast := 0
	for _, scale := range []string{"", "(40,0)", "(40,2)", "(40,4)", "(40,8)", "(40,10)", "(40,18)", "(28,18)"} {
		// A value too long for the scale is left out (NULL).
		rows, err := pool.Query(ctx, `SELECT CASE WHEN `+fits(scale)+` THEN x::numeric`+scale+` END FROM unnest($1::text[]) x`, values)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			raw := rows.RawValues()[0]
			if raw == nil {
				continue
			}
			want, err := db.PgxNumeric(raw)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := db.SmallNumeric(raw)
			if !ok {
				continue
			}
			fast++
			if !got.Equal(want) || got.Exponent() != want.Exponent() || got.String() != want.String() {
				t.Errorf("numeric%s %x: fast %s (exp %d), pgx %s (exp %d)", scale, raw, got, got.Exponent(), want, want.Exponent())
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	if fast < len(values)*7 {
		t.Errorf("the fast path took only %d of %d values", fast, len(values)*8)
	}
}

// fits is the SQL condition that x fits a numeric typmod "(p,s)" once
// rounded to its scale (always, without one).
func fits(scale string) string {
	var p, s int
	if _, err := fmt.Sscanf(scale, "(%d,%d)", &p, &s); err != nil {
		return "true"
	}
	return fmt.Sprintf("abs(round(x::numeric, %d)) < 10::numeric ^ %d", s, p-s)
}

// FuzzSmallNumeric: any bytes the fast path accepts, pgx reads as the
// same number with the same exponent.
func FuzzSmallNumeric(f *testing.F) {
	for _, seed := range [][]byte{
		{0, 0, 0, 0, 0, 0, 0, 0},
		{0, 2, 0, 0, 0x40, 0, 0, 4, 0, 1, 0x13, 0x88},
		{0, 1, 0, 2, 0, 0, 0, 0, 0, 1},
		{0, 3, 0xff, 0xfe, 0, 0, 0, 10, 0, 5, 0, 7, 0x27, 0x0f},
		{0, 1, 0, 0, 0xc0, 0, 0, 0, 0, 1},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		got, ok := db.SmallNumeric(src)
		if !ok {
			return
		}
		want, err := db.PgxNumeric(src)
		if err != nil {
			t.Fatalf("%x: fast %s, pgx refused it: %v", src, got, err)
		}
		if !got.Equal(want) || got.Exponent() != want.Exponent() {
			t.Fatalf("%x: fast %s (exp %d), pgx %s (exp %d)", src, got, got.Exponent(), want, want.Exponent())
		}
	})
}

// BenchmarkNumeric decodes a price as PostgreSQL sends it from a fill
// (123.45, numeric(28,18)) by the fast path and by pgx's.
func BenchmarkNumeric(b *testing.B) {
	raw := []byte{0, 2, 0, 0, 0, 0, 0, 18, 0, 123, 0x11, 0x94}
	want, err := db.PgxNumeric(raw)
	if err != nil || want.String() != "123.45" || want.Exponent() != -18 {
		b.Fatalf("%s %v", want, err)
	}
	b.Run("Fast", func(b *testing.B) {
		for b.Loop() {
			db.SmallNumeric(raw)
		}
	})
	b.Run("Pgx", func(b *testing.B) {
		for b.Loop() {
			db.PgxNumeric(raw) //nolint:errcheck // measured above
		}
	})
}
