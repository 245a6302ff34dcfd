package tax

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/fx"
)

// decodeTrades turns fuzz bytes into a request: the first byte picks the
// jurisdiction and the year, then 7 bytes per trade (account, instrument,
// side and currency, quantity, price, fees, day). Prices may be zero,
// positions need not end flat, times may tie, and some EUR days have no
// rate: every shape of journal Compute may meet.
func decodeTrades(data []byte) Request {
	req := Request{Jurisdiction: US, Year: 2024, Zone: newYork}
	if len(data) > 0 {
		req.Jurisdiction = []Jurisdiction{US, UK, Other}[int(data[0])%3]
		req.Year = 2023 + int(data[0]>>2)%3
		data = data[1:]
	}
	if req.Jurisdiction == Other {
		req.Currency = "USD"
	}
	cur := map[Jurisdiction]string{US: "USD", UK: "GBP", Other: "USD"}[req.Jurisdiction]
	req.Rates = []fx.Rate{{Base: "EUR", Quote: cur, Date: time.Date(2023, 6, 1, 0, 0, 0, 0, time.UTC), Value: decimal.New(108, -2)}}
	req.Marks = map[string]decimal.Decimal{"ESH5": decimal.New(5000, 0)}
	t0 := time.Date(2023, 1, 2, 15, 0, 0, 0, time.UTC)
	for i := 0; i+7 <= len(data); i += 7 {
		b := data[i : i+7]
		inst := propertyInstruments[int(b[1])%len(propertyInstruments)]
		side := Buy
		if b[2]&1 == 1 {
			side = Sell
		}
		currency := cur
		if b[2]&2 == 2 {
			currency = "EUR"
		}
		req.Trades = append(req.Trades, Trade{
			ID: fmt.Sprintf("f%d", i/7), Account: []string{"a", "b"}[int(b[0])%2], Instrument: inst.key,
			Underlying: inst.underlying, AssetType: inst.assetType, Section1256: inst.s1256, Side: side,
			Quantity: decimal.NewFromInt(int64(1 + b[3]%50)), Multiplier: decimal.NewFromInt(inst.mult),
			Price: decimal.New(int64(b[4])*37, -2), Fees: decimal.New(int64(b[5]), -2), Currency: currency,
			Time: t0.Add(time.Duration(b[6]) * 67 * time.Hour),
		})
	}
	return req
}

// FuzzCompute: whatever the trades, Compute never panics, accepts every
// valid request, and its report keeps its invariants (gain = proceeds -
// basis + adjustment, totals add up, 60 + 40 = the 1256 net). Both CSV
// writers take every report.
func FuzzCompute(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 9, 100, 0, 1, 0, 0, 1, 9, 80, 0, 3, 0, 0, 0, 9, 90, 0, 5})
	f.Add([]byte{1, 0, 1, 1, 20, 50, 3, 0, 1, 1, 0, 20, 40, 3, 0, 1, 1, 1, 5, 0, 1, 200})
	f.Add([]byte{2, 1, 3, 0, 4, 200, 10, 7, 1, 3, 1, 4, 210, 10, 250})
	f.Add([]byte{4, 0, 0, 3, 10, 0, 0, 0, 0, 0, 2, 10, 0, 0, 0})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		req := decodeTrades(data)
		r, err := Compute(req)
		if err != nil {
			t.Fatalf("a valid request was refused: %v", err)
		}
		checkInvariants(t, r)
		for _, w := range r.WashSales {
			if !w.Disallowed.IsPositive() && !w.Disallowed.IsZero() {
				t.Fatalf("negative disallowed loss %+v", w)
			}
		}
		if err := WriteLotsCSV(discard{}, r); err != nil {
			t.Fatal(err)
		}
		if req.Jurisdiction == US {
			if err := WriteForm8949CSV(discard{}, r); err != nil {
				t.Fatal(err)
			}
		}
	})
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// BenchmarkCompute5000 runs Compute on 5,000 fuzz-shaped trades packed
// into two years on two underlyings: many losses, washes and possibly
// identical purchases per window, and missing rates carried down wash
// chains. It guards against work that grows faster than the journal (it
// took 10 s before the possibly-identical scan was windowed and the gaps
// deduplicated).
func BenchmarkCompute5000(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	data := make([]byte, 35001)
	rng.Read(data)
	data[0] = 0
	req := decodeTrades(data)
	for b.Loop() {
		if _, err := Compute(req); err != nil {
			b.Fatal(err)
		}
	}
}
