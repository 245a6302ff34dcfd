// Package instrument is what a position trades: a stock (or ETF) by its
// ticker, an option by its OCC symbol, a future by its contract, an option
// on a future by the future, expiry, right and strike; the
// symbol's forms the brokers write, the multiplier that turns a price move
// into money, and the columns a positions row holds of each. It has no
// SQL and no journal: the journal's domain (shared/journal) and the broker
// files (shared/brokerfile) build on it.
package instrument

import (
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/money"
)

// The asset types of a position, as stored and as the API writes them.
const (
	AssetStock        = "stock"
	AssetOption       = "option"
	AssetFuture       = "future"
	AssetFutureOption = "future_option"
	AssetForex        = "forex"
	AssetCrypto       = "crypto"
	AssetCFD          = "cfd"
)

// AssetTypes are every asset type, in the order messages list them.
var AssetTypes = []string{AssetStock, AssetOption, AssetFuture, AssetFutureOption, AssetForex, AssetCrypto, AssetCFD}

// AssetTypesText is AssetTypes as a message says them.
const AssetTypesText = "stock, option, future, future_option, forex, crypto or cfd"

// ValidAssetType reports whether s is one of AssetTypes.
func ValidAssetType(s string) bool {
	return slices.Contains(AssetTypes, s)
}

// Expires reports whether an asset type's positions have an expiry day that
// the option-expiry job closes them at: options and futures options.
func Expires(assetType string) bool {
	return assetType == AssetOption || assetType == AssetFutureOption
}

// MaxSymbol is the longest symbol a position holds (the column's limit).
const MaxSymbol = 32

// OptionMultiplier is the number of shares one option contract controls.
const OptionMultiplier = 100

// stockSymbol is a ticker: letters, digits and . - / ^ = : _, starting
// with a letter, a digit or ^ (an index), or with one dot before one of
// those (".FTG", as some brokers write tickers). A leading "./" is a
// futures option's, never a ticker's. MaxSymbol bounds its length.
var stockSymbol = regexp.MustCompile(`^\.?[A-Z0-9^][A-Z0-9.\-/^=:_]*$`)

// Instrument is a position's symbol as validated for its asset type.
type Instrument struct {
	AssetType string // one of AssetTypes
	// Symbol is the uppercase ticker, canonical OCC symbol, canonical
	// contract ("ESZ24") or canonical futures option ("./ESZ24 241220C5000").
	Symbol string
	// Multiplier is 1 for stock, OptionMultiplier for options, and a
	// future's (or a futures option's future's) point value once
	// SettleMultiplier has set it (zero before).
	Multiplier   decimal.Decimal
	Option       *Option       // for options
	Future       *Future       // for futures
	FutureOption *FutureOption // for futures options
	Pair         *Pair         // for forex and crypto
	// Quote is the currency (or crypto asset) the instrument's prices and
	// P&L are in when it need not be the account's: a pair's quote, a
	// CFD's currency when given (SettleQuote); "" for the account's own.
	Quote string
}

// Contract is the futures contract whose point value the instrument's
// multiplier is: a future's own, a futures option's underlying; nil else.
func (in Instrument) Contract() *Future {
	if in.FutureOption != nil {
		return &in.FutureOption.Future
	}
	return in.Future
}

// Parse checks a symbol for an asset type (AssetTypes): a ticker of 1 to
// 32 characters (letters, digits and . - / ^ = : _, one leading dot
// allowed), for an option a parseable OCC symbol stored in its canonical
// padded form, for a future a contract symbol (ParseFuture, ref the trade's
// time) stored as root, month code and two-digit year, for a futures option
// any form ParseFutureOption reads without a separate expiry, stored
// canonical. Its error names the field at fault (assetType or symbol).
func Parse(assetType, symbol string, ref time.Time) (Instrument, error) {
	in, err := parse(assetType, symbol, ref)
	in.AssetType = assetType
	return in, err
}

func parse(assetType, symbol string, ref time.Time) (Instrument, error) {
	if !ValidAssetType(assetType) {
		if assetType == "" {
			return Instrument{}, apperr.Invalid("assetType", "is required")
		}
		return Instrument{}, apperr.Invalid("assetType", "must be "+AssetTypesText)
	}
	if strings.TrimSpace(symbol) == "" {
		return Instrument{}, apperr.Invalid("symbol", "is required")
	}
	switch assetType {
	case AssetOption:
		o, err := ParseOCC(symbol)
		if err != nil {
			return Instrument{}, apperr.Invalid("symbol", err.Error())
		}
		return Instrument{Symbol: o.Symbol(), Multiplier: decimal.NewFromInt(OptionMultiplier), Option: &o}, nil
	case AssetFuture:
		f, err := ParseFuture(symbol, ref)
		if err != nil {
			return Instrument{}, apperr.Invalid("symbol", err.Error())
		}
		return Instrument{Symbol: f.Symbol(), Future: &f}, nil
	case AssetFutureOption:
		o, err := ParseFutureOption(symbol, ref, nil)
		if err != nil {
			return Instrument{}, apperr.Invalid("symbol", err.Error())
		}
		return Instrument{Symbol: o.Symbol(), FutureOption: &o}, nil
	case AssetForex, AssetCrypto:
		parse := ParseForex
		if assetType == AssetCrypto {
			parse = ParseCrypto
		}
		p, err := parse(symbol)
		if err != nil {
			return Instrument{}, apperr.Invalid("symbol", err.Error())
		}
		return Instrument{Symbol: p.Symbol(), Multiplier: decimal.NewFromInt(1), Pair: &p, Quote: p.Quote}, nil
	}
	s := strings.ToUpper(strings.TrimSpace(symbol))
	if len(s) > MaxSymbol || !stockSymbol.MatchString(s) {
		return Instrument{}, apperr.Invalid("symbol", "must be a ticker of 1 to 32 letters, digits and . - / ^ = : _")
	}
	return Instrument{Symbol: s, Multiplier: decimal.NewFromInt(1)}, nil
}

// QuotedApart reports whether an asset type's P&L is in its instrument's
// quote currency (a pair's quote, a CFD's currency), converted into the
// account's at each fill's rate: forex, crypto and CFDs.
func QuotedApart(assetType string) bool {
	return assetType == AssetForex || assetType == AssetCrypto || assetType == AssetCFD
}

// SettleQuote sets a CFD's currency: given (a client's ISO code, upper
// case), else "" (the account's). Only CFDs take one: a pair's quote is in
// its symbol.
func (in *Instrument) SettleQuote(given *string) error {
	switch {
	case given == nil || *given == "":
		return nil
	case in.AssetType != AssetCFD:
		return apperr.Invalid("quoteCurrency", "applies only to CFDs (a pair's quote currency is in its symbol)")
	}
	c := strings.ToUpper(strings.TrimSpace(*given))
	if !money.ValidCurrency(c) {
		return apperr.Invalid("quoteCurrency", "must be a three-letter ISO 4217 currency code such as USD or EUR")
	}
	in.Quote = c
	return nil
}

// Columns are an instrument's own columns of a positions row:
// an option's root, expiry, right and strike, a future's root and contract
// month, a futures option's both (its future's root and month, its own
// expiry, right and strike); nil where they do not apply.
type Columns struct {
	Underlying, Right     *string
	Expiry, ContractMonth *time.Time
	Strike                *decimal.Decimal
}

// Columns returns the instrument's own columns of a positions row.
func (in Instrument) Columns() Columns {
	var c Columns
	if o := in.Option; o != nil {
		c.Underlying, c.Right, c.Expiry, c.Strike = &o.Underlying, &o.Right, &o.Expiry, &o.Strike
	}
	if f := in.Contract(); f != nil {
		c.Underlying, c.ContractMonth = &f.Root, &f.Month
	}
	if o := in.FutureOption; o != nil {
		c.Right, c.Expiry, c.Strike = &o.Right, &o.Expiry, &o.Strike
	}
	return c
}

// Contracts reports whether an asset type trades in whole contracts whose
// fees the fee schedule's options per-contract fields give: options,
// futures and futures options (a schedule has no futures fields of its
// own; a futures broker's per-contract commission goes in the options
// fields).
func Contracts(assetType string) bool {
	return assetType == AssetOption || assetType == AssetFuture || assetType == AssetFutureOption
}

// Label is how a person says the instrument: the symbol, or for a futures
// option "ES Dec 2024 5000 call".
func (in Instrument) Label() string {
	if in.FutureOption != nil {
		return in.FutureOption.Label()
	}
	return in.Symbol
}
