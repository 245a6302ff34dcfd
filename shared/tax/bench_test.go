package tax

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// dayTrader is the journal of an active US day trader: round trips of
// 100 shares in 20 symbols, several a day for two years, about half of
// them losers, so nearly every loss is washed by the next trade in the
// symbol, and each wash carries into the next (the report's worst case).
func dayTrader(roundTrips int) Request {
	rng := rand.New(rand.NewSource(7))
	req := Request{Jurisdiction: US, Year: 2024, Zone: newYork}
	t := time.Date(2023, 1, 3, 14, 30, 0, 0, time.UTC)
	step := 2 * 365 * 24 * time.Hour / time.Duration(roundTrips)
	for i := range roundTrips {
		symbol := fmt.Sprintf("S%02d", rng.Intn(20))
		entry := decimal.New(int64(5000+rng.Intn(5000)), -2)
		exit := entry.Add(decimal.New(int64(rng.Intn(200)-100), -2))
		common := Trade{Account: "a", Instrument: symbol, Underlying: symbol, AssetType: "stock", Quantity: decimal.NewFromInt(100),
			Multiplier: decimal.NewFromInt(1), Fees: decimal.New(1, 0), Currency: "USD"}
		buy, sell := common, common
		buy.ID, buy.Side, buy.Price, buy.Time = fmt.Sprintf("b%d", i), Buy, entry, t
		sell.ID, sell.Side, sell.Price, sell.Time = fmt.Sprintf("s%d", i), Sell, exit, t.Add(step/2)
		req.Trades = append(req.Trades, buy, sell)
		t = t.Add(step)
	}
	return req
}

// BenchmarkComputeDayTrader: a report over 20,000 round trips (40,000
// fills) of a day trader, about 10,000 of them washed.
func BenchmarkComputeDayTrader(b *testing.B) {
	req := dayTrader(20000)
	for b.Loop() {
		if _, err := Compute(req); err != nil {
			b.Fatal(err)
		}
	}
}
