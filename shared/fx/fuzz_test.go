package fx

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// fuzzCurrencies is a small alphabet, so fuzzed rates often meet the
// balances they convert.
var fuzzCurrencies = []string{"USD", "EUR", "JPY", "GBP"}

// decode turns fuzz bytes into balances, rates and a change: 8 bytes per
// item (kind, two currency indexes, a day offset, a signed 32-bit value with
// a scale). Every value the schema could hold, and some it could not (zero
// and negative rates), come out of it.
func decode(data []byte) (amounts []Amount, rates []Rate, c Change) {
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i+8 <= len(data); i += 8 {
		b := data[i : i+8]
		from := fuzzCurrencies[int(b[1])%len(fuzzCurrencies)]
		to := fuzzCurrencies[int(b[2])%len(fuzzCurrencies)]
		date := base.AddDate(0, 0, int(b[3])%60)
		value := decimal.New(int64(int32(binary.BigEndian.Uint32(b[4:8]))), -int32(b[0]>>4%13))
		switch b[0] % 4 {
		case 0:
			amounts = append(amounts, Amount{Currency: from, Value: value})
		case 1:
			rates = append(rates, Rate{ID: string(rune('a' + len(rates)%26)), Base: from, Quote: to, Date: date, Value: value})
		case 2:
			c = Change{Upsert: &Rate{Base: from, Quote: to, Date: date, Value: value}}
		case 3:
			c = Change{DeleteID: string(rune('a' + int(b[1])%26))}
		}
	}
	return amounts, rates, c
}

// FuzzPreviewChange: the preview never panics, and its answer keeps the
// documented rules whatever the rates (zero, negative, duplicated, dated in
// the future) and balances.
func FuzzPreviewChange(f *testing.F) {
	f.Add([]byte{0, 1, 0, 0, 0, 0, 3, 232, 1, 1, 0, 0, 0, 0, 0, 11, 2, 1, 0, 30, 0, 0, 0, 12})
	f.Add([]byte{0, 2, 0, 0, 255, 255, 255, 0, 1, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		amounts, rates, c := decode(data)
		for _, to := range []string{"", "USD", "EUR"} {
			p := PreviewChange(amounts, rates, to, time.Date(2024, 1, 31, 0, 0, 0, 0, time.UTC), c)
			if to == "" && (p.Before != nil || p.After != nil || p.ExceedsThreshold) {
				t.Fatalf("no display currency gave %+v", p)
			}
			if (p.Before == nil) != (p.After == nil) && !p.ExceedsThreshold {
				t.Fatalf("a total appeared or disappeared without the threshold: %+v", p)
			}
			for _, v := range []*decimal.Decimal{p.Before, p.After} {
				if v != nil && v.Exponent() < -Places {
					t.Fatalf("total %s has more than %d places", v, Places)
				}
			}
			if p.Before != nil && p.After != nil && p.Before.Equal(*p.After) && p.ExceedsThreshold {
				t.Fatalf("no move exceeds the threshold: %+v", p)
			}
		}
	})
}
