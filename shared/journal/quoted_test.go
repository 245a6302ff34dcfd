package journal

import (
	"testing"

	"github.com/shopspring/decimal"
)

// rated is fill with a rate of the quote currency in the account's.
func rated(typ, price, qty, fees, rate string, minutes int) Fill {
	f := fill(typ, price, qty, fees, minutes)
	if rate != "" {
		f.Rate = dp(rate)
	}
	return f
}

// withFee gives a fill a fee in asset at rate ("" for unknown).
func withFee(f Fill, asset, rate string) Fill {
	f.FeeAsset = asset
	if rate != "" {
		f.FeeRate = dp(rate)
	}
	return f
}

// TestComputeQuoted: forex and crypto P&L in the quote currency, converted
// into the account's at each exit's rate. Worked by hand:
func TestComputeQuoted(t *testing.T) {
	cases := []struct {
		name              string
		trade             Trade
		gross, quote, net string
		risk, r           string // "" for nil
		realized          []string
		awaiting          bool
	}{{
		// EUR/USD in a dollar account, one standard lot (100,000 EUR):
		// 1.0900 - 1.0850 = 0.0050 = 50 pips x 10 USD = 500 USD; rate 1.
		// Risk: 20 pips (stop 1.0830) x 100,000 = 200 USD; 7 USD of fees:
		// net 493, R 493 / 200 = 2.465.
		name: "EUR/USD, dollar account",
		trade: Trade{Side: SideLong, Multiplier: d("1"), StopLoss: dp("1.0830"), Quoted: true, Fills: []Fill{
			rated(FillEntry, "1.0850", "100000", "3.50", "1", 0), rated(FillExit, "1.0900", "100000", "3.50", "1", 60)}},
		gross: "500.0000", quote: "500.0000", net: "493.0000", risk: "200.0000", r: "2.4650",
		realized: []string{"0", "500.0000"},
	}, {
		// USD/JPY in a dollar account: 151.00 - 150.00 = 1.00 JPY x 100,000
		// = 100,000 JPY; at the close 1 JPY = 1/151 USD (0.006622516556 to
		// 12 places): 662.2516556 -> 662.2517 USD (money keeps 4 places).
		// A pip (0.01) of a lot is 1,000 JPY = 6.62 USD at 151.
		name: "USD/JPY, dollar account",
		trade: Trade{Side: SideLong, Multiplier: d("1"), Quoted: true, Fills: []Fill{
			rated(FillEntry, "150.00", "100000", "0", "0.006666666667", 0), rated(FillExit, "151.00", "100000", "0", "0.006622516556", 60)}},
		gross: "662.2517", quote: "100000.0000", net: "662.2517", realized: []string{"0", "662.2517"},
	}, {
		// EUR/GBP short two lots in a dollar account (a third currency):
		// (0.8600 - 0.8550) x 200,000 = 1,000 GBP; GBP/USD 1.27 at the
		// close: 1,270 USD.
		name: "EUR/GBP short, third currency",
		trade: Trade{Side: SideShort, Multiplier: d("1"), Quoted: true, Fills: []Fill{
			rated(FillEntry, "0.8600", "200000", "0", "1.25", 0), rated(FillExit, "0.8550", "200000", "0", "1.27", 60)}},
		gross: "1270.0000", quote: "1000.0000", net: "1270.0000", realized: []string{"0", "1270.0000"},
	}, {
		// GBP/JPY in a euro account, two exits on days of different rates:
		// 50,000 at +1.00 JPY = 50,000 JPY x 0.0061 = 305 EUR; 50,000 at
		// -0.50 JPY = -25,000 JPY x 0.0062 = -155 EUR: 150 EUR, 25,000 JPY.
		name: "GBP/JPY, euro account, two rates",
		trade: Trade{Side: SideLong, Multiplier: d("1"), Quoted: true, Fills: []Fill{
			rated(FillEntry, "190.00", "100000", "0", "0.0061", 0), rated(FillExit, "191.00", "50000", "0", "0.0061", 60),
			rated(FillExit, "189.50", "50000", "0", "0.0062", 2000)}},
		gross: "150.0000", quote: "25000.0000", net: "150.0000", realized: []string{"0", "305.0000", "-155.0000"},
	}, {
		// The same without the second exit's rate: its P&L waits; the
		// figures in the account's currency hold the first exit only.
		name: "an exit without a rate",
		trade: Trade{Side: SideLong, Multiplier: d("1"), Quoted: true, Fills: []Fill{
			rated(FillEntry, "190.00", "100000", "0", "", 0), rated(FillExit, "191.00", "50000", "0", "0.0061", 60),
			rated(FillExit, "189.50", "50000", "2", "", 2000)}},
		gross: "305.0000", quote: "25000.0000", net: "303.0000", realized: []string{"0", "305.0000", "0"}, awaiting: true,
	}, {
		// A crypto spot trade in a dollar account quoted in USDT, at a
		// USDT rate of 0.9998: 0.123456789012345678 BTC bought at 60,000
		// and sold at 61,000: 123.456789012345678 USDT x 0.9998 =
		// 123.432097654543209 -> 123.4321 USD.
		name: "BTC/USDT, 18 places",
		trade: Trade{Side: SideLong, Multiplier: d("1"), Quoted: true, Fills: []Fill{
			rated(FillEntry, "60000", "0.123456789012345678", "0", "0.9998", 0),
			rated(FillExit, "61000", "0.123456789012345678", "0", "0.9998", 60)}},
		gross: "123.4321", quote: "123.4568", net: "123.4321", realized: []string{"0", "123.4321"},
	}, {
		// BTC/USD in a dollar account, the entry's fee in the base (0.00001
		// BTC at 60,000 = 0.60 USD: rate price x 1) and the exit's in BNB
		// at 580 USD (0.0005 x 580 = 0.29): fees 0.89, net 100 - 0.89.
		name: "fees in the base and in BNB",
		trade: Trade{Side: SideLong, Multiplier: d("1"), Quoted: true, Fills: []Fill{
			withFee(rated(FillEntry, "60000", "0.1", "0.00001", "1", 0), "BTC", "60000"),
			withFee(rated(FillExit, "61000", "0.1", "0.0005", "1", 60), "BNB", "580")}},
		gross: "100.0000", quote: "100.0000", net: "99.1100", realized: []string{"0", "100.0000"},
	}, {
		// A BTC/USDT perpetual short of 0.5 BTC in a dollar account, USDT
		// at 0.9995 given by the file: 64,000 down to 63,200 = 400 USDT.
		// Fees in USDT (the quote, at the fill's rate): 12.80 taker in,
		// then funding over two days folded into the exit's fee: paid
		// 1.60, received 4.10, taker 12.64 out: 12.64 + 1.60 - 4.10 =
		// 10.14. Gross 400 x 0.9995 = 399.80; fees (12.80 + 10.14) x
		// 0.9995 = 12.7936 + 10.1349 = 22.9285; net 376.8715.
		name: "perpetual with funding",
		trade: Trade{Side: SideShort, Multiplier: d("1"), Quoted: true, Fills: []Fill{
			withFee(rated(FillEntry, "64000", "0.5", "12.80", "0.9995", 0), "USDT", "0.9995"),
			withFee(rated(FillExit, "63200", "0.5", "10.14", "0.9995", 2880), "USDT", "0.9995")}},
		gross: "399.8000", quote: "400.0000", net: "376.8715", realized: []string{"0", "399.8000"},
	}, {
		// The BNB fee without a rate: left out, the trade awaits one.
		name: "a fee without a rate",
		trade: Trade{Side: SideLong, Multiplier: d("1"), Quoted: true, Fills: []Fill{
			withFee(rated(FillEntry, "60000", "0.1", "0.00001", "1", 0), "BTC", "60000"),
			withFee(rated(FillExit, "61000", "0.1", "0.0005", "1", 60), "BNB", "")}},
		gross: "100.0000", quote: "100.0000", net: "99.4000", realized: []string{"0", "100.0000"}, awaiting: true,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := Compute(c.trade)
			if err != nil {
				t.Fatal(err)
			}
			opt := func(v *decimal.Decimal) string {
				if v == nil {
					return ""
				}
				return v.StringFixed(4)
			}
			if f.GrossPnL.StringFixed(4) != c.gross || f.QuoteGross == nil || f.QuoteGross.StringFixed(4) != c.quote ||
				f.NetPnL.StringFixed(4) != c.net || f.AwaitingRate != c.awaiting {
				t.Errorf("gross %s quote %v net %s awaiting %v", f.GrossPnL, f.QuoteGross, f.NetPnL, f.AwaitingRate)
			}
			if got := opt(f.InitialRisk); got != c.risk {
				t.Errorf("risk %s, want %s", got, c.risk)
			}
			if got := opt(f.RMultiple); got != c.r {
				t.Errorf("R %s, want %s", got, c.r)
			}
			for i, want := range c.realized {
				if !f.Realized[i].Equal(d(want)) {
					t.Errorf("realized[%d] = %s, want %s", i, f.Realized[i], want)
				}
			}
		})
	}
}
