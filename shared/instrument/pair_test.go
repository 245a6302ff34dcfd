package instrument

import (
	"testing"
)

func TestParseForex(t *testing.T) {
	cases := []struct{ in, want, pip, lot string }{
		{"EUR/USD", "EUR/USD", "0.0001", "100000"},
		{"eurusd", "EUR/USD", "0.0001", "100000"},
		{"EUR_USD", "EUR/USD", "0.0001", "100000"}, // OANDA
		{"EUR.USD", "EUR/USD", "0.0001", "100000"}, // IBKR
		{"USDJPY.m", "USD/JPY", "0.01", "100000"},  // a MetaTrader server's suffix
		{"GBPJPYm", "GBP/JPY", "0.01", "100000"},   // and without a separator
		{"EURUSD-ECN", "EUR/USD", "0.0001", "100000"},
		{"AUDCAD+", "AUD/CAD", "0.0001", "100000"},
		{"XAUUSD", "XAU/USD", "0.01", "100"},
		{"XAG/USD", "XAG/USD", "0.001", "5000"},
		{" gbp-chf ", "GBP/CHF", "0.0001", "100000"},
	}
	for _, c := range cases {
		p, err := ParseForex(c.in)
		if err != nil || p.Symbol() != c.want || p.PipSize().String() != c.pip || p.LotUnits().String() != c.lot {
			t.Errorf("ParseForex(%q) = %v %v pip %v lot %v", c.in, p.Symbol(), err, p.PipSize(), p.LotUnits())
		}
	}
	for _, bad := range []string{"", "EUR", "EURUSDXYZ123456789", "EUREUR", "ABCUSD", "USDXAU", "BTCUSD", "EUR/US", "€URUSD", "EURUSD1.5"} {
		if p, err := ParseForex(bad); err != ErrForexPair {
			t.Errorf("ParseForex(%q) = %v, %v; want ErrForexPair", bad, p.Symbol(), err)
		}
	}
}

func TestParseCrypto(t *testing.T) {
	cases := []struct{ in, want string }{
		{"BTC/USDT", "BTC/USDT"},
		{"BTC-USD", "BTC/USD"},      // Coinbase
		{"btcusdt", "BTC/USDT"},     // Binance, Bybit
		{"ETHBTC", "ETH/BTC"},       //
		{"PEPEUSDT", "PEPE/USDT"},   //
		{"1INCHUSDT", "1INCH/USDT"}, //
		{"BNBFDUSD", "BNB/FDUSD"},   // FDUSD before USD
		{"XBT/USD", "BTC/USD"},      // Kraken
		{"XXBTZUSD", "BTC/USD"},     // Kraken's legacy names
		{"XETHZEUR", "ETH/EUR"},     //
		{"XDGUSD", "DOGE/USD"},      //
		{"BTC/USDT:PERP", "BTC/USDT:PERP"},
		{"BTC/USDT:USDT", "BTC/USDT:PERP"}, // ccxt's linear perpetual
		{"BTCUSDT.P", "BTC/USDT:PERP"},     // TradingView
		{"BTC-PERP", "BTC/USD:PERP"},       // FTX-style, USD
		{"ETH-USD-PERP", "ETH/USD:PERP"},
		{"BTCUSDT-PERP", "BTC/USDT:PERP"},
		{"BTC/USDT:241227", "BTC/USDT:241227"},
		{"BTCUSDT_241227", "BTC/USDT:241227"}, // Binance's delivery contracts
	}
	for _, c := range cases {
		p, err := ParseCrypto(c.in)
		if err != nil || p.Symbol() != c.want {
			t.Errorf("ParseCrypto(%q) = %q, %v; want %q", c.in, p.Symbol(), err, c.want)
		}
	}
	for _, bad := range []string{"", "BTC", "BTC/BTC", "B/USD", "BTC/USDT:991399", "BTC/USD:@", "ÄBC/USD", "USDT", "ABCDEFGHIJKL/USD"} {
		if p, err := ParseCrypto(bad); err != ErrCryptoPair {
			t.Errorf("ParseCrypto(%q) = %q, %v; want ErrCryptoPair", bad, p.Symbol(), err)
		}
	}
}

// FuzzParsePair: any text is either the parser's one error or a pair whose
// canonical symbol reads back as the same pair.
func FuzzParsePair(f *testing.F) {
	for _, s := range []string{"EUR/USD", "USDJPY.m", "XAUUSD", "BTCUSDT", "XXBTZUSD", "BTC-PERP", "BTC/USDT:241227",
		"BTCUSDT_241299", "ETH/USDT:USDT", ":", "/", "_", "EURUSD\x00", ".P", "-PERP"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if p, err := ParseForex(s); err == nil {
			back, err := ParseForex(p.Symbol())
			if err != nil || back != p {
				t.Fatalf("forex %q -> %q -> %v %v", s, p.Symbol(), back, err)
			}
		} else if err != ErrForexPair {
			t.Fatalf("forex %q: %v", s, err)
		}
		if p, err := ParseCrypto(s); err == nil {
			back, err := ParseCrypto(p.Symbol())
			if err != nil || back != p {
				t.Fatalf("crypto %q -> %q -> %+v %v", s, p.Symbol(), back, err)
			}
			if len(p.Symbol()) > MaxSymbol {
				t.Fatalf("crypto %q: symbol %q longer than %d", s, p.Symbol(), MaxSymbol)
			}
		} else if err != ErrCryptoPair {
			t.Fatalf("crypto %q: %v", s, err)
		}
	})
}
