package fx

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// TestFillRate: a forex, crypto or CFD fill's rate, and its fee asset's,
// by the journal's rule (the write and the import's preview share it).
func TestFillRate(t *testing.T) {
	day := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	at := time.Date(2025, 3, 3, 23, 30, 0, 0, time.FixedZone("", -5*3600)) // 2025-03-04 in UTC
	rates := []Rate{{Base: "GBP", Quote: "USD", Date: day, Value: decimal.RequireFromString("1.27")},
		{Base: "USD", Quote: "CHF", Date: day, Value: decimal.RequireFromString("0.90")},
		{Base: "BNB", Quote: "USD", Date: time.Date(2025, 3, 4, 0, 0, 0, 0, time.UTC), Value: decimal.NewFromInt(600)}}
	str := func(d *decimal.Decimal) string {
		if d == nil {
			return "<nil>"
		}
		return d.String()
	}
	cases := []struct {
		name, base, quote, price, want string
	}{
		{"quote is the account's", "EUR", "USD", "1.08", "1"},
		{"a CFD in the account's currency", "", "", "5800", "1"},
		{"the account's currency is the base", "USD", "JPY", "150.90", "0.006626905235"},
		{"a stored rate", "EUR", "GBP", "0.85", "1.27"},
		{"a stored rate inverted", "EUR", "CHF", "0.95", "1.111111111111"},
		{"none", "BTC", "USDT", "90000", "<nil>"},
	}
	for _, c := range cases {
		if got := str(FillRate(rates, c.base, c.quote, "USD", decimal.RequireFromString(c.price), at)); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	rate := decimal.RequireFromString("0.9998")
	fees := []struct {
		name, asset, want string
		rate              *decimal.Decimal
	}{
		{"the account's currency", "", "<nil>", &rate},
		{"the account's currency by name", "USD", "1", &rate},
		{"the quote", "USDT", "0.9998", &rate},
		{"the base: price x rate", "BTC", "89982", &rate},
		{"the base without the fill's rate", "BTC", "<nil>", nil},
		{"a third coin on the fill's UTC day", "BNB", "600", &rate},
		{"a coin without a rate", "SOL", "<nil>", &rate},
	}
	for _, c := range fees {
		if got := str(FeeRate(rates, c.asset, "BTC", "USDT", "USD", c.rate, decimal.NewFromInt(90000), at)); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}
