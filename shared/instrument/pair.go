package instrument

import (
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/money"
)

// A currency pair (forex) or a crypto pair: one unit of Base costs Price
// units of Quote, so a position's P&L is in Quote (price difference x
// quantity of Base x multiplier) and is converted into the account's
// currency at each exit's rate (journal.Fill.Rate).
type Pair struct {
	Base, Quote string
	// Kind is a crypto pair's contract: KindSpot, KindPerpetual or
	// KindDated (with Delivery); forex pairs are spot.
	Kind     string
	Delivery time.Time // a dated crypto future's delivery day
}

// Crypto contract kinds.
const (
	KindSpot      = "spot"
	KindPerpetual = "perpetual"
	KindDated     = "dated"
)

// metals trade as currency pairs on forex platforms (XAUUSD) though ISO 4217
// calls them not money (money.ValidCurrency refuses them as an account's).
var metals = []string{"XAU", "XAG", "XPT", "XPD"}

// forexCode reports whether c is a currency or a metal a forex pair's base
// names (its quote is a currency).
func forexCode(c string) bool { return money.ValidCurrency(c) || slices.Contains(metals, c) }

// ErrForexPair is ParseForex's error; its text is written for a client.
var ErrForexPair = errors.New(`must be a currency pair such as "EUR/USD", "EURUSD", "EUR_USD" or "EUR.USD" (two ISO currency codes, or a metal XAU XAG XPT XPD first; a platform's suffix such as ".m" or "-ECN" is dropped)`)

// ParseForex reads a currency pair as the platforms write it: "EUR/USD",
// "EURUSD", OANDA's "EUR_USD", IBKR's "EUR.USD", "eur-usd", and MetaTrader
// servers' suffixed symbols ("EURUSD.m", "EURUSDm", "EURUSD-ECN",
// "EURUSD+"): six letters of two codes, then anything not a letter, or a
// suffix after a separator.
func ParseForex(s string) (Pair, error) {
	u := strings.ToUpper(strings.TrimSpace(s))
	var base, quote string
	if len(u) >= 7 && strings.ContainsRune("/_.-: ", rune(u[3])) {
		base, quote = u[:3], u[4:]
	} else if len(u) >= 6 {
		base, quote = u[:3], u[3:]
	}
	// A suffix: ".m", "-ECN", "+", "pro", "m" after the six letters.
	if len(quote) > 3 {
		rest := quote[3:]
		if !strings.ContainsRune("/_.-:+# ", rune(rest[0])) && !allLetters(rest) || len(rest) > 8 {
			return Pair{}, ErrForexPair
		}
		quote = quote[:3]
	}
	if !forexCode(base) || !money.ValidCurrency(quote) || base == quote {
		return Pair{}, ErrForexPair
	}
	return Pair{Base: base, Quote: quote, Kind: KindSpot}, nil
}

func allLetters(s string) bool {
	for i := range len(s) {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// Symbol is the pair's canonical symbol: "EUR/USD", "BTC/USDT", a
// perpetual "BTC/USDT:PERP", a dated future "BTC/USDT:241227".
func (p Pair) Symbol() string {
	s := p.Base + "/" + p.Quote
	switch p.Kind {
	case KindPerpetual:
		s += ":PERP"
	case KindDated:
		s += ":" + p.Delivery.Format("060102")
	}
	return s
}

// PipSize is the price step a forex trader counts in: 0.01 for a pair
// quoted in yen (USD/JPY 151.25) and for gold (XAU/USD 2381.15), 0.001 for
// silver, 0.0001 for every other pair (EUR/USD 1.0845).
func (p Pair) PipSize() decimal.Decimal {
	switch {
	case p.Quote == "JPY" || p.Base == "XAU":
		return decimal.New(1, -2)
	case p.Base == "XAG":
		return decimal.New(1, -3)
	}
	return decimal.New(1, -4)
}

// LotUnits is the units of the base currency in one standard lot: 100,000
// of a currency, 100 troy ounces of gold, 5,000 of silver, 50 of platinum or
// palladium (what MetaTrader servers' contract sizes commonly are). A mini
// lot is a tenth of it, a micro lot a hundredth.
func (p Pair) LotUnits() decimal.Decimal {
	switch p.Base {
	case "XAU":
		return decimal.NewFromInt(100)
	case "XAG":
		return decimal.NewFromInt(5000)
	case "XPT", "XPD":
		return decimal.NewFromInt(50)
	}
	return decimal.NewFromInt(100_000)
}

// cryptoQuotes are the quote assets a pair written without a separator
// ("BTCUSDT") is split by, longest first so "USDT" wins over "USD".
var cryptoQuotes = []string{"FDUSD", "USDT", "USDC", "BUSD", "TUSD", "USDE", "DAI", "USD", "EUR", "GBP", "JPY", "AUD",
	"CAD", "CHF", "TRY", "BRL", "BTC", "ETH", "BNB", "SOL", "XBT"}

// krakenAssets are Kraken's names for assets whose common code differs:
// XBT is bitcoin, XDG dogecoin; Kraken's legacy pair names also prefix
// crypto codes with X and fiat with Z ("XXBTZUSD").
var krakenAssets = map[string]string{"XBT": "BTC", "XDG": "DOGE"}

// ErrCryptoPair is ParseCrypto's error; its text is written for a client.
var ErrCryptoPair = errors.New(`must be a crypto pair such as "BTC/USDT", "BTC-USD", "BTCUSDT" or Kraken's "XXBTZUSD"; a perpetual as "BTC/USDT:PERP", "BTC-PERP" or "BTCUSDT.P"; a dated future as "BTC/USDT:241227" (asset codes of 2 to 10 letters or digits)`)

// ParseCrypto reads a crypto pair: spot as "BTC/USDT", Coinbase's "BTC-USD",
// Binance's and Bybit's "BTCUSDT", Kraken's "XBT/USD" and "XXBTZUSD";
// perpetuals as "BTC/USDT:PERP", "BTC-PERP" (quoted in USD), "BTC-USD-PERP",
// "BTCUSDT.P" or "BTCUSDT-PERP", or ccxt's "BTC/USDT:USDT"; dated futures
// as "BTC/USDT:241227" or "BTCUSDT_241227". A perpetual or dated contract
// here is linear: its P&L is in the quote asset. Coin-margined (inverse)
// contracts, whose P&L is in the base, are refused by the caller that can
// tell them (a file's column); their symbols read the same.
func ParseCrypto(s string) (Pair, error) {
	u := strings.ToUpper(strings.TrimSpace(s))
	p := Pair{Kind: KindSpot}
	// The contract: a suffix after ":" (ccxt, canonical), ".P", "-PERP",
	// "_YYMMDD".
	if i := strings.LastIndexByte(u, ':'); i >= 0 {
		if err := p.contract(u[i+1:]); err != nil {
			return Pair{}, err
		}
		u = u[:i]
	} else if base, ok := strings.CutSuffix(u, ".P"); ok {
		p.Kind, u = KindPerpetual, base
	} else if base, ok := strings.CutSuffix(u, "PERP"); ok && len(base) > 0 && strings.ContainsRune("-_/ ", rune(base[len(base)-1])) {
		p.Kind, u = KindPerpetual, base[:len(base)-1]
		if !strings.ContainsAny(u, "-_/") && !hasQuoteSuffix(u) {
			u += "-USD" // FTX-style "BTC-PERP" is quoted in USD
		}
	} else if i := strings.LastIndexByte(u, '_'); i > 0 && len(u)-i == 7 {
		if err := p.contract(u[i+1:]); err != nil {
			return Pair{}, err
		}
		u = u[:i]
	}
	if i := strings.IndexAny(u, "/-_ "); i >= 0 {
		p.Base, p.Quote = u[:i], u[i+1:]
	} else if len(u) == 8 && u[0] == 'X' && (u[4] == 'Z' || u[4] == 'X') {
		p.Base, p.Quote = u[1:4], u[5:] // Kraken's legacy names: XXBTZUSD, XETHZEUR
	} else {
		for _, q := range cryptoQuotes {
			if len(u) > len(q) && strings.HasSuffix(u, q) {
				p.Base, p.Quote = u[:len(u)-len(q)], q
				break
			}
		}
	}
	p.Base, p.Quote = krakenName(p.Base), krakenName(p.Quote)
	if !assetCode(p.Base) || !assetCode(p.Quote) || p.Base == p.Quote {
		return Pair{}, ErrCryptoPair
	}
	return p, nil
}

func hasQuoteSuffix(u string) bool {
	for _, q := range cryptoQuotes {
		if len(u) > len(q) && strings.HasSuffix(u, q) {
			return true
		}
	}
	return false
}

// contract reads what follows a pair's ":": PERP, a settlement asset (a
// ccxt perpetual, "USDT"), or a delivery day YYMMDD.
func (p *Pair) contract(c string) error {
	switch {
	case c == "PERP" || c == "P":
		p.Kind = KindPerpetual
	case len(c) == 6 && allDigits(c):
		d, err := time.Parse("20060102", "20"+c)
		if err != nil {
			return ErrCryptoPair
		}
		p.Kind, p.Delivery = KindDated, d
	case assetCode(c):
		p.Kind = KindPerpetual
	default:
		return ErrCryptoPair
	}
	return nil
}

func krakenName(c string) string {
	if n, ok := krakenAssets[c]; ok {
		return n
	}
	return c
}

// assetCode reports whether c is a crypto asset's (or a currency's) code:
// 2 to 10 uppercase letters or digits, a letter among them ("1INCH").
func assetCode(c string) bool {
	if len(c) < 2 || len(c) > 10 {
		return false
	}
	letter := false
	for i := range len(c) {
		switch ch := c[i]; {
		case ch >= 'A' && ch <= 'Z':
			letter = true
		case ch >= '0' && ch <= '9':
		default:
			return false
		}
	}
	return letter
}

// ValidAsset reports whether c is a currency or crypto asset code a
// position's quote or a fee's asset may be (assetCode).
func ValidAsset(c string) bool { return assetCode(c) }

// rateCoins are the crypto assets of three letters a trader may store an
// exchange rate of (an exchange rate's codes are exactly three letters):
// the coins fees are charged in and pairs are quoted in most.
var rateCoins = []string{"BTC", "ETH", "BNB", "SOL", "XRP", "ADA", "DOT", "LTC", "TRX", "XLM", "ETC", "BCH", "UNI",
	"DAI", "TON", "SUI", "OKB", "CRO", "KCS", "HTX", "GMX", "ARB", "APT", "FIL", "ICP", "AVA", "OMG", "ZEC", "XMR"}

// RateCode reports whether c may be a side of a stored exchange rate: an
// ISO 4217 currency or a coin of rateCoins. Metals are not money (a gold
// pair's P&L is in its quote currency, which needs no rate of gold).
func RateCode(c string) bool {
	return money.ValidCurrency(c) || slices.Contains(rateCoins, c)
}
