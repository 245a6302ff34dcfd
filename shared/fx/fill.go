package fx

import (
	"time"

	"github.com/shopspring/decimal"
)

// FillRatePlaces is the places of a fill's rate (the fills.rate column,
// numeric(30,12)).
const FillRatePlaces = 12

// FillRate is the rate of a forex, crypto or CFD fill that neither the
// trader nor the broker's file gave: what 1 unit of the instrument's quote
// currency is worth in the account's currency (account) on the fill's
// day, in order:
//   - 1 when the quote is the account's currency (EUR/USD in a dollar
//     account), or "" (a CFD in the account's currency);
//   - 1/price when the account's currency is the pair's base (USD/JPY in a
//     dollar account: the fill's own price is the rate), to 12 places;
//   - the trader's stored exchange rate of the quote into the account's
//     currency in force on the fill's UTC day, direct or inverted (Spot);
//   - nil: none is known (the position awaits a rate).
//
// The journal's write (journalstore) and the import's preview
// (brokerfile.Build) both take a fill's rate from here.
func FillRate(rates []Rate, base, quote, account string, price decimal.Decimal, at time.Time) *decimal.Decimal {
	one := decimal.NewFromInt(1)
	switch {
	case quote == "" || quote == account:
		return &one
	case base == account && price.IsPositive():
		r := one.DivRound(price, FillRatePlaces)
		if r.IsPositive() {
			return &r
		}
	}
	if r, ok := Spot(rates, quote, account, utcDay(at)); ok {
		r = r.Round(FillRatePlaces)
		if r.IsPositive() {
			return &r
		}
	}
	return nil
}

// FeeRate is the rate of a fill's fee asset (the coin or currency a
// crypto fee was charged in) into the account's currency: nil for a fee in
// the account's currency (asset ""), 1 for one in it by name, the fill's
// rate (rate, nil while unknown) for a fee in the quote, price x rate for
// one in the base, else the trader's stored rate of asset into the
// account's currency on the fill's UTC day; nil while none is known (the
// position then awaits a rate). Rates to 12 places.
func FeeRate(rates []Rate, asset, base, quote, account string, rate *decimal.Decimal, price decimal.Decimal, at time.Time) *decimal.Decimal {
	one := decimal.NewFromInt(1)
	switch {
	case asset == "":
		return nil
	case asset == account:
		return &one
	case asset == quote && rate != nil:
		return rate
	case asset == base && rate != nil:
		if r := price.Mul(*rate).Round(FillRatePlaces); r.IsPositive() {
			return &r
		}
	}
	if r, ok := Spot(rates, asset, account, utcDay(at)); ok {
		if r = r.Round(FillRatePlaces); r.IsPositive() {
			return &r
		}
	}
	return nil
}

// utcDay is the calendar day of t in UTC (an exchange rate's effective
// date is a UTC day).
func utcDay(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}
